//! What it costs to start something that runs at the same time as us.
//!
//! Three ways to get a second flow of control, from lightest to heaviest:
//!
//! 1. **A thread** (`std::thread::spawn`, which is `clone(2)` with
//!    `CLONE_VM | CLONE_FILES | ...` underneath): the new thread shares our
//!    address space, so the kernel creates a task and a kernel stack, and our
//!    process maps a new user stack. Nothing is copied.
//! 2. **`fork(2)`**: the child gets a *copy* of our address space. Linux
//!    copies lazily (copy-on-write), but it still duplicates every page-table
//!    entry and marks our pages read-only, so its cost grows with the parent's
//!    resident memory. We measure it twice: from a small process, and with a
//!    large block of memory touched.
//! 3. **`std::process::Command`** of a trivial program: a new process that
//!    *also* loads a new program with `execve(2)` (the dynamic loader, libc,
//!    `main`). Rust uses `posix_spawn` (a `vfork`-style clone that shares the
//!    parent's memory until `exec`) where it can, so it skips fork's
//!    page-table copy but pays for loading a program.
//!
//! Each is timed from "start it" to "it has finished and we have collected
//! it" (join, `waitpid`, `wait`), with a child that does nothing, so we
//! measure the mechanism and not the work. Book: Chapter 1, "The price of a
//! new flow of control".

use std::io;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::thread;

use crate::measure::{Samples, time_each};

/// Sizes for a run: how many timed runs of each kind.
#[derive(Debug, Clone, Copy)]
pub struct SpawnConfig {
    /// Timed runs per mechanism (the median is reported).
    pub runs: usize,
    /// Memory the "large parent" fork variant touches first, in MiB.
    pub large_parent_mib: usize,
}

impl SpawnConfig {
    /// Enough runs for a stable median: a few seconds in all.
    pub fn full() -> SpawnConfig {
        SpawnConfig {
            runs: 2_000,
            large_parent_mib: 256,
        }
    }

    /// A quick look, for tests and CI.
    pub fn quick() -> SpawnConfig {
        SpawnConfig {
            runs: 200,
            large_parent_mib: 64,
        }
    }
}

/// The medians and spreads of each way to start a flow of control.
#[derive(Debug, Clone)]
pub struct SpawnCosts {
    /// `thread::spawn` + `join` of an empty closure.
    pub thread: Samples,
    /// `fork` + `_exit(0)` in the child + `waitpid`, from this small process.
    pub fork: Samples,
    /// The same fork with `large_parent_mib` of memory touched beforehand.
    pub fork_large: Samples,
    /// `Command::new(trivial program).status()`.
    pub process: Samples,
    /// The program `process` ran.
    pub program: PathBuf,
    /// Memory touched before `fork_large`, in MiB.
    pub large_parent_mib: usize,
}

/// Runs all four measurements; `step` is called after each mechanism (for a
/// progress bar).
pub fn measure(config: SpawnConfig, mut step: impl FnMut()) -> io::Result<SpawnCosts> {
    let runs = config.runs;
    let warmup = (runs / 20).max(5);

    let thread = time_each(warmup, runs, spawn_and_join_thread);
    step();

    let fork = try_time_each(warmup, runs, fork_and_wait)?;
    step();

    // ANCHOR: large_parent
    let fork_large = {
        // Touch every page so it is resident: fork must copy its page-table
        // entries. Dropped after the measurement.
        let ballast = vec![1u8; config.large_parent_mib << 20];
        std::hint::black_box(&ballast);
        try_time_each(warmup / 5 + 1, runs / 5 + 1, fork_and_wait)?
    };
    // ANCHOR_END: large_parent
    step();

    let program = trivial_program()?;
    let process = try_time_each(warmup, runs, || run_program(&program))?;
    step();

    Ok(SpawnCosts {
        thread,
        fork,
        fork_large,
        process,
        program,
        large_parent_mib: config.large_parent_mib,
    })
}

/// Like [`time_each`], but stops at the first error.
fn try_time_each(
    warmup: usize,
    runs: usize,
    mut f: impl FnMut() -> io::Result<()>,
) -> io::Result<Samples> {
    let mut failure = None;
    let samples = time_each(warmup, runs, || {
        if failure.is_none()
            && let Err(err) = f()
        {
            failure = Some(err);
        }
    });
    match failure {
        Some(err) => Err(err),
        None => Ok(samples),
    }
}

// ANCHOR: thread
/// Starts a thread that does nothing and waits for it to finish.
pub fn spawn_and_join_thread() {
    thread::spawn(|| {})
        .join()
        .expect("an empty closure does not panic");
}
// ANCHOR_END: thread

// ANCHOR: fork
/// Forks a child that exits at once, and reaps it.
pub fn fork_and_wait() -> io::Result<()> {
    // SAFETY: fork has no memory-safety preconditions. In the child of a
    // multi-threaded parent only async-signal-safe functions may be called;
    // the child calls nothing but `_exit`, which is one.
    let pid = unsafe { libc::fork() };
    match pid {
        -1 => Err(io::Error::last_os_error()),
        0 => {
            // SAFETY: `_exit` ends the child immediately without running
            // atexit handlers or flushing stdio buffers copied from the parent.
            unsafe { libc::_exit(0) }
        }
        child => {
            let mut status = 0;
            loop {
                // SAFETY: `status` is a valid, writable c_int; `child` is our
                // own child, so waitpid cannot reap anybody else's.
                let rc = unsafe { libc::waitpid(child, &mut status, 0) };
                if rc == child {
                    return Ok(());
                }
                let err = io::Error::last_os_error();
                if err.kind() != io::ErrorKind::Interrupted {
                    return Err(err);
                }
            }
        }
    }
}
// ANCHOR_END: fork

// ANCHOR: process
/// Runs `program` with no arguments and waits for it to exit.
pub fn run_program(program: &Path) -> io::Result<()> {
    let status = Command::new(program)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()?;
    if status.success() {
        Ok(())
    } else {
        Err(io::Error::other(format!(
            "{} exited with {status}",
            program.display()
        )))
    }
}
// ANCHOR_END: process

/// The smallest program to hand to `execve`: `true(1)`, which exits 0.
pub fn trivial_program() -> io::Result<PathBuf> {
    ["/bin/true", "/usr/bin/true"]
        .iter()
        .map(PathBuf::from)
        .find(|path| path.exists())
        .ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::NotFound,
                "no `true` program in /bin or /usr/bin to measure process spawning",
            )
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_mechanism_runs_and_costs_something() {
        let costs = measure(
            SpawnConfig {
                runs: 5,
                large_parent_mib: 1,
            },
            || {},
        )
        .unwrap();
        for samples in [
            &costs.thread,
            &costs.fork,
            &costs.fork_large,
            &costs.process,
        ] {
            assert!(samples.median_ns() > 0.0);
        }
    }

    #[test]
    fn a_failing_program_is_an_error() {
        let fails = ["/bin/false", "/usr/bin/false"]
            .iter()
            .map(Path::new)
            .find(|p| p.exists())
            .unwrap();
        assert!(run_program(fails).is_err());
    }
}
