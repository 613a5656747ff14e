//! A channel in which every receiver gets every value: many producers, many
//! consumers, each value cloned once per receiver.
//!
//! The values sit in a ring of `capacity` slots, each numbered by its
//! *position*: the count of values sent before it. A receiver is just the
//! position of the next value it wants. A send writes at the tail position
//! and notes in the slot how many receivers still have to read it; each
//! read counts down, and the last reader drops the value.
//!
//! The sender never waits. When the ring is full, a send evicts the oldest
//! value even if some receiver has not read it yet: one slow receiver must
//! not stall the rest. That receiver has *lagged*: its next `recv` returns
//! [`RecvError::Lagged(n)`](RecvError::Lagged), `n` being how many values it
//! missed, and moves it to the oldest value still held, which the following
//! `recv` returns. So a receiver learns exactly what it lost, and loses only
//! what it could not keep up with.
//!
//! A receiver made by [`Sender::subscribe`] (or [`Receiver::resubscribe`])
//! starts at the tail: it sees the values sent after it was made. Once every
//! sender is gone, each receiver drains what it has not read and then gets
//! [`RecvError::Closed`].
//!
//! Like Tokio, the capacity is rounded up to a power of two (Tokio's
//! documentation says only that the real capacity may be larger than asked;
//! its code rounds up so that a position maps to a slot with a mask).
//!
//! Cancel safety: [`Receiver::recv`] is cancel-safe: a value is taken only
//! by the poll that returns it.
//!
//! Book: Chapter 8, "Channels".

use crate::loom::{Arc, Mutex, MutexGuard};
use crate::sync::mpsc::wait_queue::{Closed, ClosedWaiters, WaitQueue, wake_all};
use std::collections::VecDeque;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

/// Error types, under Tokio's path (`broadcast::error::RecvError`).
pub mod error {
    /// No receiver is alive: the value was not queued; here it is back.
    /// Unlike the other channels' `SendError`, and as Tokio's, its `Debug`
    /// shows the value (`SendError(7)`), so it is an `Error` only when the
    /// value is `Debug`.
    #[derive(Debug, PartialEq, Eq, Clone, Copy)]
    pub struct SendError<T>(pub T);

    impl<T> std::fmt::Display for SendError<T> {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("channel closed")
        }
    }

    impl<T: std::fmt::Debug> std::error::Error for SendError<T> {}

    /// Why `recv` returned no value.
    #[derive(Debug, PartialEq, Eq, Clone, Copy)]
    pub enum RecvError {
        /// Every sender is gone and every value has been received.
        Closed,
        /// The receiver fell behind: this many values were evicted before
        /// it read them. The next `recv` returns the oldest value held.
        Lagged(u64),
    }

    /// Why `try_recv` returned no value.
    #[derive(Debug, PartialEq, Eq, Clone, Copy)]
    pub enum TryRecvError {
        /// Nothing new now.
        Empty,
        /// Every sender is gone and every value has been received.
        Closed,
        /// As [`RecvError::Lagged`].
        Lagged(u64),
    }

    error_impls! {
        RecvError => [] {
            RecvError::Closed => "channel closed",
            RecvError::Lagged(n) => "channel lagged by {n}",
        },
        TryRecvError => [] {
            TryRecvError::Empty => "channel empty",
            TryRecvError::Closed => "channel closed",
            TryRecvError::Lagged(n) => "channel lagged by {n}",
        },
    }
}

pub use error::{RecvError, SendError, TryRecvError};

/// The largest capacity: positions are `u64`, slots a `VecDeque`.
const MAX_CAPACITY: usize = usize::MAX / 2;

/// Creates a broadcast channel holding up to `capacity` values (rounded up
/// to a power of two) for its slowest receiver.
///
/// # Panics
///
/// If `capacity` is 0 or larger than `usize::MAX / 2`.
#[track_caller]
pub fn channel<T: Clone>(capacity: usize) -> (Sender<T>, Receiver<T>) {
    let shared = shared(capacity, 1);
    (
        Sender {
            shared: shared.clone(),
        },
        Receiver { shared, next: 0 },
    )
}

/// The channel's state, with one sender and `receivers` receivers.
#[track_caller]
fn shared<T>(capacity: usize, receivers: usize) -> Arc<Shared<T>> {
    assert!(capacity > 0, "broadcast channel capacity cannot be zero");
    assert!(
        capacity <= MAX_CAPACITY,
        "broadcast channel capacity exceeded `usize::MAX / 2`"
    );
    let capacity = capacity.next_power_of_two();
    Arc::new(Shared {
        capacity,
        state: Mutex::new(State {
            slots: VecDeque::with_capacity(capacity.min(1024)),
            head: 0,
            tail: 0,
            senders: 1,
            weak_senders: 0,
            receivers,
            waiters: WaitQueue::new(),
            closed_waiters: WaitQueue::new(),
        }),
    })
}

