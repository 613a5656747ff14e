//! The runtime's clock and its wheel, as every thread reaches them.
//!
//! Timers are registered from any thread (a task on any worker creates a
//! `Sleep`), and fired by whichever worker holds the driver: one wheel
//! behind one mutex, as in Tokio 1.54.1 (`runtime/time/mod.rs`, its
//! `Inner::Traditional`; builds with `tokio_unstable` may choose the
//! alternative in `runtime/time_alt/`). The clock is milliseconds
//! since the runtime started; a deadline is rounded *up* to the next
//! millisecond, so a timer never fires early.
//!
//! The worker that parks in the driver sleeps until the next timer is due
//! (`park_timeout`) and records that instant. A timer registered later with
//! an earlier deadline must wake it early: the registering thread sees the
//! recorded instant under the wheel's lock and unparks the driver. While no
//! worker is parked on a timer the recorded instant is 0 and nobody is
//! woken: a running worker processes timers at its next maintenance tick.
//!
//! At shutdown every waiting timer is woken, and from then on polling a
//! timer panics with a message that says why: nothing will ever turn this
//! wheel again, so a timer that waited would wait for ever.
//!
//! Book: Chapter 7, "The timing wheel".

use super::clock::Clock;
use super::wheel::{TimerKey, TimerState, Wheel};
use crate::loom::{AtomicBool, AtomicU64, Mutex, Ordering};
use std::task::{Poll, Waker};
use std::time::{Duration, Instant};

/// The clock and the wheel.
pub(crate) struct TimeHandle {
    /// The runtime's clock (the system's, unless a test paused it).
    clock: Clock,
    /// The wheel's millisecond 0, on that clock.
    start: Instant,
    wheel: Mutex<Wheel>,
    /// The millisecond at which the worker parked in the driver will wake
    /// on its own (u64::MAX: never); 0 when no worker is parked on a timer.
    parked_until: AtomicU64,
    /// The runtime has shut down: timers can no longer fire.
    is_shutdown: AtomicBool,
}

/// The panic of a timer polled after its runtime shut down (Tokio panics
/// too, rather than let the task wait for ever).
pub(crate) const SHUTDOWN_PANIC: &str = "rt: a timer (sleep, timeout or interval) was polled after its runtime shut down: \
     the runtime is being shut down or is gone, so the timer can never fire";

/// The runtime of a timer has shut down.
#[derive(Debug)]
pub(crate) struct Shutdown;

/// What registering a timer found.
pub(crate) enum Registered {
    /// In the wheel.
    Pending(TimerKey),
    /// Its deadline has passed already.
    Expired,
    /// The runtime has shut down.
    Shutdown,
}

impl TimeHandle {
    pub(crate) fn new(clock: Clock) -> TimeHandle {
        TimeHandle {
            start: clock.now(),
            clock,
            wheel: Mutex::new(Wheel::new()),
            parked_until: AtomicU64::new(0),
            is_shutdown: AtomicBool::new(false),
        }
    }

    /// True once the runtime has shut down.
    pub(crate) fn is_shutdown(&self) -> bool {
        self.is_shutdown.load(Ordering::Acquire)
    }

    /// The runtime shuts down: wake every waiting timer's task, so that its
    /// next poll finds out (and panics) instead of waiting for ever.
    pub(crate) fn shutdown(&self) {
        let mut woken = Vec::new();
        {
            let mut wheel = self.wheel.lock();
            // Under the wheel's lock: a registration either happened before
            // (and is woken here) or sees the flag.
            self.is_shutdown.store(true, Ordering::Release);
            wheel.take_all_wakers(&mut woken);
        }
        woken.into_iter().for_each(Waker::wake);
    }

    /// Now, on the runtime's clock.
    pub(crate) fn now(&self) -> Instant {
        self.clock.now()
    }

    /// The clock, for `time::pause`, `resume` and `advance`.
    pub(crate) fn clock(&self) -> &Clock {
        &self.clock
    }

    /// Milliseconds since start, rounded down (the time that has passed).
    fn now_ms(&self) -> u64 {
        self.clock
            .now()
            .saturating_duration_since(self.start)
            .as_millis() as u64
    }

