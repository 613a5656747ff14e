//! Timing something honestly: many runs, and the median.
//!
//! One timing of a thread spawn says little: the first run pays for page
//! faults and lazy initialisation, and any run can be hit by an interrupt or
//! by the other tenants of a shared machine. So every figure in this book is
//! the *median* of many runs, reported with the spread around it (the 10th
//! and 90th percentiles), after a few warm-up runs that are thrown away.
//!
//! The median is robust: a handful of runs delayed by a noisy neighbour move
//! the mean a lot and the median hardly at all. Chapter 1 of the book explains
//! this choice; every later chapter reuses this module.

use std::hint::black_box;
use std::time::{Duration, Instant};

/// A set of timings, in nanoseconds, sorted on construction.
#[derive(Debug, Clone)]
pub struct Samples {
    sorted_ns: Vec<f64>,
}

impl Samples {
    /// Wraps raw timings in nanoseconds. Panics if there are none or one is
    /// not a finite number (a bug in the caller, not bad input).
    pub fn from_ns(mut ns: Vec<f64>) -> Samples {
        assert!(!ns.is_empty(), "no samples");
        assert!(ns.iter().all(|x| x.is_finite()), "a sample is not finite");
        ns.sort_by(f64::total_cmp);
        Samples { sorted_ns: ns }
    }

    /// Wraps durations.
    pub fn from_durations(durations: &[Duration]) -> Samples {
        Samples::from_ns(durations.iter().map(|d| d.as_nanos() as f64).collect())
    }

    /// Number of samples.
    pub fn len(&self) -> usize {
        self.sorted_ns.len()
    }

    /// Always false: a `Samples` holds at least one timing.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// The median, in nanoseconds (the mean of the two middle samples when
    /// the count is even).
    pub fn median_ns(&self) -> f64 {
        let n = self.sorted_ns.len();
        if n % 2 == 1 {
            self.sorted_ns[n / 2]
        } else {
            (self.sorted_ns[n / 2 - 1] + self.sorted_ns[n / 2]) / 2.0
        }
    }

    /// The `p`-th percentile (0 to 100), nearest-rank.
    pub fn percentile_ns(&self, p: f64) -> f64 {
        let p = p.clamp(0.0, 100.0);
        let n = self.sorted_ns.len();
        let rank = ((p / 100.0) * n as f64).ceil() as usize;
        self.sorted_ns[rank.clamp(1, n) - 1]
    }

    /// The fastest sample.
    pub fn min_ns(&self) -> f64 {
        self.sorted_ns[0]
    }

    /// The slowest sample.
    pub fn max_ns(&self) -> f64 {
        self.sorted_ns[self.sorted_ns.len() - 1]
    }
}

// ANCHOR: time_each
/// Runs `f` `warmup` times untimed, then `runs` times timed one by one.
///
/// Use it when one call takes at least a few microseconds (a thread spawn, a
/// fork): `Instant::now()` itself costs tens of nanoseconds, which would
/// swamp anything shorter. For short operations, use [`time_batches`].
pub fn time_each<T>(warmup: usize, runs: usize, mut f: impl FnMut() -> T) -> Samples {
    assert!(runs > 0, "at least one run");
    for _ in 0..warmup {
        black_box(f());
    }
    let mut ns = Vec::with_capacity(runs);
    for _ in 0..runs {
        let start = Instant::now();
        black_box(f());
        ns.push(start.elapsed().as_nanos() as f64);
    }
    Samples::from_ns(ns)
}
// ANCHOR_END: time_each

/// Times `batches` batches of `per_batch` calls each and returns the time
/// per call of every batch, so the clock's own cost is spread over the batch.
pub fn time_batches<T>(batches: usize, per_batch: usize, mut f: impl FnMut() -> T) -> Samples {
    assert!(batches > 0 && per_batch > 0, "at least one call");
    // One untimed batch warms caches and branch predictors.
    for _ in 0..per_batch {
        black_box(f());
    }
    let mut ns = Vec::with_capacity(batches);
    for _ in 0..batches {
        let start = Instant::now();
        for _ in 0..per_batch {
            black_box(f());
        }
        ns.push(start.elapsed().as_nanos() as f64 / per_batch as f64);
    }
    Samples::from_ns(ns)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_of_odd_and_even_counts() {
        assert_eq!(Samples::from_ns(vec![5.0, 1.0, 3.0]).median_ns(), 3.0);
        assert_eq!(Samples::from_ns(vec![4.0, 1.0, 3.0, 2.0]).median_ns(), 2.5);
    }

    #[test]
    fn median_ignores_a_few_outliers() {
        let mut ns = vec![100.0; 9];
        ns.push(1e9);
        let samples = Samples::from_ns(ns);
        assert_eq!(samples.median_ns(), 100.0);
        assert_eq!(samples.max_ns(), 1e9);
    }

    #[test]
    fn percentiles_are_nearest_rank() {
        let samples = Samples::from_ns((1..=100).map(f64::from).collect());
        assert_eq!(samples.percentile_ns(10.0), 10.0);
        assert_eq!(samples.percentile_ns(90.0), 90.0);
        assert_eq!(samples.percentile_ns(0.0), 1.0);
        assert_eq!(samples.percentile_ns(100.0), 100.0);
    }

    #[test]
    fn timing_counts_every_run() {
        let mut calls = 0;
        let samples = time_each(2, 5, || calls += 1);
        assert_eq!(samples.len(), 5);
        assert_eq!(calls, 7);
        let mut calls = 0;
        let samples = time_batches(3, 4, || calls += 1);
        assert_eq!(samples.len(), 3);
        assert_eq!(calls, 16);
    }
}
