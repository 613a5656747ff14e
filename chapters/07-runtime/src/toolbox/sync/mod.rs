//! Channels between tasks: [`oneshot`] for one value, [`mpsc`] for a
//! bounded stream of them.
//!
//! Both are written plainly, a mutex around the channel's state and the
//! wakers of whoever waits, because their job here is to be correct and
//! small, not to be studied: the lesson of this chapter is the scheduler.
//! (Tokio's channels are lock-free and intrusive; the book says what that
//! buys.) What matters for the scheduler is how they wake: a send wakes the
//! receiving task, which, when the sender is itself a task on a worker, goes
//! to that worker's LIFO slot and runs next.
//!
//! [`watch`] holds the latest value for many readers, [`broadcast`] gives
//! every receiver every value (Book: Chapter 8, "Channels").
//!
//! [`Semaphore`], [`Mutex`], [`RwLock`] and [`Notify`] are the locks and
//! notification, all on one fair waiting line (Book: Chapter 8, "Locks and
//! notification").
//!
//! [`OnceCell`] (a value set once, by the first caller, while the others
//! wait) and [`Barrier`] (tasks wait until `n` of them have arrived) are
//! built on those: the cell on a one-permit semaphore, the barrier on a
//! mutex and a `watch` channel, so neither adds a wake-up protocol of its
//! own (Book: Chapter 8, "Locks and notification"). [`SetOnce`] (a value
//! set once from outside, that others wait for) is a `OnceLock` and a
//! [`Notify`].
//!
//! Book: Chapter 7, "The LIFO slot".

// The shared trivial impls, first: a macro is visible to the modules
// declared after it.
#[macro_use]
mod macros;
#[macro_use]
mod lock;

mod barrier;
mod blocking;
pub mod broadcast;
pub mod mpsc;
mod mutex;
mod notify;
mod once_cell;
pub mod oneshot;
mod rwlock;
mod semaphore;
mod set_once;
mod wait_list;
pub mod watch;
pub use barrier::{Barrier, BarrierWaitResult};
pub use mutex::{
    MappedMutexGuard, Mutex, MutexGuard, OwnedMappedMutexGuard, OwnedMutexGuard, TryLockError,
};
pub use notify::{Notified, Notify, OwnedNotified};

/// Named future types, as in Tokio (`tokio::sync::futures`).
pub mod futures {
    pub use super::notify::{Notified, OwnedNotified};
}
pub use once_cell::{OnceCell, SetError};
pub use rwlock::{
    OwnedRwLockMappedWriteGuard, OwnedRwLockReadGuard, OwnedRwLockWriteGuard, RwLock,
    RwLockMappedWriteGuard, RwLockReadGuard, RwLockWriteGuard,
};
pub use semaphore::{
    AcquireError, OwnedSemaphorePermit, Semaphore, SemaphorePermit, TryAcquireError,
};
pub use set_once::{SetOnce, SetOnceError};

/// Polls a future once, with a waker that does nothing: how the unit tests
/// of `sync/` step a future by hand (a boxed one, or one pinned by `pin!`).
#[cfg(all(test, not(loom)))]
fn poll_once<F: std::future::Future + Unpin + ?Sized>(
    future: &mut F,
) -> std::task::Poll<F::Output> {
    let waker = std::task::Waker::noop();
    std::pin::Pin::new(future).poll(&mut std::task::Context::from_waker(waker))
}
