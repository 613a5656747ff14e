//! Tasks that are not `Send`: a [`LocalSet`] runs them on the thread that
//! polls it, with Tokio's names ([`spawn_local`], [`LocalSet::run_until`],
//! [`LocalSet::block_on`]).
//!
//! Every task the runtime's workers run must be `Send`, because any worker
//! may poll it. A future that holds an `Rc` or a `RefCell` borrowed across
//! an `.await` is not, and cannot be spawned. A `LocalSet` is a small
//! executor of its own for such futures: its tasks are only ever polled
//! from inside the set's own poll, on the one thread that polls it (the
//! set itself is not `Send`, so it cannot move), while the futures around
//! it run on the runtime as usual: a local task may use sockets, timers and
//! `rt::spawn`.
//!
//! It is built from parts the book has already taken apart:
//! `futures`' `FuturesUnordered` polls only the tasks whose wakers fired
//! (its wakers are `Send` and may be woken from any thread, which wakes
//! whoever polls the set), a oneshot channel carries each task's output to
//! its handle, and `futures`' `Abortable` makes `abort` drop the future at
//! its next turn. No `unsafe` code. The handle is a [`JoinHandle`], as in
//! Tokio, with a `LocalJoinHandle` (the channel and the abort handle)
//! inside.
//!
//! Book: Chapter 8, "Writing programs".

use super::Id;
use super::error::JoinError;
use super::join::JoinHandle;
use futures::channel::oneshot;
use futures::future::{
    AbortHandle as FutureAbortHandle, Abortable, CatchUnwind, FutureExt, LocalBoxFuture,
};
use futures::stream::{FuturesUnordered, StreamExt};
use std::cell::{Cell, RefCell};
use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::rc::Rc;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll, Waker};

/// How many local tasks one poll of the set may run before it yields to
/// the rest of the thread's work (the set wakes itself to come back).
const TASKS_PER_POLL: usize = 128;

/// A set of tasks that run on the current thread, which need not be
/// `Send`: its tasks run only while it is polled, on the thread that
/// polls it (`run_until`, `block_on`, or awaiting the set).
pub struct LocalSet {
    shared: Rc<LocalTasks>,
}

struct LocalTasks {
    /// The tasks that have been polled at least once.
    running: RefCell<FuturesUnordered<LocalBoxFuture<'static, ()>>>,
    /// Tasks spawned since the last poll (a task may spawn while `running`
    /// is borrowed to poll it).
    spawned: RefCell<Vec<LocalBoxFuture<'static, ()>>>,
    /// Whoever last polled the set, woken when a task is spawned.
    waker: RefCell<Option<Waker>>,
    /// The set is being dropped: a task spawned now (by a destructor of
    /// one of its tasks) is dropped at once, unpolled, as Tokio's closed
    /// set does.
    closed: Cell<bool>,
    /// The set's identity, unique among the runtimes and sets of this
    /// process ([`LocalSet::id`]).
    id: crate::runtime::Id,
}

thread_local! {
    /// The set being polled on this thread, for [`spawn_local`].
    static CURRENT: RefCell<Option<Rc<LocalTasks>>> = const { RefCell::new(None) };
}

/// Makes `shared` the current set until dropped, then puts back whatever
/// was current before (sets may be polled inside one another).
struct Enter {
    previous: Option<Rc<LocalTasks>>,
}

impl Enter {
    fn new(shared: &Rc<LocalTasks>) -> Enter {
        let previous = CURRENT.with(|current| current.borrow_mut().replace(shared.clone()));
        Enter { previous }
    }

    /// As [`new`](Enter::new), or `None` on a thread whose thread-locals
    /// are being destroyed (a set kept in one, dropped as its thread
    /// exits).
    fn try_new(shared: &Rc<LocalTasks>) -> Option<Enter> {
        CURRENT
            .try_with(|current| current.borrow_mut().replace(shared.clone()))
            .ok()
            .map(|previous| Enter { previous })
    }
}

impl Drop for Enter {
    fn drop(&mut self) {
        let previous = self.previous.take();
        // `try_with`: on a thread whose thread-locals are being destroyed
        // (a set or a guard kept in one), there is nothing to restore.
        let _ = CURRENT.try_with(|current| *current.borrow_mut() = previous);
    }
}

