//! [`AbortHandle`]: the right to cancel a task, without its output.
//!
//! A `JoinHandle` is two things at once: the way to the task's output, and
//! the way to cancel it. A `JoinSet`, or a supervisor that keeps a list of
//! what to stop at shutdown, needs only the second, and may need it many
//! times over. An `AbortHandle` is one more reference to the task (the
//! reference count in the state word, as a waker holds one); dropping it
//! neither detaches nor cancels anything.
//!
//! Book: Chapter 8, "Task handles: JoinSet, abort, ids and task-locals".

use super::Id;
use super::harness::RawTask;
use std::fmt;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// Cancels a task; see [`JoinHandle::abort_handle`](super::JoinHandle::abort_handle).
pub struct AbortHandle {
    repr: AbortTarget,
}

enum AbortTarget {
    /// A task of the runtime: one more reference to it.
    Task(RawTask),
    /// A task of a [`LocalSet`](super::LocalSet), which is not a `RawTask`
    /// (see `local.rs`): its `Abortable`'s handle and its finished flag.
    Local {
        abort: futures::future::AbortHandle,
        finished: Arc<AtomicBool>,
        id: Id,
    },
}

// SAFETY: for a runtime task, an AbortHandle only touches the task's state
// word (atomically) and its header, never the future or the output; a local
// task's parts are `Send` and `Sync` themselves.
unsafe impl Send for AbortHandle {}
// SAFETY: as above; every method takes `&self` and is atomic.
unsafe impl Sync for AbortHandle {}

impl AbortHandle {
    /// Takes one more reference to the task.
    pub(crate) fn new(raw: RawTask) -> AbortHandle {
        raw.ref_inc();
        AbortHandle {
            repr: AbortTarget::Task(raw),
        }
    }

    /// The handle of a local task.
    pub(crate) fn local(
        abort: futures::future::AbortHandle,
        finished: Arc<AtomicBool>,
        id: Id,
    ) -> AbortHandle {
        AbortHandle {
            repr: AbortTarget::Local {
                abort,
                finished,
                id,
            },
        }
    }

    /// Cancels the task, as [`JoinHandle::abort`](super::JoinHandle::abort).
    pub fn abort(&self) {
        match &self.repr {
            AbortTarget::Task(raw) => raw.remote_abort(),
            AbortTarget::Local { abort, .. } => abort.abort(),
        }
    }

    /// True once the task has finished, normally, by panic or by abort.
    pub fn is_finished(&self) -> bool {
        match &self.repr {
            AbortTarget::Task(raw) => raw.header().state.load().is_complete(),
            AbortTarget::Local { finished, .. } => finished.load(Ordering::Acquire),
        }
    }

    /// The task's id.
    pub fn id(&self) -> Id {
        match &self.repr {
            AbortTarget::Task(raw) => Id(raw.header().id),
            AbortTarget::Local { id, .. } => *id,
        }
    }
}

// Every method is one atomic step on the task's state (as Tokio's).
impl std::panic::UnwindSafe for AbortHandle {}
impl std::panic::RefUnwindSafe for AbortHandle {}

impl Clone for AbortHandle {
    /// Another handle to the same task (one more reference to it).
    fn clone(&self) -> AbortHandle {
        match &self.repr {
            AbortTarget::Task(raw) => AbortHandle::new(*raw),
            AbortTarget::Local {
                abort,
                finished,
                id,
            } => AbortHandle::local(abort.clone(), finished.clone(), *id),
        }
    }
}

impl Drop for AbortHandle {
    fn drop(&mut self) {
        if let AbortTarget::Task(raw) = self.repr {
            raw.drop_reference();
        }
    }
}

impl fmt::Debug for AbortHandle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AbortHandle")
            .field("id", &self.id())
            .finish()
    }
}
