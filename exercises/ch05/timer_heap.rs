//! Exercise ch05_timer_heap: timers in a binary heap, with lazy
//! cancellation.
//!
//! An event loop asks its timers two questions before it sleeps: which
//! timers are due now, and when is the next one due (that becomes the poll
//! timeout)? A min-heap answers both quickly. Cancelling is the hard part,
//! because a heap cannot find an arbitrary entry; so do not look for it.
//! Remember that the id is cancelled, and drop its entry when it reaches the
//! top of the heap.
//!
//! Write [`Timers`]:
//!
//! * [`Timers::insert`]: add a timer due at `deadline`, return its id
//!   (ids are never reused);
//! * [`Timers::cancel`]: returns true if the timer was pending (false if it
//!   fired already, was cancelled already, or never existed);
//! * [`Timers::next_deadline`]: the deadline of the earliest *live* timer;
//! * [`Timers::pop_expired`]: the id of a live timer due at or before `now`
//!   (the earliest; among equal deadlines, the one inserted first), removed;
//! * [`Timers::len`]: live timers.
//!
//! `std::collections::BinaryHeap` is a max-heap: wrap entries in
//! `std::cmp::Reverse` to get the smallest first.
//!
//! Check: `cargo run -p exercises -- check ch05_timer_heap`. Hint:
//! `cargo run -p exercises -- hint ch05_timer_heap`.

use std::time::Instant;

/// A timer's id.
pub type TimerId = u64;

/// Pending timers.
#[derive(Debug, Default)]
pub struct Timers {
    // Your fields here.
}

impl Timers {
    /// Adds a timer due at `deadline`.
    pub fn insert(&mut self, deadline: Instant) -> TimerId {
        todo!("insert a timer due at {deadline:?}")
    }

    /// Cancels a pending timer; false if it is not pending.
    pub fn cancel(&mut self, id: TimerId) -> bool {
        todo!("cancel {id}")
    }

    /// When the earliest live timer is due.
    pub fn next_deadline(&mut self) -> Option<Instant> {
        todo!()
    }

    /// Removes and returns the earliest live timer due at or before `now`.
    pub fn pop_expired(&mut self, now: Instant) -> Option<TimerId> {
        todo!("what is due at {now:?}")
    }

    /// Live timers.
    pub fn len(&self) -> usize {
        todo!()
    }

    /// Whether no timer is pending.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}
