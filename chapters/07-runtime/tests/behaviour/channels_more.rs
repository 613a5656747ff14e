//! The channels' finer points as Tokio documents them: permits and the
//! close, `recv_many`, weak senders, the unbounded channel, `watch` and
//! `broadcast` (lag counts, the close, capacity rounding).

use super::limit;
use crate::{rt, shim};
use rt::sync::broadcast::error::{
    RecvError as BroadcastRecvError, TryRecvError as BroadcastTryRecvError,
};
use rt::sync::mpsc::error::{TryRecvError, TrySendError};
use rt::sync::{broadcast, mpsc, watch};
use std::time::Duration;

#[test]
fn mpsc_a_permit_taken_before_close_still_sends() {
    let (tx, mut rx) = mpsc::channel::<u8>(2);
    let permit = tx.try_reserve().unwrap();
    rx.close();
    assert!(matches!(tx.try_send(1), Err(TrySendError::Closed(1))));
    assert!(matches!(tx.try_reserve(), Err(TrySendError::Closed(()))));
    permit.send(2);
    assert_eq!(rx.try_recv(), Ok(2));
    assert_eq!(rx.try_recv(), Err(TryRecvError::Disconnected));
}

#[test]
fn mpsc_recv_waits_for_an_outstanding_permit_after_close() {
    limit("mpsc recv after close with a permit", || {
        let runtime = shim::runtime();
        runtime.block_on(async {
            let (tx, mut rx) = mpsc::channel::<u8>(2);
            let permit = tx.clone().reserve_owned().await.unwrap();
            rx.close();
            let sender = rt::spawn(async move {
                rt::time::sleep(Duration::from_millis(10)).await;
                drop(permit.send(5));
            });
            assert_eq!(rx.recv().await, Some(5));
            sender.await.unwrap();
            drop(tx);
            assert_eq!(rx.recv().await, None);
        });
    });
}

#[test]
fn mpsc_capacity_counts_permits_and_a_dropped_permit_returns_its_slot() {
    let (tx, mut rx) = mpsc::channel::<u8>(2);
    let permit = tx.try_reserve().unwrap();
    assert_eq!(tx.capacity(), 1);
    tx.try_send(1).unwrap();
    assert_eq!(tx.capacity(), 0);
    assert!(matches!(tx.try_reserve(), Err(TrySendError::Full(()))));
    drop(permit);
    assert_eq!(tx.capacity(), 1);
    assert_eq!(rx.len(), 1);
    assert_eq!(rx.try_recv(), Ok(1));
    assert_eq!(tx.capacity(), 2);
}

#[test]
fn mpsc_recv_many_with_limit_zero_returns_zero_at_once() {
    limit("mpsc recv_many 0", || {
        let runtime = shim::runtime();
        runtime.block_on(async {
            let (tx, mut rx) = mpsc::channel::<u8>(4);
            let mut buffer = Vec::new();
            assert_eq!(rx.recv_many(&mut buffer, 0).await, 0);
            tx.send(1).await.unwrap();
            tx.send(2).await.unwrap();
            assert_eq!(rx.recv_many(&mut buffer, 1).await, 1);
            assert_eq!(rx.recv_many(&mut buffer, 8).await, 1);
            assert_eq!(buffer, [1, 2]);
            drop(tx);
            assert_eq!(rx.recv_many(&mut buffer, 8).await, 0);
        });
    });
}

#[test]
fn mpsc_weak_sender_does_not_keep_the_receiver_waiting() {
    let (tx, mut rx) = mpsc::channel::<u8>(1);
    let weak = tx.downgrade();
    assert!(!rx.is_closed());
    drop(tx);
    assert!(rx.is_closed());
    assert_eq!(rx.try_recv(), Err(TryRecvError::Disconnected));
    assert!(weak.upgrade().is_none());
}

