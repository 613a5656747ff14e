//! The long-poll detector: it notices when one poll of one task keeps a
//! worker for too long, says which task, and says what the poll's thread was
//! doing meanwhile.
//!
//! A task that blocks its worker (a synchronous read, `thread::sleep`, a long
//! computation with no `.await`) stalls every other task on that worker,
//! and from outside the runtime nothing looks wrong: the process is busy.
//! This is the most common production bug of async Rust, and tokio-console
//! exists largely to find it.
//!
//! The detector costs the workers almost nothing. Before each poll a worker
//! publishes the task's spawn location (cleared when it runs out of local
//! work, before it steals, polls the driver or parks), and it counts its
//! polls (which it does anyway for its metrics). Every third of the
//! threshold someone *looks* at each worker: if the same poll (same count, a
//! task published) is still running when it looks again, it has lasted at
//! least that long. When the poll ends, or when it has run for a second and
//! still not ended, it is judged once: worker, spawn location, duration (to
//! within the gap between two looks). This is how Go's runtime monitor
//! (`sysmon`) finds goroutines that run too long.
//!
//! Who looks: the workers themselves, while any of them is free to. In its
//! maintenance turn (every `event_interval` polls, and after each wake-up) a
//! worker reads the clock and, if a look is due, takes the detector's lock
//! (`try_lock`: if another is looking, it goes on) and looks at the others.
//! But a worker stuck in a long poll looks at nobody, and if every worker is
//! stuck, a runtime watched only by its workers would report nothing. So a
//! watchdog thread stands by: it sleeps on a timer ([`Alarm`], a `timerfd`)
//! that every look pushes back by half the threshold, so it wakes only when
//! nobody has looked for that long, looks itself, and calls the hook (a
//! worker that judged a poll long hands the report to it, so that a hook
//! never runs, or panics, on a worker). On a busy runtime the workers look
//! and the thread sleeps; on an idle one every worker is parked, there is
//! nothing to look at, and the thread sleeps until a worker unparks
//! ([`WatchdogWait`]). Looks are never more than half the threshold apart,
//! so any poll of at least the threshold spans two of them.
//!
//! A long poll is not always the task's fault. On a busy machine the kernel
//! stops a worker thread in the middle of a poll to run another thread, for
//! milliseconds, and a wall-clock detector would blame the task. Linux
//! keeps, per thread, what tells the cases apart, and whoever looks reads the
//! polling thread's files in `/proc/self/task/TID/` (two small reads when a
//! poll is first seen, at most one per look after that):
//!
//! - `schedstat`, second field: the time the thread has spent runnable but
//!   waiting for a CPU. Read when a poll is first seen and when it is
//!   judged; the difference is subtracted from the poll's duration. If what
//!   is left is under the threshold, the poll was **preempted**: long only
//!   because its thread waited for a CPU (involuntary switches, no
//!   voluntary one needed to explain it).
//! - `stat`, third field: the thread's state. `S` (asleep in a system call)
//!   or `D` (waiting for the disk) at any look during the poll means the
//!   thread gave up its CPU voluntarily: the poll **blocked**. A thread
//!   always `R` (running, or runnable) was **busy** computing.
//!
//! The state, rather than a count of voluntary switches (`status`), because
//! a sleep that began with the poll has made its one voluntary switch before
//! the first look, where no count taken from then on can see it,
//! and because `status` costs the looker about 30 µs a read against 2 to
//! 6 µs for `stat` and under 1 µs for `schedstat` (measured on a 2-CPU
//! Linux 6.18 guest).
//!
//! A preempted poll is reported to the hook, marked as such, but it is not
//! counted in `long_poll_count` and not printed: it asks nothing of the
//! task's code, only that the machine have CPUs to spare.
//!
//! Book: Chapter 7, "Finding the poll that blocks" (7.7).

