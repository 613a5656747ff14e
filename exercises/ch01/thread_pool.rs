//! Exercise ch01_thread_pool: a bounded thread pool.
//!
//! Chapter 1's server starts a new thread for every connection, so a flood of
//! clients becomes a flood of threads. The classic fix is a *pool*: a fixed
//! number of worker threads that take jobs from a shared queue. Write one.
//!
//! What the tests check (`cargo run -p exercises -- check ch01_thread_pool`):
//!
//! * every job given to [`ThreadPool::execute`] runs exactly once;
//! * up to `workers` jobs run at the same time, and never more;
//! * at most `capacity` jobs wait in the queue: `execute` blocks while the
//!   queue is full (back-pressure: a slow pool slows its producer down instead
//!   of buffering without limit);
//! * a job that panics does not take its worker down: the pool still runs
//!   `workers` jobs at a time afterwards;
//! * dropping the pool waits until every queued job has run, then joins the
//!   workers.
//!
//! Run `cargo run -p exercises -- hint ch01_thread_pool` if you are stuck.

/// A job: any closure that can be sent to another thread and run once.
pub type Job = Box<dyn FnOnce() + Send + 'static>;

/// A fixed set of worker threads fed through a bounded queue.
pub struct ThreadPool {
    // Your fields here.
}

impl ThreadPool {
    /// Starts `workers` threads (at least 1) that take jobs from a queue
    /// holding at most `capacity` waiting jobs (0 means a job is handed
    /// straight to an idle worker).
    pub fn new(workers: usize, capacity: usize) -> ThreadPool {
        todo!("start {workers} workers fed by a queue of {capacity}")
    }

    /// Queues `job` to run on a worker, blocking while the queue is full.
    pub fn execute(&self, job: impl FnOnce() + Send + 'static) {
        let _job: Job = Box::new(job);
        todo!("hand the job to a worker")
    }
}

impl Drop for ThreadPool {
    /// Runs every queued job, then stops and joins the workers.
    fn drop(&mut self) {
        todo!("close the queue and join the workers")
    }
}
