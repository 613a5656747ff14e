//! Exercise ch05_poll_timeout: how long may the loop sleep?
//!
//! Before each wait, the event loop decides how long the wait may last:
//!
//! * not at all (zero) if next-tick callbacks are queued: they must run now;
//! * otherwise until the next timer's deadline (zero if it has passed);
//! * forever (`None`) if there is no timer.
//!
//! epoll takes the timeout in whole milliseconds as a C `int`, with -1 for
//! "forever". Converting must round *up*: a timer due in 0.3 ms rounded down
//! to 0 ms would make the loop spin without sleeping until the deadline,
//! and a timer must never fire early. Very long timeouts are capped at
//! `i32::MAX` milliseconds (about 24.8 days; the loop simply wakes up and
//! waits again).
//!
//! Write [`poll_timeout`] and [`epoll_timeout_ms`].
//!
//! Check: `cargo run -p exercises -- check ch05_poll_timeout`. Hint:
//! `cargo run -p exercises -- hint ch05_poll_timeout`.

use std::time::{Duration, Instant};

/// How long the loop may wait at `now`, given the next timer deadline and
/// whether next-tick callbacks are queued.
pub fn poll_timeout(
    now: Instant,
    next_deadline: Option<Instant>,
    ticks_queued: bool,
) -> Option<Duration> {
    todo!("{now:?} {next_deadline:?} {ticks_queued}")
}

/// The timeout as `epoll_wait` takes it: milliseconds rounded up, -1 for
/// forever, at most `i32::MAX`.
pub fn epoll_timeout_ms(timeout: Option<Duration>) -> i32 {
    todo!("{timeout:?}")
}