impl Default for LocalSet {
    fn default() -> LocalSet {
        LocalSet::new()
    }
}

impl std::fmt::Debug for LocalSet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LocalSet").finish_non_exhaustive()
    }
}

/// Dropping the set drops its tasks' futures (each task's handle then
/// gives a cancelled [`JoinError`]). They are dropped with the set as the
/// current one, as Tokio's are, so that a destructor may call
/// [`spawn_local`]: the set, closed by then, drops that new task at once
/// without polling it, and its handle says cancelled. `block_in_place` is
/// refused there, as in the set's polls.
impl Drop for LocalSet {
    fn drop(&mut self) {
        let shared = &self.shared;
        shared.closed.set(true);
        let _enter = Enter::try_new(shared);
        let _no_block_in_place = crate::runtime::context::enter_local_set();
        // Out of the cells first: a destructor may spawn (which looks at
        // `spawned`) while they drop.
        let running = std::mem::take(&mut *shared.running.borrow_mut());
        let spawned = std::mem::take(&mut *shared.spawned.borrow_mut());
        drop(running);
        drop(spawned);
        drop(shared.waker.borrow_mut().take());
    }
}

impl LocalSet {
    /// An empty set.
    pub fn new() -> LocalSet {
        LocalSet {
            shared: Rc::new(LocalTasks {
                running: RefCell::new(FuturesUnordered::new()),
                spawned: RefCell::new(Vec::new()),
                waker: RefCell::new(None),
                closed: Cell::new(false),
                id: crate::runtime::Id::next(),
            }),
        }
    }

    /// This set's [`Id`](crate::runtime::Id), which no runtime or other
    /// set of this process shares, as Tokio's `LocalSet::id`.
    pub fn id(&self) -> crate::runtime::Id {
        self.shared.id
    }

    /// Spawns a task on this set. It runs when the set is polled (by
    /// [`run_until`](LocalSet::run_until), [`block_on`](LocalSet::block_on)
    /// or awaiting the set itself), not before.
    #[track_caller]
    pub fn spawn_local<F>(&self, future: F) -> JoinHandle<F::Output>
    where
        F: Future + 'static,
        F::Output: 'static,
    {
        JoinHandle::local(self.shared.spawn(future))
    }

    /// Runs `future` to completion on this thread, and the set's tasks
    /// while it runs; [`spawn_local`] inside it spawns onto this set. What
    /// is left of the set's tasks when `future` completes stays in the set.
    pub fn run_until<F: Future>(&self, future: F) -> RunUntil<'_, F> {
        RunUntil {
            set: self,
            future: Box::pin(future),
        }
    }

    /// `rt.block_on(self.run_until(future))`: runs `future` and the set's
    /// tasks on this thread, inside the runtime `rt`.
    ///
    /// # Panics
    ///
    /// Inside a task or another `block_on`, as [`Runtime::block_on`]
    /// does.
    ///
    /// [`Runtime::block_on`]: crate::runtime::Runtime::block_on
    #[track_caller]
    pub fn block_on<F: Future>(&self, rt: &crate::runtime::Runtime, future: F) -> F::Output {
        rt.block_on(self.run_until(future))
    }

    /// Makes this set the target of [`spawn_local`] until the guard is
    /// dropped (the tasks still run only when the set is polled).
    pub fn enter(&self) -> LocalEnterGuard {
        LocalEnterGuard {
            _enter: Enter::new(&self.shared),
        }
    }
}

/// The guard of [`LocalSet::enter`].
pub struct LocalEnterGuard {
    _enter: Enter,
}

impl std::fmt::Debug for LocalEnterGuard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LocalEnterGuard").finish_non_exhaustive()
    }
}

