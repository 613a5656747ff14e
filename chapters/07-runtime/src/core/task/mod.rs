//! Tasks: a spawned future, its output, and everything that points to it.
//!
//! * `state`: the atomic state word and its transitions;
//! * `core`: the single allocation (header, future or output, join waker);
//! * `harness`: poll, complete, cancel, the JoinHandle's side, free;
//! * `waker`: wakers that are task pointers;
//! * [`JoinHandle`] and [`JoinError`]: the spawner's side;
//! * `owned`: the runtime's list of live tasks, for shutdown;
//! * [`yield_now`]: give the worker to the other tasks for a moment;
//! * [`Id`], [`AbortHandle`], [`JoinSet`], and task-local storage
//!   ([`task_local!`](crate::task_local));
//! * [`LocalSet`] and [`spawn_local`]: tasks that are not `Send`, run on
//!   the thread that polls the set.
//!
//! Three kinds of pointer own a reference to a task, and the scheduler only
//! ever sees the first two:
//!
//! * `Task`: the owned list's reference;
//! * `Notified`: a task that was woken and must be polled, the only thing
//!   run queues hold; it is consumed by `Notified::run`;
//! * `JoinHandle` and `Waker`s.
//!
//! Book: Chapter 7, "A task is one allocation and one word".

mod abort;
pub mod coop;
mod core;
mod error;
mod harness;
pub(crate) mod id;
mod join;
pub mod join_set;
mod local;
pub(crate) mod owned;
pub(crate) mod state;
mod task_local;
mod waker;
mod yield_now;

pub use abort::AbortHandle;
pub use coop::{Unconstrained, consume_budget, unconstrained};
pub use error::JoinError;
pub use id::{Id, id, try_id};
pub use join::JoinHandle;
pub use join_set::JoinSet;
pub use local::{LocalEnterGuard, LocalSet, RunUntil, spawn_local};
pub use task_local::{AccessError, LocalKey, TaskLocalFuture};

/// Named future types, as in Tokio (`tokio::task::futures`).
pub mod futures {
    pub use super::task_local::TaskLocalFuture;
}
pub use yield_now::yield_now;

pub use crate::blocking::spawn_blocking;

/// Runs `f`, which may block, on the current thread, without stalling the
/// other tasks of a multi-thread runtime: the worker's core (its run queue
/// and LIFO slot) first moves to a new thread, which goes on running them,
/// and this thread leaves the workers once the current task's poll ends.
/// Outside a runtime, or in `block_on` of a multi-thread runtime, it simply
/// runs `f`.
///
/// # Panics
///
/// On the current-thread runtime, where no other thread could take over,
/// and while a [`LocalSet`] runs its tasks or its `run_until` future (in
/// `block_on` of either flavour), whose tasks cannot move to another
/// thread; and on a worker when the OS cannot start the thread that would take over
/// (the worker keeps its tasks).
#[track_caller]
pub fn block_in_place<F: FnOnce() -> R, R>(f: F) -> R {
    crate::scheduler::multi_thread::worker::block_in_place(f)
}

pub use crate::runtime::spawn;

pub(crate) use harness::RawTask;

use self::core::Header;
use std::fmt;
use std::future::Future;

/// What a task needs from the runtime it belongs to.
pub(crate) trait Schedule: Send + Sync + Sized + 'static {
    /// A woken task must be polled: put it on a run queue.
    fn schedule(&self, task: Notified<Self>);

    /// A task woke itself during its poll (`yield_now`): put it where it
    /// lets the other tasks run first.
    fn yield_now(&self, task: Notified<Self>) {
        self.schedule(task);
    }

    /// A task completed: take it out of the owned list, returning the
    /// list's reference (or `None` if shutdown took it already).
    fn release(&self, task: &Task<Self>) -> Option<Task<Self>>;

    /// A task completed, and `task` is the reference of the thread that
    /// completed it. The scheduler may keep it, to take the task out of the
    /// owned list later with others (a multi-thread worker does, in
    /// batches); otherwise it comes back, to be released at once. Whatever
    /// it releases while keeping it is never this task, whose memory holds
    /// `self`.
    fn defer_release(&self, task: Task<Self>) -> Option<Task<Self>> {
        Some(task)
    }

    /// `Builder::on_task_terminate`, run when a task completes; none by
    /// default (a `LocalSet`'s, a test's).
    fn terminate_hook(&self) -> Option<&crate::runtime::task_hooks::TaskCallback> {
        None
    }
}

