//! Exercise ch08_rotating_join: a join that takes turns.
//!
//! A join of two futures that always polls the first one first is unfair in
//! a quiet way: when both make progress on every poll and share something
//! (a channel, a budget, a lock), the first one gets there first every time
//! (Chapter 8, "join!, select! and cancellation", "Why the first branch
//! rotates"). Tokio's `join!` rotates which branch it starts with; here you
//! write that rotation for two.
//!
//! Write `poll` for [`RotatingJoin`] (the struct and [`rotating_join`] are
//! written for you):
//!
//! * Each call to `poll` polls both futures that have not finished yet,
//!   starting with `a` when `a_first` is true and with `b` otherwise; then it
//!   flips `a_first`. So the first poll goes a, b; the second b, a; the third
//!   a, b; and so on, whether or not a branch has finished meanwhile.
//! * A future that returns `Ready` has its output kept (`a_out`, `b_out`)
//!   and is set to `None` at once: it is never polled again.
//! * When both outputs are there, return `Ready((a_output, b_output))`
//!   (always in that order, whichever finished first); otherwise `Pending`.
//!
//! Check: `cargo run -p exercises -- check ch08_rotating_join`. Hint:
//! `cargo run -p exercises -- hint ch08_rotating_join`.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

/// Two futures run together; see [`rotating_join`].
pub struct RotatingJoin<A: Future, B: Future> {
    /// The first future, `None` once it has finished.
    pub a: Option<Pin<Box<A>>>,
    /// The second future, `None` once it has finished.
    pub b: Option<Pin<Box<B>>>,
    /// The first future's output, once it has finished.
    pub a_out: Option<A::Output>,
    /// The second future's output, once it has finished.
    pub b_out: Option<B::Output>,
    /// Whether the next poll starts with `a`.
    pub a_first: bool,
}

// The futures are boxed and the outputs are never pinned, so moving a
// RotatingJoin is fine: `self.get_mut()` works in `poll`.
impl<A: Future, B: Future> Unpin for RotatingJoin<A, B> {}

/// Runs `a` and `b` together; the next poll starts with `a`. Written for you.
pub fn rotating_join<A: Future, B: Future>(a: A, b: B) -> RotatingJoin<A, B> {
    RotatingJoin {
        a: Some(Box::pin(a)),
        b: Some(Box::pin(b)),
        a_out: None,
        b_out: None,
        a_first: true,
    }
}

impl<A: Future, B: Future> Future for RotatingJoin<A, B> {
    type Output = (A::Output, B::Output);

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        todo!(
            "poll the unfinished ones in turn order, flip a_first, Ready when both outputs are in"
        )
    }
}
