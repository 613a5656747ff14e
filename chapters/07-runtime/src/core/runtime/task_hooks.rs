//! Task hooks: a callback when a task is spawned, before and after each of
//! its polls, and when it terminates, with Tokio's names and semantics
//! (Tokio has them behind `--cfg tokio_unstable`; ours are always there).
//!
//! They are what a tracer, a profiler or a metrics exporter needs to follow
//! each task without the runtime knowing about any of them: the book's
//! timeline (`chapter-07 trace`) is built on the two poll hooks alone.
//!
//! Which tasks they see, as in Tokio 1.54:
//!
//! * tasks spawned onto the runtime (`spawn`, `Handle::spawn`, a
//!   `JoinSet`), on both flavours: all four hooks;
//! * `spawn_blocking` jobs: the terminate hook only (they are not spawned
//!   as futures, and never polled by a worker);
//! * the future given to `block_on`, and the tasks of a `LocalSet`: none.
//!   (Tokio's `LocalRuntime` reports its `spawn_local` tasks; ours runs
//!   them in a `LocalSet`, so it does not.)
//!
//! What an unset hook costs: the two poll hooks sit together behind one
//! `Option`, so a poll pays one branch when neither is set; spawn and
//! termination pay one branch each.
//!
//! Book: Chapter 7, "Seeing inside".

use crate::task::Id;
use std::fmt;
use std::marker::PhantomData;
use std::panic::Location;
use std::sync::Arc;

/// What the task hooks are given: which task, and where it was spawned
/// (Tokio's `runtime::TaskMeta`).
pub struct TaskMeta<'a> {
    id: Id,
    spawned_at: &'static Location<'static>,
    /// Borrowed for the call only, as Tokio's is, so that it may one day
    /// point into the task.
    _call: PhantomData<&'a ()>,
}

impl TaskMeta<'_> {
    pub(crate) fn new(id: u64, spawned_at: &'static Location<'static>) -> TaskMeta<'static> {
        TaskMeta {
            id: Id(id),
            spawned_at,
            _call: PhantomData,
        }
    }

    /// The task's id, the one [`JoinHandle::id`](crate::task::JoinHandle::id)
    /// and [`task::id`](crate::task::id) give.
    pub fn id(&self) -> Id {
        self.id
    }

    /// The line that spawned the task (for `spawn_blocking` jobs, the line
    /// that called `spawn_blocking`).
    pub fn spawned_at(&self) -> &'static Location<'static> {
        self.spawned_at
    }
}

impl fmt::Debug for TaskMeta<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TaskMeta")
            .field("id", &self.id)
            .field("spawned_at", &self.spawned_at)
            .finish()
    }
}

/// One task hook, as the builder stores it.
pub(crate) type TaskCallback = Arc<dyn Fn(&TaskMeta<'_>) + Send + Sync + 'static>;

/// The task hooks of one runtime, fixed when it is built.
#[derive(Clone, Default)]
pub(crate) struct TaskHooks {
    /// `on_task_spawn`.
    pub(crate) spawn: Option<TaskCallback>,
    /// `on_task_terminate`.
    pub(crate) terminate: Option<TaskCallback>,
    /// `on_before_task_poll` and `on_after_task_poll`, or `None` when
    /// neither is set: the scheduler's one branch per poll.
    pub(crate) poll: Option<PollHooks>,
}

/// The two poll hooks, at least one of them set.
#[derive(Clone)]
pub(crate) struct PollHooks {
    before: Option<TaskCallback>,
    after: Option<TaskCallback>,
}

impl TaskHooks {
    /// The hooks for a runtime, from the builder's four slots.
    pub(crate) fn new(
        spawn: Option<TaskCallback>,
        before_poll: Option<TaskCallback>,
        after_poll: Option<TaskCallback>,
        terminate: Option<TaskCallback>,
    ) -> TaskHooks {
        let poll = (before_poll.is_some() || after_poll.is_some()).then_some(PollHooks {
            before: before_poll,
            after: after_poll,
        });
        TaskHooks {
            spawn,
            terminate,
            poll,
        }
    }

    /// A task was just made and is about to be queued: runs the spawn hook
    /// on the spawning thread, before any worker can poll the task.
    pub(crate) fn spawned(&self, id: u64, location: &'static Location<'static>) {
        if let Some(spawn) = &self.spawn {
            spawn(&TaskMeta::new(id, location));
        }
    }
}

impl PollHooks {
    /// Runs `poll` (one poll of the task `id`) between the two hooks, on
    /// this thread. Out of line: the scheduler's hot path is the branch
    /// that does not come here.
    #[inline(never)]
    pub(crate) fn around(
        &self,
        id: u64,
        location: &'static Location<'static>,
        poll: impl FnOnce(),
    ) {
        let meta = TaskMeta::new(id, location);
        if let Some(before) = &self.before {
            before(&meta);
        }
        poll();
        if let Some(after) = &self.after {
            after(&meta);
        }
    }
}

impl fmt::Debug for TaskHooks {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let poll = self.poll.as_ref();
        f.debug_struct("TaskHooks")
            .field("spawn", &self.spawn.is_some())
            .field("before_poll", &poll.is_some_and(|p| p.before.is_some()))
            .field("after_poll", &poll.is_some_and(|p| p.after.is_some()))
            .field("terminate", &self.terminate.is_some())
            .finish()
    }
}
