//! The unbounded channel's handles: the same shared state as the bounded
//! channel with no slots, so `send` is a plain function that never waits.
//! The receiver is the bounded channel's receiver core (`chan::Rx`) under
//! another name: only the channel's missing bound tells them apart.
//!
//! Nothing pushes back: a producer faster than its consumer grows the queue
//! without limit. Use it where the producer cannot wait (a callback, a
//! `Drop`) or where something else already bounds the traffic.
//!
//! Book: Chapter 7, "Channels".

use super::chan::{Chan, Rx, Tx, WeakTx};
use super::error::{SendError, TryRecvError};
use crate::loom::Arc;
use std::task::{Context, Poll};

/// Sends values into an unbounded channel; clone it for more producers.
pub struct UnboundedSender<T> {
    tx: Tx<T>,
}

/// An unbounded sender that does not keep the channel open.
pub struct WeakUnboundedSender<T> {
    tx: WeakTx<T>,
}

/// Receives the values of an unbounded channel.
pub struct UnboundedReceiver<T> {
    rx: Rx<T>,
}

/// Creates a channel with no bound: `send` never waits.
pub fn unbounded_channel<T>() -> (UnboundedSender<T>, UnboundedReceiver<T>) {
    let chan = Arc::new(Chan::new(None));
    (
        UnboundedSender {
            tx: Tx::new(chan.clone()),
        },
        UnboundedReceiver { rx: Rx::new(chan) },
    )
}

impl<T> UnboundedSender<T> {
    /// Queues `value` at once; fails, giving it back, if the receiver was
    /// closed or dropped.
    pub fn send(&self, value: T) -> Result<(), SendError<T>> {
        self.tx.push(value).map_err(SendError)
    }

    /// Completes when the receiver is dropped or closed.
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

    /// A weak sender, which does not keep the channel open.
    pub fn downgrade(&self) -> WeakUnboundedSender<T> {
        WeakUnboundedSender {
            tx: self.tx.downgrade(),
        }
    }

    /// True if both senders feed the same channel.
    pub fn same_channel(&self, other: &UnboundedSender<T>) -> bool {
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

impl<T> Clone for UnboundedSender<T> {
    fn clone(&self) -> UnboundedSender<T> {
        UnboundedSender {
            tx: self.tx.clone(),
        }
    }
}

impl<T> WeakUnboundedSender<T> {
    /// A sender again, if any sender is still alive.
    pub fn upgrade(&self) -> Option<UnboundedSender<T>> {
        self.tx.upgrade().map(|tx| UnboundedSender { tx })
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

impl<T> Clone for WeakUnboundedSender<T> {
    fn clone(&self) -> WeakUnboundedSender<T> {
        WeakUnboundedSender {
            tx: self.tx.clone(),
        }
    }
}

impl<T> UnboundedReceiver<T> {
    /// Receives the next value; `None` once the channel is empty and every
    /// sender is gone or [`close`](Self::close) was called.
    ///
    /// # Cancel safety
    ///
    /// Cancel-safe: a value is taken only by the poll that returns it.
    pub async fn recv(&mut self) -> Option<T> {
        self.rx.recv().await
    }

    /// Receives up to `limit` values at once into `buffer`; returns how
    /// many (`0`: the channel has ended, or `limit` was 0).
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
    /// inside `block_on`): use it from a plain thread or `spawn_blocking`.
    #[track_caller]
    pub fn blocking_recv(&mut self) -> Option<T> {
        self.rx.blocking_recv()
    }

    /// [`recv_many`](Self::recv_many) from synchronous code, blocking the
    /// thread.
    ///
    /// # Panics
    ///
    /// As [`blocking_recv`](Self::blocking_recv).
    #[track_caller]
    pub fn blocking_recv_many(&mut self, buffer: &mut Vec<T>, limit: usize) -> usize {
        self.rx.blocking_recv_many(buffer, limit)
    }

    /// Polls for the next value.
    pub fn poll_recv(&mut self, cx: &mut Context<'_>) -> Poll<Option<T>> {
        self.rx.poll_recv(cx)
    }

    /// Polls for up to `limit` values into `buffer` (for hand-written
    /// futures); `Ready(0)` once the channel has ended or if `limit` is 0.
    pub fn poll_recv_many(
        &mut self,
        cx: &mut Context<'_>,
        buffer: &mut Vec<T>,
        limit: usize,
    ) -> Poll<usize> {
        self.rx.poll_recv_many(cx, buffer, limit)
    }

    /// Takes a value if one is queued.
    pub fn try_recv(&mut self) -> Result<T, TryRecvError> {
        self.rx.try_recv()
    }

    /// Refuses new values; those queued can still be received.
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

    /// True once [`close`](Self::close) was called or every sender is gone.
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
}

debug_as_name! {
    UnboundedSender<T> => [T] "mpsc::UnboundedSender",
    WeakUnboundedSender<T> => [T] "mpsc::WeakUnboundedSender",
    UnboundedReceiver<T> => [T] "mpsc::UnboundedReceiver",
}
