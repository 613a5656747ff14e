//! A channel for exactly one value.
//!
//! `Sender::send` stores the value and wakes the receiver; awaiting the
//! `Receiver` yields it, or an error if the sender was dropped without
//! sending. `Sender::closed` lets a producer notice that nobody is waiting
//! any more and stop early. `Receiver::close` refuses the value from then
//! on: a value sent before it can still be taken, and with none the
//! receiver ends with an error at once.
//!
//! Cancel safety: awaiting `Receiver` (by `&mut`) is cancel-safe: dropping
//! the wait loses no value, which the next wait or `try_recv` takes.
//!
//! Book: Chapter 7, "The LIFO slot".

use super::wait_list::store_waker;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::task::{Context, Poll, Waker};

/// Creates a one-shot channel.
pub fn channel<T>() -> (Sender<T>, Receiver<T>) {
    let shared = Arc::new(Shared {
        state: Mutex::new(State {
            value: None,
            sender_alive: true,
            receiver_alive: true,
            receiver_waker: None,
            sender_waker: None,
        }),
    });
    (
        Sender {
            shared: shared.clone(),
        },
        Receiver {
            shared,
            terminated: false,
        },
    )
}

/// Sends the value.
pub struct Sender<T> {
    shared: Arc<Shared<T>>,
}

/// Receives the value: a future of `Result<T, RecvError>`.
pub struct Receiver<T> {
    shared: Arc<Shared<T>>,
    /// A poll has returned `Ready`, or `try_recv` a final answer (see
    /// [`Receiver::is_terminated`]).
    terminated: bool,
}

/// The errors under the path Tokio gives them (`oneshot::error::...`).
pub mod error {
    pub use super::{RecvError, TryRecvError};
}

/// The sender was dropped without sending.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct RecvError;

/// `RecvError(())`, as Tokio's (a struct with one private unit field)
/// prints.
impl fmt::Debug for RecvError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("RecvError(())")
    }
}

/// `try_recv` found nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TryRecvError {
    /// Nothing sent yet.
    Empty,
    /// The sender is gone and sent nothing.
    Closed,
}

struct Shared<T> {
    state: Mutex<State<T>>,
}

struct State<T> {
    value: Option<T>,
    sender_alive: bool,
    receiver_alive: bool,
    receiver_waker: Option<Waker>,
    sender_waker: Option<Waker>,
}

impl<T> Shared<T> {
    fn lock(&self) -> MutexGuard<'_, State<T>> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// One side leaves: `leave` marks it gone, under the lock, and takes the
    /// other side's waker, which is woken once the lock is released.
    fn hang_up(&self, leave: impl FnOnce(&mut State<T>) -> Option<Waker>) {
        let waker = leave(&mut self.lock());
        if let Some(waker) = waker {
            waker.wake();
        }
    }
}

impl<T> Sender<T> {
    /// Sends the value. Gives it back if the receiver is gone.
    pub fn send(self, value: T) -> Result<(), T> {
        let waker = {
            let mut state = self.shared.lock();
            if !state.receiver_alive {
                return Err(value);
            }
            state.value = Some(value);
            state.receiver_waker.take()
        };
        // Wake outside the lock: the receiver may run on this thread at once.
        if let Some(waker) = waker {
            waker.wake();
        }
        Ok(())
    }

    /// True if the receiver was dropped or closed.
    pub fn is_closed(&self) -> bool {
        !self.shared.lock().receiver_alive
    }

    /// Completes when the receiver is dropped or closed.
    ///
    /// # Cancel safety
    ///
    /// Cancel-safe: it takes nothing.
    pub async fn closed(&mut self) {
        std::future::poll_fn(|cx| self.poll_closed(cx)).await
    }

    /// `Ready` if the receiver is dropped or closed; otherwise `Pending`,
    /// and `cx`'s waker (only the last one given) is woken when it is.
    pub fn poll_closed(&mut self, cx: &mut Context<'_>) -> Poll<()> {
        let mut state = self.shared.lock();
        if !state.receiver_alive {
            return Poll::Ready(());
        }
        store_waker(&mut state.sender_waker, cx.waker());
        Poll::Pending
    }
}

impl<T> Drop for Sender<T> {
    fn drop(&mut self) {
        self.shared.hang_up(|state| {
            state.sender_alive = false;
            state.receiver_waker.take()
        });
    }
}

impl<T> Receiver<T> {
    /// Takes the value if it is there, without waiting: `Empty` if none has
    /// been sent yet, `Closed` if none will come (the sender is gone, or
    /// this receiver was closed, or the value was received already).
    ///
    /// Any answer but `Empty` is final, so it terminates the receiver as a
    /// completed poll does, as in Tokio: [`is_terminated`](Self::is_terminated)
    /// turns true and the receiver must not be polled again.
    pub fn try_recv(&mut self) -> Result<T, TryRecvError> {
        if self.terminated {
            return Err(TryRecvError::Closed);
        }
        let mut state = self.shared.lock();
        let result = match state.value.take() {
            Some(value) => Ok(value),
            None if state.sender_alive && state.receiver_alive => return Err(TryRecvError::Empty),
            None => Err(TryRecvError::Closed),
        };
        drop(state);
        self.terminated = true;
        result
    }

