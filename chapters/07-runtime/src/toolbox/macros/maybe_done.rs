//! `MaybeDone`: one branch of a `join!`, which must keep a finished
//! future's output until every other branch has finished too.
//!
//! A future may not be polled after it returned `Ready`, and its output
//! cannot go back into it, so each branch moves from `Running` to `Done`
//! (holding the output) to `Taken` (the output handed to the caller). The
//! future is pinned by the macro, on the caller's stack, and held here as a
//! `Pin<&mut F>`, which is `Unpin`: nothing in this file needs `unsafe`.
//!
//! Book: Chapter 8, "join!, select! and cancellation".

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

/// A future, then its output, then nothing.
pub enum MaybeDone<F: Future> {
    /// Still running.
    Running(F),
    /// Finished; the output waits to be taken.
    Done(F::Output),
    /// The output was taken.
    Taken,
}

impl<F: Future + Unpin> MaybeDone<F> {
    /// A branch that has not been polled yet.
    pub fn new(future: F) -> MaybeDone<F> {
        MaybeDone::Running(future)
    }

    /// Polls the future if it is still running; true once it has finished
    /// (now or before).
    pub fn poll_done(&mut self, cx: &mut Context<'_>) -> bool {
        if let MaybeDone::Running(future) = self {
            match Pin::new(future).poll(cx) {
                Poll::Ready(output) => *self = MaybeDone::Done(output),
                Poll::Pending => return false,
            }
        }
        true
    }

    /// The output, leaving `Taken`.
    ///
    /// # Panics
    ///
    /// If the future has not finished, or the output was taken already.
    pub fn take(&mut self) -> F::Output {
        match std::mem::replace(self, MaybeDone::Taken) {
            MaybeDone::Done(output) => output,
            _ => panic!("join!: a branch's output was taken before it was ready, or twice"),
        }
    }
}

impl<F, T, E> MaybeDone<F>
where
    F: Future<Output = Result<T, E>> + Unpin,
{
    /// For `try_join!`: the error, if the future finished with one (the
    /// branch is then `Taken`).
    pub fn take_err(&mut self) -> Option<E> {
        if !matches!(self, MaybeDone::Done(Err(_))) {
            return None;
        }
        self.take().err()
    }

    /// For `try_join!`, once every branch finished with `Ok`: the value.
    ///
    /// # Panics
    ///
    /// If the branch did not finish with `Ok`.
    pub fn take_ok(&mut self) -> T {
        match self.take() {
            Ok(value) => value,
            Err(_) => panic!("try_join!: an error was left in a branch"),
        }
    }
}
