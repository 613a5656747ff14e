//! An asynchronous mutex: a [`Semaphore`] with one permit, and the value
//! it guards.
//!
//! `lock().await` waits for the permit without blocking the thread (the
//! task parks, the worker runs other tasks); the guard it returns derefs to
//! the value and gives the permit back when dropped. Because the guard is
//! `Send`, it may be held across an `.await`: that is the one reason to
//! prefer this mutex to `std::sync::Mutex`, which is faster when the
//! critical section is short and has no `.await` in it. The book's page
//! measures both.
//!
//! The semaphore makes it fair: tasks get the lock in the order they asked
//! for it, so none starves, at the price of a hand-off (the unlocker wakes
//! the next task, which must be scheduled before the lock is used again).
//!
//! Cancel safety: `lock` is cancel-safe in Tokio's sense, dropping it loses
//! only the place in the line (the semaphore passes on a permit it had been
//! handed).
//!
//! Unsafe: the value lives in an `UnsafeCell`; the guard hands out `&T` and
//! `&mut T` because holding the semaphore's only permit is holding the right
//! to them. Each block says so; Miri runs the unit tests below.
//!
//! Book: Chapter 7, "Locks and notification".

use super::semaphore::Semaphore;
use std::cell::UnsafeCell;
use std::fmt;
use std::ops::{Deref, DerefMut};
use std::sync::Arc;

/// A mutex for values held across `.await`, fair to its waiters.
pub struct Mutex<T: ?Sized> {
    sem: Semaphore,
    value: UnsafeCell<T>,
}

// SAFETY: the value is only reached through a guard, and at most one guard
// exists at a time (the semaphore has one permit), so sharing the mutex
// between threads moves `T` between them but never shares it: `T: Send` is
// enough, as for `std::sync::Mutex`.
unsafe impl<T: ?Sized + Send> Sync for Mutex<T> {}

/// Access to the value until dropped; then the next waiter gets the lock.
#[clippy::has_significant_drop]
#[must_use = "dropping the guard unlocks the mutex at once"]
pub struct MutexGuard<'a, T: ?Sized> {
    lock: &'a Mutex<T>,
}

/// A guard that owns an `Arc` of its mutex, so it can outlive the borrow
/// (and be moved into a spawned task).
#[clippy::has_significant_drop]
#[must_use = "dropping the guard unlocks the mutex at once"]
pub struct OwnedMutexGuard<T: ?Sized> {
    lock: Arc<Mutex<T>>,
}

// SAFETY: `&MutexGuard` gives `&T` to whichever thread holds it, so sharing
// the guard shares `T` (needs `T: Sync`); the guard itself may be dropped on
// any thread, which moves the lock (needs `T: Send`).
unsafe impl<T: ?Sized + Send + Sync> Sync for MutexGuard<'_, T> {}
// SAFETY: as for `MutexGuard`.
unsafe impl<T: ?Sized + Send + Sync> Sync for OwnedMutexGuard<T> {}

/// The lock (or, for an `RwLock`, the access asked for) is taken now.
#[derive(Debug)]
pub struct TryLockError(pub(super) ());

impl<T> Mutex<T> {
    /// Creates an unlocked mutex holding `value`.
    pub fn new(value: T) -> Mutex<T> {
        Mutex {
            sem: Semaphore::new(1),
            value: UnsafeCell::new(value),
        }
    }

    /// [`new`](Mutex::new) in a `const` context, for a mutex in a
    /// `static` (not in loom builds).
    #[cfg(not(loom))]
    pub const fn const_new(value: T) -> Mutex<T> {
        Mutex {
            sem: Semaphore::const_new(1),
            value: UnsafeCell::new(value),
        }
    }

    /// The value, the mutex consumed.
    pub fn into_inner(self) -> T {
        self.value.into_inner()
    }
}

impl<T: ?Sized> Mutex<T> {
    /// Waits for the lock, in line with the other waiters.
    ///
    /// Cancel safety: cancelling loses the place in the line, nothing else.
    // ANCHOR: lock
    pub async fn lock(&self) -> MutexGuard<'_, T> {
        // The semaphore is never closed, so the wait cannot fail.
        if self.sem.acquire_raw(1).await.is_err() {
            unreachable!("a mutex's semaphore is never closed");
        }
        MutexGuard { lock: self }
    }
    // ANCHOR_END: lock

    /// Takes the lock if it is free now and nobody waits for it.
    pub fn try_lock(&self) -> Result<MutexGuard<'_, T>, TryLockError> {
        match self.sem.try_take(1) {
            Ok(()) => Ok(MutexGuard { lock: self }),
            Err(_) => Err(TryLockError(())),
        }
    }

    /// [`lock`](Mutex::lock) for synchronous code: blocks the thread until
    /// the lock is taken, in line with the async waiters.
    ///
    /// # Panics
    ///
    /// If called on a thread that runs a runtime's tasks (a worker, or
    /// inside `block_on`), where blocking would stall them: use it from a
    /// plain thread or inside `spawn_blocking`.
    #[track_caller]
    pub fn blocking_lock(&self) -> MutexGuard<'_, T> {
        super::blocking::wait(self.lock())
    }

    /// [`blocking_lock`](Mutex::blocking_lock) for a guard that owns an
    /// `Arc` of the mutex.
    ///
    /// # Panics
    ///
    /// As [`blocking_lock`](Mutex::blocking_lock).
    #[track_caller]
    pub fn blocking_lock_owned(self: Arc<Self>) -> OwnedMutexGuard<T> {
        super::blocking::wait(self.lock_owned())
    }

    /// [`lock`](Mutex::lock) for a guard that owns an `Arc` of the mutex.
    pub async fn lock_owned(self: Arc<Self>) -> OwnedMutexGuard<T> {
        if self.sem.acquire_raw(1).await.is_err() {
            unreachable!("a mutex's semaphore is never closed");
        }
        OwnedMutexGuard { lock: self }
    }

    /// [`try_lock`](Mutex::try_lock) for a guard that owns an `Arc`.
    pub fn try_lock_owned(self: Arc<Self>) -> Result<OwnedMutexGuard<T>, TryLockError> {
        match self.sem.try_take(1) {
            Ok(()) => Ok(OwnedMutexGuard { lock: self }),
            Err(_) => Err(TryLockError(())),
        }
    }

    /// The value, with no locking: `&mut self` proves nobody else holds it.
    pub fn get_mut(&mut self) -> &mut T {
        self.value.get_mut()
    }
}

