//! Tests for exercise ch08_counting_semaphore (`exercises/ch08/counting_semaphore.rs`).

#[cfg_attr(not(feature = "solutions"), path = "../ch08/counting_semaphore.rs")]
#[cfg_attr(
    feature = "solutions",
    path = "../solutions/ch08/counting_semaphore.rs"
)]
#[allow(dead_code, unused_variables, unused_imports, unused_mut)]
mod counting_semaphore;

mod ch08_counting_semaphore {
    use super::counting_semaphore::{Acquire, Semaphore};
    use std::future::Future;
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

    /// A waker, and how many times it (or a clone) was woken.
    fn waker() -> (Waker, Arc<Count>) {
        let count = Arc::new(Count(AtomicUsize::new(0)));
        (Waker::from(count.clone()), count)
    }

    fn woken(count: &Count) -> usize {
        count.0.load(Ordering::SeqCst)
    }

    fn poll(acquire: &mut Acquire<'_>, waker: &Waker) -> Poll<()> {
        Pin::new(acquire).poll(&mut Context::from_waker(waker))
    }

    #[test]
    fn acquire_and_release_move_the_count() {
        let sem = Semaphore::new(5);
        let (w, _) = waker();
        assert_eq!(poll(&mut sem.acquire(3), &w), Poll::Ready(()));
        assert_eq!(sem.available(), 2);
        assert_eq!(poll(&mut sem.acquire(2), &w), Poll::Ready(()));
        assert_eq!(sem.available(), 0);
        assert_eq!(poll(&mut sem.acquire(0), &w), Poll::Ready(()));
        sem.release(4);
        assert_eq!(sem.available(), 4);
        assert_eq!(poll(&mut sem.acquire(4), &w), Poll::Ready(()));
        assert_eq!(sem.available(), 0);
        sem.release(5);
        assert_eq!(sem.available(), 5);
    }

    #[test]
    fn a_waiter_takes_what_is_free_and_is_woken_when_it_has_the_rest() {
        let sem = Semaphore::new(2);
        let (w, count) = waker();
        let mut a = sem.acquire(5);
        assert_eq!(poll(&mut a, &w), Poll::Pending);
        assert_eq!(
            sem.available(),
            0,
            "the two free permits are assigned to it"
        );
        sem.release(2);
        assert_eq!(woken(&count), 0, "four of five: not yet");
        assert_eq!(poll(&mut a, &w), Poll::Pending);
        assert_eq!(sem.available(), 0);
        sem.release(3);
        assert_eq!(woken(&count), 1, "served: woken once");
        assert_eq!(sem.available(), 2, "the one it did not need is free");
        assert_eq!(poll(&mut a, &w), Poll::Ready(()));
        drop(a);
        assert_eq!(sem.available(), 2, "the caller holds the five it got");
        sem.release(5);
        assert_eq!(sem.available(), 7);
    }

    #[test]
    fn waiters_are_served_in_order_and_newcomers_queue_behind() {
        let sem = Semaphore::new(1);
        let (wa, ca) = waker();
        let (wb, cb) = waker();
        let (wc, cc) = waker();
        let mut a = sem.acquire(3);
        let mut b = sem.acquire(1);
        assert_eq!(poll(&mut a, &wa), Poll::Pending);
        assert_eq!(poll(&mut b, &wb), Poll::Pending);
        sem.release(1);
        assert_eq!(
            (woken(&ca), woken(&cb)),
            (0, 0),
            "a still lacks one; b waits"
        );
        assert_eq!(poll(&mut b, &wb), Poll::Pending, "b must not overtake a");
        // A newcomer that wants one permit waits behind them too.
        let mut c = sem.acquire(1);
        assert_eq!(poll(&mut c, &wc), Poll::Pending);
        sem.release(2);
        assert_eq!((woken(&ca), woken(&cb), woken(&cc)), (1, 1, 0));
        assert_eq!(poll(&mut b, &wb), Poll::Ready(()));
        assert_eq!(poll(&mut a, &wa), Poll::Ready(()));
        assert_eq!(poll(&mut c, &wc), Poll::Pending);
        assert_eq!(sem.available(), 0);
        sem.release(3);
        assert_eq!(woken(&cc), 1);
        assert_eq!(poll(&mut c, &wc), Poll::Ready(()));
        assert_eq!(sem.available(), 2);
        sem.release(2);
        assert_eq!(
            sem.available(),
            4,
            "9 permits in all, 5 of them held by a, b and c"
        );
    }

    #[test]
    fn a_cancelled_waiter_hands_its_partial_permits_to_the_next() {
        let sem = Semaphore::new(2);
        let (wa, _) = waker();
        let (wb, cb) = waker();
        let mut a = sem.acquire(3);
        let mut b = sem.acquire(2);
        assert_eq!(poll(&mut a, &wa), Poll::Pending);
        assert_eq!(poll(&mut b, &wb), Poll::Pending);
        drop(a);
        assert_eq!(woken(&cb), 1, "a's two permits serve b");
        assert_eq!(sem.available(), 0);
        assert_eq!(poll(&mut b, &wb), Poll::Ready(()));
        sem.release(2);
        assert_eq!(sem.available(), 2);
    }