use super::MultiThread;
use super::stats::WorkerStats;
use crate::loom::{AtomicBool, AtomicU64, Condvar, Mutex, fence};
use crate::runtime::{LongPoll, LongPollCause};
use std::fs::File;
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
    /// How long before `first_seen` the previous look was (at most half
    /// the threshold): the poll began at some point of it.
    gap_before: Duration,
    /// The thread's total wait for a CPU when the poll was first seen.
    waited_at_first: Option<u64>,
    /// Whether the thread was asleep at one of the looks during the poll
    /// (`None`: its state could not be read).
    slept: Option<bool>,
    reported: bool,
}

impl Seen {
    /// Reads the thread's state, unless it has been seen asleep already;
    /// keeps the reading only if the poll was still the same after it.
    fn look_at_thread(
        &mut self,
        counters: &mut ThreadCounters,
        stats: &WorkerStats,
        worker: usize,
    ) {
        if self.reported || self.slept == Some(true) {
            return;
        }
        let tid = stats.tid.load(Ordering::Relaxed);
        if let Some(asleep) = counters.asleep(worker, tid)
            && stats.polls.get() == self.polls
            && stats
                .current()
                .is_some_and(|location| std::ptr::eq(location, self.location))
        {
            self.slept = Some(asleep);
        }
    }
}

// ANCHOR: cpu_wait
/// Each worker thread's files under `/proc/self/task/TID/`, opened once and
/// read again from offset 0 whenever the watchdog needs a fresh value (the
/// kernel regenerates the text on every read at offset 0): one `pread` per
/// look instead of an open, a stat, two reads and a close.
#[derive(Default)]
struct ThreadCounters {
    threads: Vec<Option<ThreadFiles>>,
}

/// One worker thread's open files (each opened when first needed).
struct ThreadFiles {
    tid: u64,
    schedstat: Option<File>,
    stat: Option<File>,
}

impl ThreadCounters {
    /// Nanoseconds thread `tid` (worker `worker`) of this process has spent
    /// runnable but waiting for a CPU, if the kernel reports it.
    fn waited_ns(&mut self, worker: usize, tid: u64) -> Option<u64> {
        let mut buf = [0u8; 96];
        let text = self.read(worker, tid, "schedstat", &mut buf)?;
        text.split_whitespace().nth(1)?.parse().ok()
    }

    /// The time the thread waited for a CPU since `waited_at_first`.
    fn waited_since(
        &mut self,
        worker: usize,
        tid: u64,
        waited_at_first: Option<u64>,
    ) -> Option<Duration> {
        let now = self.waited_ns(worker, tid)?;
        Some(Duration::from_nanos(now.saturating_sub(waited_at_first?)))
    }

    /// Whether the thread is asleep in a system call now (state `S`, or
    /// `D` for the disk) rather than running or runnable (`R`).
    fn asleep(&mut self, worker: usize, tid: u64) -> Option<bool> {
        let mut buf = [0u8; 512];
        let text = self.read(worker, tid, "stat", &mut buf)?;
        thread_asleep(text)
    }

    /// Reads `/proc/self/task/TID/{name}` from offset 0 into `buf`, opening
    /// it first if this worker's thread has not had it opened yet.
    fn read<'b>(
        &mut self,
        worker: usize,
        tid: u64,
        name: &str,
        buf: &'b mut [u8],
    ) -> Option<&'b str> {
        use std::os::unix::fs::FileExt;
        if tid == 0 {
            return None;
        }
        if self.threads.len() <= worker {
            self.threads.resize_with(worker + 1, || None);
        }
        let slot = &mut self.threads[worker];
        // A worker's thread changes when `block_in_place` hands its core
        // to a new thread: open the new thread's files.
        if slot.as_ref().is_none_or(|files| files.tid != tid) {
            *slot = Some(ThreadFiles {
                tid,
                schedstat: None,
                stat: None,
            });
        }
        let files = slot.as_mut()?;
        let file = if name == "stat" {
            &mut files.stat
        } else {
            &mut files.schedstat
        };
        if file.is_none() {
            *file = Some(File::open(format!("/proc/self/task/{tid}/{name}")).ok()?);
        }
        let n = file.as_ref()?.read_at(buf, 0).ok()?;
        std::str::from_utf8(&buf[..n]).ok()
    }
}
// ANCHOR_END: cpu_wait

