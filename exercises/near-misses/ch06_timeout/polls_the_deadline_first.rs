//! Near miss of ch06_timeout: the deadline is polled before the work, so work
//! that becomes ready in the same poll as the deadline is thrown away as
//! `Elapsed`; the tests must catch it because a value that is ready must be
//! returned (`work_done_on_the_deadline_is_kept`).

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
        // MISTAKE: the deadline first; a ready value loses the tie.
        if let Poll::Ready(()) = self.deadline.as_mut().poll(cx) {
            return Poll::Ready(Err(Elapsed));
        }
        match self.work.as_mut().poll(cx) {
            Poll::Ready(output) => Poll::Ready(Ok(output)),
            Poll::Pending => Poll::Pending,
        }
    }
}
