//! Notify: wake a task that waits for "something changed", with no value
//! attached. The building block of hand-written primitives (a queue whose
//! consumers sleep when it is empty, a shutdown signal).
//!
//! * [`notify_one`](Notify::notify_one) wakes the task waiting longest, or,
//!   if none waits, stores a *permit* that the next `notified().await`
//!   consumes at once. At most one permit is stored: two `notify_one`s with
//!   nobody waiting make one permit, not two.
//! * [`notify_waiters`](Notify::notify_waiters) wakes every task waiting
//!   now and stores nothing.
//! * [`notified`](Notify::notified) returns the [`Notified`] future that
//!   waits. It joins the waiting line when first polled, or earlier, when
//!   [`Notified::enable`] is called.
//!
//! **The lost notification.** The natural way to wait for a condition is
//! wrong:
//!
//! ```rust,ignore
//! loop {
//!     if let Some(item) = queue.pop() { return item; } // 1. check
//!     notify.notified().await;                         // 2. wait
//! }
//! ```
//!
//! If the producer pushes and notifies between 1 and 2, the consumer is not
//! yet waiting: a `notify_waiters` is lost outright, and the consumer sleeps
//! on an item that is there; a `notify_one` leaves a permit, but there is
//! only one permit however many notifications came, so with several
//! consumers some of them sleep. The fix is to *register before checking*:
//!
//! ```rust,ignore
//! let notified = notify.notified();          // counts notify_waiters from here
//! let mut notified = std::pin::pin!(notified);
//! loop {
//!     notified.as_mut().enable();            // in line for notify_one from here
//!     if let Some(item) = queue.pop() { return item; }
//!     notified.as_mut().await;
//!     notified.set(notify.notified());
//! }
//! ```
//!
//! A `Notified` counts every `notify_waiters` since it was *created*, and
//! once enabled it is a waiter that `notify_one` wakes instead of storing a
//! permit, so a notification that comes after the check always reaches it.
//! `tests/sync_notify.rs` shows the first version losing a notification and
//! the second never losing one; `loom_notify_one_racing_notified` checks
//! the permit in every interleaving.
//!
//! **Design.** A lock around the permit and a FIFO line of waiters
//! (`wait_list.rs`); a served waiter's slot records what it got (`One` or
//! `All`). `notify_waiters` also bumps a counter that a `Notified` reads
//! when created, so it needs no lock to be created. Tokio's `Notify` keeps
//! the permit and the counter in one atomic word and its waiters in an
//! intrusive list; its `notify_one` with nobody waiting is a single
//! compare-and-swap, ours a lock round trip.
//!
//! Cancel safety: dropping a `Notified` loses nothing: if a `notify_one`
//! or `notify_last` had already chosen it, the notification is passed on by
//! the rule that chose it (to the oldest waiter left, or to the newest), or
//! stored as the permit if nobody is left, as Tokio does.
//!
//! Book: Chapter 8, "Locks and notification".

use super::wait_list::{WaitList, WakeList};
use crate::loom::{AtomicUsize, Mutex, MutexGuard, Ordering};
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, Waker};

/// Wakes waiting tasks; holds at most one permit.
pub struct Notify {
    state: Mutex<State>,
    /// `notify_waiters` calls so far; bumped under the lock, read lock-free
    /// when a `Notified` is created.
    waiters_calls: AtomicUsize,
}

struct State {
    /// A `notify_one` came while nobody waited.
    permit: bool,
    waiters: WaitList<Got>,
}

/// What a waiter was given.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Got {
    /// Nothing yet (still in line).
    Nothing,
    /// Chosen by a `notify_one` (`End::Front`) or a `notify_last`
    /// (`End::Back`): the end a dropped waiter passes it on to.
    One(End),
    /// Woken by `notify_waiters`.
    All,
}

/// The future returned by [`Notify::notified`].
#[must_use = "futures do nothing unless polled or enabled"]
pub struct Notified<'a> {
    notify: Holder<'a>,
    /// `notify_waiters` calls when this was created.
    calls_at_creation: usize,
    stage: Stage,
}

/// [`Notified`] for an `Arc<Notify>`, so that it borrows nothing and can
/// be stored or moved into a task ([`Notify::notified_owned`]).
#[must_use = "futures do nothing unless polled or enabled"]
pub struct OwnedNotified(Notified<'static>);

/// The `Notify` a `Notified` waits on: borrowed, or owned through an `Arc`.
enum Holder<'a> {
    Borrowed(&'a Notify),
    Owned(Arc<Notify>),
}

impl Holder<'_> {
    fn get(&self) -> &Notify {
        match self {
            Holder::Borrowed(notify) => notify,
            Holder::Owned(notify) => notify,
        }
    }
}

