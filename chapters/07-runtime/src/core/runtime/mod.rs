//! The public face of the runtime: [`Runtime`], [`Handle`], [`spawn`].
//!
//! A `Runtime` owns the worker threads; dropping it shuts them down,
//! cancelling every task still alive (each future is dropped exactly once),
//! and waits for them ([`Runtime::shutdown_timeout`] bounds the wait,
//! [`Runtime::shutdown_background`] does not wait). A `Handle` is a cheap
//! clone that can spawn onto the runtime from anywhere, including threads
//! outside it; once the runtime has shut down, what is done through a
//! surviving handle fails clearly: a spawned task is cancelled, a socket
//! operation returns an error, a timer panics.
//!
//! Book: Chapter 7, "Many workers, one runtime" and "Shutdown".

pub(crate) mod block_on;
mod builder;
pub(crate) mod context;
mod local_runtime;
mod metrics;
pub(crate) mod task_hooks;

pub use crate::scheduler::trace::{Trace, TraceEvent, TraceKind};
pub use builder::{
    Builder, DEFAULT_EVENT_INTERVAL, DEFAULT_GLOBAL_QUEUE_INTERVAL, DEFAULT_LONG_POLL_THRESHOLD,
    DEFAULT_MAX_BLOCKING_THREADS, DEFAULT_THREAD_KEEP_ALIVE, Id, RuntimeFlavor,
};
pub(crate) use builder::{ThreadHooks, ThreadNameFn};
pub use local_runtime::{LocalOptions, LocalRuntime};
pub use metrics::RuntimeMetrics;
pub use metrics::{MetricsSnapshot, TaskPolls, WorkerSnapshot};
pub use task_hooks::TaskMeta;

use crate::scheduler::{self, Scheduler};
use crate::task::JoinHandle;
use std::fmt;
use std::future::Future;
use std::io;
use std::thread::JoinHandle as ThreadHandle;
use std::time::{Duration, Instant};

/// An async runtime: multi-threaded and work-stealing
/// ([`Builder::new_multi_thread`]), or on the thread that calls `block_on`
/// ([`Builder::new_current_thread`]).
pub struct Runtime {
    handle: Handle,
    threads: Vec<ThreadHandle<()>>,
    /// The long-poll detector's thread, if enabled.
    watchdog: Option<ThreadHandle<()>>,
    /// Workers whose thread could not be started (build failed part-way).
    unstarted_workers: usize,
    /// Shutdown has run (by `shutdown_timeout`, or by drop).
    is_shut_down: bool,
}

/// A handle to a runtime: spawns onto it from any thread.
#[derive(Clone)]
pub struct Handle {
    pub(crate) inner: Scheduler,
}

// A panic caught around a runtime or a handle leaves the runtime usable:
// its state is shared through locks and atomics (as Tokio's).
impl std::panic::UnwindSafe for Runtime {}
impl std::panic::RefUnwindSafe for Runtime {}
impl std::panic::UnwindSafe for Handle {}
impl std::panic::RefUnwindSafe for Handle {}

impl Runtime {
    /// A runtime with one worker per logical CPU.
    pub fn new() -> io::Result<Runtime> {
        Builder::new_multi_thread().build()
    }

    fn new_unstarted(inner: Scheduler) -> Runtime {
        Runtime {
            handle: Handle { inner },
            threads: Vec::new(),
            watchdog: None,
            unstarted_workers: 0,
            is_shut_down: false,
        }
    }

    /// Runs `future` to completion on the current thread, with this runtime
    /// as the current one (so `spawn` inside it spawns here), and returns its
    /// output. The workers keep running spawned tasks meanwhile.
    ///
    /// # Panics
    ///
    /// If called from inside a runtime (a task, or another `block_on`).
    #[track_caller]
    pub fn block_on<F: Future>(&self, future: F) -> F::Output {
        self.handle.block_on(future)
    }

