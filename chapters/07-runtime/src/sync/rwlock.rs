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
use std::marker::PhantomData;
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
    /// Readers at once: the semaphore's permits, all of which a writer takes.
    max_readers: u32,
    sem: Semaphore,
    value: UnsafeCell<T>,
}

// SAFETY: readers on several threads share `&T` (needs `T: Sync`) and a
// writer on any thread gets `&mut T` (needs `T: Send`).
unsafe impl<T: ?Sized + Send + Sync> Sync for RwLock<T> {}

// The guards hold the semaphore (or an `Arc` of the lock) and a pointer to
// the value, or, once mapped, to a part of it: the pointer is what lets
// `map` narrow a guard without a new type per narrowing. Each is valid for
// as long as the guard holds its permits.

/// Shared access until dropped; [`map`](RwLockReadGuard::map) narrows it
/// to a part of the value.
#[clippy::has_significant_drop]
#[must_use = "dropping the guard releases the read lock at once"]
pub struct RwLockReadGuard<'a, T: ?Sized> {
    sem: &'a Semaphore,
    data: *const T,
    _borrow: PhantomData<&'a T>,
}

/// Exclusive access until dropped.
#[clippy::has_significant_drop]
#[must_use = "dropping the guard releases the write lock at once"]
pub struct RwLockWriteGuard<'a, T: ?Sized> {
    sem: &'a Semaphore,
    data: *mut T,
    /// Every permit of the lock (its `max_readers`).
    permits: u32,
    _borrow: PhantomData<&'a mut T>,
}

/// A [`RwLockWriteGuard`] narrowed by [`RwLockWriteGuard::map`] to a part
/// of the value; the lock stays write-locked until it is dropped.
#[clippy::has_significant_drop]
#[must_use = "dropping the guard releases the write lock at once"]
pub struct RwLockMappedWriteGuard<'a, T: ?Sized> {
    sem: &'a Semaphore,
    data: *mut T,
    permits: u32,
    _borrow: PhantomData<&'a mut T>,
}

/// A read guard that owns an `Arc` of its lock, so it can outlive the
/// borrow (and move into a spawned task); `U` is the part of the lock's
/// `T` it reads once [mapped](OwnedRwLockReadGuard::map).
#[clippy::has_significant_drop]
#[must_use = "dropping the guard releases the read lock at once"]
pub struct OwnedRwLockReadGuard<T: ?Sized, U: ?Sized = T> {
    lock: Arc<RwLock<T>>,
    data: *const U,
    _borrow: PhantomData<U>,
}

/// A write guard that owns an `Arc` of its lock.
#[clippy::has_significant_drop]
#[must_use = "dropping the guard releases the write lock at once"]
pub struct OwnedRwLockWriteGuard<T: ?Sized> {
    lock: Arc<RwLock<T>>,
    data: *mut T,
    permits: u32,
}

/// An [`OwnedRwLockWriteGuard`] narrowed to a `U` inside the lock's `T`.
#[clippy::has_significant_drop]
#[must_use = "dropping the guard releases the write lock at once"]
pub struct OwnedRwLockMappedWriteGuard<T: ?Sized, U: ?Sized = T> {
    lock: Arc<RwLock<T>>,
    data: *mut U,
    permits: u32,
    _borrow: PhantomData<U>,
}

