//! The long-poll detector's two verdicts side by side: a poll that blocks
//! its worker, and a poll that is only preempted.
//!
//! Both polls keep their worker for tens of milliseconds by the wall clock.
//! The first calls `std::thread::sleep(50 ms)`: the task's own fault, which
//! the detector reports as *blocked*. The second does 2 ms of work, but on
//! a CPU it shares with a busier thread: the worker thread is moved onto
//! the CPU of a thread that spins, at a lower priority (nice 10 against 0,
//! about a tenth of the CPU), so the kernel preempts it in mid-poll and
//! makes it wait. The detector reports that poll as *preempted*, and does
//! not count it: the task did nothing wrong. Forcing the preemption this
//! way is deterministic on any Linux machine, whatever else it runs.
//!
//! The runtime reports nothing unless asked; this demo asks, with
//! `Builder::on_long_poll`, and keeps the reports.
//!
//! Book: Chapter 7, "Finding the poll that blocks" (7.7).

use rt::runtime::{Builder, LongPoll, Runtime};
use std::future::Future;
use std::io;
use std::panic::Location;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

/// How many times a poll is repeated before giving up on a report. The
/// watchdog is a thread like any other: on a machine loaded with busier
/// threads it may not get a CPU twice during a 50 ms poll, so each retry of
/// the sleeping poll sleeps twice as long as the one before (up to 1.6 s,
/// past the watchdog's one-second report of a poll still running).
const ATTEMPTS: u32 = 10;

/// What the detector said about the two polls.
#[derive(Debug, Clone, Copy)]
pub struct TwoPolls {
    /// The report about the poll that slept.
    pub blocked: LongPoll,
    /// The report about the poll that was preempted.
    pub preempted: LongPoll,
    /// `long_poll_count()` at the end: the polls blamed on their task.
    pub counted: u64,
}

/// Runs the two polls on a one-worker runtime with the default threshold
/// (10 ms) and returns the detector's first report about each.
pub fn two_polls() -> io::Result<TwoPolls> {
    let reports: Arc<Mutex<Vec<LongPoll>>> = Arc::default();
    let sink = reports.clone();
    let rt = Builder::new_multi_thread()
        .worker_threads(1)
        .on_long_poll(move |report| {
            sink.lock()
                .unwrap_or_else(PoisonError::into_inner)
                .push(*report)
        })
        .build()?;
    let blocked = first_report(&rt, &reports, |attempt| async move {
        std::thread::sleep(Duration::from_millis(50) * (1 << attempt.min(5)));
    })?;
    let cpu = last_allowed_cpu()?;
    let hog = Hog::start(cpu);
    let preempted = first_report(&rt, &reports, move |_| async move {
        // First poll: onto the spinner's CPU, at a lower priority (moving
        // waits for the kernel, a voluntary switch: kept out of the poll
        // that matters).
        if let Err(error) = pin_to(cpu).and_then(|()| lower_priority(10)) {
            panic!("cannot move the worker next to the spinner: {error}");
        }
        rt::task::yield_now().await;
        // Second poll, on the same (only) worker: 2 ms of work.
        spin_for_cpu_time(Duration::from_millis(2));
    });
    drop(hog);
    let counted = rt.metrics().long_poll_count();
    drop(rt);
    Ok(TwoPolls {
        blocked,
        preempted: preempted?,
        counted,
    })
}

/// Spawns `make(attempt)` and waits for it until the hook has a report
/// about this spawn location (the caller's line); returns the first such
/// report.
#[track_caller]
fn first_report<F>(
    rt: &Runtime,
    reports: &Mutex<Vec<LongPoll>>,
    make: impl Fn(u32) -> F,
) -> io::Result<LongPoll>
where
    F: Future<Output = ()> + Send + 'static,
{
    let here = Location::caller();
    let ours = || {
        reports
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .iter()
            .find(|r| r.location.file() == here.file() && r.location.line() == here.line())
            .copied()
    };
    for attempt in 0..ATTEMPTS {
        rt.block_on(rt.spawn(make(attempt)))
            .map_err(|error| io::Error::other(format!("the demo's task failed: {error}")))?;
        // The watchdog judges a poll at its first look after the end.
        let settle = Instant::now() + Duration::from_millis(500);
        while Instant::now() < settle {
            if let Some(report) = ours() {
                return Ok(report);
            }
            std::thread::sleep(Duration::from_millis(1));
        }
    }
    Err(io::Error::other(format!(
        "the detector reported none of {ATTEMPTS} long polls spawned at line {}",
        here.line()
    )))
}

/// A thread that spins on one CPU until dropped (at most 30 s).
struct Hog {
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Hog {
    fn start(cpu: usize) -> Hog {
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        let thread = std::thread::spawn(move || {
            // Unpinned, it still competes for the CPUs; pinned is surer.
            let _ = pin_to(cpu);
            let deadline = Instant::now() + Duration::from_secs(30);
            while !flag.load(Ordering::Relaxed) && Instant::now() < deadline {
                std::hint::spin_loop();
            }
        });
        Hog {
            stop,
            thread: Some(thread),
        }
    }
}

impl Drop for Hog {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        let _ = self.thread.take().map(std::thread::JoinHandle::join);
    }
}

/// The last CPU this process may run on.
fn last_allowed_cpu() -> io::Result<usize> {
    // SAFETY: an all-zero cpu_set_t is a valid empty set.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    // SAFETY: `set` is a valid, writable cpu_set_t of the size given; pid 0
    // is the calling thread.
    if unsafe { libc::sched_getaffinity(0, std::mem::size_of_val(&set), &mut set) } != 0 {
        return Err(io::Error::last_os_error());
    }
    (0..libc::CPU_SETSIZE as usize)
        .rev()
        // SAFETY: `cpu` is below CPU_SETSIZE, the set's capacity.
        .find(|&cpu| unsafe { libc::CPU_ISSET(cpu, &set) })
        .ok_or_else(|| io::Error::other("this process may run on no CPU"))
}

/// Makes the calling thread run only on `cpu`.
fn pin_to(cpu: usize) -> io::Result<()> {
    // SAFETY: an all-zero cpu_set_t is a valid empty set.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    // SAFETY: `cpu` is below CPU_SETSIZE (it came from the process's set).
    unsafe { libc::CPU_SET(cpu, &mut set) };
    // SAFETY: `set` is a valid cpu_set_t of the size given; pid 0 is the
    // calling thread.
    if unsafe { libc::sched_setaffinity(0, std::mem::size_of_val(&set), &set) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// Raises the calling thread's nice value to `nice` (no privilege needed).
fn lower_priority(nice: i32) -> io::Result<()> {
    // SAFETY: PRIO_PROCESS with id 0 is the calling thread on Linux.
    if unsafe { libc::setpriority(libc::PRIO_PROCESS, 0, nice) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// CPU time this thread has used.
fn thread_cpu_time() -> Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec; Linux has
    // CLOCK_THREAD_CPUTIME_ID.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

/// Computes until this thread has used `cpu` of CPU time, however long
/// that takes by the wall clock.
fn spin_for_cpu_time(cpu: Duration) {
    let start = thread_cpu_time();
    while thread_cpu_time() - start < cpu {
        std::hint::spin_loop();
    }
}
