//! What happens to a task, step by step: allocation, polling, completion,
//! cancellation, the JoinHandle's side, and freeing.
//!
//! Each function here is instantiated for one future type `T` and one
//! scheduler type `S` and stored in that task's vtable, so that code holding
//! only a header pointer (a run queue, a waker) can drive the task. Every
//! step starts with a transition of the state word (`state.rs`), and does
//! only what that transition gave it the right to do.
//!
//! The life of a task that runs to the end:
//!
//! ```text
//!  spawn ──> [NOTIFIED] ──pop──> [RUNNING] ──Pending──> [idle] ──wake──> [NOTIFIED] ...
//!                                    │
//!                                    └──Ready──> store output ──> [COMPLETE] ──> wake JoinHandle
//!                                                                   ──> leave the owned list
//!                                                                   ──> drop references (last one frees)
//! ```
//!
//! A panic inside `poll` is caught: the future is dropped and the panic is
//! stored as the task's output (`JoinError::is_panic`); the worker thread and
//! the runtime carry on.
//!
//! Book: Chapter 7, "A task is one allocation and one word".

use super::core::{Cell, Core, Header, Stage, Trailer, Vtable};
use super::error::JoinError;
use super::state::{Snapshot, TransitionToIdle, TransitionToNotified, TransitionToRunning};
use super::waker::WakerRef;
use super::{Notified, Schedule, Task};
use crate::loom::{AtomicU64, Ordering, UnsafeCell};
use std::future::Future;
use std::panic::Location;
use std::panic::{self, AssertUnwindSafe};
use std::ptr::NonNull;
use std::task::{Context, Poll, Waker};

/// A type-erased pointer to a task's header. Copying it does not count as a
/// reference: the owner of the pointer (Task, Notified, Waker, JoinHandle)
/// does the counting.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) struct RawTask {
    ptr: NonNull<Header>,
}

// SAFETY: a RawTask is only a pointer; what may be done through it is
// governed by the state word, whose operations are atomic. The future and
// output types were required to be Send when the task was spawned.
unsafe impl Send for RawTask {}
// SAFETY: as above.
unsafe impl Sync for RawTask {}

impl RawTask {
    /// Allocates a task; the state word starts with three references.
    pub(crate) fn new<T, S>(
        future: T,
        scheduler: S,
        id: u64,
        location: &'static Location<'static>,
    ) -> RawTask
    where
        T: Future,
        S: Schedule,
    {
        let cell = Box::new(Cell {
            header: Header {
                state: super::state::State::new(),
                vtable: vtable::<T, S>(),
                id,
                owned_index: UnsafeCell::new(usize::MAX),
                location,
                polls: AtomicU64::new(0),
            },
            core: Core {
                scheduler,
                stage: UnsafeCell::new(Stage::Running(future)),
            },
            trailer: Trailer {
                waker: UnsafeCell::new(None),
            },
        });
        let ptr = NonNull::from(Box::leak(cell)).cast::<Header>();
        RawTask { ptr }
    }

    /// Wraps a pointer obtained from [`RawTask::header_ptr`].
    ///
    /// # Safety
    ///
    /// `ptr` points to the header of a live task.
    pub(crate) unsafe fn from_raw(ptr: NonNull<Header>) -> RawTask {
        RawTask { ptr }
    }

    pub(crate) fn header_ptr(self) -> NonNull<Header> {
        self.ptr
    }

    pub(crate) fn header(&self) -> &Header {
        // SAFETY: whoever holds this RawTask holds a reference, which keeps
        // the allocation alive; the header is never written after creation
        // except through atomics and the lock-guarded owned index.
        unsafe { self.ptr.as_ref() }
    }

    /// Polls the task, consuming the reference of the `Notified` it came from.
    pub(crate) fn poll(self) {
        // SAFETY: the vtable function was made for this task's types.
        unsafe { (self.header().vtable.poll)(self.ptr) }
    }

