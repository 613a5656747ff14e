//! The queue of tasks waiting on a channel: first come, first served, and a
//! waiter that gives up leaves in O(1).
//!
//! A waiting future (a `reserve` on a full channel, a watch receiver's
//! `changed`, a broadcast `recv`) pushes its waker and keeps the *key* it
//! got back: the index of its node in a `Vec`. The nodes are linked into a
//! doubly linked list by index, oldest at the head, so that
//!
//! * [`assign_one`](WaitQueue::assign_one) gives the head one slot and,
//!   once it has all it asked for (one, or `n` for `reserve_many`), unlinks
//!   it and marks it [`Granted`](Waiter::Granted): the bounded channel hands
//!   a freed slot to exactly that waiter, and nobody who arrives later can
//!   take it;
//! * [`notify_all`](WaitQueue::notify_all) unlinks every waiter and marks
//!   it [`Woken`](Waiter::Woken) (a close, a new value);
//! * [`remove`](WaitQueue::remove) takes one node out wherever it is,
//!   without a scan: a future dropped while it waits (cancelled by a
//!   `select!` or a timeout) costs two index writes, not a walk of the list.
//!
//! A node stays allocated after it is notified, until its future looks at
//! it and removes it: the future learns from it whether it was granted a
//! slot, and a key is never reused while its future may still read it.
//! Freed nodes are kept on a free list and reused, so a channel that has had
//! at most *n* waiters at once holds *n* nodes.
//!
//! The list itself is `sync/wait_list.rs`'s `WaitList`, the line of the
//! semaphore and `Notify` (the `Vec`-of-slots idea of
//! `core/io_driver/scheduled_io.rs`, where a `Readiness` future holds its slot
//! index, with the links added for the order); what a node holds here is
//! where its waiter stands and how many slots it has been given. Tokio's
//! channels keep an intrusive linked list through the waiting futures
//! themselves, which needs no allocation at all, at the price of `unsafe`
//! pinned pointers; ours is all safe code.
//!
//! [`Closed`] is here too: the future of every channel's `Sender::closed`.
//!
//! Book: Chapter 8, "Channels".

use crate::sync::wait_list::WaitList;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll, Waker};

/// Where a waiter stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Waiter {
    /// Still in the queue, waiting.
    Queued,
    /// Taken off the queue by `assign_one`: given what it waited for.
    Granted,
    /// Taken off the queue by `notify_all`: should look again.
    Woken,
}

/// What the line keeps of a waiter, beside its waker.
#[derive(Debug)]
struct Entry {
    state: Waiter,
    /// Slots it waits for (`reserve_many`; 1 for everyone else) and how
    /// many [`assign_one`](WaitQueue::assign_one) has given it so far.
    needed: usize,
    assigned: usize,
}

/// Waiters in arrival order, each known by the key `push_back` returned.
#[derive(Debug)]
pub(crate) struct WaitQueue {
    list: WaitList<Entry>,
}

impl Default for WaitQueue {
    fn default() -> WaitQueue {
        WaitQueue::new()
    }
}

impl WaitQueue {
    pub(crate) const fn new() -> WaitQueue {
        WaitQueue {
            list: WaitList::new(),
        }
    }

    /// True if nobody is queued (notified nodes not yet removed do not count).
    #[cfg(test)]
    pub(crate) fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// Queues a waiter at the back; returns its key.
    pub(crate) fn push_back(&mut self, waker: Waker) -> usize {
        self.push_back_many(waker, 1, 0)
    }

    /// Queues a waiter for `needed` slots, `assigned` of which it holds
    /// already; returns its key.
    pub(crate) fn push_back_many(&mut self, waker: Waker, needed: usize, assigned: usize) -> usize {
        let entry = Entry {
            state: Waiter::Queued,
            needed,
            assigned,
        };
        self.list.push_back(entry, Some(waker))
    }

    /// Where the waiter `key` stands.
    pub(crate) fn state(&self, key: usize) -> Waiter {
        self.list.peek(key).state
    }

