//! Task-local storage: [`task_local!`](crate::task_local) and [`LocalKey`].
//!
//! A thread-local belongs to a thread, but a task hops between worker
//! threads at every `.await`, and one thread runs thousands of tasks in
//! turn: a thread-local would leak values from one task into the next. A
//! task-local is set for the duration of one future, [`LocalKey::scope`]:
//! each time that future is polled, its value is moved into a thread-local
//! slot, and moved back out when the poll returns (even by panic). So inside
//! the future, on whatever thread polls it, [`LocalKey::with`] finds the
//! value, and outside it finds nothing.
//!
//! The value is also in scope while the inner future is dropped, as in
//! Tokio: when it completes (it is dropped at once, inside that poll) and
//! when the scope is dropped before it completed (cancelled, or never
//! polled), so a destructor in the future can still read the key.
//!
//! Book: Chapter 8, "Task handles: JoinSet, abort, ids and task-locals".

use std::cell::RefCell;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

/// Declares task-local keys, as Tokio's `task_local!`:
///
/// ```
/// rt::task_local! {
///     pub static REQUEST_ID: u64;
/// }
/// let rt = rt::runtime::Builder::new_current_thread().build().unwrap();
/// let id = rt.block_on(REQUEST_ID.scope(7, async { REQUEST_ID.get() }));
/// assert_eq!(id, 7);
/// ```
#[macro_export]
macro_rules! task_local {
    () => {};
    ($(#[$attr:meta])* $vis:vis static $name:ident: $t:ty; $($rest:tt)*) => {
        $crate::__task_local_inner!($(#[$attr])* $vis $name, $t);
        $crate::task_local!($($rest)*);
    };
    ($(#[$attr:meta])* $vis:vis static $name:ident: $t:ty) => {
        $crate::__task_local_inner!($(#[$attr])* $vis $name, $t);
    };
}

#[doc(hidden)]
#[macro_export]
macro_rules! __task_local_inner {
    ($(#[$attr:meta])* $vis:vis $name:ident, $t:ty) => {
        $(#[$attr])*
        $vis static $name: $crate::task::LocalKey<$t> = {
            ::std::thread_local! {
                static __KEY: ::std::cell::RefCell<::std::option::Option<$t>> =
                    const { ::std::cell::RefCell::new(::std::option::Option::None) };
            }
            $crate::task::LocalKey { inner: __KEY }
        };
    };
}

/// A task-local key, made by [`task_local!`](crate::task_local).
pub struct LocalKey<T: 'static> {
    #[doc(hidden)]
    pub inner: std::thread::LocalKey<RefCell<Option<T>>>,
}

/// The key was read outside a scope that set it.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct AccessError(());

/// Prints `AccessError`, as Tokio's does (no fields to show).
impl fmt::Debug for AccessError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AccessError").finish()
    }
}

/// Tokio's words, padded to the formatter's width if one is asked for.
impl fmt::Display for AccessError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad("task-local value not set")
    }
}

impl std::error::Error for AccessError {}

/// Why a scope could not be entered.
enum ScopeError {
    /// The thread-local is borrowed: a poll inside `with` of the same key.
    Borrowed,
    /// The thread-local is gone: the thread is exiting.
    Destroyed,
}

impl ScopeError {
    #[track_caller]
    fn panic(self) -> ! {
        match self {
            ScopeError::Borrowed => {
                panic!("cannot enter a task-local scope while the task-local storage is borrowed")
            }
            ScopeError::Destroyed => panic!(
                "cannot enter a task-local scope during or after destruction of the underlying thread-local"
            ),
        }
    }
}

// ANCHOR: swap
/// Puts a value into the thread-local slot for as long as it lives, then
/// takes it back out (on the normal path and on unwinding alike).
struct Swap<'a, T: 'static> {
    key: &'static LocalKey<T>,
    slot: &'a mut Option<T>,
}

impl<'a, T: 'static> Swap<'a, T> {
    /// Fails if the thread-local is borrowed (a poll inside `with` of the
    /// same key) or already destroyed (the thread is exiting).
    fn enter(
        key: &'static LocalKey<T>,
        slot: &'a mut Option<T>,
    ) -> Result<Swap<'a, T>, ScopeError> {
        let swapped = key.inner.try_with(|cell| match cell.try_borrow_mut() {
            Ok(mut value) => {
                std::mem::swap(&mut *value, slot);
                Ok(())
            }
            Err(_) => Err(ScopeError::Borrowed),
        });
        match swapped {
            Ok(Ok(())) => Ok(Swap { key, slot }),
            Ok(Err(error)) => Err(error),
            Err(_) => Err(ScopeError::Destroyed),
        }
    }
}

impl<T: 'static> Drop for Swap<'_, T> {
    fn drop(&mut self) {
        self.key
            .inner
            .with(|cell| std::mem::swap(&mut *cell.borrow_mut(), self.slot));
    }
}
// ANCHOR_END: swap

impl<T: 'static> LocalKey<T> {
    /// Runs `future` with the key set to `value` during each of its polls,
    /// and while the future is dropped. The value is dropped with the
    /// returned future.
    pub fn scope<F: Future>(&'static self, value: T, future: F) -> TaskLocalFuture<T, F> {
        TaskLocalFuture {
            key: self,
            slot: Some(value),
            future: Some(Box::pin(future)),
        }
    }

    /// Runs `f` with the key set to `value`.
    ///
    /// # Panics
    ///
    /// Inside [`with`](Self::with) or [`try_with`](Self::try_with) of the
    /// same key.
    #[track_caller]
    pub fn sync_scope<F: FnOnce() -> R, R>(&'static self, value: T, f: F) -> R {
        let mut slot = Some(value);
        let _swap = Swap::enter(self, &mut slot).unwrap_or_else(|error| error.panic());
        f()
    }

    /// Calls `f` with a reference to the value.
    ///
    /// # Panics
    ///
    /// Outside a scope that set the key, with Tokio's words ("cannot access
    /// a task-local storage value without setting it first"), which tests
    /// match with `should_panic(expected = ...)`.
    #[track_caller]
    pub fn with<F: FnOnce(&T) -> R, R>(&'static self, f: F) -> R {
        match self.try_with(f) {
            Ok(result) => result,
            Err(_) => panic!(
                "cannot access a task-local storage value without setting it first \
                 (use LocalKey::scope or sync_scope to set it)"
            ),
        }
    }

    /// Calls `f` with a reference to the value, if set.
    pub fn try_with<F: FnOnce(&T) -> R, R>(&'static self, f: F) -> Result<R, AccessError> {
        self.inner.with(|cell| {
            let value = cell.borrow();
            match value.as_ref() {
                Some(value) => Ok(f(value)),
                None => Err(AccessError(())),
            }
        })
    }
}

