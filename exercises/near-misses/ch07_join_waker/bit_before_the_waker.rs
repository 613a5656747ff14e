//! Near miss of ch07_join_waker: the `fetch_or` reads COMPLETE, the second
//! of the two orders, but the bit is set before the waker is stored: a task
//! that completes in between sees JOIN_WAKER, finds the slot empty and wakes
//! nobody. The test must catch it
//! (`a_task_finishing_while_its_handle_polls_hands_over_or_wakes`).

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
        // The waker first: once JOIN_WAKER is set, the completer may take it
        // at any moment, so it must already be there.
        let before = self.state.fetch_or(JOIN_WAKER, Ordering::AcqRel);
        if before & COMPLETE != 0 {
            return Poll::Ready(self.take_output());
        }
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
