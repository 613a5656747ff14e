//! [`LocalRuntime`]: a current-thread runtime whose `block_on` also runs
//! tasks that are not `Send`, with no [`LocalSet`] for the caller to make
//! (Tokio's `runtime::LocalRuntime`, and `#[rt::main(flavor = "local")]`).
//!
//! Ours is exactly that sentence: a current-thread [`Runtime`] and a
//! [`LocalSet`] of its own, and `block_on(f)` is the set's
//! `run_until(f)` on the runtime. So [`spawn_local`] works anywhere inside
//! `block_on`, and the local tasks run whenever `block_on` runs, as in
//! Tokio. The set holds an `Rc`, so a `LocalRuntime` is neither `Send` nor
//! `Sync`: it stays on the thread that made it.
//!
//! Book: Chapter 8, "Writing programs".

use super::{Builder, EnterGuard, Handle, Runtime, RuntimeMetrics};
use crate::task::{JoinHandle, LocalSet};
use std::fmt;
use std::future::Future;
use std::io;
use std::time::Duration;

/// Options of [`Builder::build_local`]; there are none yet (as in Tokio).
#[derive(Default, Debug)]
#[non_exhaustive]
pub struct LocalOptions {
    /// Keeps the options `!Send`, as Tokio's are.
    _not_send: std::marker::PhantomData<*mut u8>,
}

/// A current-thread runtime that runs `!Send` tasks spawned by
/// [`spawn_local`](crate::task::spawn_local) inside its
/// [`block_on`](LocalRuntime::block_on), without a [`LocalSet`].
///
/// ```
/// use std::rc::Rc;
///
/// let runtime = rt::runtime::LocalRuntime::new().unwrap();
/// let shared = Rc::new(5);
/// let total = runtime.block_on(async {
///     let shared = shared.clone();
///     rt::task::spawn_local(async move { *shared * 2 }).await.unwrap()
/// });
/// assert_eq!(total, 10);
/// ```
pub struct LocalRuntime {
    /// Dropped first: the local tasks go before the runtime they use.
    local: LocalSet,
    runtime: Runtime,
}

// As a `Runtime`: a panic caught around it leaves it usable (the set's
// cells are only touched from this thread, between polls), as Tokio's.
impl std::panic::UnwindSafe for LocalRuntime {}
impl std::panic::RefUnwindSafe for LocalRuntime {}

impl LocalRuntime {
    /// A local runtime with I/O and time enabled:
    /// `Builder::new_current_thread().enable_all().build_local(Default::default())`.
    pub fn new() -> io::Result<LocalRuntime> {
        Builder::new_current_thread()
            .enable_all()
            .build_local(LocalOptions::default())
    }

    /// A handle to the runtime, for spawning `Send` tasks onto it from
    /// anywhere (they run while `block_on` runs).
    pub fn handle(&self) -> &Handle {
        self.runtime.handle()
    }

    /// Spawns a task that need not be `Send` on the runtime's
    /// [`LocalSet`]; it runs while `block_on` runs.
    #[track_caller]
    pub fn spawn_local<F>(&self, future: F) -> JoinHandle<F::Output>
    where
        F: Future + 'static,
        F::Output: 'static,
    {
        self.local.spawn_local(future)
    }

    /// Runs `f` on the runtime's blocking pool.
    #[track_caller]
    pub fn spawn_blocking<F, R>(&self, f: F) -> JoinHandle<R>
    where
        F: FnOnce() -> R + Send + 'static,
        R: Send + 'static,
    {
        self.runtime.spawn_blocking(f)
    }

    /// Runs `future` to completion on this thread, and the local tasks and
    /// the runtime's other tasks while it runs.
    ///
    /// # Panics
    ///
    /// Inside a task or another `block_on`, as [`Runtime::block_on`] does.
    #[track_caller]
    pub fn block_on<F: Future>(&self, future: F) -> F::Output {
        self.local.block_on(&self.runtime, future)
    }

    /// Makes this runtime current, and its set the target of
    /// [`spawn_local`](crate::task::spawn_local), until the guard is
    /// dropped; what is spawned runs at the next `block_on`.
    #[track_caller]
    pub fn enter(&self) -> EnterGuard<'_> {
        let mut guard = self.runtime.enter();
        guard._local = Some(self.local.enter());
        guard
    }

    /// Drops the local tasks, then shuts the runtime down, waiting at most
    /// `duration` for its blocking threads; see
    /// [`Runtime::shutdown_timeout`].
    pub fn shutdown_timeout(self, duration: Duration) {
        let LocalRuntime { local, runtime } = self;
        drop(local);
        runtime.shutdown_timeout(duration);
    }

    /// [`shutdown_timeout`](Self::shutdown_timeout) without waiting.
    pub fn shutdown_background(self) {
        self.shutdown_timeout(Duration::ZERO);
    }

    /// Counters and gauges of the runtime.
    pub fn metrics(&self) -> RuntimeMetrics {
        self.runtime.metrics()
    }
}

impl fmt::Debug for LocalRuntime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LocalRuntime")
            .field("runtime", &self.runtime)
            .finish_non_exhaustive()
    }
}

impl Builder {
    /// Builds a [`LocalRuntime`] from a current-thread builder.
    ///
    /// # Panics
    ///
    /// On a multi-thread builder, as Tokio's does: a local runtime runs on
    /// one thread.
    #[track_caller]
    pub fn build_local(&mut self, options: LocalOptions) -> io::Result<LocalRuntime> {
        let _ = options;
        assert!(
            self.is_current_thread(),
            "a LocalRuntime needs Builder::new_current_thread, not new_multi_thread"
        );
        Ok(LocalRuntime {
            local: LocalSet::new(),
            runtime: self.build()?,
        })
    }
}
