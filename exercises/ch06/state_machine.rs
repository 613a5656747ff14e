//! Exercise ch06_state_machine: do the compiler's job for one `async fn`.
//!
//! ```rust,ignore
//! async fn add_both<A, B>(a: A, b: B) -> u32
//! where A: Future<Output = u32>, B: Future<Output = u32>
//! {
//!     let x = a.await;
//!     let y = b.await;
//!     x + y
//! }
//! ```
//!
//! The compiler turns this into an enum with one variant per place the
//! function can be suspended (plus "not started" folded into the first, and
//! "finished"), each holding what must survive that suspension. Write it:
//! [`AddBoth`] and its `poll`.
//!
//! * `AwaitingA` holds `a` and `b` (b is not started: it must not be polled
//!   before `a` is done, exactly as in the async fn);
//! * `AwaitingB` holds `x` (a's output) and `b`; `a` is gone;
//! * `Done` after returning the sum; polling it again panics with a
//!   message containing "polled after completion" (what the compiler's
//!   state machines do).
//!
//! A step that completes must go straight on to the next in the same poll
//! (the async fn would too): if `b` is ready at once, `AddBoth` is ready on
//! the same poll as `a`'s last.
//!
//! Check: `cargo run -p exercises -- check ch06_state_machine`. Hint:
//! `cargo run -p exercises -- hint ch06_state_machine`.

use std::future::Future;
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
        let _ = (self, cx);
        todo!("a loop over the states")
    }
}
