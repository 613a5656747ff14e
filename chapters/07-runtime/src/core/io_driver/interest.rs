//! [`Interest`]: which readiness a task wants to wait for, as Tokio's
//! `tokio::io::Interest` names it.
//!
//! Every socket is registered with the driver for both directions (see
//! `registration.rs`), so an interest does not change the registration; it
//! only says which of the socket's two readiness directions a call to
//! `ready(interest)` waits on. `READABLE | WRITABLE` waits until either is
//! ready. `ERROR` waits for an error pending on the descriptor, which epoll
//! reports whatever the registration asked for. `PRIORITY` waits for
//! priority data, which epoll reports only to a descriptor registered for
//! it (an `AsyncFd` registered with that interest).
//!
//! Book: Chapter 8, "Sockets".

use crate::io_driver::scheduled_io::Direction;
use std::fmt;
use std::ops::{BitOr, BitOrAssign};

/// The readiness a task waits for: [`READABLE`](Interest::READABLE),
/// [`WRITABLE`](Interest::WRITABLE), [`ERROR`](Interest::ERROR),
/// [`PRIORITY`](Interest::PRIORITY), or several (`READABLE | WRITABLE`).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Interest(u8);

const READ_BIT: u8 = 0b01;
const WRITE_BIT: u8 = 0b10;
const ERROR_BIT: u8 = 0b100;
const PRIORITY_BIT: u8 = 0b1000;

impl Interest {
    /// Interest in the socket becoming readable (or its read half closing).
    pub const READABLE: Interest = Interest(READ_BIT);
    /// Interest in the socket becoming writable (or its write half closing).
    pub const WRITABLE: Interest = Interest(WRITE_BIT);
    /// Interest in an error pending on the descriptor (an `AsyncFd` over a
    /// UDP socket with `IP_RECVERR`, say). Epoll reports errors whatever
    /// the registration asked, so an `AsyncFd` registered for this alone is
    /// registered for reading, as Tokio's is.
    pub const ERROR: Interest = Interest(ERROR_BIT);
    /// Interest in priority data: TCP's urgent (out-of-band) byte, or a
    /// device's exceptional condition (`EPOLLPRI`). Unlike the others, it
    /// changes the registration: an `AsyncFd` must be registered with it.
    pub const PRIORITY: Interest = Interest(PRIORITY_BIT);

    /// True if the interest includes readability.
    pub const fn is_readable(self) -> bool {
        self.0 & READ_BIT != 0
    }

    /// True if the interest includes writability.
    pub const fn is_writable(self) -> bool {
        self.0 & WRITE_BIT != 0
    }

    /// True if the interest includes errors.
    pub const fn is_error(self) -> bool {
        self.0 & ERROR_BIT != 0
    }

    /// True if the interest includes priority data.
    pub const fn is_priority(self) -> bool {
        self.0 & PRIORITY_BIT != 0
    }

    /// This interest and `other` together (the `|` operator, usable in
    /// `const` items).
    #[must_use]
    pub const fn add(self, other: Interest) -> Interest {
        Interest(self.0 | other.0)
    }

    /// This interest without `other`; `None` if nothing would be left (an
    /// empty interest does not exist).
    #[must_use]
    pub fn remove(self, other: Interest) -> Option<Interest> {
        let left = self.0 & !other.0;
        (left != 0).then_some(Interest(left))
    }

    /// The directions this interest waits on, in the driver's terms.
    pub(crate) fn directions(self) -> impl Iterator<Item = Direction> {
        [
            self.is_readable().then_some(Direction::Read),
            self.is_writable().then_some(Direction::Write),
            self.is_error().then_some(Direction::Error),
            self.is_priority().then_some(Direction::Priority),
        ]
        .into_iter()
        .flatten()
    }
}

impl BitOr for Interest {
    type Output = Interest;
    fn bitor(self, other: Interest) -> Interest {
        self.add(other)
    }
}

impl BitOrAssign for Interest {
    fn bitor_assign(&mut self, other: Interest) {
        *self = self.add(other);
    }
}

impl fmt::Debug for Interest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = [
            self.is_readable().then_some("READABLE"),
            self.is_writable().then_some("WRITABLE"),
            self.is_error().then_some("ERROR"),
            self.is_priority().then_some("PRIORITY"),
        ]
        .into_iter()
        .flatten()
        .collect();
        f.write_str(&names.join(" | "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interests_combine_and_remove() {
        let both = Interest::READABLE | Interest::WRITABLE;
        assert!(both.is_readable() && both.is_writable());
        assert_eq!(both.remove(Interest::READABLE), Some(Interest::WRITABLE));
        assert_eq!(Interest::READABLE.remove(Interest::READABLE), None);
        assert_eq!(
            both.directions().collect::<Vec<_>>(),
            [Direction::Read, Direction::Write]
        );
        assert_eq!(format!("{both:?}"), "READABLE | WRITABLE");
        let error = Interest::ERROR;
        assert!(error.is_error() && !error.is_readable() && !error.is_writable());
        assert_eq!(error.directions().collect::<Vec<_>>(), [Direction::Error]);
        assert_eq!((both | error).remove(both), Some(Interest::ERROR));
        assert_eq!(
            format!("{:?}", Interest::READABLE | error),
            "READABLE | ERROR"
        );
    }
}
