//! Near miss of ch08_rotating_join: a branch that has returned `Ready` keeps
//! its future and is polled again on later polls; the tests must catch it
//! because polling a finished future is a bug (many futures panic).

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

/// Runs `a` and `b` together; the next poll starts with `a`.
pub fn rotating_join<A: Future, B: Future>(a: A, b: B) -> RotatingJoin<A, B> {
    RotatingJoin {
        a: Some(Box::pin(a)),
        b: Some(Box::pin(b)),
        a_out: None,
        b_out: None,
        a_first: true,
    }
}

/// Polls `future` if it is still there; on `Ready`, keeps the output and
/// drops the future, so it is never polled again.
fn poll_side<F: Future>(
    future: &mut Option<Pin<Box<F>>>,
    out: &mut Option<F::Output>,
    cx: &mut Context<'_>,
) {
    if let Some(f) = future
        && let Poll::Ready(value) = f.as_mut().poll(cx)
    {
        // MISTAKE: the finished future is kept, to be polled again.
        *out = Some(value);
    }
}

impl<A: Future, B: Future> Future for RotatingJoin<A, B> {
    type Output = (A::Output, B::Output);

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.get_mut();
        if this.a_first {
            poll_side(&mut this.a, &mut this.a_out, cx);
            poll_side(&mut this.b, &mut this.b_out, cx);
        } else {
            poll_side(&mut this.b, &mut this.b_out, cx);
            poll_side(&mut this.a, &mut this.a_out, cx);
        }
        this.a_first = !this.a_first;
        if this.a_out.is_some() && this.b_out.is_some() {
            let a = this.a_out.take().unwrap();
            let b = this.b_out.take().unwrap();
            return Poll::Ready((a, b));
        }
        Poll::Pending
    }
}
