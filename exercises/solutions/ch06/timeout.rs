//! Reference solution for ch06_timeout.

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
        if let Poll::Ready(output) = self.work.as_mut().poll(cx) {
            return Poll::Ready(Ok(output));
        }
        match self.deadline.as_mut().poll(cx) {
            Poll::Ready(()) => Poll::Ready(Err(Elapsed)),
            Poll::Pending => Poll::Pending,
        }
    }
}
