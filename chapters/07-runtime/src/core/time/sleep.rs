//! The timer futures: [`Sleep`], [`Timeout`] and [`Interval`].
//!
//! A `Sleep` belongs to the runtime that is current where it is created (as
//! in Tokio, creating one outside a runtime panics, at the caller's line).
//! Creating it costs nothing more: its first poll registers it in that
//! runtime's wheel (or finds its deadline passed, and is ready at once);
//! later polls ask the wheel whether it fired; dropping it removes it from
//! the wheel, so a timeout that did not expire costs an insert and a
//! removal, both O(1). A poll needs a unit of the task's cooperative
//! budget (with none left it returns `Pending`) and keeps it only when the
//! sleep is ready, as Tokio's does; a `Timeout` polls its sleep with the
//! budget unconstrained (see its `poll` for how Tokio's differs).
//!
//! Far-future durations follow Tokio's rules, so that nothing overflows:
//! a `sleep`'s duration, an interval's period and `reset_after`'s delay
//! are capped at about thirty years ("roughly 30 years from now"), so
//! `sleep(Duration::MAX)` completes thirty years on (at once, under a
//! paused clock that auto-advances); a `timeout`'s duration is not capped,
//! and one too long to add to now (`Duration::MAX`) sets no timer at all:
//! that timeout never elapses.
//!
//! Polling a timer whose runtime has shut down panics with a message that
//! says so: the wheel will never turn again.
//!
//! Book: Chapter 7, "The timing wheel".

use super::Instant;
use super::driver::{Registered, SHUTDOWN_PANIC};
use super::wheel::TimerKey;
use crate::driver;
use crate::runtime::context;
use crate::task::coop;
use std::error::Error;
use std::fmt;
use std::future::{Future, IntoFuture};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, ready};
use std::time::Duration;

/// About thirty years: the longest a sleep, an interval's period or an
/// interval's `reset_after` may be (Tokio's `safe_delay`).
const FAR_FUTURE: Duration = Duration::from_secs(86_400 * 365 * 30);

/// `duration`, capped at [`FAR_FUTURE`] so that adding it to now cannot
/// overflow.
fn safe_delay(duration: Duration) -> Duration {
    duration.min(FAR_FUTURE)
}

/// Now, on the driver's clock.
fn now_on(driver: &driver::DriverHandle) -> Instant {
    Instant::from_std(driver.time.now())
}

/// The driver of the current runtime.
#[track_caller]
fn current_driver(what: &str) -> Arc<driver::DriverHandle> {
    match context::with_current(|handle| handle.map(|scheduler| scheduler.driver().clone())) {
        Some(driver) => driver,
        // Tokio's words first, which programs' tests match.
        None => panic!(
            "{} (rt::time::{what} called outside of a runtime: create timers in a task, \
             inside block_on(async {{ ... }}), or under Handle::enter)",
            crate::runtime::NO_RUNTIME
        ),
    }
}

/// Waits until `duration` has passed. As in Tokio, the duration is capped
/// at about thirty years: `sleep(Duration::MAX)` does not overflow, and its
/// deadline is thirty years from now.
///
/// Cancel safety: dropping it loses nothing; a new `sleep` starts afresh.
///
/// # Panics
///
/// If called outside a runtime; when polled after its runtime shut down.
#[track_caller]
pub fn sleep(duration: Duration) -> Sleep {
    let driver = current_driver("sleep");
    Sleep::new(now_on(&driver) + safe_delay(duration), driver)
}

/// Waits until `deadline`.
///
/// # Panics
///
/// If called outside a runtime; when polled after its runtime shut down.
#[track_caller]
pub fn sleep_until(deadline: Instant) -> Sleep {
    Sleep::new(deadline, current_driver("sleep_until"))
}

/// The future of [`sleep`] and [`sleep_until`].
#[must_use = "a Sleep does nothing unless awaited"]
pub struct Sleep {
    deadline: Instant,
    /// The runtime's driver, whose wheel holds the timer.
    driver: Arc<driver::DriverHandle>,
    /// The timer in the wheel, once registered.
    key: Option<TimerKey>,
    done: bool,
}

impl Sleep {
    fn new(deadline: Instant, driver: Arc<driver::DriverHandle>) -> Sleep {
        Sleep {
            deadline,
            driver,
            key: None,
            done: false,
        }
    }

