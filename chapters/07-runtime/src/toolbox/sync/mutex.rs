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
//! Book: Chapter 8, "Locks and notification".

use super::lock::{Held, Lock, acquire, try_acquire};
use super::semaphore::Semaphore;
use std::cell::UnsafeCell;
use std::marker::PhantomData;
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
    held: Held<Arc<Mutex<T>>>,
}

/// A [`MutexGuard`] narrowed by [`MutexGuard::map`] to a part of the value
/// (a field, an element): the whole mutex stays locked until it is dropped.
#[clippy::has_significant_drop]
#[must_use = "dropping the guard unlocks the mutex at once"]
pub struct MappedMutexGuard<'a, T: ?Sized> {
    held: Held<&'a Semaphore>,
    /// The part, inside the locked value.
    data: *mut T,
    _borrow: PhantomData<&'a mut T>,
}

/// An [`OwnedMutexGuard`] narrowed by [`OwnedMutexGuard::map`] to a `U`
/// inside the mutex's `T`.
#[clippy::has_significant_drop]
#[must_use = "dropping the guard unlocks the mutex at once"]
pub struct OwnedMappedMutexGuard<T: ?Sized, U: ?Sized = T> {
    held: Held<Arc<Mutex<T>>>,
    /// The part, inside the value the `Arc` keeps alive.
    data: *mut U,
    _borrow: PhantomData<U>,
}

// SAFETY: a mapped guard is a `&mut T` held while the permit is: sending
// it sends that borrow (needs `T: Send`), sharing it shares `&T` (needs
// `T: Sync`), as for `&mut T` itself. Tokio states the same bounds.
unsafe impl<'a, T: ?Sized + Sync + 'a> Sync for MappedMutexGuard<'a, T> {}
// SAFETY: as above.
unsafe impl<'a, T: ?Sized + Send + 'a> Send for MappedMutexGuard<'a, T> {}
// SAFETY: as for `MappedMutexGuard`; the guard also owns an `Arc` of the
// mutex, which may be the last and drop the `T` (needs `T: Send`), and
// shares the mutex (needs `T: Sync` to share through `&`).
unsafe impl<T: ?Sized + Send + Sync, U: ?Sized + Send + Sync> Sync for OwnedMappedMutexGuard<T, U> {}
// SAFETY: as above.
unsafe impl<T: ?Sized + Send, U: ?Sized + Send> Send for OwnedMappedMutexGuard<T, U> {}

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
        acquire(&self.sem, 1).await;
        MutexGuard { lock: self }
    }
    // ANCHOR_END: lock

    /// Takes the lock if it is free now and nobody waits for it.
    pub fn try_lock(&self) -> Result<MutexGuard<'_, T>, TryLockError> {
        try_acquire(&self.sem, 1)?;
        Ok(MutexGuard { lock: self })
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
        acquire(&self.sem, 1).await;
        self.owned_guard()
    }

    /// [`try_lock`](Mutex::try_lock) for a guard that owns an `Arc`.
    pub fn try_lock_owned(self: Arc<Self>) -> Result<OwnedMutexGuard<T>, TryLockError> {
        try_acquire(&self.sem, 1)?;
        Ok(self.owned_guard())
    }

    /// The value, with no locking: `&mut self` proves nobody else holds it.
    pub fn get_mut(&mut self) -> &mut T {
        self.value.get_mut()
    }

    /// The guard of the permit just taken, for `lock_owned`.
    fn owned_guard(self: Arc<Self>) -> OwnedMutexGuard<T> {
        OwnedMutexGuard {
            held: Held::new(self, 1),
        }
    }
}

impl<T: ?Sized> Lock for Mutex<T> {
    fn semaphore(&self) -> &Semaphore {
        &self.sem
    }
}

