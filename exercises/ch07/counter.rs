//! Exercise ch07_counter: a per-worker counter that is cheap to write and
//! consistent to read.
//!
//! Each worker of the runtime counts what it does (polls, steals, parks)
//! while other threads read the counts (Chapter 7, "Seeing inside").
//! A `fetch_add` would be correct but is a locked
//! read-modify-write on every increment. Because each counter has exactly
//! one writer, a relaxed load followed by a relaxed store is enough: no
//! other thread can write in between, and a reader sees some value the
//! writer stored (never a torn or decreasing one, since the writer only
//! moves forward).
//!
//! Write:
//!
//! * [`Counter::incr`] and [`Counter::get`] that way (no `fetch_add`);
//! * [`WorkerCounters`]: three counters for one worker, aligned to 128 bytes
//!   so that two workers' counters never share a cache line (nor the pair
//!   of lines some CPUs fetch together): add the attribute that does it.
//!
//! Check: `cargo run -p exercises -- check ch07_counter`. Hint:
//! `cargo run -p exercises -- hint ch07_counter`.

use std::sync::atomic::AtomicU64;
#[allow(unused_imports)]
use std::sync::atomic::Ordering;

/// A counter with one writer.
#[derive(Default)]
pub struct Counter(AtomicU64);

impl Counter {
    /// Adds one. Only the owning thread calls this.
    pub fn incr(&self) {
        todo!("a relaxed load, then a relaxed store of the value plus one")
    }

    /// Reads from any thread.
    pub fn get(&self) -> u64 {
        todo!("a relaxed load")
    }
}

/// One worker's counters.
#[derive(Default)]
pub struct WorkerCounters {
    /// Tasks polled.
    pub polls: Counter,
    /// Tasks stolen.
    pub steals: Counter,
    /// Times parked.
    pub parks: Counter,
}
