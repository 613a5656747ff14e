//! Tests for exercise ch07_budget (`exercises/ch07/budget.rs`).

#[cfg_attr(not(feature = "solutions"), path = "../ch07/budget.rs")]
#[cfg_attr(feature = "solutions", path = "../solutions/ch07/budget.rs")]
#[allow(dead_code, unused_variables, unused_imports, unused_mut)]
mod budget;

mod ch07_budget {
    use super::budget::*;
    use std::future::{Future, pending, ready};
    use std::pin::Pin;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::task::{Context, Poll, Wake, Waker};

    struct Count(AtomicUsize);
    impl Wake for Count {
        fn wake(self: Arc<Self>) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }

    fn waker() -> (Waker, Arc<Count>) {
        let count = Arc::new(Count(AtomicUsize::new(0)));
        (Waker::from(count.clone()), count)
    }

    fn poll<F: Future + Unpin>(f: &mut F, waker: &Waker) -> Poll<F::Output> {
        Pin::new(f).poll(&mut Context::from_waker(waker))
    }

    #[test]
    fn ready_operations_spend_until_the_budget_is_gone() {
        let (waker, woken) = waker();
        with_budget(2, || {
            assert_eq!(
                poll(&mut Budgeted { inner: ready(1) }, &waker),
                Poll::Ready(1)
            );
            assert_eq!(budget_left(), Some(1));
            assert_eq!(
                poll(&mut Budgeted { inner: ready(2) }, &waker),
                Poll::Ready(2)
            );
            assert_eq!(budget_left(), Some(0));
            assert_eq!(
                poll(&mut Budgeted { inner: ready(3) }, &waker),
                Poll::Pending
            );
            assert_eq!(
                woken.0.load(Ordering::SeqCst),
                1,
                "the task must be woken to run again"
            );
        });
    }

    #[test]
    fn a_pending_operation_gives_its_unit_back() {
        let (waker, woken) = waker();
        with_budget(1, || {
            assert_eq!(
                poll(
                    &mut Budgeted {
                        inner: pending::<()>()
                    },
                    &waker
                ),
                Poll::Pending
            );
            assert_eq!(budget_left(), Some(1));
            assert_eq!(
                woken.0.load(Ordering::SeqCst),
                0,
                "a real Pending does not self-wake"
            );
        });
    }

    #[test]
    fn the_inner_future_is_not_polled_without_budget() {
        struct Panics;
        impl Future for Panics {
            type Output = ();
            fn poll(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<()> {
                panic!("polled with no budget left");
            }
        }
        let (waker, _) = waker();
        with_budget(0, || {
            assert_eq!(poll(&mut Budgeted { inner: Panics }, &waker), Poll::Pending);
        });
    }

    #[test]
    fn outside_a_task_poll_there_is_no_limit() {
        let (waker, _) = waker();
        assert_eq!(budget_left(), None);
        for i in 0..1000 {
            assert_eq!(
                poll(&mut Budgeted { inner: ready(i) }, &waker),
                Poll::Ready(i)
            );
        }
        assert_eq!(budget_left(), None);
    }
}