    /// When it completes.
    pub fn deadline(&self) -> Instant {
        self.deadline
    }

    /// True once the timer has fired: it returned `Ready`, or the wheel
    /// fired it since it was registered. As in Tokio, a sleep that was never
    /// polled is not registered anywhere, so it is not elapsed, even past
    /// its deadline.
    pub fn is_elapsed(&self) -> bool {
        self.done || self.key.is_some_and(|key| self.driver.time.fired(key))
    }

    /// Moves the deadline, whether or not the sleep has completed: it is
    /// pending again until `deadline` (as for the next tick of an interval).
    /// A task already waiting on it is woken at the new deadline.
    /// Takes `Pin<&mut Self>` as Tokio's does (a pinned `sleep` in a
    /// `select!` loop: `sleep.as_mut().reset(deadline)`); ours is `Unpin`,
    /// so `Pin::new(&mut sleep)` works too.
    pub fn reset(self: Pin<&mut Self>, deadline: Instant) {
        self.get_mut().reset_to(deadline);
    }

    fn reset_to(&mut self, deadline: Instant) {
        self.deadline = deadline;
        self.done = false;
        // A task may be waiting on the timer already: it goes on waiting,
        // for the new deadline (Tokio's reset re-registers the timer with
        // that task's waker). Dropping the entry instead would strand a
        // waiter that is not the one resetting (a sleep shared behind a
        // lock), which no poll would ever register again.
        if let Some(key) = self.key.take() {
            let (key, wake_driver) = self.driver.time.reset(key, deadline.into_std());
            if wake_driver {
                self.driver.unpark();
            }
            self.key = key;
        }
    }

    /// Now, on this timer's runtime's clock.
    fn now(&self) -> Instant {
        Instant::from_std(self.driver.time.now())
    }

    fn cancel(&mut self) {
        if let Some(key) = self.key.take() {
            self.driver.time.cancel(key);
        }
    }

    // ANCHOR: poll_elapsed
    fn poll_elapsed(&mut self, cx: &mut Context<'_>) -> Poll<()> {
        if self.done {
            return Poll::Ready(());
        }
        let budget = ready!(coop::poll_proceed(cx));
        let time = &self.driver.time;
        let result = match self.key {
            Some(key) => match time.poll(key, cx.waker()) {
                Ok(poll) => poll,
                Err(_) => panic!("{SHUTDOWN_PANIC}"),
            },
            None => {
                let (registered, wake_driver) = time.register(self.deadline.into_std(), cx.waker());
                if wake_driver {
                    // The worker in epoll_wait sleeps past this deadline.
                    self.driver.unpark();
                }
                match registered {
                    Registered::Pending(key) => {
                        self.key = Some(key);
                        Poll::Pending
                    }
                    Registered::Expired => Poll::Ready(()),
                    Registered::Shutdown => panic!("{SHUTDOWN_PANIC}"),
                }
            }
        };
        if result.is_ready() {
            budget.made_progress();
            // The wheel freed the entry when it reported it fired.
            self.key = None;
            self.done = true;
        }
        result
    }
    // ANCHOR_END: poll_elapsed
}

impl Future for Sleep {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        self.poll_elapsed(cx)
    }
}

impl Drop for Sleep {
    fn drop(&mut self) {
        self.cancel();
    }
}

impl futures::future::FusedFuture for Sleep {
    fn is_terminated(&self) -> bool {
        self.done
    }
}

impl fmt::Debug for Sleep {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Sleep")
            .field("deadline", &self.deadline)
            .finish()
    }
}

/// Runs `future` with a time limit: its output, or [`Elapsed`] if `duration`
/// passes first (the future is then dropped, which cancels it). As in
/// Tokio, the duration is not capped (unlike a sleep's), and one too long
/// to add to now (such as `Duration::MAX`) sets no timer: that timeout
/// never expires.
///
/// # Panics
///
/// If called outside a runtime; when polled after its runtime shut down.
#[track_caller]
pub fn timeout<F: IntoFuture>(duration: Duration, future: F) -> Timeout<F::IntoFuture> {
    let driver = current_driver("timeout");
    let deadline = now_on(&driver).checked_add(duration);
    Timeout {
        future: Box::pin(future.into_future()),
        sleep: deadline.map(|deadline| Sleep::new(deadline, driver)),
    }
}

