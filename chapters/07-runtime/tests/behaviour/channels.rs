//! `oneshot` and bounded `mpsc`.

use super::limit;
use crate::{rt, shim};
use rt::sync::{mpsc, oneshot};
use std::time::Duration;

const PATIENCE: Duration = Duration::from_secs(5);

// ---- oneshot ----

#[test]
fn oneshot_value_sent_from_a_task_arrives() {
    limit("oneshot send/recv", || {
        let runtime = shim::runtime();
        let v = runtime.block_on(async {
            let (tx, rx) = oneshot::channel();
            rt::spawn(async move {
                rt::time::sleep(Duration::from_millis(5)).await;
                tx.send("hello").unwrap();
            });
            rx.await
        });
        assert_eq!(v.unwrap(), "hello");
    });
}

#[test]
fn oneshot_sender_dropped_is_a_recv_error() {
    limit("oneshot sender dropped", || {
        let runtime = shim::runtime();
        let v = runtime.block_on(async {
            let (tx, rx) = oneshot::channel::<u8>();
            rt::spawn(async move {
                rt::time::sleep(Duration::from_millis(5)).await;
                drop(tx);
            });
            rx.await
        });
        let _: shim::OneshotRecvError = v.unwrap_err();
    });
}

#[test]
fn oneshot_try_recv_is_empty_then_the_value_then_closed() {
    let (tx, mut rx) = oneshot::channel::<u8>();
    assert_eq!(rx.try_recv(), Err(shim::OneshotTryRecvError::Empty));
    tx.send(4).unwrap();
    assert_eq!(rx.try_recv(), Ok(4));
    // The value was taken; the sender is gone: closed.
    assert_eq!(rx.try_recv(), Err(shim::OneshotTryRecvError::Closed));
}

#[test]
fn oneshot_try_recv_after_sender_drop_is_closed() {
    let (tx, mut rx) = oneshot::channel::<u8>();
    drop(tx);
    assert_eq!(rx.try_recv(), Err(shim::OneshotTryRecvError::Closed));
}

#[test]
fn oneshot_send_to_a_dropped_receiver_returns_the_value() {
    let (tx, rx) = oneshot::channel::<String>();
    drop(rx);
    assert!(tx.is_closed());
    assert_eq!(tx.send("back".to_string()), Err("back".to_string()));
}

#[test]
fn oneshot_sender_closed_resolves_when_the_receiver_drops() {
    limit("oneshot Sender::closed", || {
        let runtime = shim::runtime();
        runtime.block_on(async {
            let (mut tx, rx) = oneshot::channel::<u8>();
            let waiter = rt::spawn(async move { tx.closed().await });
            rt::time::sleep(Duration::from_millis(10)).await;
            assert!(!waiter.is_finished());
            drop(rx);
            rt::time::timeout(PATIENCE, waiter)
                .await
                .expect("Sender::closed did not resolve after the receiver dropped")
                .unwrap();
        });
    });
}

#[test]
fn oneshot_value_sent_before_the_receiver_polls_is_kept() {
    limit("oneshot send before recv", || {
        let runtime = shim::runtime();
        let (tx, rx) = oneshot::channel();
        tx.send(1u8).unwrap();
        assert_eq!(runtime.block_on(rx).unwrap(), 1);
    });
}

// ---- mpsc ----

#[test]
fn mpsc_values_from_one_sender_arrive_in_order() {
    limit("mpsc fifo", || {
        let runtime = shim::runtime();
        let got = runtime.block_on(async {
            let (tx, mut rx) = mpsc::channel(4);
            rt::spawn(async move {
                for i in 0..100u32 {
                    tx.send(i).await.unwrap();
                }
            });
            let mut got = Vec::new();
            while let Some(v) = rx.recv().await {
                got.push(v);
            }
            got
        });
        assert_eq!(got, (0..100).collect::<Vec<_>>());
    });
}

#[test]
fn mpsc_each_sender_order_is_kept_with_many_senders() {
    limit("mpsc fifo per sender", || {
        let runtime = shim::runtime();
        let got = runtime.block_on(async {
            let (tx, mut rx) = mpsc::channel(2);
            for s in 0..4u32 {
                let tx = tx.clone();
                rt::spawn(async move {
                    for i in 0..50u32 {
                        tx.send((s, i)).await.unwrap();
                    }
                });
            }
            drop(tx);
            let mut got = Vec::new();
            while let Some(v) = rx.recv().await {
                got.push(v);
            }
            got
        });
        assert_eq!(got.len(), 200);
        for s in 0..4 {
            let mine: Vec<u32> = got
                .iter()
                .filter(|(x, _)| *x == s)
                .map(|(_, i)| *i)
                .collect();
            assert_eq!(
                mine,
                (0..50).collect::<Vec<_>>(),
                "sender {s}'s values out of order"
            );
        }
    });
}

