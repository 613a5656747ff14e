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
//! A task of a `LocalSet` is not a task cell (see `local.rs`); its handle is
//! the same type, as in Tokio, with the set's channel and abort handle
//! inside.
//!
//! Book: Chapter 7, "A task is one allocation and one word".

use super::error::JoinError;
use super::harness::RawTask;
use super::local::LocalJoinHandle;
use std::fmt;
use std::future::Future;
use std::marker::PhantomData;
use std::pin::Pin;
use std::task::{Context, Poll};

/// An owned permission to await a spawned task's output (or its
/// [`JoinError`]).
pub struct JoinHandle<T> {
    target: JoinTarget<T>,
    _output: PhantomData<T>,
}

/// What the handle waits on.
enum JoinTarget<T> {
    /// A task of the runtime: one reference to its cell, and whether the
    /// output has been returned (for `FusedFuture::is_terminated`).
    Task { raw: RawTask, terminated: bool },
    /// A task of a [`LocalSet`](super::LocalSet), which is not a `RawTask`
    /// (see `local.rs`): its output channel and abort handle, boxed, so
    /// that a handle of either kind is two words, the tag kept in the
    /// spare values of `terminated`.
    Local(Box<LocalJoin<T>>),
}

/// A local task's handle and whether it has returned the output.
struct LocalJoin<T> {
    handle: LocalJoinHandle<T>,
    terminated: bool,
}

// SAFETY: the handle only moves the output from the task to its owner, so it
// is Send when the output is; a runtime task is shared through atomics, and
// a local task's parts (a channel receiver of the output, an abort handle,
// an atomic flag) are Send when the output is.
unsafe impl<T: Send> Send for JoinHandle<T> {}
// SAFETY: `&JoinHandle` only allows abort(), is_finished(), id() and
// abort_handle(), which touch the state word atomically (or the local
// task's atomic parts) and never the output.
unsafe impl<T: Send> Sync for JoinHandle<T> {}

impl<T> Unpin for JoinHandle<T> {}

// A panic caught while a handle was borrowed or moved leaves nothing half
// done: the output lives in the task, behind its state word (as Tokio's).
impl<T> std::panic::UnwindSafe for JoinHandle<T> {}
impl<T> std::panic::RefUnwindSafe for JoinHandle<T> {}

impl<T> JoinHandle<T> {
    /// Wraps the JoinHandle's reference.
    pub(crate) fn new(raw: RawTask) -> JoinHandle<T> {
        JoinHandle::with_target(JoinTarget::Task {
            raw,
            terminated: false,
        })
    }

    /// The handle of a task spawned on a `LocalSet`.
    pub(crate) fn local(handle: LocalJoinHandle<T>) -> JoinHandle<T> {
        JoinHandle::with_target(JoinTarget::Local(Box::new(LocalJoin {
            handle,
            terminated: false,
        })))
    }

    fn with_target(target: JoinTarget<T>) -> JoinHandle<T> {
        JoinHandle {
            target,
            _output: PhantomData,
        }
    }

    /// Cancels the task: its future is dropped at the next opportunity (now,
    /// if it is waiting; after the current poll, if it is running), and
    /// awaiting this handle returns a cancelled [`JoinError`]. A task that
    /// already finished keeps its output.
    pub fn abort(&self) {
        match &self.target {
            JoinTarget::Task { raw, .. } => raw.remote_abort(),
            JoinTarget::Local(local) => local.handle.abort(),
        }
    }

    /// True once the task has finished, normally, by panic or by abort.
    pub fn is_finished(&self) -> bool {
        match &self.target {
            JoinTarget::Task { raw, .. } => raw.header().state.load().is_complete(),
            JoinTarget::Local(local) => local.handle.is_finished(),
        }
    }

    /// The task's id, unique among the live tasks of every runtime.
    pub fn id(&self) -> super::Id {
        match &self.target {
            JoinTarget::Task { raw, .. } => super::Id(raw.header().id),
            JoinTarget::Local(local) => local.handle.id(),
        }
    }

    /// A handle that can cancel the task, for whoever must be able to stop
    /// it without awaiting it.
    pub fn abort_handle(&self) -> super::AbortHandle {
        match &self.target {
            JoinTarget::Task { raw, .. } => super::AbortHandle::new(*raw),
            JoinTarget::Local(local) => local.handle.abort_handle(),
        }
    }
}

impl<T> Future for JoinHandle<T> {
    type Output = Result<T, JoinError>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let budget = std::task::ready!(super::coop::poll_proceed(cx));
        let (output, terminated) = match &mut self.target {
            JoinTarget::Task { raw, terminated } => {
                let mut output: Poll<Result<T, JoinError>> = Poll::Pending;
                // SAFETY: `output` has the type the task's vtable writes
                // (this handle was made for a task whose output is T), and
                // we are its JoinHandle.
                unsafe {
                    raw.try_read_output(
                        &mut output as *mut Poll<Result<T, JoinError>> as *mut (),
                        cx.waker(),
                    );
                }
                // The harness stored the error without knowing whose it was.
                let id = super::Id(raw.header().id);
                let output = output.map(|result| result.map_err(|error| error.with_id(id)));
                (output, terminated)
            }
            JoinTarget::Local(local) => {
                let output = Pin::new(&mut local.handle).poll(cx);
                (output, &mut local.terminated)
            }
        };
        if output.is_ready() {
            budget.made_progress();
            *terminated = true;
        }
        output
    }
}

/// Once a handle has returned the task's output it must not be polled
/// again; `futures::select!` asks this before polling.
impl<T> futures::future::FusedFuture for JoinHandle<T> {
    fn is_terminated(&self) -> bool {
        match &self.target {
            JoinTarget::Task { terminated, .. } => *terminated,
            JoinTarget::Local(local) => local.terminated,
        }
    }
}

impl<T> Drop for JoinHandle<T> {
    fn drop(&mut self) {
        // A local task's parts detach themselves when dropped.
        if let JoinTarget::Task { raw, .. } = &self.target {
            raw.drop_join_handle();
        }
    }
}

impl<T> fmt::Debug for JoinHandle<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut out = f.debug_struct("JoinHandle");
        out.field("id", &self.id());
        match &self.target {
            JoinTarget::Task { raw, .. } => out.field("state", &raw.header().state),
            JoinTarget::Local(_) => out.field("finished", &self.is_finished()),
        };
        out.finish()
    }
}