/// Runs `future` until `deadline`: its output, or [`Elapsed`] if the
/// deadline passes first (the future is then dropped, which cancels it).
///
/// # Panics
///
/// If called outside a runtime; when polled after its runtime shut down.
#[track_caller]
pub fn timeout_at<F: IntoFuture>(deadline: Instant, future: F) -> Timeout<F::IntoFuture> {
    Timeout {
        future: Box::pin(future.into_future()),
        sleep: Some(Sleep::new(deadline, current_driver("timeout_at"))),
    }
}

/// The future of [`timeout`]. Ours keeps the inner future in a `Box`, so
/// a `Timeout` is `Unpin` whatever it wraps.
#[must_use = "a Timeout does nothing unless awaited"]
pub struct Timeout<F> {
    future: Pin<Box<F>>,
    /// The time limit; `None` for a duration too long to add to now, which
    /// never expires.
    sleep: Option<Sleep>,
}

impl<F> Timeout<F> {
    /// The future it runs.
    pub fn get_ref(&self) -> &F {
        &self.future
    }

    /// The future it runs, mutably. Ours needs `F: Unpin` for this (the
    /// future is pinned in its box); Tokio's does not.
    pub fn get_mut(&mut self) -> &mut F
    where
        F: Unpin,
    {
        self.future.as_mut().get_mut()
    }

    /// The future it runs, without the time limit. Ours needs `F: Unpin`
    /// (the future is pinned in its box); Tokio's does not.
    pub fn into_inner(self) -> F
    where
        F: Unpin,
    {
        *Pin::into_inner(self.future)
    }
}

impl<F: fmt::Debug> fmt::Debug for Timeout<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Timeout")
            .field("value", &self.future)
            .field("delay", &self.sleep)
            .finish()
    }
}

/// The time limit of a [`timeout`] passed.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Elapsed;

/// `Elapsed(())`, as Tokio's (a struct with one private unit field)
/// prints.
impl fmt::Debug for Elapsed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Elapsed(())")
    }
}

impl fmt::Display for Elapsed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("deadline has elapsed")
    }
}

impl Error for Elapsed {}

/// A time limit that passed, as an I/O error of kind
/// [`TimedOut`](std::io::ErrorKind::TimedOut), so that `?` can turn one
/// into the other in a function returning `io::Result`.
impl From<Elapsed> for std::io::Error {
    fn from(_elapsed: Elapsed) -> std::io::Error {
        std::io::ErrorKind::TimedOut.into()
    }
}

impl<F: Future> Future for Timeout<F> {
    type Output = Result<F::Output, Elapsed>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        // The work first: a future ready at the deadline still wins.
        if let Poll::Ready(output) = self.future.as_mut().poll(cx) {
            return Poll::Ready(Ok(output));
        }
        // The timer is always polled with the budget unconstrained: it
        // spends no unit and is never refused, so a future that spends the
        // task's budget still times out, in this very poll. Tokio 1.54.1
        // (`tokio/src/time/timeout.rs`, `poll_delay`) does this only when
        // the budget had units left before the inner future was polled and
        // none after; otherwise it polls its `Sleep` under the budget, so
        // a `Timeout` polled with the budget already spent returns
        // `Pending` and reports `Elapsed` on a later poll.
        let Some(sleep) = self.sleep.as_mut() else {
            return Poll::Pending;
        };
        let expired = coop::with_budget(None, || sleep.poll_elapsed(cx)).is_ready();
        if expired {
            Poll::Ready(Err(Elapsed))
        } else {
            Poll::Pending
        }
    }
}

/// Ticks every `period`, starting now: the first `tick()` completes at once.
/// As in Tokio, a period longer than about thirty years is capped there
/// (`period()` reports the capped one).
///
/// # Panics
///
/// If `period` is zero, or if called outside a runtime.
#[track_caller]
pub fn interval(period: Duration) -> Interval {
    assert!(
        period > Duration::ZERO,
        "`period` must be non-zero. (rt::time::interval)"
    );
    Interval {
        sleep: {
            let driver = current_driver("interval");
            Sleep::new(Instant::from_std(driver.time.now()), driver)
        },
        period: safe_delay(period),
        missed_tick_behavior: MissedTickBehavior::default(),
    }
}

