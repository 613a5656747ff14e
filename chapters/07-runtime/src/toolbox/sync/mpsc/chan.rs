//! The state both mpsc channels share: one mutex around the queue of
//! values, the slot accounting, the counts of handles and the waiters.
//!
//! A bounded channel of capacity *n* has *n* slots, and every slot is in
//! exactly one of four places: free (`available`), held by a permit that has
//! not sent yet (`permits`), holding a queued value (`queue`), or granted to a
//! waiting `reserve` that has not yet looked (a `Granted` node of
//! `send_waiters`). A value goes in only through a slot: `send` is `reserve`
//! then `Permit::send` (or, with a slot free, both under one lock:
//! [`Chan::try_send_now`]). When the receiver takes a value, or a permit is
//! dropped unused, the slot is [released](State::release): handed straight
//! to the oldest waiting sender if there is one, otherwise made free. So a
//! sender that arrives later can never take a slot from one that waited
//! (no barging), and a slot never sits free while someone waits.
//!
//! The unbounded channel is the same state with no slots: its `send` pushes.
//!
//! The handles' cores are here too, each written once for both channels:
//! [`Tx`] and [`WeakTx`], the counted holds on the channel that the strong
//! and weak senders are made of, and [`Rx`], the receiver core that
//! `Receiver` and `UnboundedReceiver` both wrap. Receiving differs between
//! the two channels in one step only, which the channel's bound decides: a
//! bounded channel releases the slot of every value taken.
//!
//! The receiver ends (`recv` returns `None`) once the queue is empty and no
//! value can come: every sender is gone, or the channel was closed *and*
//! every permit taken before the close has been used or dropped (a permit
//! may still send after `close`, so that no reserved value is lost).
//!
//! Book: Chapter 8, "Channels".

use super::wait_queue::{Assign, Closed, ClosedWaiters, WaitQueue, Waiter, wake_all};
use crate::loom::{Arc, Mutex, MutexGuard};
use crate::sync::wait_list::store_waker;
use std::collections::VecDeque;
use std::ops::Deref;
use std::task::{Context, Poll, Waker};

/// A value at most this many slots of a bounded channel are allocated up
/// front; a larger channel grows its queue as it fills.
const PREALLOCATE: usize = 1024;

pub(crate) struct Chan<T> {
    state: Mutex<State<T>>,
    /// The capacity; `None` for the unbounded channel.
    bound: Option<usize>,
}

pub(crate) struct State<T> {
    queue: VecDeque<T>,
    /// Free slots (bounded only).
    available: usize,
    /// Permits that have neither sent nor been dropped.
    permits: usize,
    senders: usize,
    weak_senders: usize,
    /// `close` was called or the receiver dropped: no new value may enter.
    closed: bool,
    receiver_dropped: bool,
    receiver_waker: Option<Waker>,
    /// `reserve`s (and `send`s) waiting for a slot, oldest first.
    send_waiters: WaitQueue,
    /// `Sender::closed` futures.
    closed_waiters: WaitQueue,
}

/// What `poll_reserve` needs to remember between polls.
#[derive(Debug)]
pub(crate) struct ReserveState {
    key: Option<usize>,
    /// Slots asked for: 1, or `n` for `reserve_many(n)`.
    needed: usize,
}

impl ReserveState {
    pub(crate) fn new(needed: usize) -> ReserveState {
        ReserveState { key: None, needed }
    }
}

impl<T> Chan<T> {
    pub(crate) fn new(bound: Option<usize>) -> Chan<T> {
        Chan {
            state: Mutex::new(State {
                queue: VecDeque::with_capacity(bound.unwrap_or(0).min(PREALLOCATE)),
                available: bound.unwrap_or(0),
                permits: 0,
                senders: 1,
                weak_senders: 0,
                closed: false,
                receiver_dropped: false,
                receiver_waker: None,
                send_waiters: WaitQueue::new(),
                closed_waiters: WaitQueue::new(),
            }),
            bound,
        }
    }

