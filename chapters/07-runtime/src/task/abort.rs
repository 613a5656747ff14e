//! [`AbortHandle`]: the right to cancel a task, without its output.
//!
//! A `JoinHandle` is two things at once: the way to the task's output, and
//! the way to cancel it. A `JoinSet`, or a supervisor that keeps a list of
//! what to stop at shutdown, needs only the second, and may need it many
//! times over. An `AbortHandle` is one more reference to the task (the
//! reference count in the state word, as a waker holds one); dropping it
//! neither detaches nor cancels anything.
//!
//! Book: Chapter 7, "A task is one allocation and one word".

use super::Id;
use super::harness::RawTask;
use std::fmt;

/// Cancels a task; see [`JoinHandle::abort_handle`](super::JoinHandle::abort_handle).
pub struct AbortHandle {
    raw: RawTask,
}

// SAFETY: an AbortHandle only touches the task's state word (atomically) and
// its header, never the future or the output.
unsafe impl Send for AbortHandle {}
// SAFETY: as above; every method takes `&self` and is atomic.
unsafe impl Sync for AbortHandle {}

impl AbortHandle {
    /// Takes one more reference to the task.
    pub(crate) fn new(raw: RawTask) -> AbortHandle {
        raw.ref_inc();
        AbortHandle { raw }
    }

    /// Cancels the task, as [`JoinHandle::abort`](super::JoinHandle::abort).
    pub fn abort(&self) {
        self.raw.remote_abort();
    }

    /// True once the task has finished, normally, by panic or by abort.
    pub fn is_finished(&self) -> bool {
        self.raw.header().state.load().is_complete()
    }

    /// The task's id.
    pub fn id(&self) -> Id {
        Id(self.raw.header().id)
    }
}

impl Drop for AbortHandle {
    fn drop(&mut self) {
        self.raw.drop_reference();
    }
}

impl fmt::Debug for AbortHandle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AbortHandle")
            .field("id", &self.id())
            .finish()
    }
}
