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
//! every receiver every value (Book: Chapter 7, "Channels").
//!
//! [`Semaphore`], [`Mutex`], [`RwLock`] and [`Notify`] are the locks and
//! notification, all on one fair waiting line (Book: Chapter 7, "Locks and
//! notification").
//!
//! Book: Chapter 7, "The LIFO slot".

pub mod broadcast;
pub mod mpsc;
mod mutex;
mod notify;
pub mod oneshot;
mod rwlock;
mod semaphore;
mod wait_list;
pub mod watch;
pub use mutex::{Mutex, MutexGuard, OwnedMutexGuard, TryLockError};
pub use notify::{Notified, Notify};
pub use rwlock::{RwLock, RwLockReadGuard, RwLockWriteGuard};
pub use semaphore::{
    AcquireError, OwnedSemaphorePermit, Semaphore, SemaphorePermit, TryAcquireError,
};
