//! Tests for exercise ch04_interest (`exercises/ch04/interest.rs`).

#[cfg_attr(not(feature = "solutions"), path = "../ch04/interest.rs")]
#[cfg_attr(feature = "solutions", path = "../solutions/ch04/interest.rs")]
#[allow(dead_code, unused_variables, unused_imports)]
mod interest;

mod ch04_interest {
    use super::interest::{Decision, HIGH, LOW, State, decide, update_reading};

    fn state(peer_closed: bool, backlog: usize, reading: bool) -> State {
        State {
            peer_closed,
            backlog,
            reading,
        }
    }

    fn watch(readable: bool, writable: bool) -> Decision {
        Decision::Watch { readable, writable }
    }

    #[test]
    fn an_idle_connection_waits_to_read() {
        assert_eq!(decide(state(false, 0, true)), watch(true, false));
    }

    #[test]
    fn a_backlog_asks_for_writability_and_only_then() {
        assert_eq!(decide(state(false, 10, true)), watch(true, true));
        assert_eq!(decide(state(false, 0, true)), watch(true, false));
    }

    #[test]
    fn a_throttled_connection_is_not_read() {
        assert_eq!(decide(state(false, HIGH, false)), watch(false, true));
    }

    #[test]
    fn a_half_closed_connection_finishes_its_echo_then_closes() {
        assert_eq!(decide(state(true, 500, true)), watch(false, true));
        assert_eq!(decide(state(true, 0, true)), Decision::Close);
        assert_eq!(decide(state(true, 0, false)), Decision::Close);
    }

    #[test]
    fn reading_switches_with_hysteresis() {
        assert!(!update_reading(HIGH, true));
        assert!(!update_reading(HIGH + 1, false));
        assert!(update_reading(LOW - 1, false));
        assert!(update_reading(0, true));
        // In between: keep doing what we did.
        let middle = (LOW + HIGH) / 2;
        assert!(update_reading(middle, true));
        assert!(!update_reading(middle, false));
        assert!(update_reading(LOW, true));
        assert!(!update_reading(LOW, false));
    }

    #[test]
    fn the_thresholds_are_256_kib_and_64_kib() {
        assert!(update_reading(256 * 1024 - 1, true));
        assert!(!update_reading(256 * 1024, true));
        assert!(update_reading(64 * 1024 - 1, false));
        assert!(!update_reading(64 * 1024, false));
    }
}
