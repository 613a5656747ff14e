//! Tests for exercise ch03_histogram (`exercises/ch03/histogram.rs`).

#[cfg_attr(not(feature = "solutions"), path = "../ch03/histogram.rs")]
#[cfg_attr(feature = "solutions", path = "../solutions/ch03/histogram.rs")]
#[allow(dead_code, unused_variables, unused_imports)]
mod histogram;

mod ch03_histogram {
    use super::histogram::{Histogram, bucket_high, bucket_of};

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
}
