//! Multi-producer, single-consumer channels: [`channel`] (bounded) and
//! [`unbounded_channel`].
//!
//! A bounded channel is back-pressure between tasks, as Chapter 4's
//! high-water mark was between a socket and its buffer: at most `buffer`
//! values wait in it, and a sender that finds it full waits (its task
//! parks; the thread does not block) until the receiver takes one. The
//! room is counted in *slots*. `send` is two steps, which the API also
//! offers apart: [`Sender::reserve`] waits for a slot and returns a
//! [`Permit`], and [`Permit::send`] puts the value into it, never waiting
//! and never failing. A permit lets a producer wait for room *before* it
//! builds or gives up its value (in a `select!`, say), and dropping it
//! unused gives the slot back to the next waiting sender.
//!
//! Waiting senders are served first come, first served: a freed slot is
//! granted to the oldest of them (`chan.rs`), and a sender that gives up
//! leaves the queue in O(1) (`wait_queue.rs`). The unbounded channel shares
//! the state, without slots.
//!
//! The receiver's `recv` returns `None` once the queue is empty and no value
//! can come any more: every sender is gone ([`WeakSender`]s do not count),
//! or the receiver was closed and every permit taken before has been used or
//! dropped (`rx.close(); while let Some(v) = rx.recv().await {}` drains and
//! ends). A send to a closed or dropped receiver gives the value back in a
//! [`SendError`].
//!
//! Cancel safety: `recv` and `recv_many` are cancel-safe (a value is taken
//! only by the poll that returns it), as is `closed`. `send`, `reserve` and
//! `reserve_owned` lose their place in the senders' queue when dropped, and
//! `send` drops its value.
//!
//! Written with one mutex around the channel's state, as the rest of
//! `sync/`: correct and small first; the book measures what Tokio's
//! lock-free channel buys over it.
//!
//! Book: Chapter 8, "Channels".

mod bounded;
mod chan;
pub mod error;
mod unbounded;
pub(crate) mod wait_queue;

