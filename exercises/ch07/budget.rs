//! Exercise ch07_budget: a leaf future that spends the cooperative budget.
//!
//! The runtime gives each task poll a budget of operations, kept in a
//! thread-local (Chapter 7, "The budget: preemption by consent"). Here the
//! thread-local and the function that sets it for one poll are written for
//! you ([`with_budget`], [`budget_left`]). `None` means unconstrained (no
//! task poll is in progress).
//!
//! Write [`Budgeted`], a wrapper that makes any future spend the budget:
//!
//! * If the budget is `Some(0)`: do not poll the inner future; wake the
//!   task (`cx.waker().wake_by_ref()`, so it will be polled again later) and
//!   return `Pending`. The task gives the worker back.
//! * Otherwise spend one unit (if constrained), then poll the inner future.
//!   If the inner future returns `Pending`, it made no progress: give the
//!   unit back. If it returns `Ready`, the unit stays spent.
//! * Unconstrained (`None`): just poll the inner future.
//!
//! Check: `cargo run -p exercises -- check ch07_budget`. Hint:
//! `cargo run -p exercises -- hint ch07_budget`.

use std::cell::Cell;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

thread_local! {
    static BUDGET: Cell<Option<u32>> = const { Cell::new(None) };
}

/// Runs `f` (one task poll) with `units` of budget, restoring the previous
/// budget afterwards. Written for you.
pub fn with_budget<R>(units: u32, f: impl FnOnce() -> R) -> R {
    let previous = BUDGET.with(|b| b.replace(Some(units)));
    let result = f();
    BUDGET.with(|b| b.set(previous));
    result
}

/// The budget left, `None` when unconstrained. Written for you.
pub fn budget_left() -> Option<u32> {
    BUDGET.with(Cell::get)
}

/// Sets the budget left. Written for you.
pub fn set_budget(units: Option<u32>) {
    BUDGET.with(|b| b.set(units));
}

/// A future that spends one unit of budget per poll that makes progress.
pub struct Budgeted<F> {
    /// The wrapped future.
    pub inner: F,
}

impl<F: Future + Unpin> Future for Budgeted<F> {
    type Output = F::Output;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        todo!("Some(0): wake and Pending; else spend, poll inner, give back on Pending")
    }
}