    /// Frees the task.
    ///
    /// # Safety
    ///
    /// No references remain.
    pub(crate) unsafe fn dealloc(self) {
        // SAFETY: per the caller's contract.
        unsafe { (self.header().vtable.dealloc)(self.ptr) }
    }

    /// Shuts the task down, consuming one reference (the owned list's).
    pub(crate) fn shutdown(self) {
        // SAFETY: the vtable function was made for this task's types.
        unsafe { (self.header().vtable.shutdown)(self.ptr) }
    }

    /// The JoinHandle's poll.
    ///
    /// # Safety
    ///
    /// `dst` points to a `Poll<Result<T::Output, JoinError>>` for this
    /// task's `T`, and the caller is the task's JoinHandle.
    pub(crate) unsafe fn try_read_output(self, dst: *mut (), waker: &Waker) {
        // SAFETY: per the caller's contract.
        unsafe { (self.header().vtable.try_read_output)(self.ptr, dst, waker) }
    }

    /// The JoinHandle's drop, consuming the JoinHandle's reference.
    pub(crate) fn drop_join_handle(self) {
        if self.header().state.drop_join_handle_fast() {
            return;
        }
        // SAFETY: the vtable function was made for this task's types.
        unsafe { (self.header().vtable.drop_join_handle_slow)(self.ptr) }
    }

    /// `JoinHandle::abort`.
    pub(crate) fn remote_abort(self) {
        if self.header().state.transition_to_notified_and_cancel() {
            // SAFETY: the transition made a reference for the Notified that
            // `schedule` submits.
            unsafe { (self.header().vtable.schedule)(self.ptr) }
        }
    }

    /// Adds a reference.
    pub(crate) fn ref_inc(self) {
        self.header().state.ref_inc();
    }

    /// Drops a reference, freeing the task if it was the last.
    pub(crate) fn drop_reference(self) {
        if self.header().state.ref_dec() {
            // SAFETY: that was the last reference.
            unsafe { self.dealloc() }
        }
    }

    /// `Waker::wake`: consumes the waker's reference.
    pub(crate) fn wake_by_val(self) {
        match self.header().state.transition_to_notified_by_val() {
            // SAFETY: the waker's reference became the Notified's.
            TransitionToNotified::Submit => unsafe { (self.header().vtable.schedule)(self.ptr) },
            // SAFETY: that was the last reference.
            TransitionToNotified::Dealloc => unsafe { self.dealloc() },
            TransitionToNotified::DoNothing => {}
        }
    }

    /// `Waker::wake_by_ref`.
    pub(crate) fn wake_by_ref(self) {
        match self.header().state.transition_to_notified_by_ref() {
            // SAFETY: the transition made a reference for the Notified.
            TransitionToNotified::Submit => unsafe { (self.header().vtable.schedule)(self.ptr) },
            TransitionToNotified::Dealloc => unreachable!("wake_by_ref holds a reference"),
            TransitionToNotified::DoNothing => {}
        }
    }
}

/// The vtable for tasks of future type `T` on scheduler `S`.
fn vtable<T: Future, S: Schedule>() -> &'static Vtable {
    &Vtable {
        poll: poll::<T, S>,
        schedule: schedule::<T, S>,
        dealloc: dealloc::<T, S>,
        try_read_output: try_read_output::<T, S>,
        drop_join_handle_slow: drop_join_handle_slow::<T, S>,
        shutdown: shutdown::<T, S>,
    }
}

/// Typed access to a task, made from its header pointer.
struct Harness<T: Future, S: 'static> {
    cell: NonNull<Cell<T, S>>,
}

impl<T: Future, S: Schedule> Harness<T, S> {
    /// # Safety
    ///
    /// `ptr` is the header of a live `Cell<T, S>`.
    unsafe fn from_raw(ptr: NonNull<Header>) -> Harness<T, S> {
        Harness { cell: ptr.cast() }
    }

    fn header(&self) -> &Header {
        // SAFETY: the harness exists only while its caller holds a reference.
        unsafe { &self.cell.as_ref().header }
    }

