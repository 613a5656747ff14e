//! Time: [`sleep`], [`timeout`], [`interval`], on the runtime's timing
//! wheel.
//!
//! * `level` and `wheel`: the hierarchical timing wheel (6 levels of 64
//!   slots, 1 ms resolution, O(1) insert and cancel);
//! * `driver`: the clock, the wheel behind its lock, and the hand-off with
//!   the worker parked in the I/O driver;
//! * [`Sleep`], [`Timeout`], [`Interval`]: the futures.
//!
//! A timer is registered with the runtime of the task that first polls it,
//! and removed from the wheel when it is dropped, fired or not.
//!
//! Book: Chapter 7, "The timing wheel".

pub(crate) mod clock;
pub(crate) mod driver;
mod instant;
pub(crate) mod level;
mod sleep;
pub(crate) mod wheel;

/// The timing wheel on its own, for the chapter's wheel-against-heap
/// benchmark: public only with the `internals` feature, and not part of the
/// runtime's API.
#[cfg(feature = "internals")]
pub mod internals {
    use std::task::Waker;

    /// A handle on one timer in the [`TimingWheel`].
    #[derive(Debug, Clone, Copy)]
    pub struct TimingWheelKey(super::wheel::TimerKey);

    /// The runtime's hierarchical timing wheel, driven by hand: deadlines
    /// and "now" are milliseconds on the caller's clock.
    #[derive(Default)]
    pub struct TimingWheel(super::wheel::Wheel);

    impl TimingWheel {
        /// An empty wheel at time 0.
        pub fn new() -> TimingWheel {
            TimingWheel(super::wheel::Wheel::new())
        }

        /// Adds a timer due at millisecond `deadline`; `None` if that has
        /// passed already.
        pub fn insert(&mut self, deadline: u64, waker: Waker) -> Option<TimingWheelKey> {
            self.0.insert(deadline, waker).map(TimingWheelKey)
        }

        /// Cancels a timer.
        pub fn remove(&mut self, key: TimingWheelKey) {
            self.0.remove(key.0);
        }

        /// Timers not yet fired.
        pub fn pending(&self) -> usize {
            self.0.pending()
        }

        /// Moves time to `now`, pushing the wakers of every timer due.
        pub fn advance(&mut self, now: u64, fired: &mut Vec<Waker>) {
            self.0.advance(now, fired);
        }
    }
}

pub use sleep::{
    Elapsed, Interval, MissedTickBehavior, Sleep, Timeout, interval, interval_at, sleep,
    sleep_until, timeout, timeout_at,
};

/// The errors of this module, at Tokio's paths (`time::error::Elapsed`,
/// `time::error::Error`).
pub mod error {
    pub use super::sleep::Elapsed;
    use std::fmt;

    /// Why a timer failed: Tokio's timer error, here for code that names or
    /// builds it. No public function returns it, in Tokio (a `Sleep` whose
    /// timer fails panics with "timer error: " and this message) or here,
    /// where a timer outside a runtime panics, a sleep's duration is capped
    /// at thirty years (a timeout too long to add to now never expires),
    /// and the wheel has no capacity limit.
    #[derive(Debug, Clone, Copy)]
    pub struct Error(Cause);

    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    enum Cause {
        Shutdown,
        AtCapacity,
        Invalid,
    }

    impl Error {
        /// The error of a timer made when its runtime has shut down.
        pub fn shutdown() -> Error {
            Error(Cause::Shutdown)
        }

        /// Whether the timer's runtime had shut down.
        pub fn is_shutdown(&self) -> bool {
            self.0 == Cause::Shutdown
        }

        /// The error of a timer the wheel had no room for.
        pub fn at_capacity() -> Error {
            Error(Cause::AtCapacity)
        }

        /// Whether the wheel had no room for the timer.
        pub fn is_at_capacity(&self) -> bool {
            self.0 == Cause::AtCapacity
        }

        /// The error of a timer whose duration is out of the wheel's range.
        pub fn invalid() -> Error {
            Error(Cause::Invalid)
        }

        /// Whether the timer's duration was out of range.
        pub fn is_invalid(&self) -> bool {
            self.0 == Cause::Invalid
        }
    }

    /// Tokio's words for each cause, so that a message matched by a test
    /// reads the same on either runtime.
    impl fmt::Display for Error {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str(match self.0 {
                Cause::Shutdown => {
                    "the timer is shutdown, must be called from the context of Tokio runtime"
                }
                Cause::AtCapacity => "timer is at capacity and cannot create a new entry",
                Cause::Invalid => "timer duration exceeds maximum duration",
            })
        }
    }

    impl std::error::Error for Error {}
}

use crate::runtime::context;
pub use std::time::Duration;

/// The clock of the current runtime.
///
/// # Panics
///
/// Outside a runtime, with Tokio's words for `pause`, `resume` and
/// `advance` alike ("time cannot be frozen from outside the Tokio
/// runtime"); with `f`'s message if it fails.
#[track_caller]
fn with_clock<R>(what: &str, f: impl FnOnce(&clock::Clock) -> Result<R, &'static str>) -> R {
    let driver =
        match context::with_current(|handle| handle.map(|scheduler| scheduler.driver().clone())) {
            Some(driver) => driver,
            None => panic!(
                "time cannot be frozen from outside the Tokio runtime \
                 (rt::time::{what} called outside of a runtime)"
            ),
        };
    match f(driver.time.clock()) {
        Ok(value) => value,
        Err(message) => panic!("{message}"),
    }
}

/// Stops the current runtime's clock: [`Instant::now`] stands still, and
/// timers fire only when time is moved, by [`advance`] or, when the runtime
/// has nothing else to do, by jumping to the next timer (auto-advance).
///
/// # Panics
///
/// Outside a runtime, on a multi-thread runtime, or if already paused. The
/// messages of this function, [`resume`] and [`advance`] carry Tokio's
/// words ("time cannot be frozen from outside the Tokio runtime",
/// "requires the `current_thread` Tokio runtime", "time is already
/// frozen", "time is not frozen"), which tests match with
/// `should_panic(expected = ...)`.
#[track_caller]
pub fn pause() {
    with_clock("pause", |clock| clock.pause());
}

/// Starts the paused clock again, from where it stopped.
///
/// # Panics
///
/// Outside a runtime, or if time is not paused.
#[track_caller]
pub fn resume() {
    with_clock("resume", |clock| clock.resume());
}

/// Moves the paused clock forward by `duration` at once, then yields: the
/// timers now due fire at the runtime's next turn of its driver, which the
/// yield lets happen before the caller goes on (a yield is deferred until
/// after that turn). As in Tokio, every timer due by the new time completes
/// "at the same time", in no set order, and `advance` does not wait for the
/// tasks they wake to run: to let a span of time pass with every timer in
/// it fired in order, `sleep` for it instead (auto-advance does the rest).
///
/// # Panics
///
/// Outside a runtime, if time is not paused, or if `duration` is too large
/// to add to the clock's reading (such as `Duration::MAX`), with the words
/// of std's overflow ("overflow when adding duration to instant"); the
/// clock is then left as it was.
pub async fn advance(duration: Duration) {
    with_clock("advance", |clock| clock.advance(duration));
    crate::task::yield_now().await;
}
pub use instant::Instant;
