//! Timers in a binary heap, with lazy cancellation.
//!
//! An event loop needs "call this in 30 seconds" (an idle timeout, a retry)
//! and must know, before it sleeps, when the next timer is due: that
//! deadline becomes `epoll_wait`'s timeout. A min-heap ordered by deadline
//! answers "which is next?" in O(1) and takes an insertion in O(log n).
//!
//! Cancelling is the awkward part: a binary heap cannot find an arbitrary
//! entry quickly. So we do not look. The timer's payload lives in a slab,
//! and cancelling just removes it from there, in O(1); the heap keeps a
//! dead entry, which is skipped (and dropped) when it reaches the top. When
//! dead entries outnumber live ones, the heap is rebuilt from the live ones,
//! so cancelled timers cannot grow it without bound.
//!
//! Chapter 7 replaces the heap by a hierarchical timing wheel and measures
//! the two side by side; `timers` in this chapter's binary measures the heap
//! alone.
//!
//! Book: Chapter 5, "Timers".

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::time::Instant;

use crate::slab::{Key, Slab};

/// A timer's id, to cancel it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TimerId(Key);

/// Timers with payloads of type `T`.
#[derive(Debug)]
pub struct TimerHeap<T> {
    heap: BinaryHeap<Reverse<(Instant, u64, Key)>>,
    live: Slab<T>,
    sequence: u64,
}

impl<T> Default for TimerHeap<T> {
    fn default() -> TimerHeap<T> {
        TimerHeap {
            heap: BinaryHeap::new(),
            live: Slab::new(),
            sequence: 0,
        }
    }
}

impl<T> TimerHeap<T> {
    /// No timers.
    pub fn new() -> TimerHeap<T> {
        TimerHeap::default()
    }

    // ANCHOR: insert_cancel
    /// Adds a timer due at `deadline`. Timers due at the same instant fire
    /// in the order they were added.
    pub fn insert(&mut self, deadline: Instant, value: T) -> TimerId {
        let key = self.live.insert(value);
        self.sequence += 1;
        self.heap.push(Reverse((deadline, self.sequence, key)));
        TimerId(key)
    }

    /// Cancels a timer, returning its payload if it had not fired yet. The
    /// heap entry stays behind, dead, until it reaches the top.
    pub fn cancel(&mut self, id: TimerId) -> Option<T> {
        let value = self.live.remove(id.0)?;
        if self.heap.len() > 64 && self.heap.len() > 2 * self.live.len() {
            self.compact();
        }
        Some(value)
    }
    // ANCHOR_END: insert_cancel

    /// Rebuilds the heap from the live timers only.
    fn compact(&mut self) {
        let live = &self.live;
        let entries: Vec<_> = self
            .heap
            .drain()
            .filter(|Reverse((_, _, key))| live.contains(*key))
            .collect();
        self.heap = BinaryHeap::from(entries);
    }

    /// Drops dead entries from the top of the heap.
    fn skip_cancelled(&mut self) {
        while let Some(Reverse((_, _, key))) = self.heap.peek() {
            if self.live.contains(*key) {
                return;
            }
            self.heap.pop();
        }
    }

    // ANCHOR: next
    /// When the next live timer is due.
    pub fn next_deadline(&mut self) -> Option<Instant> {
        self.skip_cancelled();
        self.heap.peek().map(|Reverse((deadline, _, _))| *deadline)
    }

    /// Removes and returns the next timer due at or before `now`.
    pub fn pop_expired(&mut self, now: Instant) -> Option<T> {
        self.skip_cancelled();
        let Reverse((deadline, _, key)) = *self.heap.peek()?;
        if deadline > now {
            return None;
        }
        self.heap.pop();
        self.live.remove(key)
    }
    // ANCHOR_END: next

    /// Live timers.
    pub fn len(&self) -> usize {
        self.live.len()
    }

    /// Whether no timer is pending.
    pub fn is_empty(&self) -> bool {
        self.live.is_empty()
    }

    /// Heap entries, dead ones included (for tests and the benchmark).
    pub fn heap_len(&self) -> usize {
        self.heap.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    /// Chapter 5 quotes the heap entry, (deadline, sequence number, slab
    /// key), as 32 bytes.
    #[test]
    fn a_heap_entry_is_the_32_bytes_the_book_quotes() {
        assert_eq!(std::mem::size_of::<Reverse<(Instant, u64, Key)>>(), 32);
    }

    #[test]
    fn timers_fire_in_deadline_order_then_insertion_order() {
        let start = Instant::now();
        let mut timers = TimerHeap::new();
        timers.insert(start + Duration::from_millis(30), "c");
        timers.insert(start + Duration::from_millis(10), "a");
        timers.insert(start + Duration::from_millis(20), "b1");
        timers.insert(start + Duration::from_millis(20), "b2");
        assert_eq!(
            timers.next_deadline(),
            Some(start + Duration::from_millis(10))
        );
        assert_eq!(timers.pop_expired(start + Duration::from_millis(5)), None);
        let now = start + Duration::from_millis(25);
        let fired: Vec<_> = std::iter::from_fn(|| timers.pop_expired(now)).collect();
        assert_eq!(fired, ["a", "b1", "b2"]);
        assert_eq!(timers.len(), 1);
    }

    #[test]
    fn a_cancelled_timer_never_fires_and_is_not_the_next_deadline() {
        let start = Instant::now();
        let mut timers = TimerHeap::new();
        let early = timers.insert(start + Duration::from_millis(1), 1);
        timers.insert(start + Duration::from_millis(2), 2);
        assert_eq!(timers.cancel(early), Some(1));
        assert_eq!(timers.cancel(early), None, "cancelling twice is harmless");
        assert_eq!(
            timers.next_deadline(),
            Some(start + Duration::from_millis(2))
        );
        assert_eq!(timers.pop_expired(start + Duration::from_secs(1)), Some(2));
        assert_eq!(timers.pop_expired(start + Duration::from_secs(1)), None);
    }

    #[test]
    fn cancelled_timers_do_not_pile_up() {
        let start = Instant::now();
        let mut timers = TimerHeap::new();
        let keep = timers.insert(start + Duration::from_secs(100), ());
        for i in 0..10_000 {
            let id = timers.insert(start + Duration::from_millis(i), ());
            timers.cancel(id);
        }
        assert_eq!(timers.len(), 1);
        assert!(
            timers.heap_len() <= 130,
            "{} heap entries",
            timers.heap_len()
        );
        assert_eq!(timers.cancel(keep), Some(()));
    }

    #[test]
    fn a_fired_timer_cannot_be_cancelled() {
        let start = Instant::now();
        let mut timers = TimerHeap::new();
        let id = timers.insert(start, 'x');
        assert_eq!(timers.pop_expired(start), Some('x'));
        assert_eq!(timers.cancel(id), None);
    }
}
