//! [`Ready`]: the readiness a socket reported, as Tokio's
//! `tokio::io::Ready` names it; what `ready(interest)` returns.
//!
//! It is the public face of the driver's readiness bits
//! (`scheduled_io.rs`): readable, writable, the peer closed its half
//! (read-closed), we can no longer write (write-closed), an error is
//! pending. Closing counts as readiness in its direction, because the next
//! call returns at once (with end of stream, or the error).
//!
//! Book: Chapter 8, "Sockets".

use crate::io_driver::scheduled_io;
use std::fmt;
use std::ops::{BitAnd, BitOr, BitOrAssign, Sub};

/// A set of readiness states.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Ready(u8);

const READABLE: u8 = 0b0_0001;
const WRITABLE: u8 = 0b0_0010;
const READ_CLOSED: u8 = 0b0_0100;
const WRITE_CLOSED: u8 = 0b0_1000;
const ERROR: u8 = 0b1_0000;
const PRIORITY: u8 = 0b10_0000;

impl Ready {
    /// No readiness.
    pub const EMPTY: Ready = Ready(0);
    /// Readable.
    pub const READABLE: Ready = Ready(READABLE);
    /// Writable.
    pub const WRITABLE: Ready = Ready(WRITABLE);
    /// The read half is closed (the peer shut down its writing).
    pub const READ_CLOSED: Ready = Ready(READ_CLOSED);
    /// The write half is closed.
    pub const WRITE_CLOSED: Ready = Ready(WRITE_CLOSED);
    /// An error is pending on the socket.
    pub const ERROR: Ready = Ready(ERROR);
    /// Priority (out-of-band) data is waiting.
    pub const PRIORITY: Ready = Ready(PRIORITY);
    /// Every state above.
    pub const ALL: Ready =
        Ready(READABLE | WRITABLE | READ_CLOSED | WRITE_CLOSED | ERROR | PRIORITY);

    /// True if no state is set.
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// True if readable or read-closed (either way a read returns at once).
    pub const fn is_readable(self) -> bool {
        self.0 & (READABLE | READ_CLOSED) != 0
    }

    /// True if writable or write-closed (either way a write returns at once).
    pub const fn is_writable(self) -> bool {
        self.0 & (WRITABLE | WRITE_CLOSED) != 0
    }

    /// True if the read half is closed.
    pub const fn is_read_closed(self) -> bool {
        self.0 & READ_CLOSED != 0
    }

    /// True if the write half is closed.
    pub const fn is_write_closed(self) -> bool {
        self.0 & WRITE_CLOSED != 0
    }

    /// True if an error is pending.
    pub const fn is_error(self) -> bool {
        self.0 & ERROR != 0
    }

    /// True if priority data is waiting.
    pub const fn is_priority(self) -> bool {
        self.0 & PRIORITY != 0
    }

    /// The driver's bits for these states (for `AsyncFd`'s
    /// `clear_ready_matching`).
    pub(crate) fn to_driver(self) -> scheduled_io::ReadyBits {
        let pairs = [
            (Ready::READABLE, scheduled_io::ReadyBits::READABLE),
            (Ready::WRITABLE, scheduled_io::ReadyBits::WRITABLE),
            (Ready::READ_CLOSED, scheduled_io::ReadyBits::READ_CLOSED),
            (Ready::WRITE_CLOSED, scheduled_io::ReadyBits::WRITE_CLOSED),
            (Ready::ERROR, scheduled_io::ReadyBits::ERROR),
            (Ready::PRIORITY, scheduled_io::ReadyBits::PRIORITY),
        ];
        pairs
            .into_iter()
            .filter(|(public, _)| self.0 & public.0 != 0)
            .fold(scheduled_io::ReadyBits::EMPTY, |all, (_, driver)| {
                all | driver
            })
    }

    /// The public view of the driver's readiness bits.
    pub(crate) fn from_driver(ready: scheduled_io::ReadyBits) -> Ready {
        let pairs = [
            (scheduled_io::ReadyBits::READABLE, Ready::READABLE),
            (scheduled_io::ReadyBits::WRITABLE, Ready::WRITABLE),
            (scheduled_io::ReadyBits::READ_CLOSED, Ready::READ_CLOSED),
            (scheduled_io::ReadyBits::WRITE_CLOSED, Ready::WRITE_CLOSED),
            (scheduled_io::ReadyBits::ERROR, Ready::ERROR),
            (scheduled_io::ReadyBits::PRIORITY, Ready::PRIORITY),
        ];
        pairs
            .into_iter()
            .filter(|(driver, _)| ready.intersects(*driver))
            .fold(Ready::EMPTY, |all, (_, public)| all | public)
    }
}

impl BitOr for Ready {
    type Output = Ready;
    fn bitor(self, other: Ready) -> Ready {
        Ready(self.0 | other.0)
    }
}

impl BitOrAssign for Ready {
    fn bitor_assign(&mut self, other: Ready) {
        self.0 |= other.0;
    }
}

impl BitAnd for Ready {
    type Output = Ready;
    fn bitand(self, other: Ready) -> Ready {
        Ready(self.0 & other.0)
    }
}

impl Sub for Ready {
    type Output = Ready;
    fn sub(self, other: Ready) -> Ready {
        Ready(self.0 & !other.0)
    }
}

impl fmt::Debug for Ready {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Ready")
            .field("is_readable", &self.is_readable())
            .field("is_writable", &self.is_writable())
            .field("is_read_closed", &self.is_read_closed())
            .field("is_write_closed", &self.is_write_closed())
            .field("is_error", &self.is_error())
            .field("is_priority", &self.is_priority())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn closing_counts_as_readiness_in_its_direction() {
        assert!(Ready::READ_CLOSED.is_readable());
        assert!(!Ready::READ_CLOSED.is_writable());
        assert!(Ready::WRITE_CLOSED.is_writable());
        let driver = scheduled_io::ReadyBits::READABLE | scheduled_io::ReadyBits::ERROR;
        let public = Ready::from_driver(driver);
        assert_eq!(public, Ready::READABLE | Ready::ERROR);
        assert_eq!(public - Ready::ERROR, Ready::READABLE);
        assert!((Ready::ALL & Ready::EMPTY).is_empty());
    }
}
