//! The schedulers: which thread polls which task, and when.
//!
//! A runtime runs its tasks with one of two schedulers, chosen when it is
//! built, each in a folder of its own:
//!
//! * `multi_thread/` ([`Builder::new_multi_thread`](crate::runtime::Builder::new_multi_thread)):
//!   one worker thread per CPU, each with a lock-free ring of 256 tasks and
//!   a LIFO slot, stealing half of another's ring when its own runs dry
//!   (`queue.rs`, `idle.rs`, `worker.rs`). The thread in `block_on` runs no
//!   task; it waits for its future.
//! * `current_thread/` ([`Builder::new_current_thread`](crate::runtime::Builder::new_current_thread)):
//!   no thread of its own. The thread in `block_on` holds the runtime's
//!   *core* (its run queue) and runs the tasks, the I/O driver and the
//!   timers itself; a second thread in `block_on` waits, and takes the core
//!   over when the first returns.
//!
//! Both flavours use the rest of this folder: the inject queue every thread
//! can push to (`inject.rs`), sleeping without losing a wake-up (`park.rs`),
//! and what the runtime counts, records and watches (`stats.rs`,
//! `trace.rs`, `watchdog.rs`).
//!
//! This file holds what every runtime has whichever scheduler it runs
//! ([`Resources`]: the driver, the blocking pool, the settings, the task id
//! counter, the counters), [`Scheduler`], a handle on either flavour (what a
//! [`runtime::Handle`](crate::runtime::Handle) and the thread's "current
//! runtime" hold), and [`defer`], which both flavours implement.
//!
//! Book: Chapter 7, "Many workers, one runtime".

pub(crate) mod current_thread;
pub(crate) mod inject;
pub(crate) mod multi_thread;
pub(crate) mod park;
pub(crate) mod stats;
pub(crate) mod trace;
pub(crate) mod watchdog;

pub(crate) use current_thread::CurrentThread;
pub(crate) use multi_thread::MultiThread;

use crate::blocking;
use crate::driver::DriverHandle;
use crate::task::JoinHandle;
use stats::WorkerStats;
use std::future::Future;
use std::panic::Location;
use std::sync::Arc;
use std::task::Waker;

/// Settings fixed when the runtime is built.
#[derive(Clone)]
pub(crate) struct RuntimeConfig {
    /// Every this many ticks, a worker looks at the inject queue before its
    /// own queue, so remote tasks cannot starve behind local ones.
    pub(crate) global_queue_interval: u32,
    /// Every this many ticks (tasks run), the scheduler turns the I/O
    /// driver and the timers without waiting, however busy it is.
    pub(crate) event_interval: u32,
    /// Turns the LIFO slot off (to measure what it is worth).
    pub(crate) disable_lifo_slot: bool,
    /// Turns the cooperative budget off (for the demo that shows why it
    /// exists).
    pub(crate) disable_coop_budget: bool,
    /// Keeps the per-worker counters (on by default).
    pub(crate) metrics: bool,
    /// Times every poll into a histogram (off by default: two clock reads
    /// per poll).
    pub(crate) poll_time_histogram: bool,
    /// Events each worker records for the timeline (0: no trace).
    pub(crate) trace_capacity: usize,
    /// Reports polls longer than this (None: no detector).
    pub(crate) long_poll_threshold: Option<std::time::Duration>,
    /// Where long polls are reported (None: nowhere; they are counted).
    pub(crate) on_long_poll: Option<crate::runtime::LongPollHook>,
    /// The current-thread flavour: no workers; `block_on` runs the tasks.
    pub(crate) current_thread: bool,
    /// The clock starts paused (current-thread only).
    pub(crate) start_paused: bool,
    /// `on_thread_start` / `on_thread_stop`, run by each worker thread.
    pub(crate) thread_hooks: crate::runtime::ThreadHooks,
    /// `on_task_spawn`, the poll hooks and `on_task_terminate`.
    pub(crate) task_hooks: crate::runtime::task_hooks::TaskHooks,
    /// Names threads when set (`Builder::thread_name` or `thread_name_fn`);
    /// otherwise a worker's thread is `rt-worker-N`.
    pub(crate) thread_name_fn: Option<crate::runtime::ThreadNameFn>,
    /// `Handle::id`.
    pub(crate) runtime_id: crate::runtime::Id,
    /// `Builder::name`.
    pub(crate) name: Option<String>,
}

/// What a runtime has whichever scheduler runs its tasks.
pub(crate) struct Resources {
    pub(crate) config: RuntimeConfig,
    /// The I/O driver and the timers.
    pub(crate) driver: Arc<DriverHandle>,
    /// Threads for `spawn_blocking`.
    pub(crate) blocking: blocking::Spawner,
    /// One block of counters per worker (the current-thread flavour counts
    /// its driving thread as one).
    pub(crate) stats: Box<[WorkerStats]>,
    /// The workers' event recorder, if enabled.
    pub(crate) tracer: Option<trace::Tracer>,
}

impl Resources {
    pub(crate) fn new(
        config: RuntimeConfig,
        driver: Arc<DriverHandle>,
        blocking: blocking::Spawner,
        workers: usize,
    ) -> Resources {
        let metrics = config.metrics;
        let tracer =
            (config.trace_capacity > 0).then(|| trace::Tracer::new(workers, config.trace_capacity));
        Resources {
            config,
            driver,
            blocking,
            stats: (0..workers).map(|_| WorkerStats::new(metrics)).collect(),
            tracer,
        }
    }
}

