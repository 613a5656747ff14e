//! An asynchronous read-write lock: a [`Semaphore`] with [`MAX_READS`]
//! permits. A reader takes one, so up to `MAX_READS` read at once; a writer
//! takes all of them, so it is alone.
//!
//! Fairness comes from the semaphore's line with nothing added: a writer
//! that arrives while readers hold the lock is assigned each permit they
//! give back, and readers who arrive after it stand behind it, however many
//! permits are free. So a stream of readers cannot starve a writer (the
//! lock is *write-preferring* in effect, first come first served in fact),
//! and the readers queued behind a writer all get in together once it is
//! done.
//!
//! Cancel safety: `read` and `write` lose only their place in the line if
//! cancelled; permits a cancelled writer had collected go to the next in
//! line.
//!
//! Unsafe: as in `mutex.rs`, the value lives in an `UnsafeCell` and the
//! guards' permits are the right to borrow it.
//!
//! Book: Chapter 7, "Locks and notification".

use super::mutex::TryLockError;
use super::semaphore::Semaphore;
use std::cell::UnsafeCell;
use std::fmt;
use std::ops::{Deref, DerefMut};

/// Readers at once: the semaphore's permits. Tokio uses `u32::MAX >> 3`
/// too; it only has to exceed any real number of concurrent readers.
/// Under loom, small, so that a model's writer collects few permits.
#[cfg(not(loom))]
const MAX_READS: u32 = u32::MAX >> 3;
#[cfg(loom)]
const MAX_READS: u32 = 4;

/// A read-write lock for values held across `.await`, fair to its waiters.
pub struct RwLock<T: ?Sized> {
    sem: Semaphore,
    value: UnsafeCell<T>,
}

// SAFETY: readers on several threads share `&T` (needs `T: Sync`) and a
// writer on any thread gets `&mut T` (needs `T: Send`).
unsafe impl<T: ?Sized + Send + Sync> Sync for RwLock<T> {}

/// Shared access until dropped.
#[clippy::has_significant_drop]
#[must_use = "dropping the guard releases the read lock at once"]
pub struct RwLockReadGuard<'a, T: ?Sized> {
    lock: &'a RwLock<T>,
}

/// Exclusive access until dropped.
#[clippy::has_significant_drop]
#[must_use = "dropping the guard releases the write lock at once"]
pub struct RwLockWriteGuard<'a, T: ?Sized> {
    lock: &'a RwLock<T>,
}

// SAFETY: a read guard only gives `&T`; moving it to another thread shares
// `T` with the other readers (needs `T: Sync`), not more.
unsafe impl<T: ?Sized + Sync> Send for RwLockReadGuard<'_, T> {}
// SAFETY: sharing a read guard shares `&T`.
unsafe impl<T: ?Sized + Sync> Sync for RwLockReadGuard<'_, T> {}
// SAFETY: a write guard gives `&mut T` on whichever thread holds it (needs
// `T: Send`) and `&T` to any thread it is shared with (needs `T: Sync`).
unsafe impl<T: ?Sized + Send + Sync> Send for RwLockWriteGuard<'_, T> {}
// SAFETY: sharing a write guard shares `&T`.
unsafe impl<T: ?Sized + Send + Sync> Sync for RwLockWriteGuard<'_, T> {}

impl<T> RwLock<T> {
    /// Creates an unlocked lock holding `value`.
    pub fn new(value: T) -> RwLock<T> {
        RwLock {
            sem: Semaphore::new(MAX_READS as usize),
            value: UnsafeCell::new(value),
        }
    }

    /// The value, the lock consumed.
    pub fn into_inner(self) -> T {
        self.value.into_inner()
    }
}

