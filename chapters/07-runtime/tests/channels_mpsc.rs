//! The mpsc channels on the multi-threaded runtime: permits, `closed`,
//! `len`/`is_empty`/`is_closed`, `recv_many`, weak senders, the unbounded
//! channel. Every test runs under a watchdog and ends by itself.
#![cfg(not(loom))]
#![cfg(not(miri))]

use rt::sync::mpsc::{self, TryRecvError, TrySendError};
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
fn reserve_then_send_and_a_dropped_permit_frees_the_slot_for_a_waiter() {
    run("permits", || async {
        let (tx, mut rx) = mpsc::channel::<u32>(1);
        let permit = tx.reserve().await.unwrap();
        assert_eq!(tx.capacity(), 0);
        assert!(matches!(tx.try_send(0), Err(TrySendError::Full(0))));

        // A second sender waits for the only slot...
        let tx2 = tx.clone();
        let waiter = rt::spawn(async move { tx2.send(2).await });
        rt::time::sleep(Duration::from_millis(20)).await;
        assert!(!waiter.is_finished());
        // ...which the unused permit gives back when dropped.
        drop(permit);
        waiter.await.unwrap().unwrap();
        assert_eq!(rx.recv().await, Some(2));

        // A permit that sends puts its value in its slot.
        let permit = tx.reserve().await.unwrap();
        permit.send(3);
        assert_eq!(rx.recv().await, Some(3));
        assert_eq!(tx.capacity(), tx.max_capacity());
    });
}

#[test]
fn an_owned_permit_moves_into_a_task_and_returns_the_sender() {
    run("owned permit", || async {
        let (tx, mut rx) = mpsc::channel::<u32>(2);
        let permit = tx.reserve_owned().await.unwrap();
        let task = rt::spawn(async move { permit.send(9) });
        let tx = task.await.unwrap();
        assert_eq!(rx.recv().await, Some(9));
        let permit = tx.try_reserve_owned().unwrap();
        let tx = permit.release();
        assert_eq!(tx.capacity(), 2);
    });
}

#[test]
fn waiting_senders_are_served_in_arrival_order() {
    run("fifo", || async {
        let (tx, mut rx) = mpsc::channel::<u32>(1);
        tx.send(0).await.unwrap();
        let mut waiters = Vec::new();
        for i in 1..=5 {
            let tx = tx.clone();
            waiters.push(rt::spawn(async move { tx.send(i).await }));
            // Let each queue before the next starts.
            rt::time::sleep(Duration::from_millis(5)).await;
        }
        drop(tx);
        let mut got = Vec::new();
        while let Some(v) = rx.recv().await {
            got.push(v);
        }
        assert_eq!(got, [0, 1, 2, 3, 4, 5]);
        for waiter in waiters {
            waiter.await.unwrap().unwrap();
        }
    });
}

#[test]
fn closed_completes_when_the_receiver_closes_or_drops() {
    run("closed", || async {
        let (tx, mut rx) = mpsc::channel::<u32>(1);
        let tx2 = tx.clone();
        let waiter = rt::spawn(async move { tx2.closed().await });
        rt::time::sleep(Duration::from_millis(10)).await;
        assert!(!waiter.is_finished());
        rx.close();
        waiter.await.unwrap();
        assert!(tx.is_closed());

        let (tx, rx) = mpsc::unbounded_channel::<u32>();
        let waiter = rt::spawn(async move { tx.closed().await });
        rt::time::sleep(Duration::from_millis(10)).await;
        drop(rx);
        waiter.await.unwrap();
    });
}

#[test]
fn len_is_empty_and_is_closed_follow_the_channel() {
    run("len", || async {
        let (tx, mut rx) = mpsc::channel::<u32>(4);
        assert!(rx.is_empty() && !rx.is_closed());
        tx.send(1).await.unwrap();
        tx.send(2).await.unwrap();
        assert_eq!(rx.len(), 2);
        assert_eq!(rx.recv().await, Some(1));
        assert_eq!(rx.len(), 1);
        drop(tx);
        // Closed (every sender gone), yet one value is still queued.
        assert!(rx.is_closed() && !rx.is_empty());
        assert_eq!(rx.recv().await, Some(2));
        assert_eq!(rx.recv().await, None);

        let (tx, mut rx) = mpsc::channel::<u32>(4);
        rx.close();
        assert!(rx.is_closed() && tx.is_closed());
    });
}

#[test]
fn recv_many_takes_what_is_there_up_to_the_limit() {
    run("recv_many", || async {
        let (tx, mut rx) = mpsc::channel::<u32>(8);
        for i in 0..6 {
            tx.send(i).await.unwrap();
        }
        let mut buffer = vec![100];
        assert_eq!(rx.recv_many(&mut buffer, 4).await, 4);
        assert_eq!(buffer, [100, 0, 1, 2, 3]);
        assert_eq!(rx.recv_many(&mut buffer, 0).await, 0);
        assert_eq!(rx.recv_many(&mut buffer, 10).await, 2);
        assert_eq!(buffer.len(), 7);
        // With nothing queued it waits for the next value.
        let sender = rt::spawn(async move {
            rt::time::sleep(Duration::from_millis(10)).await;
            tx.send(7).await.unwrap();
        });
        let mut more = Vec::new();
        assert_eq!(rx.recv_many(&mut more, 10).await, 1);
        assert_eq!(more, [7]);
        sender.await.unwrap();
        assert_eq!(rx.recv_many(&mut more, 10).await, 0);
    });
}