#[derive(Debug, Clone, Copy)]
enum Stage {
    /// Not yet in line.
    Init,
    /// In line, or served and not yet looked at; the slot's key.
    Waiting(usize),
    /// Notified; every further poll is `Ready`.
    Done,
}

impl Notify {
    /// Creates a `Notify` with no permit and nobody waiting.
    pub fn new() -> Notify {
        Notify {
            state: Mutex::new(State {
                permit: false,
                waiters: WaitList::new(),
            }),
            waiters_calls: AtomicUsize::new(0),
        }
    }

    /// [`new`](Notify::new) in a `const` context, for a `static` (not in
    /// loom builds).
    #[cfg(not(loom))]
    pub const fn const_new() -> Notify {
        Notify {
            state: Mutex::new(State {
                permit: false,
                waiters: WaitList::new(),
            }),
            waiters_calls: AtomicUsize::new(0),
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock()
    }

    /// A future that completes at the next notification (or at once, if a
    /// permit is stored). It receives every `notify_waiters` made after
    /// this call, even before it is first polled.
    pub fn notified(&self) -> Notified<'_> {
        Notified {
            notify: Holder::Borrowed(self),
            calls_at_creation: self.waiters_calls.load(Ordering::SeqCst),
            stage: Stage::Init,
        }
    }

    /// [`notified`](Notify::notified) for an `Arc<Notify>`: the future owns
    /// the `Arc`, so it can be kept in a struct or moved into a task. Same
    /// behaviour, cancel safety and `enable`.
    pub fn notified_owned(self: Arc<Self>) -> OwnedNotified {
        OwnedNotified(Notified {
            calls_at_creation: self.waiters_calls.load(Ordering::SeqCst),
            notify: Holder::Owned(self),
            stage: Stage::Init,
        })
    }

    /// Wakes the task that has waited longest, or stores the permit if none
    /// waits (one permit at most).
    pub fn notify_one(&self) {
        let mut wakers = WakeList::new();
        notify_locked(&mut self.lock(), &mut wakers, End::Front);
        wakers.wake_all();
    }

    /// Like [`notify_one`](Notify::notify_one), but wakes the task that
    /// started waiting last.
    pub fn notify_last(&self) {
        let mut wakers = WakeList::new();
        notify_locked(&mut self.lock(), &mut wakers, End::Back);
        wakers.wake_all();
    }

    /// Wakes every task waiting now, and every `Notified` created before
    /// this call; stores no permit.
    pub fn notify_waiters(&self) {
        let mut wakers = WakeList::new();
        {
            let mut state = self.lock();
            self.waiters_calls.fetch_add(1, Ordering::SeqCst);
            while let Some(key) = state.waiters.front() {
                *state.waiters.payload(key) = Got::All;
                wakers.push(state.waiters.unlink(key));
            }
        }
        wakers.wake_all();
    }
}

/// Which end of the line a single notification serves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum End {
    Front,
    Back,
}

// ANCHOR: notify_locked
/// Gives one notification: to a waiter at `end` of the line, or, with
/// nobody in line, to the permit.
fn notify_locked(state: &mut State, wakers: &mut WakeList, end: End) {
    let chosen = match end {
        End::Front => state.waiters.front(),
        End::Back => state.waiters.back(),
    };
    match chosen {
        Some(key) => {
            *state.waiters.payload(key) = Got::One(end);
            wakers.push(state.waiters.unlink(key));
        }
        None => state.permit = true,
    }
}
// ANCHOR_END: notify_locked

impl Notified<'_> {
    /// Joins the line now, before the first poll, so that a `notify_one`
    /// from here on reaches this future rather than the permit. Returns
    /// true if it is already notified (a `notify_waiters` since it was
    /// created, a stored permit it just took, or a notification since it
    /// joined); its next poll then returns `Ready`.
    pub fn enable(self: Pin<&mut Self>) -> bool {
        self.get_mut().poll_notified(None)
    }

    // ANCHOR: poll_notified
    /// One look: ready, or in line with `waker` (if given) to be woken.
    fn poll_notified(&mut self, waker: Option<&Waker>) -> bool {
        match self.stage {
            Stage::Done => true,
            Stage::Init => {
                let mut state = self.notify.get().lock();
                let calls = self.notify.get().waiters_calls.load(Ordering::SeqCst);
                if calls != self.calls_at_creation {
                    // A notify_waiters came after we were created.
                    self.stage = Stage::Done;
                    return true;
                }
                if state.permit {
                    state.permit = false;
                    self.stage = Stage::Done;
                    return true;
                }
                let key = state.waiters.push_back(Got::Nothing, waker.cloned());
                self.stage = Stage::Waiting(key);
                false
            }
            Stage::Waiting(key) => {
                let mut state = self.notify.get().lock();
                if state.waiters.is_linked(key) {
                    if let Some(waker) = waker {
                        state.waiters.set_waker(key, waker);
                    }
                    return false;
                }
                state.waiters.free(key);
                self.stage = Stage::Done;
                true
            }
        }
    }
    // ANCHOR_END: poll_notified
}

