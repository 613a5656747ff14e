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
//! Book: Chapter 8, "Locks and notification".

use super::lock::{Held, Lock, acquire, try_acquire};
use super::mutex::TryLockError;
use super::semaphore::Semaphore;
use std::cell::UnsafeCell;
use std::marker::PhantomData;
use std::ops::Deref;
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

// The guards hold their permits (with the semaphore, or an `Arc` of the
// lock) and a pointer to the value, or, once mapped, to a part of it: the
// pointer is what lets `map` narrow a guard without a new type per
// narrowing (`lock.rs`). Each is valid for as long as the guard holds its
// permits.

/// Shared access until dropped; [`map`](RwLockReadGuard::map) narrows it
/// to a part of the value.
#[clippy::has_significant_drop]
#[must_use = "dropping the guard releases the read lock at once"]
pub struct RwLockReadGuard<'a, T: ?Sized> {
    held: Held<&'a Semaphore>,
    data: *const T,
    _borrow: PhantomData<&'a T>,
}

/// Exclusive access until dropped.
#[clippy::has_significant_drop]
#[must_use = "dropping the guard releases the write lock at once"]
pub struct RwLockWriteGuard<'a, T: ?Sized> {
    /// Every permit of the lock (its `max_readers`).
    held: Held<&'a Semaphore>,
    data: *mut T,
    _borrow: PhantomData<&'a mut T>,
}

/// A [`RwLockWriteGuard`] narrowed by [`RwLockWriteGuard::map`] to a part
/// of the value; the lock stays write-locked until it is dropped.
#[clippy::has_significant_drop]
#[must_use = "dropping the guard releases the write lock at once"]
pub struct RwLockMappedWriteGuard<'a, T: ?Sized> {
    held: Held<&'a Semaphore>,
    data: *mut T,
    _borrow: PhantomData<&'a mut T>,
}

/// A read guard that owns an `Arc` of its lock, so it can outlive the
/// borrow (and move into a spawned task); `U` is the part of the lock's
/// `T` it reads once [mapped](OwnedRwLockReadGuard::map).
#[clippy::has_significant_drop]
#[must_use = "dropping the guard releases the read lock at once"]
pub struct OwnedRwLockReadGuard<T: ?Sized, U: ?Sized = T> {
    held: Held<Arc<RwLock<T>>>,
    data: *const U,
    _borrow: PhantomData<U>,
}

/// A write guard that owns an `Arc` of its lock.
#[clippy::has_significant_drop]
#[must_use = "dropping the guard releases the write lock at once"]
pub struct OwnedRwLockWriteGuard<T: ?Sized> {
    held: Held<Arc<RwLock<T>>>,
    data: *mut T,
}

