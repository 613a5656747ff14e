//! Near miss of ch06_state_machine: `b` is polled while the machine still
//! waits for `a`, so `b` starts before `a` is done; the tests must catch it
//! because `a.await; b.await` runs them one after the other, and `b` may rely
//! on what `a` did.

use std::future::Future;
use std::mem;
use std::pin::Pin;
use std::task::{Context, Poll};

/// `add_both`, by hand.
pub enum AddBoth<A, B> {
    /// Suspended at `a.await`.
    AwaitingA {
        /// The first future.
        a: Pin<Box<A>>,
        /// The second, not started.
        b: Pin<Box<B>>,
    },
    /// Suspended at `b.await`.
    AwaitingB {
        /// The first output.
        x: u32,
        /// The second future.
        b: Pin<Box<B>>,
    },
    /// Returned.
    Done,
}

/// Starts the state machine (nothing runs until it is polled).
pub fn add_both<A, B>(a: A, b: B) -> AddBoth<A, B>
where
    A: Future<Output = u32>,
    B: Future<Output = u32>,
{
    AddBoth::AwaitingA {
        a: Box::pin(a),
        b: Box::pin(b),
    }
}

impl<A, B> Future for AddBoth<A, B>
where
    A: Future<Output = u32>,
    B: Future<Output = u32>,
{
    type Output = u32;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<u32> {
        // Every field is a Pin<Box<..>> or a u32: the enum is Unpin.
        let this = self.get_mut();
        loop {
            match this {
                AddBoth::AwaitingA { a, b } => {
                    // MISTAKE: b gets a head start.
                    let early = b.as_mut().poll(cx);
                    let Poll::Ready(x) = a.as_mut().poll(cx) else {
                        return Poll::Pending;
                    };
                    if let Poll::Ready(y) = early {
                        *this = AddBoth::Done;
                        return Poll::Ready(x + y);
                    }
                    let AddBoth::AwaitingA { b, .. } = mem::replace(this, AddBoth::Done) else {
                        unreachable!("matched just above")
                    };
                    *this = AddBoth::AwaitingB { x, b };
                }
                AddBoth::AwaitingB { x, b } => {
                    let Poll::Ready(y) = b.as_mut().poll(cx) else {
                        return Poll::Pending;
                    };
                    let sum = *x + y;
                    *this = AddBoth::Done;
                    return Poll::Ready(sum);
                }
                AddBoth::Done => panic!("AddBoth polled after completion"),
            }
        }
    }
}