#[test]
fn mpsc_try_send_on_a_full_channel_is_full() {
    let (tx, mut rx) = mpsc::channel::<u8>(2);
    tx.try_send(1).unwrap();
    tx.try_send(2).unwrap();
    assert!(matches!(
        tx.try_send(3),
        Err(shim::MpscTrySendError::Full(3))
    ));
    assert_eq!(rx.try_recv(), Ok(1));
    tx.try_send(3).unwrap();
}

#[test]
fn mpsc_try_send_after_receiver_drop_is_closed() {
    let (tx, rx) = mpsc::channel::<u8>(2);
    drop(rx);
    assert!(tx.is_closed());
    assert!(matches!(
        tx.try_send(1),
        Err(shim::MpscTrySendError::Closed(1))
    ));
}

#[test]
fn mpsc_send_waits_while_the_channel_is_full() {
    limit("mpsc backpressure", || {
        let runtime = shim::runtime();
        runtime.block_on(async {
            let (tx, mut rx) = mpsc::channel::<u8>(1);
            tx.send(1).await.unwrap();
            let sender = rt::spawn(async move {
                tx.send(2).await.unwrap();
            });
            rt::time::sleep(Duration::from_millis(30)).await;
            assert!(!sender.is_finished(), "send completed on a full channel");
            assert_eq!(rx.recv().await, Some(1));
            rt::time::timeout(PATIENCE, sender)
                .await
                .expect("the waiting send was not woken when room appeared")
                .unwrap();
            assert_eq!(rx.recv().await, Some(2));
        });
    });
}

#[test]
fn mpsc_recv_returns_none_after_all_senders_drop_and_the_queue_drains() {
    limit("mpsc none after senders", || {
        let runtime = shim::runtime();
        runtime.block_on(async {
            let (tx, mut rx) = mpsc::channel::<u8>(4);
            let tx2 = tx.clone();
            tx.send(1).await.unwrap();
            tx2.send(2).await.unwrap();
            drop(tx);
            assert_eq!(rx.recv().await, Some(1));
            drop(tx2);
            assert_eq!(rx.recv().await, Some(2));
            assert_eq!(rx.recv().await, None);
            assert_eq!(rx.try_recv(), Err(shim::MpscTryRecvError::Disconnected));
        });
    });
}

#[test]
fn mpsc_recv_waiting_is_woken_by_the_last_sender_drop() {
    limit("mpsc recv woken by sender drop", || {
        let runtime = shim::runtime();
        runtime.block_on(async {
            let (tx, mut rx) = mpsc::channel::<u8>(4);
            let receiver = rt::spawn(async move { rx.recv().await });
            rt::time::sleep(Duration::from_millis(10)).await;
            drop(tx);
            let v = rt::time::timeout(PATIENCE, receiver)
                .await
                .expect("recv not woken when the last sender dropped")
                .unwrap();
            assert_eq!(v, None);
        });
    });
}

#[test]
fn mpsc_try_recv_is_empty_while_a_sender_lives() {
    let (tx, mut rx) = mpsc::channel::<u8>(4);
    assert_eq!(rx.try_recv(), Err(shim::MpscTryRecvError::Empty));
    drop(tx);
    assert_eq!(rx.try_recv(), Err(shim::MpscTryRecvError::Disconnected));
}

#[test]
fn mpsc_dropping_the_receiver_drops_queued_values() {
    use std::sync::Arc;
    let (tx, rx) = mpsc::channel::<Arc<()>>(4);
    let value = Arc::new(());
    tx.try_send(value.clone()).unwrap();
    assert_eq!(Arc::strong_count(&value), 2);
    drop(rx);
    assert_eq!(
        Arc::strong_count(&value),
        1,
        "the queued value outlived the receiver"
    );
}

#[test]
#[should_panic]
fn mpsc_channel_of_capacity_zero_panics() {
    let _ = mpsc::channel::<u8>(0);
}
