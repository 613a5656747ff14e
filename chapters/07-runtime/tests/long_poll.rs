//! The long-poll detector as a program sees it: silent unless asked, and
//! able to say whether a long poll blocked, computed, or only waited for a
//! CPU.
//!
//! A library writes nothing to stderr that its program did not ask for, so
//! the first test runs a default runtime in a child process of this test
//! binary and reads what the child wrote to its stderr. The others ask for
//! reports with a hook and check what each report says the poll did.
//! No test asserts a duration: each waits, within a bound, for the report
//! it needs, and a hang is a failure that says so.
//!
//! Book: Chapter 7, "Finding the poll that blocks" (7.7).
#![cfg(not(loom))]
#![cfg(not(miri))]

use rt::runtime::Runtime;
use rt::{Builder, LongPoll, LongPollCause};
use std::future::Future;
use std::io::Read;
use std::panic::Location;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

/// How long any wait in this file may last before the test fails.
const LIMIT: Duration = Duration::from_secs(30);

/// Runs this test binary again with `args`, and returns its exit status,
/// stdout and stderr; fails the test if it runs past [`LIMIT`] (then the
/// child is killed).
fn run_child(args: &[&str]) -> (std::process::ExitStatus, String, String) {
    let mut child = Command::new(std::env::current_exe().expect("the test binary's path"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run the test binary again");
    let read_all = |mut pipe: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut text = String::new();
            let _ = pipe.read_to_string(&mut text);
            text
        })
    };
    let stdout = read_all(Box::new(child.stdout.take().unwrap()));
    let stderr = read_all(Box::new(child.stderr.take().unwrap()));
    let deadline = Instant::now() + LIMIT;
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait for the child") {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("HANG: the child {args:?} did not finish within {LIMIT:?}");
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    (
        status,
        stdout.join().expect("stdout reader"),
        stderr.join().expect("stderr reader"),
    )
}

/// The child's half of [`a_default_runtime_writes_nothing_to_stderr`]: a
/// runtime built with the defaults, and a task that blocks its worker
/// until the detector has counted a long poll (so the detector ran and had
/// something to say). Ignored in a normal run; the parent runs it.
#[test]
#[ignore = "run by a_default_runtime_writes_nothing_to_stderr, in a child process"]
fn child_blocks_a_worker_of_a_default_runtime() {
    let rt = Builder::new_multi_thread()
        .worker_threads(2)
        .build()
        .unwrap();
    let deadline = Instant::now() + LIMIT / 2;
    while rt.metrics().long_poll_count() == 0 {
        assert!(
            Instant::now() < deadline,
            "the detector counted no long poll"
        );
        rt.block_on(rt.spawn(async { std::thread::sleep(Duration::from_millis(60)) }))
            .unwrap();
        // The watchdog counts a poll once it has seen it end.
        let settle = Instant::now() + Duration::from_millis(500);
        while rt.metrics().long_poll_count() == 0 && Instant::now() < settle {
            std::thread::sleep(Duration::from_millis(1));
        }
    }
    let counted = rt.metrics().long_poll_count();
    drop(rt); // joins the watchdog: nothing is left to print after this
    println!("long polls counted: {counted}");
}

/// A library prints nothing unless asked: a runtime built with the defaults
/// counts a poll that blocks its worker (`long_poll_count`), and writes
/// nothing about it to stderr.
#[test]
fn a_default_runtime_writes_nothing_to_stderr() {
    let (status, stdout, stderr) = run_child(&[
        "--exact",
        "child_blocks_a_worker_of_a_default_runtime",
        "--ignored",
        "--nocapture",
        "--test-threads=1",
    ]);
    assert!(status.success(), "the child failed: {stdout}\n{stderr}");
    assert!(
        stdout.contains("long polls counted:"),
        "the child did not run its test: {stdout}"
    );
    assert!(
        stderr.trim().is_empty(),
        "a runtime built with the defaults wrote to stderr:\n{stderr}"
    );
}

/// The tests below run one at a time: one of them keeps a CPU busy on
/// purpose, which the others should not have to share.
fn serial() -> MutexGuard<'static, ()> {
    static SERIAL: Mutex<()> = Mutex::new(());
    SERIAL.lock().unwrap_or_else(PoisonError::into_inner)
}

/// What the hook received.
type Reports = Arc<Mutex<Vec<LongPoll>>>;

/// A runtime with `workers` workers, a long-poll threshold of 20 ms, and a
/// hook that keeps every report.
fn runtime_with_hook(workers: usize) -> (Runtime, Reports) {
    let reports: Reports = Arc::default();
    let sink = reports.clone();
    let rt = Builder::new_multi_thread()
        .worker_threads(workers)
        .long_poll_threshold(Some(Duration::from_millis(20)))
        .on_long_poll(move |report| sink.lock().unwrap().push(*report))
        .build()
        .unwrap();
    (rt, reports)
}