/// `strong_count` and `weak_count`, the same on a sender and on a weak
/// sender (each holds the channel in `shared`).
macro_rules! sender_counts {
    () => {
        /// Senders (not counting weak ones) alive now.
        pub fn strong_count(&self) -> usize {
            self.shared.lock().senders
        }

        /// Weak senders alive now.
        pub fn weak_count(&self) -> usize {
            self.shared.lock().weak_senders
        }
    };
}

/// Sends values to every receiver; clone it for more producers.
pub struct Sender<T> {
    shared: Arc<Shared<T>>,
}

/// A sender that does not keep the channel open (receivers see `Closed`
/// once every [`Sender`] is gone): [`upgrade`](WeakSender::upgrade) it to
/// send.
pub struct WeakSender<T> {
    shared: Arc<Shared<T>>,
}

/// Receives every value sent after it was made.
pub struct Receiver<T> {
    shared: Arc<Shared<T>>,
    /// Position of the next value to read.
    next: u64,
}

struct Shared<T> {
    capacity: usize,
    state: Mutex<State<T>>,
}

// ANCHOR: state
struct State<T> {
    /// The values still held, oldest first: `slots[i]` is position `head + i`.
    slots: VecDeque<Slot<T>>,
    /// Position of `slots[0]`.
    head: u64,
    /// Position the next send writes.
    tail: u64,
    senders: usize,
    weak_senders: usize,
    receivers: usize,
    /// Receivers waiting in `recv`.
    waiters: WaitQueue,
    /// `Sender::closed` futures, woken when the last receiver goes.
    closed_waiters: WaitQueue,
}

struct Slot<T> {
    /// `None` once every receiver counted in `remaining` has read it.
    value: Option<T>,
    /// Receivers that still have to read this value.
    remaining: usize,
}
// ANCHOR_END: state

impl<T> Shared<T> {
    fn lock(&self) -> MutexGuard<'_, State<T>> {
        self.state.lock()
    }
}

impl<T> State<T> {
    /// Drops fully read values from the front.
    fn trim(&mut self) {
        while self.slots.front().is_some_and(|slot| slot.value.is_none()) {
            self.slots.pop_front();
            self.head += 1;
        }
    }
}

impl<T: Clone> State<T> {
    /// The next value for the receiver whose position is `next`, if the wait is over.
    // ANCHOR: take
    fn take(&mut self, next: &mut u64) -> Option<Result<T, RecvError>> {
        if *next < self.head {
            // Our next value was evicted: jump to the oldest still held.
            let missed = self.head - *next;
            *next = self.head;
            return Some(Err(RecvError::Lagged(missed)));
        }
        if *next == self.tail {
            return (self.senders == 0).then_some(Err(RecvError::Closed));
        }
        let index = (*next - self.head) as usize;
        let slot = &mut self.slots[index];
        slot.remaining -= 1;
        let value = if slot.remaining == 0 {
            slot.value.take()
        } else {
            slot.value.clone()
        };
        *next += 1;
        self.trim();
        Some(Ok(value.expect("a value not yet read by all is held")))
    }
    // ANCHOR_END: take
}

impl<T> Sender<T> {
    /// A sender with no receiver yet: receivers come from
    /// [`subscribe`](Sender::subscribe), and see only values sent after.
    /// Unlike [`channel`], it asks nothing of `T` (as Tokio's), so a
    /// generic wrapper can make one.
    ///
    /// # Panics
    ///
    /// As [`channel`]: if `capacity` is zero or too large.
    #[track_caller]
    pub fn new(capacity: usize) -> Sender<T> {
        Sender {
            shared: shared(capacity, 0),
        }
    }

    /// Sends `value` to every receiver alive now; returns how many. Never
    /// waits: if the ring is full, the oldest value is evicted (its late
    /// readers will see `Lagged`). Fails, giving the value back, if no
    /// receiver is alive.
    // ANCHOR: send
    pub fn send(&self, value: T) -> Result<usize, SendError<T>> {
        let mut wakers = Vec::new();
        let (receivers, evicted) = {
            let mut state = self.shared.lock();
            if state.receivers == 0 {
                return Err(SendError(value));
            }
            let evicted = if state.slots.len() == self.shared.capacity {
                state.head += 1;
                state.slots.pop_front()
            } else {
                None
            };
            let receivers = state.receivers;
            state.slots.push_back(Slot {
                value: Some(value),
                remaining: receivers,
            });
            state.tail += 1;
            state.waiters.notify_all(&mut wakers);
            (receivers, evicted)
        };
        // An evicted value is dropped, and receivers woken, without the lock.
        drop(evicted);
        wake_all(wakers);
        Ok(receivers)
    }
    // ANCHOR_END: send

