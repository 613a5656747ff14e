//! A channel that holds one value, the latest: receivers see the newest
//! value, not every value (configuration, a shutdown flag, a progress
//! figure).
//!
//! The value lives behind a read-write lock, and beside it a *version*: a
//! counter the sender bumps with every change. Each receiver remembers the
//! version it last saw. "Has it changed?" is then one comparison, and
//! [`Receiver::changed`] waits until the channel's version differs from the
//! receiver's. Values in between are skipped: a receiver that is slow sees
//! the last one, never a queue.
//!
//! The only delicate part is the wait. `changed` must not sleep through a
//! send that lands between its check of the version and its registration
//! as a waiter. So the sender bumps the version *before* it takes the
//! waiters' lock to wake them, and `changed` looks at the version again
//! *after* it has registered under that lock: whichever takes the lock
//! second sees the other's work (the loom model `loom_watch` checks every
//! interleaving). Wakers are woken after the lock is released.
//!
//! A receiver made by [`Sender::subscribe`] starts with the current value
//! marked seen; a clone of a receiver starts where its original is.
//!
//! Cancel safety: [`Receiver::changed`] and [`Sender::closed`] are
//! cancel-safe: dropping them changes nothing, and the next call sees what
//! the dropped one would have.
//!
//! Book: Chapter 8, "Channels".

use crate::loom::{Arc, AtomicBool, AtomicU64, Mutex, Ordering};
use crate::sync::mpsc::wait_queue::{Closed, ClosedWaiters, WaitQueue, wake_all};
use std::fmt;
use std::future::Future;
use std::ops::Deref;
use std::pin::Pin;
use std::task::{Context, Poll};

// The value's lock: loom has its own (the shim in `loom.rs` has none).
#[cfg(loom)]
use loom::sync::{RwLock, RwLockReadGuard};
#[cfg(not(loom))]
use std::sync::{RwLock, RwLockReadGuard};

/// Error types, under Tokio's path (`watch::error::RecvError`).
pub mod error {
    /// Every receiver is gone: the value was not stored; here it is back.
    #[derive(PartialEq, Eq, Clone, Copy)]
    pub struct SendError<T>(pub T);

    /// The sender is gone (and the newest value was already seen).
    #[derive(Debug, PartialEq, Eq, Clone, Copy)]
    pub struct RecvError(pub(super) ());

    send_error_impls!(SendError);
    error_impls! { RecvError => [] "channel closed" }
}

pub use error::{RecvError, SendError};

/// Creates a watch channel holding `init`.
pub fn channel<T>(init: T) -> (Sender<T>, Receiver<T>) {
    let shared = Arc::new(Shared {
        value: RwLock::new(init),
        version: AtomicU64::new(0),
        closed: AtomicBool::new(false),
        state: Mutex::new(State {
            senders: 1,
            receivers: 1,
            changed: WaitQueue::new(),
            closed: WaitQueue::new(),
        }),
    });
    (
        Sender {
            shared: shared.clone(),
        },
        Receiver { shared, seen: 0 },
    )
}

/// Publishes new values.
pub struct Sender<T> {
    shared: Arc<Shared<T>>,
}

/// Sees the newest value and waits for changes.
pub struct Receiver<T> {
    shared: Arc<Shared<T>>,
    /// The version this receiver has seen.
    seen: u64,
}

/// A borrowed value: holds the read lock, so keep it short (a sender waits
/// for it).
pub struct Ref<'a, T> {
    guard: RwLockReadGuard<'a, T>,
    has_changed: bool,
}

// ANCHOR: shared
struct Shared<T> {
    value: RwLock<T>,
    /// Bumped by every change, while the value's write lock is held.
    version: AtomicU64,
    /// Every sender is gone. Set after the last version bump.
    closed: AtomicBool,
    state: Mutex<State>,
}

struct State {
    senders: usize,
    receivers: usize,
    /// Receivers waiting in `changed`.
    changed: WaitQueue,
    /// Senders waiting in `closed`.
    closed: WaitQueue,
}
// ANCHOR_END: shared

impl<T> Shared<T> {
    fn read(&self) -> RwLockReadGuard<'_, T> {
        self.value
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Runs `modify` under the write lock; if it reports a change, bumps
    /// the version and wakes every waiting receiver.
    // ANCHOR: modify
    fn modify(&self, modify: impl FnOnce(&mut T) -> bool) -> bool {
        {
            let mut value = self
                .value
                .write()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            if !modify(&mut value) {
                return false;
            }
            self.version.fetch_add(1, Ordering::Release);
        }
        self.wake_receivers();
        true
    }
    // ANCHOR_END: modify

