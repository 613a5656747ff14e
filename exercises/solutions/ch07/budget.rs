//! Reference solution for ch07_budget.

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
        let before = budget_left();
        match before {
            Some(0) => {
                cx.waker().wake_by_ref();
                return Poll::Pending;
            }
            Some(units) => set_budget(Some(units - 1)),
            None => {}
        }
        let result = Pin::new(&mut self.inner).poll(cx);
        if result.is_pending() {
            set_budget(before);
        }
        result
    }
}
