//! The three runtimes behind one small trait, so that every workload is the
//! same code on each: ours (`rt`), Tokio's multi-threaded runtime, and
//! `async-executor` (smol's executor) run on the same number of threads.
//! For the current-thread comparison, the same three with no worker
//! threads: ours and Tokio's current-thread runtimes, and async-executor run
//! by the thread in `block_on`.
//!
//! What differs is only what must: how a task is spawned, how a thread
//! blocks on a future, how a task yields. Channels in the workloads come from
//! the `futures` crate and are the same for all three.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

/// A runtime under test.
pub trait Runtime: Sized {
    /// Spawns from anywhere; cloned into tasks that spawn.
    type Spawner: Spawner;

    /// The name in tables and JSON.
    const NAME: &'static str;

    /// Starts the runtime with `workers` worker threads.
    fn start(workers: usize) -> Self;

    /// A spawner for this runtime.
    fn spawner(&self) -> Self::Spawner;

    /// Runs `future` on the calling thread (not as a worker) until done.
    fn block_on<F: Future>(&self, future: F) -> F::Output;
}

/// Spawns tasks onto one runtime.
pub trait Spawner: Clone + Send + Sync + 'static {
    /// A task's join handle, as a future of its output.
    type Join<T: Send + 'static>: Future<Output = T> + Send + 'static;

    /// Spawns a task and returns its join handle.
    fn spawn<F>(&self, future: F) -> Self::Join<F::Output>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static;

    /// Spawns a task nobody will join.
    fn spawn_detached<F>(&self, future: F)
    where
        F: Future<Output = ()> + Send + 'static;

    /// Yields the current task to the runtime once.
    fn yield_now(&self) -> impl Future<Output = ()> + Send + 'static;
}

// ---- ours -------------------------------------------------------------------

/// This chapter's runtime.
pub struct Ours(rt::Runtime);

impl Runtime for Ours {
    type Spawner = rt::Handle;
    const NAME: &'static str = "ours";

    fn start(workers: usize) -> Ours {
        Ours(
            rt::Builder::new_multi_thread()
                .worker_threads(workers)
                .build()
                .expect("start rt"),
        )
    }

    fn spawner(&self) -> rt::Handle {
        self.0.handle().clone()
    }

    fn block_on<F: Future>(&self, future: F) -> F::Output {
        self.0.block_on(future)
    }
}

/// This chapter's runtime with its metrics (and so the long-poll detector)
/// switched off: to measure what they cost.
pub struct OursWithoutMetrics(rt::Runtime);

impl Runtime for OursWithoutMetrics {
    type Spawner = rt::Handle;
    const NAME: &'static str = "ours, metrics off";

    fn start(workers: usize) -> OursWithoutMetrics {
        OursWithoutMetrics(
            rt::Builder::new_multi_thread()
                .worker_threads(workers)
                .disable_metrics()
                .build()
                .expect("start rt"),
        )
    }

    fn spawner(&self) -> rt::Handle {
        self.0.handle().clone()
    }

    fn block_on<F: Future>(&self, future: F) -> F::Output {
        self.0.block_on(future)
    }
}

/// This chapter's current-thread runtime: the thread in `block_on` runs the
/// tasks (`workers` is ignored).
pub struct OursCurrentThread(rt::Runtime);

impl Runtime for OursCurrentThread {
    type Spawner = rt::Handle;
    const NAME: &'static str = "ours, current-thread";

    fn start(_workers: usize) -> OursCurrentThread {
        OursCurrentThread(
            rt::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("start rt"),
        )
    }

    fn spawner(&self) -> rt::Handle {
        self.0.handle().clone()
    }

    fn block_on<F: Future>(&self, future: F) -> F::Output {
        self.0.block_on(future)
    }
}

/// Our JoinHandle with the error unwrapped (workloads never fail).
pub struct OursJoin<T>(rt::task::JoinHandle<T>);

impl<T> Future for OursJoin<T> {
    type Output = T;
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<T> {
        Pin::new(&mut self.0)
            .poll(cx)
            .map(|result| result.expect("task failed"))
    }
}

impl Spawner for rt::Handle {
    type Join<T: Send + 'static> = OursJoin<T>;

    fn spawn<F>(&self, future: F) -> OursJoin<F::Output>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        OursJoin(rt::Handle::spawn(self, future))
    }

    fn spawn_detached<F>(&self, future: F)
    where
        F: Future<Output = ()> + Send + 'static,
    {
        drop(rt::Handle::spawn(self, future));
    }

    fn yield_now(&self) -> impl Future<Output = ()> + Send + 'static {
        rt::task::yield_now()
    }
}

// ---- Tokio ------------------------------------------------------------------

