//! Reference solution for ch08_notify_permit.

use std::collections::{HashSet, VecDeque};
use std::future::Future;
use std::pin::Pin;
use std::sync::{Mutex, MutexGuard};
use std::task::{Context, Poll, Waker};

/// Wakes one waiting task, or keeps a permit for the next one that waits.
pub struct Notify {
    state: Mutex<State>,
}

/// Everything behind the lock.
struct State {
    /// A `notify_one` came while nobody waited (at most one is kept).
    permit: bool,
    /// The waiting `Notified`s, oldest first: id and waker.
    waiters: VecDeque<(u64, Waker)>,
    /// Waiters taken off the queue by `notify_one` whose `Notified` has not
    /// seen it yet.
    notified: HashSet<u64>,
    /// The id the next waiter gets.
    next_id: u64,
}

/// The future [`Notify::notified`] returns.
pub struct Notified<'a> {
    notify: &'a Notify,
    /// `Some(id)` once it has queued.
    id: Option<u64>,
}

impl Notify {
    /// No permit, nobody waiting.
    pub fn new() -> Notify {
        Notify {
            state: Mutex::new(State {
                permit: false,
                waiters: VecDeque::new(),
                notified: HashSet::new(),
                next_id: 0,
            }),
        }
    }

    /// Waits for a notification (nothing happens until it is polled).
    ///
    pub fn notified(&self) -> Notified<'_> {
        Notified {
            notify: self,
            id: None,
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Wakes the oldest waiter, or stores the permit if nobody waits.
    pub fn notify_one(&self) {
        let mut state = self.lock();
        match state.waiters.pop_front() {
            Some((id, waker)) => {
                state.notified.insert(id);
                drop(state);
                waker.wake();
            }
            None => state.permit = true,
        }
    }
}

impl Future for Notified<'_> {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let this = self.get_mut();
        let mut state = this.notify.lock();
        match this.id {
            None => {
                if state.permit {
                    state.permit = false;
                    return Poll::Ready(());
                }
                let id = state.next_id;
                state.next_id += 1;
                state.waiters.push_back((id, cx.waker().clone()));
                this.id = Some(id);
                Poll::Pending
            }
            Some(id) => {
                if state.notified.remove(&id) {
                    return Poll::Ready(());
                }
                if let Some((_, waker)) = state.waiters.iter_mut().find(|(w, _)| *w == id) {
                    waker.clone_from(cx.waker());
                }
                Poll::Pending
            }
        }
    }
}

impl Default for Notify {
    fn default() -> Notify {
        Notify::new()
    }
}

impl Drop for Notified<'_> {
    /// A waiter dropped while queued leaves the queue; one dropped after
    /// `notify_one` chose it, but before it saw that, passes the
    /// notification on, so it is not lost.
    fn drop(&mut self) {
        let Some(id) = self.id else {
            return;
        };
        let mut state = self.notify.lock();
        state.waiters.retain(|(waiter, _)| *waiter != id);
        let pass_on = state.notified.remove(&id);
        drop(state);
        if pass_on {
            self.notify.notify_one();
        }
    }
}
