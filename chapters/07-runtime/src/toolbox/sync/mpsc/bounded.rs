//! The bounded channel's handles: [`Sender`], [`Receiver`], the permits
//! and [`WeakSender`].
//!
//! Every method here is a thin shell over `chan.rs` (the receiver's over
//! its receiver core, `Rx`, which the unbounded receiver shares); what a
//! reader should take from this file is the shape of the API, which is
//! Tokio's: `send` is `reserve` followed by [`Permit::send`], and a permit
//! is a slot held in the caller's hand.
//!
//! Book: Chapter 8, "Channels".

use super::chan::{Chan, Full, ReserveState, Rx, Tx, WeakTx, receiver_methods, sender_handles};
use super::error::{SendError, SendTimeoutError, TrySendError};
use crate::loom::Arc;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

/// Sends values into a bounded channel; clone it for more producers.
pub struct Sender<T> {
    tx: Tx<T>,
}

/// A sender that does not keep the channel open: [`upgrade`](Self::upgrade)
/// it to send.
pub struct WeakSender<T> {
    tx: WeakTx<T>,
}

/// Receives the values of a bounded channel.
pub struct Receiver<T> {
    rx: Rx<T>,
}

/// One slot of the channel, reserved: [`send`](Self::send) cannot fail and
/// does not wait. Dropping it unused gives the slot back.
pub struct Permit<'a, T> {
    chan: &'a Chan<T>,
}

/// `n` reserved slots, from [`Sender::reserve_many`] or
/// [`Sender::try_reserve_many`], handed out one [`Permit`] at a time;
/// dropping it gives back the slots not handed out.
pub struct PermitIterator<'a, T> {
    chan: &'a Chan<T>,
    n: usize,
}

/// A [`Permit`] that owns its sender, for moving into another task.
pub struct OwnedPermit<T> {
    sender: Option<Sender<T>>,
}

/// Creates a bounded channel: at most `buffer` values wait in it (counting
/// the slots held by permits), and a sender that finds it full waits.
///
/// # Panics
///
/// If `buffer` is zero.
#[track_caller]
pub fn channel<T>(buffer: usize) -> (Sender<T>, Receiver<T>) {
    assert!(buffer > 0, "mpsc bounded channel requires buffer > 0");
    let chan = Arc::new(Chan::new(Some(buffer)));
    (
        Sender {
            tx: Tx::new(chan.clone()),
        },
        Receiver { rx: Rx::new(chan) },
    )
}

/// The future behind `reserve`: holds our place in the senders' queue and
/// leaves it when dropped.
struct Reserve<'a, T> {
    chan: &'a Chan<T>,
    wait: ReserveState,
}

impl<T> Future for Reserve<'_, T> {
    type Output = Result<(), ()>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = &mut *self;
        this.chan.poll_reserve(&mut this.wait, cx)
    }
}

impl<T> Drop for Reserve<'_, T> {
    fn drop(&mut self) {
        self.chan.cancel_reserve(&mut self.wait);
    }
}

impl<T> Sender<T> {
    /// Sends `value`, waiting for a free slot if the channel is full. Fails,
    /// giving the value back, if the receiver was closed or dropped.
    ///
    /// # Cancel safety
    ///
    /// Not cancel-safe: dropping the future while it waits drops `value`,
    /// and the sender loses its place in the queue of waiting senders. Use
    /// [`reserve`](Self::reserve) in a `select!` to keep the value.
    pub async fn send(&self, value: T) -> Result<(), SendError<T>> {
        // A free slot: the slot and the value in one lock (a send is one
        // unit of the task's budget either way).
        crate::task::coop::consume_budget().await;
        let value = match self.tx.try_send_now(value) {
            Ok(()) => return Ok(()),
            Err((value, Full::Closed)) => return Err(SendError(value)),
            Err((value, Full::NoSlot)) => value,
        };
        match self.reserve().await {
            Ok(permit) => {
                permit.send(value);
                Ok(())
            }
            Err(_) => Err(SendError(value)),
        }
    }

