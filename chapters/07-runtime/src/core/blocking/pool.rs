//! The blocking pool: a queue, a condition variable, and threads that come
//! and go.
//!
//! ```text
//!  spawn_blocking ─> queue ─> an idle thread?  notify it
//!                             none, under the cap?  start a thread
//!                             none, at the cap?  the job waits in the queue
//!  a thread: run jobs until the queue is empty, then wait; after the
//!            keep-alive with no job, exit
//! ```
//!
//! `num_idle` counts waiting threads not yet claimed, `num_notify` the
//! wake-ups sent and not yet taken: a thread that wakes takes a token if
//! there is one, whichever thread the condition variable chose, so no job
//! is left with a sleeping pool.
//!
//! At shutdown the queued jobs are cancelled (their `JoinHandle`s report
//! it), except *mandatory* ones (a file write already reported done, see
//! `fs/file.rs`), which stay queued for the threads to run; running jobs
//! finish, and the runtime's drop waits for the threads
//! (up to a deadline, with `Runtime::shutdown_timeout`). It waits last,
//! after the I/O and time drivers have shut down, so a job that waits on a
//! socket or a timer of the runtime is woken, sees the runtime gone, and
//! ends.
//!
//! If the OS refuses to start a thread while the pool has none, no thread
//! will ever run the job: it is cancelled, and `spawn_blocking` panics with
//! the OS's error at its caller's line, as `std::thread::spawn` does.
//!
//! Book: Chapter 7, "spawn_blocking".

use crate::task::{self, JoinHandle, Notified, Schedule, Task};
use crate::time::clock::AutoAdvanceHold;
use std::collections::{HashMap, VecDeque};
use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::task::{Context, Poll};
use std::thread;
use std::time::{Duration, Instant};

/// The pool's settings.
#[derive(Clone)]
pub(crate) struct PoolConfig {
    pub(crate) max_threads: usize,
    pub(crate) keep_alive: Duration,
    pub(crate) thread_name: String,
    /// Names each thread when set (`Builder::thread_name_fn`).
    pub(crate) thread_name_fn: Option<std::sync::Arc<dyn Fn() -> String + Send + Sync>>,
    /// `on_thread_start` / `on_thread_stop`.
    pub(crate) thread_hooks: crate::runtime::ThreadHooks,
    /// `on_task_terminate`, which Tokio runs for blocking jobs too.
    pub(crate) task_terminate: Option<crate::runtime::task_hooks::TaskCallback>,
    pub(crate) stack_size: Option<usize>,
}

/// A handle to the pool, shared by the runtime.
#[derive(Clone)]
pub(crate) struct Spawner {
    pool: Arc<Pool>,
}

struct Pool {
    shared: Mutex<PoolState>,
    condvar: Condvar,
    /// Signalled each time a thread exits, for shutdown to wait on.
    exited: Condvar,
    config: PoolConfig,
}

/// A queued job, and whether shutdown must still run it.
struct Job {
    task: Notified<BlockingSchedule>,
    mandatory: bool,
}

struct PoolState {
    queue: VecDeque<Job>,
    num_threads: usize,
    num_idle: usize,
    num_notify: usize,
    shutdown: bool,
    next_thread_id: usize,
    threads: HashMap<usize, thread::JoinHandle<()>>,
    /// Jobs run since the start (for metrics).
    completed: u64,
}

/// The scheduler of blocking tasks: the pool's queue.
pub(crate) struct BlockingSchedule {
    pool: Arc<Pool>,
    /// On a current-thread runtime, the paused clock is held still while
    /// the job is in flight (`time/clock.rs`).
    hold: Option<AutoAdvanceHold>,
}

impl Schedule for BlockingSchedule {
    fn schedule(&self, task: Notified<Self>) {
        // Only `abort()` reschedules a blocking task; the pool then drops
        // it. If no thread can take it, `push` has cancelled it already,
        // which is all an abort asks.
        let _ = self.pool.push(task, false);
    }

    fn release(&self, _task: &Task<Self>) -> Option<Task<Self>> {
        // The job's task completed (ran, or was cancelled): its output is
        // with the JoinHandle, whose waiter was woken, so the clock may
        // move again.
        if let Some(hold) = &self.hold {
            hold.release();
        }
        // Blocking tasks are not in an owned list.
        None
    }

