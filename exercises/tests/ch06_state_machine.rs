//! Tests for exercise ch06_state_machine (`exercises/ch06/state_machine.rs`).

#[cfg_attr(not(feature = "solutions"), path = "../ch06/state_machine.rs")]
#[cfg_attr(feature = "solutions", path = "../solutions/ch06/state_machine.rs")]
#[allow(dead_code, unused_variables, unused_imports)]
mod state_machine;

mod ch06_state_machine {
    use super::state_machine::{AddBoth, add_both};
    use std::cell::RefCell;
    use std::future::Future;
    use std::pin::{Pin, pin};
    use std::rc::Rc;
    use std::task::{Context, Poll, Waker};

    /// Pending `left` times, then ready with `value`; logs its polls.
    struct Step {
        name: &'static str,
        left: u32,
        value: u32,
        log: Rc<RefCell<Vec<&'static str>>>,
    }

    impl Future for Step {
        type Output = u32;
        fn poll(mut self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<u32> {
            self.log.borrow_mut().push(self.name);
            if self.left == 0 {
                Poll::Ready(self.value)
            } else {
                self.left -= 1;
                Poll::Pending
            }
        }
    }

    fn step(
        name: &'static str,
        left: u32,
        value: u32,
        log: &Rc<RefCell<Vec<&'static str>>>,
    ) -> Step {
        Step {
            name,
            left,
            value,
            log: Rc::clone(log),
        }
    }

    fn poll_once<F: Future>(f: Pin<&mut F>) -> Poll<F::Output> {
        f.poll(&mut Context::from_waker(Waker::noop()))
    }

    #[test]
    fn it_adds_and_awaits_in_order() {
        let log = Rc::default();
        let mut f = pin!(add_both(step("a", 2, 40, &log), step("b", 1, 2, &log)));
        assert_eq!(poll_once(f.as_mut()), Poll::Pending);
        assert_eq!(poll_once(f.as_mut()), Poll::Pending);
        assert_eq!(poll_once(f.as_mut()), Poll::Pending); // a done, b pending
        assert_eq!(poll_once(f.as_mut()), Poll::Ready(42));
        assert_eq!(*log.borrow(), ["a", "a", "a", "b", "b"]);
    }

    #[test]
    fn b_is_not_touched_before_a_is_done() {
        let log = Rc::default();
        let mut f = pin!(add_both(step("a", 3, 1, &log), step("b", 0, 1, &log)));
        for _ in 0..3 {
            assert_eq!(poll_once(f.as_mut()), Poll::Pending);
        }
        assert!(!log.borrow().contains(&"b"));
    }

    #[test]
    fn a_ready_b_goes_on_in_the_same_poll() {
        let log = Rc::default();
        let mut f = pin!(add_both(step("a", 0, 5, &log), step("b", 0, 6, &log)));
        assert_eq!(poll_once(f.as_mut()), Poll::Ready(11));
        assert_eq!(*log.borrow(), ["a", "b"]);
    }

    #[test]
    fn the_states_hold_what_they_should() {
        let log = Rc::default();
        let mut f = add_both(step("a", 0, 9, &log), step("b", 1, 1, &log));
        assert!(matches!(f, AddBoth::AwaitingA { .. }));
        assert_eq!(
            Pin::new(&mut f).poll(&mut Context::from_waker(Waker::noop())),
            Poll::Pending
        );
        assert!(matches!(f, AddBoth::AwaitingB { x: 9, .. }));
        assert_eq!(
            Pin::new(&mut f).poll(&mut Context::from_waker(Waker::noop())),
            Poll::Ready(10)
        );
        assert!(matches!(f, AddBoth::Done));
    }

    #[test]
    #[should_panic(expected = "polled after completion")]
    fn polling_after_completion_panics() {
        let log = Rc::default();
        let mut f = pin!(add_both(step("a", 0, 1, &log), step("b", 0, 1, &log)));
        let _ = poll_once(f.as_mut());
        let _ = poll_once(f.as_mut());
    }
}
