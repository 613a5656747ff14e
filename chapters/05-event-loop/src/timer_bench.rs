//! What the timer heap's operations cost as it grows.
//!
//! A server with 100,000 idle connections may hold 100,000 idle timeouts.
//! Every request resets one: a cancellation and an insertion. With `n`
//! timers pending, the heap inserts in O(log n) (a sift up through log n
//! levels, each a likely cache miss once the heap outgrows the caches), and
//! our lazy cancellation is O(1) but leaves garbage to pop later. The
//! benchmark fills a heap with `n` timers at random deadlines, then times
//! pairs of operations that keep `n` constant: cancel a random pending
//! timer, insert a new one.
//!
//! Chapter 7 runs the same workload on a hierarchical timing wheel, whose
//! operations do not grow with `n`.

use std::time::{Duration, Instant};

use crate::timers::{TimerHeap, TimerId};

/// One size's figures.
#[derive(Debug, Clone, Copy)]
pub struct HeapCost {
    /// Timers pending.
    pub timers: usize,
    /// Median ns per operation (an insertion or a cancellation), over
    /// batches of cancel+insert pairs.
    pub ns_per_op: f64,
}

/// A small, fast generator for deadlines and choices (no dependency).
pub struct XorShift(pub u64);

impl XorShift {
    /// The next number.
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

/// Times cancel+insert pairs with `n` timers pending (deadlines spread over
/// an hour).
pub fn heap_cost(n: usize, ops: usize, batches: usize) -> HeapCost {
    let base = Instant::now();
    let mut rng = XorShift(0x9E37_79B9_7F4A_7C15 ^ n as u64);
    let mut heap = TimerHeap::new();
    let mut ids: Vec<TimerId> = (0..n)
        .map(|_| heap.insert(base + Duration::from_millis(rng.next_u64() % 3_600_000), ()))
        .collect();
    let samples = chapter_01::measure::time_batches(batches, ops, || {
        let victim = (rng.next_u64() % ids.len() as u64) as usize;
        heap.cancel(ids[victim]);
        ids[victim] = heap.insert(base + Duration::from_millis(rng.next_u64() % 3_600_000), ());
    });
    HeapCost {
        timers: n,
        ns_per_op: samples.median_ns() / 2.0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operations_cost_something() {
        let cost = heap_cost(1_000, 1_000, 3);
        assert!(cost.ns_per_op > 0.0);
    }
}
