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
//! spend budget explicitly with [`consume_budget`].
//!
//! Public as `rt::task::coop`, with Tokio's names: [`consume_budget`],
//! [`unconstrained`], [`cooperative`], [`poll_proceed`] and
//! [`has_budget_remaining`].
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

/// True unless the current task's budget is spent (always true outside a
/// task, or inside [`unconstrained`]). A hint for code that polls many
/// things in a loop: when it is false, the next budgeted operation will
/// return `Pending`.
pub fn has_budget_remaining() -> bool {
    CURRENT.with(|current| current.get() != Some(0))
}

/// Ready if the task has budget left; otherwise defers the task's wake-up
/// and returns `Pending`. Spends nothing: `select!` checks it before
/// polling its branches, as Tokio's does, since with the budget spent the
/// branches that spend it would refuse anyway and the others would run on
/// unchecked.
pub(crate) fn poll_budget_available(cx: &mut Context<'_>) -> Poll<()> {
    if has_budget_remaining() {
        Poll::Ready(())
    } else {
        crate::scheduler::defer(cx.waker());
        Poll::Pending
    }
}

/// True if the budget ran out since the last call with a fresh budget; the
/// worker counts these as forced yields.
pub(crate) fn is_exhausted() -> bool {
    !has_budget_remaining()
}

/// The unit [`poll_proceed`] spent: given back when dropped, unless the
/// operation said it made progress.
#[must_use = "dropping the guard gives the unit back; call made_progress() on success"]
pub struct RestoreOnPending(Cell<Option<u8>>);

impl RestoreOnPending {
    /// The operation completed: keep the unit spent.
    pub fn made_progress(&self) {
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
/// none are left, defers the task's wake-up and returns `Pending`. A future
/// of one's own may call it as the runtime's do: on `Ready(guard)`, do the
/// work, and call `guard.made_progress()` if it completed; dropping the
/// guard without that gives the unit back.
// ANCHOR: poll_proceed
pub fn poll_proceed(cx: &mut Context<'_>) -> Poll<RestoreOnPending> {
    CURRENT.with(|current| match current.get() {
        None => Poll::Ready(RestoreOnPending(Cell::new(None))),
        Some(0) => {
            crate::scheduler::defer(cx.waker());
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

/// Opts `inner` out of the budget: while it is polled, no operation inside
/// it is ever refused for lack of budget. A future that is always ready
/// then never yields, and starves the other tasks of its worker: use it for
/// a future that must not be interrupted, and keep it short.
pub fn unconstrained<F: Future>(inner: F) -> Unconstrained<F> {
    Unconstrained {
        inner: Box::pin(inner),
    }
}

/// The future of [`unconstrained`].
#[must_use = "futures do nothing unless you `.await` or poll them"]
pub struct Unconstrained<F> {
    // Boxed, so that it is pinned without `unsafe` projection.
    inner: Pin<Box<F>>,
}

impl<F: Future> Future for Unconstrained<F> {
    type Output = F::Output;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        with_budget(None, || self.inner.as_mut().poll(cx))
    }
}

impl<F> std::fmt::Debug for Unconstrained<F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Unconstrained").finish_non_exhaustive()
    }
}

/// Makes `fut` take part in the budget: each poll spends one unit first
/// (and returns `Pending`, deferring the wake-up, if none is left), and
/// gives it back unless `fut` completed. For a future of one's own that
/// does work without touching any of the runtime's budgeted operations.
pub fn cooperative<F: Future>(fut: F) -> Coop<F> {
    Coop { fut: Box::pin(fut) }
}

/// The future of [`cooperative`].
#[must_use = "futures do nothing unless you `.await` or poll them"]
pub struct Coop<F: Future> {
    fut: Pin<Box<F>>,
}

impl<F: Future> Future for Coop<F> {
    type Output = F::Output;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        let guard = std::task::ready!(poll_proceed(cx));
        let output = std::task::ready!(self.fut.as_mut().poll(cx));
        guard.made_progress();
        Poll::Ready(output)
    }
}

impl<F: Future> std::fmt::Debug for Coop<F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Coop").finish_non_exhaustive()
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
    fn unconstrained_lifts_the_budget_and_cooperative_spends_it() {
        let mut cx = Context::from_waker(Waker::noop());
        with_budget(Some(0), || {
            assert!(!has_budget_remaining());
            let mut free = unconstrained(async {
                assert!(has_budget_remaining());
                7
            });
            assert_eq!(Pin::new(&mut free).poll(&mut cx), Poll::Ready(7));
            // The spent budget is back once the unconstrained poll is over.
            assert!(!has_budget_remaining());
            let mut coop = cooperative(std::future::ready(8));
            assert!(Pin::new(&mut coop).poll(&mut cx).is_pending());
        });
        with_budget(Some(2), || {
            let mut pending = cooperative(std::future::pending::<()>());
            assert!(Pin::new(&mut pending).poll(&mut cx).is_pending());
            // Pending gave the unit back; a completed future keeps it spent.
            assert_eq!(CURRENT.with(Cell::get), Some(2));
            let mut coop = cooperative(std::future::ready(8));
            assert_eq!(Pin::new(&mut coop).poll(&mut cx), Poll::Ready(8));
            assert_eq!(CURRENT.with(Cell::get), Some(1));
        });
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
