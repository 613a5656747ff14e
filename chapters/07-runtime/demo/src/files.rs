//! `files`: why `rt::fs` runs on the blocking pool, and what that costs.
//!
//! Part 1 asks epoll to watch a regular file and a pipe: the kernel refuses
//! the file (`EPERM`), since a file on disk has no "not ready yet" for
//! epoll to report, and accepts the pipe.
//!
//! Part 2 times small file operations from a task, one after another:
//! `std::fs::metadata` and `std::fs::read` called in the task itself (which
//! blocks the worker while they run), and `rt::fs::metadata` and
//! `rt::fs::read`, each a job on the blocking pool. The difference per call
//! is the price of the hand-off to a pool thread and back. Each round runs
//! every variant, in alternating order, and the report gives the median
//! per-call time over the rounds with the lowest and highest round.
//!
//! Book: Chapter 7, "The budget and the blocking pool", section "Files:
//! why they go to the blocking pool".

use crate::experiments::Outcome;
use chapter_01::console::{Console, Report};
use chapter_01::experiments::add_machine;
use chapter_01::machine::Machine;
use chapter_01::measure::Samples;
use rt::runtime::Builder;
use std::io;
use std::os::fd::AsRawFd;
use std::path::Path;
use std::time::Instant;

/// What `epoll_ctl(EPOLL_CTL_ADD)` said about a descriptor: `Ok` or the
/// error (the kernel's errno).
fn epoll_add(fd: &impl AsRawFd) -> io::Result<()> {
    // SAFETY: epoll_create1 takes no pointers; the result is checked.
    let epfd = unsafe { libc::epoll_create1(libc::EPOLL_CLOEXEC) };
    if epfd < 0 {
        return Err(io::Error::last_os_error());
    }
    let mut event = libc::epoll_event {
        events: libc::EPOLLIN as u32,
        u64: 0,
    };
    // SAFETY: `epfd` is the epoll instance just made, `fd` is open for the
    // duration of the call (borrowed), and `event` is a valid epoll_event.
    let added = unsafe { libc::epoll_ctl(epfd, libc::EPOLL_CTL_ADD, fd.as_raw_fd(), &mut event) };
    let result = if added < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(())
    };
    // SAFETY: `epfd` is ours and closed once.
    unsafe { libc::close(epfd) };
    result
}

fn say_epoll(console: &Console, what: &str, result: &io::Result<()>) {
    match result {
        Ok(()) => console.say(format!("  epoll_ctl(ADD, {what:<13}) = 0")),
        Err(e) => {
            let errno = e.raw_os_error().unwrap_or(0);
            let name = if errno == libc::EPERM {
                "EPERM"
            } else {
                "errno"
            };
            console.say(format!(
                "  epoll_ctl(ADD, {what:<13}) = -1, {name} ({errno}): {}",
                io::Error::from_raw_os_error(errno).kind()
            ));
        }
    }
}

/// The variants timed in part 2: a key, a label, and whether it goes
/// through the pool.
const VARIANTS: [(&str, &str); 4] = [
    ("std_metadata", "std::fs::metadata in the task"),
    ("rt_metadata", "rt::fs::metadata (a pool job)"),
    ("std_read", "std::fs::read of 4 KiB in the task"),
    ("rt_read", "rt::fs::read of 4 KiB (a pool job)"),
];

/// Runs `calls` operations of variant `key` on `path` from one task;
/// returns nanoseconds per call.
async fn time_variant(key: &str, path: &Path, calls: u32) -> io::Result<f64> {
    let start = Instant::now();
    for _ in 0..calls {
        match key {
            "std_metadata" => drop(std::hint::black_box(std::fs::metadata(path)?)),
            "rt_metadata" => drop(std::hint::black_box(rt::fs::metadata(path).await?)),
            "std_read" => drop(std::hint::black_box(std::fs::read(path)?)),
            _ => drop(std::hint::black_box(rt::fs::read(path).await?)),
        }
    }
    Ok(start.elapsed().as_nanos() as f64 / f64::from(calls))
}

/// The `files` experiment: part 1 then part 2 (`rounds` rounds of `calls`
/// calls per variant).
pub fn files(console: &Console, rounds: u32, calls: u32) -> Outcome {
    let mut report = Report::new("files");
    add_machine(&mut report, &Machine::current());
    let dir = std::env::temp_dir().join(format!("chapter-07-files-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let path = dir.join("four-kib");
    std::fs::write(&path, vec![7u8; 4096])?;
    let outcome = run(console, &mut report, &path, rounds, calls);
    let _ = std::fs::remove_dir_all(&dir);
    outcome?;
    Ok(report)
}

fn run(
    console: &Console,
    report: &mut Report,
    path: &Path,
    rounds: u32,
    calls: u32,
) -> Result<(), Box<dyn std::error::Error>> {
    console.say("Part 1: can epoll wait on a file?");
    let file = std::fs::File::open(path)?;
    let file_result = epoll_add(&file);
    say_epoll(console, "regular file", &file_result);
    let (pipe_read, _pipe_write) = std::io::pipe()?;
    let pipe_result = epoll_add(&pipe_read);
    say_epoll(console, "pipe", &pipe_result);
    report.add(
        "epoll_regular_file_errno",
        "epoll_ctl(ADD) on a regular file: errno (0 = accepted)",
        file_result
            .err()
            .and_then(|e| e.raw_os_error())
            .unwrap_or(0),
    );
    report.add(
        "epoll_pipe_errno",
        "epoll_ctl(ADD) on a pipe: errno (0 = accepted)",
        pipe_result
            .err()
            .and_then(|e| e.raw_os_error())
            .unwrap_or(0),
    );

    console.say(format!(
        "Part 2: per call, one task, {calls} calls one after another, {rounds} rounds (order alternating); one worker"
    ));
    let runtime = Builder::new_multi_thread().worker_threads(1).build()?;
    let mut per_call: Vec<Vec<f64>> = vec![Vec::new(); VARIANTS.len()];
    for round in 0..rounds {
        let mut order: Vec<usize> = (0..VARIANTS.len()).collect();
        if round % 2 == 1 {
            order.reverse();
        }
        for i in order {
            let key = VARIANTS[i].0;
            let owned = path.to_owned();
            let ns = runtime
                .block_on(runtime.spawn(async move { time_variant(key, &owned, calls).await }))??;
            per_call[i].push(ns);
        }
    }
    for ((key, label), ns) in VARIANTS.iter().zip(per_call) {
        let samples = Samples::from_ns(ns);
        let (median, low, high) = (
            samples.median_ns() / 1e3,
            samples.min_ns() / 1e3,
            samples.max_ns() / 1e3,
        );
        console.say(format!(
            "  {label:<38} {median:>8.2} µs per call (rounds: {low:.2} to {high:.2})"
        ));
        report
            .add(
                &format!("{key}_us_median"),
                &format!("{label}: µs per call, median over rounds"),
                median,
            )
            .add(
                &format!("{key}_us_min"),
                &format!("{label}: fastest round"),
                low,
            )
            .add(
                &format!("{key}_us_max"),
                &format!("{label}: slowest round"),
                high,
            );
    }
    Ok(())
}
