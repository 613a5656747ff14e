//! What the runtime is doing, read from any thread: the counters each worker
//! keeps (see `scheduler/stats.rs`) and a few gauges.
//!
//! The names follow Tokio's `RuntimeMetrics` where Tokio has the same
//! measure, so a reader can compare the two runtimes under the same load.
//! [`RuntimeMetrics::snapshot`] copies everything at once into plain data
//! (for `top`, for the demo, for JSON); the difference of two snapshots is
//! the activity in between.
//!
//! Book: Chapter 7, "What the workers did".

use crate::loom::Ordering;
use crate::scheduler::Scheduler;
use crate::scheduler::stats::{POLL_TIME_BUCKETS, bucket_upper_ns};
use std::fmt;
use std::panic::Location;
use std::time::{Duration, Instant};

/// The per-worker counters, each read the same way from the worker's
/// stats: one getter per line, with its doc.
macro_rules! worker_counters {
    ($($(#[$doc:meta])* $name:ident => $field:ident;)*) => {
        $(
            $(#[$doc])*
            pub fn $name(&self, worker: usize) -> u64 {
                self.handle.resources().stats[worker].$field.get()
            }
        )*
    };
}

/// A view of a runtime's counters. Cheap to create; every read is live.
#[derive(Clone)]
pub struct RuntimeMetrics {
    handle: Scheduler,
}

impl fmt::Debug for RuntimeMetrics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RuntimeMetrics")
            .field("num_workers", &self.num_workers())
            .finish_non_exhaustive()
    }
}

impl std::panic::UnwindSafe for RuntimeMetrics {}
impl std::panic::RefUnwindSafe for RuntimeMetrics {}

impl RuntimeMetrics {
    pub(crate) fn new(handle: Scheduler) -> RuntimeMetrics {
        RuntimeMetrics { handle }
    }

    /// Worker threads.
    pub fn num_workers(&self) -> usize {
        // The current-thread flavour counts its one driving thread.
        self.handle.num_workers()
    }

    /// Tasks spawned and not yet completed.
    pub fn num_alive_tasks(&self) -> usize {
        self.handle.alive_tasks()
    }

    /// Tasks spawned since the runtime started.
    pub fn spawned_tasks_count(&self) -> u64 {
        self.handle.spawned_tasks()
    }

    /// Tasks waiting in the inject queue.
    pub fn global_queue_depth(&self) -> usize {
        self.handle.injected()
    }

    /// Tasks scheduled from outside the workers (through the inject queue).
    pub fn remote_schedule_count(&self) -> u64 {
        self.handle.remote_schedules()
    }

    /// Workers parked right now.
    pub fn num_parked_workers(&self) -> usize {
        match &self.handle {
            Scheduler::MultiThread(workers) => workers.idle.num_parked(),
            Scheduler::CurrentThread(_) => 0,
        }
    }

    /// Workers searching for work right now.
    pub fn num_searching_workers(&self) -> usize {
        match &self.handle {
            Scheduler::MultiThread(workers) => workers.idle.num_searching(),
            Scheduler::CurrentThread(_) => 0,
        }
    }

    worker_counters! {
        /// Tasks polled by `worker`.
        worker_poll_count => polls;
        /// Of those, tasks taken from the LIFO slot.
        worker_lifo_poll_count => lifo_polls;
        /// Tasks `worker` stole from others.
        worker_steal_count => steals;
        /// Successful steal operations by `worker`.
        worker_steal_operations => steal_operations;
        /// Times `worker`'s queue overflowed into the inject queue.
        worker_overflow_count => overflows;
        /// Tasks `worker` scheduled onto itself (LIFO slot or ring).
        worker_local_schedule_count => local_schedules;
        /// Tasks `worker` took from the inject queue.
        worker_inject_pull_count => inject_pulls;
        /// Times `worker` parked.
        worker_park_count => parks;
        /// Times `worker` was woken to run work.
        worker_unpark_count => unparks;
        /// Polls on `worker` that ended with the task's budget spent.
        worker_budget_forced_yield_count => budget_forced_yields;
    }

    /// Times `worker` parked plus times it woke with work, as Tokio counts
    /// it: an odd value means the worker is parked now.
    pub fn worker_park_unpark_count(&self, worker: usize) -> u64 {
        self.worker_park_count(worker) + self.worker_unpark_count(worker)
    }

    /// Sockets registered with the I/O driver now.
    pub fn io_driver_registered_sockets(&self) -> usize {
        self.handle.driver().io.registered()
    }

    /// Timers waiting in the wheel now.
    pub fn pending_timers(&self) -> usize {
        self.handle.driver().time.pending()
    }

    /// Threads in the blocking pool now.
    pub fn num_blocking_threads(&self) -> usize {
        self.handle.resources().blocking.num_threads()
    }

    /// Of those, threads waiting for work.
    pub fn num_idle_blocking_threads(&self) -> usize {
        self.handle.resources().blocking.num_idle_threads()
    }

    /// Blocking jobs waiting for a thread.
    pub fn blocking_queue_depth(&self) -> usize {
        self.handle.resources().blocking.queue_depth()
    }

    /// Blocking jobs finished since the start.
    ///
    /// A job is counted when its pool thread is done with it, after the job
    /// has stored its output and woken its `JoinHandle`: a count read right
    /// after awaiting the last job can still miss that job for a moment.
    pub fn blocking_completed_count(&self) -> u64 {
        self.handle.resources().blocking.completed()
    }

    // ANCHOR: mean_poll_time
    /// Time `worker` spent not parked, up to its last maintenance tick.
    pub fn worker_total_busy_duration(&self, worker: usize) -> Duration {
        Duration::from_nanos(self.handle.resources().stats[worker].busy_ns.get())
    }

    /// Busy time over polls: the mean time a poll took on `worker`
    /// (scheduling overhead included).
    pub fn worker_mean_poll_time(&self, worker: usize) -> Duration {
        let polls = self.worker_poll_count(worker).max(1);
        Duration::from_nanos(self.handle.resources().stats[worker].busy_ns.get() / polls)
    }
    // ANCHOR_END: mean_poll_time

    /// Poll-time histogram of `worker` (all zero unless the runtime was
    /// built with `enable_poll_time_histogram`): count per bucket, see
    /// [`RuntimeMetrics::poll_time_bucket_upper`].
    pub fn worker_poll_time_histogram(&self, worker: usize) -> Vec<u64> {
        self.handle.resources().stats[worker]
            .poll_times
            .iter()
            .map(|c| c.get())
            .collect()
    }

    /// The exclusive upper bound of histogram bucket `i` (the last bucket
    /// has none).
    pub fn poll_time_bucket_upper(&self, i: usize) -> Option<Duration> {
        (i + 1 < POLL_TIME_BUCKETS).then(|| Duration::from_nanos(bucket_upper_ns(i)))
    }

    /// Readiness events the I/O driver delivered.
    pub fn io_driver_ready_count(&self) -> u64 {
        self.handle.driver().io.ready_events()
    }

    /// Polls the long-poll detector found holding their worker past its
    /// threshold by their task's doing: blocked or busy, not preempted
    /// (see [`Builder::on_long_poll`](super::Builder::on_long_poll)).
    /// Counted whether or not anything is reported.
    pub fn long_poll_count(&self) -> u64 {
        match &self.handle {
            Scheduler::MultiThread(workers) => workers.long_polls.load(Ordering::Relaxed),
            Scheduler::CurrentThread(_) => 0,
        }
    }

    /// The spawn location of the task `worker` is polling now, if any.
    pub fn worker_current_task(&self, worker: usize) -> Option<&'static Location<'static>> {
        self.handle.resources().stats[worker].current()
    }

    /// The `n` live tasks polled most often so far.
    pub fn busiest_tasks(&self, n: usize) -> Vec<TaskPolls> {
        let mut all = Vec::new();
        self.handle.for_each_task(|id, location, polls| {
            all.push(TaskPolls {
                id,
                location,
                polls,
            })
        });
        all.sort_by_key(|task| std::cmp::Reverse(task.polls));
        all.truncate(n);
        all
    }

    /// Everything at once, as plain data.
    pub fn snapshot(&self) -> MetricsSnapshot {
        MetricsSnapshot {
            taken: Instant::now(),
            workers: (0..self.num_workers())
                .map(|w| WorkerSnapshot {
                    polls: self.worker_poll_count(w),
                    lifo_polls: self.worker_lifo_poll_count(w),
                    steals: self.worker_steal_count(w),
                    steal_operations: self.worker_steal_operations(w),
                    overflows: self.worker_overflow_count(w),
                    local_schedules: self.worker_local_schedule_count(w),
                    inject_pulls: self.worker_inject_pull_count(w),
                    parks: self.worker_park_count(w),
                    unparks: self.worker_unpark_count(w),
                    local_queue_depth: self.worker_local_queue_depth(w),
                    busy: self.worker_total_busy_duration(w),
                    budget_forced_yields: self.worker_budget_forced_yield_count(w),
                    parked: self.handle.resources().stats[w]
                        .parked
                        .load(std::sync::atomic::Ordering::Relaxed),
                    current_task: self.worker_current_task(w),
                    poll_time_histogram: self.worker_poll_time_histogram(w),
                })
                .collect(),
            alive_tasks: self.num_alive_tasks(),
            spawned_tasks: self.spawned_tasks_count(),
            global_queue_depth: self.global_queue_depth(),
            remote_schedules: self.remote_schedule_count(),
            blocking_threads: self.num_blocking_threads(),
            idle_blocking_threads: self.num_idle_blocking_threads(),
            blocking_queue_depth: self.blocking_queue_depth(),
            registered_sockets: self.io_driver_registered_sockets(),
            io_ready_events: self.io_driver_ready_count(),
            pending_timers: self.pending_timers(),
            long_polls: self.long_poll_count(),
        }
    }

    /// `worker`'s local queue depth at its last maintenance tick or park.
    pub fn worker_local_queue_depth(&self, worker: usize) -> usize {
        self.handle.resources().stats[worker].queue_depth.get() as usize
    }
}

/// A task and how often it was polled.
#[derive(Debug, Clone, Copy)]
pub struct TaskPolls {
    /// The task's id.
    pub id: u64,
    /// Where it was spawned.
    pub location: &'static Location<'static>,
    /// Polls so far.
    pub polls: u64,
}

/// One worker's counters at one instant.
#[derive(Debug, Clone)]
pub struct WorkerSnapshot {
    /// Tasks polled.
    pub polls: u64,
    /// Of which from the LIFO slot.
    pub lifo_polls: u64,
    /// Tasks stolen from other workers.
    pub steals: u64,
    /// Successful steal operations.
    pub steal_operations: u64,
    /// Times the local ring overflowed into the inject queue.
    pub overflows: u64,
    /// Tasks scheduled onto this worker by its own tasks.
    pub local_schedules: u64,
    /// Tasks taken from the inject queue.
    pub inject_pulls: u64,
    /// Times parked.
    pub parks: u64,
    /// Times woken with work.
    pub unparks: u64,
    /// Tasks in the local ring (at the last maintenance tick).
    pub local_queue_depth: usize,
    /// Time not parked.
    pub busy: Duration,
    /// Polls that ended with the budget spent.
    pub budget_forced_yields: u64,
    /// Parked now.
    pub parked: bool,
    /// The task being polled now.
    pub current_task: Option<&'static Location<'static>>,
    /// Poll-time histogram (zeros unless enabled).
    pub poll_time_histogram: Vec<u64>,
}

/// The whole runtime at one instant.
#[derive(Debug, Clone)]
pub struct MetricsSnapshot {
    /// When it was taken.
    pub taken: Instant,
    /// Per worker.
    pub workers: Vec<WorkerSnapshot>,
    /// Tasks alive.
    pub alive_tasks: usize,
    /// Tasks spawned since the start.
    pub spawned_tasks: u64,
    /// Tasks in the inject queue.
    pub global_queue_depth: usize,
    /// Tasks scheduled from outside the workers.
    pub remote_schedules: u64,
    /// Blocking-pool threads.
    pub blocking_threads: usize,
    /// Of which idle.
    pub idle_blocking_threads: usize,
    /// Blocking jobs waiting.
    pub blocking_queue_depth: usize,
    /// Sockets registered with the I/O driver.
    pub registered_sockets: usize,
    /// Readiness events delivered.
    pub io_ready_events: u64,
    /// Timers pending.
    pub pending_timers: usize,
    /// Long polls by their task's doing (`long_poll_count`).
    pub long_polls: u64,
}
