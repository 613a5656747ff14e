//! Reference solution for ch03_histogram.

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
        self.counts[bucket_of(value)] += 1;
    }

    /// How many values were recorded.
    pub fn count(&self) -> u64 {
        self.counts.iter().sum()
    }

    /// The nearest-rank `p`-th percentile, to within its bucket.
    pub fn value_at_percentile(&self, p: f64) -> Option<u64> {
        let count = self.count();
        if count == 0 {
            return None;
        }
        let p = p.clamp(0.0, 100.0);
        let rank = ((p / 100.0 * count as f64).ceil() as u64).clamp(1, count);
        let mut seen = 0;
        for (index, &n) in self.counts.iter().enumerate() {
            seen += n;
            if seen >= rank {
                return Some(bucket_high(index));
            }
        }
        unreachable!("the ranks add up to the count")
    }
}