    fn lock(&self) -> MutexGuard<'_, State<T>> {
        self.state.lock()
    }

    pub(crate) fn max_capacity(&self) -> usize {
        self.bound.unwrap_or(usize::MAX)
    }

    // ---- senders -------------------------------------------------------

    fn add_sender(&self) {
        self.lock().senders += 1;
    }

    /// A strong handle again from a weak one, unless every sender is gone.
    fn upgrade(&self) -> bool {
        let mut state = self.lock();
        if state.senders == 0 {
            return false;
        }
        state.senders += 1;
        true
    }

    fn drop_sender(&self) {
        let waker = {
            let mut state = self.lock();
            state.senders -= 1;
            if state.senders > 0 {
                return;
            }
            state.receiver_waker.take()
        };
        if let Some(waker) = waker {
            waker.wake();
        }
    }

    fn add_weak(&self) {
        self.lock().weak_senders += 1;
    }

    fn drop_weak(&self) {
        self.lock().weak_senders -= 1;
    }

    pub(crate) fn strong_count(&self) -> usize {
        self.lock().senders
    }

    pub(crate) fn weak_count(&self) -> usize {
        self.lock().weak_senders
    }

    pub(crate) fn is_closed(&self) -> bool {
        self.lock().closed
    }

    /// Free slots now (bounded only).
    pub(crate) fn capacity(&self) -> usize {
        self.lock().available
    }

    /// The unbounded send: queues `value` unless the channel is closed.
    pub(crate) fn push(&self, value: T) -> Result<(), T> {
        let waker = {
            let mut state = self.lock();
            if state.closed {
                return Err(value);
            }
            state.queue.push_back(value);
            state.receiver_waker.take()
        };
        if let Some(waker) = waker {
            waker.wake();
        }
        Ok(())
    }

    /// Takes a free slot now, if there is one and the channel is open.
    pub(crate) fn try_reserve(&self) -> Result<(), Full> {
        self.try_reserve_many(1)
    }

    /// With a free slot and the channel open, takes the slot and queues
    /// `value`, under one lock (free slots mean nobody waits, so this
    /// overtakes no one): `send`'s first step and all of `try_send`, where
    /// a permit would take the lock twice. Otherwise the value comes back.
    pub(crate) fn try_send_now(&self, value: T) -> Result<(), (T, Full)> {
        let waker = {
            let mut state = self.lock();
            if state.closed {
                return Err((value, Full::Closed));
            }
            if state.available == 0 {
                return Err((value, Full::NoSlot));
            }
            state.available -= 1;
            state.queue.push_back(value);
            state.receiver_waker.take()
        };
        if let Some(waker) = waker {
            waker.wake();
        }
        Ok(())
    }

    /// Takes `n` free slots now, if there are as many and the channel is
    /// open (free slots mean nobody waits, so this overtakes no one).
    pub(crate) fn try_reserve_many(&self, n: usize) -> Result<(), Full> {
        let mut state = self.lock();
        if state.closed {
            return Err(Full::Closed);
        }
        if state.available < n {
            return Err(Full::NoSlot);
        }
        state.available -= n;
        state.permits += n;
        Ok(())
    }

    /// Polls for a slot, queueing behind earlier waiters. `Ready(Ok)` means
    /// the caller now holds a permit.
    // ANCHOR: poll_reserve
    pub(crate) fn poll_reserve(
        &self,
        wait: &mut ReserveState,
        cx: &mut Context<'_>,
    ) -> Poll<Result<(), ()>> {
        let budget = std::task::ready!(crate::task::coop::poll_proceed(cx));
        let mut state = self.lock();
        let needed = wait.needed;
        let result = match wait.key {
            // First poll: free slots are ours (a free slot means nobody is
            // queued, as a released slot goes to the oldest waiter first).
            None if state.closed => Err(()),
            None if state.available >= needed => {
                state.available -= needed;
                Ok(())
            }
            None => {
                // Too few: take what is free and queue for the rest.
                let taken = std::mem::take(&mut state.available);
                let waker = cx.waker().clone();
                wait.key = Some(state.send_waiters.push_back_many(waker, needed, taken));
                return Poll::Pending;
            }
            Some(key) => match state.send_waiters.state(key) {
                Waiter::Queued if !state.closed => {
                    state.send_waiters.update(key, cx.waker());
                    return Poll::Pending;
                }
                Waiter::Granted if !state.closed => {
                    state.send_waiters.remove(key);
                    wait.key = None;
                    Ok(())
                }
                _ => {
                    // Closed: slots assigned before the close go back
                    // (every other waiter was woken by the close too).
                    state.available += state.send_waiters.assigned(key);
                    state.send_waiters.remove(key);
                    wait.key = None;
                    Err(())
                }
            },
        };
        if result.is_ok() {
            state.permits += needed;
        }
        budget.made_progress();
        Poll::Ready(result)
    }
    // ANCHOR_END: poll_reserve

    /// A waiting `reserve` was dropped: leave the queue, and pass on the
    /// slots that had been assigned to it (all it asked for, if granted).
    pub(crate) fn cancel_reserve(&self, wait: &mut ReserveState) {
        let Some(key) = wait.key.take() else {
            return;
        };
        let mut wakers = Vec::new();
        {
            let mut state = self.lock();
            let assigned = state.send_waiters.assigned(key);
            state.send_waiters.remove(key);
            for _ in 0..assigned {
                wakers.extend(state.release());
            }
        }
        wake_all(wakers);
    }

    /// A permit sends: the value takes the permit's slot.
    // ANCHOR: permit_send
    pub(crate) fn send_with_permit(&self, value: T) {
        let (waker, refused) = {
            let mut state = self.lock();
            state.permits -= 1;
            if state.receiver_dropped {
                // Nobody will ever receive it: the slot is free again.
                state.available += 1;
                (None, Some(value))
            } else {
                state.queue.push_back(value);
                (state.receiver_waker.take(), None)
            }
        };
        drop(refused);
        if let Some(waker) = waker {
            waker.wake();
        }
    }
    // ANCHOR_END: permit_send

    /// A permit is dropped unused: its slot goes to the next waiter, and a
    /// closed channel's receiver may now be able to end.
    pub(crate) fn drop_permit(&self) {
        self.drop_permits(1);
    }

    /// `n` permits dropped unused at once (a `PermitIterator` not used up).
    pub(crate) fn drop_permits(&self, n: usize) {
        let mut wakers = Vec::new();
        {
            let mut state = self.lock();
            state.permits -= n;
            for _ in 0..n {
                wakers.extend(state.release());
            }
            if state.closed && state.permits == 0 && state.queue.is_empty() {
                wakers.extend(state.receiver_waker.take());
            }
        }
        wake_all(wakers);
    }

    /// Refuses new values and wakes everyone waiting to send or waiting for
    /// the close.
    fn close(&self) {
        let mut wakers = Vec::new();
        {
            let mut state = self.lock();
            state.closed = true;
            state.send_waiters.notify_all(&mut wakers);
            state.closed_waiters.notify_all(&mut wakers);
        }
        wake_all(wakers);
    }
}