/// Ticks every `period`, starting at `start`; a period longer than about
/// thirty years is capped there, as for [`interval`].
///
/// # Panics
///
/// If `period` is zero, or if called outside a runtime.
#[track_caller]
pub fn interval_at(start: Instant, period: Duration) -> Interval {
    assert!(
        period > Duration::ZERO,
        "`period` must be non-zero. (rt::time::interval_at)"
    );
    Interval {
        sleep: Sleep::new(start, current_driver("interval_at")),
        period: safe_delay(period),
        missed_tick_behavior: MissedTickBehavior::default(),
    }
}

/// What an [`Interval`] does with the ticks it missed while its task was
/// busy (a tick more than 5 ms late counts as missed, as in Tokio).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum MissedTickBehavior {
    /// Fire the missed ticks at once, one per `tick()`, until the schedule
    /// has caught up: the ticks keep their original times (the default,
    /// as in Tokio).
    #[default]
    Burst,
    /// Start the schedule again from now: the next tick is one period after
    /// the late one fired.
    Delay,
    /// Drop the missed ticks: the next tick is the first of the original
    /// schedule that is still to come.
    Skip,
}

impl MissedTickBehavior {
    /// The deadline of the tick after one scheduled at `scheduled` that
    /// fired late, at `now`.
    fn next_after_missed(self, scheduled: Instant, now: Instant, period: Duration) -> Instant {
        match self {
            MissedTickBehavior::Burst => scheduled.checked_add(period),
            MissedTickBehavior::Delay => now.checked_add(period),
            MissedTickBehavior::Skip => {
                // The first tick of the schedule after now (in u128
                // nanoseconds, so no count of missed ticks can overflow).
                let into = now.duration_since(scheduled).as_nanos() % period.as_nanos();
                now.checked_add(period - Duration::from_nanos(into as u64))
            }
        }
        .unwrap_or_else(|| now + FAR_FUTURE)
    }
}

/// How late a tick may fire before it counts as missed.
const MISSED_AFTER: Duration = Duration::from_millis(5);

/// The stream of ticks of [`interval`].
///
/// Cancel safety: `tick()` is cancel-safe: dropping it loses no tick.
#[derive(Debug)]
pub struct Interval {
    sleep: Sleep,
    period: Duration,
    missed_tick_behavior: MissedTickBehavior,
}

impl Interval {
    /// Waits for the next tick and returns its scheduled instant.
    pub async fn tick(&mut self) -> Instant {
        std::future::poll_fn(|cx| self.poll_tick(cx)).await
    }

    /// Polls for the next tick.
    // ANCHOR: poll_tick
    pub fn poll_tick(&mut self, cx: &mut Context<'_>) -> Poll<Instant> {
        ready!(self.sleep.poll_elapsed(cx));
        let scheduled = self.sleep.deadline();
        let now = self.sleep.now();
        let next = if now.saturating_duration_since(scheduled) > MISSED_AFTER {
            self.missed_tick_behavior
                .next_after_missed(scheduled, now, self.period)
        } else {
            // On time. A period too long to add means no next tick.
            scheduled
                .checked_add(self.period)
                .unwrap_or_else(|| now + FAR_FUTURE)
        };
        self.sleep.reset_to(next);
        Poll::Ready(scheduled)
    }
    // ANCHOR_END: poll_tick

    /// The period.
    pub fn period(&self) -> Duration {
        self.period
    }

    /// Restarts the schedule: the next tick is one period from now.
    pub fn reset(&mut self) {
        let now = self.sleep.now();
        self.reset_at(now.checked_add(self.period).unwrap_or(now + FAR_FUTURE));
    }

    /// Restarts the schedule: the next tick is now.
    pub fn reset_immediately(&mut self) {
        let now = self.sleep.now();
        self.reset_at(now);
    }

    /// Restarts the schedule: the next tick is `after` from now (capped at
    /// about thirty years, as in Tokio).
    pub fn reset_after(&mut self, after: Duration) {
        let now = self.sleep.now();
        self.reset_at(now + safe_delay(after));
    }

    /// Restarts the schedule: the next tick is at `deadline`.
    pub fn reset_at(&mut self, deadline: Instant) {
        self.sleep.reset_to(deadline);
    }

    /// What it does with missed ticks.
    pub fn missed_tick_behavior(&self) -> MissedTickBehavior {
        self.missed_tick_behavior
    }

    /// Sets what it does with missed ticks.
    pub fn set_missed_tick_behavior(&mut self, behavior: MissedTickBehavior) {
        self.missed_tick_behavior = behavior;
    }
}
