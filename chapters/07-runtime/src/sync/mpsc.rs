//! A bounded multi-producer, single-consumer channel.
//!
//! At most `capacity` values wait in the channel; a sender that finds it full
//! waits (its task parks, it does not block the thread) until the receiver
//! takes one. This is back-pressure between tasks, as Chapter 4's high-water
//! mark was between a socket and its buffer. Waiting senders are woken in
//! the order they arrived, one per freed slot.
//!
//! The receiver's `recv` returns `None` once the queue is empty and no value
//! can come any more: every sender is gone, or the receiver was closed
//! (`close` refuses new values but keeps those queued, so `rx.close();
//! while let Some(v) = rx.recv().await {}` drains and ends). A send to a
//! closed or dropped receiver gives the value back in a `SendError`.
//!
//! Cancel safety: `recv` is cancel-safe (a value is taken only in the poll
//! that returns it). `send` is not, quite: dropping it while it waits for
//! room drops the value, and it loses its place in the senders' queue.
//!
//! Book: Chapter 7, "The LIFO slot".

use std::collections::VecDeque;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::task::{Context, Poll, Waker};

/// Creates a channel holding at most `capacity` values.
///
/// # Panics
///
/// If `capacity` is zero.
pub fn channel<T>(capacity: usize) -> (Sender<T>, Receiver<T>) {
    assert!(capacity > 0, "mpsc channel capacity must be at least 1");
    let shared = Arc::new(Shared {
        state: Mutex::new(State {
            queue: VecDeque::with_capacity(capacity.min(1024)),
            capacity,
            senders: 1,
            receiver_alive: true,
            receiver_waker: None,
            waiting_senders: VecDeque::new(),
            next_waiter_id: 0,
        }),
    });
    (
        Sender {
            shared: shared.clone(),
        },
        Receiver { shared },
    )
}

/// Sends values; clone it for more producers.
pub struct Sender<T> {
    shared: Arc<Shared<T>>,
}

/// Receives values.
pub struct Receiver<T> {
    shared: Arc<Shared<T>>,
}

/// The receiver is gone; here is your value back.
#[derive(PartialEq, Eq)]
pub struct SendError<T>(pub T);

/// Why `try_send` did not send.
#[derive(PartialEq, Eq)]
pub enum TrySendError<T> {
    /// The channel is full.
    Full(T),
    /// The receiver is gone.
    Closed(T),
}

/// Why `try_recv` returned nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TryRecvError {
    /// Nothing queued now.
    Empty,
    /// Nothing queued, and every sender is gone.
    Disconnected,
}

struct Shared<T> {
    state: Mutex<State<T>>,
}

struct State<T> {
    queue: VecDeque<T>,
    capacity: usize,
    senders: usize,
    receiver_alive: bool,
    receiver_waker: Option<Waker>,
    /// Senders waiting for room, oldest first.
    waiting_senders: VecDeque<(u64, Waker)>,
    next_waiter_id: u64,
}

impl<T> Shared<T> {
    fn lock(&self) -> MutexGuard<'_, State<T>> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl<T> State<T> {
    fn has_room(&self) -> bool {
        self.queue.len() < self.capacity
    }
}

impl<T> Sender<T> {
    /// Sends `value`, waiting for room if the channel is full.
    pub fn send(&self, value: T) -> Send<'_, T> {
        Send {
            sender: self,
            value: Some(value),
            waiter: None,
        }
    }

    /// Sends `value` if there is room now.
    pub fn try_send(&self, value: T) -> Result<(), TrySendError<T>> {
        let waker = {
            let mut state = self.shared.lock();
            if !state.receiver_alive {
                return Err(TrySendError::Closed(value));
            }
            if !state.has_room() {
                return Err(TrySendError::Full(value));
            }
            state.queue.push_back(value);
            state.receiver_waker.take()
        };
        if let Some(waker) = waker {
            waker.wake();
        }
        Ok(())
    }

    /// True if the receiver was dropped or closed.
    pub fn is_closed(&self) -> bool {
        !self.shared.lock().receiver_alive
    }
}

impl<T> Clone for Sender<T> {
    fn clone(&self) -> Sender<T> {
        self.shared.lock().senders += 1;
        Sender {
            shared: self.shared.clone(),
        }
    }
}

