//! What the two locks, `Mutex` and `RwLock`, and their guards have in
//! common, written once.
//!
//! Both locks are a semaphore and a value: `lock`, `read` and `write` wait
//! in line for permits ([`acquire`]), the `try_` forms take them only if
//! they are free and nobody waits ([`try_acquire`]).
//!
//! Every guard holds permits of its lock's semaphore (one, for a mutex or
//! a reader; all of them, for a writer) and gives them back when dropped;
//! every guard but `MutexGuard` keeps them in a [`Held`], beside what it
//! reaches the semaphore through: a borrow of the lock (or, once mapped, of
//! its semaphore) or an `Arc` of the lock. A guard that can be mapped also
//! keeps a pointer, `data`, to the value or to the part of it that a `map`
//! picked: that pointer is what lets `map` narrow a guard without a new
//! type per narrowing. So the guards differ in their types only, and their
//! trivial code is written here, once, as macros that each file expands for
//! its guards:
//!
//! * `guard_impls!`: `Deref` (and, for a write guard, `DerefMut`) through
//!   the guard's pointer, and the `Drop` that gives the permits back;
//! * `map_methods!`: `map` and `try_map`, which hand the permits on to a
//!   guard of the part;
//! * `fmt_as_target!`: `Debug` and `Display` as those of the value;
//! * `take_held!`: moves the permits out of a guard whose drop must not run;
//!
//! and, for the locks themselves, `lock_impls!`: `Default`, `From` and
//! `Debug`.
//!
//! Book: Chapter 8, "Locks and notification".

use super::mutex::TryLockError;
use super::semaphore::Semaphore;
use std::ops::Deref;

/// Waits in line for `permits` of a lock's semaphore. A lock never closes
/// its semaphore, so the wait cannot fail.
pub(super) async fn acquire(sem: &Semaphore, permits: u32) {
    if sem.acquire_raw(permits as usize).await.is_err() {
        unreachable!("a lock's semaphore is never closed");
    }
}

/// Takes `permits` of a lock's semaphore if they are free now and nobody
/// waits for them.
pub(super) fn try_acquire(sem: &Semaphore, permits: u32) -> Result<(), TryLockError> {
    sem.try_take(permits as usize).map_err(|_| TryLockError(()))
}

/// A guard's permits, and what it reaches their semaphore through (`L`: a
/// `&Mutex`, an `Arc<RwLock>`, or, in a mapped borrowed guard, the
/// semaphore itself). It gives nothing back by itself: each guard's `Drop`
/// calls [`release`](Held::release), so that a guard taken apart by
/// `take_held!` hands its permits on instead.
pub(super) struct Held<L> {
    pub(super) lock: L,
    /// 1 for a mutex's guard or a read guard; every permit of the lock (its
    /// `max_readers`) for a write guard.
    pub(super) permits: u32,
}

/// A lock whose permits a [`Held`] holds: it names its semaphore.
pub(super) trait Lock {
    fn semaphore(&self) -> &Semaphore;
}

impl Lock for Semaphore {
    fn semaphore(&self) -> &Semaphore {
        self
    }
}

impl<L: Deref> Held<L>
where
    L::Target: Lock,
{
    pub(super) fn new(lock: L, permits: u32) -> Held<L> {
        Held { lock, permits }
    }

    /// Gives the permits back: what every guard's drop does.
    pub(super) fn release(&self) {
        self.lock.semaphore().release(self.permits as usize);
    }
}

/// Moves the [`Held`] out of a guard (a value with a `held` field) whose
/// drop must not run: its permits pass to the guard built from it, which
/// gives them back.
macro_rules! take_held {
    ($guard:expr) => {{
        let guard = std::mem::ManuallyDrop::new($guard);
        // SAFETY: `guard` is never dropped, so its `held` is moved out of it
        // exactly once.
        unsafe { std::ptr::read(&guard.held) }
    }};
}

/// For each guard, `Guard<..> => [its generic parameters] Target`, with
/// `reads` (a read guard: `Deref`) or `writes` (a write guard: `Deref` and
/// `DerefMut`) before it: the deref through the guard's pointer `data`,
/// and the `Drop` that gives its permits back.
///
/// The pointer came from the lock's `UnsafeCell` (or from a borrow of it
/// that a guard handed to `map`) and stays valid while the guard holds its
/// permits: the lock outlives the guard's borrow of it, or the guard's
/// `Arc` keeps it alive. A read guard holds one permit, so no writer (who
/// needs all of them) exists while it lives; a write guard, or a mutex's,
/// holds all of them, so no other guard exists.
macro_rules! guard_impls {
    () => {};
    (reads $guard:ty => [$($params:tt)*] $target:ident; $($rest:tt)*) => {
        impl<$($params)*> std::ops::Deref for $guard {
            type Target = $target;
            fn deref(&self) -> &$target {
                // SAFETY: see above: `data` is valid, and the permits held
                // let this guard read the value.
                unsafe { &*self.data }
            }
        }

        impl<$($params)*> Drop for $guard {
            fn drop(&mut self) {
                self.held.release();
            }
        }

        guard_impls!($($rest)*);
    };
    (writes $guard:ty => [$($params:tt)*] $target:ident; $($rest:tt)*) => {
        impl<$($params)*> std::ops::DerefMut for $guard {
            fn deref_mut(&mut self) -> &mut $target {
                // SAFETY: see above: `data` is valid, every permit is held,
                // and `&mut self` makes this the only borrow through the
                // guard.
                unsafe { &mut *self.data }
            }
        }

        guard_impls!(reads $guard => [$($params)*] $target; $($rest)*);
    };
}