    fn wake_receivers(&self) {
        let mut wakers = Vec::new();
        self.state.lock().changed.notify_all(&mut wakers);
        wake_all(wakers);
    }
}

impl<T> Sender<T> {
    /// A sender with no receiver yet, holding `init`: receivers come from
    /// [`subscribe`](Sender::subscribe). Until one exists, `send` fails and
    /// `send_replace` / `send_modify` still store.
    pub fn new(init: T) -> Sender<T> {
        let (sender, _) = channel(init);
        sender
    }

    /// Stores `value` and notifies the receivers; fails, giving it back
    /// without storing it, if every receiver is gone.
    pub fn send(&self, value: T) -> Result<(), SendError<T>> {
        if self.shared.state.lock().receivers == 0 {
            return Err(SendError(value));
        }
        self.send_replace(value);
        Ok(())
    }

    /// Stores `value` even with no receiver, notifies any, and returns the
    /// value it replaced.
    pub fn send_replace(&self, mut value: T) -> T {
        self.shared.modify(|old| {
            std::mem::swap(old, &mut value);
            true
        });
        value
    }

    /// Changes the value in place and notifies the receivers, with or
    /// without receivers.
    pub fn send_modify(&self, modify: impl FnOnce(&mut T)) {
        self.shared.modify(|value| {
            modify(value);
            true
        });
    }

    /// Changes the value in place; notifies the receivers only if `modify`
    /// returns true (it says whether it changed anything). Returns that.
    pub fn send_if_modified(&self, modify: impl FnOnce(&mut T) -> bool) -> bool {
        self.shared.modify(modify)
    }

    /// The current value (its [`Ref::has_changed`] is always false).
    pub fn borrow(&self) -> Ref<'_, T> {
        Ref {
            guard: self.shared.read(),
            has_changed: false,
        }
    }

    /// A new receiver, with the current value marked seen.
    pub fn subscribe(&self) -> Receiver<T> {
        self.shared.state.lock().receivers += 1;
        let seen = {
            let _value = self.shared.read();
            self.shared.version.load(Ordering::Acquire)
        };
        Receiver {
            shared: self.shared.clone(),
            seen,
        }
    }

    /// Receivers alive now.
    pub fn receiver_count(&self) -> usize {
        self.shared.state.lock().receivers
    }

    /// Senders alive now.
    pub fn sender_count(&self) -> usize {
        self.shared.state.lock().senders
    }

    /// True if every receiver is gone.
    pub fn is_closed(&self) -> bool {
        self.receiver_count() == 0
    }

    /// Completes when every receiver is gone.
    ///
    /// # Cancel safety
    ///
    /// Cancel-safe.
    pub async fn closed(&self) {
        Closed::new(&*self.shared).await
    }

    /// True if both senders belong to one channel.
    pub fn same_channel(&self, other: &Sender<T>) -> bool {
        std::ptr::eq(&*self.shared, &*other.shared)
    }
}

impl<T: Default> Default for Sender<T> {
    /// [`Sender::new`] holding `T::default()`, with no receiver yet.
    fn default() -> Sender<T> {
        Sender::new(T::default())
    }
}

impl<T> Clone for Sender<T> {
    fn clone(&self) -> Sender<T> {
        self.shared.state.lock().senders += 1;
        Sender {
            shared: self.shared.clone(),
        }
    }
}

impl<T> Drop for Sender<T> {
    fn drop(&mut self) {
        {
            let mut state = self.shared.state.lock();
            state.senders -= 1;
            if state.senders > 0 {
                return;
            }
        }
        self.shared.closed.store(true, Ordering::Release);
        self.shared.wake_receivers();
    }
}

impl<T> ClosedWaiters for Shared<T> {
    fn with_closed_waiters<R>(&self, f: impl FnOnce(&mut WaitQueue, bool) -> R) -> R {
        let mut state = self.state.lock();
        let gone = state.receivers == 0;
        f(&mut state.closed, gone)
    }
}