    /// Makes this runtime the current one for this thread until the guard
    /// is dropped; see [`Handle::enter`].
    #[track_caller]
    pub fn enter(&self) -> EnterGuard<'_> {
        self.handle.enter()
    }

    /// Shuts the runtime down, waiting at most `duration` for its threads:
    /// every task is cancelled (its future dropped), sockets and timers stop
    /// working, queued blocking jobs are cancelled, and threads still busy
    /// after `duration` (a task stuck in a blocking call, a long blocking
    /// job) are left to finish on their own.
    #[track_caller]
    pub fn shutdown_timeout(mut self, duration: Duration) {
        self.shutdown(Some(duration));
    }

    /// Shuts the runtime down without waiting for its threads: as
    /// [`shutdown_timeout`](Self::shutdown_timeout) with a zero duration.
    /// Unlike dropping it, this may be called from async code.
    pub fn shutdown_background(self) {
        self.shutdown_timeout(Duration::ZERO);
    }

    /// Spawns a task onto this runtime.
    #[track_caller]
    pub fn spawn<F>(&self, future: F) -> JoinHandle<F::Output>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        self.handle.spawn(future)
    }

    /// A handle to this runtime.
    pub fn handle(&self) -> &Handle {
        &self.handle
    }

    /// Counters and gauges of this runtime.
    pub fn metrics(&self) -> RuntimeMetrics {
        self.handle.metrics()
    }

    /// What each worker did so far, if [`Builder::enable_trace`] was set.
    ///
    /// A poll is recorded when it returns. The poll that completes a task
    /// wakes whoever awaits it before returning, so that poll's event can
    /// appear in a snapshot taken a moment later rather than in this one.
    pub fn trace(&self) -> Option<Trace> {
        self.handle
            .inner
            .resources()
            .tracer
            .as_ref()
            .map(|tracer| tracer.snapshot())
    }

    /// Runs `f` on this runtime's blocking pool.
    ///
    /// # Panics
    ///
    /// If the pool has no thread to run `f` and the OS refuses to start
    /// one; see [`task::spawn_blocking`](crate::task::spawn_blocking).
    #[track_caller]
    pub fn spawn_blocking<F, R>(&self, f: F) -> JoinHandle<R>
    where
        F: FnOnce() -> R + Send + 'static,
        R: Send + 'static,
    {
        self.handle.spawn_blocking(f)
    }
}

// ANCHOR: drop
impl Drop for Runtime {
    fn drop(&mut self) {
        self.shutdown(None);
    }
}

impl Runtime {
    /// Shuts down, waiting for the threads at most `wait` (`None`: as long
    /// as they take). The order matters, and each step says why.
    fn shutdown(&mut self, wait: Option<Duration>) {
        if std::mem::replace(&mut self.is_shut_down, true) {
            return;
        }
        // 0. Waiting for the runtime's threads from one of its own tasks, or
        //    from inside block_on, would stall the very thread that should
        //    run them: refused, as Tokio refuses it. The runtime still shuts
        //    down, without waiting, and then we panic to say so.
        let refused = wait != Some(Duration::ZERO) && !context::blocking_allowed();
        let wait = if refused { Some(Duration::ZERO) } else { wait };
        let deadline = wait.map(|wait| Instant::now().checked_add(wait));
        let deadline = deadline
            .map(|at| at.unwrap_or_else(|| Instant::now() + Duration::from_secs(86_400 * 365)));
        let inner = &self.handle.inner;
        // 1. The scheduler first: refuse new tasks from outside and, on the
        //    multi-thread runtime, wake every worker, each of which cancels
        //    every task (dropping its future) and exits. Tasks go before the
        //    drivers so that no task sees its sockets fail or its timers
        //    panic in its last poll.
        // 2. Wait for the workers (a worker stuck in a blocking call may
        //    keep us past the deadline: then it is left behind). A runtime
        //    shut down from one of its own workers does not wait for itself.
        match inner {
            Scheduler::MultiThread(workers) => {
                if self.unstarted_workers > 0 {
                    // Hand in the cores of workers that never started, so
                    // the last worker's drain does not wait for them.
                    for _ in 0..self.unstarted_workers {
                        let (_, run_queue) = scheduler::multi_thread::queue::local();
                        workers.shutdown_core(scheduler::multi_thread::worker::WorkerCore::new(
                            usize::MAX,
                            run_queue,
                        ));
                    }
                }
                workers.shutdown();
                let me = std::thread::current().id();
                let on_worker = self.threads.iter().any(|thread| thread.thread().id() == me);
                let workers_done = workers.wait_for_workers(usize::from(on_worker), deadline);
                for thread in self.threads.drain(..) {
                    if thread.thread().id() != me && (workers_done || thread.is_finished()) {
                        let _ = thread.join();
                    }
                }
            }
            Scheduler::CurrentThread(current) => current.close(),
        }
        // Tasks spawned from outside while the workers were stopping were
        // cancelled when spawned; cancel whatever is left (all of them, on
        // the current-thread runtime, which has no workers) and empty the
        // queues. The runtime is current meanwhile, so a future's drop may
        // still use its handle.
        {
            let _current = context::set_current(inner.clone());
            match inner {
                Scheduler::MultiThread(workers) => {
                    workers.owned.close_and_shutdown_all();
                    drop(workers.inject.drain());
                }
                Scheduler::CurrentThread(current) => {
                    current.owned.close_and_shutdown_all();
                    current.drain();
                }
            }
        }
        // 3. Then the drivers: every socket operation now fails and every
        //    timer panics, and whoever waits on one is woken to find out.
        //    Only tasks outside the workers are left to see it: blocking
        //    jobs and block_on futures holding a Handle.
        inner.driver().shutdown();
        // 4. Last the blocking pool: queued jobs are cancelled, running ones
        //    finish. It comes after the drivers because a running job may be
        //    waiting on the runtime's sockets or timers (step 3 ended that).
        inner.resources().blocking.shutdown(deadline);
        // 5. The watchdog was told to stop in step 1 and wakes at once. A
        //    long poll a worker judged after it stopped is counted and
        //    reported here.
        if let Some(watchdog) = self.watchdog.take()
            && !refused
        {
            let _ = watchdog.join();
            if let Scheduler::MultiThread(workers) = inner {
                scheduler::watchdog::hand_over_long_polls(workers);
            }
        }
        // (While already panicking, a second panic would abort.)
        if refused && !std::thread::panicking() {
            panic!(
                "Cannot drop a runtime in a context where blocking is not allowed: it was dropped \
                 from async code (a task or block_on); drop it outside, or use shutdown_background"
            );
        }
    }
}
// ANCHOR_END: drop

