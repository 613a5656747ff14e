//! Tests for exercise ch05_poll_timeout (`exercises/ch05/poll_timeout.rs`).

#[cfg_attr(not(feature = "solutions"), path = "../ch05/poll_timeout.rs")]
#[cfg_attr(feature = "solutions", path = "../solutions/ch05/poll_timeout.rs")]
#[allow(dead_code, unused_variables, unused_imports)]
mod poll_timeout;

mod ch05_poll_timeout {
    use super::poll_timeout::{epoll_timeout_ms, poll_timeout};
    use std::time::{Duration, Instant};

    #[test]
    fn the_next_deadline_sets_the_timeout() {
        let now = Instant::now();
        let later = now + Duration::from_millis(250);
        assert_eq!(
            poll_timeout(now, Some(later), false),
            Some(Duration::from_millis(250))
        );
        assert_eq!(poll_timeout(now, None, false), None);
    }

    #[test]
    fn queued_ticks_and_past_deadlines_mean_do_not_sleep() {
        let now = Instant::now();
        let later = now + Duration::from_secs(5);
        assert_eq!(poll_timeout(now, Some(later), true), Some(Duration::ZERO));
        assert_eq!(poll_timeout(now, None, true), Some(Duration::ZERO));
        let passed = now;
        let after = now + Duration::from_millis(3);
        assert_eq!(
            poll_timeout(after, Some(passed), false),
            Some(Duration::ZERO)
        );
    }

    #[test]
    fn milliseconds_round_up_so_timers_never_fire_early() {
        assert_eq!(epoll_timeout_ms(None), -1);
        assert_eq!(epoll_timeout_ms(Some(Duration::ZERO)), 0);
        assert_eq!(epoll_timeout_ms(Some(Duration::from_micros(300))), 1);
        assert_eq!(epoll_timeout_ms(Some(Duration::from_millis(7))), 7);
        assert_eq!(epoll_timeout_ms(Some(Duration::from_nanos(7_000_001))), 8);
    }

    #[test]
    fn huge_timeouts_are_capped() {
        assert_eq!(
            epoll_timeout_ms(Some(Duration::from_secs(10_000_000))),
            i32::MAX
        );
        assert_eq!(epoll_timeout_ms(Some(Duration::MAX)), i32::MAX);
    }
}
