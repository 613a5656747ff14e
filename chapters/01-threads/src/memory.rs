//! What an idle thread really costs in memory.
//!
//! Every thread owns a stack. Rust gives a spawned thread a 2 MiB stack
//! (`RUST_MIN_STACK` changes it); the main thread's stack is sized by
//! `ulimit -s`, 8 MiB on most Linux systems. Multiply by 10,000 connections
//! and the "one thread per connection" server seems to need 20 GB for stacks
//! alone, which is the first argument of the C10K story.
//!
//! The experiment checks it: park `N` threads that do nothing, and read the
//! process's memory from `/proc/self/status` before and after.
//!
//! * `VmSize` (virtual memory) grows by the full stack size plus a guard page
//!   per thread: the address space is *reserved*.
//! * `VmRSS` (resident memory) grows only by the pages each thread actually
//!   *touched*: the top of its stack, its thread-local storage, a few kernel
//!   bookkeeping pages. The kernel maps a stack page on first touch.
//! * The kernel's own stack for each thread (16 KiB on x86_64) never appears
//!   in our RSS; `/proc/meminfo`'s `KernelStack` line shows it machine-wide.
//!
//! Book: Chapter 1, "What a thread owns".

use std::io;
use std::sync::Arc;
use std::thread;

use crate::gate::Gate;
use crate::proc_status::{self, ProcStatus, StatusError};

/// Rust's default stack for spawned threads, when `RUST_MIN_STACK` is unset.
pub const RUST_DEFAULT_STACK_BYTES: usize = 2 * 1024 * 1024;

/// What one run of the experiment measured.
#[derive(Debug, Clone, Copy)]
pub struct ThreadMemory {
    /// Threads parked at the moment of measurement.
    pub threads: usize,
    /// The stack size each thread was given, in KiB.
    pub stack_kib: u64,
    /// Growth of `VmRSS` per thread, in KiB.
    pub rss_per_thread_kib: f64,
    /// Growth of `VmSize` per thread, in KiB.
    pub virtual_per_thread_kib: f64,
    /// Growth of the machine's `KernelStack` per thread, in KiB. Machine-wide,
    /// so other processes starting or ending threads add noise.
    pub kernel_stack_per_thread_kib: f64,
}

/// The stack size `std::thread::spawn` uses here: `RUST_MIN_STACK` if set
/// to a number, else 2 MiB.
pub fn default_spawn_stack_bytes() -> usize {
    std::env::var("RUST_MIN_STACK")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(RUST_DEFAULT_STACK_BYTES)
}

/// The main thread's stack limit (`ulimit -s`), in KiB, or `None` when it is
/// unlimited.
pub fn main_stack_limit_kib() -> io::Result<Option<u64>> {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: `limit` is a valid, writable rlimit struct for the duration of
    // the call.
    if unsafe { libc::getrlimit(libc::RLIMIT_STACK, &mut limit) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok((limit.rlim_cur != libc::RLIM_INFINITY).then_some(limit.rlim_cur / 1024))
}

/// Errors of the memory experiment.
#[derive(Debug)]
pub enum MemoryError {
    /// `/proc` could not be read.
    Status(StatusError),
    /// The system refused to start the `started + 1`-th thread.
    Spawn {
        /// Threads that did start.
        started: usize,
        /// Threads asked for.
        wanted: usize,
        /// The system's answer.
        source: io::Error,
    },
}

impl std::fmt::Display for MemoryError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            MemoryError::Status(err) => err.fmt(f),
            MemoryError::Spawn {
                started,
                wanted,
                source,
            } => write!(
                f,
                "could start only {started} of {wanted} threads ({source}); \
                 see `ulimit -u` and /proc/sys/kernel/threads-max"
            ),
        }
    }
}

impl std::error::Error for MemoryError {}

impl From<StatusError> for MemoryError {
    fn from(err: StatusError) -> MemoryError {
        MemoryError::Status(err)
    }
}

