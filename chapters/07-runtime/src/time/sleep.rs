//! The timer futures: [`Sleep`], [`Timeout`] and [`Interval`].
//!
//! A `Sleep` is lazy: creating one does nothing. Its first poll registers it
//! in the wheel of the current runtime (or finds its deadline passed, and is
//! ready at once); later polls ask the wheel whether it fired; dropping it
//! removes it from the wheel, so a timeout that did not expire costs an
//! insert and a removal, both O(1). Each poll spends a unit of the task's
//! cooperative budget.
//!
//! Book: Chapter 7, "The timing wheel".

use super::driver::Registered;
use super::wheel::TimerKey;
use crate::runtime::context;
use crate::scheduler::Handle;
use crate::task::coop;
use std::error::Error;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, ready};
use std::time::{Duration, Instant};

/// Waits until `duration` has passed.
///
/// # Panics
///
/// When polled outside a runtime.
pub fn sleep(duration: Duration) -> Sleep {
    sleep_until(Instant::now() + duration)
}

/// Waits until `deadline`.
///
/// # Panics
///
/// When polled outside a runtime.
pub fn sleep_until(deadline: Instant) -> Sleep {
    Sleep {
        deadline,
        registered: None,
        done: false,
    }
}

/// The future of [`sleep`] and [`sleep_until`].
#[must_use = "a Sleep does nothing unless awaited"]
pub struct Sleep {
    deadline: Instant,
    registered: Option<(Arc<Handle>, TimerKey)>,
    done: bool,
}

impl Sleep {
    /// When it completes.
    pub fn deadline(&self) -> Instant {
        self.deadline
    }

    /// True once it has completed.
    pub fn is_elapsed(&self) -> bool {
        self.done || Instant::now() >= self.deadline
    }

    /// Moves the deadline (as for the next tick of an interval).
    pub fn reset(&mut self, deadline: Instant) {
        self.cancel();
        self.deadline = deadline;
        self.done = false;
    }

    fn cancel(&mut self) {
        if let Some((handle, key)) = self.registered.take() {
            handle.driver.time.cancel(key);
        }
    }

    // ANCHOR: poll_elapsed
    fn poll_elapsed(&mut self, cx: &mut Context<'_>) -> Poll<()> {
        if self.done {
            return Poll::Ready(());
        }
        let budget = ready!(coop::poll_proceed(cx));
        let result = match &self.registered {
            Some((handle, key)) => handle.driver.time.poll(*key, cx.waker()),
            None => {
                let handle = context::with_current(|handle| handle.cloned())
                    .expect("rt::time::sleep polled outside of a runtime");
                let (registered, wake_driver) =
                    handle.driver.time.register(self.deadline, cx.waker());
                if wake_driver {
                    // The worker in epoll_wait sleeps past this deadline.
                    handle.driver.unpark();
                }
                match registered {
                    Registered::Pending(key) => {
                        self.registered = Some((handle, key));
                        Poll::Pending
                    }
                    Registered::Expired => Poll::Ready(()),
                }
            }
        };
        if result.is_ready() {
            budget.made_progress();
            // The wheel freed the entry when it reported it fired.
            self.registered = None;
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

impl fmt::Debug for Sleep {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Sleep")
            .field("deadline", &self.deadline)
            .finish()
    }
}

/// Runs `future` with a time limit: its output, or [`Elapsed`] if `duration`
/// passes first (the future is then dropped, which cancels it).
pub fn timeout<F: Future>(duration: Duration, future: F) -> Timeout<F> {
    Timeout {
        future: Box::pin(future),
        sleep: sleep(duration),
    }
}

/// The future of [`timeout`].
#[must_use = "a Timeout does nothing unless awaited"]
pub struct Timeout<F> {
    future: Pin<Box<F>>,
    sleep: Sleep,
}

/// The time limit of a [`timeout`] passed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Elapsed;

impl fmt::Display for Elapsed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("deadline has elapsed")
    }
}

impl Error for Elapsed {}

impl<F: Future> Future for Timeout<F> {
    type Output = Result<F::Output, Elapsed>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        // The work first: a future ready at the deadline still wins.
        if let Poll::Ready(output) = self.future.as_mut().poll(cx) {
            return Poll::Ready(Ok(output));
        }
        // The timer is checked even when the budget is spent, so that a
        // future starved by the budget still times out (Tokio does the same).
        let sleep = &mut self.sleep;
        let expired = coop::with_budget(None, || sleep.poll_elapsed(cx)).is_ready();
        if expired {
            Poll::Ready(Err(Elapsed))
        } else {
            Poll::Pending
        }
    }
}

/// Ticks every `period`, starting now: the first `tick()` completes at once.
///
/// # Panics
///
/// If `period` is zero.
pub fn interval(period: Duration) -> Interval {
    interval_at(Instant::now(), period)
}

/// Ticks every `period`, starting at `start`.
///
/// # Panics
///
/// If `period` is zero.
pub fn interval_at(start: Instant, period: Duration) -> Interval {
    assert!(
        period > Duration::ZERO,
        "an interval's period must be non-zero"
    );
    Interval {
        sleep: sleep_until(start),
        period,
    }
}

/// The stream of ticks of [`interval`].
///
/// If a tick is late (the task was busy), the ticks missed are not made up
/// in a burst: the next deadline is the next multiple of the period after
/// now (Tokio calls this `MissedTickBehavior::Skip`).
#[derive(Debug)]
pub struct Interval {
    sleep: Sleep,
    period: Duration,
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
        let now = Instant::now();
        let mut next = scheduled + self.period;
        if next <= now {
            // Skip the missed ticks: the first tick of the schedule after
            // now (computed in u128 nanoseconds, so no count of missed ticks
            // can overflow).
            let into = now.duration_since(scheduled).as_nanos() % self.period.as_nanos();
            next = now + (self.period - Duration::from_nanos(into as u64));
        }
        self.sleep.reset(next);
        Poll::Ready(scheduled)
    }
    // ANCHOR_END: poll_tick

    /// The period.
    pub fn period(&self) -> Duration {
        self.period
    }
}