impl<T: ?Sized> RwLock<T> {
    /// Waits for shared access, behind any writer that asked first.
    ///
    /// Cancel safety: cancelling loses the place in the line, nothing else.
    pub async fn read(&self) -> RwLockReadGuard<'_, T> {
        if self.sem.acquire_raw(1).await.is_err() {
            unreachable!("an RwLock's semaphore is never closed");
        }
        RwLockReadGuard { lock: self }
    }

    /// Waits for exclusive access, behind anyone who asked first.
    ///
    /// Cancel safety: cancelling loses the place in the line; read permits
    /// it had collected go to whoever is next.
    // ANCHOR: write
    pub async fn write(&self) -> RwLockWriteGuard<'_, T> {
        if self.sem.acquire_raw(MAX_READS as usize).await.is_err() {
            unreachable!("an RwLock's semaphore is never closed");
        }
        RwLockWriteGuard { lock: self }
    }
    // ANCHOR_END: write

    /// Shared access if no writer holds or waits for the lock now.
    pub fn try_read(&self) -> Result<RwLockReadGuard<'_, T>, TryLockError> {
        match self.sem.try_take(1) {
            Ok(()) => Ok(RwLockReadGuard { lock: self }),
            Err(_) => Err(TryLockError(())),
        }
    }

    /// Exclusive access if nobody holds or waits for the lock now.
    pub fn try_write(&self) -> Result<RwLockWriteGuard<'_, T>, TryLockError> {
        match self.sem.try_take(MAX_READS as usize) {
            Ok(()) => Ok(RwLockWriteGuard { lock: self }),
            Err(_) => Err(TryLockError(())),
        }
    }

    /// The value, with no locking: `&mut self` proves nobody else holds it.
    pub fn get_mut(&mut self) -> &mut T {
        self.value.get_mut()
    }
}

impl<T: ?Sized> Deref for RwLockReadGuard<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        // SAFETY: this guard holds a read permit, so no writer (who needs
        // every permit) exists while it lives; readers only share.
        unsafe { &*self.lock.value.get() }
    }
}

impl<T: ?Sized> Deref for RwLockWriteGuard<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        // SAFETY: this guard holds every permit: no other guard exists.
        unsafe { &*self.lock.value.get() }
    }
}

impl<T: ?Sized> DerefMut for RwLockWriteGuard<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        // SAFETY: this guard holds every permit, and `&mut self` makes this
        // the only borrow through it.
        unsafe { &mut *self.lock.value.get() }
    }
}

impl<T: ?Sized> Drop for RwLockReadGuard<'_, T> {
    fn drop(&mut self) {
        self.lock.sem.release(1);
    }
}

impl<T: ?Sized> Drop for RwLockWriteGuard<'_, T> {
    fn drop(&mut self) {
        self.lock.sem.release(MAX_READS as usize);
    }
}

impl<T: Default> Default for RwLock<T> {
    fn default() -> RwLock<T> {
        RwLock::new(T::default())
    }
}

impl<T> From<T> for RwLock<T> {
    fn from(value: T) -> RwLock<T> {
        RwLock::new(value)
    }
}

impl<T: ?Sized + fmt::Debug> fmt::Debug for RwLock<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut d = f.debug_struct("RwLock");
        match self.try_read() {
            Ok(guard) => d.field("data", &&*guard),
            Err(_) => d.field("data", &format_args!("<locked>")),
        };
        d.finish()
    }
}

impl<T: ?Sized + fmt::Debug> fmt::Debug for RwLockReadGuard<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

impl<T: ?Sized + fmt::Debug> fmt::Debug for RwLockWriteGuard<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn readers_share_and_a_writer_is_alone() {
        let lock = RwLock::new(5);
        let a = lock.try_read().unwrap();
        let b = lock.try_read().unwrap();
        assert_eq!(*a + *b, 10);
        assert!(lock.try_write().is_err());
        drop((a, b));
        let mut w = lock.try_write().unwrap();
        *w = 6;
        assert!(lock.try_read().is_err());
        drop(w);
        assert_eq!(lock.into_inner(), 6);
    }
}
