//! `rt::sync::Notify`: one permit at most, `notify_waiters` reaches the
//! futures created before it and no later ones, and the lost-notification
//! pitfall: checking a condition *before* creating the `Notified` loses a
//! notification, creating (and enabling) it first never does. Every test
//! runs under a 20-second watchdog: a hang is a lost wake-up, and fails.
#![cfg(not(loom))]

use futures::poll;
use rt::sync::Notify;
use rt::{Builder, Runtime};
use std::collections::VecDeque;
use std::future::Future;
use std::pin::pin;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::thread;
use std::time::Duration;

fn within_20s<F>(test: impl FnOnce() -> F + Send + 'static)
where
    F: Future<Output = ()> + 'static,
{
    let (done, finished) = mpsc::channel();
    let thread = thread::spawn(move || {
        let rt: Runtime = Builder::new_multi_thread()
            .worker_threads(2)
            .build()
            .unwrap();
        rt.block_on(test());
        let _ = done.send(());
    });
    match finished.recv_timeout(Duration::from_secs(20)) {
        Ok(()) => thread.join().unwrap(),
        Err(mpsc::RecvTimeoutError::Disconnected) => {
            if let Err(panic) = thread.join() {
                std::panic::resume_unwind(panic);
            }
        }
        Err(mpsc::RecvTimeoutError::Timeout) => panic!("hung for 20 s: a wake-up was lost"),
    }
}

#[test]
fn notify_one_stores_one_permit_not_two() {
    within_20s(|| async {
        let notify = Notify::new();
        notify.notify_one();
        notify.notify_one();
        notify.notified().await; // takes the permit
        let mut second = pin!(notify.notified());
        assert!(
            poll!(second.as_mut()).is_pending(),
            "two permits were stored"
        );
        notify.notify_one();
        second.await;
    });
}

#[test]
fn notify_one_wakes_a_waiting_task() {
    within_20s(|| async {
        let notify = Arc::new(Notify::new());
        let (ready, is_ready) = mpsc::channel();
        let waiter = {
            let notify = notify.clone();
            rt::spawn(async move {
                let mut notified = pin!(notify.notified());
                assert!(!notified.as_mut().enable());
                ready.send(()).unwrap();
                notified.await;
            })
        };
        is_ready.recv().unwrap();
        notify.notify_one();
        waiter.await.unwrap();
    });
}

#[test]
fn notify_waiters_reaches_futures_created_before_it_only() {
    within_20s(|| async {
        let notify = Notify::new();
        let before = notify.notified(); // never polled before the call
        notify.notify_waiters();
        let mut after = pin!(notify.notified());
        before.await;
        assert!(
            poll!(after.as_mut()).is_pending(),
            "created after: not woken"
        );
        // And notify_waiters stored no permit.
        assert!(!notify.notified().enabled_at_once());
        notify.notify_waiters();
        after.await;
    });
}

/// `enable` without a poll: it is already ready in the three cases Tokio
/// lists, and a future enabled before a `notify_one` gets that
/// notification instead of the permit.
#[test]
fn enable_registers_before_the_first_poll() {
    within_20s(|| async {
        let notify = Notify::new();
        // A stored permit is taken by enable.
        notify.notify_one();
        let mut a = pin!(notify.notified());
        assert!(a.as_mut().enable());
        a.await;
        // Enabled, then notified: the notification is this future's.
        let mut b = pin!(notify.notified());
        assert!(!b.as_mut().enable());
        notify.notify_one();
        assert!(b.as_mut().enable());
        let mut c = pin!(notify.notified());
        assert!(!c.as_mut().enable(), "the notification became a permit");
        b.await;
        // notify_waiters since creation.
        notify.notify_waiters();
        assert!(c.as_mut().enable());
        c.await;
    });
}

/// The pitfall, step by step: check, *then* create the future. A
/// `notify_waiters` that falls between the two is lost.
#[test]
fn checking_before_creating_the_future_loses_a_notification() {
    within_20s(|| async {
        let notify = Notify::new();
        let flag = AtomicBool::new(false);
        // The consumer checks: nothing yet.
        assert!(!flag.load(Ordering::SeqCst));
        // The producer sets the flag and notifies, right now.
        flag.store(true, Ordering::SeqCst);
        notify.notify_waiters();
        // The consumer creates its future and waits: never woken.
        let mut late = pin!(notify.notified());
        assert!(
            poll!(late.as_mut()).is_pending(),
            "the notification is lost"
        );

        // The fix: create the future first, then check.
        let notify = Notify::new();
        let flag = AtomicBool::new(false);
        let mut early = pin!(notify.notified());
        early.as_mut().enable();
        assert!(!flag.load(Ordering::SeqCst));
        flag.store(true, Ordering::SeqCst);
        notify.notify_waiters();
        assert!(
            poll!(early.as_mut()).is_ready(),
            "registered before the check"
        );
    });
}

/// The fixed pattern under load: a queue with four consumers and one
/// producer that pushes 20,000 items with one `notify_one` each. With
/// several consumers, a stored permit is not enough (two notifications
/// with nobody waiting make one permit); each consumer enables its
/// `Notified` before it checks the queue, so every notification finds it
/// or finds an item. Every item is consumed, and the test ends.
#[test]
fn enable_before_check_never_loses_a_notification() {
    const ITEMS: usize = 20_000;
    const CONSUMERS: usize = 4;
    within_20s(|| async {
        let notify = Arc::new(Notify::new());
        let queue = Arc::new(Mutex::new(VecDeque::new()));
        let consumed = Arc::new(AtomicUsize::new(0));
        let consumers: Vec<_> = (0..CONSUMERS)
            .map(|_| {
                let (notify, queue, consumed) = (notify.clone(), queue.clone(), consumed.clone());
                rt::spawn(async move {
                    loop {
                        let mut notified = pin!(notify.notified());
                        notified.as_mut().enable();
                        let item = queue.lock().unwrap().pop_front();
                        match item {
                            Some(None) => return, // the end
                            Some(Some(_)) => {
                                consumed.fetch_add(1, Ordering::Relaxed);
                            }
                            None => notified.await,
                        }
                    }
                })
            })
            .collect();
        let producer = {
            let (notify, queue) = (notify.clone(), queue.clone());
            rt::spawn(async move {
                for i in 0..ITEMS {
                    queue.lock().unwrap().push_back(Some(i));
                    notify.notify_one();
                    if i % 64 == 0 {
                        rt::task::yield_now().await;
                    }
                }
                for _ in 0..CONSUMERS {
                    queue.lock().unwrap().push_back(None);
                    notify.notify_one();
                }
            })
        };
        producer.await.unwrap();
        for consumer in consumers {
            consumer.await.unwrap();
        }
        assert_eq!(consumed.load(Ordering::Relaxed), ITEMS);
    });
}

/// A tiny helper so that a test can ask "would this fresh future be ready
/// at once?" in one line.
trait EnableNow {
    fn enabled_at_once(self) -> bool;
}

impl EnableNow for rt::sync::Notified<'_> {
    fn enabled_at_once(self) -> bool {
        let mut this = pin!(self);
        this.as_mut().enable()
    }
}
