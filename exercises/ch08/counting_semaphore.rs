//! Exercise ch08_counting_semaphore: permits for the patient, in order.
//!
//! A counting semaphore holds permits; `acquire(n)` waits until it has `n`
//! of them, and `release(n)` gives permits back (Chapter 8, "Locks and
//! notification", "The semaphore"). Ours is fair: waiters are served first come, first served, so
//! a big request at the front is not starved by small ones behind it. The
//! front waiter collects permits as they come back, even a few at a time,
//! and the waiters behind it get none until it is fully served.
//!
//! That makes cancellation subtle. An `Acquire` dropped while it waits (a
//! `select` that lost, a timeout) may already hold some permits assigned to
//! it; they must go back, and to the next waiter first, or they are lost
//! for good and the semaphore slowly shrinks. rt's `rt::sync::Semaphore`
//! (chapters/07-runtime/src/toolbox/sync/semaphore.rs) does this without a lock on
//! its fast path; here everything sits behind one `Mutex`.
//!
//! The types, `new`, `available`, `acquire`, `release` and the `Drop` of
//! an `Acquire` are written for you. Write `State::hand_out`,
//! `Acquire::poll` and `Acquire::cancel` (which `Drop` calls), as their doc
//! comments say. `acquire(0)` is ready at once. Permits an `acquire`
//! returned `Ready` for belong to the caller until it calls `release`.
//!
//! Check: `cargo run -p exercises -- check ch08_counting_semaphore`. Hint:
//! `cargo run -p exercises -- hint ch08_counting_semaphore`.

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
    /// A semaphore with `permits` permits. Written for you.
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

    /// Permits free and assigned to no waiter. Written for you.
    pub fn available(&self) -> usize {
        self.lock().available
    }

    /// Waits for `n` permits. Written for you.
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
    /// do not need to `available`. Written for you.
    pub fn release(&self, n: usize) {
        let wakers = self.lock().hand_out(n);
        for waker in wakers {
            waker.wake();
        }
    }
}

impl State {
    /// Assigns `n` permits to the queue, oldest waiter first: the front
    /// waiter gets as many as it still lacks (`wanted - assigned`), and when
    /// it has all it wanted it leaves the queue, its id goes into `granted`
    /// and its waker into the returned list; then the next waiter, and so
    /// on. What nobody in the queue needs goes to `available`.
    fn hand_out(&mut self, n: usize) -> Vec<Waker> {
        todo!("serve the front waiter until n runs out; the rest to available")
    }
}

impl Future for Acquire<'_> {
    type Output = ();

    /// First poll (`id` is `None`): take `min(available, wanted)` from
    /// `available`; if that is all it wanted, `Ready`. Otherwise join the
    /// back of the queue with what it took as `assigned`, a new id from
    /// `next_id` (then bump `next_id`), and the waker; keep the id in
    /// `self.id`; `Pending`.
    ///
    /// Later polls: if the id is in `granted`, remove it and return `Ready`.
    /// Otherwise store the new waker in its queue entry and return `Pending`.
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        todo!("first poll: take what is free, ready or queue; later: granted?")
    }
}

impl Drop for Acquire<'_> {
    /// Written for you: a dropped acquire is a cancelled one.
    fn drop(&mut self) {
        // Not while unwinding from a panic: a second one would abort.
        if !std::thread::panicking() {
            self.cancel();
        }
    }
}

impl Acquire<'_> {
    /// A cancelled acquire gives back what it got. Nothing if it never
    /// queued (`id` is `None`) or already returned `Ready` (its id is in
    /// neither `granted` nor the queue: the caller holds those permits).
    /// If its id is in `granted` (served, but never polled since), give back
    /// all it wanted; if it is still in the queue, take it out and give back
    /// its `assigned`. Give back with `hand_out` under the same lock, so the
    /// next waiters get the permits first, then wake the wakers it returns
    /// after unlocking.
    fn cancel(&mut self) {
        todo!("granted: give back wanted; queued: remove, give back assigned")
    }
}