/// One reference to a task, held by the owned list.
pub(crate) struct Task<S: 'static> {
    raw: RawTask,
    _scheduler: std::marker::PhantomData<S>,
}

/// A task that was woken and must be polled: what run queues hold.
pub(crate) struct Notified<S: 'static>(Task<S>);

// SAFETY: a task is shared between threads only through its atomic state
// word; its future and output were required to be Send at spawn.
unsafe impl<S> Send for Task<S> {}
// SAFETY: as above; `&Task` only reads the header.
unsafe impl<S> Sync for Task<S> {}

/// Creates a task with three references: the owned list's `Task`, the first
/// `Notified`, and the `JoinHandle`.
pub(crate) fn new_task<T, S>(
    future: T,
    scheduler: S,
    id: u64,
    location: &'static std::panic::Location<'static>,
) -> (Task<S>, Notified<S>, JoinHandle<T::Output>)
where
    T: Future + Send + 'static,
    T::Output: Send + 'static,
    S: Schedule,
{
    let raw = RawTask::new(future, scheduler, id, location);
    (
        Task::from_raw(raw),
        Notified(Task::from_raw(raw)),
        JoinHandle::new(raw),
    )
}

impl<S: 'static> Task<S> {
    /// Takes over one reference the caller holds.
    pub(crate) fn from_raw(raw: RawTask) -> Task<S> {
        Task {
            raw,
            _scheduler: std::marker::PhantomData,
        }
    }

    pub(crate) fn raw(&self) -> RawTask {
        self.raw
    }

    pub(crate) fn header(&self) -> &Header {
        self.raw.header()
    }

    /// The task's process-wide id.
    pub(crate) fn id(&self) -> u64 {
        self.header().id
    }

    /// Drops this reference and `listed`, the owned list's reference taken
    /// out with [`Schedule::release`] (if shutdown had not taken it), in
    /// one step; frees the task if they were the last.
    pub(crate) fn release_with(self, listed: Option<Task<S>>) {
        let count = 1 + usize::from(listed.is_some());
        std::mem::forget(listed);
        let raw = self.raw;
        std::mem::forget(self);
        if raw.header().state.transition_to_terminal(count) {
            // SAFETY: those were the last references.
            unsafe { raw.dealloc() }
        }
    }

    /// Runtime shutdown: cancels the task if no worker is polling it, and
    /// gives up this reference.
    pub(crate) fn shutdown(self) {
        let raw = self.raw;
        std::mem::forget(self);
        raw.shutdown();
    }
}

impl<S: 'static> Drop for Task<S> {
    fn drop(&mut self) {
        self.raw.drop_reference();
    }
}

impl<S: 'static> Notified<S> {
    /// The task's process-wide id.
    pub(crate) fn id(&self) -> u64 {
        self.0.id()
    }

    /// Where the task was spawned.
    pub(crate) fn location(&self) -> &'static std::panic::Location<'static> {
        self.0.header().location
    }

    /// Cancels the task instead of running it (a queue that is shutting
    /// down); the Notified's reference is used up.
    pub(crate) fn shutdown(self) {
        let raw = self.0.raw;
        std::mem::forget(self);
        raw.shutdown();
    }

    /// Polls the task (or cancels it, if it was aborted while queued); the
    /// Notified's reference is used up.
    pub(crate) fn run(self) {
        let raw = self.0.raw;
        std::mem::forget(self);
        raw.poll();
    }
}

impl<S: 'static> fmt::Debug for Task<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Task({}, {:?})", self.id(), self.header().state)
    }
}

impl<S: 'static> fmt::Debug for Notified<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Notified({}, {:?})", self.0.id(), self.0.header().state)
    }
}

#[cfg(test)]
pub(crate) mod tests;