/// `map` and `try_map` of a guard, inside its `impl`: every guard has them,
/// and they differ only in types. Given `map`'s generic parameters, what
/// `f` borrows (`&T -> &U` through a read guard, `&mut T -> &mut U` through
/// a write guard) and the guard of the part, with each method's docs:
/// `try_map` lets `f` pick the part; if it finds none, the guard comes back
/// in `Err`; if it does, the guard's [`Held`] passes to a guard pointing at
/// the part (taken out by `take_held!`, or by the guard's own function
/// named after `via`). `map` is `try_map` with a part that is always there.
macro_rules! map_methods {
    (
        $(#[$map_doc:meta])*
        fn map<$($generic:ident $(: ?$sized:ident)?),*>(&mut $target:ident -> &mut $part:ident)
            -> $mapped:ident<$($mapped_arg:tt),*>;
        $(#[$try_map_doc:meta])*
        fn try_map $(via $into_held:ident)?;
    ) => {
        map_methods!(@methods [$(#[$map_doc])*] [$(#[$try_map_doc])*]
            [$($generic $(: ?$sized)?),*] [mut] [mut] $target $part
            $mapped<$($mapped_arg),*> [$($into_held)?]);
    };
    (
        $(#[$map_doc:meta])*
        fn map<$($generic:ident $(: ?$sized:ident)?),*>(&$target:ident -> &$part:ident)
            -> $mapped:ident<$($mapped_arg:tt),*>;
        $(#[$try_map_doc:meta])*
        fn try_map $(via $into_held:ident)?;
    ) => {
        map_methods!(@methods [$(#[$map_doc])*] [$(#[$try_map_doc])*]
            [$($generic $(: ?$sized)?),*] [] [const] $target $part
            $mapped<$($mapped_arg),*> [$($into_held)?]);
    };
    (@methods [$($map_doc:tt)*] [$($try_map_doc:tt)*] [$($generics:tt)*]
        [$($mut:ident)?] [$ptr:ident] $target:ident $part:ident
        $mapped:ident<$($mapped_arg:tt),*> [$($into_held:ident)?]
    ) => {
        $($map_doc)*
        pub fn map<$($generics)*>(this: Self, f: F) -> $mapped<$($mapped_arg),*>
        where
            F: FnOnce(&$($mut)? $target) -> &$($mut)? $part,
        {
            match Self::try_map(this, |value| Some(f(value))) {
                Ok(mapped) => mapped,
                Err(_) => unreachable!("`f` always returns a part"),
            }
        }

        $($try_map_doc)*
        pub fn try_map<$($generics)*>(
            $($mut)? this: Self,
            f: F,
        ) -> Result<$mapped<$($mapped_arg),*>, Self>
        where
            F: FnOnce(&$($mut)? $target) -> Option<&$($mut)? $part>,
        {
            let data: *$ptr $part = match f(&$($mut)? *this) {
                Some(data) => data,
                None => return Err(this),
            };
            Ok($mapped {
                // The permits pass to the new guard, which gives them back.
                held: map_methods!(@held this $($into_held)?),
                data,
                _borrow: std::marker::PhantomData,
            })
        }
    };
    (@held $this:ident) => {
        take_held!($this)
    };
    (@held $this:ident $into_held:ident) => {
        Self::$into_held($this)
    };
}

/// Debug and Display of a guard are those of what it points to: for each
/// `Guard<..> => [its generic parameters]`, the two impls.
macro_rules! fmt_as_target {
    ($($guard:ty => [$($params:tt)*]),* $(,)?) => {$(
        impl<$($params)*> std::fmt::Debug for $guard
        where
            <$guard as std::ops::Deref>::Target: std::fmt::Debug,
        {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                std::fmt::Debug::fmt(&**self, f)
            }
        }
        impl<$($params)*> std::fmt::Display for $guard
        where
            <$guard as std::ops::Deref>::Target: std::fmt::Display,
        {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                std::fmt::Display::fmt(&**self, f)
            }
        }
    )*};
}

/// `Default` (a lock of the default value), `From` (a lock of the value)
/// and `Debug` (the value, or `<locked>` if it cannot be read without
/// waiting) of each lock named, with the method that reads it without
/// waiting (`try_lock`, `try_read`).
macro_rules! lock_impls {
    ($($lock:ident: $try_read:ident),* $(,)?) => {$(
        impl<T: Default> Default for $lock<T> {
            fn default() -> $lock<T> {
                $lock::new(T::default())
            }
        }

        impl<T> From<T> for $lock<T> {
            fn from(value: T) -> $lock<T> {
                $lock::new(value)
            }
        }

        impl<T: ?Sized + std::fmt::Debug> std::fmt::Debug for $lock<T> {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                let mut d = f.debug_struct(stringify!($lock));
                match self.$try_read() {
                    Ok(guard) => d.field("data", &&*guard),
                    Err(_) => d.field("data", &format_args!("<locked>")),
                };
                d.finish()
            }
        }
    )*};
}
