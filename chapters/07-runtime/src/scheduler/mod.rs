//! The multi-threaded work-stealing scheduler.
//!
//! * `queue`: each worker's lock-free ring of 256 tasks, stealable by half;
//! * `inject`: the shared queue for tasks from outside and for overflow;
//! * `idle`: who sleeps, who searches, whom to wake;
//! * `park`: sleeping without losing a wake-up;
//! * `worker`: the loop each worker thread runs, and the LIFO slot;
//! * `stats`: per-worker counters.
//!
//! This file holds [`Handle`], the state all workers share, and the entry
//! points every task uses: spawning, and scheduling a woken task.
//!
//! ```text
//!                       spawn / wake from outside
//!                                 │
//!                                 v
//!                      ┌─────────────────────┐
//!          overflow ──>│    inject queue     │<── overflow
//!                      └─────────────────────┘
//!                        │ every 31 ticks,  │
//!                        │ or when empty    │
//!          ┌─────────────v──┐          ┌────v───────────┐
//!  wake ──>│ LIFO │ ring    │<─steal──>│ LIFO │ ring    │<── wake
//!  from a  │ slot │ (256)   │   half   │ slot │ (256)   │    from a
//!  task    └────────────────┘          └────────────────┘    task
//!             worker 0                     worker 1
//! ```
//!
//! Book: Chapter 7, "Many workers, one runtime".

pub(crate) mod idle;
pub(crate) mod inject;
pub(crate) mod park;
pub(crate) mod queue;
pub(crate) mod stats;
pub(crate) mod trace;
pub(crate) mod watchdog;
pub(crate) mod worker;

use crate::blocking;
use crate::driver;
use crate::loom::{AtomicU64, Condvar, Mutex, Ordering, fence};
use crate::task::owned::OwnedTasks;
use crate::task::{self, JoinHandle, Schedule, Task};
use idle::Idle;
use inject::Inject;
use park::Unparker;
use queue::Steal;
use stats::WorkerStats;
use std::future::Future;
use std::sync::Arc;

/// A task ready to run on this scheduler.
pub(crate) type Notified = task::Notified<Arc<Handle>>;

/// Settings fixed when the runtime is built.
#[derive(Clone)]
pub(crate) struct Config {
    /// Every this many ticks, a worker looks at the inject queue before its
    /// own queue, so remote tasks cannot starve behind local ones.
    pub(crate) global_queue_interval: u32,
    /// Every this many ticks, a worker does its maintenance (checks for
    /// shutdown; part 2 polls the I/O driver without blocking).
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
    /// Names threads when set (`Builder::thread_name` or `thread_name_fn`);
    /// otherwise a worker's thread is `rt-worker-N`.
    pub(crate) thread_name_fn: Option<crate::runtime::ThreadNameFn>,
    /// `Handle::id`.
    pub(crate) runtime_id: crate::runtime::Id,
    /// `Builder::name`.
    pub(crate) name: Option<String>,
}

/// The driving thread sleeps in the driver (see [`CurrentThread::state`]).
pub(crate) const PARKED: usize = 1;
/// Work was published since the driving thread last looked.
pub(crate) const NOTIFIED: usize = 2;

impl CurrentThread {
    /// Work was published (a task queued, the `block_on` future woken):
    /// tell the driving thread, waking it if it sleeps.
    // ANCHOR: notify_current_thread
    pub(crate) fn notify(&self, driver: &driver::Shared) {
        if self.state.fetch_or(NOTIFIED, Ordering::AcqRel) & PARKED != 0 {
            driver.unpark();
        }
    }
    // ANCHOR_END: notify_current_thread
}

/// What the current-thread flavour adds to the shared state: its tasks run
/// on whichever thread is in `block_on`, which sleeps in the driver when
/// there is nothing to run.
pub(crate) struct CurrentThread {
    /// `PARKED`: the driving thread sleeps in the driver (or is about to):
    /// whoever publishes work must wake it. `NOTIFIED`: work was published
    /// since the driving thread last looked. One word, changed only by
    /// read-modify-writes, so the two sides' updates are totally ordered:
    /// either the sleeper sees `NOTIFIED` and does not sleep, or the
    /// publisher sees `PARKED` and wakes it. While the thread runs,
    /// scheduling costs one uncontended atomic and no system call.
    pub(crate) state: crate::loom::AtomicUsize,
    /// Held by the thread that drives the tasks; a second thread in
    /// `block_on` at the same time only polls its own future.
    pub(crate) core: Mutex<()>,
}

/// What other threads need to reach one worker.
pub(crate) struct Remote {
    /// Steals from the worker's run queue.
    pub(crate) steal: Steal<Notified>,
    /// Wakes the worker when it is parked.
    pub(crate) unpark: Unparker,
}