impl<T> ClosedWaiters for Chan<T> {
    fn with_closed_waiters<R>(&self, f: impl FnOnce(&mut WaitQueue, bool) -> R) -> R {
        let mut state = self.lock();
        let closed = state.closed;
        f(&mut state.closed_waiters, closed)
    }
}

// ---- the senders -------------------------------------------------------

/// The public methods of a channel's two senders, strong and weak, which
/// are the same for the bounded and the unbounded channel: each passes the
/// call to the sender's hold, the `Tx` (or `WeakTx`) in the field `tx`; and
/// their `Clone`, which clones the hold. `sender_handles!(Sender,
/// WeakSender)` writes them for a channel's strong and weak sender; what
/// only the bounded sender has (`reserve`, the capacities) and each
/// channel's `send` are written in its own `impl`.
macro_rules! sender_handles {
    ($sender:ident, $weak:ident) => {
        impl<T> $sender<T> {
            /// Completes when the receiver is dropped or closed: a producer
            /// can `select!` on it to stop work nobody will receive.
            ///
            /// # Cancel safety
            ///
            /// Cancel-safe: it takes nothing.
            pub async fn closed(&self) {
                self.tx.closed().await
            }

            /// True if the receiver was dropped or closed.
            pub fn is_closed(&self) -> bool {
                self.tx.is_closed()
            }

            /// A weak sender: it does not count as a sender, so it does not
            /// keep the channel open (nor the receiver waiting).
            pub fn downgrade(&self) -> $weak<T> {
                $weak {
                    tx: self.tx.downgrade(),
                }
            }

            /// True if both senders feed the same channel.
            pub fn same_channel(&self, other: &$sender<T>) -> bool {
                self.tx.same_channel(&other.tx)
            }

            /// Senders (not counting weak ones) alive now.
            pub fn strong_count(&self) -> usize {
                self.tx.strong_count()
            }

            /// Weak senders alive now.
            pub fn weak_count(&self) -> usize {
                self.tx.weak_count()
            }
        }

        impl<T> Clone for $sender<T> {
            fn clone(&self) -> $sender<T> {
                $sender {
                    tx: self.tx.clone(),
                }
            }
        }

        impl<T> $weak<T> {
            /// A sender again, if any sender is still alive; `None` once
            /// they have all been dropped (the channel has then ended for
            /// good).
            pub fn upgrade(&self) -> Option<$sender<T>> {
                self.tx.upgrade().map(|tx| $sender { tx })
            }

            /// Senders (not counting weak ones) alive now.
            pub fn strong_count(&self) -> usize {
                self.tx.strong_count()
            }

            /// Weak senders alive now.
            pub fn weak_count(&self) -> usize {
                self.tx.weak_count()
            }
        }

        impl<T> Clone for $weak<T> {
            fn clone(&self) -> $weak<T> {
                $weak {
                    tx: self.tx.clone(),
                }
            }
        }
    };
}
pub(super) use sender_handles;

