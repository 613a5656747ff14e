//! Near miss of ch06_join: `b` is polled only once `a` has finished, so the
//! two run one after the other instead of together; the tests must catch it
//! because a join exists to make progress on both in every poll.

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
            this.a_out = Some(out);
            this.a = None; // finished: never poll it again
        }
        // MISTAKE: b waits its turn.
        if this.a.is_some() {
            return Poll::Pending;
        }
        if let Some(b) = this.b.as_mut()
            && let Poll::Ready(out) = b.as_mut().poll(cx)
        {
            this.b_out = Some(out);
            this.b = None;
        }
        if this.a_out.is_some() && this.b_out.is_some() {
            let a = this.a_out.take().expect("checked");
            let b = this.b_out.take().expect("checked");
            return Poll::Ready((a, b));
        }
        Poll::Pending
    }
}