impl Handle {
    /// The runtime this thread is in.
    ///
    /// # Panics
    ///
    /// If the thread is not in a runtime; see [`Handle::try_current`].
    #[track_caller]
    pub fn current() -> Handle {
        match Handle::try_current() {
            Ok(handle) => handle,
            Err(error) => panic!("{error}"),
        }
    }

    /// The runtime this thread is in: inside a task, in `block_on`, in a
    /// `spawn_blocking` job, or under [`Handle::enter`].
    pub fn try_current() -> Result<Handle, TryCurrentError> {
        context::with_current(|inner| {
            inner.map(|inner| Handle {
                inner: inner.clone(),
            })
        })
        .ok_or(TryCurrentError(()))
    }

    /// Spawns a task onto this runtime.
    #[track_caller]
    pub fn spawn<F>(&self, future: F) -> JoinHandle<F::Output>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        self.inner.spawn(future, std::panic::Location::caller())
    }

    /// Runs `future` to completion on the current thread; see
    /// [`Runtime::block_on`].
    ///
    /// # Panics
    ///
    /// If called from inside a runtime.
    #[track_caller]
    pub fn block_on<F: Future>(&self, future: F) -> F::Output {
        let _enter = context::enter_runtime(self.inner.clone());
        match &self.inner {
            Scheduler::CurrentThread(current) => current.block_on(future),
            Scheduler::MultiThread(_) => block_on::block_on(future),
        }
    }

    /// Makes this runtime the current one for this thread until the guard is
    /// dropped, so that [`spawn`] works from plain threads.
    ///
    /// # Panics
    ///
    /// When guards are dropped out of order (each must be dropped before the
    /// one made before it on the same thread).
    #[track_caller]
    pub fn enter(&self) -> EnterGuard<'_> {
        EnterGuard {
            _guard: context::set_current(self.inner.clone()),
            _local: None,
            _handle: std::marker::PhantomData,
        }
    }

    /// Counters and gauges of this runtime.
    pub fn metrics(&self) -> RuntimeMetrics {
        RuntimeMetrics::new(self.inner.clone())
    }

    /// Runs `f` on this runtime's blocking pool.
    ///
    /// # Panics
    ///
    /// If the pool has no thread to run `f` and the OS refuses to start
    /// one; see [`task::spawn_blocking`](crate::task::spawn_blocking).
    #[track_caller]
    pub fn spawn_blocking<F, R>(&self, f: F) -> JoinHandle<R>
    where
        F: FnOnce() -> R + Send + 'static,
        R: Send + 'static,
    {
        self.inner
            .spawn_blocking(f, std::panic::Location::caller(), false)
    }
}

