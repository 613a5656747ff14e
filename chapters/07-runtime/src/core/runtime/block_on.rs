//! Running one future to completion on the calling thread, by parking it.
//!
//! `Runtime::block_on` of the multi-thread runtime polls the given future
//! on the thread that called it (not on a worker), and between polls parks
//! that thread on a parker of its own; the future's waker unparks it. Tasks
//! the future spawns go to the runtime's workers through the inject queue.
//! This is how Tokio's multi-threaded runtime does it too, and it is why
//! `block_on`'s future should do little work itself: it is not on a worker,
//! so it is neither stolen from nor helped.
//!
//! The current-thread runtime has no workers: its `block_on` drives the
//! runtime itself (`scheduler/current_thread/`), and uses this plain one
//! only while another thread holds its core.
//!
//! Book: Chapter 7, "Many workers, one runtime".

use crate::scheduler::park::{Parker, Unparker};
use std::future::Future;
use std::pin::pin;
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};

struct ThreadWaker(Unparker);

impl Wake for ThreadWaker {
    fn wake(self: Arc<Self>) {
        self.0.unpark();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.0.unpark();
    }
}

thread_local! {
    /// One parker per thread, reused by every block_on on it.
    static PARKER: (Parker, Waker) = {
        let parker = Parker::new();
        let waker = Waker::from(Arc::new(ThreadWaker(parker.unparker())));
        (parker, waker)
    };
}

/// Polls `future` on this thread until it completes, parking in between.
// ANCHOR: block_on
pub(crate) fn block_on<F: Future>(future: F) -> F::Output {
    let mut future = pin!(future);
    let mut poll_until_ready = |parker: &Parker, waker: &Waker| {
        let mut cx = Context::from_waker(waker);
        loop {
            // The block_on future has a budget too; spent, its leaves wake
            // it at once (there is no worker defer list on this thread).
            let poll = crate::task::coop::with_budget(Some(crate::task::coop::BUDGET), || {
                future.as_mut().poll(&mut cx)
            });
            if let Poll::Ready(output) = poll {
                return output;
            }
            parker.park();
        }
    };
    PARKER
        .try_with(|(parker, waker)| poll_until_ready(parker, waker))
        .unwrap_or_else(|_| {
            // The thread is exiting and its thread-locals are gone (a
            // runtime kept in a thread-local is dropped with it): park on
            // a parker made for this call.
            let parker = Parker::new();
            let waker = Waker::from(Arc::new(ThreadWaker(parker.unparker())));
            poll_until_ready(&parker, &waker)
        })
}
// ANCHOR_END: block_on
