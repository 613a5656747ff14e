//! The memory of one task: a single heap allocation holding everything a task
//! needs, laid out so that code which does not know the future's type can
//! still reach the parts it needs.
//!
//! ```text
//!  Cell<T, S>  (#[repr(C)], one Box)
//! +-------------------------------------------------------------+
//! | Header   state word | vtable | id | owned-list index        |  <- a task pointer points here
//! +-------------------------------------------------------------+
//! | Core     scheduler handle | stage: Running(T) / Finished(out) / Consumed |
//! +-------------------------------------------------------------+
//! | Trailer  the JoinHandle's waker                              |
//! +-------------------------------------------------------------+
//! ```
//!
//! Every pointer to a task (a `Notified` in a run queue, a `Waker`, a
//! `JoinHandle`) is a pointer to the header. The header is the same for all
//! tasks, and it starts the allocation (`#[repr(C)]`), so a queue or a waker
//! can read the state word and call through the vtable without knowing `T`;
//! the vtable's functions were instantiated for the concrete `T` and `S` when
//! the task was spawned, and they cast the pointer back to `Cell<T, S>`.
//!
//! The stage is an `UnsafeCell` because it is mutated through shared
//! pointers; the state word decides who may touch it (see `state.rs`):
//! whoever set RUNNING owns the future; after COMPLETE, the output belongs to
//! the JoinHandle if it is still interested, to the completer otherwise.
//!
//! Book: Chapter 7, "A task is one allocation and one word".

use super::error::JoinError;
use super::state::State;
use crate::loom::{AtomicU64, UnsafeCell};
use std::future::Future;
use std::panic::Location;
use std::pin::Pin;
use std::ptr::NonNull;
use std::task::{Context, Poll, Waker};

/// Functions that know the task's concrete types, called through the header.
pub(crate) struct Vtable {
    /// Polls the future (or cancels it) and does whatever the state says next.
    pub(crate) poll: unsafe fn(NonNull<Header>),
    /// Hands a `Notified` (whose reference the caller gives up) to the scheduler.
    pub(crate) schedule: unsafe fn(NonNull<Header>),
    /// Frees the allocation.
    pub(crate) dealloc: unsafe fn(NonNull<Header>),
    /// The JoinHandle's poll: writes `Poll<Result<T::Output, JoinError>>` to
    /// the destination if the output is ready, else registers the waker.
    pub(crate) try_read_output: unsafe fn(NonNull<Header>, *mut (), &Waker),
    /// The JoinHandle's drop when the fast path failed.
    pub(crate) drop_join_handle_slow: unsafe fn(NonNull<Header>),
    /// Runtime shutdown: cancel the task if nobody runs it, drop one reference.
    pub(crate) shutdown: unsafe fn(NonNull<Header>),
}

// ANCHOR: header
/// The part of a task every holder of a task pointer can use.
#[repr(C)]
pub(crate) struct Header {
    /// The state word.
    pub(crate) state: State,
    /// The functions for this task's concrete types.
    pub(crate) vtable: &'static Vtable,
    /// A process-wide unique id, also used to pick the owned-list shard.
    pub(crate) id: u64,
    /// This task's slot in its owned-list shard. Read and written only while
    /// holding that shard's lock.
    pub(crate) owned_index: UnsafeCell<usize>,
    /// Where the task was spawned (`#[track_caller]`), for the long-poll
    /// report and `top`.
    pub(crate) location: &'static Location<'static>,
    /// Polls so far. Only the thread that set RUNNING writes it, and the
    /// state word orders consecutive polls, so a relaxed load and store
    /// suffice; readers (`top`) may see a slightly old value.
    pub(crate) polls: AtomicU64,
}
// ANCHOR_END: header

// ANCHOR: layout
/// Where the future is in its life.
pub(crate) enum Stage<T: Future> {
    /// Not finished: the future itself.
    Running(T),
    /// Finished: its output, or why there is none.
    Finished(Result<T::Output, JoinError>),
    /// The output was taken by the JoinHandle or dropped.
    Consumed,
}

/// The part that depends on the future's type.
pub(crate) struct Core<T: Future, S> {
    /// The scheduler the task belongs to (a handle to the runtime).
    pub(crate) scheduler: S,
    /// The future or its output.
    pub(crate) stage: UnsafeCell<Stage<T>>,
}

/// The JoinHandle's waker, at the end because it is touched least.
pub(crate) struct Trailer {
    pub(crate) waker: UnsafeCell<Option<Waker>>,
}