/// What [`Handle::current`], [`spawn`] and `spawn_blocking` say outside a
/// runtime, in Tokio's words (a program's tests may match them); the
/// spawns add which call it was.
pub(crate) const NO_RUNTIME: &str =
    "there is no reactor running, must be called from the context of a Tokio 1.x runtime";

/// The index of the worker thread this is called on, counted from 0 as
/// [`RuntimeMetrics`]' per-worker methods count, as Tokio's: `None` off the
/// workers (a blocking thread, any other thread, and the thread in a
/// multi-thread runtime's `block_on`, which is not a worker); `Some(0)` on
/// the thread that drives a current-thread runtime. A task may move between
/// workers at any `.await`, so the answer holds only until the next one.
pub fn worker_index() -> Option<usize> {
    crate::scheduler::multi_thread::worker::current_worker_index()
        .or_else(|| crate::scheduler::current_thread::drives_a_runtime().then_some(0))
}

/// True if `err` is the error an I/O operation returns because its
/// runtime has shut down (a listener accepting after its runtime was
/// dropped, say), as Tokio's: an error of kind `Other` that wraps only our
/// message, so that a server shutting down can tell the end of its runtime
/// from a real I/O failure.
pub fn is_rt_shutdown_err(err: &io::Error) -> bool {
    err.kind() == io::ErrorKind::Other
        && err.get_ref().is_some_and(|inner| {
            inner.source().is_none() && inner.to_string() == crate::driver::SHUT_DOWN
        })
}

/// Returned by [`Handle::try_current`] outside a runtime.
#[derive(Debug)]
pub struct TryCurrentError(());

impl fmt::Display for TryCurrentError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Tokio's words (which users' tests match): outside a task,
        // block_on, a spawn_blocking job or Handle::enter.
        f.write_str(NO_RUNTIME)
    }
}

impl std::error::Error for TryCurrentError {}

impl TryCurrentError {
    /// True: the call was made where no runtime is current (Tokio's other
    /// case, a thread-local already destroyed, is not told apart here).
    pub fn is_missing_context(&self) -> bool {
        true
    }

    /// False: ours does not tell this case apart (see
    /// [`is_missing_context`](Self::is_missing_context)).
    pub fn is_thread_local_destroyed(&self) -> bool {
        false
    }
}

/// A poll that kept its worker longer than the long-poll threshold, as the
/// detector reports it to [`Builder::on_long_poll`].
///
/// Its `Display` is one line that says what the poll did and what to do
/// about it.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct LongPoll {
    /// The worker it ran on.
    pub worker: usize,
    /// Where the task was spawned.
    pub location: &'static std::panic::Location<'static>,
    /// How long the poll ran (to within half the threshold), not counting
    /// [`cpu_wait`](Self::cpu_wait).
    pub duration: std::time::Duration,
    /// How long its thread waited for a CPU during the poll (zero if the
    /// kernel does not say): time the kernel gave to other threads.
    pub cpu_wait: std::time::Duration,
    /// What the poll's thread was doing: blocked, busy, or preempted.
    pub cause: LongPollCause,
    /// True if the poll had not ended when reported (after a second).
    pub still_running: bool,
}

/// What a long poll's thread was doing, as the detector tells from the
/// thread's counters in `/proc` (see [`Builder::on_long_poll`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum LongPollCause {
    /// The thread gave up its CPU in a system call during the poll
    /// (`std::thread::sleep`, a synchronous read, a lock held elsewhere):
    /// the task blocked its worker. Move the call to `spawn_blocking`, or
    /// use its async version.
    Blocked,
    /// The thread never gave up its CPU: the task computed for that long
    /// without reaching an `.await` that returns `Pending`. Move the work
    /// to `spawn_blocking` (or a thread pool), or yield between pieces.
    Busy,
    /// The poll was long only because its thread waited for a CPU while
    /// the kernel ran other threads: without the wait it would have been
    /// under the threshold. Not the task's doing, so not counted in
    /// [`RuntimeMetrics::long_poll_count`]; a sign that the machine has
    /// more runnable threads than CPUs.
    Preempted,
    /// The thread's counters could not be read (no `/proc`): blocked or
    /// busy, the detector cannot say, and the duration is the wall clock's.
    Unknown,
}

