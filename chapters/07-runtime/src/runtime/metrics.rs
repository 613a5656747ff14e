//! What the runtime is doing, read from any thread: the counters each worker
//! keeps (see `scheduler/stats.rs`) and a few gauges.
//!
//! The names follow Tokio's `RuntimeMetrics` where Tokio has the same
//! measure, so a reader can compare the two runtimes under the same load.
//!
//! Book: Chapter 7, "What the workers did".

use crate::loom::Ordering;
use crate::scheduler::Handle;
use std::sync::Arc;

/// A view of a runtime's counters. Cheap to create; every read is live.
#[derive(Clone)]
pub struct RuntimeMetrics {
    handle: Arc<Handle>,
}

impl RuntimeMetrics {
    pub(crate) fn new(handle: Arc<Handle>) -> RuntimeMetrics {
        RuntimeMetrics { handle }
    }

    /// Worker threads.
    pub fn num_workers(&self) -> usize {
        self.handle.num_workers()
    }

    /// Tasks spawned and not yet completed.
    pub fn num_alive_tasks(&self) -> usize {
        self.handle.owned.alive()
    }

    /// Tasks spawned since the runtime started.
    pub fn spawned_tasks_count(&self) -> u64 {
        self.handle.spawned.load(Ordering::Relaxed)
    }

    /// Tasks waiting in the inject queue.
    pub fn global_queue_depth(&self) -> usize {
        self.handle.inject.len()
    }

    /// Tasks scheduled from outside the workers (through the inject queue).
    pub fn remote_schedule_count(&self) -> u64 {
        self.handle.remote_schedules.load(Ordering::Relaxed)
    }

    /// Workers parked right now.
    pub fn num_parked_workers(&self) -> usize {
        self.handle.idle.num_parked()
    }

    /// Workers searching for work right now.
    pub fn num_searching_workers(&self) -> usize {
        self.handle.idle.num_searching()
    }

    /// Tasks polled by `worker`.
    pub fn worker_poll_count(&self, worker: usize) -> u64 {
        self.handle.stats[worker].polls.get()
    }

    /// Of those, tasks taken from the LIFO slot.
    pub fn worker_lifo_poll_count(&self, worker: usize) -> u64 {
        self.handle.stats[worker].lifo_polls.get()
    }

    /// Tasks `worker` stole from others.
    pub fn worker_steal_count(&self, worker: usize) -> u64 {
        self.handle.stats[worker].steals.get()
    }

    /// Successful steal operations by `worker`.
    pub fn worker_steal_operations(&self, worker: usize) -> u64 {
        self.handle.stats[worker].steal_operations.get()
    }

    /// Times `worker`'s queue overflowed into the inject queue.
    pub fn worker_overflow_count(&self, worker: usize) -> u64 {
        self.handle.stats[worker].overflows.get()
    }

    /// Tasks `worker` scheduled onto itself (LIFO slot or ring).
    pub fn worker_local_schedule_count(&self, worker: usize) -> u64 {
        self.handle.stats[worker].local_schedules.get()
    }

    /// Tasks `worker` took from the inject queue.
    pub fn worker_inject_pull_count(&self, worker: usize) -> u64 {
        self.handle.stats[worker].inject_pulls.get()
    }

    /// Times `worker` parked.
    pub fn worker_park_count(&self, worker: usize) -> u64 {
        self.handle.stats[worker].parks.get()
    }

    /// Times `worker` was woken to run work.
    pub fn worker_unpark_count(&self, worker: usize) -> u64 {
        self.handle.stats[worker].unparks.get()
    }

    /// Polls on `worker` that ended with the task's budget spent.
    pub fn worker_budget_forced_yield_count(&self, worker: usize) -> u64 {
        self.handle.stats[worker].budget_forced_yields.get()
    }

    /// Sockets registered with the I/O driver now.
    pub fn io_driver_registered_sockets(&self) -> usize {
        self.handle.driver.io.registered()
    }

    /// Timers waiting in the wheel now.
    pub fn pending_timers(&self) -> usize {
        self.handle.driver.time.pending()
    }

    /// Threads in the blocking pool now.
    pub fn num_blocking_threads(&self) -> usize {
        self.handle.blocking.num_threads()
    }

    /// Of those, threads waiting for work.
    pub fn num_idle_blocking_threads(&self) -> usize {
        self.handle.blocking.num_idle_threads()
    }

    /// Blocking jobs waiting for a thread.
    pub fn blocking_queue_depth(&self) -> usize {
        self.handle.blocking.queue_depth()
    }

    /// Blocking jobs finished since the start.
    pub fn blocking_completed_count(&self) -> u64 {
        self.handle.blocking.completed()
    }

    /// `worker`'s local queue depth at its last maintenance tick or park.
    pub fn worker_local_queue_depth(&self, worker: usize) -> usize {
        self.handle.stats[worker].queue_depth.get() as usize
    }
}
