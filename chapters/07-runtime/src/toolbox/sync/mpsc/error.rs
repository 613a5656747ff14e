//! The mpsc channels' errors, as values that give back what could not be
//! sent (Tokio's `tokio::sync::mpsc::error`).
//!
//! Book: Chapter 8, "Channels".

use std::fmt;

/// The receiver is closed or gone; here is your value back (`()` for a
/// failed `reserve`).
#[derive(PartialEq, Eq, Clone, Copy)]
pub struct SendError<T>(pub T);

/// Why `try_send` (or `try_reserve`) did not send.
#[derive(PartialEq, Eq, Clone, Copy)]
pub enum TrySendError<T> {
    /// No slot is free now.
    Full(T),
    /// The receiver is closed or gone.
    Closed(T),
}

/// Why [`Sender::send_timeout`](super::Sender::send_timeout) did not send;
/// both give the value back.
#[derive(PartialEq, Eq, Clone, Copy)]
pub enum SendTimeoutError<T> {
    /// The channel stayed full until the timeout elapsed.
    Timeout(T),
    /// The receiver is closed or gone.
    Closed(T),
}

impl<T> SendTimeoutError<T> {
    /// The value that was not sent.
    pub fn into_inner(self) -> T {
        match self {
            SendTimeoutError::Timeout(value) | SendTimeoutError::Closed(value) => value,
        }
    }
}

/// The value stays hidden (it need not be `Debug`); the variant's name is
/// printed as Tokio prints it, a quoted string (`"Timeout(..)"`).
impl<T> fmt::Debug for SendTimeoutError<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SendTimeoutError::Timeout(_) => fmt::Debug::fmt("Timeout(..)", f),
            SendTimeoutError::Closed(_) => fmt::Debug::fmt("Closed(..)", f),
        }
    }
}

/// Why `try_recv` returned nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TryRecvError {
    /// Nothing queued now.
    Empty,
    /// Nothing queued, and nothing can come any more.
    Disconnected,
}

impl<T> TrySendError<T> {
    /// The value that was not sent.
    pub fn into_inner(self) -> T {
        match self {
            TrySendError::Full(value) | TrySendError::Closed(value) => value,
        }
    }
}

impl<T> From<SendError<T>> for TrySendError<T> {
    fn from(error: SendError<T>) -> TrySendError<T> {
        TrySendError::Closed(error.0)
    }
}

send_error_impls!(SendError);

/// As `SendTimeoutError`'s: `"Full(..)"` or `"Closed(..)"`, quoted.
impl<T> fmt::Debug for TrySendError<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TrySendError::Full(_) => fmt::Debug::fmt("Full(..)", f),
            TrySendError::Closed(_) => fmt::Debug::fmt("Closed(..)", f),
        }
    }
}

error_impls! {
    SendTimeoutError<T> => [T] {
        SendTimeoutError::Timeout(_) => "timed out waiting on send operation",
        SendTimeoutError::Closed(_) => "channel closed",
    },
    TrySendError<T> => [T] {
        TrySendError::Full(_) => "no available capacity",
        TrySendError::Closed(_) => "channel closed",
    },
    TryRecvError => [] {
        TryRecvError::Empty => "receiving on an empty channel",
        TryRecvError::Disconnected => "receiving on a closed channel",
    },
}
