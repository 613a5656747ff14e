//! The runtime's clock, which a test can stop and move by hand.
//!
//! Every reading of "now" inside the runtime goes through here: the timing
//! wheel's milliseconds, the deadline of a new `sleep`, an interval's next
//! tick, and [`Instant::now`](super::Instant::now) called from a task. That
//! one indirection is what lets a test *pause* time: while paused, the clock
//! returns the same instant until the test advances it, and a one-hour
//! timeout is one call to `advance`, not an hour.
//!
//! Paused time also moves on its own when the runtime has nothing else to
//! do (*auto-advance*): a current-thread runtime whose tasks all wait, with
//! time paused, does not sleep until the next timer; it moves the clock to
//! that timer's deadline at once, so the timer fires and the test goes on.
//! When exactly "nothing else to do" holds is the one rule of this file
//! ([`Clock::plan_park`] and [`Clock::jump_unless_woken`]), which the
//! driver follows each time it would sleep:
//!
//! 1. the clock is paused, a timer is pending, and no work the runtime
//!    started outside its tasks is in flight (a `spawn_blocking` job, and
//!    so every `fs` call: each holds the clock with an
//!    [`AutoAdvanceHold`] until its task completes);
//! 2. the driver then turns the I/O without waiting, delivering whatever
//!    is ready;
//! 3. and unless something woke the runtime since the clock last looked
//!    (a task scheduled, on the driving thread or from another; the
//!    `block_on` future woken; the driver unparked), the clock jumps to the
//!    next timer. The look clears the mark, so the next sleep may jump.
//!
//! If (1) fails for a hold, the driver sleeps for real until a wake (the
//! job's end unparks it); if it fails for want of a timer, it sleeps until
//! an event or a wake, as unpaused. This is Tokio's rule
//! (`time::pause`: "If time is paused and the runtime has no work to do,
//! the clock is auto-advanced to the next pending timer"; blocking tasks
//! inhibit it), with the same consequence: ready I/O that wakes a task
//! stops the jump, an idle socket does not.
//!
//! Only the current-thread runtime may pause, as in Tokio: there the one
//! thread that drives the tasks also decides when nothing is left to do,
//! whereas on the multi-thread runtime "idle" is a moving agreement among
//! workers, and a worker advancing the clock would fire timers early under
//! another worker's running task.
//!
//! Unpaused, the clock is `std::time::Instant::now()` and costs one atomic
//! load more. After a pause and a resume, it runs on from where it stopped,
//! not from the real time.
//!
//! Book: Chapter 8, "Writing programs".