impl<T: Clone + 'static> LocalKey<T> {
    /// A clone of the value.
    ///
    /// # Panics
    ///
    /// Outside a scope that set the key.
    #[track_caller]
    pub fn get(&'static self) -> T {
        self.with(T::clone)
    }

    /// A clone of the value, or an error outside a scope that set it.
    pub fn try_get(&'static self) -> Result<T, AccessError> {
        self.try_with(T::clone)
    }
}

impl<T: 'static> fmt::Debug for LocalKey<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("LocalKey { .. }")
    }
}

/// The future of [`LocalKey::scope`].
pub struct TaskLocalFuture<T: 'static, F> {
    key: &'static LocalKey<T>,
    /// The value between polls (in the thread-local during one).
    slot: Option<T>,
    /// The future; `None` once it has completed.
    future: Option<Pin<Box<F>>>,
}

impl<T: 'static, F> Unpin for TaskLocalFuture<T, F> {}

impl<T: 'static, F> TaskLocalFuture<T, F> {
    /// Takes the value out of the scope, if it is still there; later polls
    /// (and the future's drop) run with the key unset. Used to recover the
    /// value of a scope that will not be polled again.
    pub fn take_value(self: Pin<&mut Self>) -> Option<T> {
        self.get_mut().slot.take()
    }
}

// ANCHOR: scope_poll
impl<T: 'static, F: Future> Future for TaskLocalFuture<T, F> {
    type Output = F::Output;

    #[track_caller]
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        let this = self.get_mut();
        let _swap = Swap::enter(this.key, &mut this.slot).unwrap_or_else(|error| error.panic());
        let Some(future) = this.future.as_mut() else {
            panic!("`TaskLocalFuture` polled after completion");
        };
        let poll = future.as_mut().poll(cx);
        if poll.is_ready() {
            // Dropped now, while the value is still in scope.
            this.future = None;
        }
        poll
    }
}

/// A future that did not complete is dropped inside the scope too (unless
/// dropping it runs no code). If the scope cannot be entered (dropped
/// inside `with` of the same key, or while the thread exits), the future is
/// dropped without it.
impl<T: 'static, F> Drop for TaskLocalFuture<T, F> {
    fn drop(&mut self) {
        if self.future.is_none() || !std::mem::needs_drop::<F>() {
            return;
        }
        let _swap = Swap::enter(self.key, &mut self.slot);
        self.future = None;
    }
}
// ANCHOR_END: scope_poll

impl<T: 'static, F> fmt::Debug for TaskLocalFuture<T, F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("TaskLocalFuture { .. }")
    }
}