#[test]
fn mpsc_unbounded_send_after_close_fails_and_the_queue_drains() {
    let (tx, mut rx) = mpsc::unbounded_channel::<u8>();
    tx.send(1).unwrap();
    rx.close();
    assert!(tx.is_closed());
    assert_eq!(tx.send(2).unwrap_err().0, 2);
    assert_eq!(rx.try_recv(), Ok(1));
    assert_eq!(rx.try_recv(), Err(TryRecvError::Disconnected));
}

#[test]
fn watch_has_changed_is_an_error_once_the_sender_is_gone() {
    let (tx, mut rx) = watch::channel(0);
    tx.send(1).unwrap();
    drop(tx);
    // has_changed reports the close even with an unseen value...
    assert!(rx.has_changed().is_err());
    // ...but borrow still says the value is new.
    assert!(rx.borrow().has_changed());
    assert_eq!(*rx.borrow_and_update(), 1);
}

#[test]
fn watch_changed_reports_the_last_value_before_the_close() {
    limit("watch changed then closed", || {
        let runtime = shim::runtime();
        runtime.block_on(async {
            let (tx, mut rx) = watch::channel(0);
            tx.send(1).unwrap();
            drop(tx);
            assert!(rx.changed().await.is_ok());
            assert!(rx.changed().await.is_err());
        });
    });
}

#[test]
fn watch_subscribe_sees_the_current_value_as_seen_and_clone_keeps_the_mark() {
    let (tx, rx) = watch::channel(0);
    tx.send(1).unwrap();
    let fresh = tx.subscribe();
    assert!(!fresh.has_changed().unwrap());
    let copy = rx.clone();
    assert!(copy.has_changed().unwrap());
    assert_eq!(tx.receiver_count(), 3);
    assert!(tx.send_if_modified(|v| {
        *v += 1;
        true
    }));
    assert!(fresh.has_changed().unwrap());
}

#[test]
fn broadcast_capacity_is_rounded_up_to_a_power_of_two() {
    let (tx, mut rx) = broadcast::channel::<u32>(3);
    for i in 0..4 {
        tx.send(i).unwrap();
    }
    // Four fit in a channel asked for three.
    assert_eq!(rx.try_recv(), Ok(0));
    for i in 4..9 {
        tx.send(i).unwrap();
    }
    assert_eq!(rx.try_recv(), Err(BroadcastTryRecvError::Lagged(4)));
    assert_eq!(rx.try_recv(), Ok(5));
}

#[test]
fn broadcast_len_counts_values_some_receiver_has_not_read() {
    let (tx, mut a) = broadcast::channel::<u32>(8);
    let mut b = tx.subscribe();
    tx.send(1).unwrap();
    tx.send(2).unwrap();
    assert_eq!(tx.len(), 2);
    assert_eq!(a.try_recv(), Ok(1));
    assert_eq!(tx.len(), 2);
    assert_eq!(b.try_recv(), Ok(1));
    assert_eq!(tx.len(), 1);
    drop(a);
    drop(b);
    assert!(tx.is_empty());
    assert_eq!(tx.send(3).unwrap_err().0, 3);
}

#[test]
fn broadcast_lagged_then_closed() {
    limit("broadcast lagged then closed", || {
        let runtime = shim::runtime();
        runtime.block_on(async {
            let (tx, mut rx) = broadcast::channel::<u32>(2);
            for i in 0..5 {
                tx.send(i).unwrap();
            }
            drop(tx);
            assert_eq!(rx.recv().await, Err(BroadcastRecvError::Lagged(3)));
            assert_eq!(rx.recv().await, Ok(3));
            assert_eq!(rx.recv().await, Ok(4));
            assert_eq!(rx.recv().await, Err(BroadcastRecvError::Closed));
        });
    });
}

#[test]
fn broadcast_resubscribe_starts_at_the_tail() {
    let (tx, mut rx) = broadcast::channel::<u32>(4);
    tx.send(1).unwrap();
    let mut late = rx.resubscribe();
    tx.send(2).unwrap();
    assert_eq!(late.try_recv(), Ok(2));
    assert_eq!(rx.try_recv(), Ok(1));
    assert_eq!(late.try_recv(), Err(BroadcastTryRecvError::Empty));
}