pub use bounded::{OwnedPermit, Permit, PermitIterator, Receiver, Sender, WeakSender, channel};
pub use error::{SendError, SendTimeoutError, TryRecvError, TrySendError};
pub use unbounded::{UnboundedReceiver, UnboundedSender, WeakUnboundedSender, unbounded_channel};

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use crate::sync::poll_once as poll;
    use std::future::Future;
    use std::pin::Pin;
    use std::task::Poll;

    /// A send waiting for room, as the tests below poll it.
    type WaitingSend<'a> = Pin<Box<dyn Future<Output = Result<(), SendError<i32>>> + 'a>>;

    /// Fills `tx`'s channel of capacity 1 with a 0, starts two sends (of 1,
    /// then of 2) that wait for room, and takes the 0 out: the setting of
    /// the tests of the senders' line.
    fn two_waiting_sends<'a>(tx: &'a Sender<i32>, rx: &mut Receiver<i32>) -> [WaitingSend<'a>; 2] {
        tx.try_send(0).unwrap();
        let mut sends = [1, 2].map(|value| Box::pin(tx.send(value)) as WaitingSend<'a>);
        for send in &mut sends {
            assert!(poll(send).is_pending());
        }
        assert_eq!(rx.try_recv(), Ok(0));
        sends
    }

    #[test]
    fn values_arrive_in_order_and_none_after_the_last_sender() {
        let (tx, mut rx) = channel(4);
        let tx2 = tx.clone();
        tx.try_send(1).unwrap();
        tx2.try_send(2).unwrap();
        assert_eq!(rx.try_recv(), Ok(1));
        drop(tx);
        assert_eq!(rx.try_recv(), Ok(2));
        assert_eq!(rx.try_recv(), Err(TryRecvError::Empty));
        drop(tx2);
        assert_eq!(rx.try_recv(), Err(TryRecvError::Disconnected));
    }

    #[test]
    fn a_full_channel_makes_senders_wait_in_order() {
        let (tx, mut rx) = channel(1);
        let [mut first, mut second] = two_waiting_sends(&tx, &mut rx);
        // The slot was granted to the first: the second may not jump the
        // queue, nor may a try_send.
        assert!(poll(&mut second).is_pending());
        assert!(matches!(tx.try_send(9), Err(TrySendError::Full(9))));
        assert_eq!(poll(&mut first), Poll::Ready(Ok(())));
        assert_eq!(rx.try_recv(), Ok(1));
        assert_eq!(poll(&mut second), Poll::Ready(Ok(())));
        assert_eq!(rx.try_recv(), Ok(2));
    }

    #[test]
    fn a_cancelled_waiting_sender_passes_its_slot_on() {
        let (tx, mut rx) = channel(1);
        let [first, mut second] = two_waiting_sends(&tx, &mut rx);
        drop(first);
        assert_eq!(poll(&mut second), Poll::Ready(Ok(())));
        assert_eq!(rx.try_recv(), Ok(2));
        assert_eq!(tx.capacity(), 1);
    }

    #[test]
    fn a_permit_holds_a_slot_until_it_sends_or_drops() {
        let (tx, mut rx) = channel::<u8>(2);
        let permit = tx.try_reserve().unwrap();
        assert_eq!(tx.capacity(), 1);
        assert!(rx.is_empty());
        permit.send(7);
        assert_eq!((tx.capacity(), rx.len()), (1, 1));
        let permit = tx.try_reserve().unwrap();
        assert!(matches!(tx.try_reserve(), Err(TrySendError::Full(()))));
        drop(permit);
        assert_eq!(tx.capacity(), 1);
        assert_eq!(rx.try_recv(), Ok(7));
        assert_eq!(tx.capacity(), 2);
        assert_eq!(tx.max_capacity(), 2);
    }

    #[test]
    fn a_permit_taken_before_close_still_sends_and_recv_waits_for_it() {
        let (tx, mut rx) = channel::<u8>(2);
        let permit = tx.try_reserve().unwrap();
        rx.close();
        assert!(tx.is_closed() && rx.is_closed());
        assert!(matches!(tx.try_send(1), Err(TrySendError::Closed(1))));
        assert_eq!(rx.try_recv(), Err(TryRecvError::Empty));
        permit.send(2);
        assert_eq!(rx.try_recv(), Ok(2));
        assert_eq!(rx.try_recv(), Err(TryRecvError::Disconnected));
    }

    #[test]
    fn a_closed_receiver_drains_then_ends_while_senders_live() {
        let (tx, mut rx) = channel(4);
        tx.try_send(1).unwrap();
        tx.try_send(2).unwrap();
        rx.close();
        assert!(matches!(tx.try_send(3), Err(TrySendError::Closed(3))));
        assert_eq!(rx.try_recv(), Ok(1));
        let mut recv = Box::pin(rx.recv());
        assert_eq!(poll(&mut recv), Poll::Ready(Some(2)));
        drop(recv);
        let mut recv = Box::pin(rx.recv());
        assert_eq!(poll(&mut recv), Poll::Ready(None));
        drop(recv);
        assert_eq!(rx.try_recv(), Err(TryRecvError::Disconnected));
        drop(tx);
    }

    #[test]
    fn send_to_a_closed_receiver_returns_the_value() {
        let (tx, rx) = channel(1);
        drop(rx);
        assert!(tx.is_closed());
        assert!(matches!(tx.try_send(1), Err(TrySendError::Closed(1))));
        let mut send = Box::pin(tx.send(2));
        assert!(matches!(poll(&mut send), Poll::Ready(Err(SendError(2)))));
    }

    #[test]
    fn a_close_wakes_waiting_senders_with_an_error() {
        let (tx, mut rx) = channel(1);
        tx.try_send(0).unwrap();
        let mut send = Box::pin(tx.send(1));
        assert!(poll(&mut send).is_pending());
        rx.close();
        assert!(matches!(poll(&mut send), Poll::Ready(Err(SendError(1)))));
    }

    #[test]
    fn reserve_many_keeps_its_place_until_it_has_every_slot() {
        let (tx, mut rx) = channel::<u8>(3);
        tx.try_send(0).unwrap();
        tx.try_send(1).unwrap();
        // One slot free: the waiter for three takes it and waits for two.
        let mut many = Box::pin(tx.reserve_many(3));
        assert!(poll(&mut many).is_pending());
        assert_eq!(tx.capacity(), 0);
        let mut one = Box::pin(tx.reserve());
        assert!(poll(&mut one).is_pending());
        assert_eq!(rx.try_recv(), Ok(0));
        // The freed slot went to the head, not to the later single reserve.
        assert!(poll(&mut one).is_pending());
        assert!(matches!(tx.try_reserve(), Err(TrySendError::Full(()))));
        assert_eq!(rx.try_recv(), Ok(1));
        let Poll::Ready(Ok(mut permits)) = poll(&mut many) else {
            panic!("three slots were assigned");
        };
        drop(many);
        assert_eq!(permits.len(), 3);
        permits.next().unwrap().send(7);
        drop(permits);
        // The two unused slots went back: one to the waiting reserve.
        let Poll::Ready(Ok(permit)) = poll(&mut one) else {
            panic!("a slot came back");
        };
        drop((one, permit));
        assert_eq!(tx.capacity(), 2);
        assert_eq!(rx.try_recv(), Ok(7));
        assert!(matches!(
            tx.try_reserve_many(4),
            Err(TrySendError::Full(()))
        ));
        assert_eq!(tx.try_reserve_many(3).unwrap().len(), 3);
    }

    #[test]
    fn a_cancelled_reserve_many_passes_on_its_partial_slots() {
        let (tx, mut rx) = channel::<u8>(2);
        tx.try_send(0).unwrap();
        let mut many = Box::pin(tx.reserve_many(2));
        assert!(poll(&mut many).is_pending());
        let mut one = Box::pin(tx.reserve());
        assert!(poll(&mut one).is_pending());
        drop(many);
        // Its one assigned slot went to the next waiter.
        assert!(matches!(poll(&mut one), Poll::Ready(Ok(_))));
        drop(one);
        assert_eq!(rx.try_recv(), Ok(0));
        assert_eq!(tx.capacity(), 2);
        rx.close();
        let mut closed = Box::pin(tx.reserve_many(1));
        assert!(matches!(poll(&mut closed), Poll::Ready(Err(SendError(())))));
    }

    #[test]
    fn recv_many_takes_at_most_limit() {
        let (tx, mut rx) = unbounded_channel();
        for i in 0..5 {
            tx.send(i).unwrap();
        }
        let mut buffer = Vec::new();
        let mut many = Box::pin(rx.recv_many(&mut buffer, 3));
        assert_eq!(poll(&mut many), Poll::Ready(3));
        drop(many);
        assert_eq!(buffer, [0, 1, 2]);
        assert_eq!(rx.len(), 2);
    }
}

