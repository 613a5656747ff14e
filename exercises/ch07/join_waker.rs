//! Exercise ch07_join_waker: find and fix a lost wake-up in the hand-over
//! between a finishing task and its `JoinHandle`.
//!
//! A task's output goes to its `JoinHandle` through the task's header, and
//! so does the handle's waker, the other way. Two bits of one state word
//! say who may do what:
//!
//! * `COMPLETE`: the task has finished and its output is stored; set once,
//!   by [`Handoff::complete`], on the worker that ran the task;
//! * `JOIN_WAKER`: the handle's waker is stored in the slot, and the
//!   completer must take it and wake it.
//!
//! The protocol:
//!
//! * [`Handoff::complete`] (the worker): store the output, then set
//!   `COMPLETE`; if the word it replaced had `JOIN_WAKER`, take the waker
//!   from the slot and wake it.
//! * [`Handoff::poll_join`] (the task awaiting the handle, on another
//!   thread): if `COMPLETE` is set, take the output (`Ready`); if not,
//!   leave its waker so that `complete` wakes it, and return `Pending`.
//!
//! What must hold, in every interleaving of one `complete` with one
//! `poll_join`: **`poll_join` returns `Ready` with the output, or it returns
//! `Pending` and `complete` wakes its waker exactly once.** Pending and no
//! wake is a lost wake-up: the awaiting task sleeps for ever on a finished
//! task.
//!
//! `complete` below is right. `poll_join` compiles, passes any
//! single-threaded test, and loses the wake-up. The tests are [loom]
//! models: loom runs each once per interleaving of its threads and stops at
//! the first that breaks the rule. Fix `poll_join`, and only `poll_join`
//! (more than one interleaving may fail: fix one, and loom shows the next).
//!
//! Book: Chapter 7, "Panics, abort and the JoinHandle" (7.1) and
//! "Every interleaving, with loom" (7.8).
//! Check: `cargo run -p exercises -- check ch07_join_waker` (it builds with
//! `--cfg loom`, in release, in its own target directory).
//! Hint: `cargo run -p exercises -- hint ch07_join_waker`.
//!
//! [loom]: https://docs.rs/loom

#[cfg(loom)]
use loom::sync::{
    Mutex,
    atomic::{AtomicUsize, Ordering},
};
#[cfg(not(loom))]
use std::sync::{
    Mutex,
    atomic::{AtomicUsize, Ordering},
};
use std::task::{Poll, Waker};

/// The task has finished and its output is stored.
pub const COMPLETE: usize = 0b01;
/// The handle's waker is in the slot, for the completer to wake.
pub const JOIN_WAKER: usize = 0b10;

/// What a task shares with its `JoinHandle`.
#[derive(Debug)]
pub struct Handoff {
    state: AtomicUsize,
    output: Mutex<Option<u64>>,
    waker: Mutex<Option<Waker>>,
}

impl Handoff {
    /// A running task's: nothing stored yet.
    #[allow(clippy::new_without_default)]
    pub fn new() -> Handoff {
        Handoff {
            state: AtomicUsize::new(0),
            output: Mutex::new(None),
            waker: Mutex::new(None),
        }
    }

    /// The task finished with `output`: publish it, and wake the handle if
    /// it left its waker.
    pub fn complete(&self, output: u64) {
        *self.output.lock().unwrap() = Some(output);
        let before = self.state.fetch_or(COMPLETE, Ordering::AcqRel);
        if before & JOIN_WAKER != 0
            && let Some(waker) = self.waker.lock().unwrap().take()
        {
            waker.wake();
        }
    }

    /// The `JoinHandle`'s poll: the output if the task has finished, or
    /// `Pending` with `waker` left for `complete` to wake. It is polled
    /// again only after that wake.
    pub fn poll_join(&self, waker: &Waker) -> Poll<u64> {
        if self.state.load(Ordering::Acquire) & COMPLETE != 0 {
            return Poll::Ready(self.take_output());
        }
        // Not finished: ask to be woken, and leave the waker to wake.
        self.state.fetch_or(JOIN_WAKER, Ordering::AcqRel);
        *self.waker.lock().unwrap() = Some(waker.clone());
        Poll::Pending
    }

    /// The output, which `complete` stored before it set COMPLETE.
    fn take_output(&self) -> u64 {
        self.output
            .lock()
            .unwrap()
            .take()
            .expect("COMPLETE is set only after the output is stored")
    }
}
