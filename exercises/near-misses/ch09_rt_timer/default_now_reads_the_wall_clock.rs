//! Near miss of ch09_rt_timer: `now` is left to hyper's trait default,
//! `std::time::Instant::now()`, the wall clock, so on a paused runtime that
//! has moved an hour it is an hour behind the clock every sleep runs on; the
//! tests must catch it because hyper computes its deadlines as
//! `timer.now() + timeout`.

use hyper::rt::{Sleep, Timer};
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

/// hyper's timer: sleeps in `rt`'s timing wheel.
#[derive(Clone, Copy, Debug, Default)]
pub struct RtTimer;

/// One of `rt`'s sleeps, as hyper's `Sleep`. (`rt::time::Sleep` is `Send`,
/// `Sync` and `Unpin`, as hyper's `Sleep` and a plain `Pin::new` need.)
#[derive(Debug)]
pub struct RtSleep(pub rt::time::Sleep);

impl Future for RtSleep {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        Pin::new(&mut self.0).poll(cx)
    }
}

impl Sleep for RtSleep {}

impl Timer for RtTimer {
    fn sleep(&self, duration: Duration) -> Pin<Box<dyn Sleep>> {
        Box::pin(RtSleep(rt::time::sleep(duration)))
    }

    fn sleep_until(&self, deadline: Instant) -> Pin<Box<dyn Sleep>> {
        Box::pin(RtSleep(rt::time::sleep_until(deadline.into())))
    }

    // MISTAKE: no `now`; hyper's default reads the wall clock.

    fn reset(&self, sleep: &mut Pin<Box<dyn Sleep>>, new_deadline: Instant) {
        // Move the timer we already have when it is ours; otherwise replace it.
        match sleep.as_mut().downcast_mut_pin::<RtSleep>() {
            Some(mut ours) => Pin::new(&mut ours.0).reset(new_deadline.into()),
            None => *sleep = self.sleep_until(new_deadline),
        }
    }
}