/// The state in a `stat` line (`7 (rt-worker-0) S 1 ...`: the field after
/// the name, which is in parentheses and may itself hold spaces or
/// parentheses): asleep if `S` or `D`.
fn thread_asleep(stat: &str) -> Option<bool> {
    let (_, after_name) = stat.rsplit_once(')')?;
    let state = after_name.split_whitespace().next()?;
    Some(state == "S" || state == "D")
}

// ANCHOR: classify
/// What a poll that kept its worker `duration` (by the wall clock) was
/// doing, from its thread's counters: `waited`, the time the thread spent
/// waiting for a CPU meanwhile (`None`: unknown), and `slept`, whether it
/// gave up its CPU in a system call (`None`: unknown). `None` if the poll
/// was not long. Returns the cause and the poll's own time (the duration
/// without the wait).
fn classify(
    duration: Duration,
    waited: Option<Duration>,
    slept: Option<bool>,
    threshold: Duration,
) -> Option<(LongPollCause, Duration)> {
    if duration < threshold {
        return None;
    }
    let own = duration.saturating_sub(waited.unwrap_or_default());
    let cause = if own < threshold {
        // Without the wait for a CPU it would not have been long.
        LongPollCause::Preempted
    } else {
        match slept {
            Some(true) => LongPollCause::Blocked,
            Some(false) => LongPollCause::Busy,
            None => LongPollCause::Unknown,
        }
    };
    Some((cause, own))
}
// ANCHOR_END: classify

// ANCHOR: alarm
/// The watchdog thread's timer, a Linux `timerfd`. The thread blocks reading
/// it; every look sets it again to half the threshold from now, so it rings
/// only when nobody has looked for that long. Setting it is one system call
/// and wakes nobody: the workers push the thread's wake-up back without
/// making it run.
#[cfg(not(loom))]
pub(crate) struct Alarm {
    timer: File,
}

#[cfg(not(loom))]
impl Alarm {
    /// A new alarm, not set; `None` where no `timerfd` could be made (no
    /// descriptor left), and under Miri, which does not model one: the
    /// watchdog then waits on its condition variable with a timeout and
    /// does every look itself.
    fn new() -> Option<Alarm> {
        use std::os::fd::{FromRawFd, OwnedFd};
        if cfg!(miri) {
            return None;
        }
        // SAFETY: timerfd_create takes a clock id and flags, and returns a
        // new descriptor or -1; it touches no memory of ours.
        let fd = unsafe { libc::timerfd_create(libc::CLOCK_MONOTONIC, libc::TFD_CLOEXEC) };
        if fd < 0 {
            return None;
        }
        // SAFETY: `fd` was just returned by timerfd_create: it is open and
        // nothing else owns it.
        let fd = unsafe { OwnedFd::from_raw_fd(fd) };
        Some(Alarm {
            timer: File::from(fd),
        })
    }

    /// Rings `after` from now (an earlier setting is replaced; zero rings
    /// at once).
    fn set(&self, after: Duration) {
        // A zero value would unset the timer instead.
        self.settime(Some(after.max(Duration::from_nanos(1))));
    }

    /// timerfd_settime: one shot, `after` from now (`None`: unset).
    fn settime(&self, after: Option<Duration>) {
        use std::os::fd::AsRawFd;
        let after = after.unwrap_or_default();
        let zero = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        let spec = libc::itimerspec {
            it_interval: zero,
            it_value: libc::timespec {
                tv_sec: after.as_secs().try_into().unwrap_or(libc::time_t::MAX),
                tv_nsec: after.subsec_nanos().into(),
            },
        };
        // It can only fail for a bad argument, and these are not.
        // SAFETY: the descriptor is an open timerfd owned by `self`, `spec`
        // lives across the call, and the old value may be null.
        unsafe { libc::timerfd_settime(self.timer.as_raw_fd(), 0, &spec, std::ptr::null_mut()) };
    }