// ANCHOR: local_spawn
impl LocalTasks {
    fn spawn<F>(&self, future: F) -> LocalJoinHandle<F::Output>
    where
        F: Future + 'static,
        F::Output: 'static,
    {
        let id = local_task_id();
        let (output, receiver) = oneshot::channel();
        let (abort, registration) = FutureAbortHandle::new_pair();
        let finished = Arc::new(AtomicBool::new(false));
        // A panic ends this task only, and reaches its handle.
        let caught = AssertUnwindSafe(future).catch_unwind();
        let task = LocalTask {
            id,
            future: Some(Box::pin(Abortable::new(caught, registration))),
            output: Some(output),
            finished: finished.clone(),
        };
        let task = WithId {
            id,
            future: Some(task.boxed_local()),
        }
        .boxed_local();
        if self.closed.get() {
            // The set is being dropped: the task never runs.
            drop(task);
        } else {
            self.spawned.borrow_mut().push(task);
            if let Some(waker) = self.waker.borrow().as_ref() {
                waker.wake_by_ref();
            }
        }
        LocalJoinHandle {
            receiver,
            abort,
            finished,
            id,
        }
    }
    // ANCHOR_END: local_spawn

    /// Polls the tasks that are ready, at most `TASKS_PER_POLL` of them.
    /// Ready(()) when the set has no task left.
    fn poll_tasks(&self, cx: &mut Context<'_>) -> Poll<()> {
        *self.waker.borrow_mut() = Some(cx.waker().clone());
        let mut running = self.running.borrow_mut();
        for _ in 0..TASKS_PER_POLL {
            running.extend(self.spawned.borrow_mut().drain(..));
            let polled = running.poll_next_unpin(cx);
            if polled.is_ready() && running.is_empty() && self.spawned.borrow().is_empty() {
                return Poll::Ready(());
            }
            if polled.is_pending() && self.spawned.borrow().is_empty() {
                return Poll::Pending;
            }
            // A task finished, or one was spawned meanwhile: go round again.
        }
        // More may be ready: come back after the thread's other work.
        cx.waker().wake_by_ref();
        Poll::Pending
    }
}

/// A local task's future as its handle needs it: the output (or error) is
/// sent to the handle, and `finished` set, only once the future has been
/// dropped, so that whoever sees the task finished (by its handle or
/// `is_finished`) sees its destructor done, as Tokio guarantees. That
/// holds also when the task is dropped unfinished, with its set: the
/// handle then reads a cancellation (or the panic the future's drop
/// raised).
struct LocalTask<F: Future> {
    id: Id,
    /// `None` once the future is done or dropped.
    #[allow(clippy::type_complexity)]
    future: Option<Pin<Box<Abortable<CatchUnwind<AssertUnwindSafe<F>>>>>>,
    /// `None` once the result is sent.
    output: Option<oneshot::Sender<Result<F::Output, JoinError>>>,
    finished: Arc<AtomicBool>,
}

impl<F: Future> Future for LocalTask<F> {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let this = &mut *self;
        let Some(future) = this.future.as_mut() else {
            return Poll::Ready(());
        };
        let result = match future.as_mut().poll(cx) {
            Poll::Pending => return Poll::Pending,
            Poll::Ready(Ok(Ok(value))) => Ok(value),
            Poll::Ready(Ok(Err(panic))) => Err(JoinError::panic(panic).with_id(this.id)),
            Poll::Ready(Err(_aborted)) => Err(JoinError::cancelled().with_id(this.id)),
        };
        // What the future still holds (an aborted one, all of it) drops
        // now; a panic there does not change the result, as in any task.
        let _ = std::panic::catch_unwind(AssertUnwindSafe(|| this.future = None));
        this.finished.store(true, Ordering::Release);
        if let Some(output) = this.output.take() {
            // The handle may be gone: nobody wants the output.
            let _ = output.send(result);
        }
        Poll::Ready(())
    }
}

impl<F: Future> Drop for LocalTask<F> {
    fn drop(&mut self) {
        if self.future.is_none() {
            return;
        }
        // Dropped unfinished: the future first, then the handle is told.
        let dropped = std::panic::catch_unwind(AssertUnwindSafe(|| self.future = None));
        self.finished.store(true, Ordering::Release);
        if let (Err(panic), Some(output)) = (dropped, self.output.take()) {
            let _ = output.send(Err(JoinError::panic(panic).with_id(self.id)));
        }
        // A sender still here drops with the task: the handle reads that
        // as a cancellation.
    }
}

/// A local task's future, polled and dropped with its id published as the
/// running task's, so `task::id()` works inside it and in the destructors
/// of what it holds, as in any other task.
struct WithId {
    id: Id,
    /// `None` once dropped (taken in `drop`, so it drops inside the id).
    future: Option<LocalBoxFuture<'static, ()>>,
}

