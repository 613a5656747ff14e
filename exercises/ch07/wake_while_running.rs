//! Exercise ch07_wake_while_running: two transitions of a task's state word.
//!
//! The runtime keeps each task's state in one `AtomicUsize` (Chapter 7, "A
//! task is one allocation and one word"). Here it has four bits and a
//! reference count:
//!
//! ```text
//! RUNNING  = 1    a worker is polling the task
//! COMPLETE = 2    the task finished
//! NOTIFIED = 4    the task was woken and is (or will be) in a run queue
//! REF_ONE  = 64   one reference (the count is state >> 6)
//! ```
//!
//! Write the two transitions that make "wake while running" safe, each as a
//! compare-and-swap loop (read, decide, `compare_exchange_weak`, retry on
//! failure), never as separate loads and stores:
//!
//! * [`wake_by_ref`]: called by `Waker::wake_by_ref`; the waker keeps its
//!   own reference.
//!   - COMPLETE or already NOTIFIED: change nothing, return `DoNothing`;
//!   - RUNNING: set NOTIFIED only (the worker will requeue the task after
//!     the poll), return `DoNothing`;
//!   - otherwise (idle): set NOTIFIED *and* add one reference (for the
//!     queue entry the caller will create), return `Submit`.
//! * [`after_pending`]: called by the worker when `poll` returned
//!   `Pending`. RUNNING must be set.
//!   - clear RUNNING;
//!   - if NOTIFIED is set: the worker's own reference becomes the new queue
//!     entry's, so the count does not change; return `Requeue`;
//!   - else drop the worker's reference; return `Dealloc` if that was the
//!     last one, `Idle` otherwise.
//!
//! Check: `cargo run -p exercises -- check ch07_wake_while_running`. Hint:
//! `cargo run -p exercises -- hint ch07_wake_while_running`.

use std::sync::atomic::AtomicUsize;
#[allow(unused_imports)]
use std::sync::atomic::Ordering;

/// A worker is polling the task.
pub const RUNNING: usize = 1;
/// The task finished.
pub const COMPLETE: usize = 2;
/// The task was woken.
pub const NOTIFIED: usize = 4;
/// One reference.
pub const REF_ONE: usize = 64;

/// What `wake_by_ref` tells its caller.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WakeAction {
    /// Nothing to submit.
    DoNothing,
    /// Push the task to a run queue (a reference was added for it).
    Submit,
}

/// What the worker does after a `Pending` poll.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IdleAction {
    /// The task waits; the worker's reference was dropped.
    Idle,
    /// The task was woken during the poll: push it back to a run queue.
    Requeue,
    /// The worker held the last reference: free the task.
    Dealloc,
}

/// `Waker::wake_by_ref`.
pub fn wake_by_ref(state: &AtomicUsize) -> WakeAction {
    todo!("set NOTIFIED (and add a reference if the task was idle) in one CAS loop")
}

/// The worker's transition after `poll` returned `Pending`.
pub fn after_pending(state: &AtomicUsize) -> IdleAction {
    todo!("clear RUNNING; keep or drop the worker's reference in one CAS loop")
}