    fn core(&self) -> &Core<T, S> {
        // SAFETY: as for `header`; the stage inside is guarded by the state word.
        unsafe { &self.cell.as_ref().core }
    }

    fn trailer(&self) -> &Trailer {
        // SAFETY: as for `header`; the waker inside is guarded by the state word.
        unsafe { &self.cell.as_ref().trailer }
    }

    fn raw(&self) -> RawTask {
        RawTask {
            ptr: self.cell.cast(),
        }
    }

    /// A worker popped this task: poll it (or cancel it) and act on the result.
    fn poll(self) {
        match self.poll_inner() {
            PollOutcome::Done => {}
            PollOutcome::Notified => {
                // Woken while running. It goes to the back of the queue, not
                // to the LIFO slot, so a task that wakes itself (yield_now)
                // lets the others run.
                let task = Notified(Task::from_raw(self.raw()));
                self.core().scheduler.yield_now(task);
            }
            PollOutcome::Complete => self.complete(),
            // SAFETY: the transition said no references remain.
            PollOutcome::Dealloc => unsafe { self.raw().dealloc() },
        }
    }

    // ANCHOR: poll_inner
    fn poll_inner(&self) -> PollOutcome {
        match self.header().state.transition_to_running() {
            TransitionToRunning::Success => {}
            TransitionToRunning::Cancelled => {
                cancel_task(self.core(), self.header().id);
                return PollOutcome::Complete;
            }
            TransitionToRunning::Failed => return PollOutcome::Done,
            TransitionToRunning::Dealloc => return PollOutcome::Dealloc,
        }

        let polls = &self.header().polls;
        polls.store(polls.load(Ordering::Relaxed) + 1, Ordering::Relaxed);
        // A waker for the duration of the poll that borrows the worker's
        // reference: no reference-count traffic unless the future clones it.
        let waker = WakerRef::new(self.raw());
        let mut cx = Context::from_waker(&waker);
        let polled = {
            // While the future runs, `task::id()` names this task.
            let _id = super::id::enter(self.header().id);
            poll_future(self.core(), self.header().id, &mut cx)
        };
        if polled.is_ready() {
            return PollOutcome::Complete;
        }

        match self.header().state.transition_to_idle() {
            TransitionToIdle::Ok => PollOutcome::Done,
            TransitionToIdle::OkNotified => PollOutcome::Notified,
            TransitionToIdle::OkDealloc => PollOutcome::Dealloc,
            TransitionToIdle::Cancelled => {
                cancel_task(self.core(), self.header().id);
                PollOutcome::Complete
            }
        }
    }
    // ANCHOR_END: poll_inner

    /// The stage holds the output (or an error): publish COMPLETE, hand the
    /// output to the JoinHandle or drop it, leave the owned list, drop the
    /// references this worker holds.
    fn complete(self) {
        let snapshot = self.header().state.transition_to_complete();
        // Dropping the output or waking the JoinHandle runs user code, which
        // may panic; the task must still be released.
        let _ = panic::catch_unwind(AssertUnwindSafe(|| self.publish_completion(snapshot)));
        // `Builder::on_task_terminate`, once per task: only `complete`
        // publishes COMPLETE. The hook is user code too.
        if let Some(terminate) = self.core().scheduler.terminate_hook() {
            let header = self.header();
            let meta = crate::runtime::TaskMeta::new(header.id, header.location);
            let _ = panic::catch_unwind(AssertUnwindSafe(|| terminate(&meta)));
        }

        // The owned list holds a reference until the task leaves it, and
        // this worker holds one. A multi-thread worker keeps both, to take
        // the task out later with a batch of others; otherwise they go now.
        // Shutdown may have taken the list's already: one less to drop.
        let scheduler = &self.core().scheduler;
        if let Some(me) = scheduler.defer_release(Task::<S>::from_raw(self.raw())) {
            let listed = scheduler.release(&me);
            me.release_with(listed);
        }
    }

