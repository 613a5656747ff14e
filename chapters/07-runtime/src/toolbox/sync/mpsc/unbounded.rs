//! The unbounded channel's handles: the same shared state as the bounded
//! channel with no slots, so `send` is a plain function that never waits.
//! The receiver is the bounded channel's receiver core (`chan::Rx`) under
//! another name: only the channel's missing bound tells them apart.
//!
//! Nothing pushes back: a producer faster than its consumer grows the queue
//! without limit. Use it where the producer cannot wait (a callback, a
//! `Drop`) or where something else already bounds the traffic.
//!
//! Book: Chapter 8, "Channels".

use super::chan::{Chan, Rx, Tx, WeakTx, receiver_methods, sender_handles};
use super::error::SendError;
use crate::loom::Arc;

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
}

sender_handles!(UnboundedSender, WeakUnboundedSender);

impl<T> UnboundedReceiver<T> {
    receiver_methods!();
}

debug_as_name! {
    UnboundedSender<T> => [T] "mpsc::UnboundedSender",
    WeakUnboundedSender<T> => [T] "mpsc::WeakUnboundedSender",
    UnboundedReceiver<T> => [T] "mpsc::UnboundedReceiver",
}