// The guards hold raw pointers, so their Send and Sync are stated: a read
// guard is a `&T` (sending it shares `T`: needs `T: Sync`); a write guard
// is a `&mut T` that may also be shared as `&T` (needs `T: Send + Sync`); an
// owned guard also holds an `Arc` of the lock, which may be the last and
// drop the `T` on the thread it is on (needs `T: Send`). These are Tokio's
// bounds.
// SAFETY: see above.
unsafe impl<T: ?Sized + Sync> Send for RwLockReadGuard<'_, T> {}
// SAFETY: see above.
unsafe impl<T: ?Sized + Send + Sync> Sync for RwLockReadGuard<'_, T> {}
// SAFETY: see above.
unsafe impl<T: ?Sized + Send + Sync> Send for RwLockWriteGuard<'_, T> {}
// SAFETY: see above.
unsafe impl<T: ?Sized + Send + Sync> Sync for RwLockWriteGuard<'_, T> {}
// SAFETY: see above.
unsafe impl<T: ?Sized + Send + Sync> Send for RwLockMappedWriteGuard<'_, T> {}
// SAFETY: see above.
unsafe impl<T: ?Sized + Send + Sync> Sync for RwLockMappedWriteGuard<'_, T> {}
// SAFETY: see above.
unsafe impl<T: ?Sized + Send + Sync, U: ?Sized + Sync> Send for OwnedRwLockReadGuard<T, U> {}
// SAFETY: see above.
unsafe impl<T: ?Sized + Send + Sync, U: ?Sized + Send + Sync> Sync for OwnedRwLockReadGuard<T, U> {}
// SAFETY: see above.
unsafe impl<T: ?Sized + Send + Sync> Send for OwnedRwLockWriteGuard<T> {}
// SAFETY: see above.
unsafe impl<T: ?Sized + Send + Sync> Sync for OwnedRwLockWriteGuard<T> {}
// SAFETY: see above.
unsafe impl<T: ?Sized + Send + Sync, U: ?Sized + Send + Sync> Send
    for OwnedRwLockMappedWriteGuard<T, U>
{
}
// SAFETY: see above.
unsafe impl<T: ?Sized + Send + Sync, U: ?Sized + Send + Sync> Sync
    for OwnedRwLockMappedWriteGuard<T, U>
{
}

impl<T> RwLock<T> {
    /// Creates an unlocked lock holding `value`.
    pub fn new(value: T) -> RwLock<T> {
        RwLock::with_max_readers(value, MAX_READS)
    }

    /// [`new`](RwLock::new) in a `const` context, for a lock in a `static`
    /// (not in loom builds).
    #[cfg(not(loom))]
    pub const fn const_new(value: T) -> RwLock<T> {
        RwLock::const_with_max_readers(value, MAX_READS)
    }

    /// A lock that lets at most `max_reads` readers in at once.
    ///
    /// # Panics
    ///
    /// If `max_reads` is zero or more than `u32::MAX >> 3`.
    #[track_caller]
    pub fn with_max_readers(value: T, max_reads: u32) -> RwLock<T> {
        assert_ne!(max_reads, 0, "a RwLock may not be created with 0 readers");
        assert!(
            max_reads <= MAX_READS,
            "a RwLock may not be created with more than {MAX_READS} readers"
        );
        RwLock {
            max_readers: max_reads,
            sem: Semaphore::new(max_reads as usize),
            value: UnsafeCell::new(value),
        }
    }

    /// [`with_max_readers`](RwLock::with_max_readers) in a `const` context
    /// (not in loom builds).
    ///
    /// # Panics
    ///
    /// As [`with_max_readers`](RwLock::with_max_readers).
    #[cfg(not(loom))]
    pub const fn const_with_max_readers(value: T, max_reads: u32) -> RwLock<T> {
        assert!(max_reads != 0, "a RwLock may not be created with 0 readers");
        assert!(max_reads <= MAX_READS);
        RwLock {
            max_readers: max_reads,
            sem: Semaphore::const_new(max_reads as usize),
            value: UnsafeCell::new(value),
        }
    }

    /// The value, the lock consumed.
    pub fn into_inner(self) -> T {
        self.value.into_inner()
    }
}