/// A sender's hold on the channel, which `Sender` and `UnboundedSender` are
/// made of: while one lives the channel has a sender. Cloning it counts one
/// more; dropping the last wakes the receiver, which then sees the end once
/// the queue is empty. It derefs to the channel, as the `Arc` inside does.
pub(crate) struct Tx<T> {
    chan: Arc<Chan<T>>,
}

/// A weak sender's hold: counted apart, so it does not keep the channel
/// open; [`upgrade`](WeakTx::upgrade) makes a `Tx` while a sender lives.
pub(crate) struct WeakTx<T> {
    chan: Arc<Chan<T>>,
}

impl<T> Tx<T> {
    /// The first sender of a new channel (which starts with one).
    pub(crate) fn new(chan: Arc<Chan<T>>) -> Tx<T> {
        Tx { chan }
    }

    pub(crate) fn downgrade(&self) -> WeakTx<T> {
        self.chan.add_weak();
        WeakTx {
            chan: self.chan.clone(),
        }
    }

    /// True if both feed the same channel.
    pub(crate) fn same_channel(&self, other: &Tx<T>) -> bool {
        Arc::ptr_eq(&self.chan, &other.chan)
    }

    /// Completes when the receiver is dropped or closed; leaves the queue of
    /// `closed` waiters if dropped first.
    pub(crate) async fn closed(&self) {
        Closed::new(&*self.chan).await
    }
}

impl<T> Deref for Tx<T> {
    type Target = Chan<T>;

    fn deref(&self) -> &Chan<T> {
        &self.chan
    }
}

impl<T> Clone for Tx<T> {
    fn clone(&self) -> Tx<T> {
        self.chan.add_sender();
        Tx {
            chan: self.chan.clone(),
        }
    }
}

impl<T> Drop for Tx<T> {
    fn drop(&mut self) {
        self.chan.drop_sender();
    }
}

impl<T> WeakTx<T> {
    /// A sender again, unless every sender is gone (the channel has then
    /// ended for good).
    pub(crate) fn upgrade(&self) -> Option<Tx<T>> {
        self.chan.upgrade().then(|| Tx {
            chan: self.chan.clone(),
        })
    }

    pub(crate) fn strong_count(&self) -> usize {
        self.chan.strong_count()
    }

    pub(crate) fn weak_count(&self) -> usize {
        self.chan.weak_count()
    }
}

