//! `JoinHandle<T>`: the spawner's side of a task, a future of the task's
//! output.
//!
//! Awaiting it parks the awaiting task's waker in the task's trailer, handed
//! over with the JOIN_WAKER bit (see `state.rs`) so that the completing worker
//! and the awaiting task never touch the slot at the same time. Dropping it
//! detaches the task: the task keeps running, and its output is dropped by
//! whoever finishes last. `abort()` asks the runtime to drop the future at
//! its next `.await` point (never in the middle of a poll).
//!
//! Book: Chapter 7, "A task is one allocation and one word".

use super::error::JoinError;
use super::harness::RawTask;
use std::fmt;
use std::future::Future;
use std::marker::PhantomData;
use std::pin::Pin;
use std::task::{Context, Poll};

/// An owned permission to await a spawned task's output (or its
/// [`JoinError`]).
pub struct JoinHandle<T> {
    raw: RawTask,
    /// The output has been returned (for `FusedFuture::is_terminated`).
    terminated: bool,
    _output: PhantomData<T>,
}

// SAFETY: the handle only moves the output from the task to its owner, so it
// is Send when the output is; the task itself is shared through atomics.
unsafe impl<T: Send> Send for JoinHandle<T> {}
// SAFETY: `&JoinHandle` only allows abort() and is_finished(), which touch
// the state word atomically and never the output.
unsafe impl<T: Send> Sync for JoinHandle<T> {}

impl<T> Unpin for JoinHandle<T> {}

// A panic caught while a handle was borrowed or moved leaves nothing half
// done: the output lives in the task, behind its state word (as Tokio's).
impl<T> std::panic::UnwindSafe for JoinHandle<T> {}
impl<T> std::panic::RefUnwindSafe for JoinHandle<T> {}

impl<T> JoinHandle<T> {
    /// Wraps the JoinHandle's reference.
    pub(crate) fn new(raw: RawTask) -> JoinHandle<T> {
        JoinHandle {
            raw,
            terminated: false,
            _output: PhantomData,
        }
    }

    /// Cancels the task: its future is dropped at the next opportunity (now,
    /// if it is waiting; after the current poll, if it is running), and
    /// awaiting this handle returns a cancelled [`JoinError`]. A task that
    /// already finished keeps its output.
    pub fn abort(&self) {
        self.raw.remote_abort();
    }

    /// True once the task has finished, normally, by panic or by abort.
    pub fn is_finished(&self) -> bool {
        self.raw.header().state.load().is_complete()
    }

    /// The task's id, unique among the live tasks of every runtime.
    pub fn id(&self) -> super::Id {
        super::Id(self.raw.header().id)
    }

    /// A handle that can cancel the task, for whoever must be able to stop
    /// it without awaiting it.
    pub fn abort_handle(&self) -> super::AbortHandle {
        super::AbortHandle::new(self.raw)
    }
}

impl<T> Future for JoinHandle<T> {
    type Output = Result<T, JoinError>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let budget = std::task::ready!(super::coop::poll_proceed(cx));
        let mut output: Poll<Result<T, JoinError>> = Poll::Pending;
        // SAFETY: `output` has the type the task's vtable writes (this handle
        // was made for a task whose output is T), and we are its JoinHandle.
        unsafe {
            self.raw.try_read_output(
                &mut output as *mut Poll<Result<T, JoinError>> as *mut (),
                cx.waker(),
            );
        }
        if output.is_ready() {
            budget.made_progress();
            self.as_mut().get_mut().terminated = true;
        }
        // The harness stored the error without knowing whose it was.
        let id = self.id();
        output.map(|result| result.map_err(|error| error.with_id(id)))
    }
}

/// Once a handle has returned the task's output it must not be polled
/// again; `futures::select!` asks this before polling.
impl<T> futures::future::FusedFuture for JoinHandle<T> {
    fn is_terminated(&self) -> bool {
        self.terminated
    }
}

impl<T> Drop for JoinHandle<T> {
    fn drop(&mut self) {
        self.raw.drop_join_handle();
    }
}

impl<T> fmt::Debug for JoinHandle<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("JoinHandle")
            .field("id", &self.id())
            .field("state", &self.raw.header().state)
            .finish()
    }
}
