//! Near miss of ch01_thread_pool: dropping the pool closes the queue but does
//! not join the workers, so `drop` returns while queued jobs are still
//! running (or not yet started); the tests must catch it because a dropped
//! pool must have run every job it accepted.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::sync::{Arc, Mutex};
use std::thread::{self, JoinHandle};

/// A job: any closure that can be sent to another thread and run once.
pub type Job = Box<dyn FnOnce() + Send + 'static>;

/// A fixed set of worker threads fed through a bounded queue.
pub struct ThreadPool {
    sender: Option<SyncSender<Job>>,
    workers: Vec<JoinHandle<()>>,
}

impl ThreadPool {
    /// Starts `workers` threads (at least 1) that take jobs from a queue
    /// holding at most `capacity` waiting jobs (0 means a job is handed
    /// straight to an idle worker).
    pub fn new(workers: usize, capacity: usize) -> ThreadPool {
        let (sender, receiver) = sync_channel::<Job>(capacity);
        let receiver = Arc::new(Mutex::new(receiver));
        let workers = (0..workers.max(1))
            .map(|_| {
                let receiver = Arc::clone(&receiver);
                thread::spawn(move || work(&receiver))
            })
            .collect();
        ThreadPool {
            sender: Some(sender),
            workers,
        }
    }

    /// Queues `job` to run on a worker, blocking while the queue is full.
    pub fn execute(&self, job: impl FnOnce() + Send + 'static) {
        let sender = self.sender.as_ref().expect("the sender lives until drop");
        // Fails only if every worker is gone, which catch_unwind prevents.
        sender
            .send(Box::new(job))
            .expect("the workers outlive the pool's sender");
    }
}

fn work(receiver: &Mutex<Receiver<Job>>) {
    loop {
        // The guard is a temporary: the lock is released before the job runs.
        let job = receiver.lock().unwrap_or_else(|e| e.into_inner()).recv();
        match job {
            // A panicking job must not end the worker.
            Ok(job) => drop(catch_unwind(AssertUnwindSafe(job))),
            Err(_) => return, // closed and drained
        }
    }
}

impl Drop for ThreadPool {
    /// Runs every queued job, then stops and joins the workers.
    fn drop(&mut self) {
        // MISTAKE: closes the queue, then walks away from the workers.
        drop(self.sender.take());
        self.workers.clear();
    }
}