impl<T> Clone for WeakTx<T> {
    fn clone(&self) -> WeakTx<T> {
        self.chan.add_weak();
        WeakTx {
            chan: self.chan.clone(),
        }
    }
}

impl<T> Drop for WeakTx<T> {
    fn drop(&mut self) {
        self.chan.drop_weak();
    }
}

// ---- the receiver ------------------------------------------------------

/// The public methods of `Receiver` and `UnboundedReceiver`, which are the
/// same for both channels: each passes the call to the receiver core, the
/// `Rx` in the field `rx`. Expanded inside each receiver's `impl`; the
/// bounded receiver adds `capacity` and `max_capacity`.
macro_rules! receiver_methods {
    () => {
        /// Receives the next value; `None` once the channel is empty and no
        /// value can come: every sender is gone, or [`close`](Self::close)
        /// was called (and, on a bounded channel, every permit taken before
        /// it has been used or dropped).
        ///
        /// # Cancel safety
        ///
        /// Cancel-safe: a value is taken only by the poll that returns it, so
        /// a `recv` dropped in a `select!` loses nothing.
        pub async fn recv(&mut self) -> Option<T> {
            self.rx.recv().await
        }

        /// Receives up to `limit` values at once, appending them to
        /// `buffer`; returns how many. Waits only while there is none; `0`
        /// means the channel has ended (or `limit` was 0, which returns at
        /// once).
        ///
        /// # Cancel safety
        ///
        /// Cancel-safe, as [`recv`](Self::recv).
        pub async fn recv_many(&mut self, buffer: &mut Vec<T>, limit: usize) -> usize {
            self.rx.recv_many(buffer, limit).await
        }

        /// [`recv`](Self::recv) from synchronous code, blocking the thread.
        ///
        /// # Panics
        ///
        /// If called on a thread that runs a runtime's tasks (a worker, or
        /// inside `block_on`): use it from a plain thread or
        /// `spawn_blocking`.
        #[track_caller]
        pub fn blocking_recv(&mut self) -> Option<T> {
            self.rx.blocking_recv()
        }

        /// [`recv_many`](Self::recv_many) from synchronous code, blocking
        /// the thread.
        ///
        /// # Panics
        ///
        /// As [`blocking_recv`](Self::blocking_recv).
        #[track_caller]
        pub fn blocking_recv_many(&mut self, buffer: &mut Vec<T>, limit: usize) -> usize {
            self.rx.blocking_recv_many(buffer, limit)
        }

        /// Polls for the next value (for hand-written futures).
        pub fn poll_recv(&mut self, cx: &mut std::task::Context<'_>) -> std::task::Poll<Option<T>> {
            self.rx.poll_recv(cx)
        }

        /// Polls for up to `limit` values into `buffer` (for hand-written
        /// futures); `Ready(0)` once the channel has ended or if `limit` is
        /// 0.
        pub fn poll_recv_many(
            &mut self,
            cx: &mut std::task::Context<'_>,
            buffer: &mut Vec<T>,
            limit: usize,
        ) -> std::task::Poll<usize> {
            self.rx.poll_recv_many(cx, buffer, limit)
        }

        /// Takes a value if one is queued.
        pub fn try_recv(&mut self) -> Result<T, $crate::sync::mpsc::error::TryRecvError> {
            self.rx.try_recv()
        }

        /// Refuses new values: senders fail from now on (on a bounded
        /// channel, permits already held may still send), and the queued
        /// values can still be received.
        pub fn close(&mut self) {
            self.rx.close();
        }

        /// Values queued now.
        pub fn len(&self) -> usize {
            self.rx.len()
        }

        /// True if no value is queued.
        pub fn is_empty(&self) -> bool {
            self.rx.is_empty()
        }

        /// True once [`close`](Self::close) was called or every sender is
        /// gone (values may still be queued).
        pub fn is_closed(&self) -> bool {
            self.rx.is_closed()
        }

        /// Senders alive now (not counting weak ones).
        pub fn sender_strong_count(&self) -> usize {
            self.rx.chan().strong_count()
        }

        /// Weak senders alive now.
        pub fn sender_weak_count(&self) -> usize {
            self.rx.chan().weak_count()
        }
    };
}
pub(super) use receiver_methods;