    /// A deadline in milliseconds since start, rounded up.
    // ANCHOR: deadline_ms
    fn deadline_ms(&self, deadline: Instant) -> u64 {
        let since = deadline.saturating_duration_since(self.start);
        let ms = since.as_nanos().div_ceil(1_000_000);
        // Beyond u64::MAX ms (585 million years) saturate, as Tokio's
        // `instant_to_tick` does: a cast would wrap to a short deadline,
        // and the timer would fire early.
        u64::try_from(ms).unwrap_or(u64::MAX)
    }
    // ANCHOR_END: deadline_ms

    /// Registers a timer; returns whether the driver must be woken (the new
    /// deadline is earlier than the one the parked worker sleeps until).
    // ANCHOR: register
    pub(crate) fn register(&self, deadline: Instant, waker: &Waker) -> (Registered, bool) {
        if self.is_shutdown() {
            return (Registered::Shutdown, false);
        }
        let ms = self.deadline_ms(deadline);
        if ms <= self.now_ms() {
            return (Registered::Expired, false);
        }
        let mut wheel = self.wheel.lock();
        if self.is_shutdown() {
            return (Registered::Shutdown, false);
        }
        match wheel.insert(ms, waker.clone()) {
            Some(key) => {
                let wake = ms < self.parked_until.load(Ordering::Acquire);
                (Registered::Pending(key), wake)
            }
            None => (Registered::Expired, false),
        }
    }
    // ANCHOR_END: register

    /// Ready once the timer fired (the entry is then freed); otherwise
    /// stores the waker. `Err` once the runtime has shut down.
    pub(crate) fn poll(&self, key: TimerKey, waker: &Waker) -> Result<Poll<()>, Shutdown> {
        let mut wheel = self.wheel.lock();
        if self.is_shutdown() {
            return Err(Shutdown);
        }
        Ok(match wheel.state(key) {
            Some(TimerState::Pending) => {
                wheel.set_waker(key, waker);
                Poll::Pending
            }
            Some(TimerState::Fired) | None => {
                wheel.remove(key);
                Poll::Ready(())
            }
        })
    }

    /// Whether the timer has fired (or its key is stale), without touching
    /// its waker: `Sleep::is_elapsed`.
    pub(crate) fn fired(&self, key: TimerKey) -> bool {
        self.wheel.lock().state(key) != Some(TimerState::Pending)
    }

    /// Moves a timer to `deadline` (`Sleep::reset`), keeping the task that
    /// waits on it: its waker goes into the new entry, as Tokio's reset
    /// re-registers the timer with it, so that task wakes at the new
    /// deadline without polling again (whoever reset the sleep need not be
    /// the task that waits on it). If the new deadline has passed, or the
    /// runtime has shut down, the task is woken now, to find out at its
    /// next poll. A timer that fired already has no waiter left: it is
    /// removed, and the next poll registers anew. Returns the new entry, if
    /// any, and whether the driver must be woken (as `register`).
    pub(crate) fn reset(&self, key: TimerKey, deadline: Instant) -> (Option<TimerKey>, bool) {
        let waker = {
            let mut wheel = self.wheel.lock();
            let waker = wheel.take_waker(key);
            wheel.remove(key);
            waker
        };
        let Some(waker) = waker else {
            return (None, false);
        };
        match self.register(deadline, &waker) {
            (Registered::Pending(key), wake_driver) => (Some(key), wake_driver),
            (Registered::Expired | Registered::Shutdown, _) => {
                waker.wake();
                (None, false)
            }
        }
    }

    /// Removes a timer (its `Sleep` was dropped): O(1).
    pub(crate) fn cancel(&self, key: TimerKey) {
        self.wheel.lock().remove(key);
    }

    /// Before the driver parks: how long it may sleep (at most `max`), and
    /// remember until when, so earlier timers registered meanwhile wake it.
    pub(crate) fn park_timeout(&self, max: Option<Duration>) -> Option<Duration> {
        let wheel = self.wheel.lock();
        let next = wheel.next_expiration();
        // The exact time left until that millisecond starts (the driver's
        // timer descriptor waits to the microsecond).
        let now = self.clock.now();
        let until_next =
            next.map(|ms| (self.start + Duration::from_millis(ms)).saturating_duration_since(now));
        let timeout = match (until_next, max) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        let until = match timeout {
            Some(Duration::ZERO) => 0,
            Some(timeout) => self.deadline_ms(now + timeout),
            None => u64::MAX,
        };
        self.parked_until.store(until, Ordering::Release);
        drop(wheel);
        timeout
    }