    /// Unsets the alarm: it will not ring until set again.
    fn unset(&self) {
        self.settime(None);
    }

    /// Blocks until the alarm rings; at once if it rang since the last wait.
    fn wait(&self) {
        use std::io::Read;
        // The kernel writes how many times it rang; retried on EINTR.
        let mut rang = [0u8; 8];
        let _ = (&self.timer).read_exact(&mut rang);
    }
}
// ANCHOR_END: alarm

/// Loom's stand-in for the `timerfd`, which it cannot model: `set` means
/// the alarm will ring (loom has no clock, so when does not matter),
/// `unset` that it will not, and `wait` blocks until it rings. What loom
/// checks with it is whether an alarm is set whenever the watchdog sleeps
/// beside a running worker.
#[cfg(loom)]
pub(crate) struct Alarm {
    set: Mutex<bool>,
    rang: Condvar,
}

#[cfg(loom)]
impl Alarm {
    fn new() -> Option<Alarm> {
        Some(Alarm {
            set: Mutex::new(false),
            rang: Condvar::new(),
        })
    }

    fn set(&self, _after: Duration) {
        *self.set.lock() = true;
        self.rang.notify_all();
    }

    fn unset(&self) {
        *self.set.lock() = false;
    }

    fn wait(&self) {
        let mut set = self.set.lock();
        while !*set {
            set = self.rang.wait(set);
        }
        // One shot: it rang, and is no longer set.
        *set = false;
    }
}

// ANCHOR: watchdog_wait
/// How the watchdog thread waits between its looks. While any worker may be
/// polling it sleeps on its [`Alarm`], which every look pushes back by
/// `interval`. While every worker is parked there is nothing to look at,
/// and an idle runtime must not wake a thread 200 times a second for
/// nothing: it sleeps with the alarm unset, and the first worker to unpark
/// sets it. That does not wake it: the unparked worker looks by itself, and
/// the watchdog wakes only if nobody has looked `interval` later.
///
/// No lost wake-up: the watchdog sets `asleep` and then reads the workers'
/// `parked` flags; a worker clears its flag and then reads `asleep`, each
/// with a `SeqCst` fence between its write and its read, so one of the two
/// sees the other's write: either the watchdog sees the worker unparked
/// and sets its own alarm, or the worker sees `asleep` and sets it. Where
/// there is no alarm (see [`Alarm::new`]) the watchdog waits on a condition
/// variable instead, with a timeout while a worker may be polling, and the
/// worker that sees `asleep` wakes it under the lock the watchdog holds
/// until it waits. The loom model below checks both orders, in both
/// versions (with a stand-in for the alarm, which loom cannot model).
pub(crate) struct WatchdogWait {
    /// Set at shutdown: the watchdog stops at once.
    stopped: Mutex<bool>,
    wake: Condvar,
    /// True while the watchdog sleeps with no timeout.
    asleep: AtomicBool,
    /// The timer the watchdog sleeps on; `None`: it waits on `wake`, and
    /// does every look itself.
    alarm: Option<Alarm>,
    /// The longest the watchdog lets pass without a look.
    interval: Duration,
}

impl WatchdogWait {
    /// `interval`: the longest the watchdog lets pass without a look
    /// (`None`: there is no detector, and so no alarm to make).
    pub(crate) fn new(interval: Option<Duration>) -> WatchdogWait {
        WatchdogWait {
            stopped: Mutex::new(false),
            wake: Condvar::new(),
            asleep: AtomicBool::new(false),
            alarm: interval.and_then(|_| Alarm::new()),
            interval: interval.unwrap_or_default(),
        }
    }

