//! The multi-threaded work-stealing scheduler.
//!
//! * `queue`: each worker's lock-free ring of 256 tasks, stealable by half;
//! * `idle`: who sleeps, who searches, whom to wake;
//! * `worker`: the loop each worker thread runs, and the LIFO slot;
//! * and, shared with the current-thread flavour, the inject queue
//!   (`../inject.rs`), the parker (`../park.rs`) and the counters
//!   (`../stats.rs`).
//!
//! This file holds [`MultiThread`], the state all workers share, and the
//! entry points every task uses: spawning, and scheduling a woken task.
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
pub(crate) mod queue;
pub(crate) mod worker;

use super::inject::Inject;
use super::park::{self, Unparker};
use super::watchdog::{Detector, WatchdogWait};
use super::{Resources, RuntimeConfig};
use crate::blocking;
use crate::driver::DriverHandle;
use crate::loom::{AtomicU64, Condvar, Mutex, Ordering, fence};
use crate::task::owned::OwnedTasks;
use crate::task::{self, Schedule, Task};
use idle::Idle;
use queue::Steal;
use std::sync::Arc;

/// A task ready to run on a worker.
pub(crate) type WorkerTask = task::Notified<Arc<MultiThread>>;

/// What other threads need to reach one worker.
pub(crate) struct Remote {
    /// Steals from the worker's run queue.
    pub(crate) steal: Steal<WorkerTask>,
    /// Wakes the worker when it is parked.
    pub(crate) unpark: Unparker,
}

/// State shared by all workers of one runtime, and by every task (each task
/// holds an `Arc<MultiThread>` as its scheduler).
pub(crate) struct MultiThread {
    pub(crate) resources: Resources,
    pub(crate) remotes: Box<[Remote]>,
    pub(crate) inject: Inject<WorkerTask>,
    pub(crate) idle: Idle,
    pub(crate) owned: OwnedTasks<Arc<MultiThread>>,
    /// Polls the long-poll detector found longer than the threshold by their
    /// task's doing (blocked or busy, not preempted).
    pub(crate) long_polls: AtomicU64,
    /// Workers that have stopped hand their cores in here; the last one
    /// empties all the queues.
    pub(crate) shutdown_cores: Mutex<Vec<worker::WorkerCore>>,
    /// Worker threads still running; shutdown waits on `exited` for zero.
    pub(crate) running_workers: Mutex<usize>,
    exited: Condvar,
    /// How the long-poll watchdog waits between looks, and how shutdown
    /// and an unparking worker wake it.
    pub(crate) watchdog: WatchdogWait,
    /// The long-poll detector's looks (`None`: the detector is off).
    pub(crate) detector: Option<Detector>,
}

impl MultiThread {
    /// The number of worker threads.
    pub(crate) fn num_workers(&self) -> usize {
        self.remotes.len()
    }

    /// Puts a runnable task on a queue: the current worker's (LIFO slot or
    /// ring) if we are on one of this runtime's workers, else the inject
    /// queue; then wakes a parked worker if nobody is searching.
    // ANCHOR: schedule_task
    pub(crate) fn schedule_task(&self, task: WorkerTask, is_yield: bool) {
        if let Err(task) = worker::schedule_on_current_worker(self, task, is_yield) {
            self.inject.push_remote(task);
            self.notify_parked();
        }
    }
    // ANCHOR_END: schedule_task

    /// Tasks spawned and not yet completed: those in the owned list, less
    /// those that completed and wait in a worker's batch to leave it. The
    /// list is read first, and a worker publishes an empty batch before it
    /// takes the batch out of the list (under the shards' locks, which
    /// order that store before any later read): a batch released meanwhile
    /// can only make the snapshot high, never count a live task out.
    pub(crate) fn alive_tasks(&self) -> usize {
        let listed = self.owned.alive();
        let unreleased: usize = self.resources.stats.iter().map(|s| s.unreleased()).sum();
        listed.saturating_sub(unreleased)
    }

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
        self.watchdog.stop();
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
    /// queued task only releases a reference.
    pub(crate) fn shutdown_core(&self, core: worker::WorkerCore) {
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

impl Schedule for Arc<MultiThread> {
    fn schedule(&self, task: WorkerTask) {
        self.schedule_task(task, false);
    }

    fn yield_now(&self, task: WorkerTask) {
        self.schedule_task(task, true);
    }

    fn release(&self, task: &Task<Self>) -> Option<Task<Self>> {
        self.owned.remove(task)
    }

    fn defer_release(&self, task: Task<Self>) -> Option<Task<Self>> {
        // A task spawned on this thread lately left its slot in the owned
        // list in this core's cache: taking it out now costs no transfer,
        // and its memory goes back to the allocator while it is still hot.
        if task::id::spawned_here_lately(task.id()) {
            return Some(task);
        }
        worker::defer_release_on_current_worker(self, task).err()
    }

    fn terminate_hook(&self) -> Option<&crate::runtime::task_hooks::TaskCallback> {
        self.resources.config.task_hooks.terminate.as_ref()
    }
}

/// What each worker thread starts with: its core and its parker.
pub(crate) type WorkerParts = (worker::WorkerCore, park::Parker);

/// Builds the shared state and one core per worker.
pub(crate) fn create(
    num_workers: usize,
    config: RuntimeConfig,
    driver: Arc<DriverHandle>,
    blocking: blocking::Spawner,
) -> (Arc<MultiThread>, Vec<WorkerParts>) {
    let mut remotes = Vec::with_capacity(num_workers);
    let mut cores = Vec::with_capacity(num_workers);
    for index in 0..num_workers {
        let (steal, run_queue) = queue::local();
        let parker = park::Parker::with_driver(Some(driver.clone()));
        remotes.push(Remote {
            steal,
            unpark: parker.unparker(),
        });
        cores.push((worker::WorkerCore::new(index, run_queue), parker));
    }
    let detector = config
        .long_poll_threshold
        .map(|threshold| Detector::new(threshold, num_workers));
    let scheduler = Arc::new(MultiThread {
        resources: Resources::new(config, driver, blocking, num_workers),
        remotes: remotes.into_boxed_slice(),
        inject: Inject::new(),
        idle: Idle::new(num_workers),
        // Four shards per worker keeps spawn and completion on different
        // workers off each other's locks.
        owned: OwnedTasks::new(4 * num_workers),
        long_polls: AtomicU64::new(0),
        shutdown_cores: Mutex::new(Vec::with_capacity(num_workers)),
        running_workers: Mutex::new(0),
        exited: Condvar::new(),
        watchdog: WatchdogWait::new(detector.as_ref().map(Detector::max_gap)),
        detector,
    });
    (scheduler, cores)
}
