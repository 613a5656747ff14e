//! Needs `mpsc::Sender::closed(&self)` (Tokio: `pub async fn closed(&self)`),
//! `Sender::capacity(&self) -> usize` and `Sender::max_capacity(&self) -> usize`.
//! Once compiled against Tokio only; rt has these APIs now, and every
//! entry file of the suite compiles this module.

use crate::behaviour::limit;
use crate::{rt, shim};
use rt::sync::mpsc;
use std::time::Duration;

const PATIENCE: Duration = Duration::from_secs(5);

#[test]
fn mpsc_sender_closed_resolves_when_the_receiver_drops() {
    limit("mpsc Sender::closed", || {
        let runtime = shim::runtime();
        runtime.block_on(async {
            let (tx, rx) = mpsc::channel::<u8>(1);
            let waiter = rt::spawn(async move { tx.closed().await });
            rt::time::sleep(Duration::from_millis(10)).await;
            assert!(!waiter.is_finished());
            drop(rx);
            rt::time::timeout(PATIENCE, waiter)
                .await
                .expect("closed() not woken")
                .unwrap();
        });
    });
}

#[test]
fn mpsc_capacity_counts_free_slots_and_max_capacity_is_fixed() {
    let (tx, mut rx) = mpsc::channel::<u8>(3);
    assert_eq!(tx.capacity(), 3);
    assert_eq!(tx.max_capacity(), 3);
    tx.try_send(1).unwrap();
    assert_eq!(tx.capacity(), 2);
    assert_eq!(tx.max_capacity(), 3);
    rx.try_recv().unwrap();
    assert_eq!(tx.capacity(), 3);
}
