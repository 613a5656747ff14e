//! Near miss of ch06_state_machine: when `a` finishes, the machine moves to
//! `AwaitingB` and returns `Pending` without polling `b`, counting on being
//! polled again; the tests must catch it because nothing has arranged a
//! wake-up (an `async fn` goes straight on to `b.await` in the same poll).

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
                AddBoth::AwaitingA { a, .. } => {
                    let Poll::Ready(x) = a.as_mut().poll(cx) else {
                        return Poll::Pending;
                    };
                    let AddBoth::AwaitingA { b, .. } = mem::replace(this, AddBoth::Done) else {
                        unreachable!("matched just above")
                    };
                    *this = AddBoth::AwaitingB { x, b };
                    // MISTAKE: "we'll be polled again".
                    return Poll::Pending;
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
