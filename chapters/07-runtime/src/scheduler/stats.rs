//! Per-worker counters: what each worker did, readable from any thread while
//! the runtime runs.
//!
//! Each counter has exactly one writer (its worker), so an increment is a
//! relaxed load and store, not a locked read-modify-write: it costs about as
//! much as incrementing a plain integer. Readers may see a value a few
//! increments old, which is fine for counters. Each worker's block is
//! padded to its own cache lines so that a worker's increments never
//! invalidate a line another worker is writing.
//!
//! `RuntimeMetrics` (in `runtime/metrics.rs`) is the public view.
//!
//! Book: Chapter 7, "What the workers did".

use std::sync::atomic::{AtomicU64, Ordering};

/// One worker's counters.
#[derive(Default)]
#[repr(align(128))]
pub(crate) struct WorkerStats {
    /// Tasks polled (including LIFO polls).
    pub(crate) polls: Counter,
    /// Of those, polls of a task taken from the LIFO slot.
    pub(crate) lifo_polls: Counter,
    /// Tasks this worker stole from others.
    pub(crate) steals: Counter,
    /// Successful steal operations (each moves up to half a queue).
    pub(crate) steal_operations: Counter,
    /// Times this worker's queue was full and half of it moved to the inject queue.
    pub(crate) overflows: Counter,
    /// Tasks scheduled by this worker onto its own queue or LIFO slot.
    pub(crate) local_schedules: Counter,
    /// Tasks this worker took from the inject queue.
    pub(crate) inject_pulls: Counter,
    /// Times this worker parked.
    pub(crate) parks: Counter,
    /// Times it was woken with work to do (not spuriously, not for shutdown).
    pub(crate) unparks: Counter,
    /// Tasks in the local queue at the last maintenance tick.
    pub(crate) queue_depth: Counter,
    /// Polls that ended with the cooperative budget spent (the task was
    /// made to yield).
    pub(crate) budget_forced_yields: Counter,
}

/// A single-writer counter.
#[derive(Default)]
pub(crate) struct Counter(AtomicU64);

impl Counter {
    /// Adds `n`; only the owning worker calls this.
    #[inline]
    pub(crate) fn add(&self, n: u64) {
        self.0.store(
            self.0.load(Ordering::Relaxed).wrapping_add(n),
            Ordering::Relaxed,
        );
    }

    /// Adds one.
    #[inline]
    pub(crate) fn incr(&self) {
        self.add(1);
    }

    /// Overwrites the value (for gauges such as the queue depth).
    pub(crate) fn set(&self, value: u64) {
        self.0.store(value, Ordering::Relaxed);
    }

    /// Reads the value from any thread.
    pub(crate) fn get(&self) -> u64 {
        self.0.load(Ordering::Relaxed)
    }
}
