//! Tests for exercise ch08_select_two (`exercises/ch08/select_two.rs`).

#[cfg_attr(not(feature = "solutions"), path = "../ch08/select_two.rs")]
#[cfg_attr(feature = "solutions", path = "../solutions/ch08/select_two.rs")]
#[allow(dead_code, unused_variables, unused_imports, unused_mut)]
mod select_two;

mod ch08_select_two {
    use super::select_two::*;
    use std::future::Future;
    use std::panic::{AssertUnwindSafe, catch_unwind};
    use std::pin::Pin;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    use std::task::{Context, Poll, Waker};

    /// Ready with `output` on its `ready_on`-th poll; counts its polls,
    /// raises a flag when dropped, and fails the test if polled once done.
    struct Racer {
        ready_on: usize,
        output: u32,
        polls: Arc<AtomicUsize>,
        dropped: Arc<AtomicBool>,
    }

    impl Future for Racer {
        type Output = u32;
        fn poll(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<u32> {
            let polls = self.polls.fetch_add(1, Ordering::SeqCst) + 1;
            assert!(polls <= self.ready_on, "polled after it returned Ready");
            if polls == self.ready_on {
                Poll::Ready(self.output)
            } else {
                Poll::Pending
            }
        }
    }

    impl Drop for Racer {
        fn drop(&mut self) {
            self.dropped.store(true, Ordering::SeqCst);
        }
    }

    struct Probe {
        polls: Arc<AtomicUsize>,
        dropped: Arc<AtomicBool>,
    }

    impl Probe {
        fn polls(&self) -> usize {
            self.polls.load(Ordering::SeqCst)
        }
        fn dropped(&self) -> bool {
            self.dropped.load(Ordering::SeqCst)
        }
    }

    fn racer(ready_on: usize, output: u32) -> (Racer, Probe) {
        let polls = Arc::new(AtomicUsize::new(0));
        let dropped = Arc::new(AtomicBool::new(false));
        let probe = Probe {
            polls: polls.clone(),
            dropped: dropped.clone(),
        };
        (
            Racer {
                ready_on,
                output,
                polls,
                dropped,
            },
            probe,
        )
    }

    fn poll<F: Future + Unpin>(f: &mut F) -> Poll<F::Output> {
        Pin::new(f).poll(&mut Context::from_waker(Waker::noop()))
    }

    #[test]
    fn the_one_ready_first_wins_and_the_loser_is_dropped_at_once() {
        let (a, pa) = racer(3, 1);
        let (b, pb) = racer(2, 2);
        let mut race = select(a, b);
        assert_eq!(poll(&mut race), Poll::Pending);
        assert_eq!((pa.polls(), pb.polls()), (1, 1), "both polled each time");
        assert!(!pa.dropped() && !pb.dropped());
        assert_eq!(poll(&mut race), Poll::Ready(Either::Right(2)));
        assert!(
            pa.dropped(),
            "the loser must be dropped before select returns"
        );
        assert!(pb.dropped(), "the spent winner is dropped too");
        assert_eq!((pa.polls(), pb.polls()), (2, 2));
        drop(race);
    }

    #[test]
    fn the_left_one_can_win() {
        let (a, pa) = racer(2, 5);
        let (b, pb) = racer(9, 6);
        let mut race = select(a, b);
        assert_eq!(poll(&mut race), Poll::Pending);
        assert_eq!(poll(&mut race), Poll::Ready(Either::Left(5)));
        assert!(
            pb.dropped(),
            "the loser must be dropped before select returns"
        );
        assert!(pa.dropped());
        assert_eq!(pb.polls(), 1, "the loser is not polled in the winning poll");
    }

    #[test]
    fn a_tie_goes_to_the_left_and_the_right_is_not_polled() {
        let (a, pa) = racer(1, 10);
        let (b, pb) = racer(1, 20);
        let mut race = select(a, b);
        assert_eq!(poll(&mut race), Poll::Ready(Either::Left(10)));
        assert_eq!(pb.polls(), 0);
        assert!(pb.dropped() && pa.dropped());
        assert_eq!(pa.polls(), 1);
    }

    #[test]
    fn a_pending_race_keeps_both_and_polls_both() {
        let (a, pa) = racer(100, 0);
        let (b, pb) = racer(100, 0);
        let mut race = select(a, b);
        for round in 1..=5 {
            assert_eq!(poll(&mut race), Poll::Pending);
            assert_eq!((pa.polls(), pb.polls()), (round, round));
        }
        assert!(!pa.dropped() && !pb.dropped());
        drop(race);
        assert!(pa.dropped() && pb.dropped());
    }

    #[test]
    fn polling_after_completion_panics_without_polling_either() {
        let (a, pa) = racer(1, 1);
        let (b, pb) = racer(4, 2);
        let mut race = select(a, b);
        assert_eq!(poll(&mut race), Poll::Ready(Either::Left(1)));
        let again = catch_unwind(AssertUnwindSafe(|| poll(&mut race)));
        let panic = again.expect_err("a second poll after Ready must panic");
        let message = panic
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_default();
        assert!(
            message.contains("after completion"),
            "panicked with {message:?}"
        );
        assert_eq!((pa.polls(), pb.polls()), (1, 0));
    }

    #[test]
    fn works_with_other_futures() {
        let mut race = select(std::future::pending::<u8>(), Box::pin(async { "done" }));
        assert_eq!(poll(&mut race), Poll::Ready(Either::Right("done")));
    }
}