    /// A new receiver, which will see the values sent from now on.
    pub fn subscribe(&self) -> Receiver<T> {
        Receiver::at_tail(&self.shared)
    }

    /// Receivers alive now.
    pub fn receiver_count(&self) -> usize {
        self.shared.lock().receivers
    }

    /// Values held that some receiver alive when they were sent has not read
    /// yet (and that have not been evicted).
    pub fn len(&self) -> usize {
        let mut state = self.shared.lock();
        state.trim();
        state.slots.len()
    }

    /// True if [`len`](Self::len) is 0.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// True if both senders belong to one channel.
    pub fn same_channel(&self, other: &Sender<T>) -> bool {
        std::ptr::eq(&*self.shared, &*other.shared)
    }

    /// Completes when no receiver is left (at once if there is none now).
    /// A later [`subscribe`](Self::subscribe) opens the channel again.
    ///
    /// # Cancel safety
    ///
    /// Cancel-safe: it takes nothing.
    pub async fn closed(&self) {
        Closed::new(&*self.shared).await
    }

    /// A [`WeakSender`], which does not count as a sender.
    pub fn downgrade(&self) -> WeakSender<T> {
        WeakSender::counted(&self.shared)
    }

    sender_counts!();
}

impl<T> ClosedWaiters for Shared<T> {
    fn with_closed_waiters<R>(&self, f: impl FnOnce(&mut WaitQueue, bool) -> R) -> R {
        let mut state = self.lock();
        let gone = state.receivers == 0;
        f(&mut state.closed_waiters, gone)
    }
}

impl<T> WeakSender<T> {
    /// A sender again, if any sender is still alive; `None` once they have
    /// all been dropped.
    pub fn upgrade(&self) -> Option<Sender<T>> {
        let mut state = self.shared.lock();
        if state.senders == 0 {
            return None;
        }
        state.senders += 1;
        Some(Sender {
            shared: self.shared.clone(),
        })
    }

    sender_counts!();

    /// A new weak sender on `shared`'s channel, counted.
    fn counted(shared: &Arc<Shared<T>>) -> WeakSender<T> {
        shared.lock().weak_senders += 1;
        WeakSender {
            shared: shared.clone(),
        }
    }
}

impl<T> Clone for WeakSender<T> {
    fn clone(&self) -> WeakSender<T> {
        WeakSender::counted(&self.shared)
    }
}

impl<T> Drop for WeakSender<T> {
    fn drop(&mut self) {
        self.shared.lock().weak_senders -= 1;
    }
}

impl<T> fmt::Debug for WeakSender<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("WeakSender").finish_non_exhaustive()
    }
}

impl<T> Clone for Sender<T> {
    fn clone(&self) -> Sender<T> {
        self.shared.lock().senders += 1;
        Sender {
            shared: self.shared.clone(),
        }
    }
}

impl<T> Drop for Sender<T> {
    fn drop(&mut self) {
        let mut wakers = Vec::new();
        {
            let mut state = self.shared.lock();
            state.senders -= 1;
            if state.senders == 0 {
                state.waiters.notify_all(&mut wakers);
            }
        }
        wake_all(wakers);
    }
}

impl<T: Clone> Receiver<T> {
    /// Receives the next value: a clone of it; `Lagged(n)` if `n` values
    /// were evicted before this receiver read them; `Closed` once every
    /// sender is gone and everything has been read.
    ///
    /// # Cancel safety
    ///
    /// Cancel-safe: a value is taken only by the poll that returns it.
    pub async fn recv(&mut self) -> Result<T, RecvError> {
        Recv {
            receiver: self,
            key: None,
        }
        .await
    }

    /// [`recv`](Self::recv) from synchronous code, blocking the thread.
    ///
    /// # Panics
    ///
    /// If called on a thread that runs a runtime's tasks (a worker, or
    /// inside `block_on`): use it from a plain thread or `spawn_blocking`.
    #[track_caller]
    pub fn blocking_recv(&mut self) -> Result<T, RecvError> {
        crate::sync::blocking::wait(self.recv())
    }

    /// Receives the next value if there is one now.
    pub fn try_recv(&mut self) -> Result<T, TryRecvError> {
        let mut state = self.shared.lock();
        match state.take(&mut self.next) {
            Some(Ok(value)) => Ok(value),
            Some(Err(RecvError::Lagged(n))) => Err(TryRecvError::Lagged(n)),
            Some(Err(RecvError::Closed)) => Err(TryRecvError::Closed),
            None => Err(TryRecvError::Empty),
        }
    }

    /// A new receiver on the same channel, starting at the tail (it does not
    /// see the values this one has not read yet).
    pub fn resubscribe(&self) -> Receiver<T> {
        Receiver::at_tail(&self.shared)
    }
}

