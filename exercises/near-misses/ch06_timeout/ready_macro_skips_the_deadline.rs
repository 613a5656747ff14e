//! Near miss of ch06_timeout: `std::task::ready!` on the work returns
//! `Pending` from `poll` before the deadline is ever polled, so the deadline
//! can never fire; the tests must catch it because a timeout whose work never
//! finishes must end with `Elapsed` (`a_deadline_that_comes_first_wins`).

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

/// The deadline won.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Elapsed;

/// `work`, unless `deadline` completes first.
pub struct Timeout<F, D> {
    /// The work.
    pub work: Pin<Box<F>>,
    /// The deadline.
    pub deadline: Pin<Box<D>>,
}

/// Races `work` against `deadline`.
pub fn timeout<F: Future, D: Future<Output = ()>>(work: F, deadline: D) -> Timeout<F, D> {
    Timeout {
        work: Box::pin(work),
        deadline: Box::pin(deadline),
    }
}

impl<F: Future, D: Future<Output = ()>> Future for Timeout<F, D> {
    type Output = Result<F::Output, Elapsed>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        // MISTAKE: `ready!` returns early while the work is pending.
        let output = std::task::ready!(self.work.as_mut().poll(cx));
        Poll::Ready(Ok(output))
    }
}