/// Tokio's multi-threaded runtime.
pub struct Tokio(tokio::runtime::Runtime);

impl Runtime for Tokio {
    type Spawner = tokio::runtime::Handle;
    const NAME: &'static str = "tokio";

    fn start(workers: usize) -> Tokio {
        Tokio(
            tokio::runtime::Builder::new_multi_thread()
                .worker_threads(workers)
                .enable_all()
                .build()
                .expect("start tokio"),
        )
    }

    fn spawner(&self) -> tokio::runtime::Handle {
        self.0.handle().clone()
    }

    fn block_on<F: Future>(&self, future: F) -> F::Output {
        self.0.block_on(future)
    }
}

/// Tokio's current-thread runtime (`workers` is ignored).
pub struct TokioCurrentThread(tokio::runtime::Runtime);

impl Runtime for TokioCurrentThread {
    type Spawner = tokio::runtime::Handle;
    const NAME: &'static str = "tokio, current-thread";

    fn start(_workers: usize) -> TokioCurrentThread {
        TokioCurrentThread(
            tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("start tokio"),
        )
    }

    fn spawner(&self) -> tokio::runtime::Handle {
        self.0.handle().clone()
    }

    fn block_on<F: Future>(&self, future: F) -> F::Output {
        self.0.block_on(future)
    }
}

/// Tokio's JoinHandle with the error unwrapped.
pub struct TokioJoin<T>(tokio::task::JoinHandle<T>);

impl<T> Future for TokioJoin<T> {
    type Output = T;
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<T> {
        Pin::new(&mut self.0)
            .poll(cx)
            .map(|result| result.expect("task failed"))
    }
}

impl Spawner for tokio::runtime::Handle {
    type Join<T: Send + 'static> = TokioJoin<T>;

    fn spawn<F>(&self, future: F) -> TokioJoin<F::Output>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        TokioJoin(tokio::runtime::Handle::spawn(self, future))
    }

    fn spawn_detached<F>(&self, future: F)
    where
        F: Future<Output = ()> + Send + 'static,
    {
        drop(tokio::runtime::Handle::spawn(self, future));
    }

    fn yield_now(&self) -> impl Future<Output = ()> + Send + 'static {
        tokio::task::yield_now()
    }
}

// ---- async-executor ------------------------------------------------------------

/// `async-executor` run by `workers` threads, as smol does it.
pub struct Smol {
    executor: Arc<async_executor::Executor<'static>>,
    stops: Vec<futures::channel::oneshot::Sender<()>>,
    threads: Vec<std::thread::JoinHandle<()>>,
}

impl Runtime for Smol {
    type Spawner = Arc<async_executor::Executor<'static>>;
    const NAME: &'static str = "async-executor";

    fn start(workers: usize) -> Smol {
        let executor = Arc::new(async_executor::Executor::new());
        let mut stops = Vec::new();
        let mut threads = Vec::new();
        for index in 0..workers {
            let (stop, stopped) = futures::channel::oneshot::channel::<()>();
            let executor = executor.clone();
            stops.push(stop);
            threads.push(
                std::thread::Builder::new()
                    .name(format!("smol-{index}"))
                    .spawn(move || {
                        let _ = futures::executor::block_on(executor.run(stopped));
                    })
                    .expect("start an executor thread"),
            );
        }
        Smol {
            executor,
            stops,
            threads,
        }
    }

    fn spawner(&self) -> Self::Spawner {
        self.executor.clone()
    }

    fn block_on<F: Future>(&self, future: F) -> F::Output {
        // Like Tokio's block_on: the calling thread waits; it does not run
        // the executor's tasks (that would give smol an extra worker).
        futures::executor::block_on(future)
    }
}

/// `async-executor` with no threads of its own: `block_on` runs the
/// executor on the calling thread while it waits (`block_on(ex.run(f))`, as
/// smol's single-threaded programs do), the counterpart of a current-thread
/// runtime. `workers` is ignored.
pub struct SmolBlockOn(Arc<async_executor::Executor<'static>>);

impl Runtime for SmolBlockOn {
    type Spawner = Arc<async_executor::Executor<'static>>;
    const NAME: &'static str = "async-executor, block_on";

    fn start(_workers: usize) -> SmolBlockOn {
        SmolBlockOn(Arc::new(async_executor::Executor::new()))
    }

    fn spawner(&self) -> Self::Spawner {
        self.0.clone()
    }

    fn block_on<F: Future>(&self, future: F) -> F::Output {
        futures::executor::block_on(self.0.run(future))
    }
}

impl Drop for Smol {
    fn drop(&mut self) {
        self.stops.clear();
        for thread in self.threads.drain(..) {
            let _ = thread.join();
        }
    }
}

impl Spawner for Arc<async_executor::Executor<'static>> {
    type Join<T: Send + 'static> = async_executor::Task<T>;

    fn spawn<F>(&self, future: F) -> async_executor::Task<F::Output>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        async_executor::Executor::spawn(self, future)
    }

    fn spawn_detached<F>(&self, future: F)
    where
        F: Future<Output = ()> + Send + 'static,
    {
        async_executor::Executor::spawn(self, future).detach();
    }

    fn yield_now(&self) -> impl Future<Output = ()> + Send + 'static {
        YieldNow(false)
    }
}

