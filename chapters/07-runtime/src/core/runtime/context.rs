//! Which runtime the current thread belongs to, so that the free function
//! [`spawn`](crate::spawn) knows where to put a task.
//!
//! A worker thread belongs to its runtime for its whole life. A thread in
//! `Runtime::block_on` belongs to it for the duration of the call, as does a
//! thread holding the guard of `Handle::enter`. The state is a thread-local
//! handle, restored to its previous value when the guard is dropped.
//!
//! Entering a runtime to *block* (block_on, or being a worker) is refused
//! when the thread is already inside one: the thread would stop running the
//! outer runtime's work while it blocks, which deadlocks as soon as the
//! inner future waits for that work (Chapter 6, "Colours").
//!
//! Book: Chapter 7, "Many workers, one runtime".

use crate::scheduler::Scheduler;
use std::cell::{Cell, RefCell};

thread_local! {
    static CURRENT: RefCell<Option<Scheduler>> = const { RefCell::new(None) };
    static BLOCKING: Cell<bool> = const { Cell::new(false) };
    /// True while a `LocalSet` polls its tasks (or `run_until` its future)
    /// on this thread: `block_in_place` there would stall every local task.
    static IN_LOCAL_SET: Cell<bool> = const { Cell::new(false) };
    /// How many `set_current` guards are alive on this thread, so that one
    /// dropped out of order is caught instead of leaving a stale runtime.
    static DEPTH: Cell<usize> = const { Cell::new(0) };
}

/// Calls `f` with the current runtime's scheduler, if any. On a thread
/// whose thread-locals are being destroyed (a runtime kept in a
/// thread-local, dropped as its thread exits), there is none.
pub(crate) fn with_current<R>(f: impl FnOnce(Option<&Scheduler>) -> R) -> R {
    let mut f = Some(f);
    match CURRENT.try_with(|current| (f.take().expect("called once"))(current.borrow().as_ref())) {
        Ok(value) => value,
        Err(_) => (f.take().expect("not called"))(None),
    }
}

/// Restores the previous handle when dropped.
pub(crate) struct SetCurrentGuard {
    previous: Option<Scheduler>,
    /// This guard's place in the thread's stack of guards (1 for the first).
    depth: usize,
}

/// Makes `scheduler` the current runtime of this thread until the guard
/// drops. (While the thread's thread-locals are being destroyed this does
/// nothing: the thread is exiting, and no task can ask.)
pub(crate) fn set_current(scheduler: Scheduler) -> SetCurrentGuard {
    let previous = CURRENT
        .try_with(|current| current.borrow_mut().replace(scheduler))
        .unwrap_or(None);
    let depth = DEPTH
        .try_with(|depth| {
            depth.set(depth.get() + 1);
            depth.get()
        })
        .unwrap_or(0);
    SetCurrentGuard { previous, depth }
}

impl Drop for SetCurrentGuard {
    fn drop(&mut self) {
        // Guards form a stack: each restores the runtime that was current
        // when it was made. Dropping an outer one first would restore a
        // runtime while an inner guard still claims the thread, and the
        // inner one would later restore a runtime that is gone.
        let Ok(depth) = DEPTH.try_with(Cell::get) else {
            // The thread is exiting and its thread-locals are gone.
            return;
        };
        if depth != self.depth && !std::thread::panicking() {
            panic!(
                "`EnterGuard` values dropped out of order: guards returned by Handle::enter() \
                 must be dropped in the reverse order of their creation"
            );
        }
        let _ = DEPTH.try_with(|depth| depth.set(depth.get().saturating_sub(1)));
        let previous = self.previous.take();
        let _ = CURRENT.try_with(|current| *current.borrow_mut() = previous);
    }
}

/// Lets the thread block (and `block_on`) until the guard drops, inside a
/// runtime's loop: for `block_in_place`, whose thread runs no tasks while
/// the closure runs.
pub(crate) fn allow_blocking() -> FlagGuard {
    FlagGuard::set(&BLOCKING, false)
}

/// Refuses `block_in_place` on this thread until the guard drops: a
/// `LocalSet`'s tasks cannot move to another thread, so blocking one blocks
/// them all (Tokio refuses it there too, with the current-thread words).
pub(crate) fn enter_local_set() -> FlagGuard {
    FlagGuard::set(&IN_LOCAL_SET, true)
}

/// Puts a thread-local flag back to what it was before [`FlagGuard::set`]
/// when dropped (guards nest). On a thread whose thread-locals are being
/// destroyed, setting does nothing and neither does restoring.
pub(crate) struct FlagGuard {
    flag: &'static std::thread::LocalKey<Cell<bool>>,
    previous: bool,
}

impl FlagGuard {
    fn set(flag: &'static std::thread::LocalKey<Cell<bool>>, value: bool) -> FlagGuard {
        let previous = flag.try_with(|cell| cell.replace(value)).unwrap_or(false);
        FlagGuard { flag, previous }
    }
}

impl Drop for FlagGuard {
    fn drop(&mut self) {
        let previous = self.previous;
        let _ = self.flag.try_with(|cell| cell.set(previous));
    }
}

/// True while a `LocalSet` runs on this thread (see [`enter_local_set`]).
pub(crate) fn in_local_set() -> bool {
    IN_LOCAL_SET.try_with(Cell::get).unwrap_or(false)
}

/// False on a thread that runs a runtime's loop (a worker, or inside
/// `block_on`): blocking it there, for example to wait for a runtime's
/// threads, stalls every task it should be running.
pub(crate) fn blocking_allowed() -> bool {
    !BLOCKING.try_with(Cell::get).unwrap_or(false)
}

/// The thread runs a runtime's loop until the guard drops.
pub(crate) struct EnterRuntimeGuard {
    _handle: SetCurrentGuard,
}

/// Enters the runtime to block on it (block_on).
///
/// # Panics
///
/// If the thread already runs a runtime's loop.
#[track_caller]
pub(crate) fn enter_runtime(scheduler: Scheduler) -> EnterRuntimeGuard {
    if BLOCKING
        .try_with(|blocking| blocking.replace(true))
        .unwrap_or(false)
    {
        panic!(
            "Cannot start a runtime from within a runtime: this thread already runs a \
             runtime's tasks, and blocking it here (block_on) can deadlock; use .await instead"
        );
    }
    EnterRuntimeGuard {
        _handle: set_current(scheduler),
    }
}

/// Enters the runtime for a worker thread's whole life.
pub(crate) fn enter_worker(scheduler: Scheduler) -> EnterRuntimeGuard {
    enter_runtime(scheduler)
}

impl Drop for EnterRuntimeGuard {
    fn drop(&mut self) {
        let _ = BLOCKING.try_with(|blocking| blocking.set(false));
    }
}