impl<T: ?Sized> RwLock<T> {
    fn read_guard(&self) -> RwLockReadGuard<'_, T> {
        RwLockReadGuard {
            sem: &self.sem,
            data: self.value.get(),
            _borrow: PhantomData,
        }
    }

    fn write_guard(&self) -> RwLockWriteGuard<'_, T> {
        RwLockWriteGuard {
            sem: &self.sem,
            data: self.value.get(),
            permits: self.max_readers,
            _borrow: PhantomData,
        }
    }

    fn owned_read_guard(self: Arc<Self>) -> OwnedRwLockReadGuard<T> {
        OwnedRwLockReadGuard {
            data: self.value.get(),
            lock: self,
            _borrow: PhantomData,
        }
    }

    fn owned_write_guard(self: Arc<Self>) -> OwnedRwLockWriteGuard<T> {
        OwnedRwLockWriteGuard {
            data: self.value.get(),
            permits: self.max_readers,
            lock: self,
        }
    }

    /// Waits for shared access, behind any writer that asked first.
    ///
    /// Cancel safety: cancelling loses the place in the line, nothing else.
    pub async fn read(&self) -> RwLockReadGuard<'_, T> {
        if self.sem.acquire_raw(1).await.is_err() {
            unreachable!("an RwLock's semaphore is never closed");
        }
        self.read_guard()
    }

    /// Waits for exclusive access, behind anyone who asked first.
    ///
    /// Cancel safety: cancelling loses the place in the line; read permits
    /// it had collected go to whoever is next.
    // ANCHOR: write
    pub async fn write(&self) -> RwLockWriteGuard<'_, T> {
        if self
            .sem
            .acquire_raw(self.max_readers as usize)
            .await
            .is_err()
        {
            unreachable!("an RwLock's semaphore is never closed");
        }
        self.write_guard()
    }
    // ANCHOR_END: write

    /// Shared access if no writer holds or waits for the lock now.
    pub fn try_read(&self) -> Result<RwLockReadGuard<'_, T>, TryLockError> {
        match self.sem.try_take(1) {
            Ok(()) => Ok(self.read_guard()),
            Err(_) => Err(TryLockError(())),
        }
    }

    /// Exclusive access if nobody holds or waits for the lock now.
    pub fn try_write(&self) -> Result<RwLockWriteGuard<'_, T>, TryLockError> {
        match self.sem.try_take(self.max_readers as usize) {
            Ok(()) => Ok(self.write_guard()),
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
        self.owned_read_guard()
    }

    /// [`write`](RwLock::write) for a guard that owns an `Arc` of the lock.
    ///
    /// Cancel safety: as [`write`](RwLock::write).
    pub async fn write_owned(self: Arc<Self>) -> OwnedRwLockWriteGuard<T> {
        if self
            .sem
            .acquire_raw(self.max_readers as usize)
            .await
            .is_err()
        {
            unreachable!("an RwLock's semaphore is never closed");
        }
        self.owned_write_guard()
    }

    /// [`try_read`](RwLock::try_read) for an owned guard.
    pub fn try_read_owned(self: Arc<Self>) -> Result<OwnedRwLockReadGuard<T>, TryLockError> {
        match self.sem.try_take(1) {
            Ok(()) => Ok(self.owned_read_guard()),
            Err(_) => Err(TryLockError(())),
        }
    }

    /// [`try_write`](RwLock::try_write) for an owned guard.
    pub fn try_write_owned(self: Arc<Self>) -> Result<OwnedRwLockWriteGuard<T>, TryLockError> {
        match self.sem.try_take(self.max_readers as usize) {
            Ok(()) => Ok(self.owned_write_guard()),
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

impl<'a, T: ?Sized> RwLockReadGuard<'a, T> {
    /// Narrows the guard to a part of the value `f` picks; the read lock
    /// is held until the new guard is dropped. An associated function
    /// (`RwLockReadGuard::map(guard, f)`), so as not to hide a method of `T`.
    pub fn map<F, U: ?Sized>(this: RwLockReadGuard<'a, T>, f: F) -> RwLockReadGuard<'a, U>
    where
        F: FnOnce(&T) -> &U,
    {
        // `try_map` with a part that is always there.
        match Self::try_map(this, |value| Some(f(value))) {
            Ok(mapped) => mapped,
            Err(_) => unreachable!("`f` always returns a part"),
        }
    }

    /// [`map`](Self::map) when the part may be missing: `f` returns `None`
    /// and the original guard comes back in `Err`.
    pub fn try_map<F, U: ?Sized>(
        this: RwLockReadGuard<'a, T>,
        f: F,
    ) -> Result<RwLockReadGuard<'a, U>, RwLockReadGuard<'a, T>>
    where
        F: FnOnce(&T) -> Option<&U>,
    {
        let data: *const U = match f(&*this) {
            Some(data) => data,
            None => return Err(this),
        };
        let sem = this.sem;
        // The permit passes to the new guard.
        std::mem::forget(this);
        Ok(RwLockReadGuard {
            sem,
            data,
            _borrow: PhantomData,
        })
    }
}

impl<'a, T: ?Sized> RwLockWriteGuard<'a, T> {
    /// Narrows the guard to a part of the value; the lock stays
    /// write-locked until the new guard is dropped.
    pub fn map<F, U: ?Sized>(this: RwLockWriteGuard<'a, T>, f: F) -> RwLockMappedWriteGuard<'a, U>
    where
        F: FnOnce(&mut T) -> &mut U,
    {
        // `try_map` with a part that is always there.
        match Self::try_map(this, |value| Some(f(value))) {
            Ok(mapped) => mapped,
            Err(_) => unreachable!("`f` always returns a part"),
        }
    }

    /// [`map`](Self::map) when the part may be missing.
    pub fn try_map<F, U: ?Sized>(
        mut this: RwLockWriteGuard<'a, T>,
        f: F,
    ) -> Result<RwLockMappedWriteGuard<'a, U>, RwLockWriteGuard<'a, T>>
    where
        F: FnOnce(&mut T) -> Option<&mut U>,
    {
        let data: *mut U = match f(&mut *this) {
            Some(data) => data,
            None => return Err(this),
        };
        let (sem, permits) = (this.sem, this.permits);
        std::mem::forget(this);
        Ok(RwLockMappedWriteGuard {
            sem,
            data,
            permits,
            _borrow: PhantomData,
        })
    }

    /// The same guard, as a mapped one (to store guards of both kinds in
    /// one place).
    pub fn into_mapped(this: RwLockWriteGuard<'a, T>) -> RwLockMappedWriteGuard<'a, T> {
        RwLockWriteGuard::map(this, |value| value)
    }

    /// Turns exclusive access into shared access without letting a writer
    /// in between: all permits but one go back to the line (to the readers
    /// waiting at its head; a writer there collects them and waits for this
    /// last one).
    pub fn downgrade(self) -> RwLockReadGuard<'a, T> {
        let (sem, data, permits) = (self.sem, self.data, self.permits);
        // The permits are handed on below, not released by the drop.
        std::mem::forget(self);
        sem.release(permits as usize - 1);
        RwLockReadGuard {
            sem,
            data,
            _borrow: PhantomData,
        }
    }

    /// [`downgrade`](Self::downgrade), then [`map`](RwLockReadGuard::map)
    /// the read guard, in one step: no writer gets in between.
    pub fn downgrade_map<F, U: ?Sized>(
        this: RwLockWriteGuard<'a, T>,
        f: F,
    ) -> RwLockReadGuard<'a, U>
    where
        F: FnOnce(&T) -> &U,
    {
        RwLockReadGuard::map(this.downgrade(), f)
    }

    /// [`downgrade_map`](Self::downgrade_map) when the part may be missing;
    /// then the write guard comes back, still exclusive.
    pub fn try_downgrade_map<F, U: ?Sized>(
        this: RwLockWriteGuard<'a, T>,
        f: F,
    ) -> Result<RwLockReadGuard<'a, U>, RwLockWriteGuard<'a, T>>
    where
        F: FnOnce(&T) -> Option<&U>,
    {
        let data: *const U = match f(&*this) {
            Some(data) => data,
            None => return Err(this),
        };
        let read = this.downgrade();
        let sem = read.sem;
        std::mem::forget(read);
        Ok(RwLockReadGuard {
            sem,
            data,
            _borrow: PhantomData,
        })
    }
}

impl<'a, T: ?Sized> RwLockMappedWriteGuard<'a, T> {
    /// Narrows the guard further; see [`RwLockWriteGuard::map`].
    pub fn map<F, U: ?Sized>(
        this: RwLockMappedWriteGuard<'a, T>,
        f: F,
    ) -> RwLockMappedWriteGuard<'a, U>
    where
        F: FnOnce(&mut T) -> &mut U,
    {
        // `try_map` with a part that is always there.
        match Self::try_map(this, |value| Some(f(value))) {
            Ok(mapped) => mapped,
            Err(_) => unreachable!("`f` always returns a part"),
        }
    }

    /// Narrows the guard further if `f` finds the part.
    pub fn try_map<F, U: ?Sized>(
        mut this: RwLockMappedWriteGuard<'a, T>,
        f: F,
    ) -> Result<RwLockMappedWriteGuard<'a, U>, RwLockMappedWriteGuard<'a, T>>
    where
        F: FnOnce(&mut T) -> Option<&mut U>,
    {
        let data: *mut U = match f(&mut *this) {
            Some(data) => data,
            None => return Err(this),
        };
        let (sem, permits) = (this.sem, this.permits);
        std::mem::forget(this);
        Ok(RwLockMappedWriteGuard {
            sem,
            data,
            permits,
            _borrow: PhantomData,
        })
    }
}

impl<T: ?Sized, U: ?Sized> OwnedRwLockReadGuard<T, U> {
    /// The lock this guard holds.
    pub fn rwlock(this: &OwnedRwLockReadGuard<T, U>) -> &Arc<RwLock<T>> {
        &this.lock
    }

    /// [`RwLockReadGuard::map`] for the owned guard.
    pub fn map<F, V: ?Sized>(this: OwnedRwLockReadGuard<T, U>, f: F) -> OwnedRwLockReadGuard<T, V>
    where
        F: FnOnce(&U) -> &V,
    {
        // `try_map` with a part that is always there.
        match Self::try_map(this, |value| Some(f(value))) {
            Ok(mapped) => mapped,
            Err(_) => unreachable!("`f` always returns a part"),
        }
    }

    /// [`RwLockReadGuard::try_map`] for the owned guard.
    pub fn try_map<F, V: ?Sized>(
        this: OwnedRwLockReadGuard<T, U>,
        f: F,
    ) -> Result<OwnedRwLockReadGuard<T, V>, OwnedRwLockReadGuard<T, U>>
    where
        F: FnOnce(&U) -> Option<&V>,
    {
        let data: *const V = match f(&*this) {
            Some(data) => data,
            None => return Err(this),
        };
        Ok(OwnedRwLockReadGuard {
            lock: take_lock!(this),
            data,
            _borrow: PhantomData,
        })
    }
}

impl<T: ?Sized> OwnedRwLockWriteGuard<T> {
    /// The lock this guard holds.
    pub fn rwlock(this: &OwnedRwLockWriteGuard<T>) -> &Arc<RwLock<T>> {
        &this.lock
    }

    /// [`RwLockWriteGuard::map`] for the owned guard.
    pub fn map<F, U: ?Sized>(
        this: OwnedRwLockWriteGuard<T>,
        f: F,
    ) -> OwnedRwLockMappedWriteGuard<T, U>
    where
        F: FnOnce(&mut T) -> &mut U,
    {
        // `try_map` with a part that is always there.
        match Self::try_map(this, |value| Some(f(value))) {
            Ok(mapped) => mapped,
            Err(_) => unreachable!("`f` always returns a part"),
        }
    }

    /// [`RwLockWriteGuard::try_map`] for the owned guard.
    pub fn try_map<F, U: ?Sized>(
        mut this: OwnedRwLockWriteGuard<T>,
        f: F,
    ) -> Result<OwnedRwLockMappedWriteGuard<T, U>, OwnedRwLockWriteGuard<T>>
    where
        F: FnOnce(&mut T) -> Option<&mut U>,
    {
        let data: *mut U = match f(&mut *this) {
            Some(data) => data,
            None => return Err(this),
        };
        let permits = this.permits;
        Ok(OwnedRwLockMappedWriteGuard {
            lock: take_lock!(this),
            data,
            permits,
            _borrow: PhantomData,
        })
    }

    /// The same guard, as a mapped one.
    pub fn into_mapped(this: OwnedRwLockWriteGuard<T>) -> OwnedRwLockMappedWriteGuard<T> {
        OwnedRwLockWriteGuard::map(this, |value| value)
    }

    /// [`RwLockWriteGuard::downgrade`] for the owned guard.
    pub fn downgrade(self) -> OwnedRwLockReadGuard<T> {
        let (data, permits) = (self.data, self.permits);
        let lock = take_lock!(self);
        lock.sem.release(permits as usize - 1);
        OwnedRwLockReadGuard {
            lock,
            data,
            _borrow: PhantomData,
        }
    }

    /// [`RwLockWriteGuard::downgrade_map`] for the owned guard.
    pub fn downgrade_map<F, U: ?Sized>(
        this: OwnedRwLockWriteGuard<T>,
        f: F,
    ) -> OwnedRwLockReadGuard<T, U>
    where
        F: FnOnce(&T) -> &U,
    {
        OwnedRwLockReadGuard::map(this.downgrade(), f)
    }

    /// [`RwLockWriteGuard::try_downgrade_map`] for the owned guard.
    pub fn try_downgrade_map<F, U: ?Sized>(
        this: OwnedRwLockWriteGuard<T>,
        f: F,
    ) -> Result<OwnedRwLockReadGuard<T, U>, OwnedRwLockWriteGuard<T>>
    where
        F: FnOnce(&T) -> Option<&U>,
    {
        let data: *const U = match f(&*this) {
            Some(data) => data,
            None => return Err(this),
        };
        let read = this.downgrade();
        Ok(OwnedRwLockReadGuard {
            lock: take_lock!(read),
            data,
            _borrow: PhantomData,
        })
    }
}

impl<T: ?Sized, U: ?Sized> OwnedRwLockMappedWriteGuard<T, U> {
    /// The lock this guard holds.
    pub fn rwlock(this: &OwnedRwLockMappedWriteGuard<T, U>) -> &Arc<RwLock<T>> {
        &this.lock
    }

    /// Narrows the guard further.
    pub fn map<F, V: ?Sized>(
        this: OwnedRwLockMappedWriteGuard<T, U>,
        f: F,
    ) -> OwnedRwLockMappedWriteGuard<T, V>
    where
        F: FnOnce(&mut U) -> &mut V,
    {
        // `try_map` with a part that is always there.
        match Self::try_map(this, |value| Some(f(value))) {
            Ok(mapped) => mapped,
            Err(_) => unreachable!("`f` always returns a part"),
        }
    }

    /// Narrows the guard further if `f` finds the part.
    pub fn try_map<F, V: ?Sized>(
        mut this: OwnedRwLockMappedWriteGuard<T, U>,
        f: F,
    ) -> Result<OwnedRwLockMappedWriteGuard<T, V>, OwnedRwLockMappedWriteGuard<T, U>>
    where
        F: FnOnce(&mut U) -> Option<&mut V>,
    {
        let data: *mut V = match f(&mut *this) {
            Some(data) => data,
            None => return Err(this),
        };
        let permits = this.permits;
        Ok(OwnedRwLockMappedWriteGuard {
            lock: take_lock!(this),
            data,
            permits,
            _borrow: PhantomData,
        })
    }
}

// Every guard's pointer came from the lock's `UnsafeCell` (or from a
// borrow of it that a guard handed to `map`), and stays valid while the
// guard holds its permits: the lock outlives `'a`, or the guard's `Arc`
// keeps it alive. A read guard holds one permit, so no writer (who needs
// all of them) exists while it lives; a write guard holds all of them, so
// no other guard exists.

impl<T: ?Sized> Deref for RwLockReadGuard<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        // SAFETY: see above: a read permit is held.
        unsafe { &*self.data }
    }
}

impl<T: ?Sized> Deref for RwLockWriteGuard<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        // SAFETY: see above: every permit is held.
        unsafe { &*self.data }
    }
}