impl<T> Receiver<T> {
    /// The current value, without marking it seen.
    pub fn borrow(&self) -> Ref<'_, T> {
        let guard = self.shared.read();
        let version = self.shared.version.load(Ordering::Acquire);
        Ref {
            guard,
            has_changed: version != self.seen,
        }
    }

    /// The current value, marking it seen.
    pub fn borrow_and_update(&mut self) -> Ref<'_, T> {
        let guard = self.shared.read();
        let version = self.shared.version.load(Ordering::Acquire);
        let has_changed = version != self.seen;
        self.seen = version;
        Ref { guard, has_changed }
    }

    /// True if a value this receiver has not seen is there; an error once
    /// the sender is gone.
    pub fn has_changed(&self) -> Result<bool, RecvError> {
        if self.shared.closed.load(Ordering::Acquire) {
            return Err(RecvError(()));
        }
        Ok(self.shared.version.load(Ordering::Acquire) != self.seen)
    }

    /// True once every sender is gone: no value will change any more.
    pub fn is_closed(&self) -> bool {
        self.shared.closed.load(Ordering::Acquire)
    }

    /// Marks the current value unseen: `changed` returns at once.
    pub fn mark_changed(&mut self) {
        self.seen = self.shared.version.load(Ordering::Acquire).wrapping_sub(1);
    }

    /// Marks the current value seen.
    pub fn mark_unchanged(&mut self) {
        self.seen = self.shared.version.load(Ordering::Acquire);
    }

    /// Waits for a value this receiver has not seen and marks it seen
    /// (returns at once if there already is one). An error once the sender
    /// is gone and the newest value has been seen.
    ///
    /// # Cancel safety
    ///
    /// Cancel-safe: dropping it marks nothing seen.
    pub async fn changed(&mut self) -> Result<(), RecvError> {
        Changed {
            shared: &self.shared,
            seen: &mut self.seen,
            key: None,
        }
        .await
    }

    /// Waits until the value satisfies `f` (looking first at the current
    /// one, seen or not, and even if every sender is gone), marks it seen,
    /// and returns it, read-locked. An error only once every sender is gone
    /// and `f` has rejected the last value they sent: as Tokio documents,
    /// an error guarantees that `f` was called on the last value and said
    /// no, so a closed channel whose current value satisfies `f` still
    /// returns it.
    ///
    /// # Cancel safety
    ///
    /// Cancel-safe: a cancelled wait marks seen only values `f` rejected.
    pub async fn wait_for(
        &mut self,
        mut f: impl FnMut(&T) -> bool,
    ) -> Result<Ref<'_, T>, RecvError> {
        // Two fields borrowed apart, so that a guard on the value can be
        // returned from inside the loop that waits through `seen`.
        let shared: &Shared<T> = &self.shared;
        let seen = &mut self.seen;
        // Not looked up front: the current value is always shown to `f`
        // once. It turns true when a wait for a change finds the channel
        // closed with nothing new; a seen value is not shown to `f` again.
        let mut closed = false;
        loop {
            {
                let guard = shared.read();
                let version = shared.version.load(Ordering::Acquire);
                let has_changed = version != *seen;
                *seen = version;
                if (!closed || has_changed) && f(&guard) {
                    return Ok(Ref { guard, has_changed });
                }
            }
            if closed {
                return Err(RecvError(()));
            }
            closed = Changed {
                shared,
                seen: &mut *seen,
                key: None,
            }
            .await
            .is_err();
        }
    }

    /// True if both receivers belong to one channel.
    pub fn same_channel(&self, other: &Receiver<T>) -> bool {
        std::ptr::eq(&*self.shared, &*other.shared)
    }
}

/// The future of `Receiver::changed`.
struct Changed<'a, T> {
    shared: &'a Shared<T>,
    seen: &'a mut u64,
    key: Option<usize>,
}

impl<T> Changed<'_, T> {
    /// `Some` if the wait is over: a new version (now marked seen) or a
    /// closed channel.
    fn check(&mut self) -> Option<Result<(), RecvError>> {
        // Closed first: the close comes after the last version bump, so a
        // receiver that sees it also sees that bump.
        let closed = self.shared.closed.load(Ordering::Acquire);
        let version = self.shared.version.load(Ordering::Acquire);
        if version != *self.seen {
            *self.seen = version;
            Some(Ok(()))
        } else if closed {
            Some(Err(RecvError(())))
        } else {
            None
        }
    }
}

impl<T> Future for Changed<'_, T> {
    type Output = Result<(), RecvError>;

    // ANCHOR: changed
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let budget = std::task::ready!(crate::task::coop::poll_proceed(cx));
        let this = &mut *self;
        if let Some(result) = this.check() {
            this.leave();
            budget.made_progress();
            return Poll::Ready(result);
        }
        let mut state = this.shared.state.lock();
        state.changed.register(&mut this.key, cx.waker());
        drop(state);
        // Registered: look again, so that a send between the first look
        // and the registration is not missed (it bumped the version before
        // it took the lock to wake the waiters).
        if let Some(result) = this.check() {
            this.leave();
            budget.made_progress();
            return Poll::Ready(result);
        }
        Poll::Pending
    }
    // ANCHOR_END: changed
}

