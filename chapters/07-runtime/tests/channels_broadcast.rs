//! The broadcast channel on the multi-threaded runtime: every receiver gets
//! every value, a lagging receiver learns exactly how many it missed, the
//! close after the drain, `try_recv`'s three errors. Every test runs under a
//! watchdog and ends by itself.
#![cfg(not(loom))]
#![cfg(not(miri))]

use rt::sync::broadcast::{self, RecvError, TryRecvError};
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
fn every_receiver_gets_every_value_in_order() {
    run("fan out", || async {
        let (tx, rx) = broadcast::channel::<u32>(16);
        let mut tasks = Vec::new();
        for _ in 0..4 {
            let mut rx = rx.resubscribe();
            tasks.push(rt::spawn(async move {
                let mut got = Vec::new();
                loop {
                    match rx.recv().await {
                        Ok(v) => got.push(v),
                        Err(RecvError::Closed) => return got,
                        Err(RecvError::Lagged(n)) => panic!("lagged by {n}"),
                    }
                }
            }));
        }
        drop(rx);
        for i in 0..200 {
            // Wait for room rather than lag anyone: at most 8 unread.
            while tx.len() >= 8 {
                rt::task::yield_now().await;
            }
            assert_eq!(tx.send(i).unwrap(), 4);
        }
        drop(tx);
        for task in tasks {
            assert_eq!(task.await.unwrap(), (0..200).collect::<Vec<_>>());
        }
    });
}

#[test]
fn a_lagging_receiver_gets_the_exact_count_then_the_oldest_held() {
    run("lagged", || async {
        let (tx, mut rx) = broadcast::channel::<u32>(4);
        for i in 0..10 {
            tx.send(i).unwrap();
        }
        // Ten sent into four slots: 0..6 were evicted.
        assert_eq!(rx.recv().await, Err(RecvError::Lagged(6)));
        for i in 6..10 {
            assert_eq!(rx.recv().await, Ok(i));
        }
        tx.send(10).unwrap();
        assert_eq!(rx.recv().await, Ok(10));
    });
}

#[test]
fn closed_after_the_sender_drops_and_the_values_are_drained() {
    run("closed", || async {
        let (tx, mut rx) = broadcast::channel::<u32>(4);
        let waiter = {
            let mut rx = tx.subscribe();
            rt::spawn(async move { rx.recv().await })
        };
        rt::time::sleep(Duration::from_millis(10)).await;
        tx.send(1).unwrap();
        assert_eq!(waiter.await.unwrap(), Ok(1));
        tx.send(2).unwrap();
        drop(tx);
        assert_eq!(rx.recv().await, Ok(1));
        assert_eq!(rx.recv().await, Ok(2));
        assert_eq!(rx.recv().await, Err(RecvError::Closed));
        assert_eq!(rx.recv().await, Err(RecvError::Closed));
    });
}

#[test]
fn a_waiting_receiver_is_woken_by_the_last_sender_drop() {
    run("woken by close", || async {
        let (tx, mut rx) = broadcast::channel::<u32>(4);
        let waiter = rt::spawn(async move { rx.recv().await });
        rt::time::sleep(Duration::from_millis(10)).await;
        drop(tx);
        assert_eq!(waiter.await.unwrap(), Err(RecvError::Closed));
    });
}

#[test]
fn try_recv_is_empty_lagged_or_closed() {
    run("try_recv", || async {
        let (tx, mut rx) = broadcast::channel::<u32>(2);
        assert_eq!(rx.try_recv(), Err(TryRecvError::Empty));
        for i in 0..5 {
            tx.send(i).unwrap();
        }
        assert_eq!(rx.try_recv(), Err(TryRecvError::Lagged(3)));
        assert_eq!(rx.try_recv(), Ok(3));
        assert_eq!(rx.try_recv(), Ok(4));
        assert_eq!(rx.try_recv(), Err(TryRecvError::Empty));
        drop(tx);
        assert_eq!(rx.try_recv(), Err(TryRecvError::Closed));
    });
}

#[test]
fn send_without_receivers_fails_and_counts_are_kept() {
    run("counts", || async {
        let (tx, rx) = broadcast::channel::<u32>(4);
        let rx2 = tx.subscribe();
        assert_eq!(tx.receiver_count(), 2);
        assert_eq!(tx.send(1).unwrap(), 2);
        assert_eq!((tx.len(), rx.len()), (1, 1));
        drop(rx);
        // rx2 has not read it yet: still queued.
        assert_eq!(tx.len(), 1);
        drop(rx2);
        assert!(tx.is_empty());
        assert_eq!(tx.send(2).unwrap_err().0, 2);
        // A new receiver sees only what is sent after it.
        let mut rx = tx.subscribe();
        tx.send(3).unwrap();
        assert_eq!(rx.recv().await, Ok(3));
    });
}