/// Spawns `make()` on `rt` and waits for it, again and again, until the
/// hook has a report about this spawn location (the caller's line) whose
/// cause is `wanted` (any cause if `None`); fails if none comes within
/// [`LIMIT`]. The watchdog reports what its looks saw, and its own thread
/// can wait for a CPU too, so on a loaded machine a poll may go unseen, or
/// be stretched by preemption. Returns every report about that location.
#[track_caller]
fn until_reported<F>(
    rt: &Runtime,
    reports: &Reports,
    wanted: Option<LongPollCause>,
    make: impl Fn() -> F,
) -> Vec<LongPoll>
where
    F: Future<Output = ()> + Send + 'static,
{
    let here = Location::caller();
    let ours = || -> Vec<LongPoll> {
        let reports = reports.lock().unwrap();
        reports
            .iter()
            .filter(|r| r.location.file() == here.file() && r.location.line() == here.line())
            .copied()
            .collect()
    };
    let found = || {
        ours()
            .iter()
            .any(|r| wanted.is_none_or(|cause| r.cause == cause))
    };
    let deadline = Instant::now() + LIMIT;
    while !found() {
        assert!(
            Instant::now() < deadline,
            "HANG: no report ({wanted:?}) within {LIMIT:?}: {:#?}",
            ours()
        );
        rt.block_on(rt.spawn(make())).unwrap();
        // The watchdog judges a poll at its first look after the end.
        let settle = Instant::now() + Duration::from_millis(500);
        while !found() && Instant::now() < settle {
            std::thread::sleep(Duration::from_millis(1));
        }
    }
    ours()
}

/// CPU time this thread has used.
fn thread_cpu_time() -> Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec, and Linux has
    // CLOCK_THREAD_CPUTIME_ID.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    assert_eq!(rc, 0, "clock_gettime: {}", std::io::Error::last_os_error());
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

/// Computes until this thread has used `cpu` of CPU time, however long
/// that takes by the wall clock; never gives up its CPU.
fn spin_for_cpu_time(cpu: Duration) {
    let start = thread_cpu_time();
    while thread_cpu_time() - start < cpu {
        std::hint::spin_loop();
    }
}

/// A poll that calls `std::thread::sleep` blocks its worker in a system
/// call: the report says `Blocked` (never `Busy`), counts it, and its line
/// says to use `spawn_blocking`.
#[test]
fn a_poll_that_sleeps_is_reported_as_blocked() {
    let _serial = serial();
    let (rt, reports) = runtime_with_hook(2);
    let ours = until_reported(&rt, &reports, Some(LongPollCause::Blocked), || async {
        std::thread::sleep(Duration::from_millis(60))
    });
    let metrics = rt.metrics();
    drop(rt); // joins the watchdog: no report is still on its way
    // A loaded machine may stretch a poll by preemption; never into busy.
    assert!(
        ours.iter().all(|r| r.cause != LongPollCause::Busy),
        "{ours:#?}"
    );
    let blocked: Vec<_> = ours
        .iter()
        .filter(|r| r.cause == LongPollCause::Blocked)
        .collect();
    assert!(!blocked.is_empty(), "{ours:#?}");
    let line = blocked[0].to_string();
    assert!(
        line.contains("blocked in a system call") && line.contains("spawn_blocking"),
        "{line}"
    );
    assert_eq!(metrics.long_poll_count(), blocked.len() as u64);
}

/// A poll that computes for 60 ms of CPU time without reaching an
/// `.await` keeps its thread on the CPU: the report says `Busy`, never
/// `Blocked`.
#[test]
fn a_poll_that_computes_is_reported_as_busy() {
    let _serial = serial();
    let (rt, reports) = runtime_with_hook(2);
    let ours = until_reported(&rt, &reports, Some(LongPollCause::Busy), || async {
        spin_for_cpu_time(Duration::from_millis(60))
    });
    let metrics = rt.metrics();
    drop(rt);
    assert!(
        ours.iter().all(|r| r.cause != LongPollCause::Blocked),
        "{ours:#?}"
    );
    let busy: Vec<_> = ours
        .iter()
        .filter(|r| r.cause == LongPollCause::Busy)
        .collect();
    assert!(!busy.is_empty(), "{ours:#?}");
    assert!(busy[0].to_string().contains("computing"), "{}", busy[0]);
    assert_eq!(metrics.long_poll_count(), busy.len() as u64);
}

