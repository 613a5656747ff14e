//! Reference solution for ch07_wake_while_running.

use std::sync::atomic::{AtomicUsize, Ordering};

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
    let mut current = state.load(Ordering::Acquire);
    loop {
        let (next, action) = if current & (COMPLETE | NOTIFIED) != 0 {
            return WakeAction::DoNothing;
        } else if current & RUNNING != 0 {
            (current | NOTIFIED, WakeAction::DoNothing)
        } else {
            ((current | NOTIFIED) + REF_ONE, WakeAction::Submit)
        };
        match state.compare_exchange_weak(current, next, Ordering::AcqRel, Ordering::Acquire) {
            Ok(_) => return action,
            Err(actual) => current = actual,
        }
    }
}

/// The worker's transition after `poll` returned `Pending`.
pub fn after_pending(state: &AtomicUsize) -> IdleAction {
    let mut current = state.load(Ordering::Acquire);
    loop {
        assert!(
            current & RUNNING != 0,
            "after_pending on a task that is not running"
        );
        let mut next = current & !RUNNING;
        let action = if next & NOTIFIED != 0 {
            IdleAction::Requeue
        } else {
            next -= REF_ONE;
            if next / REF_ONE == 0 {
                IdleAction::Dealloc
            } else {
                IdleAction::Idle
            }
        };
        match state.compare_exchange_weak(current, next, Ordering::AcqRel, Ordering::Acquire) {
            Ok(_) => return action,
            Err(actual) => current = actual,
        }
    }
}