/// The receiving end, which both receivers are made of: `Receiver` and
/// `UnboundedReceiver` each hold one and pass every call to it. Receiving
/// is the same in both channels but for one step, which the channel's
/// bound decides: in a bounded channel, each value taken releases its slot
/// (to the oldest waiting sender first). Dropping it closes the channel and
/// drops the values still queued.
pub(crate) struct Rx<T> {
    chan: Arc<Chan<T>>,
    /// Unbounded only: values already taken out of the shared queue, in
    /// order, not yet handed out. The receiver takes the whole queue under
    /// one lock and hands it out without the lock, so that a sender and a
    /// receiver on two CPUs fight for the lock once per batch, not once per
    /// value (no capacity depends on when a value leaves the shared queue;
    /// a bounded channel's slots do, so it takes one value at a time).
    taken: VecDeque<T>,
}

impl<T> Rx<T> {
    pub(crate) fn new(chan: Arc<Chan<T>>) -> Rx<T> {
        Rx {
            chan,
            taken: VecDeque::new(),
        }
    }

    /// The next value, or `None` once the channel has ended.
    pub(crate) async fn recv(&mut self) -> Option<T> {
        std::future::poll_fn(|cx| self.poll_recv(cx)).await
    }

    /// Up to `limit` values into `buffer`; how many (`0`: the channel has
    /// ended, or `limit` is 0).
    pub(crate) async fn recv_many(&mut self, buffer: &mut Vec<T>, limit: usize) -> usize {
        std::future::poll_fn(|cx| self.poll_recv_many(cx, buffer, limit)).await
    }

    #[track_caller]
    pub(crate) fn blocking_recv(&mut self) -> Option<T> {
        crate::sync::blocking::wait(self.recv())
    }

    #[track_caller]
    pub(crate) fn blocking_recv_many(&mut self, buffer: &mut Vec<T>, limit: usize) -> usize {
        crate::sync::blocking::wait(self.recv_many(buffer, limit))
    }

    /// Takes up to `limit` values into `buffer` (at least one, or `Ready(0)`
    /// once the channel has ended or if `limit` is 0).
    // ANCHOR: poll_recv_many
    pub(crate) fn poll_recv_many(
        &mut self,
        cx: &mut Context<'_>,
        buffer: &mut Vec<T>,
        limit: usize,
    ) -> Poll<usize> {
        if limit == 0 {
            return Poll::Ready(0);
        }
        let budget = std::task::ready!(crate::task::coop::poll_proceed(cx));
        if !self.taken.is_empty() {
            let taken = limit.min(self.taken.len());
            buffer.extend(self.taken.drain(..taken));
            budget.made_progress();
            return Poll::Ready(taken);
        }
        let mut state = self.chan.lock();
        let taken = limit.min(state.queue.len());
        if taken > 0 {
            buffer.extend(state.queue.drain(..taken));
            // Each value taken frees a slot, for the oldest waiters first.
            let mut wakers = Vec::new();
            if self.chan.bound.is_some() {
                for _ in 0..taken {
                    wakers.extend(state.release());
                }
            }
            drop(state);
            budget.made_progress();
            wake_all(wakers);
            return Poll::Ready(taken);
        }
        if state.has_ended() {
            budget.made_progress();
            return Poll::Ready(0);
        }
        state.set_receiver_waker(cx.waker());
        Poll::Pending
    }
    // ANCHOR_END: poll_recv_many

    /// Polls for one value: the common case of `poll_recv_many`, without the
    /// buffer.
    pub(crate) fn poll_recv(&mut self, cx: &mut Context<'_>) -> Poll<Option<T>> {
        let budget = std::task::ready!(crate::task::coop::poll_proceed(cx));
        if let Some(value) = self.taken.pop_front() {
            budget.made_progress();
            return Poll::Ready(Some(value));
        }
        let mut state = self.chan.lock();
        if self.chan.bound.is_none()
            && let Some(value) = take_all(&mut self.taken, &mut state)
        {
            drop(state);
            budget.made_progress();
            return Poll::Ready(Some(value));
        }
        if let Some((value, sender)) = state.pop(self.chan.bound.is_some()) {
            drop(state);
            budget.made_progress();
            wake_all(sender);
            return Poll::Ready(Some(value));
        }
        if state.has_ended() {
            budget.made_progress();
            return Poll::Ready(None);
        }
        state.set_receiver_waker(cx.waker());
        Poll::Pending
    }

