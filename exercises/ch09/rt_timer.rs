//! Exercise ch09_rt_timer: hyper's `Timer`, on `rt`'s timing wheel.
//!
//! hyper owns no clock either. Every timeout it keeps (the header-read
//! timeout of HTTP/1, the keep-alive pings of HTTP/2) it asks of a
//! `hyper::rt::Timer` (the capstone, "Serving HTTP on the runtime we
//! built", "The adapter, whole"), and the timer hands back boxed futures of
//! hyper's `Sleep` trait. [`RtTimer`] is that timer for `rt`, and
//! [`RtSleep`] wraps one `rt::time::Sleep`, a timer in our wheel. Write
//! `RtSleep`'s `poll` and the four methods of `impl Timer for RtTimer`.
//!
//! hyper's deadlines are `std::time::Instant`s; `rt::time::Instant` converts
//! from and to one (`From`/`Into`, `from_std`, `into_std`). The two clocks
//! differ in one place: `rt::time::Instant::now()` reads the *runtime's*
//! clock, which a test may pause and move forward (Chapter 8, "The paused
//! clock"); after `rt::time::advance` of an hour it is an hour ahead of the
//! wall clock. hyper computes a deadline as `timer.now() + timeout` and
//! then sleeps until it, so `now` must read the same clock the sleeps run
//! on. `Timer::now` has a default, `std::time::Instant::now()`: on a paused
//! runtime that is the wrong clock.
//!
//! The rules the tests check, on a current-thread runtime whose clock is
//! paused (so times are exact and nothing waits for real):
//!
//! * **`RtSleep::poll`** is the inner `rt::time::Sleep`'s poll.
//! * **`sleep(d)`** completes once `d` has passed on the runtime's clock,
//!   not before; **`sleep_until(t)`** once the runtime's clock reaches `t`.
//! * **`now()`** is the runtime's clock, as a `std::time::Instant`.
//! * **`reset(sleep, t)`** makes `sleep` complete at `t` instead, earlier or
//!   later, even if it has already completed. When `sleep` is one of ours
//!   (`sleep.as_mut().downcast_mut_pin::<RtSleep>()` says so), move it in
//!   place: `rt::time::Sleep::reset` moves its timer in the wheel, with no
//!   new allocation (hyper resets the same header-read sleep for every
//!   request of a keep-alive connection). A `Sleep` from some other timer
//!   cannot be moved; replace it with one of ours at `t`.
//!
//! Then the tests run hyper's HTTP/1.1 server with a header-read timeout of
//! an hour, on your timer, and a client that sends half a request and
//! waits: the paused clock jumps the hour, and hyper must cut it off.
//!
//! Check: `cargo run -p exercises -- check ch09_rt_timer`. Hint:
//! `cargo run -p exercises -- hint ch09_rt_timer`.

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
        todo!("poll the inner rt::time::Sleep")
    }
}

impl Sleep for RtSleep {}

impl Timer for RtTimer {
    fn sleep(&self, duration: Duration) -> Pin<Box<dyn Sleep>> {
        todo!("an RtSleep of rt::time::sleep, boxed and pinned")
    }

    fn sleep_until(&self, deadline: Instant) -> Pin<Box<dyn Sleep>> {
        todo!("an RtSleep of rt::time::sleep_until, boxed and pinned")
    }

    fn now(&self) -> Instant {
        todo!("the runtime's clock, as a std::time::Instant")
    }

    fn reset(&self, sleep: &mut Pin<Box<dyn Sleep>>, new_deadline: Instant) {
        todo!("ours: move it in place; another timer's: replace it")
    }
}