    fn terminate_hook(&self) -> Option<&crate::runtime::task_hooks::TaskCallback> {
        self.pool.config.task_terminate.as_ref()
    }
}

/// A future that runs a closure to completion in its first poll.
struct BlockingTask<F>(Option<F>);

impl<F> Unpin for BlockingTask<F> {}

impl<F: FnOnce() -> R, R> Future for BlockingTask<F> {
    type Output = R;

    fn poll(mut self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<R> {
        let f = self.0.take().expect("a blocking task is polled once");
        Poll::Ready(f())
    }
}

impl Pool {
    fn lock(&self) -> MutexGuard<'_, PoolState> {
        self.shared.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Queues a job and finds it a thread. Fails only if no thread could
    /// ever take the job (the pool has none, and the OS refused to start
    /// one): the job is then cancelled, and the error is the OS's.
    // ANCHOR: push
    fn push(self: &Arc<Self>, task: Notified<BlockingSchedule>, mandatory: bool) -> io::Result<()> {
        let mut shared = self.lock();
        if shared.shutdown {
            drop(shared);
            task.shutdown();
            return Ok(());
        }
        shared.queue.push_back(Job { task, mandatory });
        if shared.num_idle > 0 {
            shared.num_idle -= 1;
            shared.num_notify += 1;
            self.condvar.notify_one();
            return Ok(());
        }
        if shared.num_threads >= self.config.max_threads {
            // At the cap: the job waits for a thread to finish its current one.
            return Ok(());
        }
        // ANCHOR_END: push
        let id = shared.next_thread_id;
        shared.next_thread_id += 1;
        let name = match &self.config.thread_name_fn {
            Some(name) => name(),
            None => format!("{}-{id}", self.config.thread_name),
        };
        let mut builder = thread::Builder::new().name(name);
        if let Some(bytes) = self.config.stack_size {
            builder = builder.stack_size(bytes);
        }
        let pool = self.clone();
        let hooks = self.config.thread_hooks.clone();
        match builder.spawn(move || hooks.run(|| pool.run(id))) {
            Ok(handle) => {
                shared.num_threads += 1;
                shared.threads.insert(id, handle);
            }
            Err(error) if shared.num_threads == 0 => {
                // No thread at all will ever take it: cancel it, so its
                // JoinHandle reports an error instead of waiting for ever,
                // and tell the caller why.
                let task = shared.queue.pop_back().expect("just pushed").task;
                drop(shared);
                task.shutdown();
                return Err(error);
            }
            // Threads exist: one of them will take the job later.
            Err(_) => {}
        }
        Ok(())
    }

    /// A pool thread: run jobs; wait for more; exit after the keep-alive.
    fn run(self: Arc<Self>, id: usize) {
        let mut shared = self.lock();
        'outer: loop {
            while let Some(job) = shared.queue.pop_front() {
                drop(shared);
                job.task.run();
                shared = self.lock();
                shared.completed += 1;
            }
            if shared.shutdown {
                break;
            }
            // ANCHOR: idle_wait
            shared.num_idle += 1;
            loop {
                let (guard, result) = self
                    .condvar
                    .wait_timeout(shared, self.config.keep_alive)
                    .unwrap_or_else(PoisonError::into_inner);
                shared = guard;
                if shared.num_notify > 0 {
                    shared.num_notify -= 1;
                    continue 'outer;
                }
                if shared.shutdown {
                    // Run what shutdown left queued (mandatory jobs), then
                    // leave.
                    shared.num_idle -= 1;
                    continue 'outer;
                }
                if result.timed_out() {
                    // Idle for the whole keep-alive: this thread goes.
                    shared.num_idle -= 1;
                    shared.num_threads -= 1;
                    // Detach ourselves: nobody needs to join a thread that
                    // has already finished its work.
                    drop(shared.threads.remove(&id));
                    self.exited.notify_all();
                    return;
                }
                // Spurious wake-up: keep waiting.
            }
            // ANCHOR_END: idle_wait
        }
        shared.num_threads -= 1;
        self.exited.notify_all();
    }
}