impl<T> Receiver<T> {
    /// A new receiver on `shared`'s channel, counted, that will see the
    /// values sent from now on.
    fn at_tail(shared: &Arc<Shared<T>>) -> Receiver<T> {
        let mut state = shared.lock();
        state.receivers += 1;
        Receiver {
            shared: shared.clone(),
            next: state.tail,
        }
    }

    /// Values sent that this receiver has not read yet (including evicted
    /// ones, which it will learn of as `Lagged`).
    pub fn len(&self) -> usize {
        (self.shared.lock().tail - self.next) as usize
    }

    /// True if [`len`](Self::len) is 0.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// True if both receivers belong to one channel.
    pub fn same_channel(&self, other: &Receiver<T>) -> bool {
        std::ptr::eq(&*self.shared, &*other.shared)
    }

    /// True once every [`Sender`] is gone (weak senders do not count);
    /// values still held can be received before `Closed`.
    pub fn is_closed(&self) -> bool {
        self.shared.lock().senders == 0
    }

    /// Senders (not counting weak ones) alive now.
    pub fn sender_strong_count(&self) -> usize {
        self.shared.lock().senders
    }

    /// Weak senders alive now.
    pub fn sender_weak_count(&self) -> usize {
        self.shared.lock().weak_senders
    }
}

/// The future of `Receiver::recv`.
struct Recv<'a, T> {
    receiver: &'a mut Receiver<T>,
    key: Option<usize>,
}

impl<T: Clone> Future for Recv<'_, T> {
    type Output = Result<T, RecvError>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let budget = std::task::ready!(crate::task::coop::poll_proceed(cx));
        let this = &mut *self;
        let receiver = &mut *this.receiver;
        let mut state = receiver.shared.lock();
        if let Some(result) = state.take(&mut receiver.next) {
            state.waiters.leave(&mut this.key);
            budget.made_progress();
            return Poll::Ready(result);
        }
        state.waiters.register(&mut this.key, cx.waker());
        Poll::Pending
    }
}

impl<T> Drop for Recv<'_, T> {
    fn drop(&mut self) {
        if self.key.is_some() {
            self.receiver.shared.lock().waiters.leave(&mut self.key);
        }
    }
}

impl<T> Drop for Receiver<T> {
    /// Counts this receiver out of every value it has not read, so that
    /// they can be dropped.
    fn drop(&mut self) {
        let mut wakers = Vec::new();
        let dropped: Vec<T> = {
            let mut state = self.shared.lock();
            state.receivers -= 1;
            if state.receivers == 0 {
                state.closed_waiters.notify_all(&mut wakers);
            }
            let start = self.next.max(state.head);
            let mut dropped = Vec::new();
            for position in start..state.tail {
                let index = (position - state.head) as usize;
                let slot = &mut state.slots[index];
                slot.remaining -= 1;
                if slot.remaining == 0 {
                    dropped.extend(slot.value.take());
                }
            }
            state.trim();
            dropped
        };
        drop(dropped);
        wake_all(wakers);
    }
}

debug_as_name! {
    Sender<T> => [T] "broadcast::Sender",
    Receiver<T> => [T] "broadcast::Receiver",
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn capacity_rounds_up_to_a_power_of_two() {
        let (tx, mut rx) = channel(3);
        for i in 0..4 {
            tx.send(i).unwrap();
        }
        assert_eq!(tx.len(), 4);
        assert_eq!(rx.try_recv(), Ok(0));
        tx.send(4).unwrap();
        tx.send(5).unwrap();
        // Positions 1 and 2 were evicted by 4 and 5 in a ring of 4.
        assert_eq!(rx.try_recv(), Err(TryRecvError::Lagged(1)));
        assert_eq!(rx.try_recv(), Ok(2));
    }

    #[test]
    fn a_value_is_dropped_once_every_receiver_has_read_it() {
        let (tx, mut a) = channel(4);
        let mut b = tx.subscribe();
        assert_eq!(tx.send(std::sync::Arc::new(1)).unwrap(), 2);
        let value = a.try_recv().unwrap();
        assert_eq!(tx.len(), 1);
        assert_eq!(std::sync::Arc::strong_count(&value), 2);
        drop(b.try_recv().unwrap());
        assert_eq!(tx.len(), 0);
        assert_eq!(std::sync::Arc::strong_count(&value), 1);
    }

    #[test]
    fn a_dropped_receiver_releases_its_unread_values() {
        let (tx, rx) = channel(4);
        let _other = tx.subscribe();
        tx.send(1).unwrap();
        drop(rx);
        assert_eq!(tx.len(), 1);
        assert_eq!(tx.receiver_count(), 1);
    }
}