// ANCHOR: park
/// Starts `count` threads with `stack_bytes` stacks that do nothing but wait,
/// runs `while_parked` once all of them are waiting, then lets them finish.
pub fn with_parked_threads<R>(
    count: usize,
    stack_bytes: usize,
    work: impl Fn() + Clone + Send + 'static,
    while_parked: impl FnOnce() -> R,
) -> Result<R, MemoryError> {
    let gate = Arc::new(Gate::new());
    let mut handles = Vec::with_capacity(count);
    let mut spawn_error = None;
    for _ in 0..count {
        let gate = Arc::clone(&gate);
        let work = work.clone();
        let spawned = thread::Builder::new()
            .stack_size(stack_bytes)
            .spawn(move || {
                work();
                gate.arrive_and_wait();
            });
        match spawned {
            Ok(handle) => handles.push(handle),
            Err(err) => {
                spawn_error = Some(err);
                break;
            }
        }
    }
    gate.wait_for_arrivals(handles.len());
    let result = while_parked();
    gate.open();
    let started = handles.len();
    for handle in handles {
        handle.join().expect("a parked thread does not panic");
    }
    match spawn_error {
        None => Ok(result),
        Some(source) => Err(MemoryError::Spawn {
            started,
            wanted: count,
            source,
        }),
    }
}
// ANCHOR_END: park

// ANCHOR: arenas
/// Creates every malloc arena the allocator will ever make, so they are not
/// mistaken for the cost of the threads we measure. Returns the virtual memory
/// this added, in KiB (0 once arenas exist).
///
/// glibc's malloc gives a thread that calls it its own arena when they are
/// all in use, up to 8 per CPU, and reserves 64 MiB of address space for
/// each: a naive "virtual memory per thread" figure would include them.
pub fn warm_up_allocator() -> Result<u64, MemoryError> {
    let cpus = thread::available_parallelism().map_or(1, |n| n.get());
    let before = ProcStatus::current()?;
    let allocate = || {
        std::hint::black_box(Box::new([0u8; 64]));
    };
    with_parked_threads(8 * cpus + 1, 64 * 1024, allocate, || ())?;
    let after = ProcStatus::current()?;
    Ok(after.vm_size_kib.saturating_sub(before.vm_size_kib))
}
// ANCHOR_END: arenas

// ANCHOR: measure
/// Parks `count` idle threads with `stack_bytes` stacks and measures how the
/// process's memory grew.
pub fn measure_idle_threads(count: usize, stack_bytes: usize) -> Result<ThreadMemory, MemoryError> {
    assert!(count > 0, "at least one thread");
    let before = ProcStatus::current()?;
    let kernel_before = proc_status::kernel_stack_kib()?;
    let (during, kernel_during) = with_parked_threads(
        count,
        stack_bytes,
        || {},
        || (ProcStatus::current(), proc_status::kernel_stack_kib()),
    )?;
    let (during, kernel_during) = (during?, kernel_during?);

    let per_thread = |after: u64, before: u64| after.saturating_sub(before) as f64 / count as f64;
    Ok(ThreadMemory {
        threads: count,
        stack_kib: (stack_bytes / 1024) as u64,
        rss_per_thread_kib: per_thread(during.vm_rss_kib, before.vm_rss_kib),
        virtual_per_thread_kib: per_thread(during.vm_size_kib, before.vm_size_kib),
        kernel_stack_per_thread_kib: per_thread(kernel_during, kernel_before),
    })
}
// ANCHOR_END: measure

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn virtual_memory_reserves_the_stack_and_resident_memory_does_not() {
        warm_up_allocator().unwrap();
        let stack = 1024 * 1024;
        let m = measure_idle_threads(50, stack).unwrap();
        // Each thread reserves its stack in address space (other tests'
        // threads may end meanwhile, so allow some slack)...
        assert!(m.virtual_per_thread_kib >= 512.0, "{m:?}");
        // ...but touches a small part of it.
        assert!(m.rss_per_thread_kib < 512.0, "{m:?}");
    }

    #[test]
    fn the_main_stack_limit_is_readable() {
        // Unlimited is a valid answer; an error is not.
        main_stack_limit_kib().unwrap();
    }
}
