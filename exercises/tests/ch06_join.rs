//! Tests for exercise ch06_join (`exercises/ch06/join.rs`).

#[cfg_attr(not(feature = "solutions"), path = "../ch06/join.rs")]
#[cfg_attr(feature = "solutions", path = "../solutions/ch06/join.rs")]
#[allow(dead_code, unused_variables, unused_imports)]
mod join;

mod ch06_join {
    use super::join::join;
    use std::cell::Cell;
    use std::future::Future;
    use std::pin::{Pin, pin};
    use std::rc::Rc;
    use std::task::{Context, Poll, Waker};

    /// Pending `n` times (waking itself), then ready with `value`; panics if
    /// polled after that; counts its polls.
    struct Countdown {
        left: u32,
        value: &'static str,
        polls: Rc<Cell<u32>>,
        finished: bool,
    }

    impl Future for Countdown {
        type Output = &'static str;
        fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<&'static str> {
            assert!(!self.finished, "{} polled after it finished", self.value);
            self.polls.set(self.polls.get() + 1);
            if self.left == 0 {
                self.finished = true;
                Poll::Ready(self.value)
            } else {
                self.left -= 1;
                cx.waker().wake_by_ref();
                Poll::Pending
            }
        }
    }

    fn countdown(left: u32, value: &'static str) -> (Countdown, Rc<Cell<u32>>) {
        let polls = Rc::new(Cell::new(0));
        (
            Countdown {
                left,
                value,
                polls: Rc::clone(&polls),
                finished: false,
            },
            polls,
        )
    }

    fn run<F: Future>(future: F) -> (F::Output, u32) {
        let mut future = pin!(future);
        let mut cx = Context::from_waker(Waker::noop());
        let mut polls = 0;
        loop {
            polls += 1;
            if let Poll::Ready(out) = future.as_mut().poll(&mut cx) {
                return (out, polls);
            }
            assert!(polls < 1000, "never finished");
        }
    }

    #[test]
    fn both_outputs_come_back_in_order() {
        let (a, _) = countdown(2, "a");
        let (b, _) = countdown(5, "b");
        let ((x, y), polls) = run(join(a, b));
        assert_eq!((x, y), ("a", "b"));
        assert_eq!(polls, 6, "ready on the poll where the slower one is");
    }

    #[test]
    fn a_finished_future_is_never_polled_again() {
        let (a, a_polls) = countdown(0, "quick");
        let (b, b_polls) = countdown(10, "slow");
        run(join(a, b));
        assert_eq!(a_polls.get(), 1);
        assert_eq!(b_polls.get(), 11);
        // The other way round.
        let (a, a_polls) = countdown(7, "slow");
        let (b, b_polls) = countdown(1, "quick");
        assert_eq!(run(join(a, b)).0, ("slow", "quick"));
        assert_eq!(a_polls.get(), 8);
        assert_eq!(b_polls.get(), 2);
    }

    #[test]
    fn both_ready_at_once_is_ready_at_once() {
        let ((x, y), polls) = run(join(async { 1 }, async { "two" }));
        assert_eq!((x, y), (1, "two"));
        assert_eq!(polls, 1);
    }

    #[test]
    fn joins_nest() {
        let ((a, (b, c)), _) = run(join(
            countdown(3, "a").0,
            join(countdown(1, "b").0, countdown(2, "c").0),
        ));
        assert_eq!((a, b, c), ("a", "b", "c"));
    }
}
