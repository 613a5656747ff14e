//! Near miss of ch06_timeout: both futures are polled on every poll and the
//! results compared afterwards, so the deadline is polled even when the work
//! is already ready (and polled again after it has fired); the tests must
//! catch it because a timeout must not touch its deadline once the work is
//! done (`ready_work_does_not_touch_the_deadline`).

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
        // MISTAKE: poll both, then decide.
        let work = self.work.as_mut().poll(cx);
        let deadline = self.deadline.as_mut().poll(cx);
        match (work, deadline) {
            (Poll::Ready(output), _) => Poll::Ready(Ok(output)),
            (Poll::Pending, Poll::Ready(())) => Poll::Ready(Err(Elapsed)),
            (Poll::Pending, Poll::Pending) => Poll::Pending,
        }
    }
}