#[test]
fn recv_many_frees_slots_for_waiting_senders() {
    run("recv_many frees", || async {
        let (tx, mut rx) = mpsc::channel::<u32>(2);
        let producer = rt::spawn(async move {
            for i in 0..100 {
                tx.send(i).await.unwrap();
            }
        });
        let mut all = Vec::new();
        while rx.recv_many(&mut all, 2).await > 0 {}
        producer.await.unwrap();
        assert_eq!(all, (0..100).collect::<Vec<_>>());
    });
}

#[test]
fn a_weak_sender_does_not_keep_the_channel_open() {
    run("weak sender", || async {
        let (tx, mut rx) = mpsc::channel::<u32>(2);
        let weak = tx.downgrade();
        assert_eq!((tx.strong_count(), tx.weak_count()), (1, 1));
        let again = weak.upgrade().expect("a sender is alive");
        again.send(1).await.unwrap();
        drop(again);
        drop(tx);
        assert_eq!(rx.recv().await, Some(1));
        // Every strong sender is gone: the receiver ends although `weak`
        // lives, and `weak` cannot come back.
        assert_eq!(rx.recv().await, None);
        assert!(weak.upgrade().is_none());

        let (tx, mut rx) = mpsc::unbounded_channel::<u32>();
        let weak = tx.downgrade();
        drop(tx);
        assert_eq!(rx.recv().await, None);
        assert!(weak.upgrade().is_none());
    });
}

#[test]
fn unbounded_keeps_order_per_sender_and_ends_after_close() {
    run("unbounded", || async {
        let (tx, mut rx) = mpsc::unbounded_channel::<(u32, u32)>();
        let mut producers = Vec::new();
        for p in 0..4 {
            let tx = tx.clone();
            producers.push(rt::spawn(async move {
                for i in 0..1000 {
                    tx.send((p, i)).unwrap();
                    if i % 100 == 0 {
                        rt::task::yield_now().await;
                    }
                }
            }));
        }
        drop(tx);
        let mut next = [0; 4];
        while let Some((p, i)) = rx.recv().await {
            assert_eq!(next[p as usize], i, "producer {p} out of order");
            next[p as usize] += 1;
        }
        assert_eq!(next, [1000; 4]);
        for producer in producers {
            producer.await.unwrap();
        }

        let (tx, mut rx) = mpsc::unbounded_channel::<u32>();
        tx.send(1).unwrap();
        rx.close();
        assert_eq!(tx.send(2).unwrap_err().0, 2);
        assert_eq!(rx.recv().await, Some(1));
        assert_eq!(rx.recv().await, None);
        assert_eq!(rx.try_recv(), Err(TryRecvError::Disconnected));
    });
}

#[test]
fn a_cancelled_send_leaves_the_queue_and_the_next_sender_gets_the_slot() {
    run("cancelled send", || async {
        let (tx, mut rx) = mpsc::channel::<u32>(1);
        tx.send(0).await.unwrap();
        // Times out waiting for room: cancelled while queued.
        let timed_out = rt::time::timeout(Duration::from_millis(10), tx.send(1)).await;
        assert!(timed_out.is_err());
        let tx2 = tx.clone();
        let later = rt::spawn(async move { tx2.send(2).await });
        rt::time::sleep(Duration::from_millis(10)).await;
        assert_eq!(rx.recv().await, Some(0));
        later.await.unwrap().unwrap();
        assert_eq!(rx.recv().await, Some(2));
    });
}

/// The unbounded receiver takes every queued value under one lock and
/// hands them out one by one: values it has taken but not handed out still
/// count in `len`, come out in order through `recv`, `try_recv` and
/// `recv_many`, and are dropped with the receiver, as values still queued
/// are.
#[test]
fn unbounded_values_taken_in_a_batch_still_count_come_in_order_and_drop() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};
    struct Counted(u32, Arc<AtomicUsize>);
    impl Drop for Counted {
        fn drop(&mut self) {
            self.1.fetch_add(1, Ordering::SeqCst);
        }
    }
    run("unbounded batches", || async {
        let dropped = Arc::new(AtomicUsize::new(0));
        let (tx, mut rx) = mpsc::unbounded_channel::<Counted>();
        for i in 0..6 {
            tx.send(Counted(i, dropped.clone())).ok().unwrap();
        }
        assert_eq!(rx.recv().await.unwrap().0, 0);
        assert_eq!(rx.len(), 5, "taken but not handed out still counts");
        assert!(!rx.is_empty());
        tx.send(Counted(6, dropped.clone())).ok().unwrap();
        assert_eq!(rx.len(), 6);
        assert_eq!(rx.try_recv().unwrap().0, 1);
        let mut some = Vec::new();
        assert_eq!(rx.recv_many(&mut some, 2).await, 2);
        assert_eq!(some.iter().map(|c| c.0).collect::<Vec<_>>(), [2, 3]);
        drop(some);
        assert_eq!(dropped.load(Ordering::SeqCst), 4);
        // 4 and 5 are taken, 6 is still in the shared queue: the receiver
        // drops all three.
        drop(rx);
        assert_eq!(dropped.load(Ordering::SeqCst), 7);
        assert!(tx.send(Counted(7, dropped.clone())).is_err());
    });
}