    /// [`send`](Self::send), giving up after `timeout` if no slot came free:
    /// the value comes back in [`SendTimeoutError::Timeout`], or in
    /// [`SendTimeoutError::Closed`] if the receiver is closed or gone.
    ///
    /// # Cancel safety
    ///
    /// As [`send`](Self::send): not cancel-safe, the value is dropped with
    /// the future.
    ///
    /// # Panics
    ///
    /// Outside a runtime with the timer enabled (it uses [`time::timeout`](crate::time::timeout)).
    pub async fn send_timeout(
        &self,
        value: T,
        timeout: std::time::Duration,
    ) -> Result<(), SendTimeoutError<T>> {
        match crate::time::timeout(timeout, self.reserve()).await {
            Ok(Ok(permit)) => {
                permit.send(value);
                Ok(())
            }
            Ok(Err(_)) => Err(SendTimeoutError::Closed(value)),
            Err(_) => Err(SendTimeoutError::Timeout(value)),
        }
    }

    /// [`send`](Self::send) from synchronous code: blocks the thread until
    /// a slot is free (or the receiver is gone).
    ///
    /// # Panics
    ///
    /// If called on a thread that runs a runtime's tasks (a worker, or
    /// inside `block_on`): use it from a plain thread or `spawn_blocking`.
    #[track_caller]
    pub fn blocking_send(&self, value: T) -> Result<(), SendError<T>> {
        crate::sync::blocking::wait(self.send(value))
    }

    /// Sends `value` if a slot is free now and nobody waits for one.
    pub fn try_send(&self, value: T) -> Result<(), TrySendError<T>> {
        match self.tx.try_send_now(value) {
            Ok(()) => Ok(()),
            Err((value, Full::NoSlot)) => Err(TrySendError::Full(value)),
            Err((value, Full::Closed)) => Err(TrySendError::Closed(value)),
        }
    }

    /// Waits for a slot and holds it: the permit's `send` then cannot fail
    /// or wait. Senders are served in the order they started waiting.
    ///
    /// # Cancel safety
    ///
    /// Dropping the future loses its place in the queue (and gives back a
    /// slot granted to it but not yet taken); no slot is leaked.
    pub async fn reserve(&self) -> Result<Permit<'_, T>, SendError<()>> {
        self.wait_for_slot().await?;
        Ok(Permit { chan: &self.tx })
    }

    /// Like [`reserve`](Self::reserve), but the permit owns this sender, so
    /// it can move into another task; `OwnedPermit::send` gives it back.
    ///
    /// # Cancel safety
    ///
    /// As [`reserve`](Self::reserve); the sender is dropped with the future.
    pub async fn reserve_owned(self) -> Result<OwnedPermit<T>, SendError<()>> {
        self.wait_for_slot().await?;
        Ok(OwnedPermit { sender: Some(self) })
    }

    /// Waits for `n` slots at once and holds them, as
    /// [`reserve`](Self::reserve) does one: the waiter keeps its place at
    /// the head of the queue while slots come free, so later senders do not
    /// take them. Fails if the receiver is closed or gone, or at once if `n`
    /// exceeds [`max_capacity`](Self::max_capacity).
    ///
    /// # Cancel safety
    ///
    /// Dropping the future loses its place in the queue and gives back the
    /// slots it had been assigned.
    pub async fn reserve_many(&self, n: usize) -> Result<PermitIterator<'_, T>, SendError<()>> {
        if n > self.max_capacity() {
            return Err(SendError(()));
        }
        self.wait_for_slots(n).await?;
        Ok(PermitIterator { chan: &self.tx, n })
    }

    /// `n` slots now, if as many are free: `Full(())` if not (or if `n`
    /// exceeds the capacity), `Closed(())` if the receiver is gone.
    pub fn try_reserve_many(&self, n: usize) -> Result<PermitIterator<'_, T>, TrySendError<()>> {
        if n > self.max_capacity() {
            return Err(TrySendError::Full(()));
        }
        match self.tx.try_reserve_many(n) {
            Ok(()) => Ok(PermitIterator { chan: &self.tx, n }),
            Err(Full::NoSlot) => Err(TrySendError::Full(())),
            Err(Full::Closed) => Err(TrySendError::Closed(())),
        }
    }

    async fn wait_for_slot(&self) -> Result<(), SendError<()>> {
        self.wait_for_slots(1).await
    }

    async fn wait_for_slots(&self, n: usize) -> Result<(), SendError<()>> {
        Reserve {
            chan: &self.tx,
            wait: ReserveState::new(n),
        }
        .await
        .map_err(|()| SendError(()))
    }

    /// A slot now, if one is free: `Full(())` or `Closed(())` otherwise.
    pub fn try_reserve(&self) -> Result<Permit<'_, T>, TrySendError<()>> {
        match self.tx.try_reserve() {
            Ok(()) => Ok(Permit { chan: &self.tx }),
            Err(Full::NoSlot) => Err(TrySendError::Full(())),
            Err(Full::Closed) => Err(TrySendError::Closed(())),
        }
    }

    /// [`try_reserve`](Self::try_reserve) for an [`OwnedPermit`]; gives the
    /// sender back on failure.
    pub fn try_reserve_owned(self) -> Result<OwnedPermit<T>, TrySendError<Sender<T>>> {
        match self.tx.try_reserve() {
            Ok(()) => Ok(OwnedPermit { sender: Some(self) }),
            Err(Full::NoSlot) => Err(TrySendError::Full(self)),
            Err(Full::Closed) => Err(TrySendError::Closed(self)),
        }
    }

    /// Free slots now: the capacity minus queued values and held permits.
    pub fn capacity(&self) -> usize {
        self.tx.capacity()
    }

    /// The capacity the channel was created with.
    pub fn max_capacity(&self) -> usize {
        self.tx.max_capacity()
    }
}

