//! Tests for exercise ch03_histogram (`exercises/ch03/histogram.rs`).

#[cfg_attr(not(feature = "solutions"), path = "../ch03/histogram.rs")]
#[cfg_attr(feature = "solutions", path = "../solutions/ch03/histogram.rs")]
#[allow(dead_code, unused_variables, unused_imports)]
mod histogram;

mod ch03_histogram {
    use super::histogram::{BUCKETS, EXACT, Histogram, bucket_high, bucket_of};

    #[test]
    fn small_values_are_exact() {
        let mut h = Histogram::default();
        for v in 1..=60 {
            h.record(v);
        }
        assert_eq!(h.count(), 60);
        assert_eq!(h.value_at_percentile(50.0), Some(30));
        assert_eq!(h.value_at_percentile(100.0), Some(60));
        assert_eq!(h.value_at_percentile(0.0), Some(1));
    }

    #[test]
    fn nearest_rank_rounds_up() {
        let mut h = Histogram::default();
        for v in [10, 20, 30, 40] {
            h.record(v);
        }
        // rank ceil(0.26 x 4) = 2 -> 20; ceil(0.25 x 4) = 1 -> 10
        assert_eq!(h.value_at_percentile(26.0), Some(20));
        assert_eq!(h.value_at_percentile(25.0), Some(10));
        assert_eq!(h.value_at_percentile(75.01), Some(40));
    }

    #[test]
    fn large_values_are_right_to_within_a_bucket() {
        let mut h = Histogram::default();
        let values: Vec<u64> = (1..=10_000u64).map(|i| i * 1_234_567).collect();
        for &v in &values {
            h.record(v);
        }
        for p in [50.0, 90.0, 99.0, 99.9] {
            let exact = values[((p / 100.0 * values.len() as f64).ceil() as usize) - 1];
            let got = h.value_at_percentile(p).unwrap();
            assert!(got >= exact, "p{p}: {got} < {exact}");
            assert!(
                (got - exact) as f64 <= exact as f64 / 32.0,
                "p{p}: {got} too far above {exact}"
            );
            assert_eq!(bucket_of(got), bucket_of(exact));
        }
    }

    #[test]
    fn extremes_fit() {
        let mut h = Histogram::default();
        h.record(0);
        h.record(u64::MAX);
        assert_eq!(h.count(), 2);
        assert_eq!(h.value_at_percentile(50.0), Some(0));
        assert_eq!(h.value_at_percentile(100.0), Some(u64::MAX));
        assert_eq!(bucket_high(bucket_of(u64::MAX)), u64::MAX);
    }

    #[test]
    fn percentiles_out_of_range_are_clamped_and_empty_has_none() {
        let mut h = Histogram::default();
        assert_eq!(h.value_at_percentile(50.0), None);
        h.record(7);
        h.record(9);
        assert_eq!(h.value_at_percentile(-5.0), Some(7));
        assert_eq!(h.value_at_percentile(250.0), Some(9));
    }

    #[test]
    fn buckets_tile_every_u64_without_gaps_or_spares() {
        // Each bucket starts right after the previous one's largest value,
        // the last one ends at u64::MAX, and there is no bucket beyond it.
        let mut low = 0u64;
        for index in 0..BUCKETS {
            let high = bucket_high(index);
            assert!(high >= low, "bucket {index} is empty: {low}..={high}");
            assert_eq!(bucket_of(low), index, "{low} is not in bucket {index}");
            assert_eq!(bucket_of(high), index, "{high} is not in bucket {index}");
            if index + 1 < BUCKETS {
                low = high + 1;
            } else {
                assert_eq!(high, u64::MAX, "the last bucket ends at u64::MAX");
            }
        }
        let mut h = Histogram::default();
        assert_eq!(h.counts.len(), BUCKETS);
        h.record(u64::MAX);
        assert_eq!(h.counts[BUCKETS - 1], 1, "u64::MAX goes in the last bucket");
    }

    #[test]
    fn above_the_exact_range_buckets_are_one_thirty_second_of_a_power_of_two() {
        let mut h = Histogram::default();
        h.record(65);
        h.record(63);
        // 63 is exact; 65 shares a bucket with 64.
        assert_eq!(h.value_at_percentile(50.0), Some(63));
        assert_eq!(h.value_at_percentile(100.0), Some(65));
        assert_eq!(bucket_of(EXACT - 1), EXACT as usize - 1);
        // 64 and 65 share the first wider bucket; 66 starts the next.
        assert_eq!(bucket_of(64), bucket_of(65));
        assert_eq!(bucket_high(bucket_of(64)), 65);
        assert_eq!(bucket_of(66), bucket_of(65) + 1);
        // From 128, four values a bucket; from 1 << 20, 1 << 15.
        assert_eq!(bucket_high(bucket_of(128)), 131);
        assert_eq!(bucket_high(bucket_of(1 << 20)), (1 << 20) + (1 << 15) - 1);
    }

    #[test]
    fn a_percentile_names_the_largest_value_of_its_bucket() {
        let mut h = Histogram::default();
        h.record(64);
        assert_eq!(h.value_at_percentile(100.0), Some(65));
        h.record(1_000_000);
        assert_eq!(h.count(), 2);
        assert_eq!(
            h.value_at_percentile(100.0),
            Some(bucket_high(bucket_of(1_000_000)))
        );
    }
}
