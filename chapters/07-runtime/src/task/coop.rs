//! The cooperative budget: how a runtime that cannot preempt a task still
//! keeps one task from hogging its worker.
//!
//! A future runs until it returns `Pending`. A task reading from a socket
//! that is always ready (a fast peer, a big file) never gets `Pending` from
//! the socket, so it never returns, and every other task on its worker
//! waits: Chapter 6's starvation, with no CPU-bound code anywhere.
//!
//! The runtime gives each task poll a budget of 128 units, kept in a
//! thread-local. Every *leaf* operation that could have waited (an I/O
//! readiness check, a JoinHandle, a timer, a channel receive) spends one.
//! When the budget is spent, the leaf returns `Pending` even though it
//! could proceed, and defers its waker: the task is woken again *after* the
//! worker has run everything else it had queued and polled the I/O driver
//! (the worker's defer list, see `scheduler/worker.rs`). Nothing in the
//! task's code changes; `.await` points are where it yields.
//!
//! An operation that ends up `Pending` anyway (nothing to read) gives its
//! unit back: only progress is charged. CPU loops with no leaf `.await` can
//! spend budget explicitly with [`consume_budget`](crate::task::consume_budget).
//!
//! Book: Chapter 7, "The budget: preemption by consent".

use std::cell::Cell;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

/// Units per task poll (Tokio uses the same figure).
pub(crate) const BUDGET: u8 = 128;

thread_local! {
    /// `None`: unconstrained (outside a task, or the budget is switched off).
    static CURRENT: Cell<Option<u8>> = const { Cell::new(None) };
}

/// Runs `f` (a task poll) with a fresh budget, or unconstrained if `budget`
/// is `None`; the previous budget is restored afterwards.
pub(crate) fn with_budget<R>(budget: Option<u8>, f: impl FnOnce() -> R) -> R {
    struct Restore(Option<u8>);
    impl Drop for Restore {
        fn drop(&mut self) {
            CURRENT.with(|current| current.set(self.0));
        }
    }
    let _restore = Restore(CURRENT.with(|current| current.replace(budget)));
    f()
}

/// True unless the current budget is spent.
pub(crate) fn has_budget_remaining() -> bool {
    CURRENT.with(|current| current.get() != Some(0))
}

/// True if the budget ran out since the last call with a fresh budget; the
/// worker counts these as forced yields.
pub(crate) fn is_exhausted() -> bool {
    !has_budget_remaining()
}

/// Gives a unit back unless told the operation made progress.
#[must_use = "dropping the guard gives the unit back; call made_progress() on success"]
pub(crate) struct RestoreOnPending(Cell<Option<u8>>);

impl RestoreOnPending {
    /// The operation completed: keep the unit spent.
    pub(crate) fn made_progress(&self) {
        self.0.set(None);
    }
}

impl Drop for RestoreOnPending {
    fn drop(&mut self) {
        if let Some(previous) = self.0.get() {
            CURRENT.with(|current| current.set(Some(previous)));
        }
    }
}

/// Called by a leaf future before it does its work: spends one unit, or, if
/// none are left, defers the task's wake-up and returns `Pending`.
// ANCHOR: poll_proceed
pub(crate) fn poll_proceed(cx: &mut Context<'_>) -> Poll<RestoreOnPending> {
    CURRENT.with(|current| match current.get() {
        None => Poll::Ready(RestoreOnPending(Cell::new(None))),
        Some(0) => {
            crate::scheduler::worker::defer(cx.waker());
            Poll::Pending
        }
        Some(left) => {
            current.set(Some(left - 1));
            Poll::Ready(RestoreOnPending(Cell::new(Some(left))))
        }
    })
}
// ANCHOR_END: poll_proceed

/// Spends one unit of the task's budget, yielding to the worker if it is
/// spent. For CPU-bound loops that have no other `.await`:
///
/// ```
/// # let rt = rt::Runtime::new().unwrap();
/// # rt.block_on(async {
/// let mut sum = 0u64;
/// for i in 0..1_000_000u64 {
///     sum += i;
///     rt::task::consume_budget().await;
/// }
/// # });
/// ```
pub async fn consume_budget() {
    ConsumeBudget.await
}

struct ConsumeBudget;

impl Future for ConsumeBudget {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        match poll_proceed(cx) {
            Poll::Ready(guard) => {
                guard.made_progress();
                Poll::Ready(())
            }
            Poll::Pending => Poll::Pending,
        }
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use std::task::Waker;

    #[test]
    fn a_task_poll_has_128_units_then_pending() {
        let mut cx = Context::from_waker(Waker::noop());
        with_budget(Some(BUDGET), || {
            for _ in 0..BUDGET {
                let Poll::Ready(guard) = poll_proceed(&mut cx) else {
                    panic!("ran out early");
                };
                guard.made_progress();
            }
            assert!(poll_proceed(&mut cx).is_pending());
            assert!(is_exhausted());
        });
        // Outside a task: unconstrained.
        assert!(poll_proceed(&mut cx).is_ready());
    }

    #[test]
    fn an_operation_without_progress_gives_its_unit_back() {
        let mut cx = Context::from_waker(Waker::noop());
        with_budget(Some(1), || {
            let Poll::Ready(guard) = poll_proceed(&mut cx) else {
                panic!("had a unit");
            };
            drop(guard);
            assert!(has_budget_remaining());
        });
    }
}
