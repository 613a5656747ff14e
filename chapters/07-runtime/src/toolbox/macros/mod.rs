//! What `join!`, `try_join!` and `select!` expand to needs a few pieces of
//! runtime support; they live here, public (a macro expands in the
//! caller's crate, which must reach them) but hidden from the docs, as
//! Tokio keeps `tokio::macros::support`.
//!
//! * [`join`](crate::join!) and [`try_join`](crate::try_join!) (`join.rs`):
//!   every future to completion, on the current task, rotating which one is
//!   polled first;
//! * [`select`](crate::select!) (`select.rs`): the first future whose
//!   output matches its pattern, the others dropped; it looks at the
//!   task's budget first ([`poll_budget_available`]);
//! * [`pin`](crate::pin!) (`pin.rs`): pins futures to the stack, as
//!   `select!` loops want (`&mut fut` in a branch needs `Unpin`);
//! * [`MaybeDone`] (`maybe_done.rs`): a future, then its output, then
//!   nothing;
//! * [`random_below`] (`rng.rs`): where an unbiased `select!` starts.
//!
//! The attribute macros `#[rt::main]` and `#[rt::test]` are procedural,
//! so they live in their own crate, `rt-macros`.
//!
//! Book: Chapter 8, "Writing programs".

mod join;
mod maybe_done;
mod pin;
mod rng;
mod select;

pub use maybe_done::MaybeDone;
pub use rng::random_below;
pub use rt_macros::select_clean_pattern;
pub use std::future::poll_fn;

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

/// `select!`'s look at the task's budget before it polls its branches:
/// `Pending` (and a deferred wake-up) if it is spent. See `task/coop.rs`.
pub fn poll_budget_available(cx: &mut Context<'_>) -> Poll<()> {
    crate::task::coop::poll_budget_available(cx)
}

/// An empty slot for `future`'s output: `select!` needs one per branch, of
/// a type it cannot name (the output of an `async fn`), so it asks the
/// compiler to infer it from the future.
pub fn empty_output<F: Future>(_future: &Pin<&mut F>) -> Option<F::Output> {
    None
}
