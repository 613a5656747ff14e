//! Exercise ch08_select_two: race two futures, drop the loser.
//!
//! `select` waits for whichever of two futures finishes first, and the
//! other one is *cancelled*: dropped, which is all cancellation is for a
//! future (Chapter 8, "join!, select! and cancellation", "`select!`: the
//! first to finish wins, the others are dropped"). The loser may be
//! halfway through something (holding a lock, a permit, a half-read
//! message), so when exactly it is dropped matters: here, before `select`
//! returns the winner's output, not whenever the `Select` itself goes.
//!
//! Write `poll` for [`Select`] (the types and [`select`] are written for
//! you), with these rules:
//!
//! * Poll `a` first. If it is `Ready`, `a` wins: `b` is not polled at all
//!   in that poll. So when both could finish in the same poll, `a` wins
//!   (ties go to the left; `rt::select!` starts at a random branch instead,
//!   which is fairer and harder to test).
//! * Otherwise poll `b`; if it is `Ready`, `b` wins.
//! * On a win, set both `a` and `b` to `None` (dropping the loser, and the
//!   winner, now spent) before returning `Ready(Either::Left(out))` or
//!   `Ready(Either::Right(out))`. Neither is ever polled again.
//! * If neither is ready, return `Pending` (both were polled, so both have
//!   the waker).
//! * Polling a `Select` again after it returned `Ready` panics with a
//!   message that contains "after completion".
//!
//! Check: `cargo run -p exercises -- check ch08_select_two`. Hint:
//! `cargo run -p exercises -- hint ch08_select_two`.

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

/// Races `a` against `b`. Written for you.
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
        todo!("a first, then b; on a win drop both, return Left or Right; again: panic")
    }
}
