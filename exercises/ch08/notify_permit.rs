//! Exercise ch08_notify_permit: the notification that waits for its waiter.
//!
//! `Notify` wakes a waiting task, and carries no data (Chapter 8, "Locks
//! and notification", "Notify, and the lost notification"). Its one subtle part is the *permit*. A task that
//! checks a condition, finds it false and then waits has a gap between the
//! check and the wait; if the other side changes the condition and calls
//! `notify_one` in that gap, a `Notify` that only wakes tasks already
//! waiting would wake nobody, and the task would then wait forever: the
//! lost notification. So `notify_one` with nobody waiting stores a permit,
//! and the next wait consumes it and returns at once. Only one is stored:
//! ten `notify_one`s with nobody waiting let one wait through, not ten.
//!
//! The types, `new`, `notified` and the `Drop` of a `Notified` are written
//! for you. Write `notify_one` and `Notified::poll`, as their doc comments
//! say. Waiters are woken oldest first, one per `notify_one`; a waiter
//! that is woken does not also leave a permit behind.
//!
//! Check: `cargo run -p exercises -- check ch08_notify_permit`. Hint:
//! `cargo run -p exercises -- hint ch08_notify_permit`.

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
    /// No permit, nobody waiting. Written for you.
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
    /// Written for you.
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

    /// Notifies one waiter. If someone waits, take the oldest off the
    /// queue, put its id in `notified` and wake its waker (after unlocking).
    /// If nobody waits, store the permit (`permit = true`; a second
    /// `notify_one` before anyone takes it changes nothing).
    pub fn notify_one(&self) {
        todo!("pop the oldest waiter: mark notified, wake; nobody: permit = true")
    }
}

impl Future for Notified<'_> {
    type Output = ();

    /// First poll (`id` is `None`): if the permit is there, take it (set it
    /// to false) and return `Ready`. Otherwise join the back of the queue
    /// with a new id from `next_id` (then bump `next_id`) and a clone of the
    /// waker, keep the id in `self.id`, and return `Pending`.
    ///
    /// Later polls: if `notified` holds the id, remove it and return
    /// `Ready`. Otherwise store the new waker in its queue entry and return
    /// `Pending`.
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        todo!("first poll: take the permit or queue; later: notified yet?")
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
    /// notification on, so it is not lost. Written for you.
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