    #[test]
    fn a_cancelled_waiter_with_nobody_behind_frees_its_permits() {
        let sem = Semaphore::new(3);
        let (w, _) = waker();
        let mut a = sem.acquire(10);
        assert_eq!(poll(&mut a, &w), Poll::Pending);
        sem.release(4);
        assert_eq!(sem.available(), 0);
        drop(a);
        assert_eq!(sem.available(), 7);
    }

    #[test]
    fn a_waiter_served_but_dropped_before_its_poll_gives_everything_back() {
        let sem = Semaphore::new(0);
        let (wa, ca) = waker();
        let (wb, cb) = waker();
        let mut a = sem.acquire(2);
        let mut b = sem.acquire(3);
        assert_eq!(poll(&mut a, &wa), Poll::Pending);
        assert_eq!(poll(&mut b, &wb), Poll::Pending);
        sem.release(3);
        assert_eq!(
            (woken(&ca), woken(&cb)),
            (1, 0),
            "a served, b has one of three"
        );
        drop(a);
        assert_eq!(woken(&cb), 1, "a's two go to b");
        assert_eq!(poll(&mut b, &wb), Poll::Ready(()));
        assert_eq!(sem.available(), 0);
        sem.release(3);
        assert_eq!(sem.available(), 3);
    }

    #[test]
    fn dropping_an_unpolled_or_finished_acquire_gives_nothing_back() {
        let sem = Semaphore::new(3);
        let (w, _) = waker();
        drop(sem.acquire(2));
        assert_eq!(sem.available(), 3);
        let mut a = sem.acquire(2);
        assert_eq!(poll(&mut a, &w), Poll::Ready(()));
        drop(a);
        assert_eq!(sem.available(), 1);

        // A waiter that was served and saw it (Ready) keeps its permits too.
        let mut b = sem.acquire(3);
        assert_eq!(poll(&mut b, &w), Poll::Pending);
        sem.release(2);
        assert_eq!(poll(&mut b, &w), Poll::Ready(()));
        drop(b);
        assert_eq!(sem.available(), 0);
        sem.release(5);
        assert_eq!(sem.available(), 5);
    }

    #[test]
    fn cancelling_a_waiter_in_the_middle_keeps_the_order_of_the_rest() {
        let sem = Semaphore::new(0);
        let wakers: Vec<_> = (0..3).map(|_| waker()).collect();
        let mut a = sem.acquire(2);
        let mut b = sem.acquire(2);
        let mut c = sem.acquire(1);
        assert_eq!(poll(&mut a, &wakers[0].0), Poll::Pending);
        assert_eq!(poll(&mut b, &wakers[1].0), Poll::Pending);
        assert_eq!(poll(&mut c, &wakers[2].0), Poll::Pending);
        drop(b);
        assert_eq!(sem.available(), 0);
        sem.release(3);
        assert_eq!(woken(&wakers[0].1), 1);
        assert_eq!(woken(&wakers[2].1), 1);
        assert_eq!(poll(&mut a, &wakers[0].0), Poll::Ready(()));
        assert_eq!(poll(&mut c, &wakers[2].0), Poll::Ready(()));
        assert_eq!(sem.available(), 0);
    }

    #[test]
    fn the_latest_waker_is_the_one_woken() {
        let sem = Semaphore::new(0);
        let (old, old_count) = waker();
        let (new, new_count) = waker();
        let mut a = sem.acquire(1);
        assert_eq!(poll(&mut a, &old), Poll::Pending);
        assert_eq!(poll(&mut a, &new), Poll::Pending);
        sem.release(1);
        assert_eq!((woken(&old_count), woken(&new_count)), (0, 1));
        assert_eq!(poll(&mut a, &new), Poll::Ready(()));
    }

    #[test]
    fn many_waiters_cancelled_and_served_lose_no_permit() {
        let sem = Semaphore::new(4);
        let (w, _) = waker();
        let mut held = 0;
        // Bounded: forty rounds of a fixed pattern of wants and drops.
        for round in 0..40usize {
            let want = 1 + round % 6;
            let mut x = sem.acquire(want);
            let mut y = sem.acquire(1 + round % 3);
            let x_ready = poll(&mut x, &w).is_ready();
            let y_ready = poll(&mut y, &w).is_ready();
            if x_ready {
                held += want;
            }
            if y_ready {
                held += 1 + round % 3;
            }
            // Cancel the pending ones, in either order.
            if round % 2 == 0 {
                drop(x);
                drop(y);
            } else {
                drop(y);
                drop(x);
            }
            if held > 0 && round % 3 == 0 {
                sem.release(held);
                held = 0;
            }
            assert_eq!(sem.available() + held, 4, "round {round}");
        }
        sem.release(held);
        assert_eq!(sem.available(), 4, "no permit lost");
    }
}