sender_handles!(Sender, WeakSender);

impl<T> Permit<'_, T> {
    /// Sends `value` into the reserved slot; never waits. If the receiver
    /// has been dropped meanwhile, the value is dropped.
    pub fn send(self, value: T) {
        let chan = self.chan;
        std::mem::forget(self);
        chan.send_with_permit(value);
    }
}

impl<T> Drop for Permit<'_, T> {
    fn drop(&mut self) {
        self.chan.drop_permit();
    }
}

impl<'a, T> Iterator for PermitIterator<'a, T> {
    type Item = Permit<'a, T>;

    fn next(&mut self) -> Option<Permit<'a, T>> {
        if self.n == 0 {
            return None;
        }
        self.n -= 1;
        Some(Permit { chan: self.chan })
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.n, Some(self.n))
    }
}

impl<T> ExactSizeIterator for PermitIterator<'_, T> {}

impl<T> std::iter::FusedIterator for PermitIterator<'_, T> {}

impl<T> Drop for PermitIterator<'_, T> {
    fn drop(&mut self) {
        if self.n > 0 {
            self.chan.drop_permits(self.n);
        }
    }
}

impl<T> fmt::Debug for PermitIterator<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PermitIterator")
            .field("capacity", &self.n)
            .finish_non_exhaustive()
    }
}

impl<T> OwnedPermit<T> {
    /// Sends `value` into the reserved slot and gives the sender back.
    pub fn send(mut self, value: T) -> Sender<T> {
        let sender = self.sender.take().expect("a permit holds its sender");
        sender.tx.send_with_permit(value);
        sender
    }

    /// Gives the slot back unused, and the sender with it.
    pub fn release(mut self) -> Sender<T> {
        let sender = self.sender.take().expect("a permit holds its sender");
        sender.tx.drop_permit();
        sender
    }

    /// True if both permits are for the same channel.
    pub fn same_channel(&self, other: &OwnedPermit<T>) -> bool {
        match (&self.sender, &other.sender) {
            (Some(a), Some(b)) => a.same_channel(b),
            _ => false,
        }
    }

    /// True if this permit is for the channel `other` sends on.
    pub fn same_channel_as_sender(&self, other: &Sender<T>) -> bool {
        self.sender.as_ref().is_some_and(|s| s.same_channel(other))
    }
}

impl<T> Drop for OwnedPermit<T> {
    fn drop(&mut self) {
        if let Some(sender) = self.sender.take() {
            sender.tx.drop_permit();
        }
    }
}

impl<T> Receiver<T> {
    receiver_methods!();

    /// Free slots now.
    pub fn capacity(&self) -> usize {
        self.rx.chan().capacity()
    }

    /// The capacity the channel was created with.
    pub fn max_capacity(&self) -> usize {
        self.rx.chan().max_capacity()
    }
}

debug_as_name! {
    Sender<T> => [T] "mpsc::Sender",
    WeakSender<T> => [T] "mpsc::WeakSender",
    Receiver<T> => [T] "mpsc::Receiver",
    Permit<'a, T> => ['a, T] "mpsc::Permit",
    OwnedPermit<T> => [T] "mpsc::OwnedPermit",
}