/// State shared by all workers of one runtime, and by every task (each task
/// holds an `Arc<Handle>` as its scheduler).
pub(crate) struct Handle {
    pub(crate) remotes: Box<[Remote]>,
    pub(crate) inject: Inject<Notified>,
    pub(crate) idle: Idle,
    pub(crate) owned: OwnedTasks<Arc<Handle>>,
    pub(crate) config: Config,
    pub(crate) stats: Box<[WorkerStats]>,
    /// Polls the detector found longer than the threshold by their task's
    /// doing (blocked or busy, not preempted).
    pub(crate) long_polls: AtomicU64,
    /// Workers that have stopped hand their cores in here; the last one
    /// empties all the queues.
    pub(crate) shutdown_cores: Mutex<Vec<worker::Core>>,
    /// The I/O driver and the timers.
    pub(crate) driver: Arc<driver::Shared>,
    /// Threads for `spawn_blocking`.
    pub(crate) blocking: blocking::Spawner,
    /// Written on every spawn: on a cache line of its own, so that the
    /// spawning thread does not fight the workers for the line that holds
    /// what they write (the idle counters, the inject queue's length).
    next_task_id: CachePadded<AtomicU64>,
    /// Worker threads still running; shutdown waits on `exited` for zero.
    pub(crate) running_workers: Mutex<usize>,
    exited: Condvar,
    /// Set at shutdown: the watchdog stops waiting at once.
    pub(crate) watchdog_stop: Mutex<bool>,
    pub(crate) watchdog_wake: Condvar,
    /// The current-thread flavour's state (`None`: multi-thread).
    pub(crate) current_thread: Option<CurrentThread>,
    /// The workers' event recorder, if enabled.
    pub(crate) tracer: Option<trace::Tracer>,
}

impl Handle {
    /// The number of worker threads.
    pub(crate) fn num_workers(&self) -> usize {
        self.remotes.len()
    }

    /// A runtime-wide unique task id.
    pub(crate) fn next_id(&self) -> u64 {
        self.next_task_id.fetch_add(1, Ordering::Relaxed)
    }

    /// Spawns a task onto this runtime.
    pub(crate) fn spawn<F>(
        self: &Arc<Self>,
        future: F,
        location: &'static std::panic::Location<'static>,
    ) -> JoinHandle<F::Output>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        let id = self.next_id();
        let (join, notified) = self.owned.bind(future, self.clone(), id, location);
        if let Some(notified) = notified {
            self.schedule_task(notified, false);
        }
        join
    }

    /// Runs `f` on the blocking pool, with this runtime current on the
    /// pool's thread while it runs.
    #[track_caller]
    pub(crate) fn spawn_blocking<F, R>(
        self: &Arc<Self>,
        f: F,
        location: &'static std::panic::Location<'static>,
    ) -> JoinHandle<R>
    where
        F: FnOnce() -> R + Send + 'static,
        R: Send + 'static,
    {
        self.spawn_blocking_job(f, location, false)
    }

    /// As [`spawn_blocking`](Self::spawn_blocking), for a job that runs
    /// even if the runtime begins to shut down while it waits for a thread
    /// (a file write already reported done).
    #[track_caller]
    pub(crate) fn spawn_mandatory_blocking<F, R>(
        self: &Arc<Self>,
        f: F,
        location: &'static std::panic::Location<'static>,
    ) -> JoinHandle<R>
    where
        F: FnOnce() -> R + Send + 'static,
        R: Send + 'static,
    {
        self.spawn_blocking_job(f, location, true)
    }

    #[track_caller]
    fn spawn_blocking_job<F, R>(
        self: &Arc<Self>,
        f: F,
        location: &'static std::panic::Location<'static>,
        mandatory: bool,
    ) -> JoinHandle<R>
    where
        F: FnOnce() -> R + Send + 'static,
        R: Send + 'static,
    {
        // The job holds the handle only until it runs, or until shutdown
        // cancels it: no cycle outlives the runtime.
        let handle = self.clone();
        let job = move || {
            let _enter = crate::runtime::context::set_current(handle);
            f()
        };
        self.blocking
            .spawn(self.next_id(), job, location, mandatory)
    }

    /// Puts a runnable task on a queue: the current worker's (LIFO slot or
    /// ring) if we are on one of this runtime's workers, else the inject
    /// queue; then wakes a parked worker if nobody is searching.
    // ANCHOR: schedule_task
    pub(crate) fn schedule_task(&self, task: Notified, is_yield: bool) {
        let task = match worker::schedule_on_current_worker(self, task, is_yield) {
            Ok(()) => return,
            Err(task) => task,
        };
        let task = match &self.current_thread {
            // The driving thread itself: its own queue, no notification
            // (it is awake, and looks there before it sleeps).
            Some(_) => match crate::runtime::block_on::schedule_on_driving_thread(self, task) {
                Ok(()) => return,
                Err(task) => task,
            },
            None => task,
        };
        self.inject.push_remote(task);
        match &self.current_thread {
            None => self.notify_parked(),
            Some(current) => current.notify(&self.driver),
        }
    }
    // ANCHOR_END: schedule_task

    /// Wakes one parked worker, if the idle policy says one should wake.
    pub(crate) fn notify_parked(&self) {
        if let Some(index) = self.idle.worker_to_notify() {
            self.remotes[index].unpark.unpark();
        }
    }

    /// Called by the last searcher before it parks: if any queue has work,
    /// wake a worker for it.
    // ANCHOR: work_pending
    pub(crate) fn notify_if_work_pending(&self) {
        // Pairs with the fence in `Idle::should_notify`: we published "I am
        // parked" before reading the queues; a pusher published its task
        // before reading the idle state. One of us sees the other.
        fence(Ordering::SeqCst);
        let pending =
            self.remotes.iter().any(|remote| !remote.steal.is_empty()) || !self.inject.is_empty();
        if pending {
            self.notify_parked();
        }
    }
    // ANCHOR_END: work_pending

    /// Starts shutdown: closes the inject queue and wakes every worker so
    /// that each sees it; stops the watchdog.
    pub(crate) fn shutdown(&self) {
        if self.inject.close() {
            for remote in self.remotes.iter() {
                remote.unpark.unpark();
            }
        }
        *self.watchdog_stop.lock() = true;
        self.watchdog_wake.notify_all();
    }

    /// Called when a worker thread starts.
    pub(crate) fn worker_started(&self) {
        *self.running_workers.lock() += 1;
    }

    /// Called when a worker thread ends (also if it panicked).
    pub(crate) fn worker_exited(&self) {
        *self.running_workers.lock() -= 1;
        self.exited.notify_all();
    }

    /// Waits until at most `allowed` worker threads still run, or the
    /// deadline passes (`None`: no deadline). True if they did.
    pub(crate) fn wait_for_workers(
        &self,
        allowed: usize,
        deadline: Option<std::time::Instant>,
    ) -> bool {
        let mut running = self.running_workers.lock();
        while *running > allowed {
            match deadline {
                None => running = self.exited.wait(running),
                Some(deadline) => {
                    let now = std::time::Instant::now();
                    if now >= deadline {
                        return false;
                    }
                    running = self.exited.wait_timeout(running, deadline - now);
                }
            }
        }
        true
    }

    /// A stopped worker hands in its core. When all are in, drop whatever
    /// the queues still hold: by then every task was shut down, so each
    /// queued `Notified` only releases a reference.
    pub(crate) fn shutdown_core(&self, core: worker::Core) {
        let cores = {
            let mut cores = self.shutdown_cores.lock();
            cores.push(core);
            if cores.len() < self.num_workers() {
                return;
            }
            std::mem::take(&mut *cores)
        };
        for mut core in cores {
            core.drain_queues();
        }
        drop(self.inject.drain());
    }
}