    /// Waits until nobody has looked for `interval`, or, if `all_parked()`
    /// says every worker is parked, until a worker has unparked and nobody
    /// has looked for `interval` since. Returns false once the runtime is
    /// stopping.
    pub(crate) fn wait(&self, all_parked: impl Fn() -> bool) -> bool {
        let mut stopped = self.stopped.lock();
        if *stopped {
            return false;
        }
        if let Some(alarm) = &self.alarm {
            // Unset before `asleep` is published: a worker that sees
            // `asleep` sets the alarm after this, never before.
            alarm.unset();
        }
        self.asleep.store(true, Ordering::SeqCst);
        // Pairs with the fence in `worker_unparked`.
        fence(Ordering::SeqCst);
        let idle = all_parked();
        if !idle {
            self.asleep.store(false, Ordering::SeqCst);
        }
        match &self.alarm {
            Some(alarm) => {
                if !idle {
                    alarm.set(self.interval);
                }
                // Set (or unset) with the lock held: `stop` takes it
                // before it rings the alarm, so its ring comes after.
                drop(stopped);
                alarm.wait();
                stopped = self.stopped.lock();
            }
            None if idle => {
                while !*stopped && self.asleep.load(Ordering::SeqCst) {
                    stopped = self.wake.wait(stopped);
                }
            }
            None => {
                // Loom has no clock, and its timed wait never times out:
                // the model takes the timeout at once, which a timed wait
                // may do.
                #[cfg(not(loom))]
                {
                    stopped = self.wake.wait_timeout(stopped, self.interval);
                }
            }
        }
        self.asleep.store(false, Ordering::SeqCst);
        !*stopped
    }

    /// Whether workers take part in the looks: only when the watchdog
    /// sleeps on an alarm they can push back.
    pub(crate) fn workers_look(&self) -> bool {
        self.alarm.is_some()
    }

    /// Someone has looked: the watchdog may sleep `interval` more.
    pub(crate) fn looked(&self) {
        if let Some(alarm) = &self.alarm {
            alarm.set(self.interval);
        }
    }

    /// A worker's look judged a poll long: the watchdog wakes to report it.
    pub(crate) fn ring(&self) {
        if let Some(alarm) = &self.alarm {
            alarm.set(Duration::ZERO);
        }
    }

    /// A worker has cleared its `parked` flag: if the watchdog sleeps with
    /// no timeout, sets its alarm (or, with no alarm, wakes it). One load
    /// when it does not sleep.
    pub(crate) fn worker_unparked(&self) {
        // The worker's `parked = false` is before this fence, the load of
        // `asleep` after it; the watchdog's store of `asleep` before its
        // fence, its loads of `parked` after.
        fence(Ordering::SeqCst);
        if !self.asleep.load(Ordering::SeqCst) {
            return;
        }
        match &self.alarm {
            Some(alarm) => {
                // The first worker to see it asleep sets the alarm.
                if self.asleep.swap(false, Ordering::SeqCst) {
                    alarm.set(self.interval);
                }
            }
            None => {
                let _stopped = self.stopped.lock();
                self.asleep.store(false, Ordering::SeqCst);
                self.wake.notify_one();
            }
        }
    }

    /// Shutdown: the watchdog returns from its wait at once.
    pub(crate) fn stop(&self) {
        *self.stopped.lock() = true;
        self.ring();
        self.wake.notify_all();
    }
}
// ANCHOR_END: watchdog_wait

/// The looks at the workers, shared by the workers and the watchdog thread:
/// whoever looks holds `looks`.
pub(crate) struct Detector {
    threshold: Duration,
    /// A worker looks once this long has passed since the last look: a
    /// third of the threshold, so that workers busy with short polls look
    /// before the watchdog's alarm (half the threshold) rings.
    look_every: Duration,
    /// Looks are at most this far apart (the alarm): half the threshold.
    max_gap: Duration,
    /// The origin of `next_look`.
    epoch: Instant,
    /// When the next look is due, in nanoseconds since `epoch`: a worker
    /// compares its clock with it before it tries the lock.
    next_look: AtomicU64,
    looks: Mutex<Looks>,
}

/// What the looks remember.
struct Looks {
    /// Each worker's poll as last seen (`None`: not polling).
    seen: Vec<Option<Seen>>,
    counters: ThreadCounters,
    last_look: Instant,
    /// Long polls judged by a worker's look: the watchdog counts them and
    /// hands them to the hook.
    judged: Vec<LongPoll>,
}

