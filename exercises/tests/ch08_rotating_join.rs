//! Tests for exercise ch08_rotating_join (`exercises/ch08/rotating_join.rs`).

#[cfg_attr(not(feature = "solutions"), path = "../ch08/rotating_join.rs")]
#[cfg_attr(feature = "solutions", path = "../solutions/ch08/rotating_join.rs")]
#[allow(dead_code, unused_variables, unused_imports, unused_mut)]
mod rotating_join;

mod ch08_rotating_join {
    use super::rotating_join::*;
    use std::future::Future;
    use std::pin::Pin;
    use std::sync::{Arc, Mutex};
    use std::task::{Context, Poll, Waker};

    type Log = Arc<Mutex<Vec<&'static str>>>;

    /// Ready with `output` on its `ready_on`-th poll; writes its name in the
    /// log on every poll, and fails the test if polled once it is done.
    struct Step {
        name: &'static str,
        ready_on: usize,
        polls: usize,
        output: u32,
        log: Log,
    }

    impl Future for Step {
        type Output = u32;
        fn poll(mut self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<u32> {
            assert!(
                self.polls < self.ready_on,
                "{} was polled again after it returned Ready",
                self.name
            );
            self.log.lock().unwrap().push(self.name);
            self.polls += 1;
            if self.polls == self.ready_on {
                Poll::Ready(self.output)
            } else {
                Poll::Pending
            }
        }
    }

    fn step(name: &'static str, ready_on: usize, output: u32, log: &Log) -> Step {
        Step {
            name,
            ready_on,
            polls: 0,
            output,
            log: log.clone(),
        }
    }

    /// Polls `join` until it is ready (at most `limit` times), returning the
    /// output and each poll's share of the log.
    fn drive<F: Future>(join: F, log: &Log, limit: usize) -> (F::Output, Vec<Vec<&'static str>>) {
        let mut join = Box::pin(join);
        let mut cx = Context::from_waker(Waker::noop());
        let mut rounds = Vec::new();
        for _ in 0..limit {
            let result = join.as_mut().poll(&mut cx);
            rounds.push(std::mem::take(&mut *log.lock().unwrap()));
            if let Poll::Ready(output) = result {
                return (output, rounds);
            }
        }
        panic!("not ready after {limit} polls; polls so far: {rounds:?}");
    }

    #[test]
    fn both_ready_at_once_gives_both_outputs_in_order() {
        let log = Log::default();
        let ((a, b), rounds) = drive(
            rotating_join(step("a", 1, 10, &log), step("b", 1, 20, &log)),
            &log,
            5,
        );
        assert_eq!((a, b), (10, 20));
        assert_eq!(rounds, vec![vec!["a", "b"]]);
    }

    #[test]
    fn the_first_future_to_be_polled_alternates() {
        let log = Log::default();
        let (out, rounds) = drive(
            rotating_join(step("a", 4, 1, &log), step("b", 4, 2, &log)),
            &log,
            10,
        );
        assert_eq!(out, (1, 2));
        assert_eq!(
            rounds,
            vec![
                vec!["a", "b"],
                vec!["b", "a"],
                vec!["a", "b"],
                vec!["b", "a"],
            ]
        );
    }

    #[test]
    fn a_finished_branch_is_not_polled_again() {
        let log = Log::default();
        let ((a, b), rounds) = drive(
            rotating_join(step("a", 1, 7, &log), step("b", 3, 8, &log)),
            &log,
            10,
        );
        assert_eq!((a, b), (7, 8));
        assert_eq!(rounds, vec![vec!["a", "b"], vec!["b"], vec!["b"]]);

        let log = Log::default();
        let ((a, b), rounds) = drive(
            rotating_join(step("a", 5, 3, &log), step("b", 2, 4, &log)),
            &log,
            10,
        );
        assert_eq!((a, b), (3, 4));
        assert_eq!(
            rounds,
            vec![
                vec!["a", "b"],
                vec!["b", "a"],
                vec!["a"],
                vec!["a"],
                vec!["a"],
            ]
        );
    }

    #[test]
    fn the_turn_keeps_flipping_after_one_side_is_done() {
        // b finishes on the second poll (which starts with b); from then on
        // only a is polled, and the outputs still come back as (a, b).
        let log = Log::default();
        let (out, rounds) = drive(
            rotating_join(step("a", 3, 30, &log), step("b", 2, 40, &log)),
            &log,
            10,
        );
        assert_eq!(out, (30, 40));
        assert_eq!(rounds, vec![vec!["a", "b"], vec!["b", "a"], vec!["a"]]);
    }

    #[test]
    fn works_with_async_blocks_and_other_output_types() {
        let log = Log::default();
        let a = async { String::from("left") };
        let b = {
            let log = log.clone();
            async move {
                let n = step("b", 2, 5, &log).await;
                vec![n; 2]
            }
        };
        let ((a, b), rounds) = drive(rotating_join(a, b), &log, 10);
        assert_eq!(a, "left");
        assert_eq!(b, vec![5, 5]);
        assert_eq!(rounds, vec![vec!["b"], vec!["b"]]);
    }
}
