//! A cell set once, by an async initialiser that only one caller runs.
//!
//! Two parts, neither new: the value lives in a `std::sync::OnceLock`
//! (which already knows how to publish a value to every thread exactly
//! once), and the right to *run* the initialiser is the single permit of a
//! [`Semaphore`]. The first caller to get the permit runs its future; the
//! others wait in the semaphore's line. When the value is set, the permit
//! is not given back: the semaphore is closed instead, which wakes every
//! waiter at once, and each finds the value. If the initialiser fails,
//! panics or is cancelled, its permit is simply dropped, and the next
//! caller in line gets its turn to try.
//!
//! So the cell adds no wake-up protocol of its own, and no `unsafe`.
//! Tokio's cell is built on its semaphore the same way, with its own
//! storage (an `UnsafeCell` and a flag) where this one uses `OnceLock`.
//!
//! Book: Chapter 8, "Locks and notification".

use super::semaphore::{Semaphore, TryAcquireError};
use std::error::Error;
use std::fmt;
use std::future::Future;
use std::sync::OnceLock;

/// A value set once; [`get_or_init`](OnceCell::get_or_init) runs an async
/// initialiser in one caller while the others wait for its result.
///
/// ```
/// static CONFIG: rt::sync::OnceCell<String> = rt::sync::OnceCell::const_new();
///
/// # rt::Runtime::new().unwrap().block_on(async {
/// let value = CONFIG.get_or_init(|| async { "loaded".to_string() }).await;
/// assert_eq!(value, "loaded");
/// # });
/// ```
pub struct OnceCell<T> {
    /// The value [`const_new_with`](OnceCell::const_new_with) put in: a
    /// `OnceLock` cannot be filled in a `const` context.
    preset: Option<T>,
    value: OnceLock<T>,
    /// One permit: the right to run the initialiser. Closed once the value
    /// is set, which sends every waiter to read it.
    init: Semaphore,
}

/// Why [`OnceCell::set`] gave the value back.
#[derive(Debug, PartialEq, Eq)]
pub enum SetError<T> {
    /// The cell already holds a value.
    AlreadyInitializedError(T),
    /// Another caller is running an initialiser right now.
    InitializingError(T),
}

impl<T> SetError<T> {
    /// The cell already held a value.
    pub fn is_already_init_err(&self) -> bool {
        matches!(self, SetError::AlreadyInitializedError(_))
    }

    /// An initialiser was running.
    pub fn is_initializing_err(&self) -> bool {
        matches!(self, SetError::InitializingError(_))
    }
}

/// Displays the variant's name, as Tokio's `SetError` does.
impl<T> fmt::Display for SetError<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SetError::AlreadyInitializedError(_) => f.write_str("AlreadyInitializedError"),
            SetError::InitializingError(_) => f.write_str("InitializingError"),
        }
    }
}

impl<T: fmt::Debug> Error for SetError<T> {}

impl<T> OnceCell<T> {
    /// An empty cell.
    pub fn new() -> OnceCell<T> {
        OnceCell {
            preset: None,
            value: OnceLock::new(),
            init: Semaphore::new(1),
        }
    }

    /// An empty cell, in a `const` context: for a `static` (not in loom
    /// builds).
    #[cfg(not(loom))]
    pub const fn const_new() -> OnceCell<T> {
        OnceCell {
            preset: None,
            value: OnceLock::new(),
            init: Semaphore::const_new(1),
        }
    }

    /// A cell holding `value`, in a `const` context: for a `static` that
    /// starts set (not in loom builds). `set` refuses another value, as on
    /// any set cell.
    #[cfg(not(loom))]
    pub const fn const_new_with(value: T) -> OnceCell<T> {
        OnceCell {
            preset: Some(value),
            value: OnceLock::new(),
            // No permit: nobody ever gets the turn to initialise it.
            init: Semaphore::const_new(0),
        }
    }

    /// A cell holding `value`, or an empty one for `None`.
    pub fn new_with(value: Option<T>) -> OnceCell<T> {
        let cell = OnceCell::new();
        if let Some(value) = value {
            let _ = cell.value.set(value);
            cell.init.close();
        }
        cell
    }

    /// True once a value is set.
    pub fn initialized(&self) -> bool {
        self.get().is_some()
    }

    /// The value, if set.
    pub fn get(&self) -> Option<&T> {
        self.preset.as_ref().or_else(|| self.value.get())
    }

    /// The value, mutably, if set: `&mut self` proves nobody else uses it.
    pub fn get_mut(&mut self) -> Option<&mut T> {
        match &mut self.preset {
            Some(value) => Some(value),
            None => self.value.get_mut(),
        }
    }

