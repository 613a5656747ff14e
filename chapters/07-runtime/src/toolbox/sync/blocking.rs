//! Waiting for a future from plain, synchronous code: what every
//! `blocking_*` method (`Mutex::blocking_lock`, `mpsc::Sender::blocking_send`,
//! `oneshot::Receiver::blocking_recv`, ...) does underneath.
//!
//! The thread parks until the future is ready; nothing else runs on it
//! meanwhile. That is right on a plain thread or inside `spawn_blocking`,
//! and wrong on a thread that runs a runtime's tasks (a worker, or inside
//! `block_on`): those tasks would stall, and if one of them is the task
//! that should unlock the mutex or send the value, the thread waits
//! forever. So, as in Tokio, it is refused there with a panic.
//!
//! Book: Chapter 8, "Locks and notification".

use crate::runtime::context;
use std::future::Future;

/// Blocks the thread until `future` is ready.
///
/// # Panics
///
/// If the thread runs a runtime's tasks (Tokio panics there too, with the
/// same first sentence). `block_in_place` lifts the ban for its closure.
#[track_caller]
pub(crate) fn wait<F: Future>(future: F) -> F::Output {
    if !context::blocking_allowed() {
        panic!(
            "Cannot block the current thread from within a runtime. This happens because a \
             function attempted to block the current thread while the thread is being used to \
             drive asynchronous tasks; call the async version with .await, or move the call \
             into spawn_blocking"
        );
    }
    futures::executor::block_on(future)
}