impl Future for WithId {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let _id = super::id::enter(self.id.0);
        match self.future.as_mut() {
            Some(future) => future.poll_unpin(cx),
            None => Poll::Ready(()),
        }
    }
}

impl Drop for WithId {
    fn drop(&mut self) {
        let _id = super::id::enter(self.id.0);
        drop(self.future.take());
    }
}

/// An id for a local task: the next of the process-wide counter every
/// task's id comes from, so that it differs from every other task's, on any
/// runtime or none.
fn local_task_id() -> Id {
    Id(super::id::next())
}

/// Spawns a `!Send` task on the [`LocalSet`] being run on this thread.
///
/// # Panics
///
/// Outside a `LocalSet` (not inside its `run_until`, `block_on`, poll or
/// `enter` guard), as Tokio's does.
#[track_caller]
pub fn spawn_local<F>(future: F) -> JoinHandle<F::Output>
where
    F: Future + 'static,
    F::Output: 'static,
{
    let shared = CURRENT.with(|current| current.borrow().clone());
    match shared {
        Some(shared) => JoinHandle::local(shared.spawn(future)),
        None => panic!(
            "`spawn_local` called from outside of a `task::LocalSet` or `runtime::LocalRuntime`"
        ),
    }
}

/// The future of [`LocalSet::run_until`].
pub struct RunUntil<'a, F: Future> {
    set: &'a LocalSet,
    future: Pin<Box<F>>,
}

impl<F: Future> Future for RunUntil<'_, F> {
    type Output = F::Output;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        let shared = self.set.shared.clone();
        let _enter = Enter::new(&shared);
        let _no_block_in_place = crate::runtime::context::enter_local_set();
        if let Poll::Ready(output) = self.future.as_mut().poll(cx) {
            return Poll::Ready(output);
        }
        let _ = shared.poll_tasks(cx);
        // A task may have finished what the future waits for; if so the
        // future's waker fired and we are polled again.
        Poll::Pending
    }
}

impl Future for LocalSet {
    type Output = ();

    /// Runs the set's tasks until none is left.
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let shared = self.shared.clone();
        let _enter = Enter::new(&shared);
        let _no_block_in_place = crate::runtime::context::enter_local_set();
        shared.poll_tasks(cx)
    }
}

/// What the [`JoinHandle`] of a task spawned on a [`LocalSet`] holds:
/// awaiting it gives the task's output, or a [`JoinError`] if it panicked,
/// was aborted, or was dropped with its set before it finished. Dropping it
/// detaches the task.
pub(crate) struct LocalJoinHandle<T> {
    receiver: oneshot::Receiver<Result<T, JoinError>>,
    abort: FutureAbortHandle,
    finished: Arc<AtomicBool>,
    id: Id,
}

impl<T> std::fmt::Debug for LocalJoinHandle<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LocalJoinHandle")
            .field("finished", &self.is_finished())
            .finish_non_exhaustive()
    }
}

impl<T> LocalJoinHandle<T> {
    /// Asks the task to stop: its future is dropped at its next turn, and
    /// the handle then gives a cancelled [`JoinError`] (unless it had
    /// already finished).
    pub(crate) fn abort(&self) {
        self.abort.abort();
    }

    /// True once the task has finished (with an output, a panic, by
    /// abort, or dropped with its set).
    pub(crate) fn is_finished(&self) -> bool {
        self.finished.load(Ordering::Acquire)
    }

    /// The task's id.
    pub(crate) fn id(&self) -> Id {
        self.id
    }

    /// A handle that can cancel the task without awaiting it.
    pub(crate) fn abort_handle(&self) -> super::AbortHandle {
        super::AbortHandle::local(self.abort.clone(), self.finished.clone(), self.id)
    }
}

impl<T> Future for LocalJoinHandle<T> {
    type Output = Result<T, JoinError>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        match self.receiver.poll_unpin(cx) {
            Poll::Ready(Ok(result)) => Poll::Ready(result),
            // The task was dropped unfinished: its set was dropped.
            Poll::Ready(Err(oneshot::Canceled)) => {
                Poll::Ready(Err(JoinError::cancelled().with_id(self.id)))
            }
            Poll::Pending => Poll::Pending,
        }
    }
}