    /// Waits for the value from synchronous code, blocking the thread.
    ///
    /// # Panics
    ///
    /// If called on a thread that runs a runtime's tasks (a worker, or
    /// inside `block_on`): use it from a plain thread or `spawn_blocking`.
    #[track_caller]
    pub fn blocking_recv(self) -> Result<T, RecvError> {
        crate::sync::blocking::wait(self)
    }

    /// True once awaiting the receiver has returned (a value or an error):
    /// it must not be polled again.
    pub fn is_terminated(&self) -> bool {
        self.terminated
    }

    /// True if no value waits in the channel now: none sent yet, none
    /// will be, or it was received already. (An empty receiver may still
    /// be pending; [`is_terminated`](Self::is_terminated) says whether it
    /// may be polled.)
    pub fn is_empty(&self) -> bool {
        self.terminated || self.shared.lock().value.is_none()
    }

    /// Refuses the value from now on: a later `send` fails and gives the
    /// value back. A value sent before can still be received; with none,
    /// awaiting the receiver returns `RecvError` at once.
    pub fn close(&mut self) {
        self.shared.hang_up(|state| {
            state.receiver_alive = false;
            state.sender_waker.take()
        });
    }
}

impl<T> Future for Receiver<T> {
    type Output = Result<T, RecvError>;

    /// # Panics
    ///
    /// If polled again after it returned `Ready` (see
    /// [`is_terminated`](Receiver::is_terminated)), as Tokio's receiver
    /// does ("called after complete"): the value, or the error, was given
    /// out once.
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.get_mut();
        assert!(!this.terminated, "called after complete");
        let budget = std::task::ready!(crate::task::coop::poll_proceed(cx));
        let mut state = this.shared.lock();
        if let Some(value) = state.value.take() {
            budget.made_progress();
            this.terminated = true;
            return Poll::Ready(Ok(value));
        }
        if !state.sender_alive || !state.receiver_alive {
            budget.made_progress();
            this.terminated = true;
            return Poll::Ready(Err(RecvError));
        }
        store_waker(&mut state.receiver_waker, cx.waker());
        Poll::Pending
    }
}

impl<T> Drop for Receiver<T> {
    fn drop(&mut self) {
        self.close();
        // Nobody will poll again: let the waker (and the task it holds) go
        // now, and a value sent before the drop with it.
        let (waker, value) = {
            let mut state = self.shared.lock();
            (state.receiver_waker.take(), state.value.take())
        };
        drop((waker, value));
    }
}

error_impls! {
    RecvError => [] "channel closed",
    TryRecvError => [] {
        TryRecvError::Empty => "channel empty",
        TryRecvError::Closed => "channel closed",
    },
}

debug_as_name! {
    Sender<T> => [T] "oneshot::Sender",
    Receiver<T> => [T] "oneshot::Receiver",
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use crate::sync::poll_once as poll;

    #[test]
    fn value_arrives() {
        let (tx, mut rx) = channel();
        assert!(poll(&mut rx).is_pending());
        tx.send(5).unwrap();
        assert_eq!(poll(&mut rx), Poll::Ready(Ok(5)));
    }

    #[test]
    fn dropped_sender_is_an_error() {
        let (tx, mut rx) = channel::<u8>();
        drop(tx);
        assert_eq!(poll(&mut rx), Poll::Ready(Err(RecvError)));
        assert_eq!(rx.try_recv(), Err(TryRecvError::Closed));
    }

    #[test]
    fn a_closed_receiver_ends_at_once_and_keeps_a_value_sent_before() {
        let (tx, mut rx) = channel::<u8>();
        rx.close();
        assert_eq!(poll(&mut rx), Poll::Ready(Err(RecvError)));
        assert!(tx.is_closed());
        assert_eq!(tx.send(1), Err(1));

        // `try_recv`'s `Closed` is as final as a completed poll.
        let (_tx, mut rx) = channel::<u8>();
        rx.close();
        assert_eq!(rx.try_recv(), Err(TryRecvError::Closed));
        assert!(rx.is_terminated());

        let (tx, mut rx) = channel();
        tx.send(7).unwrap();
        rx.close();
        assert_eq!(rx.try_recv(), Ok(7));
    }

    #[test]
    fn send_to_a_dropped_receiver_gives_the_value_back() {
        let (tx, rx) = channel();
        assert!(!tx.is_closed());
        drop(rx);
        assert!(tx.is_closed());
        assert_eq!(tx.send(3), Err(3));
    }
}