impl fmt::Display for LongPollCause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            LongPollCause::Blocked => "blocked",
            LongPollCause::Busy => "busy",
            LongPollCause::Preempted => "preempted",
            LongPollCause::Unknown => "unknown",
        })
    }
}

impl fmt::Display for LongPoll {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ms = |d: std::time::Duration| d.as_secs_f64() * 1e3;
        let (file, line) = (self.location.file(), self.location.line());
        let ran = if self.still_running {
            "has been running for"
        } else {
            "ran for"
        };
        if self.cause == LongPollCause::Preempted {
            return write!(
                f,
                "rt: a poll of the task spawned at {file}:{line} {ran} {:.1} ms on worker {}, but {:.1} ms \
                 of it waiting for a CPU: the kernel preempted the worker thread, and without the wait the \
                 poll was under the threshold; not the task's doing (the machine has more runnable threads \
                 than CPUs)",
                ms(self.duration + self.cpu_wait),
                self.worker,
                ms(self.cpu_wait),
            );
        }
        write!(
            f,
            "rt: a poll of the task spawned at {file}:{line} {ran} {:.1} ms on worker {}",
            ms(self.duration),
            self.worker
        )?;
        if self.cpu_wait >= std::time::Duration::from_millis(1) {
            write!(
                f,
                " (not counting {:.1} ms waiting for a CPU)",
                ms(self.cpu_wait)
            )?;
        }
        f.write_str(match self.cause {
            LongPollCause::Blocked => {
                ", blocked in a system call, and the worker's other tasks waited: a blocking call \
                 (thread::sleep, a synchronous read, a lock) belongs in spawn_blocking, or use its async version"
            }
            LongPollCause::Busy => {
                ", computing without reaching an .await, and the worker's other tasks waited: \
                 move the work to spawn_blocking, or yield between pieces of it"
            }
            _ => {
                ", and the worker's other tasks waited: a blocking call, or too much work between \
                 two .await points (use spawn_blocking, or yield)"
            }
        })
    }
}

/// Receives long-poll reports; see [`Builder::on_long_poll`].
pub type LongPollHook = std::sync::Arc<dyn Fn(&LongPoll) + Send + Sync>;

/// Returned by [`Handle::enter`]. It borrows the handle (or runtime) it
/// came from, as Tokio's does, so the runtime cannot be dropped while it is
/// entered.
pub struct EnterGuard<'a> {
    /// A [`LocalRuntime`]'s set, entered too (dropped first: fields drop
    /// in order).
    pub(super) _local: Option<crate::task::LocalEnterGuard>,
    _guard: context::SetCurrentGuard,
    _handle: std::marker::PhantomData<&'a Handle>,
}

/// Spawns a task onto the current runtime.
///
/// # Panics
///
/// If called outside a runtime (not in a task, not in `block_on`, not under
/// [`Handle::enter`]).
#[track_caller]
pub fn spawn<F>(future: F) -> JoinHandle<F::Output>
where
    F: Future + Send + 'static,
    F::Output: Send + 'static,
{
    let location = std::panic::Location::caller();
    let mut future = Some(future);
    let spawned = context::with_current(|inner| {
        inner.map(|inner| inner.spawn(future.take().expect("taken once"), location))
    });
    // The panic is here, not in the closure, so that it reports the
    // caller's line (closures do not inherit `#[track_caller]`).
    match spawned {
        Some(join) => join,
        None => panic!(
            "{NO_RUNTIME} (rt::spawn called outside of a runtime: call it from a task, \
             from block_on, or under Handle::enter)"
        ),
    }
}

impl fmt::Debug for Runtime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Runtime")
            .field("workers", &self.handle.inner.num_workers())
            .finish()
    }
}

impl fmt::Debug for EnterGuard<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("EnterGuard").finish_non_exhaustive()
    }
}

impl fmt::Debug for Handle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Handle")
            .field("workers", &self.inner.num_workers())
            .finish()
    }
}