impl Schedule for Arc<Handle> {
    fn schedule(&self, task: Notified) {
        self.schedule_task(task, false);
    }

    fn yield_now(&self, task: Notified) {
        self.schedule_task(task, true);
    }

    fn release(&self, task: &Task<Self>) -> Option<Task<Self>> {
        self.owned.remove(task)
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

/// What each worker thread starts with: its core and its parker.
pub(crate) type WorkerParts = (worker::Core, park::Parker);

/// Builds the shared state and one core per worker.
pub(crate) fn create(
    num_workers: usize,
    config: Config,
    blocking: blocking::Spawner,
) -> std::io::Result<(Arc<Handle>, Vec<WorkerParts>)> {
    let driver = Arc::new(driver::create(config.current_thread, config.start_paused)?);
    let metrics = config.metrics;
    let current_thread = config.current_thread;
    let trace_capacity = config.trace_capacity;
    let mut remotes = Vec::with_capacity(num_workers);
    let mut cores = Vec::with_capacity(num_workers);
    for index in 0..num_workers {
        let (steal, run_queue) = queue::local();
        let parker = park::Parker::with_driver(Some(driver.clone()));
        remotes.push(Remote {
            steal,
            unpark: parker.unparker(),
        });
        cores.push((worker::Core::new(index, run_queue), parker));
    }
    let handle = Arc::new(Handle {
        remotes: remotes.into_boxed_slice(),
        inject: Inject::new(),
        idle: Idle::new(num_workers),
        // Four shards per worker keeps spawn and completion on different
        // workers off each other's locks.
        owned: OwnedTasks::new(4 * num_workers),
        config,
        // The current-thread flavour has no worker but counts as one.
        stats: (0..num_workers.max(1))
            .map(|_| WorkerStats::new(metrics))
            .collect(),
        long_polls: AtomicU64::new(0),
        shutdown_cores: Mutex::new(Vec::with_capacity(num_workers)),
        driver,
        blocking,
        next_task_id: CachePadded(AtomicU64::new(1)),
        running_workers: Mutex::new(0),
        exited: Condvar::new(),
        watchdog_stop: Mutex::new(false),
        watchdog_wake: Condvar::new(),
        tracer: (trace_capacity > 0)
            .then(|| trace::Tracer::new(num_workers.max(1), trace_capacity)),
        current_thread: current_thread.then(|| CurrentThread {
            state: crate::loom::AtomicUsize::new(0),
            core: Mutex::new(()),
        }),
    });
    Ok((handle, cores))
}