impl<T: ?Sized> DerefMut for RwLockWriteGuard<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        // SAFETY: every permit is held, and `&mut self` makes this the only
        // borrow through the guard.
        unsafe { &mut *self.data }
    }
}

impl<T: ?Sized> Deref for RwLockMappedWriteGuard<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        // SAFETY: see above: every permit is held.
        unsafe { &*self.data }
    }
}

impl<T: ?Sized> DerefMut for RwLockMappedWriteGuard<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        // SAFETY: every permit is held; `&mut self` makes this borrow unique.
        unsafe { &mut *self.data }
    }
}

impl<T: ?Sized, U: ?Sized> Deref for OwnedRwLockReadGuard<T, U> {
    type Target = U;
    fn deref(&self) -> &U {
        // SAFETY: see above: a read permit is held, and `lock` keeps the
        // value alive.
        unsafe { &*self.data }
    }
}

impl<T: ?Sized> Deref for OwnedRwLockWriteGuard<T> {
    type Target = T;
    fn deref(&self) -> &T {
        // SAFETY: see above: every permit is held.
        unsafe { &*self.data }
    }
}

impl<T: ?Sized> DerefMut for OwnedRwLockWriteGuard<T> {
    fn deref_mut(&mut self) -> &mut T {
        // SAFETY: every permit is held; `&mut self` makes this borrow unique.
        unsafe { &mut *self.data }
    }
}

