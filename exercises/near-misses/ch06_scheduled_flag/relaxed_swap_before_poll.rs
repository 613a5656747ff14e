//! Near miss of ch06_scheduled_flag: the clear is a swap before the poll, in
//! the right place, but `Relaxed`. When the waker's swap comes first, ours
//! reads its `true` but acquires nothing, so the poll may still read the
//! future's state from before the waker's write: it returns Pending, and the
//! wake, which found the flag set, queued nothing. Loom explores that order,
//! so the tests must catch it (`a_wake_racing_the_poll_is_not_lost`).

#[cfg(loom)]
use loom::sync::atomic::AtomicBool;
#[cfg(not(loom))]
use std::sync::atomic::AtomicBool;
use std::sync::atomic::Ordering;
use std::task::Poll;

/// One task's `scheduled` flag.
#[derive(Debug)]
pub struct TaskFlag {
    /// Set while the task is queued (from the first wake until the executor
    /// runs it).
    scheduled: AtomicBool,
}

impl TaskFlag {
    /// The flag of a task just spawned, which `spawn` has queued.
    pub fn new_queued() -> TaskFlag {
        TaskFlag {
            scheduled: AtomicBool::new(true),
        }
    }

    /// Wakes the task: returns `true` if the caller must queue it (it was
    /// not queued), `false` if it is queued already.
    pub fn wake(&self) -> bool {
        !self.scheduled.swap(true, Ordering::AcqRel)
    }

    /// Runs the task once: the executor calls this after popping it from the
    /// run queue, with `poll` polling its future. Returns what `poll`
    /// returned.
    pub fn run<T>(&self, poll: impl FnOnce() -> Poll<T>) -> Poll<T> {
        // Before the poll: a wake that comes after the poll has read the
        // future's state must find the flag clear and queue the task. And a
        // read-modify-write, not a store: its Acquire half makes what a
        // waker wrote before its swap visible to the poll, and a swap always
        // reads the latest value, so of the two swaps one comes first:
        // either the waker's sees `false` and queues, or ours sees the
        // waker's `true` and the poll sees its write.
        self.scheduled.swap(false, Ordering::Relaxed);
        poll()
    }
}
