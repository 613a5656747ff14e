//! The long-poll detector: a thread that notices when one poll of one task
//! keeps a worker for too long, and says which task.
//!
//! A task that blocks its worker (a synchronous read, `thread::sleep`, a long
//! computation with no `.await`) stalls every other task on that worker,
//! and from outside the runtime nothing looks wrong: the process is busy.
//! This is the most common production bug of async Rust, and tokio-console
//! exists largely to find it.
//!
//! The detector costs the workers almost nothing: they never read the clock
//! for it. Before each poll a worker publishes the task's spawn location
//! (cleared when it runs out of local work, before it steals, polls the
//! driver or parks), and it counts its polls (which it does anyway for its
//! metrics). A
//! watchdog thread wakes every half of the threshold and looks at each
//! worker: if the same poll (same count, a task published) is still running
//! when it looks again, it has lasted at least that long. When the poll
//! ends, or when it has run for a second and still not ended, the watchdog
//! reports it once: worker, spawn location, duration (to within half
//! of the threshold). This is how Go's runtime monitor (`sysmon`) finds
//! goroutines that run too long.
//!
//! On a busy machine a worker thread is also stopped by the kernel to let
//! another thread run, in the middle of a poll, for a few milliseconds: a
//! wall-clock detector would blame the task. So the watchdog subtracts the
//! time the thread spent waiting for a CPU during the poll, which Linux
//! counts per thread (the second field of `/proc/self/task/TID/schedstat`),
//! and reports only polls whose own time (running, or blocked in a system
//! call) passes the threshold.
//!
//! Book: Chapter 7, "Seeing inside the runtime".

use super::MultiThread;
use crate::runtime::LongPoll;
use std::panic::Location;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

/// How long a poll may still be running before it is reported without
/// waiting for its end.
const REPORT_RUNNING_AFTER: Duration = Duration::from_secs(1);

/// What the watchdog remembers about one worker's current poll.
#[derive(Clone, Copy)]
struct Seen {
    polls: u64,
    location: &'static Location<'static>,
    first_seen: Instant,
    last_seen: Instant,
    /// The thread's total wait for a CPU when the poll was first seen.
    waited_at_first: Option<u64>,
    reported: bool,
}

// ANCHOR: cpu_wait
/// Each worker thread's `/proc/self/task/TID/schedstat`, opened once and
/// read again from offset 0 whenever the watchdog needs a fresh value (the
/// kernel regenerates the text on every read at offset 0): one `pread` per
/// look instead of an open, a stat, two reads and a close.
#[derive(Default)]
struct CpuWait {
    files: Vec<Option<(u64, std::fs::File)>>,
}

impl CpuWait {
    /// Nanoseconds thread `tid` (worker `worker`) of this process has spent
    /// runnable but waiting for a CPU, if the kernel reports it.
    fn waited_ns(&mut self, worker: usize, tid: u64) -> Option<u64> {
        use std::os::unix::fs::FileExt;
        if tid == 0 {
            return None;
        }
        if self.files.len() <= worker {
            self.files.resize_with(worker + 1, || None);
        }
        let slot = &mut self.files[worker];
        // A worker's thread changes when `block_in_place` hands its core
        // to a new thread: open the new thread's file.
        if slot.as_ref().is_none_or(|(opened, _)| *opened != tid) {
            let path = format!("/proc/self/task/{tid}/schedstat");
            *slot = Some((tid, std::fs::File::open(path).ok()?));
        }
        let (_, file) = slot.as_ref()?;
        let mut buf = [0u8; 96];
        let n = file.read_at(&mut buf, 0).ok()?;
        let text = std::str::from_utf8(&buf[..n]).ok()?;
        text.split_whitespace().nth(1)?.parse().ok()
    }

    /// The part of `wall` the poll itself took: the wall time minus the
    /// time the thread waited for a CPU since `waited_at_first`.
    fn own_time(
        &mut self,
        wall: Duration,
        worker: usize,
        tid: u64,
        waited_at_first: Option<u64>,
    ) -> Duration {
        match (waited_at_first, self.waited_ns(worker, tid)) {
            (Some(before), Some(after)) => {
                wall.saturating_sub(Duration::from_nanos(after.saturating_sub(before)))
            }
            _ => wall,
        }
    }
}
// ANCHOR_END: cpu_wait

/// The watchdog thread's loop; returns when the runtime shuts down.
pub(crate) fn run(handle: Arc<MultiThread>, threshold: Duration) {
    let interval = (threshold / 2).max(Duration::from_millis(1));
    let mut seen: Vec<Option<Seen>> = vec![None; handle.num_workers()];
    // Spawn locations already printed by the default reporter.
    let mut printed: Vec<&'static Location<'static>> = Vec::new();
    let mut cpu_wait = CpuWait::default();
    loop {
        // Sleep one interval, unless shutdown says stop: then at once (a
        // runtime with a 10 s threshold must not wait 5 s to be dropped).
        {
            let stop = handle.watchdog_stop.lock();
            let stop = if *stop {
                stop
            } else {
                handle.watchdog_wake.wait_timeout(stop, interval)
            };
            if *stop {
                return;
            }
        }
        let now = Instant::now();
        // ANCHOR: same_poll
        for (worker, slot) in seen.iter_mut().enumerate() {
            let stats = &handle.resources.stats[worker];
            let polls = stats.polls.get();
            let current = stats.current();
            let tid = stats.tid.load(Ordering::Relaxed);
            match (*slot, current) {
                // The same poll, still running.
                (Some(mut s), Some(location))
                    if s.polls == polls && std::ptr::eq(s.location, location) =>
                {
                    s.last_seen = now;
                    let running = now - s.first_seen;
                    if !s.reported && running >= REPORT_RUNNING_AFTER {
                        let own = cpu_wait.own_time(running, worker, tid, s.waited_at_first);
                        if own >= threshold {
                            report(&handle, &mut printed, worker, location, own, true);
                            s.reported = true;
                        }
                    }
                    *slot = Some(s);
                }
                // ANCHOR_END: same_poll
                (previous, current) => {
                    // The poll we were watching has ended.
                    if let Some(s) = previous
                        && !s.reported
                    {
                        // It ran from before `first_seen` until after
                        // `last_seen`: estimate the middle of each gap.
                        let duration = (s.last_seen - s.first_seen) + interval;
                        if duration >= threshold {
                            let own = cpu_wait.own_time(duration, worker, tid, s.waited_at_first);
                            if own >= threshold {
                                report(&handle, &mut printed, worker, s.location, own, false);
                            }
                        }
                    }
                    // A poll seen for the first time: note the thread's
                    // CPU wait so far (one small read of /proc, at most once
                    // per worker per interval; a wait before this moment,
                    // less than one interval, goes uncounted).
                    *slot = current.map(|location| Seen {
                        polls,
                        location,
                        first_seen: now,
                        last_seen: now,
                        waited_at_first: cpu_wait.waited_ns(worker, tid),
                        reported: false,
                    });
                }
            }
        }
    }
}

fn report(
    handle: &MultiThread,
    printed: &mut Vec<&'static Location<'static>>,
    worker: usize,
    location: &'static Location<'static>,
    duration: Duration,
    still_running: bool,
) {
    handle.long_polls.fetch_add(1, Ordering::Relaxed);
    let event = LongPoll {
        worker,
        location,
        duration,
        still_running,
    };
    match &handle.resources.config.on_long_poll {
        Some(hook) => hook(&event),
        // Once per spawn location: the count is in the metrics.
        None if !printed.contains(&location) => {
            printed.push(location);
            eprintln!("{event}");
        }
        None => {}
    }
}
