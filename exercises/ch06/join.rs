//! Exercise ch06_join: run two futures at once, by hand.
//!
//! `futures::join!(a, b)` waits for two futures concurrently: it polls
//! both, and is ready when both are. Write the future it expands to, for
//! two futures of any types:
//!
//! * [`join`] builds a [`Join`] from two futures;
//! * polling the `Join` polls each future that has not finished yet (never
//!   one that has: polling a finished future is a bug, and may panic);
//! * it keeps each output as it arrives, and is `Ready((a, b))` once both
//!   are in; otherwise `Pending`. (Both futures got the same `Context`, so
//!   whichever is not done has arranged its own wake-up.)
//!
//! The futures are stored in `Pin<Box<..>>` and `Join` is declared `Unpin`
//! (see the `impl` below), so you can use `self.get_mut()`: no unsafe
//! pinning needed.
//!
//! Check: `cargo run -p exercises -- check ch06_join`. Hint:
//! `cargo run -p exercises -- hint ch06_join`.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

/// Two futures, polled together.
pub struct Join<A: Future, B: Future> {
    // Your fields here (for example: each future, and each output once in).
    _a: Option<Pin<Box<A>>>,
    _b: Option<Pin<Box<B>>>,
}

// The futures are boxed, and the outputs are only ever moved, never pinned:
// nothing inside a Join relies on staying put, so it may be Unpin whatever
// the output types are. (Implementing Unpin is safe: the promise it makes is
// about our own code.)
impl<A: Future, B: Future> Unpin for Join<A, B> {}

/// Waits for both `a` and `b`.
pub fn join<A: Future, B: Future>(a: A, b: B) -> Join<A, B> {
    Join {
        _a: Some(Box::pin(a)),
        _b: Some(Box::pin(b)),
    }
}

impl<A: Future, B: Future> Future for Join<A, B> {
    type Output = (A::Output, B::Output);

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let _ = (self, cx);
        todo!("poll whichever is not done; ready when both are")
    }
}