impl<T> Changed<'_, T> {
    fn leave(&mut self) {
        if self.key.is_some() {
            self.shared.state.lock().changed.leave(&mut self.key);
        }
    }
}

impl<T> Drop for Changed<'_, T> {
    fn drop(&mut self) {
        self.leave();
    }
}

impl<T> Clone for Receiver<T> {
    fn clone(&self) -> Receiver<T> {
        self.shared.state.lock().receivers += 1;
        Receiver {
            shared: self.shared.clone(),
            seen: self.seen,
        }
    }
}

impl<T> Drop for Receiver<T> {
    fn drop(&mut self) {
        let mut wakers = Vec::new();
        {
            let mut state = self.shared.state.lock();
            state.receivers -= 1;
            if state.receivers == 0 {
                state.closed.notify_all(&mut wakers);
            }
        }
        wake_all(wakers);
    }
}

impl<T> Ref<'_, T> {
    /// True if this value had not been seen by the receiver that borrowed
    /// it (before `borrow_and_update` marked it).
    pub fn has_changed(&self) -> bool {
        self.has_changed
    }
}

impl<T> Deref for Ref<'_, T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.guard
    }
}

impl<T: fmt::Debug> fmt::Debug for Ref<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        (**self).fmt(f)
    }
}

debug_as_name! {
    Sender<T> => [T] "watch::Sender",
    Receiver<T> => [T] "watch::Receiver",
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use crate::sync::poll_once as poll;

    #[test]
    fn changed_waits_for_a_send_and_marks_it_seen() {
        let (tx, mut rx) = channel(1);
        assert_eq!(rx.has_changed(), Ok(false));
        {
            let mut changed = Box::pin(rx.changed());
            assert!(poll(&mut changed).is_pending());
            tx.send(2).unwrap();
            assert_eq!(poll(&mut changed), Poll::Ready(Ok(())));
        }
        assert_eq!(*rx.borrow(), 2);
        assert_eq!(rx.has_changed(), Ok(false));
        tx.send(3).unwrap();
        tx.send(4).unwrap();
        let value = rx.borrow_and_update();
        assert!(value.has_changed());
        assert_eq!(*value, 4);
        drop(value);
        assert!(!rx.borrow().has_changed());
    }

    #[test]
    fn the_last_value_is_seen_before_the_close() {
        let (tx, mut rx) = channel(0);
        tx.send(1).unwrap();
        drop(tx);
        assert_eq!(rx.has_changed(), Err(RecvError(())));
        let mut changed = Box::pin(rx.changed());
        assert_eq!(poll(&mut changed), Poll::Ready(Ok(())));
        drop(changed);
        let mut changed = Box::pin(rx.changed());
        assert_eq!(poll(&mut changed), Poll::Ready(Err(RecvError(()))));
    }

    #[test]
    fn mark_changed_and_unchanged() {
        let (_tx, mut rx) = channel(0);
        rx.mark_changed();
        assert_eq!(rx.has_changed(), Ok(true));
        rx.mark_unchanged();
        assert_eq!(rx.has_changed(), Ok(false));
    }
}

#[cfg(all(test, loom))]
mod loom_watch {
    use super::*;
    use crate::loom::thread;
    use crate::sync::mpsc::wait_queue::loom_block_on as block_on;

    /// A `changed` that registers while a send lands is woken, on every
    /// interleaving: a lost wake-up would leave `block_on` parked forever,
    /// which loom reports as a deadlock.
    #[test]
    fn loom_changed_races_send() {
        loom::model(|| {
            let (tx, mut rx) = channel(0);
            let sender = thread::spawn(move || {
                tx.send(1).unwrap();
                tx
            });
            block_on(rx.changed()).unwrap();
            assert_eq!(*rx.borrow(), 1);
            drop(sender.join().unwrap());
        });
    }

    /// The sender's drop wakes a waiting `changed`, which then reports the
    /// close (after the value sent just before it, if not yet seen).
    #[test]
    fn loom_changed_races_sender_drop() {
        loom::model(|| {
            let (tx, mut rx) = channel(0);
            let sender = thread::spawn(move || {
                tx.send(1).unwrap();
                drop(tx);
            });
            let first = block_on(rx.changed());
            let second = block_on(rx.changed());
            assert_eq!(first, Ok(()));
            assert_eq!(second, Err(RecvError(())));
            sender.join().unwrap();
        });
    }
}