impl<T: ?Sized, U: ?Sized> Deref for OwnedRwLockMappedWriteGuard<T, U> {
    type Target = U;
    fn deref(&self) -> &U {
        // SAFETY: see above: every permit is held.
        unsafe { &*self.data }
    }
}

impl<T: ?Sized, U: ?Sized> DerefMut for OwnedRwLockMappedWriteGuard<T, U> {
    fn deref_mut(&mut self) -> &mut U {
        // SAFETY: every permit is held; `&mut self` makes this borrow unique.
        unsafe { &mut *self.data }
    }
}

impl<T: ?Sized> Drop for RwLockReadGuard<'_, T> {
    fn drop(&mut self) {
        self.sem.release(1);
    }
}

impl<T: ?Sized> Drop for RwLockWriteGuard<'_, T> {
    fn drop(&mut self) {
        self.sem.release(self.permits as usize);
    }
}

impl<T: ?Sized> Drop for RwLockMappedWriteGuard<'_, T> {
    fn drop(&mut self) {
        self.sem.release(self.permits as usize);
    }
}

impl<T: ?Sized, U: ?Sized> Drop for OwnedRwLockReadGuard<T, U> {
    fn drop(&mut self) {
        self.lock.sem.release(1);
    }
}

impl<T: ?Sized> Drop for OwnedRwLockWriteGuard<T> {
    fn drop(&mut self) {
        self.lock.sem.release(self.permits as usize);
    }
}

