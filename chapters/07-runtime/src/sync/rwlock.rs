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
use std::sync::Arc;

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

/// A read guard that owns an `Arc` of its lock, so it can outlive the
/// borrow (and move into a spawned task).
#[clippy::has_significant_drop]
#[must_use = "dropping the guard releases the read lock at once"]
pub struct OwnedRwLockReadGuard<T: ?Sized> {
    lock: Arc<RwLock<T>>,
}

/// A write guard that owns an `Arc` of its lock.
#[clippy::has_significant_drop]
#[must_use = "dropping the guard releases the write lock at once"]
pub struct OwnedRwLockWriteGuard<T: ?Sized> {
    lock: Arc<RwLock<T>>,
    /// Permits given back on drop: all of them, or none once
    /// [`downgrade`](OwnedRwLockWriteGuard::downgrade) has handed them on.
    permits: u32,
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

    /// [`new`](RwLock::new) in a `const` context, for a lock in a `static`
    /// (not in loom builds).
    #[cfg(not(loom))]
    pub const fn const_new(value: T) -> RwLock<T> {
        RwLock {
            sem: Semaphore::const_new(MAX_READS as usize),
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

    /// [`read`](RwLock::read) for a guard that owns an `Arc` of the lock.
    ///
    /// Cancel safety: as [`read`](RwLock::read).
    pub async fn read_owned(self: Arc<Self>) -> OwnedRwLockReadGuard<T> {
        if self.sem.acquire_raw(1).await.is_err() {
            unreachable!("an RwLock's semaphore is never closed");
        }
        OwnedRwLockReadGuard { lock: self }
    }

    /// [`write`](RwLock::write) for a guard that owns an `Arc` of the lock.
    ///
    /// Cancel safety: as [`write`](RwLock::write).
    pub async fn write_owned(self: Arc<Self>) -> OwnedRwLockWriteGuard<T> {
        if self.sem.acquire_raw(MAX_READS as usize).await.is_err() {
            unreachable!("an RwLock's semaphore is never closed");
        }
        OwnedRwLockWriteGuard {
            lock: self,
            permits: MAX_READS,
        }
    }

    /// [`try_read`](RwLock::try_read) for an owned guard.
    pub fn try_read_owned(self: Arc<Self>) -> Result<OwnedRwLockReadGuard<T>, TryLockError> {
        match self.sem.try_take(1) {
            Ok(()) => Ok(OwnedRwLockReadGuard { lock: self }),
            Err(_) => Err(TryLockError(())),
        }
    }

    /// [`try_write`](RwLock::try_write) for an owned guard.
    pub fn try_write_owned(self: Arc<Self>) -> Result<OwnedRwLockWriteGuard<T>, TryLockError> {
        match self.sem.try_take(MAX_READS as usize) {
            Ok(()) => Ok(OwnedRwLockWriteGuard {
                lock: self,
                permits: MAX_READS,
            }),
            Err(_) => Err(TryLockError(())),
        }
    }

    /// [`read`](RwLock::read) for synchronous code: blocks the thread.
    ///
    /// # Panics
    ///
    /// If called on a thread that runs a runtime's tasks (a worker, or
    /// inside `block_on`).
    #[track_caller]
    pub fn blocking_read(&self) -> RwLockReadGuard<'_, T> {
        super::blocking::wait(self.read())
    }

    /// [`write`](RwLock::write) for synchronous code: blocks the thread.
    ///
    /// # Panics
    ///
    /// As [`blocking_read`](RwLock::blocking_read).
    #[track_caller]
    pub fn blocking_write(&self) -> RwLockWriteGuard<'_, T> {
        super::blocking::wait(self.write())
    }

    /// The value, with no locking: `&mut self` proves nobody else holds it.
    pub fn get_mut(&mut self) -> &mut T {
        self.value.get_mut()
    }
}

impl<'a, T: ?Sized> RwLockWriteGuard<'a, T> {
    /// Turns exclusive access into shared access without letting a writer
    /// in between: all permits but one go back to the line (to the readers
    /// waiting at its head; a writer there collects them and waits for this
    /// last one).
    pub fn downgrade(self) -> RwLockReadGuard<'a, T> {
        let lock = self.lock;
        // The permits are handed on below, not released by the drop.
        std::mem::forget(self);
        lock.sem.release(MAX_READS as usize - 1);
        RwLockReadGuard { lock }
    }
}

impl<T: ?Sized> OwnedRwLockWriteGuard<T> {
    /// [`RwLockWriteGuard::downgrade`] for the owned guard.
    pub fn downgrade(mut self) -> OwnedRwLockReadGuard<T> {
        let lock = self.lock.clone();
        // The read permit kept passes to the new guard; the drop of `self`
        // then gives back nothing.
        self.permits = 0;
        lock.sem.release(MAX_READS as usize - 1);
        OwnedRwLockReadGuard { lock }
    }
}

impl<T: ?Sized> OwnedRwLockReadGuard<T> {
    /// The lock this guard holds.
    pub fn rwlock(this: &OwnedRwLockReadGuard<T>) -> &Arc<RwLock<T>> {
        &this.lock
    }
}

impl<T: ?Sized> OwnedRwLockWriteGuard<T> {
    /// The lock this guard holds.
    pub fn rwlock(this: &OwnedRwLockWriteGuard<T>) -> &Arc<RwLock<T>> {
        &this.lock
    }
}

impl<T: ?Sized> Deref for OwnedRwLockReadGuard<T> {
    type Target = T;
    fn deref(&self) -> &T {
        // SAFETY: as for `RwLockReadGuard`: a read permit is held, so no
        // writer exists while this guard lives.
        unsafe { &*self.lock.value.get() }
    }
}

impl<T: ?Sized> Deref for OwnedRwLockWriteGuard<T> {
    type Target = T;
    fn deref(&self) -> &T {
        // SAFETY: this guard holds every permit (`permits` is only zeroed
        // by `downgrade`, which consumes the guard).
        unsafe { &*self.lock.value.get() }
    }
}

impl<T: ?Sized> DerefMut for OwnedRwLockWriteGuard<T> {
    fn deref_mut(&mut self) -> &mut T {
        // SAFETY: every permit is held, and `&mut self` makes this the only
        // borrow through the guard.
        unsafe { &mut *self.lock.value.get() }
    }
}

impl<T: ?Sized> Drop for OwnedRwLockReadGuard<T> {
    fn drop(&mut self) {
        self.lock.sem.release(1);
    }
}

impl<T: ?Sized> Drop for OwnedRwLockWriteGuard<T> {
    fn drop(&mut self) {
        self.lock.sem.release(self.permits as usize);
    }
}

impl<T: ?Sized + fmt::Debug> fmt::Debug for OwnedRwLockReadGuard<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

impl<T: ?Sized + fmt::Debug> fmt::Debug for OwnedRwLockWriteGuard<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
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

    #[test]
    fn a_downgraded_writer_reads_and_shares_with_readers_but_not_writers() {
        let lock = Arc::new(RwLock::new(1));
        let mut w = lock.try_write().unwrap();
        *w = 2;
        let r = w.downgrade();
        assert_eq!(*r, 2);
        let other = lock.try_read().unwrap();
        assert!(lock.try_write().is_err());
        drop((r, other));
        let mut w = lock.clone().try_write_owned().unwrap();
        *w = 3;
        let r = w.downgrade();
        assert!(lock.clone().try_write_owned().is_err());
        assert_eq!(*lock.clone().try_read_owned().unwrap() + *r, 6);
        drop(r);
        assert_eq!(*lock.try_write().unwrap(), 3);
    }
}