impl Detector {
    pub(crate) fn new(threshold: Duration, workers: usize) -> Detector {
        let max_gap = (threshold / 2).max(Duration::from_millis(1));
        let epoch = Instant::now();
        Detector {
            threshold,
            look_every: max_gap * 2 / 3,
            max_gap,
            epoch,
            next_look: AtomicU64::new(0),
            looks: Mutex::new(Looks {
                seen: vec![None; workers],
                counters: ThreadCounters::default(),
                last_look: epoch,
                judged: Vec::new(),
            }),
        }
    }

    /// The longest the looks are apart: half the threshold.
    pub(crate) fn max_gap(&self) -> Duration {
        self.max_gap
    }

    fn nanos(&self, at: Instant) -> u64 {
        u64::try_from(at.saturating_duration_since(self.epoch).as_nanos()).unwrap_or(u64::MAX)
    }

    // ANCHOR: worker_turn
    /// A worker's maintenance turn: one load (and a clock read, unless the
    /// worker has just read the clock, `now`), and a look at the other
    /// workers if one is due and nobody else is looking.
    pub(crate) fn worker_turn(&self, handle: &MultiThread, worker: usize, now: Option<Instant>) {
        if !handle.watchdog.workers_look() {
            return;
        }
        let now = now.unwrap_or_else(Instant::now);
        if self.nanos(now) < self.next_look.load(Ordering::Relaxed) {
            return;
        }
        let Some(mut looks) = self.looks.try_lock() else {
            return;
        };
        if self.look(handle, &mut looks, now, Some(worker)) {
            if looks.judged.is_empty() {
                // The watchdog sleeps on: nobody need look for another
                // half threshold.
                handle.watchdog.looked();
            } else {
                // A report to hand over wakes it now (and at every look
                // until it has: setting its alarm for its next sleep
                // cancels a ring it has not yet seen).
                handle.watchdog.ring();
            }
        }
    }
    // ANCHOR_END: worker_turn

    /// Nothing for the watchdog to watch: every worker parked, no poll
    /// seen, nothing judged and not reported (false if someone is looking).
    fn nothing_to_watch(&self, handle: &MultiThread) -> bool {
        self.looks
            .try_lock()
            .is_some_and(|looks| looks.seen.iter().all(Option::is_none) && looks.judged.is_empty())
            && handle
                .resources
                .stats
                .iter()
                .all(|stats| stats.parked.load(Ordering::SeqCst))
    }

    /// One look at every worker, unless the last was less than
    /// `look_every` ago; `looker`: the worker looking, which is between
    /// polls. Returns whether it looked.
    fn look(
        &self,
        handle: &MultiThread,
        looks: &mut Looks,
        now: Instant,
        looker: Option<usize>,
    ) -> bool {
        if now < looks.last_look + self.look_every {
            return false;
        }
        // How long since the previous look: a poll that began or ended
        // between the two did so at any point of it. (When the looker
        // itself waited for a CPU, looks are further apart; the gap is
        // counted as at most half the threshold, so that it errs towards a
        // shorter poll, never towards blaming one.)
        let gap = (now - looks.last_look).min(self.max_gap);
        looks.last_look = now;
        self.next_look
            .store(self.nanos(now + self.look_every), Ordering::Relaxed);
        let Looks {
            seen,
            counters,
            judged,
            ..
        } = looks;
        // ANCHOR: same_poll
        for (worker, slot) in seen.iter_mut().enumerate() {
            let stats = &handle.resources.stats[worker];
            let polls = stats.polls.get();
            // The worker looking is between two polls.
            let current = if looker == Some(worker) {
                None
            } else {
                stats.current()
            };
            let tid = stats.tid.load(Ordering::Relaxed);
            match (*slot, current) {
                // The same poll, still running.
                (Some(mut s), Some(location))
                    if s.polls == polls && std::ptr::eq(s.location, location) =>
                {
                    s.last_seen = now;
                    s.look_at_thread(counters, stats, worker);
                    let running = now - s.first_seen;
                    if !s.reported && running >= REPORT_RUNNING_AFTER {
                        let waited = counters.waited_since(worker, tid, s.waited_at_first);
                        judged.extend(self.judge(worker, &s, running, waited, true));
                        s.reported = true;
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
                        // `last_seen`: count half a gap each side.
                        let duration = (s.last_seen - s.first_seen) + (s.gap_before + gap) / 2;
                        if duration >= self.threshold {
                            // Read after the poll ended: a wait for a CPU
                            // is counted when the thread gets one back.
                            let waited = counters.waited_since(worker, tid, s.waited_at_first);
                            judged.extend(self.judge(worker, &s, duration, waited, false));
                        }
                    }
                    // A poll seen for the first time: note the thread's
                    // CPU wait so far and its state (two small reads of
                    // /proc, at most once per worker per look; a wait
                    // that ended before this moment goes uncounted).
                    *slot = current.map(|location| {
                        let mut s = Seen {
                            polls,
                            location,
                            first_seen: now,
                            last_seen: now,
                            gap_before: gap,
                            waited_at_first: counters.waited_ns(worker, tid),
                            slept: None,
                            reported: false,
                        };
                        s.look_at_thread(counters, stats, worker);
                        s
                    });
                }
            }
        }
        true
    }