impl Future for Notified<'_> {
    type Output = ();

    /// Spends no budget, as Tokio's does not: a notification is a signal
    /// between tasks, not a resource that could be always ready.
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.get_mut().poll_notified(Some(cx.waker())) {
            Poll::Ready(())
        } else {
            Poll::Pending
        }
    }
}

// ANCHOR: notified_drop
impl Drop for Notified<'_> {
    fn drop(&mut self) {
        let Stage::Waiting(key) = self.stage else {
            return;
        };
        let mut wakers = WakeList::new();
        {
            let mut state = self.notify.get().lock();
            // Chosen but never told: pass it on by the rule that chose us,
            // so that the notification is not lost with us.
            if let Got::One(end) = *state.waiters.free(key) {
                notify_locked(&mut state, &mut wakers, end);
            }
        }
        wakers.wake_all();
    }
}
// ANCHOR_END: notified_drop

impl Default for Notify {
    fn default() -> Notify {
        Notify::new()
    }
}

impl fmt::Debug for Notify {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Notify")
            .field("permit", &self.lock().permit)
            .finish_non_exhaustive()
    }
}

impl fmt::Debug for Notified<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Notified")
            .field("stage", &self.stage)
            .finish_non_exhaustive()
    }
}

impl OwnedNotified {
    /// As [`Notified::enable`].
    pub fn enable(self: Pin<&mut Self>) -> bool {
        Pin::new(&mut self.get_mut().0).enable()
    }
}

impl Future for OwnedNotified {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        Pin::new(&mut self.get_mut().0).poll(cx)
    }
}

impl fmt::Debug for OwnedNotified {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OwnedNotified")
            .field("stage", &self.0.stage)
            .finish_non_exhaustive()
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use std::pin::pin;

    fn poll(future: Pin<&mut Notified<'_>>) -> Poll<()> {
        future.poll(&mut Context::from_waker(Waker::noop()))
    }

    #[test]
    fn a_dropped_chosen_waiter_passes_the_notification_on() {
        let notify = Notify::new();
        let mut first = Box::pin(notify.notified());
        let mut second = pin!(notify.notified());
        assert!(poll(first.as_mut()).is_pending());
        assert!(poll(second.as_mut()).is_pending());
        notify.notify_one();
        // `first` was chosen; it is dropped before it looks.
        drop(first);
        assert!(poll(second.as_mut()).is_ready());
    }

    #[test]
    fn notify_last_serves_the_newest() {
        let notify = Notify::new();
        let mut first = pin!(notify.notified());
        let mut second = pin!(notify.notified());
        assert!(!first.as_mut().enable());
        assert!(!second.as_mut().enable());
        notify.notify_last();
        assert!(poll(first.as_mut()).is_pending());
        assert!(poll(second.as_mut()).is_ready());
    }
}

#[cfg(all(test, loom))]
mod loom_notify {
    use super::*;
    use crate::loom::{Arc, thread};
    use crate::sync::semaphore::loom_block_on::block_on;

    /// `notify_one` on one thread races a task that creates `notified()`
    /// and awaits it: whichever comes first, the task completes (the
    /// permit or the waiter line carries the notification).
    #[test]
    fn loom_notify_one_racing_notified() {
        loom::model(|| {
            let notify = Arc::new(Notify::new());
            let notifier = {
                let notify = notify.clone();
                thread::spawn(move || notify.notify_one())
            };
            block_on(notify.notified());
            notifier.join().unwrap();
            // The one notification was consumed: no permit is left over.
            assert!(!notify.lock().permit);
        });
    }

    /// The fixed pattern: a flag set then `notify_waiters` on one thread;
    /// the waiter creates its `Notified`, then checks the flag, then
    /// awaits. It always ends.
    #[test]
    fn loom_notified_created_before_the_check_never_misses_notify_waiters() {
        loom::model(|| {
            let notify = Arc::new(Notify::new());
            let flag = Arc::new(crate::loom::AtomicBool::new(false));
            let setter = {
                let (notify, flag) = (notify.clone(), flag.clone());
                thread::spawn(move || {
                    flag.store(true, Ordering::SeqCst);
                    notify.notify_waiters();
                })
            };
            block_on(async {
                loop {
                    let notified = notify.notified();
                    if flag.load(Ordering::SeqCst) {
                        break;
                    }
                    notified.await;
                }
            });
            setter.join().unwrap();
        });
    }
}
