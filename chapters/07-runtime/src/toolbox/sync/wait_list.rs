//! The waiting line shared by [`Semaphore`](super::Semaphore) and
//! [`Notify`](super::Notify), and by the channels (under their `WaitQueue`,
//! `mpsc/wait_queue.rs`): a FIFO queue of waiter slots kept in a `Vec`,
//! linked by index, so that a waiter is served in arrival order and one that
//! gives up leaves in O(1).
//!
//! A waiting future pushes a slot (its payload: how many permits it needs,
//! what notification it got, its waker) and keeps the *key* it got back,
//! the slot's index. The primitive, under its own lock, serves the slot at
//! the head: [`unlink`](WaitList::unlink) takes it out of the line but
//! leaves it allocated, so that the future can read, at its next poll, what
//! it was given. Only the future frees its slot ([`free`](WaitList::free)),
//! in its poll or its `Drop`, so a key is never reused while a future may
//! still read it. (The semaphore is the exception: its waiting futures learn
//! that they were served from a ticket outside the list, so it frees a
//! served slot at once, with [`take`](WaitList::take), and a served future
//! never uses its key again.) Freed slots are kept on a
//! free list: a primitive that has had at most *n* waiters at once holds *n*
//! slots and allocates no more.
//!
//! Tokio threads the same line through the waiting futures themselves (an
//! intrusive doubly linked list of pinned nodes), which needs no allocation
//! at all, at the price of `unsafe` pointer code; ours is safe code and
//! costs one `Vec` that is reused.
//!
//! Book: Chapter 8, "Locks and notification".

use std::task::Waker;

/// No slot: the end of the line.
const NIL: usize = usize::MAX;

/// Wakers a [`WakeList`] holds without allocating. A mutex's unlock wakes
/// one waiter, a semaphore's release of a few permits a few; eight covers
/// those, and a longer list (a `close`, a `notify_waiters` with a crowd)
/// spills into a `Vec`.
const INLINE_WAKERS: usize = 8;

#[derive(Debug)]
struct Slot<T> {
    payload: T,
    waker: Option<Waker>,
    /// In the line (not yet served, not given up).
    linked: bool,
    prev: usize,
    next: usize,
}

/// Waiters in arrival order, each known by the key [`push_back`] returned.
///
/// [`push_back`]: WaitList::push_back
#[derive(Debug)]
pub(crate) struct WaitList<T> {
    slots: Vec<Slot<T>>,
    head: usize,
    tail: usize,
    /// First free slot, linked through `next`.
    free: usize,
}

impl<T> WaitList<T> {
    pub(crate) const fn new() -> WaitList<T> {
        WaitList {
            slots: Vec::new(),
            head: NIL,
            tail: NIL,
            free: NIL,
        }
    }

    /// True if nobody is in the line (served slots not yet freed do not
    /// count).
    pub(crate) fn is_empty(&self) -> bool {
        self.head == NIL
    }

    /// Puts a waiter at the back of the line; returns its key.
    pub(crate) fn push_back(&mut self, payload: T, waker: Option<Waker>) -> usize {
        let slot = Slot {
            payload,
            waker,
            linked: true,
            prev: self.tail,
            next: NIL,
        };
        let key = if self.free == NIL {
            self.slots.push(slot);
            self.slots.len() - 1
        } else {
            let key = self.free;
            self.free = self.slots[key].next;
            self.slots[key] = slot;
            key
        };
        if self.tail == NIL {
            self.head = key;
        } else {
            self.slots[self.tail].next = key;
        }
        self.tail = key;
        key
    }

    /// The key of the oldest waiter still in the line.
    pub(crate) fn front(&self) -> Option<usize> {
        (self.head != NIL).then_some(self.head)
    }

    /// The key of the newest waiter still in the line.
    pub(crate) fn back(&self) -> Option<usize> {
        (self.tail != NIL).then_some(self.tail)
    }

    /// True if the waiter `key` is still in the line.
    pub(crate) fn is_linked(&self, key: usize) -> bool {
        self.slots[key].linked
    }

    /// The waiter's payload.
    pub(crate) fn payload(&mut self, key: usize) -> &mut T {
        &mut self.slots[key].payload
    }

    /// The waiter's payload, to read.
    pub(crate) fn peek(&self, key: usize) -> &T {
        &self.slots[key].payload
    }