    /// Replaces a queued waiter's waker if it would not wake the same task.
    pub(crate) fn update(&mut self, key: usize, waker: &Waker) {
        self.list.set_waker(key, waker);
    }

    /// Takes the waiter `key` out, queued or not; returns where it stood.
    pub(crate) fn remove(&mut self, key: usize) -> Waiter {
        self.list.free(key).state
    }

    /// Slots assigned to the waiter `key` so far.
    pub(crate) fn assigned(&self, key: usize) -> usize {
        self.list.peek(key).assigned
    }

    /// Gives one slot to the oldest waiter. It stays at the head of the
    /// queue until it has all it asked for, so a waiter for many slots is
    /// never overtaken (nor starved) by later ones; then it is granted, and
    /// its waker returned to be woken once the caller releases its lock.
    pub(crate) fn assign_one(&mut self) -> Assign {
        let Some(key) = self.list.front() else {
            return Assign::NoWaiter;
        };
        let entry = self.list.payload(key);
        entry.assigned += 1;
        if entry.assigned < entry.needed {
            return Assign::Partial;
        }
        entry.state = Waiter::Granted;
        Assign::Granted(self.list.unlink(key))
    }

    /// Wakes every queued waiter: their wakers are pushed onto `wakers`, to
    /// be woken once the caller has released its lock.
    pub(crate) fn notify_all(&mut self, wakers: &mut Vec<Waker>) {
        while let Some(key) = self.list.front() {
            self.list.payload(key).state = Waiter::Woken;
            wakers.extend(self.list.unlink(key));
        }
    }

    /// Keeps the waiting future whose place is `key` in the queue, with
    /// `waker`: still queued, its waker is updated; taken off (woken, but
    /// what it waits for is not there yet), or not yet queued, it is
    /// queued at the back. Each waiting future's poll calls it after
    /// finding that what it waits for is not there.
    pub(crate) fn register(&mut self, key: &mut Option<usize>, waker: &Waker) {
        match *key {
            Some(k) if self.state(k) == Waiter::Queued => self.update(k, waker),
            _ => {
                self.leave(key);
                *key = Some(self.push_back(waker.clone()));
            }
        }
    }

    /// Takes the waiting future whose place is `key` out of the queue, if
    /// it has a place: it is done waiting, or dropped.
    pub(crate) fn leave(&mut self, key: &mut Option<usize>) {
        if let Some(k) = key.take() {
            self.remove(k);
        }
    }
}

/// What [`WaitQueue::assign_one`] did with a slot.
#[derive(Debug)]
pub(crate) enum Assign {
    /// Nobody waits: the slot is the caller's to keep.
    NoWaiter,
    /// The head waiter took it, and still waits for more.
    Partial,
    /// The head waiter has all it asked for: wake it.
    Granted(Option<Waker>),
}

/// A channel whose senders can wait for the receiving side to go
/// (`Sender::closed`): it keeps those senders in a [`WaitQueue`], under its
/// lock, and knows whether the receiving side is gone.
pub(crate) trait ClosedWaiters {
    /// Runs `f`, under the channel's lock, on the queue of `closed` waiters
    /// and whether the receiving side is gone.
    fn with_closed_waiters<R>(&self, f: impl FnOnce(&mut WaitQueue, bool) -> R) -> R;
}

/// The future of `Sender::closed`, for every channel: its place in the
/// channel's queue of `closed` waiters, which it leaves when dropped.
pub(crate) struct Closed<'a, C: ClosedWaiters + ?Sized> {
    chan: &'a C,
    key: Option<usize>,
}

impl<'a, C: ClosedWaiters + ?Sized> Closed<'a, C> {
    pub(crate) fn new(chan: &'a C) -> Closed<'a, C> {
        Closed { chan, key: None }
    }
}

impl<C: ClosedWaiters + ?Sized> Future for Closed<'_, C> {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let budget = std::task::ready!(crate::task::coop::poll_proceed(cx));
        let this = &mut *self;
        let gone = this.chan.with_closed_waiters(|waiters, gone| {
            if gone {
                waiters.leave(&mut this.key);
            } else {
                waiters.register(&mut this.key, cx.waker());
            }
            gone
        });
        if !gone {
            return Poll::Pending;
        }
        budget.made_progress();
        Poll::Ready(())
    }
}