    fn publish_completion(&self, snapshot: Snapshot) {
        if !snapshot.is_join_interested() {
            // The JoinHandle is gone; nobody will read the output.
            // SAFETY: COMPLETE with no join interest: the output is ours.
            unsafe { self.core().set_stage(self.header().id, Stage::Consumed) };
        } else if snapshot.is_join_waker_set() {
            // SAFETY: COMPLETE and JOIN_WAKER: we may read the waker.
            unsafe { self.trailer().wake_join() };
            let previous = self.header().state.unset_join_waker_after_complete();
            if !previous.is_join_interested() {
                // The JoinHandle was dropped while we were waking it: the
                // waker is ours to drop.
                // SAFETY: JOIN_WAKER was ours, and the handle is gone.
                unsafe { self.trailer().set_waker(None) };
            }
        }
    }

    /// The JoinHandle's poll.
    fn try_read_output(&self, dst: &mut Poll<Result<T::Output, JoinError>>, waker: &Waker) {
        if can_read_output(self.header(), self.trailer(), waker) {
            // SAFETY: COMPLETE and we are the interested JoinHandle.
            *dst = Poll::Ready(unsafe { self.core().take_output() });
        }
    }

    fn drop_join_handle_slow(self) {
        let action = self.header().state.transition_to_join_handle_dropped();
        if action.drop_output {
            // The output may panic on drop; the handle's drop must not unwind
            // through the runtime.
            // SAFETY: the task completed while we were interested.
            let _ = panic::catch_unwind(AssertUnwindSafe(|| unsafe {
                self.core().set_stage(self.header().id, Stage::Consumed)
            }));
        }
        if action.drop_waker {
            // SAFETY: JOIN_WAKER is clear: the slot is the handle's.
            unsafe { self.trailer().set_waker(None) };
        }
        self.raw().drop_reference();
    }

    fn shutdown(self) {
        if self.header().state.transition_to_shutdown() {
            // Nobody was polling it: we own the future. The owned list's
            // reference serves as the running reference.
            cancel_task(self.core(), self.header().id);
            self.complete();
        } else {
            // A worker is polling it (it will see CANCELLED) or it is done.
            self.raw().drop_reference();
        }
    }
}

enum PollOutcome {
    Done,
    Notified,
    Complete,
    Dealloc,
}

// ANCHOR: poll_future
/// Polls the future once, catching a panic; on `Ready` (or panic) the future
/// is dropped and the output stored.
fn poll_future<T: Future, S>(core: &Core<T, S>, id: u64, cx: &mut Context<'_>) -> Poll<()> {
    // SAFETY: the caller set RUNNING, so it owns the future.
    let output = match panic::catch_unwind(AssertUnwindSafe(|| unsafe { core.poll(cx) })) {
        Ok(Poll::Pending) => return Poll::Pending,
        Ok(Poll::Ready(output)) => Ok(output),
        Err(payload) => Err(JoinError::panic(payload)),
    };
    // Storing the output drops the future, which may panic: the output is
    // stored anyway (see `set_stage`), and the panic is ignored.
    // SAFETY: still RUNNING: the stage is ours.
    let _ = panic::catch_unwind(AssertUnwindSafe(|| unsafe {
        core.set_stage(id, Stage::Finished(output))
    }));
    Poll::Ready(())
}
// ANCHOR_END: poll_future

// ANCHOR: cancel_task
/// Drops the future of a cancelled task and stores the cancellation (or the
/// panic its drop raised) as the output. `set_stage` publishes the task's id
/// while the future drops, as its polls do, so that `task::id()` in a
/// destructor names the task being cancelled (as Tokio's does).
fn cancel_task<T: Future, S>(core: &Core<T, S>, id: u64) {
    // SAFETY: the caller set RUNNING (by polling or by shutdown).
    let dropped = panic::catch_unwind(AssertUnwindSafe(|| unsafe {
        core.set_stage(id, Stage::Consumed)
    }));
    let error = match dropped {
        Ok(()) => JoinError::cancelled(),
        Err(payload) => JoinError::panic(payload),
    };
    // SAFETY: still RUNNING; the stage is Consumed so nothing is dropped here.
    unsafe { core.set_stage(id, Stage::Finished(Err(error))) };
}
// ANCHOR_END: cancel_task