use crate::driver::DriverHandle;
use crate::loom::{AtomicBool, AtomicUsize, Mutex, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The clock of one runtime.
pub(crate) struct Clock {
    /// Whether this runtime may pause (current-thread only).
    can_pause: bool,
    /// Set the first time the clock is paused; until then `now` is the
    /// system's clock and takes no lock.
    ever_paused: AtomicBool,
    reading: Mutex<ClockReading>,
    /// Work in flight outside the runtime's tasks that holds a paused
    /// clock still (see [`AutoAdvanceHold`]).
    holds: AtomicUsize,
    /// Something woke the runtime since the clock last considered jumping.
    woken: AtomicBool,
}

struct ClockReading {
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
            reading: Mutex::new(ClockReading {
                base: now,
                unfrozen: Some(now),
            }),
            holds: AtomicUsize::new(0),
            woken: AtomicBool::new(false),
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
        let reading = self.reading.lock();
        match reading.unfrozen {
            Some(started) => reading.base + started.elapsed(),
            None => reading.base,
        }
    }
    // ANCHOR_END: now

    /// True while paused.
    pub(crate) fn is_paused(&self) -> bool {
        self.ever_paused.load(Ordering::Acquire) && self.reading.lock().unfrozen.is_none()
    }

    /// Stops the clock.
    pub(crate) fn pause(&self) -> Result<(), &'static str> {
        if !self.can_pause {
            return Err(
                "`time::pause()` requires the `current_thread` Tokio runtime. \
                 This is the default Runtime used by `#[tokio::test]` \
                 (here: Builder::new_current_thread, the default of #[rt::test]).",
            );
        }
        let mut reading = self.reading.lock();
        let Some(started) = reading.unfrozen.take() else {
            return Err("time::pause(): time is already frozen (paused)");
        };
        reading.base += started.elapsed();
        self.ever_paused.store(true, Ordering::Release);
        Ok(())
    }

    /// Starts the clock again, from where it stopped.
    pub(crate) fn resume(&self) -> Result<(), &'static str> {
        let mut reading = self.reading.lock();
        if reading.unfrozen.is_some() {
            return Err("time::resume(): time is not frozen (not paused)");
        }
        reading.unfrozen = Some(Instant::now());
        Ok(())
    }

    /// Moves a paused clock forward by `duration`.
    pub(crate) fn advance(&self, duration: Duration) -> Result<(), &'static str> {
        let mut reading = self.reading.lock();
        if reading.unfrozen.is_some() {
            return Err("time::advance(): time is not frozen (not paused)");
        }
        // Checked, so that a duration too long for `Instant` (Tokio:
        // "such as `Duration::MAX`") panics in the caller with a message,
        // not inside this lock.
        reading.base = reading.base.checked_add(duration).ok_or(
            "overflow when adding duration to instant \
                 (time::advance: the duration is too large for the clock)",
        )?;
        Ok(())
    }

    /// Something woke the runtime (a task scheduled, the driver unparked):
    /// the next sleep must not jump the clock without looking again.
    pub(crate) fn note_wake(&self) {
        self.woken.store(true, Ordering::Release);
    }

    // ANCHOR: auto_advance_rule
    /// The driver would sleep for `wait` (until the next timer; `None`: no
    /// timer). Steps 1 and 2 of the rule: may it try to jump instead?
    pub(crate) fn plan_park(&self, wait: Option<Duration>) -> ParkPlan {
        match wait {
            Some(wait)
                if !wait.is_zero()
                    && self.holds.load(Ordering::Acquire) == 0
                    && self.is_paused() =>
            {
                ParkPlan::TurnThenJump(wait)
            }
            wait => ParkPlan::Wait(wait),
        }
    }

    /// Step 3, after the driver's turn without waiting: jump by `by` unless
    /// a wake came since the clock last looked (the look clears it). True
    /// if it jumped.
    pub(crate) fn jump_unless_woken(&self, by: Duration) -> bool {
        if self.woken.swap(false, Ordering::AcqRel) {
            return false;
        }
        self.advance(by).is_ok()
    }
    // ANCHOR_END: auto_advance_rule

    /// Work outside the runtime's tasks starts: hold a paused clock still
    /// until the returned hold is released or dropped.
    pub(crate) fn hold(driver: &Arc<DriverHandle>) -> AutoAdvanceHold {
        driver.time.clock().holds.fetch_add(1, Ordering::AcqRel);
        AutoAdvanceHold {
            driver: driver.clone(),
            released: AtomicBool::new(false),
        }
    }
}

/// What the driver does instead of sleeping for the time to its next
/// timer: [`Clock::plan_park`]'s answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ParkPlan {
    /// Sleep for real, at most this long (`None`: until an event or a
    /// wake).
    Wait(Option<Duration>),
    /// Turn the I/O without waiting, then [`Clock::jump_unless_woken`] by
    /// this much.
    TurnThenJump(Duration),
}

/// A paused clock held still by work in flight outside the runtime's tasks
/// (a blocking job of a current-thread runtime). Released once, by
/// [`release`](Self::release) when the work's task completes or by drop,
/// whichever is first; the release wakes the driver, which may then jump.
pub(crate) struct AutoAdvanceHold {
    driver: Arc<DriverHandle>,
    released: AtomicBool,
}

impl AutoAdvanceHold {
    pub(crate) fn release(&self) {
        if !self.released.swap(true, Ordering::AcqRel) {
            self.driver
                .time
                .clock()
                .holds
                .fetch_sub(1, Ordering::AcqRel);
            self.driver.unpark();
        }
    }
}

impl Drop for AutoAdvanceHold {
    fn drop(&mut self) {
        self.release();
    }
}
