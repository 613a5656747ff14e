//! Tests for exercise ch02_switch_cost (`exercises/ch02/switch_cost.rs`).

#[cfg_attr(not(feature = "solutions"), path = "../ch02/switch_cost.rs")]
#[cfg_attr(feature = "solutions", path = "../solutions/ch02/switch_cost.rs")]
#[allow(dead_code, unused_variables, unused_imports)]
mod switch_cost;

mod ch02_switch_cost {
    use super::switch_cost::{CostError, Run, switch_cost_ns};
    use std::time::Duration;

    fn run(round_trips: u64, elapsed_us: u64, switches: u64) -> Run {
        Run {
            round_trips,
            elapsed: Duration::from_micros(elapsed_us),
            switches,
        }
    }

    #[test]
    fn one_run_is_elapsed_over_two_hand_offs_per_round_trip() {
        // 1,000 round trips in 4 ms: 2,000 hand-offs of 2 µs.
        assert_eq!(switch_cost_ns(&[run(1000, 4000, 2000)]), Ok(2000.0));
    }

    #[test]
    fn the_median_resists_a_slow_outlier() {
        let runs = [
            run(1000, 4000, 2000),
            run(1000, 4200, 2000),
            run(1000, 90_000, 2000), // a noisy neighbour
        ];
        assert_eq!(switch_cost_ns(&runs), Ok(2100.0));
    }

    #[test]
    fn an_even_count_takes_the_mean_of_the_middle_two() {
        let runs = [
            run(500, 2000, 1000),
            run(500, 2400, 1000),
            run(500, 1000, 1000),
            run(500, 3000, 1000),
        ];
        // costs 2000, 2400, 1000, 3000 ns -> middle two 2000 and 2400
        assert_eq!(switch_cost_ns(&runs), Ok(2200.0));
    }

    #[test]
    fn runs_that_did_not_switch_are_left_out() {
        let runs = [
            run(1000, 100, 10), // threads on two CPUs: no switching, fast
            run(1000, 4000, 1999),
            run(1000, 6000, 1500),   // exactly 1.5 per round trip still counts
            run(1000, 90_000, 1200), // 1.2 per round trip: too few, left out
        ];
        assert_eq!(switch_cost_ns(&runs), Ok(2500.0));
    }

    #[test]
    fn nothing_to_measure_is_an_error() {
        assert_eq!(switch_cost_ns(&[]), Err(CostError::NoRuns));
        assert_eq!(
            switch_cost_ns(&[run(1000, 100, 3)]),
            Err(CostError::NoRealSwitches)
        );
        assert_eq!(
            switch_cost_ns(&[run(10, 10, 20), run(0, 5, 0)]),
            Err(CostError::EmptyRun { index: 1 })
        );
    }
}