impl Spawner {
    pub(crate) fn new(config: PoolConfig) -> Spawner {
        Spawner {
            pool: Arc::new(Pool {
                shared: Mutex::new(PoolState {
                    queue: VecDeque::new(),
                    num_threads: 0,
                    num_idle: 0,
                    num_notify: 0,
                    shutdown: false,
                    next_thread_id: 0,
                    threads: HashMap::new(),
                    completed: 0,
                }),
                condvar: Condvar::new(),
                exited: Condvar::new(),
                config,
            }),
        }
    }

    /// Spawns `f` as a blocking task with the given id; a `mandatory` one
    /// is run even if shutdown begins while it is queued.
    ///
    /// # Panics
    ///
    /// If no thread can run the job (the pool has none and the OS refuses
    /// to start one), as `std::thread::spawn` panics and Tokio's
    /// `spawn_blocking` does: at the caller's line, with the OS's error. A
    /// mandatory job (a file write) is cancelled instead, and its handle
    /// reports it, so the file operation fails with an error rather than
    /// panicking in the task that wrote.
    #[track_caller]
    pub(crate) fn spawn<F, R>(
        &self,
        id: u64,
        f: F,
        location: &'static std::panic::Location<'static>,
        mandatory: bool,
        hold: Option<AutoAdvanceHold>,
    ) -> JoinHandle<R>
    where
        F: FnOnce() -> R + Send + 'static,
        R: Send + 'static,
    {
        let scheduler = BlockingSchedule {
            pool: self.pool.clone(),
            hold,
        };
        let (owned, notified, join) =
            task::new_task(BlockingTask(Some(f)), scheduler, id, location);
        // Not kept in an owned list: the pool's queue holds the only way to
        // it, and shutdown cancels what is queued.
        drop(owned);
        match self.pool.push(notified, mandatory) {
            Err(error) if !mandatory => panic!(
                "rt::task::spawn_blocking: the blocking pool has no thread, and the OS refused \
                 to start one: {error}"
            ),
            _ => join,
        }
    }

    /// Threads alive now.
    pub(crate) fn num_threads(&self) -> usize {
        self.pool.lock().num_threads
    }

    /// Threads waiting for work now.
    pub(crate) fn num_idle_threads(&self) -> usize {
        self.pool.lock().num_idle
    }

    /// Jobs waiting for a thread.
    pub(crate) fn queue_depth(&self) -> usize {
        self.pool.lock().queue.len()
    }

    /// Jobs finished.
    pub(crate) fn completed(&self) -> u64 {
        self.pool.lock().completed
    }

    /// Cancels queued jobs except mandatory ones, lets running ones (and
    /// the mandatory) finish, and waits for the
    /// threads until `deadline` (`None`: as long as it takes); threads still
    /// running then are left to finish on their own. The calling thread is
    /// not waited for if it is one of the pool's (a runtime dropped from a
    /// blocking job).
    pub(crate) fn shutdown(&self, deadline: Option<Instant>) {
        let (queued, threads) = {
            let mut shared = self.pool.lock();
            shared.shutdown = true;
            let (mandatory, queued): (VecDeque<Job>, VecDeque<Job>) =
                shared.queue.drain(..).partition(|job| job.mandatory);
            shared.queue = mandatory;
            let threads: Vec<_> = shared.threads.drain().map(|(_, handle)| handle).collect();
            (queued, threads)
        };
        self.pool.condvar.notify_all();
        for job in queued {
            job.task.shutdown();
        }
        let me = thread::current().id();
        let allowed = usize::from(threads.iter().any(|handle| handle.thread().id() == me));
        let mut shared = self.pool.lock();
        while shared.num_threads > allowed {
            let now = Instant::now();
            shared = match deadline {
                None => self
                    .pool
                    .exited
                    .wait(shared)
                    .unwrap_or_else(PoisonError::into_inner),
                Some(deadline) if now < deadline => {
                    self.pool
                        .exited
                        .wait_timeout(shared, deadline - now)
                        .unwrap_or_else(PoisonError::into_inner)
                        .0
                }
                Some(_) => break,
            };
        }
        // Every thread has left its loop: each has at most its
        // `on_thread_stop` hook left to run, so wait for that too.
        let all_left = shared.num_threads <= allowed;
        drop(shared);
        for handle in threads {
            // Join those that have finished (or are finishing); the rest,
            // still in a job past the deadline, are detached.
            if handle.thread().id() != me && (all_left || handle.is_finished()) {
                let _ = handle.join();
            }
        }
    }
}