/// The whole allocation.
///
/// Not aligned to a cache line, although two tasks' state words may then
/// share one: with an alignment above 16 bytes, glibc's `malloc` takes its
/// `memalign` path, which carves the block out of a bigger one and frees the
/// rest, and on a spawn-heavy workload that cost more than the rare false
/// sharing saves (Chapter 7, "A task is one allocation and one word").
#[repr(C)]
pub(crate) struct Cell<T: Future, S> {
    pub(crate) header: Header,
    pub(crate) core: Core<T, S>,
    pub(crate) trailer: Trailer,
}
// ANCHOR_END: layout

impl<T: Future, S> Core<T, S> {
    /// Polls the future.
    ///
    /// # Safety
    ///
    /// The caller set RUNNING (it owns the stage), and the stage is `Running`.
    pub(crate) unsafe fn poll(&self, cx: &mut Context<'_>) -> Poll<T::Output> {
        self.stage.with_mut(|stage| {
            // SAFETY: the caller owns the stage (RUNNING), so no other thread
            // reads or writes it during this call.
            let stage = unsafe { &mut *stage };
            let Stage::Running(future) = stage else {
                unreachable!("a task was polled after it finished");
            };
            // SAFETY: the future lives inside the task's heap allocation,
            // which never moves; it is dropped in place (set_stage), never
            // moved out.
            let future = unsafe { Pin::new_unchecked(future) };
            future.poll(cx)
        })
    }

    /// Replaces the stage, dropping the future or output it held. Every such
    /// drop happens here, with the task's `id` published as the running
    /// task (as during a poll), so that a destructor inside the future or
    /// the output sees `task::id()` name its task, on whichever thread drops
    /// it: a worker, the runtime's shutdown, or a `JoinHandle`'s drop.
    ///
    /// If that drop panics the new stage is still written (assignment writes
    /// the new value on the unwind path too), so the cell is never left
    /// half-dropped.
    ///
    /// # Safety
    ///
    /// The caller owns the stage: it set RUNNING, or it holds the output's
    /// ownership as the state word defines it.
    pub(crate) unsafe fn set_stage(&self, id: u64, stage: Stage<T>) {
        let _id = super::id::enter(id);
        // SAFETY: exclusive access, per the caller's contract.
        self.stage.with_mut(|ptr| unsafe { *ptr = stage });
    }

    /// Takes the output out, leaving `Consumed`.
    ///
    /// # Safety
    ///
    /// The task is COMPLETE, and the caller is the interested JoinHandle.
    pub(crate) unsafe fn take_output(&self) -> Result<T::Output, JoinError> {
        self.stage.with_mut(|ptr| {
            // SAFETY: exclusive access, per the caller's contract.
            match std::mem::replace(unsafe { &mut *ptr }, Stage::Consumed) {
                Stage::Finished(output) => output,
                _ => panic!("JoinHandle polled after completion"),
            }
        })
    }
}

impl Trailer {
    /// Replaces the join waker.
    ///
    /// # Safety
    ///
    /// The caller owns the slot: the JoinHandle while JOIN_WAKER is clear,
    /// the completer after COMPLETE while JOIN_WAKER is set.
    pub(crate) unsafe fn set_waker(&self, waker: Option<Waker>) {
        // SAFETY: exclusive access, per the caller's contract.
        self.waker.with_mut(|ptr| unsafe { *ptr = waker });
    }

    /// True if the stored waker would wake the same task as `waker`.
    ///
    /// # Safety
    ///
    /// JOIN_WAKER is set, so the slot holds a waker and nobody writes it.
    pub(crate) unsafe fn will_wake(&self, waker: &Waker) -> bool {
        // SAFETY: shared read access, per the caller's contract.
        self.waker.with(|ptr| match unsafe { &*ptr } {
            Some(stored) => stored.will_wake(waker),
            None => false,
        })
    }

    /// Wakes the JoinHandle's task.
    ///
    /// # Safety
    ///
    /// The task is COMPLETE and JOIN_WAKER is set: the completer may read the
    /// slot, and the JoinHandle does not write it.
    pub(crate) unsafe fn wake_join(&self) {
        self.waker.with(|ptr| {
            // SAFETY: shared read access, per the caller's contract.
            if let Some(waker) = unsafe { &*ptr } {
                waker.wake_by_ref();
            }
        });
    }
}
