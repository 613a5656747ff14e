//! Reference solution for ch07_counter.

use std::sync::atomic::AtomicU64;
use std::sync::atomic::Ordering;

/// A counter with one writer.
#[derive(Default)]
pub struct Counter(AtomicU64);

impl Counter {
    /// Adds one. Only the owning thread calls this.
    pub fn incr(&self) {
        self.0
            .store(self.0.load(Ordering::Relaxed) + 1, Ordering::Relaxed);
    }

    /// Reads from any thread.
    pub fn get(&self) -> u64 {
        self.0.load(Ordering::Relaxed)
    }
}

/// One worker's counters.
#[derive(Default)]
#[repr(align(128))]
pub struct WorkerCounters {
    /// Tasks polled.
    pub polls: Counter,
    /// Tasks stolen.
    pub steals: Counter,
    /// Times parked.
    pub parks: Counter,
}