impl<T: ?Sized> MutexGuard<'_, T> {
    /// The mutex this guard locks.
    pub fn mutex<'a>(this: &MutexGuard<'a, T>) -> &'a Mutex<T> {
        this.lock
    }
}

impl<T: ?Sized> OwnedMutexGuard<T> {
    /// The mutex this guard locks.
    pub fn mutex(this: &OwnedMutexGuard<T>) -> &Arc<Mutex<T>> {
        &this.lock
    }
}

impl<T: ?Sized> Deref for MutexGuard<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        // SAFETY: this guard holds the semaphore's only permit, so no other
        // guard exists to write the value while this borrow lives.
        unsafe { &*self.lock.value.get() }
    }
}

impl<T: ?Sized> DerefMut for MutexGuard<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        // SAFETY: as in `deref`; `&mut self` makes this borrow the only one
        // through this guard.
        unsafe { &mut *self.lock.value.get() }
    }
}

impl<T: ?Sized> Deref for OwnedMutexGuard<T> {
    type Target = T;
    fn deref(&self) -> &T {
        // SAFETY: this guard holds the semaphore's only permit.
        unsafe { &*self.lock.value.get() }
    }
}

impl<T: ?Sized> DerefMut for OwnedMutexGuard<T> {
    fn deref_mut(&mut self) -> &mut T {
        // SAFETY: this guard holds the semaphore's only permit, and `&mut
        // self` makes this the only borrow through it.
        unsafe { &mut *self.lock.value.get() }
    }
}

impl<T: ?Sized> Drop for MutexGuard<'_, T> {
    fn drop(&mut self) {
        self.lock.sem.release(1);
    }
}

impl<T: ?Sized> Drop for OwnedMutexGuard<T> {
    fn drop(&mut self) {
        self.lock.sem.release(1);
    }
}

impl<T: Default> Default for Mutex<T> {
    fn default() -> Mutex<T> {
        Mutex::new(T::default())
    }
}

impl<T> From<T> for Mutex<T> {
    fn from(value: T) -> Mutex<T> {
        Mutex::new(value)
    }
}

impl<T: ?Sized + fmt::Debug> fmt::Debug for Mutex<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut d = f.debug_struct("Mutex");
        match self.try_lock() {
            Ok(guard) => d.field("data", &&*guard),
            Err(_) => d.field("data", &format_args!("<locked>")),
        };
        d.finish()
    }
}

impl<T: ?Sized + fmt::Debug> fmt::Debug for MutexGuard<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

impl<T: ?Sized + fmt::Display> fmt::Display for MutexGuard<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&**self, f)
    }
}

impl<T: ?Sized + fmt::Debug> fmt::Debug for OwnedMutexGuard<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

impl<T: ?Sized + fmt::Display> fmt::Display for OwnedMutexGuard<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&**self, f)
    }
}

impl fmt::Display for TryLockError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("operation would block")
    }
}

impl std::error::Error for TryLockError {}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use std::future::Future;
    use std::pin::pin;
    use std::task::{Context, Poll, Waker};

    fn poll_once<F: Future>(future: std::pin::Pin<&mut F>) -> Poll<F::Output> {
        future.poll(&mut Context::from_waker(Waker::noop()))
    }

    #[test]
    fn guards_exclude_each_other_and_unlock_on_drop() {
        let mutex = Mutex::new(vec![1]);
        let mut guard = mutex.try_lock().unwrap();
        guard.push(2);
        assert!(mutex.try_lock().is_err());
        {
            let mut waiting = pin!(mutex.lock());
            assert!(poll_once(waiting.as_mut()).is_pending());
            drop(guard);
            let Poll::Ready(mut guard) = poll_once(waiting.as_mut()) else {
                panic!("the unlock was not passed on");
            };
            guard.push(3);
        }
        assert_eq!(mutex.into_inner(), [1, 2, 3]);
    }

    #[test]
    fn owned_guards_move_between_threads() {
        let mutex = Arc::new(Mutex::new(0u64));
        let threads: Vec<_> = (0..4)
            .map(|_| {
                let mutex = mutex.clone();
                std::thread::spawn(move || {
                    for _ in 0..50 {
                        let mut guard = futures::executor::block_on(mutex.clone().lock_owned());
                        *guard += 1;
                    }
                })
            })
            .collect();
        for thread in threads {
            thread.join().unwrap();
        }
        assert_eq!(*mutex.try_lock().unwrap(), 200);
    }

    #[test]
    fn get_mut_and_unsized_values() {
        let mut mutex = Mutex::new([1, 2, 3]);
        mutex.get_mut()[0] = 9;
        let unsized_ref: &Mutex<[i32]> = &mutex;
        assert_eq!(unsized_ref.try_lock().unwrap().len(), 3);
        assert_eq!(mutex.into_inner()[0], 9);
    }
}