/// An [`OwnedRwLockWriteGuard`] narrowed to a `U` inside the lock's `T`.
#[clippy::has_significant_drop]
#[must_use = "dropping the guard releases the write lock at once"]
pub struct OwnedRwLockMappedWriteGuard<T: ?Sized, U: ?Sized = T> {
    held: Held<Arc<RwLock<T>>>,
    data: *mut U,
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
            held: Held::new(&self.sem, 1),
            data: self.value.get(),
            _borrow: PhantomData,
        }
    }

    fn write_guard(&self) -> RwLockWriteGuard<'_, T> {
        RwLockWriteGuard {
            held: Held::new(&self.sem, self.max_readers),
            data: self.value.get(),
            _borrow: PhantomData,
        }
    }

    fn owned_read_guard(self: Arc<Self>) -> OwnedRwLockReadGuard<T> {
        OwnedRwLockReadGuard {
            data: self.value.get(),
            held: Held::new(self, 1),
            _borrow: PhantomData,
        }
    }

    fn owned_write_guard(self: Arc<Self>) -> OwnedRwLockWriteGuard<T> {
        let permits = self.max_readers;
        OwnedRwLockWriteGuard {
            data: self.value.get(),
            held: Held::new(self, permits),
        }
    }

    /// Waits for shared access, behind any writer that asked first.
    ///
    /// Cancel safety: cancelling loses the place in the line, nothing else.
    pub async fn read(&self) -> RwLockReadGuard<'_, T> {
        acquire(&self.sem, 1).await;
        self.read_guard()
    }

    /// Waits for exclusive access, behind anyone who asked first.
    ///
    /// Cancel safety: cancelling loses the place in the line; read permits
    /// it had collected go to whoever is next.
    // ANCHOR: write
    pub async fn write(&self) -> RwLockWriteGuard<'_, T> {
        acquire(&self.sem, self.max_readers).await;
        self.write_guard()
    }
    // ANCHOR_END: write

    /// Shared access if no writer holds or waits for the lock now.
    pub fn try_read(&self) -> Result<RwLockReadGuard<'_, T>, TryLockError> {
        try_acquire(&self.sem, 1)?;
        Ok(self.read_guard())
    }

    /// Exclusive access if nobody holds or waits for the lock now.
    pub fn try_write(&self) -> Result<RwLockWriteGuard<'_, T>, TryLockError> {
        try_acquire(&self.sem, self.max_readers)?;
        Ok(self.write_guard())
    }

    /// [`read`](RwLock::read) for a guard that owns an `Arc` of the lock.
    ///
    /// Cancel safety: as [`read`](RwLock::read).
    pub async fn read_owned(self: Arc<Self>) -> OwnedRwLockReadGuard<T> {
        acquire(&self.sem, 1).await;
        self.owned_read_guard()
    }

    /// [`write`](RwLock::write) for a guard that owns an `Arc` of the lock.
    ///
    /// Cancel safety: as [`write`](RwLock::write).
    pub async fn write_owned(self: Arc<Self>) -> OwnedRwLockWriteGuard<T> {
        acquire(&self.sem, self.max_readers).await;
        self.owned_write_guard()
    }

    /// [`try_read`](RwLock::try_read) for an owned guard.
    pub fn try_read_owned(self: Arc<Self>) -> Result<OwnedRwLockReadGuard<T>, TryLockError> {
        try_acquire(&self.sem, 1)?;
        Ok(self.owned_read_guard())
    }

    /// [`try_write`](RwLock::try_write) for an owned guard.
    pub fn try_write_owned(self: Arc<Self>) -> Result<OwnedRwLockWriteGuard<T>, TryLockError> {
        try_acquire(&self.sem, self.max_readers)?;
        Ok(self.owned_write_guard())
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

/// `downgrade`, `downgrade_map` and `try_downgrade_map` of a write guard,
/// inside its `impl`, given its read guard with the generic arguments that
/// come before the value's type (`RwLockReadGuard<'a, ..>`) and each
/// method's docs: the borrowed and the owned write guard differ in types
/// only. Downgrading keeps one of the write guard's permits and gives the
/// rest back.
macro_rules! downgrade_methods {
    (
        $read:ident<$first:tt, ..>;
        $(#[$downgrade_doc:meta])*
        fn downgrade;
        $(#[$downgrade_map_doc:meta])*
        fn downgrade_map;
        $(#[$try_downgrade_map_doc:meta])*
        fn try_downgrade_map;
    ) => {
        $(#[$downgrade_doc])*
        pub fn downgrade(self) -> $read<$first, T> {
            let data = self.data;
            $read {
                held: downgrade(take_held!(self)),
                data,
                _borrow: PhantomData,
            }
        }

        $(#[$downgrade_map_doc])*
        pub fn downgrade_map<F, U: ?Sized>(this: Self, f: F) -> $read<$first, U>
        where
            F: FnOnce(&T) -> &U,
        {
            $read::map(this.downgrade(), f)
        }

        $(#[$try_downgrade_map_doc])*
        pub fn try_downgrade_map<F, U: ?Sized>(
            this: Self,
            f: F,
        ) -> Result<$read<$first, U>, Self>
        where
            F: FnOnce(&T) -> Option<&U>,
        {
            let data: *const U = match f(&*this) {
                Some(data) => data,
                None => return Err(this),
            };
            Ok($read {
                held: downgrade(take_held!(this)),
                data,
                _borrow: PhantomData,
            })
        }
    };
}

/// A write guard's permits, all but one given back: what a read guard
/// holds.
fn downgrade<L: Deref>(mut held: Held<L>) -> Held<L>
where
    L::Target: Lock,
{
    held.lock.semaphore().release(held.permits as usize - 1);
    held.permits = 1;
    held
}

impl<T: ?Sized> Lock for RwLock<T> {
    fn semaphore(&self) -> &Semaphore {
        &self.sem
    }
}

impl<'a, T: ?Sized> RwLockReadGuard<'a, T> {
    map_methods! {
        /// Narrows the guard to a part of the value `f` picks; the read lock
        /// is held until the new guard is dropped. An associated function
        /// (`RwLockReadGuard::map(guard, f)`), so as not to hide a method of `T`.
        fn map<F, U: ?Sized>(&T -> &U) -> RwLockReadGuard<'a, U>;
        /// [`map`](Self::map) when the part may be missing: `f` returns `None`
        /// and the original guard comes back in `Err`.
        fn try_map;
    }
}

impl<'a, T: ?Sized> RwLockWriteGuard<'a, T> {
    map_methods! {
        /// Narrows the guard to a part of the value; the lock stays
        /// write-locked until the new guard is dropped.
        fn map<F, U: ?Sized>(&mut T -> &mut U) -> RwLockMappedWriteGuard<'a, U>;
        /// [`map`](Self::map) when the part may be missing.
        fn try_map;
    }

    /// The same guard, as a mapped one (to store guards of both kinds in
    /// one place).
    pub fn into_mapped(this: RwLockWriteGuard<'a, T>) -> RwLockMappedWriteGuard<'a, T> {
        RwLockWriteGuard::map(this, |value| value)
    }

    downgrade_methods! {
        RwLockReadGuard<'a, ..>;
        /// Turns exclusive access into shared access without letting a writer
        /// in between: all permits but one go back to the line (to the readers
        /// waiting at its head; a writer there collects them and waits for this
        /// last one).
        fn downgrade;
        /// [`downgrade`](Self::downgrade), then [`map`](RwLockReadGuard::map)
        /// the read guard, in one step: no writer gets in between.
        fn downgrade_map;
        /// [`downgrade_map`](Self::downgrade_map) when the part may be missing;
        /// then the write guard comes back, still exclusive.
        fn try_downgrade_map;
    }
}

impl<'a, T: ?Sized> RwLockMappedWriteGuard<'a, T> {
    map_methods! {
        /// Narrows the guard further; see [`RwLockWriteGuard::map`].
        fn map<F, U: ?Sized>(&mut T -> &mut U) -> RwLockMappedWriteGuard<'a, U>;
        /// Narrows the guard further if `f` finds the part.
        fn try_map;
    }
}

impl<T: ?Sized, U: ?Sized> OwnedRwLockReadGuard<T, U> {
    /// The lock this guard holds.
    pub fn rwlock(this: &OwnedRwLockReadGuard<T, U>) -> &Arc<RwLock<T>> {
        &this.held.lock
    }

    map_methods! {
        /// [`RwLockReadGuard::map`] for the owned guard.
        fn map<F, V: ?Sized>(&U -> &V) -> OwnedRwLockReadGuard<T, V>;
        /// [`RwLockReadGuard::try_map`] for the owned guard.
        fn try_map;
    }
}

impl<T: ?Sized> OwnedRwLockWriteGuard<T> {
    /// The lock this guard holds.
    pub fn rwlock(this: &OwnedRwLockWriteGuard<T>) -> &Arc<RwLock<T>> {
        &this.held.lock
    }

    map_methods! {
        /// [`RwLockWriteGuard::map`] for the owned guard.
        fn map<F, U: ?Sized>(&mut T -> &mut U) -> OwnedRwLockMappedWriteGuard<T, U>;
        /// [`RwLockWriteGuard::try_map`] for the owned guard.
        fn try_map;
    }

    /// The same guard, as a mapped one.
    pub fn into_mapped(this: OwnedRwLockWriteGuard<T>) -> OwnedRwLockMappedWriteGuard<T> {
        OwnedRwLockWriteGuard::map(this, |value| value)
    }

    downgrade_methods! {
        OwnedRwLockReadGuard<T, ..>;
        /// [`RwLockWriteGuard::downgrade`] for the owned guard.
        fn downgrade;
        /// [`RwLockWriteGuard::downgrade_map`] for the owned guard.
        fn downgrade_map;
        /// [`RwLockWriteGuard::try_downgrade_map`] for the owned guard.
        fn try_downgrade_map;
    }
}

impl<T: ?Sized, U: ?Sized> OwnedRwLockMappedWriteGuard<T, U> {
    /// The lock this guard holds.
    pub fn rwlock(this: &OwnedRwLockMappedWriteGuard<T, U>) -> &Arc<RwLock<T>> {
        &this.held.lock
    }

    map_methods! {
        /// Narrows the guard further.
        fn map<F, V: ?Sized>(&mut U -> &mut V) -> OwnedRwLockMappedWriteGuard<T, V>;
        /// Narrows the guard further if `f` finds the part.
        fn try_map;
    }
}

guard_impls! {
    reads RwLockReadGuard<'a, T> => ['a, T: ?Sized] T;
    writes RwLockWriteGuard<'a, T> => ['a, T: ?Sized] T;
    writes RwLockMappedWriteGuard<'a, T> => ['a, T: ?Sized] T;
    reads OwnedRwLockReadGuard<T, U> => [T: ?Sized, U: ?Sized] U;
    writes OwnedRwLockWriteGuard<T> => [T: ?Sized] T;
    writes OwnedRwLockMappedWriteGuard<T, U> => [T: ?Sized, U: ?Sized] U;
}

lock_impls!(RwLock: try_read);

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