/// A handle on a runtime's scheduler, of either flavour: cheap to clone
/// (one `Arc`), and what every path into the runtime goes through.
#[derive(Clone)]
pub(crate) enum Scheduler {
    CurrentThread(Arc<CurrentThread>),
    MultiThread(Arc<MultiThread>),
}

impl Scheduler {
    /// What this runtime has whichever flavour it is.
    pub(crate) fn resources(&self) -> &Resources {
        match self {
            Scheduler::CurrentThread(scheduler) => &scheduler.resources,
            Scheduler::MultiThread(scheduler) => &scheduler.resources,
        }
    }

    /// The I/O driver and the timers.
    pub(crate) fn driver(&self) -> &Arc<DriverHandle> {
        &self.resources().driver
    }

    /// Worker threads (the current-thread flavour counts its one driving
    /// thread).
    pub(crate) fn num_workers(&self) -> usize {
        self.resources().stats.len()
    }

    /// Spawns a task onto this runtime.
    pub(crate) fn spawn<F>(
        &self,
        future: F,
        location: &'static Location<'static>,
    ) -> JoinHandle<F::Output>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        let id = crate::task::id::next();
        // Before the task is queued, so before any worker can poll it.
        self.resources().config.task_hooks.spawned(id, location);
        match self {
            Scheduler::CurrentThread(s) => s.owned.spawn(future, s, id, location),
            Scheduler::MultiThread(s) => s.owned.spawn(future, s, id, location),
        }
    }

    /// Runs `f` on the blocking pool, with this runtime current on the
    /// pool's thread while it runs. A `mandatory` job runs even if the
    /// runtime begins to shut down while it waits for a thread (a file
    /// write already reported done); another is then cancelled.
    #[track_caller]
    pub(crate) fn spawn_blocking<F, R>(
        &self,
        f: F,
        location: &'static Location<'static>,
        mandatory: bool,
    ) -> JoinHandle<R>
    where
        F: FnOnce() -> R + Send + 'static,
        R: Send + 'static,
    {
        let resources = self.resources();
        // On the current-thread runtime a paused clock must not jump while
        // the job is in flight (time/clock.rs states the rule); the hold
        // ends when the job's task completes or is cancelled.
        let hold = match self {
            Scheduler::CurrentThread(_) => Some(resources.driver.hold_auto_advance()),
            Scheduler::MultiThread(_) => None,
        };
        // The job holds the handle only until it runs, or until shutdown
        // cancels it: no cycle outlives the runtime.
        let scheduler = self.clone();
        let job = move || {
            let _enter = crate::runtime::context::set_current(scheduler);
            f()
        };
        resources
            .blocking
            .spawn(crate::task::id::next(), job, location, mandatory, hold)
    }

    /// Tasks spawned and not yet completed.
    pub(crate) fn alive_tasks(&self) -> usize {
        match self {
            Scheduler::CurrentThread(scheduler) => scheduler.owned.alive(),
            Scheduler::MultiThread(scheduler) => scheduler.alive_tasks(),
        }
    }

    /// Tasks spawned since the runtime started.
    pub(crate) fn spawned_tasks(&self) -> u64 {
        match self {
            Scheduler::CurrentThread(scheduler) => scheduler.owned.spawned(),
            Scheduler::MultiThread(scheduler) => scheduler.owned.spawned(),
        }
    }

    /// Calls `f` with each live task's id, spawn location and poll count.
    pub(crate) fn for_each_task(&self, f: impl FnMut(u64, &'static Location<'static>, u64)) {
        match self {
            Scheduler::CurrentThread(scheduler) => scheduler.owned.for_each(f),
            Scheduler::MultiThread(scheduler) => scheduler.owned.for_each(f),
        }
    }

    /// Tasks waiting in the queue of tasks from outside.
    pub(crate) fn injected(&self) -> usize {
        match self {
            Scheduler::CurrentThread(scheduler) => scheduler.inject.len(),
            Scheduler::MultiThread(scheduler) => scheduler.inject.len(),
        }
    }

    /// Tasks scheduled from outside (through the inject queue).
    pub(crate) fn remote_schedules(&self) -> u64 {
        match self {
            Scheduler::CurrentThread(scheduler) => scheduler.inject.remote_pushes(),
            Scheduler::MultiThread(scheduler) => scheduler.inject.remote_pushes(),
        }
    }
}

/// Puts off waking `waker` until the scheduler running on this thread has
/// turned its driver (I/O and timers) and run what was already queued:
/// `yield_now`, and a leaf future whose budget is spent, use it so that a
/// task that keeps yielding cannot keep others (or the driver) waiting.
/// On a thread that runs no scheduler the waker is woken at once.
pub(crate) fn defer(waker: &Waker) {
    if !multi_thread::worker::defer(waker) && !current_thread::defer(waker) {
        waker.wake_by_ref();
    }
}

/// A value on a cache-line pair of its own (128 bytes: x86 prefetches lines
/// in adjacent pairs), so that writes to it do not slow down readers and
/// writers of its neighbours.
#[repr(align(128))]
pub(crate) struct CachePadded<T>(pub(crate) T);

impl<T> std::ops::Deref for CachePadded<T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.0
    }
}
