//! The runtime's clock, which a test can stop and move by hand.
//!
//! Every reading of "now" inside the runtime goes through here: the timing
//! wheel's milliseconds, the deadline of a new `sleep`, an interval's next
//! tick, and [`Instant::now`](super::Instant::now) called from a task. That
//! one indirection is what lets a test *pause* time: while paused, the clock
//! returns the same instant until the test advances it, and a one-hour
//! timeout is one call to `advance`, not an hour.
//!
//! Paused time also moves on its own when there is nothing else to do: a
//! current-thread runtime whose tasks are all waiting, with time paused, does
//! not sleep until the next timer; it sets the clock to that timer's
//! deadline at once (*auto-advance*), so the timer fires and the test goes
//! on. Only the current-thread runtime may pause, as in Tokio: there the one
//! thread that drives the tasks also decides when nothing is left to do,
//! whereas on the multi-thread runtime "idle" is a moving agreement among
//! workers, and a worker advancing the clock would fire timers early under
//! another worker's running task.
//!
//! Unpaused, the clock is `std::time::Instant::now()` and costs one atomic
//! load more. After a pause and a resume, it runs on from where it stopped,
//! not from the real time.
//!
//! Book: Chapter 7, "Writing programs on the runtime".

use crate::loom::{AtomicBool, Mutex, Ordering};
use std::time::{Duration, Instant};

/// The clock of one runtime.
pub(crate) struct Clock {
    /// Whether this runtime may pause (current-thread only).
    can_pause: bool,
    /// Set the first time the clock is paused; until then `now` is the
    /// system's clock and takes no lock.
    ever_paused: AtomicBool,
    inner: Mutex<Inner>,
}

struct Inner {
    /// The clock's reading when it last stopped or started.
    base: Instant,
    /// When (system time) it last started; `None` while paused.
    unfrozen: Option<Instant>,
}

impl Clock {
    pub(crate) fn new(can_pause: bool, start_paused: bool) -> Clock {
        let now = Instant::now();
        let clock = Clock {
            can_pause,
            ever_paused: AtomicBool::new(false),
            inner: Mutex::new(Inner {
                base: now,
                unfrozen: Some(now),
            }),
        };
        if start_paused {
            clock
                .pause()
                .expect("start_paused needs a current-thread runtime");
        }
        clock
    }

    /// The current time on this clock.
    // ANCHOR: now
    pub(crate) fn now(&self) -> Instant {
        if !self.ever_paused.load(Ordering::Acquire) {
            return Instant::now();
        }
        let inner = self.inner.lock();
        match inner.unfrozen {
            Some(started) => inner.base + started.elapsed(),
            None => inner.base,
        }
    }
    // ANCHOR_END: now

    /// True while paused.
    pub(crate) fn is_paused(&self) -> bool {
        self.ever_paused.load(Ordering::Acquire) && self.inner.lock().unfrozen.is_none()
    }

    /// Stops the clock.
    pub(crate) fn pause(&self) -> Result<(), &'static str> {
        if !self.can_pause {
            return Err(
                "time::pause() needs the current-thread runtime (Builder::new_current_thread, \
                 the default of #[rt::test])",
            );
        }
        let mut inner = self.inner.lock();
        let Some(started) = inner.unfrozen.take() else {
            return Err("time::pause(): time is already paused");
        };
        inner.base += started.elapsed();
        self.ever_paused.store(true, Ordering::Release);
        Ok(())
    }

    /// Starts the clock again, from where it stopped.
    pub(crate) fn resume(&self) -> Result<(), &'static str> {
        let mut inner = self.inner.lock();
        if inner.unfrozen.is_some() {
            return Err("time::resume(): time is not paused");
        }
        inner.unfrozen = Some(Instant::now());
        Ok(())
    }

    /// Moves a paused clock forward by `duration`.
    pub(crate) fn advance(&self, duration: Duration) -> Result<(), &'static str> {
        let mut inner = self.inner.lock();
        if inner.unfrozen.is_some() {
            return Err("time::advance(): time is not paused");
        }
        inner.base += duration;
        Ok(())
    }

    /// Moves a paused clock forward to `instant`, if that is later.
    pub(crate) fn advance_to(&self, instant: Instant) {
        let mut inner = self.inner.lock();
        if inner.unfrozen.is_none() && instant > inner.base {
            inner.base = instant;
        }
    }
}