/// Yields once: wakes itself and returns `Pending` (what smol's `yield_now`
/// does).
pub struct YieldNow(bool);

impl Future for YieldNow {
    type Output = ();
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.0 {
            return Poll::Ready(());
        }
        self.0 = true;
        cx.waker().wake_by_ref();
        Poll::Pending
    }
}

// ---- the floor -------------------------------------------------------------

std::thread_local! {
    /// The floor's run queue: one per thread, so that spawning touches no
    /// atomic and takes no lock.
    static FLOOR_QUEUE: std::cell::RefCell<std::collections::VecDeque<Pin<Box<dyn Future<Output = ()>>>>> =
        std::cell::RefCell::new(std::collections::VecDeque::new());
}

/// What the machine allows a scheduler workload, for scale beside the
/// runtimes: each spawn is one allocation (the boxed future) and one push
/// onto a queue that belongs to the calling thread, and a pass runs every
/// queued task once. Nothing else: no atomics, no locks, no wakers (the
/// queue polls every pending task again on the next pass, so a task that
/// waits for another costs a poll per pass instead of a wake-up), no
/// threads to hand work to. A task with a join handle costs one more
/// allocation, the slot its output goes to.
///
/// Real programs need everything left out, so no runtime reaches it; how
/// far each stays above it is what its scheduling costs. The workloads run
/// in their current-thread form on it (see
/// [`super::workloads::set_current_thread`]): they await their done signal
/// inside `block_on`, whose thread is the one that runs the tasks.
pub struct Floor;

impl Runtime for Floor {
    type Spawner = FloorSpawner;
    const NAME: &'static str = "floor";

    fn start(_workers: usize) -> Floor {
        Floor
    }

    fn spawner(&self) -> FloorSpawner {
        FloorSpawner
    }

    fn block_on<F: Future>(&self, future: F) -> F::Output {
        let mut cx = Context::from_waker(std::task::Waker::noop());
        let mut future = std::pin::pin!(future);
        loop {
            if let Poll::Ready(output) = future.as_mut().poll(&mut cx) {
                return output;
            }
            // One pass: every task queued now is polled once; a pending one
            // goes to the back. Tasks spawned during the pass run in the next.
            let queued = FLOOR_QUEUE.with_borrow(|queue| queue.len());
            assert!(
                queued > 0,
                "the floor's block_on waits for a future with no task left to run it"
            );
            for _ in 0..queued {
                let mut task = FLOOR_QUEUE
                    .with_borrow_mut(|queue| queue.pop_front())
                    .expect("counted");
                if task.as_mut().poll(&mut cx).is_pending() {
                    FLOOR_QUEUE.with_borrow_mut(|queue| queue.push_back(task));
                }
            }
        }
    }
}

/// Spawns onto the calling thread's floor queue.
#[derive(Clone, Copy)]
pub struct FloorSpawner;

/// The floor's join handle: where the task puts its output.
/// (A `Mutex` only because the handle must be `Send`; on one thread it is
/// never contended.)
pub struct FloorJoin<T>(Arc<std::sync::Mutex<Option<T>>>);

impl<T> Future for FloorJoin<T> {
    type Output = T;
    fn poll(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<T> {
        match self.0.lock().expect("never poisoned").take() {
            Some(output) => Poll::Ready(output),
            None => Poll::Pending,
        }
    }
}

impl Spawner for FloorSpawner {
    type Join<T: Send + 'static> = FloorJoin<T>;

    fn spawn<F>(&self, future: F) -> FloorJoin<F::Output>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        let slot = Arc::new(std::sync::Mutex::new(None));
        let filled = slot.clone();
        self.spawn_detached(async move {
            let output = future.await;
            *filled.lock().expect("never poisoned") = Some(output);
        });
        FloorJoin(slot)
    }

    fn spawn_detached<F>(&self, future: F)
    where
        F: Future<Output = ()> + Send + 'static,
    {
        FLOOR_QUEUE.with_borrow_mut(|queue| queue.push_back(Box::pin(future)));
    }

    fn yield_now(&self) -> impl Future<Output = ()> + Send + 'static {
        // Its wake goes to the floor's no-op waker; the next pass polls the
        // task again anyway.
        YieldNow(false)
    }
}