/// A thread that spins on one CPU until dropped (or for [`LIMIT`] at most).
struct Hog {
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Hog {
    fn start(cpu: usize) -> Hog {
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        let thread = std::thread::spawn(move || {
            pin_to(cpu);
            let deadline = Instant::now() + LIMIT;
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
fn last_allowed_cpu() -> usize {
    // SAFETY: an all-zero cpu_set_t is a valid empty set, and
    // sched_getaffinity writes at most its size into it.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    // SAFETY: as above; pid 0 is the calling thread.
    let rc = unsafe { libc::sched_getaffinity(0, std::mem::size_of_val(&set), &mut set) };
    assert_eq!(
        rc,
        0,
        "sched_getaffinity: {}",
        std::io::Error::last_os_error()
    );
    (0..libc::CPU_SETSIZE as usize)
        .rev()
        // SAFETY: `cpu` is below CPU_SETSIZE, the set's capacity.
        .find(|&cpu| unsafe { libc::CPU_ISSET(cpu, &set) })
        .expect("this process may run on some CPU")
}

/// The calling thread's nice value (the spinner's: threads inherit it).
fn current_nice() -> i32 {
    // SAFETY: errno is this thread's; getpriority may return -1 as a
    // value, so errno is cleared first and read after.
    unsafe { *libc::__errno_location() = 0 };
    // SAFETY: PRIO_PROCESS and 0 name the calling thread on Linux.
    let nice = unsafe { libc::getpriority(libc::PRIO_PROCESS, 0) };
    let errno = std::io::Error::last_os_error();
    assert!(
        nice != -1 || errno.raw_os_error() == Some(0),
        "getpriority: {errno}"
    );
    nice
}

/// Makes the calling thread run only on `cpu`.
fn pin_to(cpu: usize) {
    // SAFETY: an all-zero cpu_set_t is a valid empty set.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    // SAFETY: `cpu` is a CPU this process may use, below CPU_SETSIZE.
    unsafe { libc::CPU_SET(cpu, &mut set) };
    // SAFETY: `set` is a valid cpu_set_t of the size given; pid 0 is the
    // calling thread.
    let rc = unsafe { libc::sched_setaffinity(0, std::mem::size_of_val(&set), &set) };
    assert_eq!(
        rc,
        0,
        "sched_setaffinity: {}",
        std::io::Error::last_os_error()
    );
}

/// A poll that does 3 ms of work on a CPU shared with a spinning thread
/// of higher priority (the worker ten nice levels below the spinner: about
/// one tenth of the CPU for the worker) takes tens of milliseconds by the
/// wall clock, most of them waiting for the CPU: preempted, which the
/// report says, and which is not blamed on the task (not blocked, not busy,
/// not counted).
#[test]
fn a_preempted_poll_is_reported_as_preempted_and_not_counted() {
    let _serial = serial();
    let (rt, reports) = runtime_with_hook(1);
    let cpu = last_allowed_cpu();
    let hog = Hog::start(cpu);
    let ours = until_reported(&rt, &reports, None, move || async move {
        // First poll: move this worker's thread onto the spinner's CPU, at
        // a lower priority. (Moving waits for the kernel's migration, a
        // voluntary switch; it happens here, not in the poll measured.)
        pin_to(cpu);
        // Ten nice levels below the spinner, wherever the test started
        // (under `nice -n 10`, an absolute 10 would equal the spinner's,
        // halving the CPU instead of taking nine tenths).
        let spinner_nice = current_nice();
        // SAFETY: setpriority with PRIO_PROCESS and 0 sets the calling
        // thread's nice value on Linux; raising it needs no privilege.
        let rc = unsafe { libc::setpriority(libc::PRIO_PROCESS, 0, (spinner_nice + 10).min(19)) };
        assert_eq!(rc, 0, "setpriority: {}", std::io::Error::last_os_error());
        rt::task::yield_now().await;
        // Second poll, on the same (only) worker: 3 ms of work.
        spin_for_cpu_time(Duration::from_millis(3));
    });
    drop(hog);
    let metrics = rt.metrics();
    drop(rt);
    assert!(
        ours.iter().all(|r| r.cause == LongPollCause::Preempted),
        "{ours:#?}"
    );
    let line = ours[0].to_string();
    assert!(
        line.contains("waiting for a CPU") && line.contains("preempted"),
        "{line}"
    );
    assert!(ours[0].cpu_wait > ours[0].duration, "{:?}", ours[0]);
    assert_eq!(metrics.long_poll_count(), 0);
}

/// The voluntary context switches so far of this process's thread whose
/// name (`comm`, cut by the kernel at 15 bytes) is `name`, if there is one.
fn voluntary_switches_of_thread(name: &str) -> Option<u64> {
    for entry in std::fs::read_dir("/proc/self/task").ok()? {
        let dir = entry.ok()?.path();
        let comm = std::fs::read_to_string(dir.join("comm")).unwrap_or_default();
        if comm.trim_end() == name {
            let status = std::fs::read_to_string(dir.join("status")).ok()?;
            return status
                .lines()
                .find_map(|line| line.strip_prefix("voluntary_ctxt_switches:"))
                .and_then(|count| count.trim().parse().ok());
        }
    }
    None
}

/// Waits for a window of 300 ms in which the watchdog thread named `comm`
/// (its name as the kernel keeps it, cut at 15 bytes) switched at most
/// twice: looking every 5 ms by itself, it would switch about 60 times.
/// Windows are tried until one is quiet; fails past `deadline`. `runtime`
/// says which runtime, for the message ("an idle", "a busy").
fn until_the_watchdog_is_quiet(comm: &str, runtime: &str, deadline: Instant) {
    loop {
        // A new thread names itself when it first runs: until then the
        // watchdog may not be found by its name.
        let before = voluntary_switches_of_thread(comm);
        std::thread::sleep(Duration::from_millis(300));
        let after = voluntary_switches_of_thread(comm);
        match (before, after) {
            (Some(before), Some(after)) if after - before <= 2 => return,
            (before, after) => assert!(
                Instant::now() < deadline,
                "the watchdog of {runtime} runtime still wakes within {LIMIT:?}: \
                 voluntary switches {before:?} then {after:?} 300 ms later"
            ),
        }
    }
}

/// Spawns a task whose poll blocks its worker for 60 ms, six times the
/// default threshold, until `rt` has counted a long poll; fails past
/// `deadline`.
fn until_a_blocking_poll_is_counted(rt: &Runtime, deadline: Instant) {
    let metrics = rt.metrics();
    while metrics.long_poll_count() == 0 {
        assert!(
            Instant::now() < deadline,
            "HANG: no long poll counted within {LIMIT:?}"
        );
        rt.block_on(rt.spawn(async { std::thread::sleep(Duration::from_millis(60)) }))
            .unwrap();
        let settle = Instant::now() + Duration::from_millis(500);
        while metrics.long_poll_count() == 0 && Instant::now() < settle {
            std::thread::sleep(Duration::from_millis(1));
        }
    }
}

/// An idle runtime wakes nobody: while every worker is parked the watchdog
/// sleeps until one unparks, instead of looking every half threshold (200
/// times a second at the default 10 ms), and it watches again as soon as
/// there is work: a poll that blocks its worker afterwards is counted.
#[test]
fn the_watchdog_of_an_idle_runtime_sleeps_and_wakes_for_work() {
    let rt = Builder::new_multi_thread()
        .worker_threads(2)
        .thread_name("idle-probe")
        .build()
        .unwrap();
    // The workers park as soon as they start; on a loaded machine that may
    // take a while, hence the windows.
    let deadline = Instant::now() + LIMIT;
    until_the_watchdog_is_quiet("idle-probe-watc", "an idle", deadline);
    // Work arrives: a poll that blocks its worker is seen and counted.
    until_a_blocking_poll_is_counted(&rt, deadline);
}

/// A busy runtime keeps the watchdog asleep: the workers look at each
/// other in their maintenance turns and each look pushes the watchdog's
/// alarm back, so while a task keeps a worker busy with short polls the
/// watchdog thread does not wake (looking by itself every half threshold,
/// it would switch about 60 times in 300 ms). A poll that then blocks the
/// other worker is still seen and counted, and its report reaches the hook
/// on the watchdog's thread, never on a worker.
#[test]
fn the_watchdog_of_a_busy_runtime_sleeps_while_the_workers_look() {
    let _serial = serial();
    let hook_threads: Arc<Mutex<Vec<String>>> = Arc::default();
    let sink = hook_threads.clone();
    let rt = Builder::new_multi_thread()
        .worker_threads(2)
        .thread_name("busy-probe")
        .on_long_poll(move |_| {
            let name = std::thread::current().name().unwrap_or("").to_owned();
            sink.lock().unwrap().push(name);
        })
        .build()
        .unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let spinner = {
        let stop = stop.clone();
        rt.spawn(async move {
            while !stop.load(Ordering::Relaxed) {
                rt::task::yield_now().await;
            }
        })
    };
    // On a loaded machine the spinning worker may wait for a CPU long
    // enough for the alarm to ring, hence the windows.
    let deadline = Instant::now() + LIMIT;
    until_the_watchdog_is_quiet("busy-probe-watc", "a busy", deadline);
    // A poll that blocks a worker, with the spinner still running: counted.
    until_a_blocking_poll_is_counted(&rt, deadline);
    stop.store(true, Ordering::Relaxed);
    rt.block_on(spinner).unwrap();
    drop(rt);
    let threads = hook_threads.lock().unwrap();
    assert!(!threads.is_empty());
    assert!(
        threads.iter().all(|name| name == "busy-probe-watchdog"),
        "the hook ran on {threads:?}"
    );
}