impl<'a, T: ?Sized> MutexGuard<'a, T> {
    /// The mutex this guard locks.
    pub fn mutex(this: &MutexGuard<'a, T>) -> &'a Mutex<T> {
        this.lock
    }

    map_methods! {
        /// Narrows the guard to a part of the value `f` picks (a field, an
        /// element); the mutex stays locked until the new guard is dropped.
        /// An associated function (`MutexGuard::map(guard, f)`), so that it
        /// does not hide a method of `T`.
        fn map<U: ?Sized, F>(&mut T -> &mut U) -> MappedMutexGuard<'a, U>;
        /// [`map`](Self::map) when the part may be missing: `f` returns `None`
        /// and the original guard comes back in `Err`.
        fn try_map via into_held;
    }

    /// The guard's permit, for a mapped guard to hold, the guard taken
    /// apart so that its drop does not give the permit back.
    fn into_held(this: MutexGuard<'a, T>) -> Held<&'a Semaphore> {
        let sem = &this.lock.sem;
        std::mem::forget(this);
        Held::new(sem, 1)
    }
}

impl<'a, T: ?Sized> MappedMutexGuard<'a, T> {
    map_methods! {
        /// Narrows the guard further; see [`MutexGuard::map`].
        fn map<U: ?Sized, F>(&mut T -> &mut U) -> MappedMutexGuard<'a, U>;
        /// Narrows the guard further if `f` finds the part; see
        /// [`MutexGuard::try_map`].
        fn try_map;
    }
}

impl<T: ?Sized> OwnedMutexGuard<T> {
    /// The mutex this guard locks.
    pub fn mutex(this: &OwnedMutexGuard<T>) -> &Arc<Mutex<T>> {
        &this.held.lock
    }

    map_methods! {
        /// [`MutexGuard::map`] for the owned guard: the new guard keeps the
        /// `Arc` and the lock.
        fn map<U: ?Sized, F>(&mut T -> &mut U) -> OwnedMappedMutexGuard<T, U>;
        /// [`MutexGuard::try_map`] for the owned guard.
        fn try_map;
    }
}

impl<T: ?Sized, U: ?Sized> OwnedMappedMutexGuard<T, U> {
    /// The mutex this guard locks.
    pub fn mutex(this: &OwnedMappedMutexGuard<T, U>) -> &Arc<Mutex<T>> {
        &this.held.lock
    }

    map_methods! {
        /// Narrows the guard further; see [`OwnedMutexGuard::map`].
        fn map<S: ?Sized, F>(&mut U -> &mut S) -> OwnedMappedMutexGuard<T, S>;
        /// Narrows the guard further if `f` finds the part.
        fn try_map;
    }
}

guard_impls! {
    writes MappedMutexGuard<'a, T> => ['a, T: ?Sized] T;
    writes OwnedMappedMutexGuard<T, U> => [T: ?Sized, U: ?Sized] U;
}

// The unmapped guards reach the value through the mutex itself.

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
        unsafe { &*self.held.lock.value.get() }
    }
}

impl<T: ?Sized> DerefMut for OwnedMutexGuard<T> {
    fn deref_mut(&mut self) -> &mut T {
        // SAFETY: this guard holds the semaphore's only permit, and `&mut
        // self` makes this the only borrow through it.
        unsafe { &mut *self.held.lock.value.get() }
    }
}

impl<T: ?Sized> Drop for MutexGuard<'_, T> {
    fn drop(&mut self) {
        self.lock.sem.release(1);
    }
}

impl<T: ?Sized> Drop for OwnedMutexGuard<T> {
    fn drop(&mut self) {
        self.held.release();
    }
}

lock_impls!(Mutex: try_lock);

fmt_as_target! {
    MutexGuard<'a, T> => ['a, T: ?Sized],
    OwnedMutexGuard<T> => [T: ?Sized],
    MappedMutexGuard<'a, T> => ['a, T: ?Sized],
    OwnedMappedMutexGuard<T, U> => [T: ?Sized, U: ?Sized],
}

error_impls! { TryLockError => [] "operation would block" }

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use crate::sync::poll_once;
    use std::pin::pin;
    use std::task::Poll;

    #[test]
    fn guards_exclude_each_other_and_unlock_on_drop() {
        let mutex = Mutex::new(vec![1]);
        let mut guard = mutex.try_lock().unwrap();
        guard.push(2);
        assert!(mutex.try_lock().is_err());
        {
            let mut waiting = pin!(mutex.lock());
            assert!(poll_once(&mut waiting).is_pending());
            drop(guard);
            let Poll::Ready(mut guard) = poll_once(&mut waiting) else {
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
    fn mapped_guards_keep_the_lock_until_dropped() {
        let mutex = Mutex::new((1, vec![2, 3]));
        let guard = mutex.try_lock().unwrap();
        let mut second = MutexGuard::map(guard, |pair| &mut pair.1);
        second.push(4);
        assert!(mutex.try_lock().is_err());
        let Err(second) = MappedMutexGuard::try_map(second, |v| v.get_mut(9)) else {
            panic!("there is no element 9");
        };
        let mut last = MappedMutexGuard::try_map(second, |v| v.last_mut()).unwrap();
        *last = 40;
        drop(last);
        let guard = mutex.try_lock().unwrap();
        let Err(guard) = MutexGuard::try_map(guard, |pair| pair.1.get_mut(7)) else {
            panic!("there is no element 7");
        };
        assert_eq!(*guard, (1, vec![2, 3, 40]));
        drop(guard);

        let shared = Arc::new(Mutex::new([5u8, 6]));
        let owned = shared.clone().try_lock_owned().unwrap();
        let mut first = OwnedMutexGuard::map(owned, |a| &mut a[0]);
        *first += 1;
        assert!(Arc::ptr_eq(OwnedMappedMutexGuard::mutex(&first), &shared));
        assert!(shared.try_lock().is_err());
        let first = OwnedMappedMutexGuard::map(first, |b| b);
        drop(first);
        assert_eq!(*shared.try_lock().unwrap(), [6, 6]);
        // Only the test's own Arc remains: the guards leaked none.
        assert_eq!(Arc::strong_count(&shared), 1);
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