impl<T: ?Sized, U: ?Sized> Drop for OwnedRwLockMappedWriteGuard<T, U> {
    fn drop(&mut self) {
        self.lock.sem.release(self.permits as usize);
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

fmt_as_target! {
    RwLockReadGuard<'a, T> => ['a, T: ?Sized],
    RwLockWriteGuard<'a, T> => ['a, T: ?Sized],
    RwLockMappedWriteGuard<'a, T> => ['a, T: ?Sized],
    OwnedRwLockReadGuard<T, U> => [T: ?Sized, U: ?Sized],
    OwnedRwLockWriteGuard<T> => [T: ?Sized],
    OwnedRwLockMappedWriteGuard<T, U> => [T: ?Sized, U: ?Sized],
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

    #[test]
    fn mapped_guards_hold_their_permits_until_dropped() {
        let lock = Arc::new(RwLock::with_max_readers((String::from("a"), vec![1, 2]), 2));
        let name = RwLockReadGuard::map(lock.try_read().unwrap(), |pair| pair.0.as_str());
        assert_eq!(&*name, "a");
        let second = lock.try_read().unwrap();
        // Two readers at most: a third is refused, and so is a writer.
        assert!(lock.try_read().is_err() && lock.try_write().is_err());
        let Err(second) = RwLockReadGuard::try_map(second, |pair| pair.1.get(5)) else {
            panic!("there is no element 5");
        };
        drop((name, second));

        let w = lock.try_write().unwrap();
        let mut items = RwLockWriteGuard::map(w, |pair| &mut pair.1);
        items.push(3);
        assert!(lock.try_read().is_err());
        let mut first = RwLockMappedWriteGuard::try_map(items, |v| v.first_mut()).unwrap();
        *first = 10;
        drop(first);

        let w = lock.try_write().unwrap();
        let Err(w) = RwLockWriteGuard::try_downgrade_map(w, |pair| pair.1.get(9)) else {
            panic!("there is no element 9");
        };
        let len = RwLockWriteGuard::downgrade_map(w, |pair| &pair.1);
        assert_eq!(*len, [10, 2, 3]);
        // Downgraded: readers may join, a writer may not.
        let other = lock.try_read().unwrap();
        assert!(lock.try_write().is_err());
        drop((len, other));

        let owned = lock.clone().try_write_owned().unwrap();
        let mut name = OwnedRwLockWriteGuard::map(owned, |pair| &mut pair.0);
        name.push('b');
        let mut name = OwnedRwLockMappedWriteGuard::map(name, |s| s);
        name.push('c');
        assert!(Arc::ptr_eq(
            OwnedRwLockMappedWriteGuard::rwlock(&name),
            &lock
        ));
        drop(name);
        let read = OwnedRwLockReadGuard::map(lock.clone().try_read_owned().unwrap(), |p| &p.0);
        assert_eq!(&**read, "abc");
        drop(read);
        let owned = lock.clone().try_write_owned().unwrap();
        assert!(lock.clone().try_read_owned().is_err());
        let read = OwnedRwLockWriteGuard::downgrade_map(owned, |pair| &pair.1[1]);
        assert_eq!(*read, 2);
        drop(read);
        // Every permit came back, and every Arc the guards took.
        drop(lock.try_write().unwrap());
        assert_eq!(Arc::strong_count(&lock), 1);
    }

    #[test]
    #[should_panic(expected = "0 readers")]
    fn a_lock_needs_at_least_one_reader() {
        let _ = RwLock::with_max_readers(0, 0);
    }
}
