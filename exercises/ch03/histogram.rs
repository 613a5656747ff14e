//! Exercise ch03_histogram: percentiles from a latency histogram.
//!
//! The load generator records millions of round-trip times. Keeping every
//! one to sort them later costs memory in proportion to the run; a
//! *histogram* costs a fixed amount. This one has the structure of the HDR
//! histogram the generator uses, cut down: values below 64 each have a
//! bucket of their own (exact); above that, every power of two is split into
//! 32 equal buckets, so a value is known to within 1/32 (about 3%) whatever
//! its size. [`bucket_of`] and [`bucket_high`] are given; they map a value
//! to its bucket and a bucket to the largest value it holds.
//!
//! Write the three methods of [`Histogram`]:
//!
//! * [`Histogram::record`] adds one value (any `u64`);
//! * [`Histogram::count`] is how many values were recorded;
//! * [`Histogram::value_at_percentile`] answers "what latency do `p`% of
//!   the values not exceed?" with the nearest-rank rule: the rank is
//!   `ceil(p / 100 x count)`, at least 1; walk the buckets from the lowest,
//!   adding up their counts, and return [`bucket_high`] of the first bucket
//!   where the running total reaches the rank. `p` is clamped to 0..=100.
//!   An empty histogram has no percentiles (`None`).
//!
//! Check: `cargo run -p exercises -- check ch03_histogram`. Hint:
//! `cargo run -p exercises -- hint ch03_histogram`.

/// Values below this each have their own bucket.
pub const EXACT: u64 = 64;
/// Buckets per power of two above `EXACT`.
pub const SUB_BUCKETS: u64 = 32;
/// Enough buckets for every `u64`.
pub const BUCKETS: usize = (EXACT + (64 - 6) * SUB_BUCKETS) as usize;

/// The bucket holding `value`.
pub fn bucket_of(value: u64) -> usize {
    if value < EXACT {
        return value as usize;
    }
    let top = 63 - u64::from(value.leading_zeros()); // 6 or more
    let sub = (value >> (top - 5)) & (SUB_BUCKETS - 1);
    (EXACT + (top - 6) * SUB_BUCKETS + sub) as usize
}

/// The largest value bucket `index` holds.
pub fn bucket_high(index: usize) -> u64 {
    let index = index as u64;
    if index < EXACT {
        return index;
    }
    let top = (index - EXACT) / SUB_BUCKETS + 6;
    let sub = (index - EXACT) % SUB_BUCKETS;
    (((SUB_BUCKETS + sub + 1) as u128) << (top - 5))
        .saturating_sub(1)
        .min(u64::MAX as u128) as u64
}

/// Counts of values per bucket.
pub struct Histogram {
    /// How many recorded values fell in each bucket.
    pub counts: Vec<u64>,
}

impl Default for Histogram {
    fn default() -> Histogram {
        Histogram {
            counts: vec![0; BUCKETS],
        }
    }
}

impl Histogram {
    /// Adds one value.
    pub fn record(&mut self, value: u64) {
        todo!("count {value} in its bucket")
    }

    /// How many values were recorded.
    pub fn count(&self) -> u64 {
        todo!()
    }

    /// The nearest-rank `p`-th percentile, to within its bucket.
    pub fn value_at_percentile(&self, p: f64) -> Option<u64> {
        todo!("walk the buckets up to rank ceil({p} / 100 x count)")
    }
}
