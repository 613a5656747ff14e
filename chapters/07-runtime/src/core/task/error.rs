//! Why a task has no output: it was cancelled (aborted, or the runtime shut
//! down) or its future panicked.
//!
//! A panic inside a task does not take down the worker thread: the harness
//! catches it, drops the future, and stores the panic's payload here, so the
//! code awaiting the `JoinHandle` can decide (log it, retry, or re-raise it
//! with `std::panic::resume_unwind(err.into_panic())`).
//!
//! Book: Chapter 7, "A task is one allocation and one word".

use super::Id;
use std::any::Any;
use std::fmt;

/// The error a [`JoinHandle`](crate::task::JoinHandle) returns when its task
/// did not finish normally.
pub struct JoinError {
    repr: JoinErrorKind,
    /// The task's id, stamped by the handle that read the error.
    id: Id,
}

enum JoinErrorKind {
    Cancelled,
    Panic(Payload),
}

/// A panic's payload. `JoinError` is `Sync` (so it fits in an `io::Error`
/// and crosses threads by reference), but a payload is only `Send`, so it
/// is wrapped: through `&self` it is only ever read as a `&str` or a
/// `String`, after checking its type.
struct Payload(Box<dyn Any + Send + 'static>);

// SAFETY: shared access to the payload happens only in `message`, which
// calls `Any::is` (reads the vtable, not the value) and then reads the
// value only if it is a `&'static str` or a `String`, both `Sync`. Every
// other access moves the payload out by value (`into_panic`).
unsafe impl Sync for Payload {}

impl Payload {
    fn message(&self) -> Option<&str> {
        let any: &(dyn Any + Send) = &*self.0;
        if any.is::<&'static str>() {
            any.downcast_ref::<&'static str>().copied()
        } else if any.is::<String>() {
            any.downcast_ref::<String>().map(String::as_str)
        } else {
            None
        }
    }
}

impl JoinError {
    pub(crate) fn cancelled() -> JoinError {
        JoinError {
            repr: JoinErrorKind::Cancelled,
            id: Id(0),
        }
    }

    pub(crate) fn panic(payload: Box<dyn Any + Send + 'static>) -> JoinError {
        JoinError {
            repr: JoinErrorKind::Panic(Payload(payload)),
            id: Id(0),
        }
    }

    /// The same error, naming task `id`. The harness stores an error before
    /// anyone asks whose it is; the handle that reads it knows.
    pub(crate) fn with_id(mut self, id: Id) -> JoinError {
        self.id = id;
        self
    }

    /// The id of the task that failed (Tokio's `JoinError::id`).
    pub fn id(&self) -> Id {
        self.id
    }

    /// True if the task was aborted or dropped by runtime shutdown.
    pub fn is_cancelled(&self) -> bool {
        matches!(self.repr, JoinErrorKind::Cancelled)
    }

    /// True if the task's future panicked (while polled, or while dropped).
    pub fn is_panic(&self) -> bool {
        matches!(self.repr, JoinErrorKind::Panic(_))
    }

    /// The panic's payload, for `std::panic::resume_unwind`.
    ///
    /// # Panics
    ///
    /// If the error is not a panic, with Tokio's words ("`JoinError` reason
    /// is not a panic"); check [`JoinError::is_panic`] first, or use
    /// [`JoinError::try_into_panic`].
    pub fn into_panic(self) -> Box<dyn Any + Send + 'static> {
        self.try_into_panic()
            .expect("`JoinError` reason is not a panic (the task was cancelled)")
    }

    /// The panic's payload, or the error itself if it is not a panic.
    pub fn try_into_panic(self) -> Result<Box<dyn Any + Send + 'static>, JoinError> {
        match self.repr {
            JoinErrorKind::Panic(payload) => Ok(payload.0),
            JoinErrorKind::Cancelled => Err(self),
        }
    }

    /// The panic message, when the payload is a string (as `panic!` makes it).
    fn panic_message(&self) -> Option<&str> {
        match &self.repr {
            JoinErrorKind::Panic(payload) => payload.message(),
            JoinErrorKind::Cancelled => None,
        }
    }
}

impl fmt::Display for JoinError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (&self.repr, self.panic_message()) {
            (JoinErrorKind::Cancelled, _) => write!(f, "task {} was cancelled", self.id),
            (JoinErrorKind::Panic(_), Some(message)) => {
                write!(f, "task {} panicked with message {message:?}", self.id)
            }
            (JoinErrorKind::Panic(_), None) => write!(f, "task {} panicked", self.id),
        }
    }
}

impl fmt::Debug for JoinError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (&self.repr, self.panic_message()) {
            (JoinErrorKind::Cancelled, _) => write!(f, "JoinError::Cancelled({:?})", self.id),
            (JoinErrorKind::Panic(_), Some(message)) => {
                write!(f, "JoinError::Panic({:?}, {message:?}, ...)", self.id)
            }
            (JoinErrorKind::Panic(_), None) => write!(f, "JoinError::Panic({:?}, ...)", self.id),
        }
    }
}

impl std::error::Error for JoinError {}

/// As Tokio's: a task's failure as an `io::Error` of kind `Other`, so `?`
/// works in a function returning `io::Result`.
impl From<JoinError> for std::io::Error {
    fn from(error: JoinError) -> std::io::Error {
        std::io::Error::other(match error.repr {
            JoinErrorKind::Cancelled => "task was cancelled",
            JoinErrorKind::Panic(_) => "task panicked",
        })
    }
}
