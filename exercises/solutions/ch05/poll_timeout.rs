//! Reference solution for ch05_poll_timeout.

use std::time::{Duration, Instant};

/// How long the loop may wait at `now`, given the next timer deadline and
/// whether next-tick callbacks are queued.
pub fn poll_timeout(
    now: Instant,
    next_deadline: Option<Instant>,
    ticks_queued: bool,
) -> Option<Duration> {
    if ticks_queued {
        return Some(Duration::ZERO);
    }
    next_deadline.map(|deadline| deadline.saturating_duration_since(now))
}

/// The timeout as `epoll_wait` takes it: milliseconds rounded up, -1 for
/// forever, at most `i32::MAX`.
pub fn epoll_timeout_ms(timeout: Option<Duration>) -> i32 {
    match timeout {
        None => -1,
        Some(timeout) => timeout.as_nanos().div_ceil(1_000_000).min(i32::MAX as u128) as i32,
    }
}
