//! [`Instant`]: a point in time on the runtime's clock.
//!
//! It wraps `std::time::Instant`, and differs from it in one place:
//! [`Instant::now`] called inside a runtime reads that runtime's clock,
//! which a test may have paused and moved (see `clock.rs`). Outside a
//! runtime it is the system's clock. Arithmetic saturates where Tokio's
//! does: `later - earlier` is never negative.
//!
//! Book: Chapter 8, "Writing programs".

use crate::runtime::context;
use std::fmt;
use std::ops::{Add, AddAssign, Sub, SubAssign};
use std::time::Duration;

/// A point in time on the runtime's clock; see the module documentation.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Instant {
    std: std::time::Instant,
}

impl Instant {
    /// Now, on the current runtime's clock (the system's outside one).
    pub fn now() -> Instant {
        let std =
            context::with_current(|handle| handle.map(|scheduler| scheduler.driver().time.now()))
                .unwrap_or_else(std::time::Instant::now);
        Instant { std }
    }

    /// The same point as a `std::time::Instant`.
    pub fn from_std(std: std::time::Instant) -> Instant {
        Instant { std }
    }

    /// This point as a `std::time::Instant`.
    pub fn into_std(self) -> std::time::Instant {
        self.std
    }

    /// Time from `earlier` to this instant; zero if `earlier` is later.
    pub fn duration_since(&self, earlier: Instant) -> Duration {
        self.std.saturating_duration_since(earlier.std)
    }

    /// Time from `earlier` to this instant, if `earlier` is not later.
    pub fn checked_duration_since(&self, earlier: Instant) -> Option<Duration> {
        self.std.checked_duration_since(earlier.std)
    }

    /// Time from `earlier` to this instant; zero if `earlier` is later.
    pub fn saturating_duration_since(&self, earlier: Instant) -> Duration {
        self.std.saturating_duration_since(earlier.std)
    }

    /// Time since this instant, on the current runtime's clock.
    pub fn elapsed(&self) -> Duration {
        Instant::now().duration_since(*self)
    }

    /// `self + duration`, if representable.
    pub fn checked_add(&self, duration: Duration) -> Option<Instant> {
        self.std.checked_add(duration).map(Instant::from_std)
    }

    /// `self - duration`, if representable.
    pub fn checked_sub(&self, duration: Duration) -> Option<Instant> {
        self.std.checked_sub(duration).map(Instant::from_std)
    }
}

impl From<std::time::Instant> for Instant {
    fn from(std: std::time::Instant) -> Instant {
        Instant { std }
    }
}

impl From<Instant> for std::time::Instant {
    fn from(instant: Instant) -> std::time::Instant {
        instant.std
    }
}

impl Add<Duration> for Instant {
    type Output = Instant;
    fn add(self, duration: Duration) -> Instant {
        Instant::from_std(self.std + duration)
    }
}

impl AddAssign<Duration> for Instant {
    fn add_assign(&mut self, duration: Duration) {
        self.std += duration;
    }
}

impl Sub<Duration> for Instant {
    type Output = Instant;
    fn sub(self, duration: Duration) -> Instant {
        Instant::from_std(self.std - duration)
    }
}

impl SubAssign<Duration> for Instant {
    fn sub_assign(&mut self, duration: Duration) {
        self.std -= duration;
    }
}

impl Sub<Instant> for Instant {
    type Output = Duration;
    fn sub(self, earlier: Instant) -> Duration {
        self.duration_since(earlier)
    }
}

impl fmt::Debug for Instant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.std.fmt(f)
    }
}
