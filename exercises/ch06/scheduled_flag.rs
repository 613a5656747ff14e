//! Exercise ch06_scheduled_flag: find and fix a lost wake-up in a waker's
//! `scheduled` flag.
//!
//! Chapter 6's waker sets a `scheduled` flag before it queues its task, so
//! that any number of wakes between two polls queue the task once. The
//! executor clears the flag when it runs the task, so that the next wake
//! queues it again. The protocol, for one task:
//!
//! * [`TaskFlag::wake`] (any thread): set the flag; if it was clear, the
//!   task was not queued, so queue it (here: return `true`).
//! * [`TaskFlag::run`] (the executor, which has just popped the task): clear
//!   the flag and call `poll`, which reads the future's state.
//!
//! What must hold, in every interleaving of `run` on the executor with
//! `wake` on other threads: **either the poll sees what a waker wrote
//! before it woke, or that wake queues the task again.** Neither is a lost
//! wake-up: the poll returns `Pending`, the task is not queued, and nobody
//! ever polls it again. And a task is queued at most once at a time.
//!
//! `wake` below is right. `run` compiles, passes any single-threaded test,
//! and loses a wake-up. The tests are [loom] models: loom runs each one
//! once per interleaving of its threads (including the orders in which a
//! processor may make stores visible) and stops at the first that breaks
//! the rule, saying what was lost. Fix `run`, and only `run`.
//!
//! Book: Chapter 6, "Wakers by hand" and "A first executor".
//! Check: `cargo run -p exercises -- check ch06_scheduled_flag` (it builds
//! with `--cfg loom`, in release, in its own target directory).
//! Hint: `cargo run -p exercises -- hint ch06_scheduled_flag`.
//!
//! [loom]: https://docs.rs/loom

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
        let result = poll();
        // The poll is over: from now on a wake queues the task again.
        self.scheduled.store(false, Ordering::Release);
        result
    }
}
