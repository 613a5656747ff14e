//! Near miss of ch08_select_two: a `Select` polled again after it returned
//! `Ready` answers `Pending` instead of panicking, so a caller's bug (polling a
//! finished future) hangs silently; the tests must catch it because a future
//! polled after completion should fail loudly, as the exercise asks.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

/// Which future won a [`select`], with its output.
#[derive(Debug, PartialEq, Eq)]
pub enum Either<L, R> {
    /// The first future finished first (or both did, in the same poll).
    Left(L),
    /// The second future finished first.
    Right(R),
}

/// Two futures raced; see [`select`].
pub struct Select<A, B> {
    /// The first future; `None` once the race is over.
    pub a: Option<A>,
    /// The second future; `None` once the race is over.
    pub b: Option<B>,
}

/// Races `a` against `b`.
pub fn select<A, B>(a: A, b: B) -> Select<A, B>
where
    A: Future + Unpin,
    B: Future + Unpin,
{
    Select {
        a: Some(a),
        b: Some(b),
    }
}

impl<A, B> Future for Select<A, B>
where
    A: Future + Unpin,
    B: Future + Unpin,
{
    type Output = Either<A::Output, B::Output>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.get_mut();
        // MISTAKE: a finished race just says Pending.
        let (Some(a), Some(b)) = (this.a.as_mut(), this.b.as_mut()) else {
            return Poll::Pending;
        };
        if let Poll::Ready(out) = Pin::new(a).poll(cx) {
            this.a = None;
            this.b = None;
            return Poll::Ready(Either::Left(out));
        }
        if let Poll::Ready(out) = Pin::new(b).poll(cx) {
            this.a = None;
            this.b = None;
            return Poll::Ready(Either::Right(out));
        }
        Poll::Pending
    }
}
