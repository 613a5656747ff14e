//! `yield_now`: let the worker run the other tasks, then come back.
//!
//! The future returns `Pending` once, leaving its waker in the worker's defer
//! list instead of waking at once. The worker wakes deferred tasks only when
//! it has nothing else to run, or at its next maintenance tick (every
//! `event_interval` ticks), so yielding is the lowest priority there is: a
//! loop of yielding tasks lets new tasks, stolen tasks and tasks from the
//! inject queue run first, in batches. (Tokio defers `yield_now` the same
//! way; waking at once would put the task straight back at the end of the
//! local queue, and a worker whose queue is never empty would take the
//! inject queue's tasks one at a time, every `global_queue_interval` ticks.)
//!
//! In the `block_on` of a multi-thread runtime there is no defer list, and
//! the waker is woken at once; the current-thread runtime's `block_on` has
//! its own (`core/scheduler/current_thread/mod.rs`), woken after the inject
//! queue's tasks have moved behind the core's queue.
//!
//! Book: Chapter 7, "The LIFO slot".

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

/// Yields once to the scheduler; the task is polled again after the tasks
/// already queued on this worker.
pub async fn yield_now() {
    YieldNow { yielded: false }.await
}

struct YieldNow {
    yielded: bool,
}

impl Future for YieldNow {
    type Output = ();

    // ANCHOR: yield_poll
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.yielded {
            return Poll::Ready(());
        }
        self.yielded = true;
        crate::scheduler::defer(cx.waker());
        Poll::Pending
    }
    // ANCHOR_END: yield_poll
}
