//! Per-worker counters: what each worker did, readable from any thread while
//! the runtime runs.
//!
//! Each counter has exactly one writer (its worker), so an increment is a
//! relaxed load and store, not a locked read-modify-write: it costs about as
//! much as incrementing a plain integer. Readers may see a value a few
//! increments old, which is fine for counters. Each worker's block is
//! aligned to its own cache lines so that a worker's increments never
//! invalidate a line another worker is writing. A runtime built with
//! `disable_metrics()` skips every write (one predictable branch each).
//!
//! Besides counters, a worker publishes *what it is polling right now*: the
//! spawn location of the current task (null between polls). The long-poll
//! detector (`scheduler/watchdog.rs`) reads it with the poll counter to
//! notice a poll that has not ended, without the worker reading the clock.
//!
//! `RuntimeMetrics` (in `runtime/metrics.rs`) is the public view.
//!
//! Book: Chapter 7, "Seeing inside" (7.6).

use std::panic::Location;
use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicU64, AtomicUsize, Ordering};
use std::time::Duration;

/// Buckets of the poll-time histogram: bucket 0 counts polls under 128 ns,
/// bucket `i` (1 to 22) those from `2^(i+6)` to under `2^(i+7)` ns (the
/// last bound about 537 ms), and the last bucket, 23, everything longer.
pub(crate) const POLL_TIME_BUCKETS: usize = 24;

/// One worker's counters.
#[repr(align(128))]
pub(crate) struct WorkerStats {
    enabled: bool,
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
    /// Nanoseconds spent not parked, brought up to date at each maintenance
    /// tick and each park.
    pub(crate) busy_ns: Counter,
    /// The spawn location of the task being polled now; null between polls.
    pub(crate) current: AtomicPtr<Location<'static>>,
    /// True while the worker is parked.
    pub(crate) parked: AtomicBool,
    /// The worker thread's kernel thread id (for the long-poll detector).
    pub(crate) tid: AtomicU64,
    /// Tasks that completed on this worker and wait in its batch to leave
    /// the owned list: the count of live tasks leaves them out. Written
    /// even with metrics off, as `num_alive_tasks` always counts.
    unreleased: AtomicUsize,
    /// Poll durations, when the runtime measures them.
    pub(crate) poll_times: [Counter; POLL_TIME_BUCKETS],
}

/// A single-writer counter.
#[derive(Default)]
pub(crate) struct Counter(AtomicU64);

impl WorkerStats {
    pub(crate) fn new(enabled: bool) -> WorkerStats {
        WorkerStats {
            enabled,
            polls: Counter::default(),
            lifo_polls: Counter::default(),
            steals: Counter::default(),
            steal_operations: Counter::default(),
            overflows: Counter::default(),
            local_schedules: Counter::default(),
            inject_pulls: Counter::default(),
            parks: Counter::default(),
            unparks: Counter::default(),
            queue_depth: Counter::default(),
            budget_forced_yields: Counter::default(),
            busy_ns: Counter::default(),
            current: AtomicPtr::new(std::ptr::null_mut()),
            parked: AtomicBool::new(false),
            tid: AtomicU64::new(0),
            unreleased: AtomicUsize::new(0),
            poll_times: Default::default(),
        }
    }

    /// Adds `n` to `counter` (which must be one of ours) if metrics are on.
    #[inline]
    pub(crate) fn add(&self, counter: &Counter, n: u64) {
        if self.enabled {
            counter.add(n);
        }
    }

    /// Adds one.
    #[inline]
    pub(crate) fn incr(&self, counter: &Counter) {
        self.add(counter, 1);
    }

    /// Sets a gauge.
    #[inline]
    pub(crate) fn set(&self, counter: &Counter, value: u64) {
        if self.enabled {
            counter.set(value);
        }
    }

    /// Publishes how many completed tasks wait in this worker's batch.
    #[inline]
    pub(crate) fn set_unreleased(&self, tasks: usize) {
        self.unreleased.store(tasks, Ordering::Relaxed);
    }

    /// Completed tasks waiting in this worker's batch (a snapshot).
    pub(crate) fn unreleased(&self) -> usize {
        self.unreleased.load(Ordering::Relaxed)
    }

    /// Publishes the task about to be polled (or `None` after the poll).
    #[inline]
    pub(crate) fn set_current(&self, location: Option<&'static Location<'static>>) {
        if self.enabled {
            let ptr = location.map_or(std::ptr::null_mut(), |l| {
                l as *const Location<'static> as *mut _
            });
            self.current.store(ptr, Ordering::Relaxed);
        }
    }

    /// The task being polled now, if any.
    pub(crate) fn current(&self) -> Option<&'static Location<'static>> {
        let ptr = self.current.load(Ordering::Relaxed);
        // SAFETY: only `set_current` stores here, and only pointers made
        // from `&'static Location` (or null), which are valid for ever.
        unsafe { ptr.as_ref() }
    }

    /// Records one poll's duration in the histogram.
    pub(crate) fn record_poll_time(&self, elapsed: Duration) {
        self.incr(&self.poll_times[bucket(elapsed)]);
    }
}

// ANCHOR: bucket
/// The histogram bucket of a duration.
pub(crate) fn bucket(elapsed: Duration) -> usize {
    let ns = elapsed.as_nanos().max(1) as u64;
    // Below 128 ns is bucket 0; each bucket doubles.
    let log2 = 63 - ns.leading_zeros() as usize;
    log2.saturating_sub(6).min(POLL_TIME_BUCKETS - 1)
}

/// The upper bound of bucket `i` (exclusive), in nanoseconds.
pub(crate) fn bucket_upper_ns(i: usize) -> u64 {
    1 << (i + 7)
}
// ANCHOR_END: bucket

// ANCHOR: counter
impl Counter {
    /// Adds `n`; only the owning worker calls this.
    #[inline]
    pub(crate) fn add(&self, n: u64) {
        self.0.store(
            self.0.load(Ordering::Relaxed).wrapping_add(n),
            Ordering::Relaxed,
        );
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
// ANCHOR_END: counter

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn buckets_double() {
        assert_eq!(bucket(Duration::from_nanos(1)), 0);
        assert_eq!(bucket(Duration::from_nanos(127)), 0);
        assert_eq!(bucket(Duration::from_nanos(128)), 1);
        assert_eq!(bucket(Duration::from_nanos(255)), 1);
        assert_eq!(bucket(Duration::from_micros(10)), 7);
        assert_eq!(bucket(Duration::from_secs(100)), POLL_TIME_BUCKETS - 1);
        for i in 0..POLL_TIME_BUCKETS - 1 {
            assert_eq!(bucket(Duration::from_nanos(bucket_upper_ns(i) - 1)), i);
        }
    }

    #[test]
    fn disabled_stats_write_nothing() {
        let stats = WorkerStats::new(false);
        stats.incr(&stats.polls);
        stats.set_current(Some(Location::caller()));
        assert_eq!(stats.polls.get(), 0);
        assert!(stats.current().is_none());
        let stats = WorkerStats::new(true);
        stats.incr(&stats.polls);
        stats.set_current(Some(Location::caller()));
        assert_eq!(stats.polls.get(), 1);
        assert!(stats.current().is_some());
    }
}