impl<T> Drop for Sender<T> {
    fn drop(&mut self) {
        let waker = {
            let mut state = self.shared.lock();
            state.senders -= 1;
            if state.senders > 0 {
                return;
            }
            state.receiver_waker.take()
        };
        if let Some(waker) = waker {
            waker.wake();
        }
    }
}

/// The future returned by [`Sender::send`].
pub struct Send<'a, T> {
    sender: &'a Sender<T>,
    value: Option<T>,
    /// Our place in the waiting list, once we had to wait.
    waiter: Option<u64>,
}

impl<T> Unpin for Send<'_, T> {}

impl<T> Future for Send<'_, T> {
    type Output = Result<(), SendError<T>>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = &mut *self;
        let mut state = this.sender.shared.lock();
        let value = this.value.take().expect("Send polled after it completed");
        if !state.receiver_alive {
            remove_waiter(&mut state, this.waiter.take());
            return Poll::Ready(Err(SendError(value)));
        }
        // Take a free slot only if no earlier sender is still waiting for
        // one (first come, first served), unless we are the one woken.
        let woken_or_first = match this.waiter {
            Some(id) => !state
                .waiting_senders
                .iter()
                .any(|(waiting, _)| *waiting == id),
            None => state.waiting_senders.is_empty(),
        };
        if state.has_room() && woken_or_first {
            remove_waiter(&mut state, this.waiter.take());
            state.queue.push_back(value);
            let receiver = state.receiver_waker.take();
            // If there is still room, pass the turn on.
            let next = if state.has_room() {
                state.waiting_senders.pop_front()
            } else {
                None
            };
            drop(state);
            if let Some(waker) = receiver {
                waker.wake();
            }
            if let Some((_, waker)) = next {
                waker.wake();
            }
            return Poll::Ready(Ok(()));
        }
        this.value = Some(value);
        match this.waiter {
            Some(id) => {
                if let Some(entry) = state
                    .waiting_senders
                    .iter_mut()
                    .find(|(waiting, _)| *waiting == id)
                {
                    if !entry.1.will_wake(cx.waker()) {
                        entry.1 = cx.waker().clone();
                    }
                } else {
                    // Woken, but another sender took the slot: queue again.
                    state.waiting_senders.push_front((id, cx.waker().clone()));
                }
            }
            None => {
                let id = state.next_waiter_id;
                state.next_waiter_id += 1;
                state.waiting_senders.push_back((id, cx.waker().clone()));
                this.waiter = Some(id);
            }
        }
        Poll::Pending
    }
}

impl<T> Drop for Send<'_, T> {
    fn drop(&mut self) {
        let Some(id) = self.waiter else {
            return;
        };
        if self.value.is_none() {
            return;
        }
        // Cancelled while waiting. If we had been woken (our entry is gone),
        // that wake-up was a free slot meant for us: pass it on.
        let next = {
            let mut state = self.sender.shared.lock();
            let was_queued = state
                .waiting_senders
                .iter()
                .any(|(waiting, _)| *waiting == id);
            remove_waiter(&mut state, Some(id));
            if !was_queued && state.has_room() {
                state.waiting_senders.pop_front()
            } else {
                None
            }
        };
        if let Some((_, waker)) = next {
            waker.wake();
        }
    }
}

fn remove_waiter<T>(state: &mut State<T>, id: Option<u64>) {
    if let Some(id) = id {
        state.waiting_senders.retain(|(waiting, _)| *waiting != id);
    }
}

impl<T> Receiver<T> {
    /// Receives the next value; `None` once the channel is empty and closed
    /// (every sender gone, or [`close`](Self::close) called).
    pub async fn recv(&mut self) -> Option<T> {
        std::future::poll_fn(|cx| self.poll_recv(cx)).await
    }