/// The JoinHandle's side of the waker hand-over. Returns true when the
/// output can be read; otherwise leaves `waker` where the completer will find
/// it.
fn can_read_output(header: &Header, trailer: &Trailer, waker: &Waker) -> bool {
    let snapshot = header.state.load();
    if snapshot.is_complete() {
        return true;
    }
    let result = if !snapshot.is_join_waker_set() {
        set_join_waker(header, trailer, waker.clone())
    } else {
        // SAFETY: JOIN_WAKER is set, so the slot holds a waker that nobody
        // writes until it is cleared.
        if unsafe { trailer.will_wake(waker) } {
            return false;
        }
        // A different waker (the JoinHandle moved to another task): take the
        // slot back, replace, hand over again.
        header
            .state
            .unset_join_waker()
            .and_then(|_| set_join_waker(header, trailer, waker.clone()))
    };
    match result {
        Ok(_) => false,
        Err(snapshot) => {
            debug_assert!(snapshot.is_complete());
            true
        }
    }
}

fn set_join_waker(header: &Header, trailer: &Trailer, waker: Waker) -> Result<Snapshot, Snapshot> {
    // SAFETY: JOIN_WAKER is clear: the slot is the JoinHandle's.
    unsafe { trailer.set_waker(Some(waker)) };
    let result = header.state.set_join_waker();
    if result.is_err() {
        // Completed meanwhile; the completer never saw JOIN_WAKER, so the
        // slot is still ours.
        // SAFETY: as above.
        unsafe { trailer.set_waker(None) };
    }
    result
}

// The vtable entries.

unsafe fn poll<T: Future, S: Schedule>(ptr: NonNull<Header>) {
    // SAFETY: the vtable was built for this T and S.
    unsafe { Harness::<T, S>::from_raw(ptr) }.poll();
}

unsafe fn schedule<T: Future, S: Schedule>(ptr: NonNull<Header>) {
    // SAFETY: the vtable was built for this T and S.
    let harness = unsafe { Harness::<T, S>::from_raw(ptr) };
    // SAFETY: the caller hands over a reference for this Notified.
    let task = Notified(Task::from_raw(unsafe { RawTask::from_raw(ptr) }));
    harness.core().scheduler.schedule(task);
}

unsafe fn dealloc<T: Future, S: Schedule>(ptr: NonNull<Header>) {
    // SAFETY: the pointer came from Box::leak of a Cell<T, S>, and no
    // reference remains, so nobody else can reach it.
    drop(unsafe { Box::from_raw(ptr.cast::<Cell<T, S>>().as_ptr()) });
}

unsafe fn try_read_output<T: Future, S: Schedule>(
    ptr: NonNull<Header>,
    dst: *mut (),
    waker: &Waker,
) {
    // SAFETY: the vtable was built for this T and S.
    let harness = unsafe { Harness::<T, S>::from_raw(ptr) };
    // SAFETY: the JoinHandle<T::Output> passes a pointer to its Poll slot.
    let dst = unsafe { &mut *dst.cast::<Poll<Result<T::Output, JoinError>>>() };
    harness.try_read_output(dst, waker);
}

unsafe fn drop_join_handle_slow<T: Future, S: Schedule>(ptr: NonNull<Header>) {
    // SAFETY: the vtable was built for this T and S.
    unsafe { Harness::<T, S>::from_raw(ptr) }.drop_join_handle_slow();
}

unsafe fn shutdown<T: Future, S: Schedule>(ptr: NonNull<Header>) {
    // SAFETY: the vtable was built for this T and S.
    unsafe { Harness::<T, S>::from_raw(ptr) }.shutdown();
}