    /// Sets the value if the cell is empty and nobody is initialising it;
    /// otherwise gives `value` back in the error saying which.
    pub fn set(&self, value: T) -> Result<(), SetError<T>> {
        if self.initialized() {
            return Err(SetError::AlreadyInitializedError(value));
        }
        match self.init.try_acquire() {
            Ok(permit) => {
                self.publish(value, permit);
                Ok(())
            }
            // Closed: set between our look and our try.
            Err(TryAcquireError::Closed) => Err(SetError::AlreadyInitializedError(value)),
            Err(TryAcquireError::NoPermits) => Err(SetError::InitializingError(value)),
        }
    }

    /// The value, running `f` to make it if the cell is empty. Only one
    /// caller at a time runs its `f`; the others wait for its result (in
    /// the order they came), and if that `f` panics or is cancelled the
    /// next of them runs its own.
    ///
    /// # Cancel safety
    ///
    /// Cancel-safe: a cancelled caller loses its place in line, and a
    /// cancelled initialiser lets the next caller try.
    // ANCHOR: get_or_init
    pub async fn get_or_init<F, Fut>(&self, f: F) -> &T
    where
        F: FnOnce() -> Fut,
        Fut: Future<Output = T>,
    {
        if let Some(value) = self.get() {
            return value;
        }
        match self.init.acquire().await {
            // Our turn, and nobody set it before us: run the initialiser.
            // (If it panics or we are cancelled, `permit` is dropped and
            // the next in line gets the turn.)
            Ok(permit) if !self.initialized() => self.publish(f().await, permit),
            // Set while we waited: `set` closes the semaphore (Err), or it
            // was set between our first look and our acquire (Ok).
            _ => self
                .get()
                .expect("the semaphore closes only once the value is set"),
        }
    }
    // ANCHOR_END: get_or_init

    /// [`get_or_init`](OnceCell::get_or_init) with an initialiser that may
    /// fail: its error is returned, the cell stays empty and the next
    /// caller in line runs its own.
    ///
    /// # Cancel safety
    ///
    /// As [`get_or_init`](OnceCell::get_or_init).
    pub async fn get_or_try_init<E, F, Fut>(&self, f: F) -> Result<&T, E>
    where
        F: FnOnce() -> Fut,
        Fut: Future<Output = Result<T, E>>,
    {
        if let Some(value) = self.get() {
            return Ok(value);
        }
        match self.init.acquire().await {
            Ok(permit) if !self.initialized() => Ok(self.publish(f().await?, permit)),
            _ => Ok(self
                .get()
                .expect("the semaphore closes only once the value is set")),
        }
    }

    /// The value, if set, the cell consumed.
    pub fn into_inner(self) -> Option<T> {
        self.preset.or_else(|| self.value.into_inner())
    }

    /// Takes the value out, leaving the cell empty (and usable again).
    pub fn take(&mut self) -> Option<T> {
        std::mem::take(self).into_inner()
    }

    /// Stores `value` (we hold the permit, so nobody else can) and closes
    /// the semaphore: the permit is never given back, every waiter wakes
    /// with an error and reads the value.
    fn publish(&self, value: T, permit: super::SemaphorePermit<'_>) -> &T {
        let stored = match self.value.set(value) {
            Ok(()) => self.value.get().expect("just set"),
            Err(_) => unreachable!("only the permit holder sets the value"),
        };
        permit.forget();
        self.init.close();
        stored
    }
}

cell_impls!(OnceCell);

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn set_then_set_again_gives_the_second_value_back() {
        let cell = OnceCell::new();
        assert_eq!(cell.get(), None);
        cell.set(1).unwrap();
        assert_eq!(cell.get(), Some(&1));
        let error = cell.set(2).unwrap_err();
        assert!(error.is_already_init_err());
        assert_eq!(error, SetError::AlreadyInitializedError(2));
    }

    #[test]
    fn set_during_an_initialisation_is_refused() {
        let cell = OnceCell::<u8>::new();
        let _turn = cell.init.try_acquire().unwrap();
        assert!(cell.set(3).unwrap_err().is_initializing_err());
        assert!(!cell.initialized());
    }

    #[test]
    fn take_empties_the_cell_for_another_set() {
        let mut cell = OnceCell::new_with(Some(String::from("a")));
        assert_eq!(cell.take().as_deref(), Some("a"));
        assert!(!cell.initialized());
        cell.set(String::from("b")).unwrap();
        assert_eq!(cell.into_inner().as_deref(), Some("b"));
    }
}
