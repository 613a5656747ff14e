//! Near miss of ch08_select_two: both futures are polled on every poll before
//! either result is looked at, so in a tie the right one runs (and finishes
//! its work) although the left one wins and its output is thrown away; the
//! tests must catch it because a branch that loses must not be polled in the
//! poll that decides the race.

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
        let (Some(a), Some(b)) = (this.a.as_mut(), this.b.as_mut()) else {
            panic!("Select polled after completion");
        };
        // MISTAKE: poll both, then decide.
        let left = Pin::new(a).poll(cx);
        let right = Pin::new(b).poll(cx);
        let result = match (left, right) {
            (Poll::Ready(out), _) => Either::Left(out),
            (Poll::Pending, Poll::Ready(out)) => Either::Right(out),
            (Poll::Pending, Poll::Pending) => return Poll::Pending,
        };
        this.a = None;
        this.b = None;
        Poll::Ready(result)
    }
}
