//! Tests for exercise ch08_notify_permit (`exercises/ch08/notify_permit.rs`).

#[cfg_attr(not(feature = "solutions"), path = "../ch08/notify_permit.rs")]
#[cfg_attr(feature = "solutions", path = "../solutions/ch08/notify_permit.rs")]
#[allow(dead_code, unused_variables, unused_imports, unused_mut)]
mod notify_permit;

mod ch08_notify_permit {
    use super::notify_permit::{Notified, Notify};
    use std::future::Future;
    use std::pin::Pin;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::task::{Context, Poll, Wake, Waker};
    use std::time::Duration;

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

    fn woken(count: &Count) -> usize {
        count.0.load(Ordering::SeqCst)
    }

    fn poll(notified: &mut Notified<'_>, waker: &Waker) -> Poll<()> {
        Pin::new(notified).poll(&mut Context::from_waker(waker))
    }

    #[test]
    fn a_notification_before_the_wait_is_not_lost() {
        let notify = Notify::new();
        let (w, _) = waker();
        // The waiter checked its condition (false) and is about to wait;
        // the other side changes the condition and notifies in the gap.
        notify.notify_one();
        let mut wait = notify.notified();
        assert_eq!(poll(&mut wait, &w), Poll::Ready(()), "the permit was lost");
    }

    #[test]
    fn with_nobody_waiting_at_most_one_permit_is_kept() {
        let notify = Notify::new();
        let (w, count) = waker();
        for _ in 0..3 {
            notify.notify_one();
        }
        assert_eq!(poll(&mut notify.notified(), &w), Poll::Ready(()));
        let mut second = notify.notified();
        assert_eq!(poll(&mut second, &w), Poll::Pending, "only one permit");
        assert_eq!(woken(&count), 0);
        notify.notify_one();
        assert_eq!(woken(&count), 1);
        assert_eq!(poll(&mut second, &w), Poll::Ready(()));
    }

    #[test]
    fn the_permit_is_used_up_by_the_wait_that_takes_it() {
        let notify = Notify::new();
        let (w, _) = waker();
        assert_eq!(poll(&mut notify.notified(), &w), Poll::Pending);
        notify.notify_one();
        assert_eq!(poll(&mut notify.notified(), &w), Poll::Ready(()));
        assert_eq!(poll(&mut notify.notified(), &w), Poll::Pending);
    }

    #[test]
    fn a_waiting_task_is_woken_instead_and_no_permit_is_left() {
        let notify = Notify::new();
        let (wa, ca) = waker();
        let (wb, cb) = waker();
        let mut a = notify.notified();
        assert_eq!(poll(&mut a, &wa), Poll::Pending);
        assert_eq!(woken(&ca), 0);
        notify.notify_one();
        assert_eq!(woken(&ca), 1, "the waiter is woken");
        let mut b = notify.notified();
        assert_eq!(
            poll(&mut b, &wb),
            Poll::Pending,
            "the notification went to the waiter, not into a permit"
        );
        assert_eq!(poll(&mut a, &wa), Poll::Ready(()));
        assert_eq!(woken(&cb), 0);
    }

    #[test]
    fn a_waiter_not_yet_notified_stays_pending() {
        let notify = Notify::new();
        let (w, count) = waker();
        let mut a = notify.notified();
        for _ in 0..3 {
            assert_eq!(poll(&mut a, &w), Poll::Pending);
        }
        assert_eq!(woken(&count), 0);
    }

    #[test]
    fn waiters_are_woken_oldest_first_one_per_notification() {
        let notify = Notify::new();
        let pairs: Vec<_> = (0..3).map(|_| waker()).collect();
        let mut waits: Vec<_> = (0..3).map(|_| notify.notified()).collect();
        for (wait, (w, _)) in waits.iter_mut().zip(&pairs) {
            assert_eq!(poll(wait, w), Poll::Pending);
        }
        let counts = || pairs.iter().map(|(_, c)| woken(c)).collect::<Vec<_>>();
        notify.notify_one();
        assert_eq!(counts(), vec![1, 0, 0]);
        notify.notify_one();
        assert_eq!(counts(), vec![1, 1, 0]);
        assert_eq!(poll(&mut waits[2], &pairs[2].0), Poll::Pending);
        assert_eq!(poll(&mut waits[1], &pairs[1].0), Poll::Ready(()));
        assert_eq!(poll(&mut waits[0], &pairs[0].0), Poll::Ready(()));
        notify.notify_one();
        assert_eq!(counts(), vec![1, 1, 1]);
        assert_eq!(poll(&mut waits[2], &pairs[2].0), Poll::Ready(()));
        // Everyone has been served: the next one is a permit.
        notify.notify_one();
        assert_eq!(poll(&mut notify.notified(), &pairs[0].0), Poll::Ready(()));
    }

    #[test]
    fn the_latest_waker_is_the_one_woken() {
        let notify = Notify::new();
        let (old, old_count) = waker();
        let (new, new_count) = waker();
        let mut a = notify.notified();
        assert_eq!(poll(&mut a, &old), Poll::Pending);
        assert_eq!(poll(&mut a, &new), Poll::Pending);
        notify.notify_one();
        assert_eq!((woken(&old_count), woken(&new_count)), (0, 1));
    }

    #[test]
    fn a_notified_waiter_dropped_before_it_looked_passes_the_notification_on() {
        let notify = Notify::new();
        let (wa, _) = waker();
        let (wb, cb) = waker();
        let mut a = notify.notified();
        let mut b = notify.notified();
        assert_eq!(poll(&mut a, &wa), Poll::Pending);
        assert_eq!(poll(&mut b, &wb), Poll::Pending);
        notify.notify_one();
        drop(a);
        assert_eq!(woken(&cb), 1);
        assert_eq!(poll(&mut b, &wb), Poll::Ready(()));
    }

    #[test]
    fn two_tasks_play_ping_pong_on_a_runtime_without_losing_a_ball() {
        let (done, finished) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let runtime = rt::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .build()
                .unwrap();
            let rounds = runtime.block_on(async {
                let ping = Arc::new(Notify::new());
                let pong = Arc::new(Notify::new());
                let hits = Arc::new(AtomicUsize::new(0));
                let server = {
                    let (ping, pong, hits) = (ping.clone(), pong.clone(), hits.clone());
                    rt::spawn(async move {
                        for _ in 0..500 {
                            ping.notified().await;
                            hits.fetch_add(1, Ordering::SeqCst);
                            pong.notify_one();
                        }
                    })
                };
                for _ in 0..500 {
                    // Often notified before the server waits: the permit
                    // carries it.
                    ping.notify_one();
                    pong.notified().await;
                }
                server.await.unwrap();
                hits.load(Ordering::SeqCst)
            });
            let _ = done.send(rounds);
        });
        let rounds = finished
            .recv_timeout(Duration::from_secs(20))
            .expect("hung or panicked: a notification was lost");
        assert_eq!(rounds, 500);
    }
}