#[cfg(all(test, loom))]
mod loom_mpsc {
    use super::*;
    use crate::loom::thread;
    use crate::sync::mpsc::wait_queue::loom_block_on as block_on;

    /// A `reserve` waiting on a full channel is granted the slot of a permit
    /// dropped on another thread, on every interleaving (a lost grant would
    /// leave `block_on` parked for ever: loom reports the deadlock).
    #[test]
    fn loom_reserve_races_a_dropped_permit() {
        loom::model(|| {
            let (tx, mut rx) = channel::<u8>(1);
            let permit = tx.clone().try_reserve_owned().unwrap();
            let other = thread::spawn(move || drop(permit));
            let permit = block_on(tx.reserve()).unwrap();
            permit.send(1);
            assert_eq!(rx.try_recv(), Ok(1));
            other.join().unwrap();
        });
    }

    /// A `recv` waiting on an empty channel is woken by a send on another
    /// thread, and then by the last sender's drop.
    #[test]
    fn loom_recv_races_send_and_close() {
        loom::model(|| {
            let (tx, mut rx) = channel::<u8>(1);
            let other = thread::spawn(move || {
                tx.try_send(1).unwrap();
            });
            assert_eq!(block_on(rx.recv()), Some(1));
            assert_eq!(block_on(rx.recv()), None);
            other.join().unwrap();
        });
    }
}