    /// Polls for the next value.
    pub fn poll_recv(&mut self, cx: &mut Context<'_>) -> Poll<Option<T>> {
        let budget = std::task::ready!(crate::task::coop::poll_proceed(cx));
        let mut state = self.shared.lock();
        if let Some(value) = state.queue.pop_front() {
            let next = state.waiting_senders.pop_front();
            drop(state);
            budget.made_progress();
            if let Some((_, waker)) = next {
                waker.wake();
            }
            return Poll::Ready(Some(value));
        }
        if state.senders == 0 || !state.receiver_alive {
            budget.made_progress();
            return Poll::Ready(None);
        }
        match &state.receiver_waker {
            Some(waker) if waker.will_wake(cx.waker()) => {}
            _ => state.receiver_waker = Some(cx.waker().clone()),
        }
        Poll::Pending
    }

    /// Takes a value if one is queued.
    pub fn try_recv(&mut self) -> Result<T, TryRecvError> {
        let mut state = self.shared.lock();
        match state.queue.pop_front() {
            Some(value) => {
                let next = state.waiting_senders.pop_front();
                drop(state);
                if let Some((_, waker)) = next {
                    waker.wake();
                }
                Ok(value)
            }
            None if state.senders == 0 || !state.receiver_alive => Err(TryRecvError::Disconnected),
            None => Err(TryRecvError::Empty),
        }
    }

    /// Refuses new values; those already queued can still be received.
    pub fn close(&mut self) {
        let waiting: Vec<Waker> = {
            let mut state = self.shared.lock();
            state.receiver_alive = false;
            state
                .waiting_senders
                .drain(..)
                .map(|(_, waker)| waker)
                .collect()
        };
        waiting.into_iter().for_each(Waker::wake);
    }
}

impl<T> Drop for Receiver<T> {
    fn drop(&mut self) {
        self.close();
        // Drop queued values and our waker now rather than when the last
        // sender goes: the waker holds a task alive.
        let (queued, waker) = {
            let mut state = self.shared.lock();
            (
                std::mem::take(&mut state.queue),
                state.receiver_waker.take(),
            )
        };
        drop((queued, waker));
    }
}

impl<T> fmt::Debug for SendError<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("SendError(..)")
    }
}

impl<T> fmt::Display for SendError<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the receiver is gone")
    }
}

impl<T> std::error::Error for SendError<T> {}

impl<T> fmt::Debug for TrySendError<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TrySendError::Full(_) => f.write_str("Full(..)"),
            TrySendError::Closed(_) => f.write_str("Closed(..)"),
        }
    }
}

impl<T> fmt::Debug for Sender<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("mpsc::Sender")
    }
}

impl<T> fmt::Debug for Receiver<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("mpsc::Receiver")
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    fn poll<F: Future + Unpin>(future: &mut F) -> Poll<F::Output> {
        Pin::new(future).poll(&mut Context::from_waker(Waker::noop()))
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
        tx.try_send(0).unwrap();
        let mut first = tx.send(1);
        let mut second = tx.send(2);
        assert!(poll(&mut first).is_pending());
        assert!(poll(&mut second).is_pending());
        assert_eq!(rx.try_recv(), Ok(0));
        // The second may not jump the queue.
        assert!(poll(&mut second).is_pending());
        assert_eq!(poll(&mut first), Poll::Ready(Ok(())));
        assert_eq!(rx.try_recv(), Ok(1));
        assert_eq!(poll(&mut second), Poll::Ready(Ok(())));
        assert_eq!(rx.try_recv(), Ok(2));
    }

    #[test]
    fn a_cancelled_waiting_sender_passes_its_turn_on() {
        let (tx, mut rx) = channel(1);
        tx.try_send(0).unwrap();
        let mut first = tx.send(1);
        let mut second = tx.send(2);
        assert!(poll(&mut first).is_pending());
        assert!(poll(&mut second).is_pending());
        assert_eq!(rx.try_recv(), Ok(0));
        drop(first);
        assert_eq!(poll(&mut second), Poll::Ready(Ok(())));
        assert_eq!(rx.try_recv(), Ok(2));
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
        assert_eq!(
            recv.as_mut().poll(&mut Context::from_waker(Waker::noop())),
            Poll::Ready(Some(2))
        );
        drop(recv);
        let mut recv = Box::pin(rx.recv());
        assert_eq!(
            recv.as_mut().poll(&mut Context::from_waker(Waker::noop())),
            Poll::Ready(None)
        );
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
        let mut send = tx.send(2);
        assert!(matches!(poll(&mut send), Poll::Ready(Err(SendError(2)))));
    }
}