    /// Judges the poll `seen` after `duration`: the report, if it was long.
    fn judge(
        &self,
        worker: usize,
        seen: &Seen,
        duration: Duration,
        waited: Option<Duration>,
        still_running: bool,
    ) -> Option<LongPoll> {
        let (cause, own) = classify(duration, waited, seen.slept, self.threshold)?;
        Some(LongPoll {
            worker,
            location: seen.location,
            duration: own,
            cpu_wait: waited.unwrap_or_default(),
            cause,
            still_running,
        })
    }
}

/// The watchdog thread's loop; returns when the runtime shuts down.
pub(crate) fn run(handle: Arc<MultiThread>) {
    let Some(detector) = &handle.detector else {
        return;
    };
    loop {
        // Sleep until nobody has looked for half the threshold (or a
        // worker's look has a report), or, while every worker is parked and
        // no poll is left to judge, until a worker unparks; and return at
        // once when shutdown says stop (a runtime with a 10 s threshold
        // must not wait 5 s to be dropped).
        let nothing_to_watch = || detector.nothing_to_watch(&handle);
        let running = handle.watchdog.wait(nothing_to_watch);
        if running {
            let mut looks = detector.looks.lock();
            detector.look(&handle, &mut looks, Instant::now(), None);
        }
        // Counted and handed to the hook here, never on a worker.
        hand_over_long_polls(&handle);
        if !running {
            return;
        }
    }
}

