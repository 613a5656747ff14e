//! Reference solution for ch08_counting_semaphore.

use std::collections::{HashSet, VecDeque};
use std::future::Future;
use std::pin::Pin;
use std::sync::{Mutex, MutexGuard};
use std::task::{Context, Poll, Waker};

/// A counting semaphore whose waiters are served first come, first served.
pub struct Semaphore {
    state: Mutex<State>,
}

/// Everything behind the semaphore's lock.
struct State {
    /// Permits free and assigned to nobody. Zero whenever someone waits.
    available: usize,
    /// The waiters not yet fully served, oldest first.
    queue: VecDeque<Waiter>,
    /// Waiters fully served whose `Acquire` has not seen it yet.
    granted: HashSet<u64>,
    /// The id the next waiter gets.
    next_id: u64,
}

/// One acquire waiting in the queue.
struct Waiter {
    id: u64,
    /// Permits it asked for.
    wanted: usize,
    /// Permits already assigned to it (fewer than `wanted`).
    assigned: usize,
    waker: Waker,
}

/// The future [`Semaphore::acquire`] returns.
pub struct Acquire<'a> {
    semaphore: &'a Semaphore,
    wanted: usize,
    /// `Some(id)` once it waits in the queue (or was granted from it).
    id: Option<u64>,
}

impl Semaphore {
    /// A semaphore with `permits` permits.
    pub fn new(permits: usize) -> Semaphore {
        Semaphore {
            state: Mutex::new(State {
                available: permits,
                queue: VecDeque::new(),
                granted: HashSet::new(),
                next_id: 0,
            }),
        }
    }

    /// Permits free and assigned to no waiter.
    pub fn available(&self) -> usize {
        self.lock().available
    }

    /// Waits for `n` permits.
    pub fn acquire(&self, n: usize) -> Acquire<'_> {
        Acquire {
            semaphore: self,
            wanted: n,
            id: None,
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Gives `n` permits back: to the waiters, oldest first, and what they
    /// do not need to `available`.
    pub fn release(&self, n: usize) {
        let wakers = self.lock().hand_out(n);
        for waker in wakers {
            waker.wake();
        }
    }
}

impl State {
    /// Assigns `n` permits to the queue, oldest waiter first; a waiter that
    /// has all it wanted leaves the queue for `granted`. Returns the wakers
    /// of the waiters fully served.
    fn hand_out(&mut self, n: usize) -> Vec<Waker> {
        let mut left = n;
        let mut served = Vec::new();
        while let Some(front) = self.queue.front_mut() {
            if left == 0 {
                break;
            }
            let give = left.min(front.wanted - front.assigned);
            front.assigned += give;
            left -= give;
            if front.assigned == front.wanted {
                let waiter = self.queue.pop_front().expect("the front waiter");
                self.granted.insert(waiter.id);
                served.push(waiter.waker);
            }
        }
        self.available += left;
        served
    }
}

impl Future for Acquire<'_> {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let this = self.get_mut();
        let mut state = this.semaphore.lock();
        let Some(id) = this.id else {
            let assigned = state.available.min(this.wanted);
            state.available -= assigned;
            if assigned == this.wanted {
                return Poll::Ready(());
            }
            let id = state.next_id;
            state.next_id += 1;
            state.queue.push_back(Waiter {
                id,
                wanted: this.wanted,
                assigned,
                waker: cx.waker().clone(),
            });
            this.id = Some(id);
            return Poll::Pending;
        };
        if state.granted.remove(&id) {
            return Poll::Ready(());
        }
        if let Some(waiter) = state.queue.iter_mut().find(|w| w.id == id) {
            waiter.waker.clone_from(cx.waker());
        }
        Poll::Pending
    }
}

impl Drop for Acquire<'_> {
    /// A dropped acquire is a cancelled one.
    fn drop(&mut self) {
        // Not while unwinding from a panic: a second one would abort.
        if !std::thread::panicking() {
            self.cancel();
        }
    }
}

impl Acquire<'_> {
    /// Gives back what this cancelled acquire got.
    fn cancel(&mut self) {
        let Some(id) = self.id else {
            return;
        };
        let wakers = {
            let mut state = self.semaphore.lock();
            let give_back = if state.granted.remove(&id) {
                self.wanted
            } else if let Some(at) = state.queue.iter().position(|w| w.id == id) {
                state.queue.remove(at).map_or(0, |w| w.assigned)
            } else {
                0
            };
            state.hand_out(give_back)
        };
        for waker in wakers {
            waker.wake();
        }
    }
}