    pub(crate) fn try_recv(&mut self) -> Result<T, super::TryRecvError> {
        if let Some(value) = self.taken.pop_front() {
            return Ok(value);
        }
        let mut state = self.chan.lock();
        if self.chan.bound.is_none()
            && let Some(value) = take_all(&mut self.taken, &mut state)
        {
            return Ok(value);
        }
        if let Some((value, sender)) = state.pop(self.chan.bound.is_some()) {
            drop(state);
            wake_all(sender);
            return Ok(value);
        }
        if state.has_ended() {
            Err(super::TryRecvError::Disconnected)
        } else {
            Err(super::TryRecvError::Empty)
        }
    }

    /// Refuses new values and wakes everyone waiting to send or waiting for
    /// the close.
    pub(crate) fn close(&mut self) {
        self.chan.close();
    }

    pub(crate) fn len(&self) -> usize {
        self.taken.len() + self.chan.lock().queue.len()
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The receiver's view: closed once `close` was called or every sender
    /// is gone.
    pub(crate) fn is_closed(&self) -> bool {
        let state = self.chan.lock();
        state.closed || state.senders == 0
    }

    pub(crate) fn chan(&self) -> &Chan<T> {
        &self.chan
    }
}

// ANCHOR: take_all
/// Unbounded only: moves every value of the shared queue into the
/// receiver's `taken` (empty by then: it is used up first), and returns the
/// first. One lock for the whole batch; `recv` hands out the rest from
/// `taken` without it.
fn take_all<T>(taken: &mut VecDeque<T>, state: &mut State<T>) -> Option<T> {
    debug_assert!(taken.is_empty());
    std::mem::swap(taken, &mut state.queue);
    taken.pop_front()
}
// ANCHOR_END: take_all

impl<T> Drop for Rx<T> {
    /// Closes, and drops the queued values (outside the lock: a value's
    /// `Drop` may use the channel) and our waker; the values already taken
    /// go with the receiver.
    fn drop(&mut self) {
        self.chan.close();
        let (queued, waker) = {
            let mut state = self.chan.lock();
            state.receiver_dropped = true;
            let queued = std::mem::take(&mut state.queue);
            if self.chan.bound.is_some() {
                state.available += queued.len();
            }
            (queued, state.receiver_waker.take())
        };
        drop((queued, waker));
    }
}

/// Why `try_reserve` found no slot.
pub(crate) enum Full {
    NoSlot,
    Closed,
}

impl<T> State<T> {
    /// A slot came free: grant it to the oldest waiting sender (whose waker
    /// is returned, to be woken after the lock is released), or keep it.
    // ANCHOR: release
    fn release(&mut self) -> Option<Waker> {
        match self.send_waiters.assign_one() {
            Assign::Granted(waker) => waker,
            // The head waits for more slots (`reserve_many`): wake it later.
            Assign::Partial => None,
            Assign::NoWaiter => {
                self.available += 1;
                None
            }
        }
    }
    // ANCHOR_END: release

    /// Takes the oldest value; in a bounded channel its slot is released,
    /// and the waker of a sender granted it comes back with it.
    fn pop(&mut self, bounded: bool) -> Option<(T, Option<Waker>)> {
        let value = self.queue.pop_front()?;
        let sender = if bounded { self.release() } else { None };
        Some((value, sender))
    }

    /// Keeps `waker` as the receiver's, unless the stored one wakes the
    /// same task.
    fn set_receiver_waker(&mut self, waker: &Waker) {
        store_waker(&mut self.receiver_waker, waker);
    }

    /// No value can come any more.
    fn has_ended(&self) -> bool {
        self.queue.is_empty() && (self.senders == 0 || (self.closed && self.permits == 0))
    }
}
