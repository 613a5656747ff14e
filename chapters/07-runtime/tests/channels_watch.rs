//! The watch channel on the multi-threaded runtime: `changed` after a send,
//! `borrow_and_update`, the close, many receivers, sends with and without
//! receivers. Every test runs under a watchdog and ends by itself.
#![cfg(not(loom))]
#![cfg(not(miri))]

use rt::sync::watch;
use std::future::Future;
use std::time::Duration;

/// Runs `body` on a fresh two-worker runtime, failing after 20 s.
fn run<F>(what: &str, body: impl FnOnce() -> F + Send + 'static) -> F::Output
where
    F: Future,
    F::Output: Send + 'static,
{
    let (done, finished) = std::sync::mpsc::channel();
    let what = what.to_string();
    std::thread::spawn(move || {
        let runtime = rt::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .build()
            .expect("build a runtime");
        let result =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| runtime.block_on(body())));
        let _ = done.send(result);
    });
    match finished.recv_timeout(Duration::from_secs(20)) {
        Ok(Ok(value)) => value,
        Ok(Err(panic)) => std::panic::resume_unwind(panic),
        Err(_) => panic!("HANG: {what} did not finish within 20 s"),
    }
}

#[test]
fn changed_returns_after_a_send_from_another_task() {
    run("changed", || async {
        let (tx, mut rx) = watch::channel("hello");
        let sender = rt::spawn(async move {
            rt::time::sleep(Duration::from_millis(10)).await;
            tx.send("goodbye").unwrap();
            tx
        });
        rx.changed().await.unwrap();
        assert_eq!(*rx.borrow(), "goodbye");
        assert!(!rx.has_changed().unwrap());
        drop(sender.await.unwrap());
        assert!(rx.changed().await.is_err());
    });
}

#[test]
fn borrow_and_update_marks_the_value_seen_and_borrow_does_not() {
    run("borrow_and_update", || async {
        let (tx, mut rx) = watch::channel(0);
        tx.send(1).unwrap();
        assert!(rx.borrow().has_changed());
        assert!(rx.has_changed().unwrap());
        {
            let value = rx.borrow_and_update();
            assert!(value.has_changed());
            assert_eq!(*value, 1);
        }
        assert!(!rx.has_changed().unwrap());
        // Seen: changed() now waits for the next send.
        let waited = rt::time::timeout(Duration::from_millis(20), rx.changed()).await;
        assert!(waited.is_err());
        tx.send_modify(|v| *v += 1);
        rx.changed().await.unwrap();
        assert_eq!(*rx.borrow_and_update(), 2);
    });
}

#[test]
fn closed_when_the_sender_drops_after_the_last_value() {
    run("closed", || async {
        let (tx, mut rx) = watch::channel(0);
        tx.send(5).unwrap();
        drop(tx);
        assert!(rx.has_changed().is_err());
        // The last value is still reported once, then the close.
        rx.changed().await.unwrap();
        assert_eq!(*rx.borrow(), 5);
        assert!(rx.changed().await.is_err());
    });
}

#[test]
fn every_receiver_sees_the_latest_value() {
    run("many receivers", || async {
        let (tx, rx) = watch::channel(0u32);
        let mut tasks = Vec::new();
        for _ in 0..8 {
            let mut rx = rx.clone();
            tasks.push(rt::spawn(async move {
                // Waits until it sees the final value; may skip others.
                loop {
                    if *rx.borrow_and_update() == 100 {
                        return;
                    }
                    rx.changed().await.unwrap();
                }
            }));
        }
        assert_eq!(tx.receiver_count(), 9);
        for i in 1..=100 {
            tx.send(i).unwrap();
            if i % 10 == 0 {
                rt::task::yield_now().await;
            }
        }
        for task in tasks {
            task.await.unwrap();
        }
        assert_eq!(tx.receiver_count(), 1);
    });
}

#[test]
fn send_fails_without_receivers_but_send_replace_stores() {
    run("no receivers", || async {
        let (tx, rx) = watch::channel(1);
        let waiter = {
            let tx = tx.clone();
            rt::spawn(async move { tx.closed().await })
        };
        rt::time::sleep(Duration::from_millis(10)).await;
        assert!(!waiter.is_finished());
        drop(rx);
        waiter.await.unwrap();
        assert!(tx.is_closed());
        assert_eq!(tx.send(2).unwrap_err().0, 2);
        assert_eq!(*tx.borrow(), 1);
        assert_eq!(tx.send_replace(3), 1);
        assert_eq!(*tx.borrow(), 3);
        assert!(!tx.send_if_modified(|_| false));
        // A new receiver sees the current value as seen.
        let mut rx = tx.subscribe();
        assert!(!rx.has_changed().unwrap());
        assert_eq!(*rx.borrow_and_update(), 3);
        assert!(tx.send_if_modified(|v| {
            *v = 4;
            true
        }));
        rx.changed().await.unwrap();
        assert_eq!(*rx.borrow(), 4);
    });
}

#[test]
fn mark_changed_same_channel_and_a_cancelled_changed() {
    run("mark", || async {
        let (tx, mut rx) = watch::channel(0);
        let other = tx.subscribe();
        assert!(rx.same_channel(&other));
        rx.mark_changed();
        rx.changed().await.unwrap();
        // A changed() cancelled by a timeout loses nothing.
        assert!(
            rt::time::timeout(Duration::from_millis(10), rx.changed())
                .await
                .is_err()
        );
        tx.send(1).unwrap();
        rx.changed().await.unwrap();
        rx.mark_unchanged();
        assert!(!rx.has_changed().unwrap());
    });
}