impl<C: ClosedWaiters + ?Sized> Drop for Closed<'_, C> {
    fn drop(&mut self) {
        if self.key.is_some() {
            let key = &mut self.key;
            self.chan
                .with_closed_waiters(|waiters, _| waiters.leave(key));
        }
    }
}

/// Wakes every waker in `wakers` (called with no lock held).
pub(crate) fn wake_all(wakers: impl IntoIterator<Item = Waker>) {
    for waker in wakers {
        waker.wake();
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn waiters_are_granted_in_order_and_a_removed_one_is_skipped() {
        let mut queue = WaitQueue::new();
        let a = queue.push_back(Waker::noop().clone());
        let b = queue.push_back(Waker::noop().clone());
        let c = queue.push_back(Waker::noop().clone());
        assert_eq!(queue.remove(b), Waiter::Queued);
        assert!(matches!(queue.assign_one(), Assign::Granted(Some(_))));
        assert_eq!(queue.state(a), Waiter::Granted);
        assert_eq!(queue.state(c), Waiter::Queued);
        assert!(matches!(queue.assign_one(), Assign::Granted(Some(_))));
        assert_eq!(queue.state(c), Waiter::Granted);
        assert!(matches!(queue.assign_one(), Assign::NoWaiter));
        assert!(queue.is_empty());
        assert_eq!(queue.remove(a), Waiter::Granted);
        // A freed node is reused.
        let d = queue.push_back(Waker::noop().clone());
        assert_eq!(d, a);
    }

    #[test]
    fn a_waiter_for_many_keeps_the_head_until_it_has_them_all() {
        let mut queue = WaitQueue::new();
        let many = queue.push_back_many(Waker::noop().clone(), 3, 1);
        let one = queue.push_back(Waker::noop().clone());
        assert!(matches!(queue.assign_one(), Assign::Partial));
        assert_eq!(queue.state(one), Waiter::Queued);
        assert!(matches!(queue.assign_one(), Assign::Granted(Some(_))));
        assert_eq!(
            (queue.state(many), queue.assigned(many)),
            (Waiter::Granted, 3)
        );
        assert!(matches!(queue.assign_one(), Assign::Granted(Some(_))));
        assert_eq!(queue.state(one), Waiter::Granted);
        assert!(matches!(queue.assign_one(), Assign::NoWaiter));
    }

    #[test]
    fn notify_all_wakes_every_queued_waiter_once() {
        let mut queue = WaitQueue::new();
        let keys: Vec<usize> = (0..4)
            .map(|_| queue.push_back(Waker::noop().clone()))
            .collect();
        let mut wakers = Vec::new();
        queue.notify_all(&mut wakers);
        assert_eq!(wakers.len(), 4);
        assert!(queue.is_empty());
        for key in keys {
            assert_eq!(queue.remove(key), Waiter::Woken);
        }
        queue.notify_all(&mut wakers);
        assert_eq!(wakers.len(), 4);
    }
}

/// `block_on` for the channels' loom models: polls on the current loom
/// thread and parks it until its waker unparks it. A lost wake-up leaves
/// every thread parked, which loom reports as a deadlock. (Our own, so the
/// models need no loom feature.)
#[cfg(all(test, loom))]
pub(crate) fn loom_block_on<F: std::future::Future>(future: F) -> F::Output {
    struct Unpark(loom::thread::Thread);
    impl std::task::Wake for Unpark {
        fn wake(self: std::sync::Arc<Self>) {
            self.0.unpark();
        }
    }
    let waker = Waker::from(std::sync::Arc::new(Unpark(loom::thread::current())));
    let mut cx = std::task::Context::from_waker(&waker);
    let mut future = std::pin::pin!(future);
    loop {
        if let std::task::Poll::Ready(output) = future.as_mut().poll(&mut cx) {
            return output;
        }
        loom::thread::park();
    }
}
