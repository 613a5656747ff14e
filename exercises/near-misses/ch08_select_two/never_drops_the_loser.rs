//! Near miss of ch08_select_two: the winner is taken out but the loser stays
//! in the `Select` until the `Select` itself is dropped, so whatever the loser
//! holds (a lock, a socket, a timer) lives on after the race is decided; the
//! tests must catch it because `select!` drops the losing branch before it
//! returns.

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
        if let Poll::Ready(out) = Pin::new(a).poll(cx) {
            // MISTAKE: only the spent winner is dropped.
            this.a = None;
            return Poll::Ready(Either::Left(out));
        }
        if let Poll::Ready(out) = Pin::new(b).poll(cx) {
            this.b = None;
            return Poll::Ready(Either::Right(out));
        }
        Poll::Pending
    }
}
