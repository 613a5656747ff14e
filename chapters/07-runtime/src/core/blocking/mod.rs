//! `spawn_blocking`: a pool of threads for work that would block a worker.
//!
//! A worker thread runs hundreds of tasks by switching between them at
//! `.await` points. Code that blocks the thread (a synchronous file read, a
//! DNS lookup through libc, `std::thread::sleep`, a long computation) stops
//! all of them, and no budget can help, because the code never reaches an
//! `.await`. Such work belongs on a thread of its own, and the blocking pool
//! keeps threads for it: up to 512 (`max_blocking_threads`), started on
//! demand, kept 10 s when idle (`thread_keep_alive`) in case more work comes,
//! then let go.
//!
//! A blocking job runs *inside* its runtime, as in Tokio: the runtime is
//! current on its thread while it runs, so `Handle::current()`,
//! `rt::spawn`, timers and sockets work there, and so does
//! `Handle::current().block_on(...)` (a blocking thread may block).
//!
//! A blocking job is an ordinary task (same allocation, same state word,
//! same `JoinHandle`) whose future runs the closure to completion in one
//! poll; only its scheduler differs: `schedule` hands it to the pool's queue
//! instead of a worker's.
//!
//! Book: Chapter 7, "spawn_blocking".

mod pool;

pub(crate) use pool::{PoolConfig, Spawner};

use crate::runtime::context;
use crate::task::JoinHandle;

/// Runs `f` on the runtime's blocking pool and returns a handle to its
/// result.
///
/// # Panics
///
/// If called outside a runtime; and, as `std::thread::spawn` does, if the
/// pool has no thread to run `f` and the OS refuses to start one (the
/// message carries the OS's error).
#[track_caller]
pub fn spawn_blocking<F, R>(f: F) -> JoinHandle<R>
where
    F: FnOnce() -> R + Send + 'static,
    R: Send + 'static,
{
    current().spawn_blocking(f, std::panic::Location::caller(), false)
}

/// As [`spawn_blocking`], for a job that must run even if the runtime
/// begins to shut down while the job waits for a thread: `fs::File` writes,
/// which were reported done when they were queued (Tokio's
/// `spawn_mandatory_blocking`). Once shutdown has begun, new jobs are
/// cancelled all the same.
///
/// # Panics
///
/// If called outside a runtime.
#[track_caller]
pub(crate) fn spawn_mandatory_blocking<F, R>(f: F) -> JoinHandle<R>
where
    F: FnOnce() -> R + Send + 'static,
    R: Send + 'static,
{
    current().spawn_blocking(f, std::panic::Location::caller(), true)
}

/// The current runtime, for a job to run on its pool.
#[track_caller]
fn current() -> crate::scheduler::Scheduler {
    match context::with_current(|scheduler| scheduler.cloned()) {
        Some(handle) => handle,
        None => panic!(
            "{} (rt::task::spawn_blocking called outside of a runtime: call it from a task, \
             from block_on, or under Handle::enter)",
            crate::runtime::NO_RUNTIME
        ),
    }
}