    /// How far a paused clock jumps to reach the next timer: whole
    /// milliseconds, from the current one to the timer's, so the clock keeps
    /// its place within the millisecond (as Tokio's jumps do). `None`: no
    /// timer.
    pub(crate) fn jump_to_next(&self) -> Option<Duration> {
        let next = self.wheel.lock().next_expiration()?;
        Some(Duration::from_millis(next.saturating_sub(self.now_ms())))
    }

    /// Fires every timer that is due, waking their tasks.
    pub(crate) fn process(&self) {
        let mut fired = Vec::new();
        {
            let mut wheel = self.wheel.lock();
            self.parked_until.store(0, Ordering::Release);
            wheel.advance(self.now_ms(), &mut fired);
        }
        for waker in fired {
            waker.wake();
        }
    }

    /// Timers pending now.
    pub(crate) fn pending(&self) -> usize {
        self.wheel.lock().pending()
    }
}

#[cfg(all(test, loom))]
mod loom_timer {
    use super::super::wheel::{TimerState, Wheel};
    use crate::loom::{Arc, Mutex, thread};
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::task::{Wake, Waker};

    struct WakeCount(AtomicUsize);
    impl Wake for WakeCount {
        fn wake(self: std::sync::Arc<Self>) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }

    /// A timer is cancelled (its Sleep dropped) while the driver fires it:
    /// the entry is freed once, the waker woken at most once, and the wheel
    /// is consistent afterwards.
    #[test]
    fn loom_cancel_while_firing() {
        loom::model(|| {
            let wheel = Arc::new(Mutex::new(Wheel::new()));
            let count = std::sync::Arc::new(WakeCount(AtomicUsize::new(0)));
            let key = wheel.lock().insert(5, Waker::from(count.clone())).unwrap();
            let driver = {
                let wheel = wheel.clone();
                thread::spawn(move || {
                    let mut fired = Vec::new();
                    wheel.lock().advance(10, &mut fired);
                    // Woken outside the lock, as the time driver does.
                    fired.into_iter().for_each(Waker::wake);
                })
            };
            wheel.lock().remove(key);
            driver.join().unwrap();
            assert!(count.0.load(Ordering::SeqCst) <= 1);
            let wheel = wheel.lock();
            assert_eq!(wheel.state(key), None);
            assert_eq!(wheel.pending(), 0);
            assert_ne!(wheel.state(key), Some(TimerState::Pending));
        });
    }
}

/// A deadline in whole milliseconds is never before the instant it stands
/// for, whatever the duration, up to the largest an `Instant` can hold.
#[cfg(all(test, not(loom)))]
mod proptests {
    use super::*;
    use proptest::prelude::*;

    fn check(duration: Duration) -> Result<(), TestCaseError> {
        let time = TimeHandle::new(Clock::new(false, false));
        let Some(deadline) = time.start.checked_add(duration) else {
            return Ok(());
        };
        let ms = time.deadline_ms(deadline);
        let nanos = duration.as_nanos();
        let at = u128::from(ms) * 1_000_000;
        // Never early: the millisecond starts at or after the deadline,
        // unless the deadline is beyond the last one, u64::MAX.
        prop_assert!(at >= nanos || ms == u64::MAX, "{:?} -> {} ms", duration, ms);
        // Less than a millisecond late.
        prop_assert!(at < nanos + 1_000_000, "{:?} -> {} ms", duration, ms);
        Ok(())
    }

    proptest! {
        // CI: 1024 cases, about 0.1 s in a debug build.
        // No regression files in the source tree: a failure prints its
        // shrunk case, which becomes a plain unit test.
        #![proptest_config(ProptestConfig {
            failure_persistence: None,
            ..ProptestConfig::with_cases(1024)
        })]
        #[test]
        #[cfg_attr(miri, ignore = "arithmetic only; a thousand cases are slow under Miri")]
        fn a_deadline_in_ms_is_rounded_up_never_wrapped(
            secs in prop_oneof![0u64..10_000, 0u64..(1u64 << 62), (1u64 << 54)..(1u64 << 56)],
            nanos in prop_oneof![Just(0u32), 0u32..1_000_000_000],
        ) {
            check(Duration::new(secs, nanos))?;
        }
    }

    #[test]
    fn a_duration_too_long_for_u64_ms_is_not_wrapped_to_a_short_one() {
        // ceil(2^64 / 1000) s is 2^64 + 384 ms: truncated to u64, 384 ms.
        check(Duration::from_secs(18_446_744_073_709_552)).unwrap();
        check(Duration::ZERO).unwrap();
        check(Duration::from_nanos(1)).unwrap();
    }
}
