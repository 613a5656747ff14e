//! A stackless switch: resuming a future.
//!
//! A future keeps no stack of its own. The compiler turns an `async fn` into
//! a state machine whose every `.await` is a state; "suspending" is returning
//! `Poll::Pending` from `poll`, and "resuming" is the next call to `poll`,
//! which jumps to the saved state. So a stackless switch costs a function
//! call and return plus a jump on the state number, and no register juggling
//! beyond the calling convention. Chapter 6 builds futures, wakers and
//! executors properly; here we only time the simplest possible loop.
//!
//! Book: Chapter 2, "Stackful or stackless".

use std::future::Future;
use std::pin::{Pin, pin};
use std::task::{self, Poll, Waker};
use std::time::Instant;

// ANCHOR: yield_future
/// A future that is pending once, then ready: a voluntary "yield" that asks
/// to be polled again right away.
#[derive(Debug, Default)]
pub struct YieldNow {
    yielded: bool,
}

impl Future for YieldNow {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut task::Context<'_>) -> Poll<()> {
        if self.yielded {
            Poll::Ready(())
        } else {
            self.yielded = true;
            cx.waker().wake_by_ref(); // "poll me again"
            Poll::Pending
        }
    }
}

/// Suspends `n` times.
pub async fn yield_many(n: u64) {
    for _ in 0..n {
        YieldNow::default().await;
    }
}

/// Polls `future` until it is ready, with a waker that does nothing (the
/// loop polls again anyway). Returns the number of polls.
///
/// The future is polled through `dyn Future`, as an executor holding many
/// different tasks must, and the optimiser is not allowed to see through the
/// pointer: otherwise it would fuse the loop and the state machine into
/// nothing and time zero.
pub fn poll_to_completion(future: impl Future<Output = ()>) -> u64 {
    let future = pin!(future);
    let mut future: Pin<&mut dyn Future<Output = ()>> = future;
    let mut cx = task::Context::from_waker(Waker::noop());
    let mut polls = 0;
    loop {
        polls += 1;
        if std::hint::black_box(future.as_mut())
            .poll(&mut cx)
            .is_ready()
        {
            return polls;
        }
    }
}
// ANCHOR_END: yield_future

/// Nanoseconds per resume (one `poll` that continues after an `.await`).
pub fn resume_ns(yields: u64) -> f64 {
    let start = Instant::now();
    let polls = poll_to_completion(yield_many(yields));
    start.elapsed().as_nanos() as f64 / polls as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_future_that_yields_n_times_takes_n_plus_one_polls() {
        assert_eq!(poll_to_completion(yield_many(0)), 1);
        assert_eq!(poll_to_completion(yield_many(5)), 6);
    }

    #[test]
    fn resuming_costs_something_finite() {
        let ns = resume_ns(10_000);
        assert!(ns.is_finite() && ns > 0.0);
    }
}