    /// Replaces the waiter's waker unless the old one wakes the same task.
    pub(crate) fn set_waker(&mut self, key: usize, waker: &Waker) {
        store_waker(&mut self.slots[key].waker, waker);
    }

    /// Takes the waiter out of the line (it has been served); the slot stays
    /// allocated for its future to read. Returns its waker, to be woken once
    /// the caller has released its lock.
    pub(crate) fn unlink(&mut self, key: usize) -> Option<Waker> {
        let (prev, next) = (self.slots[key].prev, self.slots[key].next);
        debug_assert!(self.slots[key].linked, "unlinking a waiter twice");
        if prev == NIL {
            self.head = next;
        } else {
            self.slots[prev].next = next;
        }
        if next == NIL {
            self.tail = prev;
        } else {
            self.slots[next].prev = prev;
        }
        let slot = &mut self.slots[key];
        slot.linked = false;
        slot.prev = NIL;
        slot.next = NIL;
        slot.waker.take()
    }

    /// Takes the waiter out of the line and frees its slot at once, for a
    /// primitive whose futures do not read their slot once served; returns
    /// its waker, to be woken once the caller has released its lock.
    pub(crate) fn take(&mut self, key: usize) -> Option<Waker> {
        let waker = self.unlink(key);
        let slot = &mut self.slots[key];
        slot.next = self.free;
        self.free = key;
        waker
    }

    /// Frees the waiter's slot, taking it out of the line first if it is
    /// still there; returns its payload's final state.
    pub(crate) fn free(&mut self, key: usize) -> &T {
        if self.slots[key].linked {
            drop(self.unlink(key));
        }
        let slot = &mut self.slots[key];
        slot.waker = None;
        slot.next = self.free;
        self.free = key;
        &self.slots[key].payload
    }
}

/// Keeps `waker` in `stored`, unless the waker there already wakes the same
/// task (then cloning it again would only cost): what every waiting future
/// of `sync/` does with the waker of each poll.
pub(crate) fn store_waker(stored: &mut Option<Waker>, waker: &Waker) {
    match stored {
        Some(old) if old.will_wake(waker) => {}
        _ => *stored = Some(waker.clone()),
    }
}

/// Wakers collected under a lock, to be woken after it is released (a woken
/// task may run at once on this thread and want the same lock).
pub(crate) struct WakeList {
    inline: [Option<Waker>; INLINE_WAKERS],
    len: usize,
    spill: Vec<Waker>,
}

impl WakeList {
    // The three are `#[inline]`: a release that wakes one waiter is the
    // contended lock's hot path, and a call per step would copy the whole
    // list (nine wakers' worth of stack) from frame to frame.
    #[inline]
    pub(crate) fn new() -> WakeList {
        WakeList {
            inline: [const { None }; INLINE_WAKERS],
            len: 0,
            spill: Vec::new(),
        }
    }

    #[inline]
    pub(crate) fn push(&mut self, waker: Option<Waker>) {
        let Some(waker) = waker else { return };
        if self.len < INLINE_WAKERS {
            self.inline[self.len] = Some(waker);
            self.len += 1;
        } else {
            self.spill.push(waker);
        }
    }

    /// Wakes them all (call with no lock held).
    #[inline]
    pub(crate) fn wake_all(mut self) {
        for slot in &mut self.inline[..self.len] {
            if let Some(waker) = slot.take() {
                waker.wake();
            }
        }
        self.len = 0;
        if !self.spill.is_empty() {
            for waker in self.spill.drain(..) {
                waker.wake();
            }
        }
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn served_in_order_and_a_leaver_leaves_from_the_middle() {
        let mut list = WaitList::new();
        let a = list.push_back('a', None);
        let b = list.push_back('b', None);
        let c = list.push_back('c', None);
        assert_eq!(list.front(), Some(a));
        list.free(b);
        list.unlink(a);
        assert_eq!(list.front(), Some(c));
        assert_eq!(list.back(), Some(c));
        list.free(a);
        list.unlink(c);
        assert!(list.is_empty());
        list.free(c);
        // Freed slots are reused.
        let d = list.push_back('d', None);
        assert!(d <= 2);
        assert_eq!(*list.payload(d), 'd');
    }
}
