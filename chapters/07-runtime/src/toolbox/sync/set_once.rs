//! [`SetOnce`]: a value set once, by whoever comes first, that others can
//! wait for (Tokio's `sync::SetOnce`).
//!
//! Where [`OnceCell`](super::OnceCell) runs an initialiser in one of the
//! callers that want the value, a `SetOnce` is filled from outside (a
//! configuration loaded at start-up, a result that one task publishes),
//! and [`wait`](SetOnce::wait) waits for it. Built from two parts that
//! are already here: a `std::sync::OnceLock` publishes the value to every
//! thread exactly once, and a [`Notify`] wakes the waiters. A waiter
//! enables its `Notified` *before* it looks at the cell, so a `set` between
//! the look and the wait still wakes it: the order `notify_waiters`
//! documents. No `unsafe`.
//!
//! A value given at construction ([`const_new_with`](SetOnce::const_new_with),
//! which must be `const`) is kept beside the `OnceLock`, which has no
//! `const` constructor that takes a value.
//!
//! Book: Chapter 8, "Locks and notification".

use super::Notify;
use std::error::Error;
use std::fmt;
use std::pin::pin;
use std::sync::OnceLock;

/// A value set once; [`wait`](SetOnce::wait) waits until it is.
///
/// ```
/// use std::sync::Arc;
///
/// # rt::Runtime::new().unwrap().block_on(async {
/// let ready = Arc::new(rt::sync::SetOnce::new());
/// let waiter = rt::spawn({
///     let ready = ready.clone();
///     async move { *ready.wait().await * 2 }
/// });
/// ready.set(21).unwrap();
/// assert_eq!(waiter.await.unwrap(), 42);
/// assert!(ready.set(0).is_err());
/// # });
/// ```
pub struct SetOnce<T> {
    /// A value given at construction, in a `const` context.
    preset: Option<T>,
    value: OnceLock<T>,
    notify: Notify,
}

/// The value [`SetOnce::set`] could not store (the cell was set already),
/// given back.
#[derive(Debug, PartialEq, Eq)]
pub struct SetOnceError<T>(pub T);

impl<T> SetOnce<T> {
    /// An empty cell.
    pub fn new() -> SetOnce<T> {
        SetOnce {
            preset: None,
            value: OnceLock::new(),
            notify: Notify::new(),
        }
    }

    /// [`new`](SetOnce::new) in a `const` context, for a `static` (not in
    /// loom builds).
    #[cfg(not(loom))]
    pub const fn const_new() -> SetOnce<T> {
        SetOnce {
            preset: None,
            value: OnceLock::new(),
            notify: Notify::const_new(),
        }
    }

    /// A cell holding `value`, or an empty one for `None`.
    pub fn new_with(value: Option<T>) -> SetOnce<T> {
        SetOnce {
            preset: value,
            value: OnceLock::new(),
            notify: Notify::new(),
        }
    }

    /// A cell holding `value`, in a `const` context (not in loom builds).
    #[cfg(not(loom))]
    pub const fn const_new_with(value: T) -> SetOnce<T> {
        SetOnce {
            preset: Some(value),
            value: OnceLock::new(),
            notify: Notify::const_new(),
        }
    }

    /// True once the value is set.
    pub fn initialized(&self) -> bool {
        self.get().is_some()
    }

    /// The value, if it is set.
    pub fn get(&self) -> Option<&T> {
        self.preset.as_ref().or_else(|| self.value.get())
    }

    /// Stores `value` and wakes every waiter, unless a value is set
    /// already: then `value` comes back in the error.
    pub fn set(&self, value: T) -> Result<(), SetOnceError<T>> {
        if self.preset.is_some() {
            return Err(SetOnceError(value));
        }
        self.value.set(value).map_err(SetOnceError)?;
        self.notify.notify_waiters();
        Ok(())
    }

    /// The value, if it was set; the cell is consumed.
    pub fn into_inner(self) -> Option<T> {
        self.preset.or_else(|| self.value.into_inner())
    }

    /// Waits until the value is set, and returns it.
    ///
    /// # Cancel safety
    ///
    /// Cancel-safe: it takes nothing.
    pub async fn wait(&self) -> &T {
        loop {
            let mut notified = pin!(self.notify.notified());
            // In the waiters' list before the look, so a `set` after the
            // look is not missed.
            notified.as_mut().enable();
            if let Some(value) = self.get() {
                return value;
            }
            notified.await;
        }
    }
}

cell_impls!(SetOnce);

impl<T> fmt::Display for SetOnceError<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("SetOnceError")
    }
}

impl<T: fmt::Debug> Error for SetOnceError<T> {}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use std::future::Future;
    use std::task::{Context, Poll, Waker};

    #[test]
    fn a_waiter_is_woken_by_the_set_and_later_sets_fail() {
        let cell = SetOnce::new();
        let mut wait = Box::pin(cell.wait());
        let mut cx = Context::from_waker(Waker::noop());
        assert!(wait.as_mut().poll(&mut cx).is_pending());
        cell.set(5).unwrap();
        assert_eq!(wait.as_mut().poll(&mut cx), Poll::Ready(&5));
        drop(wait);
        assert_eq!(cell.set(6), Err(SetOnceError(6)));
        assert_eq!(cell.into_inner(), Some(5));
    }

    #[test]
    fn a_preset_value_is_there_and_refuses_a_set() {
        static PRESET: SetOnce<u8> = SetOnce::const_new_with(1);
        assert!(PRESET.initialized());
        assert_eq!(PRESET.set(2), Err(SetOnceError(2)));
        assert_eq!(SetOnce::from(3).get(), Some(&3));
        assert_eq!(SetOnce::<u8>::new_with(None).get(), None);
    }
}
