//! Exercise ch06_timeout: race a future against a deadline.
//!
//! Every step of Chapter 6's relay has a time limit, written
//! `timeout(limit, step).await`. The timeout is itself a future that owns
//! two others: the work, and a deadline (a `Sleep`, in the chapter). Write
//! it for any work future `F` and any deadline future `D` (the tests use a
//! deadline that fires after a number of polls, so no clock is involved):
//!
//! * polling a [`Timeout`] polls the work first: if it is ready, so is the
//!   timeout, with `Ok(output)`, even if the deadline has passed too (work
//!   that is done is not thrown away);
//! * otherwise it polls the deadline: ready means `Err(Elapsed)`;
//! * otherwise `Pending`.
//!
//! After it returned `Ready`, a `Timeout` must not be polled again, and it
//! never polls its parts after that either.
//!
//! Check: `cargo run -p exercises -- check ch06_timeout`. Hint:
//! `cargo run -p exercises -- hint ch06_timeout`.

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

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let _ = (self, cx);
        todo!("work first, then the deadline")
    }
}
