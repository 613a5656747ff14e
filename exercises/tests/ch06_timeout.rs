//! Tests for exercise ch06_timeout (`exercises/ch06/timeout.rs`).

#[cfg_attr(not(feature = "solutions"), path = "../ch06/timeout.rs")]
#[cfg_attr(feature = "solutions", path = "../solutions/ch06/timeout.rs")]
#[allow(dead_code, unused_variables, unused_imports)]
mod timeout;

mod ch06_timeout {
    use super::timeout::{Elapsed, timeout};
    use std::future::Future;
    use std::pin::{Pin, pin};
    use std::task::{Context, Poll, Waker};

    /// Ready with `value` on poll number `ready_on` (1 = the first poll).
    struct After<T: Copy> {
        ready_on: u32,
        polls: u32,
        value: T,
    }

    impl<T: Copy + Unpin> Future for After<T> {
        type Output = T;
        fn poll(mut self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<T> {
            self.polls += 1;
            assert!(self.polls <= self.ready_on, "polled after it was ready");
            if self.polls == self.ready_on {
                Poll::Ready(self.value)
            } else {
                Poll::Pending
            }
        }
    }

    fn after<T: Copy>(ready_on: u32, value: T) -> After<T> {
        After {
            ready_on,
            polls: 0,
            value,
        }
    }

    /// Polls until ready; returns the output and the number of polls.
    fn run<F: Future>(future: F) -> (F::Output, u32) {
        let mut future = pin!(future);
        let mut cx = Context::from_waker(Waker::noop());
        for polls in 1..1000 {
            if let Poll::Ready(out) = future.as_mut().poll(&mut cx) {
                return (out, polls);
            }
        }
        panic!("never finished");
    }

    #[test]
    fn work_that_finishes_first_wins() {
        assert_eq!(run(timeout(after(3, 42), after(10, ()))), (Ok(42), 3));
    }

    #[test]
    fn a_deadline_that_comes_first_wins() {
        assert_eq!(run(timeout(after(10, 42), after(4, ()))), (Err(Elapsed), 4));
    }

    #[test]
    fn work_done_on_the_deadline_is_kept() {
        assert_eq!(
            run(timeout(after(5, "done"), after(5, ()))),
            (Ok("done"), 5)
        );
    }

    /// A deadline that fails the test if it is polled at all.
    struct Untouchable;

    impl Future for Untouchable {
        type Output = ();
        fn poll(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<()> {
            panic!("the deadline was polled although the work was ready");
        }
    }

    #[test]
    fn ready_work_does_not_touch_the_deadline() {
        // Work ready at the first poll is returned without polling the
        // deadline at all.
        let (out, polls) = run(timeout(async { 7 }, Untouchable));
        assert_eq!((out, polls), (Ok(7), 1));
        // Nor when the work is ready at a later poll: it comes back from that
        // poll without the deadline being asked once more.
        let mut deadline_polls = 0;
        let deadline = std::future::poll_fn(|_| {
            deadline_polls += 1;
            Poll::<()>::Pending
        });
        let (out, polls) = run(timeout(after(3, 8), deadline));
        assert_eq!((out, polls), (Ok(8), 3));
        assert_eq!(deadline_polls, 2, "polled only while the work was pending");
    }

    #[test]
    fn timeouts_nest() {
        let inner = timeout(after(6, 1), after(3, ()));
        let outer = timeout(inner, after(100, ()));
        assert_eq!(run(outer), (Ok(Err(Elapsed)), 3));
    }
}
