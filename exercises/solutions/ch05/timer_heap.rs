//! Reference solution for ch05_timer_heap.
//!
//! The heap holds (deadline, id); ids grow, so equal deadlines pop in
//! insertion order. A set of live ids decides which heap entries count.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashSet};
use std::time::Instant;

/// A timer's id.
pub type TimerId = u64;

/// Pending timers.
#[derive(Debug, Default)]
pub struct Timers {
    heap: BinaryHeap<Reverse<(Instant, TimerId)>>,
    live: HashSet<TimerId>,
    next_id: TimerId,
}

impl Timers {
    /// Adds a timer due at `deadline`.
    pub fn insert(&mut self, deadline: Instant) -> TimerId {
        let id = self.next_id;
        self.next_id += 1;
        self.heap.push(Reverse((deadline, id)));
        self.live.insert(id);
        id
    }

    /// Cancels a pending timer; false if it is not pending.
    pub fn cancel(&mut self, id: TimerId) -> bool {
        self.live.remove(&id)
    }

    /// Drops dead entries from the top.
    fn skip_dead(&mut self) {
        while let Some(Reverse((_, id))) = self.heap.peek() {
            if self.live.contains(id) {
                return;
            }
            self.heap.pop();
        }
    }

    /// When the earliest live timer is due.
    pub fn next_deadline(&mut self) -> Option<Instant> {
        self.skip_dead();
        self.heap.peek().map(|Reverse((deadline, _))| *deadline)
    }

    /// Removes and returns the earliest live timer due at or before `now`.
    pub fn pop_expired(&mut self, now: Instant) -> Option<TimerId> {
        self.skip_dead();
        let Reverse((deadline, id)) = *self.heap.peek()?;
        if deadline > now {
            return None;
        }
        self.heap.pop();
        self.live.remove(&id);
        Some(id)
    }

    /// Live timers.
    pub fn len(&self) -> usize {
        self.live.len()
    }

    /// Whether no timer is pending.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}
