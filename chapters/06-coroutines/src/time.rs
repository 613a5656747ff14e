//! Timers as futures: `sleep` and `timeout`, on the reactor's timer heap.
//!
//! A leaf future is where a task meets the outside world. [`Sleep`] is the
//! simplest: its first poll sets a timer in Chapter 5's event loop whose
//! callback marks the sleep as done and wakes the task; later polls check
//! the mark. If the task changes wakers meanwhile (it moved to another
//! `select`, say), the newest waker is kept. Dropping a `Sleep` cancels its
//! timer.
//!
//! [`Timeout`] races any future against a `Sleep`: poll the future first,
//! then the deadline; whichever is ready first decides. It is how every step
//! of the relay gets its time limit in one line instead of a timer, a
//! cancellation and a step counter.
//!
//! Book: Chapter 6, "Leaf futures on the reactor".

use std::cell::RefCell;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};
use std::time::Duration;

use chapter_05::timers::TimerId;

use crate::executor::with_reactor;

#[derive(Debug, Default)]
struct SleepState {
    fired: bool,
    waker: Option<Waker>,
}

// ANCHOR: sleep
/// Completes after a delay. Made by [`sleep`].
#[derive(Debug)]
pub struct Sleep {
    delay: Duration,
    state: Rc<RefCell<SleepState>>,
    timer: Option<TimerId>,
}

/// A future that completes `delay` from its first poll.
pub fn sleep(delay: Duration) -> Sleep {
    Sleep {
        delay,
        state: Rc::default(),
        timer: None,
    }
}

impl Future for Sleep {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let mut state = self.state.borrow_mut();
        if state.fired {
            return Poll::Ready(());
        }
        // Keep the newest waker: the task may have moved on.
        match &state.waker {
            Some(waker) if waker.will_wake(cx.waker()) => {}
            _ => state.waker = Some(cx.waker().clone()),
        }
        drop(state);
        if self.timer.is_none() {
            let shared = Rc::downgrade(&self.state);
            let delay = self.delay;
            let timer = with_reactor(|ev| {
                ev.set_timeout(delay, move |_| {
                    // The Sleep may be gone: then nobody is waiting.
                    let Some(shared) = shared.upgrade() else {
                        return;
                    };
                    let waker = {
                        let mut state = shared.borrow_mut();
                        state.fired = true;
                        state.waker.take()
                    };
                    if let Some(waker) = waker {
                        waker.wake();
                    }
                })
            })
            .expect("sleep needs an executor with a reactor (Executor::new)");
            self.timer = Some(timer);
        }
        Poll::Pending
    }
}

impl Drop for Sleep {
    fn drop(&mut self) {
        if let Some(timer) = self.timer.take() {
            // If the reactor is busy (we are dropped from one of its
            // callbacks), the timer simply fires into a dead Weak later.
            with_reactor(|ev| ev.cancel_timeout(timer));
        }
    }
}
// ANCHOR_END: sleep

/// The error of a [`Timeout`] whose deadline came first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Elapsed;

impl fmt::Display for Elapsed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("deadline elapsed")
    }
}

impl std::error::Error for Elapsed {}

// ANCHOR: timeout
/// `future`, unless `limit` passes first.
pub struct Timeout<F> {
    future: Pin<Box<F>>,
    deadline: Sleep,
}

/// Runs `future` with a time limit: `Err(Elapsed)` if it is not done in
/// `limit`. The future is dropped then, which cancels whatever it was doing.
pub fn timeout<F: Future>(limit: Duration, future: F) -> Timeout<F> {
    Timeout {
        future: Box::pin(future),
        deadline: sleep(limit),
    }
}

impl<F: Future> Future for Timeout<F> {
    type Output = Result<F::Output, Elapsed>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        if let Poll::Ready(output) = self.future.as_mut().poll(cx) {
            return Poll::Ready(Ok(output));
        }
        match Pin::new(&mut self.deadline).poll(cx) {
            Poll::Ready(()) => Poll::Ready(Err(Elapsed)),
            Poll::Pending => Poll::Pending,
        }
    }
}
// ANCHOR_END: timeout

#[cfg(test)]
mod tests {
    use super::*;
    use crate::executor::{Executor, spawn};
    use std::time::Instant;

    #[test]
    #[cfg_attr(
        miri,
        ignore = "uses the reactor (epoll, sockets), which Miri does not run"
    )]
    fn sleeps_end_in_deadline_order() {
        let ex = Executor::new().unwrap();
        let order = Rc::new(RefCell::new(Vec::new()));
        ex.block_on(async {
            let tasks: Vec<_> = [30u64, 10, 20]
                .into_iter()
                .map(|ms| {
                    let order = Rc::clone(&order);
                    spawn(async move {
                        sleep(Duration::from_millis(ms)).await;
                        order.borrow_mut().push(ms);
                    })
                })
                .collect();
            for task in tasks {
                task.await;
            }
        });
        assert_eq!(*order.borrow(), [10, 20, 30]);
    }

    #[test]
    #[cfg_attr(
        miri,
        ignore = "uses the reactor (epoll, sockets), which Miri does not run"
    )]
    fn a_sleep_never_ends_early() {
        let ex = Executor::new().unwrap();
        let start = Instant::now();
        ex.block_on(sleep(Duration::from_millis(20)));
        assert!(start.elapsed() >= Duration::from_millis(20));
    }

    #[test]
    #[cfg_attr(
        miri,
        ignore = "uses the reactor (epoll, sockets), which Miri does not run"
    )]
    fn timeout_lets_the_faster_side_win_and_cancels_the_other() {
        let ex = Executor::new().unwrap();
        ex.block_on(async {
            let quick = timeout(Duration::from_secs(5), sleep(Duration::from_millis(1))).await;
            assert_eq!(quick, Ok(()));
            let slow = timeout(Duration::from_millis(1), sleep(Duration::from_secs(5))).await;
            assert_eq!(slow, Err(Elapsed));
        });
        // The losing sleeps' timers were cancelled when they were dropped.
        assert_eq!(ex.reactor(|ev| ev.pending_timers()), Some(0));
    }
}