/// Counts the long polls the looks have judged since the last call, and
/// hands each to the hook. Called by the watchdog thread, and once more by
/// the runtime's drop after it (a worker may judge a poll on its way out).
pub(crate) fn hand_over_long_polls(handle: &MultiThread) {
    let Some(detector) = &handle.detector else {
        return;
    };
    let judged = std::mem::take(&mut detector.looks.lock().judged);
    for poll in &judged {
        if poll.cause != LongPollCause::Preempted {
            handle.long_polls.fetch_add(1, Ordering::Relaxed);
        }
        if let Some(hook) = &handle.resources.config.on_long_poll {
            hook(poll);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A worker unparks while the watchdog decides to sleep: in every
    /// interleaving the watchdog either sees the worker unparked (and sets
    /// its alarm itself, or, with no alarm, sleeps one interval) or the
    /// worker sees it asleep and sets its alarm (or wakes it). A lost
    /// wake-up would leave the watchdog asleep with no alarm set and the
    /// worker running, which loom reports as a deadlock. Both versions:
    /// with the alarm (loom's stand-in for the `timerfd`) and without.
    #[cfg(loom)]
    #[test]
    fn loom_watchdog_sleeps_until_a_worker_unparks() {
        use crate::loom::{Arc, AtomicBool, thread};
        for with_alarm in [true, false] {
            loom::model(move || {
                let hour = Some(Duration::from_secs(3600));
                let wait = if with_alarm {
                    WatchdogWait::new(hour)
                } else {
                    WatchdogWait {
                        alarm: None,
                        ..WatchdogWait::new(hour)
                    }
                };
                let wait = Arc::new(wait);
                let parked = Arc::new(AtomicBool::new(true));
                let worker = {
                    let (wait, parked) = (wait.clone(), parked.clone());
                    thread::spawn(move || {
                        parked.store(false, Ordering::SeqCst);
                        wait.worker_unparked();
                    })
                };
                let all_parked = || parked.load(Ordering::SeqCst);
                assert!(wait.wait(all_parked));
                worker.join().unwrap();
            });
        }
    }

    const MS: Duration = Duration::from_millis(1);

    /// Durations and waits as measured for real polls by
    /// `tests/long_poll.rs` on a 2-CPU Linux guest with other builds
    /// running (threshold 20 ms), and cases on either side of the rules.
    #[test]
    fn the_counters_tell_a_blocked_a_busy_and_a_preempted_poll_apart() {
        let t = 20 * MS;
        let us = Duration::from_micros;
        // thread::sleep(60 ms): 57.7 ms by the watchdog's looks, 0.4 ms of
        // it waiting for a CPU, the thread seen asleep.
        assert_eq!(
            classify(us(57_678), Some(us(389)), Some(true), t),
            Some((LongPollCause::Blocked, us(57_289)))
        );
        // 60 ms of CPU time: 139.2 ms by the looks, 84.0 ms of it waiting,
        // never asleep.
        assert_eq!(
            classify(us(139_236), Some(us(84_028)), Some(false), t),
            Some((LongPollCause::Busy, us(55_208)))
        );
        // 3 ms of CPU time beside a spinning thread on the same CPU: 24.8
        // ms of waiting, more than the looks' estimate of the poll (the
        // kernel counts a wait when it ends, whole, even the part before
        // the first look).
        assert_eq!(
            classify(20 * MS, Some(us(24_808)), Some(false), t),
            Some((LongPollCause::Preempted, Duration::ZERO))
        );
        // Preemption wins over sleeping when the wait alone made the poll
        // long.
        assert_eq!(
            classify(30 * MS, Some(15 * MS), Some(true), t),
            Some((LongPollCause::Preempted, 15 * MS))
        );
        // No /proc: the wall clock alone, and no verdict.
        assert_eq!(
            classify(30 * MS, None, None, t),
            Some((LongPollCause::Unknown, 30 * MS))
        );
        assert_eq!(classify(19 * MS, Some(Duration::ZERO), Some(true), t), None);
    }

    /// The state field of real `stat` lines, including a thread name with
    /// a space and a parenthesis in it.
    #[test]
    fn the_state_is_read_from_stat_after_the_name() {
        let line = "7 (rt-worker-0) S 1 7 7 0 -1 4194304 98 0 0 0";
        assert_eq!(thread_asleep(line), Some(true));
        assert_eq!(thread_asleep(&line.replace(" S ", " D ")), Some(true));
        assert_eq!(thread_asleep(&line.replace(" S ", " R ")), Some(false));
        assert_eq!(thread_asleep("8 (a) b) R 1 8"), Some(false));
        assert_eq!(thread_asleep("no name here"), None);
    }

    /// A thread of this process can read its own files: running, and a
    /// total wait for a CPU.
    #[test]
    #[cfg_attr(miri, ignore = "reads /proc, which Miri's isolation forbids")]
    fn a_thread_of_this_process_can_read_its_counters() {
        // SAFETY: gettid takes no arguments and cannot fail.
        let tid = unsafe { libc::gettid() } as u64;
        let mut counters = ThreadCounters::default();
        assert_eq!(
            counters.asleep(0, tid),
            Some(false),
            "this thread is running"
        );
        assert!(counters.waited_ns(0, tid).is_some());
    }
}
