//! Near miss of ch06_join: a future that has returned `Ready` stays in the
//! `Join` and is polled again on the next poll, which a future may answer by
//! panicking; the tests must catch it because a finished future must never be
//! polled again.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

/// Two futures, polled together.
pub struct Join<A: Future, B: Future> {
    a: Option<Pin<Box<A>>>,
    b: Option<Pin<Box<B>>>,
    a_out: Option<A::Output>,
    b_out: Option<B::Output>,
}

// The futures are boxed, and the outputs are only ever moved, never pinned:
// nothing inside a Join relies on staying put, so it may be Unpin whatever
// the output types are. (Implementing Unpin is safe: the promise it makes is
// about our own code.)
impl<A: Future, B: Future> Unpin for Join<A, B> {}

/// Waits for both `a` and `b`.
pub fn join<A: Future, B: Future>(a: A, b: B) -> Join<A, B> {
    Join {
        a: Some(Box::pin(a)),
        b: Some(Box::pin(b)),
        a_out: None,
        b_out: None,
    }
}

impl<A: Future, B: Future> Future for Join<A, B> {
    type Output = (A::Output, B::Output);

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.get_mut();
        if let Some(a) = this.a.as_mut()
            && let Poll::Ready(out) = a.as_mut().poll(cx)
        {
            // MISTAKE: the finished future stays, to be polled again.
            this.a_out = Some(out);
        }
        if let Some(b) = this.b.as_mut()
            && let Poll::Ready(out) = b.as_mut().poll(cx)
        {
            this.b_out = Some(out);
        }
        if this.a_out.is_some() && this.b_out.is_some() {
            let a = this.a_out.take().expect("checked");
            let b = this.b_out.take().expect("checked");
            return Poll::Ready((a, b));
        }
        Poll::Pending
    }
}
