//! The public face of the runtime: [`Runtime`], [`Handle`], [`spawn`].
//!
//! A `Runtime` owns the worker threads; dropping it shuts them down,
//! cancelling every task still alive (each future is dropped exactly once),
//! and joins them. A `Handle` is a cheap clone that can spawn onto the
//! runtime from anywhere, including threads outside it.
//!
//! Book: Chapter 7, "Many workers, one runtime" and "Shutdown".

mod block_on;
mod builder;
pub(crate) mod context;
mod metrics;

pub use builder::{
    Builder, DEFAULT_EVENT_INTERVAL, DEFAULT_GLOBAL_QUEUE_INTERVAL, DEFAULT_LONG_POLL_THRESHOLD,
    DEFAULT_MAX_BLOCKING_THREADS, DEFAULT_THREAD_KEEP_ALIVE,
};
pub use metrics::RuntimeMetrics;
pub use metrics::{MetricsSnapshot, TaskPolls, WorkerSnapshot};

use crate::scheduler;
use crate::task::JoinHandle;
use std::fmt;
use std::future::Future;
use std::io;
use std::sync::Arc;
use std::thread::JoinHandle as ThreadHandle;

/// A multi-threaded, work-stealing async runtime.
pub struct Runtime {
    handle: Handle,
    threads: Vec<ThreadHandle<()>>,
    /// The long-poll detector's thread, if enabled.
    watchdog: Option<ThreadHandle<()>>,
    /// Workers whose thread could not be started (build failed part-way).
    unstarted_workers: usize,
}

/// A handle to a runtime: spawns onto it from any thread.
#[derive(Clone)]
pub struct Handle {
    pub(crate) inner: Arc<scheduler::Handle>,
}

impl Runtime {
    /// A runtime with one worker per logical CPU.
    pub fn new() -> io::Result<Runtime> {
        Builder::new_multi_thread().build()
    }

    fn new_unstarted(inner: Arc<scheduler::Handle>) -> Runtime {
        Runtime {
            handle: Handle { inner },
            threads: Vec::new(),
            watchdog: None,
            unstarted_workers: 0,
        }
    }

    /// Runs `future` to completion on the current thread, with this runtime
    /// as the current one (so `spawn` inside it spawns here), and returns its
    /// output. The workers keep running spawned tasks meanwhile.
    ///
    /// # Panics
    ///
    /// If called from inside a runtime (a task, or another `block_on`).
    pub fn block_on<F: Future>(&self, future: F) -> F::Output {
        self.handle.block_on(future)
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

    /// Runs `f` on this runtime's blocking pool.
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
        let inner = &self.handle.inner;
        if self.unstarted_workers > 0 {
            // Hand in the cores of workers that never started, so the last
            // worker's drain does not wait for them.
            for _ in 0..self.unstarted_workers {
                let (_, run_queue) = scheduler::queue::local();
                inner.shutdown_core(scheduler::worker::Core::new(usize::MAX, run_queue));
            }
        }
        inner.shutdown();
        let me = std::thread::current().id();
        for thread in self.threads.drain(..) {
            // A runtime dropped from one of its own tasks cannot wait for
            // its own thread; that worker exits when the task returns.
            if thread.thread().id() != me {
                let _ = thread.join();
            }
        }
        // Tasks spawned from outside while the workers were stopping were
        // cancelled when spawned; clear whatever is left.
        inner.owned.close_and_shutdown_all();
        drop(inner.inject.drain());
        // Queued blocking jobs are cancelled; running ones finish first.
        inner.blocking.shutdown();
        // Whoever still waits on a socket sees the runtime gone.
        inner.driver.io.shutdown();
        if let Some(watchdog) = self.watchdog.take() {
            let _ = watchdog.join();
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
    pub fn current() -> Handle {
        Handle::try_current().expect("Handle::current called outside of a runtime")
    }

    /// The runtime this thread is in, if any.
    pub fn try_current() -> Option<Handle> {
        context::with_current(|inner| {
            inner.map(|inner| Handle {
                inner: inner.clone(),
            })
        })
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
    pub fn block_on<F: Future>(&self, future: F) -> F::Output {
        let _enter = context::enter_runtime(self.inner.clone());
        block_on::block_on(future)
    }

    /// Makes this runtime the current one for this thread until the guard is
    /// dropped, so that [`spawn`] works from plain threads.
    pub fn enter(&self) -> EnterGuard {
        EnterGuard {
            _guard: context::set_current(self.inner.clone()),
        }
    }

    /// Counters and gauges of this runtime.
    pub fn metrics(&self) -> RuntimeMetrics {
        RuntimeMetrics::new(self.inner.clone())
    }

    /// Runs `f` on this runtime's blocking pool.
    #[track_caller]
    pub fn spawn_blocking<F, R>(&self, f: F) -> JoinHandle<R>
    where
        F: FnOnce() -> R + Send + 'static,
        R: Send + 'static,
    {
        self.inner
            .blocking
            .spawn(self.inner.next_id(), f, std::panic::Location::caller())
    }
}

/// A poll that kept its worker longer than the long-poll threshold, as the
/// detector reports it.
#[derive(Debug, Clone, Copy)]
pub struct LongPoll {
    /// The worker it ran on.
    pub worker: usize,
    /// Where the task was spawned.
    pub location: &'static std::panic::Location<'static>,
    /// How long the poll ran (to within half the threshold), not
    /// counting time its thread waited for a CPU.
    pub duration: std::time::Duration,
    /// True if the poll had not ended when reported (after a second).
    pub still_running: bool,
}

impl fmt::Display for LongPoll {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "rt: a poll of the task spawned at {}:{} {} {:.1} ms on worker {}, and the worker's other tasks waited: \
             a blocking call, or too much work between two .await points (use spawn_blocking, or yield)",
            self.location.file(),
            self.location.line(),
            if self.still_running {
                "has been running for"
            } else {
                "ran for"
            },
            self.duration.as_secs_f64() * 1e3,
            self.worker
        )
    }
}

/// Receives long-poll reports; see [`Builder::on_long_poll`].
pub type LongPollHook = std::sync::Arc<dyn Fn(&LongPoll) + Send + Sync>;

/// Returned by [`Handle::enter`].
pub struct EnterGuard {
    _guard: context::SetCurrentGuard,
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
    context::with_current(|inner| match inner {
        Some(inner) => inner.spawn(future, location),
        None => panic!(
            "rt::spawn called outside of a runtime: call it from a task, from block_on, or under Handle::enter"
        ),
    })
}

impl fmt::Debug for Runtime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Runtime")
            .field("workers", &self.handle.inner.num_workers())
            .finish()
    }
}

impl fmt::Debug for Handle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Handle")
            .field("workers", &self.inner.num_workers())
            .finish()
    }
}
