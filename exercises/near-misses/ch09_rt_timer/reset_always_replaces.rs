//! Near miss of ch09_rt_timer: `reset` always boxes a new sleep in place of
//! the old one, even when the old one is ours and could be moved in place;
//! the tests must catch it because hyper resets its timers often, and each
//! reset would then cost an allocation and a fresh timer in the wheel.

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

    fn now(&self) -> Instant {
        // The runtime's clock, which a test may have paused and moved: the
        // one every deadline above is measured against.
        rt::time::Instant::now().into_std()
    }

    fn reset(&self, sleep: &mut Pin<Box<dyn Sleep>>, new_deadline: Instant) {
        // MISTAKE: a new sleep every time, never ours moved in place.
        *sleep = self.sleep_until(new_deadline);
    }
}
