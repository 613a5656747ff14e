//! A fair counting semaphore: the primitive under [`Mutex`](super::Mutex)
//! and [`RwLock`](super::RwLock), as in Tokio.
//!
//! A semaphore holds a number of *permits*. `acquire_many(n)` waits until it
//! has `n` of them; dropping the returned permit gives them back. A mutex is
//! a semaphore with one permit; a read-write lock one with `MAX_READS`
//! permits, of which a reader takes one and a writer all.
//!
//! **Fair means first come, first served.** Waiters stand in a FIFO line
//! (`wait_list.rs`). Released permits are *assigned* to the waiter at the
//! head of the line, under the semaphore's lock: it may get some of what it
//! needs now and the rest later, and until it has all of them nobody behind
//! it gets any, even a waiter that needs only one. So a writer waiting for
//! every permit of an `RwLock` is not starved by a stream of readers, and a
//! task waiting for ten permits is not overtaken forever by tasks that want
//! one. A waiter whose need is met is taken out of the line (its slot
//! freed) and woken.
//!
//! **Served, learnt without the lock.** Each waiter gets a *ticket* as it
//! joins, one more than the last; since the line is served in order, the
//! semaphore only has to publish, in an atomic word, the ticket of the
//! waiter now at its head (or the next ticket, with nobody waiting). A woken
//! future whose ticket is below it has left the line, so it was served:
//! one atomic load, no lock. Only a future that is still waiting (a
//! spurious poll) or that finds the semaphore closed takes the lock, to
//! store its new waker or to learn whether it was served before the close.
//! So a contended mutex's hand-off costs two lock round trips, the unlock
//! and the next `lock()` that joins the line, as Tokio's does.
//!
//! One invariant makes the rest simple: **while anyone is in the line, no
//! permit is free** (`permits == 0`). A release feeds the head until the
//! line is empty or the permits run out; a newcomer who cannot be served at
//! once takes whatever is free before it joins the line. So a `try_acquire`
//! or a new `acquire` can only succeed when nobody waits: no barging.
//!
//! **Cancel safety.** Dropping an `acquire` future loses its place in the
//! line, nothing else: the permits it had already been assigned (some, or
//! all of them if it was granted but not yet polled) are released again,
//! under the same lock, to the waiters behind it, whom the release wakes.
//! No permit and no wake-up is lost; `loom_cancelled_acquire_passes_on_*`
//! below checks it in every interleaving.
//!
//! **Against Tokio's.** Tokio's `batch_semaphore` keeps the free permits in
//! an atomic word (shifted left, with a *closed* bit), so an uncontended
//! `try_acquire` is one compare-and-swap with no lock, and its waiters are an
//! intrusive linked list threaded through the pinned `Acquire` futures
//! themselves, each with an atomic count of the permits it still needs. A
//! release still takes the waiters' lock and assigns permits to the head,
//! as ours does. Ours keeps everything under one `Mutex` (the count, the
//! closed flag and the line, in a reusable `Vec` of slots; only the head
//! ticket is mirrored outside it, written under it), so it needs no
//! `unsafe` and each operation is one short critical section: an
//! uncontended acquire and release cost two lock round trips where Tokio's
//! cost one and two atomic operations. A served waiter learns it from the
//! head ticket (above) where Tokio's reads its node's atomic count. The
//! book measures what that costs.
//!
//! Book: Chapter 8, "Locks and notification".

use super::wait_list::{WaitList, WakeList};
use crate::loom::{AtomicU64, Mutex, MutexGuard, Ordering};
use crate::task::coop;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

/// A counting semaphore whose waiters are served in the order they came.
pub struct Semaphore {
    state: Mutex<State>,
    /// The ticket of the waiter at the head of the line or, with the line
    /// empty, the ticket the next waiter will get; [`CLOSED`] once closed.
    /// Written under `state`'s lock whenever the head changes, read without
    /// it by a waiting acquire: every ticket below it has left the line.
    head: AtomicU64,
}

/// `head` once the semaphore is closed: above every ticket, so that every
/// waiter looks, and takes the lock to learn whether it was served first.
const CLOSED: u64 = u64::MAX;

struct State {
    /// Free permits. Zero whenever `waiters` is not empty.
    permits: usize,
    closed: bool,
    waiters: WaitList<Waiter>,
    /// The ticket the next waiter to join the line gets: tickets rise in
    /// line order, so the line is served in ticket order.
    next_ticket: u64,
    /// Set by `close`: the head's ticket then. The waiters from it on were
    /// closed out; those before it had been served.
    closed_from: u64,
}

/// One waiter in the line.
#[derive(Debug)]
struct Waiter {
    /// Permits it asked for.
    needed: usize,
    /// Permits assigned to it so far (it leaves the line when they reach
    /// `needed`).
    assigned: usize,
    /// Its place in the order of arrival.
    ticket: u64,
}

impl State {
    fn new(permits: usize) -> State {
        State {
            permits,
            closed: false,
            waiters: WaitList::new(),
            next_ticket: 0,
            closed_from: 0,
        }
    }

    /// What `Semaphore::head` must say: the head's ticket, or the next one.
    fn head_ticket(&self) -> u64 {
        match self.waiters.front() {
            Some(key) => self.waiters.peek(key).ticket,
            None => self.next_ticket,
        }
    }
}

/// Error from [`Semaphore::acquire`] and its relatives: the semaphore was
/// closed.
#[derive(Debug)]
pub struct AcquireError(());

/// Error from [`Semaphore::try_acquire`] and its relatives.
#[derive(Debug, PartialEq, Eq)]
pub enum TryAcquireError {
    /// The semaphore has been closed and cannot issue new permits.
    Closed,
    /// The semaphore has no available permits.
    NoPermits,
}

/// Permits borrowed from a [`Semaphore`]; dropping it gives them back.
#[must_use = "dropping the permit releases it at once"]
pub struct SemaphorePermit<'a> {
    sem: &'a Semaphore,
    permits: u32,
}

/// Permits owned from an `Arc<Semaphore>` (may be moved into a task);
/// dropping it gives them back.
#[must_use = "dropping the permit releases it at once"]
pub struct OwnedSemaphorePermit {
    sem: Arc<Semaphore>,
    permits: u32,
}

impl Semaphore {
    /// The most permits a semaphore can hold: `usize::MAX >> 3`, Tokio's
    /// figure. Creating a semaphore with more, or adding beyond it, panics.
    pub const MAX_PERMITS: usize = usize::MAX >> 3;

    /// Creates a semaphore with `permits` permits.
    ///
    /// # Panics
    ///
    /// If `permits` exceeds [`Semaphore::MAX_PERMITS`].
    #[track_caller]
    pub fn new(permits: usize) -> Semaphore {
        assert!(
            permits <= Self::MAX_PERMITS,
            "a semaphore may not have more than MAX_PERMITS permits ({})",
            Self::MAX_PERMITS
        );
        Semaphore {
            state: Mutex::new(State::new(permits)),
            head: AtomicU64::new(0),
        }
    }

    /// [`new`](Semaphore::new) in a `const` context, for a semaphore in a
    /// `static`. (Not in loom builds, whose mutex cannot be made in one;
    /// Tokio leaves it out of loom builds too.)
    ///
    /// # Panics
    ///
    /// If `permits` exceeds [`Semaphore::MAX_PERMITS`] (at compile time, in
    /// a `static`).
    #[cfg(not(loom))]
    pub const fn const_new(permits: usize) -> Semaphore {
        assert!(
            permits <= Self::MAX_PERMITS,
            "a semaphore may not have more than MAX_PERMITS permits"
        );
        Semaphore {
            state: Mutex::new(State {
                permits,
                closed: false,
                waiters: WaitList::new(),
                next_ticket: 0,
                closed_from: 0,
            }),
            head: AtomicU64::new(0),
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock()
    }

    /// The number of free permits now.
    pub fn available_permits(&self) -> usize {
        self.lock().permits
    }

    /// Adds `n` permits, handing them to waiters in line order first.
    ///
    /// # Panics
    ///
    /// If the free permits would exceed [`Semaphore::MAX_PERMITS`].
    #[track_caller]
    pub fn add_permits(&self, n: usize) {
        self.release(n);
    }

    /// Removes up to `n` free permits for good; returns how many it removed
    /// (fewer than `n` if fewer were free).
    pub fn forget_permits(&self, n: usize) -> usize {
        let mut state = self.lock();
        let removed = state.permits.min(n);
        state.permits -= removed;
        removed
    }

    /// Waits for one permit. Fails only if the semaphore is closed.
    ///
    /// Cancel safety: cancelling loses the place in the line; permits
    /// already assigned to this call are passed on, none are lost.
    pub async fn acquire(&self) -> Result<SemaphorePermit<'_>, AcquireError> {
        Acquire::new(self, 1).await?;
        Ok(SemaphorePermit {
            sem: self,
            permits: 1,
        })
    }

    /// Waits for `n` permits at once. Waiters behind it wait too, even for
    /// fewer permits than are free (fairness).
    ///
    /// Cancel safety: as [`acquire`](Semaphore::acquire).
    pub async fn acquire_many(&self, n: u32) -> Result<SemaphorePermit<'_>, AcquireError> {
        Acquire::new(self, n as usize).await?;
        Ok(SemaphorePermit {
            sem: self,
            permits: n,
        })
    }

    /// Takes one permit if one is free now and nobody waits.
    pub fn try_acquire(&self) -> Result<SemaphorePermit<'_>, TryAcquireError> {
        self.try_acquire_many(1)
    }

    /// Takes `n` permits if they are free now and nobody waits.
    pub fn try_acquire_many(&self, n: u32) -> Result<SemaphorePermit<'_>, TryAcquireError> {
        self.try_take(n as usize)?;
        Ok(SemaphorePermit {
            sem: self,
            permits: n,
        })
    }

    /// [`acquire`](Semaphore::acquire) for a permit that owns its `Arc`.
    pub async fn acquire_owned(self: Arc<Self>) -> Result<OwnedSemaphorePermit, AcquireError> {
        self.acquire_many_owned(1).await
    }

    /// [`acquire_many`](Semaphore::acquire_many) for a permit that owns its
    /// `Arc`.
    pub async fn acquire_many_owned(
        self: Arc<Self>,
        n: u32,
    ) -> Result<OwnedSemaphorePermit, AcquireError> {
        Acquire::new(&self, n as usize).await?;
        Ok(OwnedSemaphorePermit {
            sem: self,
            permits: n,
        })
    }

    /// [`try_acquire`](Semaphore::try_acquire) for a permit that owns its
    /// `Arc`.
    pub fn try_acquire_owned(self: Arc<Self>) -> Result<OwnedSemaphorePermit, TryAcquireError> {
        self.try_acquire_many_owned(1)
    }

    /// [`try_acquire_many`](Semaphore::try_acquire_many) for a permit that
    /// owns its `Arc`.
    pub fn try_acquire_many_owned(
        self: Arc<Self>,
        n: u32,
    ) -> Result<OwnedSemaphorePermit, TryAcquireError> {
        self.try_take(n as usize)?;
        Ok(OwnedSemaphorePermit {
            sem: self,
            permits: n,
        })
    }

    /// [`acquire`](Semaphore::acquire) for synchronous code: blocks the
    /// thread until a permit is free (or the semaphore closes).
    ///
    /// # Panics
    ///
    /// If called on a thread that runs a runtime's tasks (a worker, or
    /// inside `block_on`): use it from a plain thread or `spawn_blocking`.
    #[track_caller]
    pub fn blocking_acquire(&self) -> Result<SemaphorePermit<'_>, AcquireError> {
        super::blocking::wait(self.acquire())
    }

    /// [`acquire_many`](Semaphore::acquire_many) for synchronous code.
    ///
    /// # Panics
    ///
    /// As [`blocking_acquire`](Semaphore::blocking_acquire).
    #[track_caller]
    pub fn blocking_acquire_many(&self, n: u32) -> Result<SemaphorePermit<'_>, AcquireError> {
        super::blocking::wait(self.acquire_many(n))
    }

    /// [`acquire_owned`](Semaphore::acquire_owned) for synchronous code.
    ///
    /// # Panics
    ///
    /// As [`blocking_acquire`](Semaphore::blocking_acquire).
    #[track_caller]
    pub fn blocking_acquire_owned(self: Arc<Self>) -> Result<OwnedSemaphorePermit, AcquireError> {
        super::blocking::wait(self.acquire_owned())
    }

    /// [`acquire_many_owned`](Semaphore::acquire_many_owned) for
    /// synchronous code.
    ///
    /// # Panics
    ///
    /// As [`blocking_acquire`](Semaphore::blocking_acquire).
    #[track_caller]
    pub fn blocking_acquire_many_owned(
        self: Arc<Self>,
        n: u32,
    ) -> Result<OwnedSemaphorePermit, AcquireError> {
        super::blocking::wait(self.acquire_many_owned(n))
    }

    /// Closes the semaphore: every waiting `acquire` fails, and so does
    /// every later one and every `try_acquire`. Permits held stay valid and
    /// are given back on drop as usual.
    pub fn close(&self) {
        let mut wakers = WakeList::new();
        {
            let mut state = self.lock();
            if state.closed {
                return;
            }
            state.closed = true;
            state.closed_from = state.head_ticket();
            // Every waiter leaves the line; its slot stays, for its future
            // to read what had been assigned to it and give that back.
            while let Some(key) = state.waiters.front() {
                wakers.push(state.waiters.unlink(key));
            }
            self.head.store(CLOSED, Ordering::Release);
        }
        wakers.wake_all();
    }

    /// True once [`close`](Semaphore::close) was called.
    pub fn is_closed(&self) -> bool {
        self.lock().closed
    }

    /// Waits for `n` permits without wrapping them in a permit value: for
    /// the locks built on the semaphore, whose guards give them back.
    pub(crate) fn acquire_raw(&self, n: usize) -> Acquire<'_> {
        Acquire::new(self, n)
    }

    /// Takes `n` permits now, if free, without a permit value.
    pub(crate) fn try_take(&self, n: usize) -> Result<(), TryAcquireError> {
        let mut state = self.lock();
        if state.closed {
            return Err(TryAcquireError::Closed);
        }
        // Free permits imply an empty line (the invariant), so this cannot
        // overtake a waiter.
        if state.permits >= n {
            state.permits -= n;
            Ok(())
        } else {
            Err(TryAcquireError::NoPermits)
        }
    }

    /// Gives back `n` permits: to the waiters in line order, the rest free.
    #[track_caller]
    pub(crate) fn release(&self, n: usize) {
        if n == 0 {
            return;
        }
        let mut state = self.lock();
        let Some(head) = state.waiters.front() else {
            // Nobody to wake (the common, uncontended case): no wake list.
            add_free(&mut state, n);
            return;
        };
        let waiter = state.waiters.peek(head);
        if waiter.needed - waiter.assigned == n {
            // The contended mutex's case: the permits meet exactly the
            // head's need. What `assign` would do, for one waiter, without
            // a wake list to fill and empty.
            let waker = state.waiters.take(head);
            self.publish_head(&state);
            drop(state);
            if let Some(waker) = waker {
                waker.wake();
            }
            return;
        }
        let mut wakers = WakeList::new();
        self.assign(&mut state, n, &mut wakers);
        drop(state);
        wakers.wake_all();
    }

    /// Publishes the head's ticket after the head changed (never once
    /// closed: the line is empty for good then, and `head` says `CLOSED`).
    fn publish_head(&self, state: &State) {
        if !state.closed {
            // Release: a waiter that reads it without the lock and sees it
            // has been served also sees everything done before the permits
            // came back (the guarded value, for a lock).
            self.head.store(state.head_ticket(), Ordering::Release);
        }
    }

    /// Where the waiter with `ticket` stands, under the lock (where `head`
    /// is exact): still in line (`None`), served, or closed out.
    fn outcome(&self, state: &State, ticket: u64) -> Option<Result<(), AcquireError>> {
        if self.head.load(Ordering::Relaxed) <= ticket {
            None
        } else if state.closed && ticket >= state.closed_from {
            Some(Err(AcquireError(())))
        } else {
            Some(Ok(()))
        }
    }
}

impl Semaphore {
    /// Assigns `n` released permits: to the head of the line until its need
    /// is met (then it leaves the line, its slot is freed, and its waker is
    /// collected), then to the next; whatever is left when the line is empty
    /// becomes free. If anyone was served, the new head's ticket is
    /// published: that is how the served learn it.
    // ANCHOR: assign
    #[track_caller]
    fn assign(&self, state: &mut State, mut n: usize, wakers: &mut WakeList) {
        let mut served = false;
        while n > 0 {
            let Some(head) = state.waiters.front() else {
                break;
            };
            let waiter = state.waiters.payload(head);
            let given = n.min(waiter.needed - waiter.assigned);
            waiter.assigned += given;
            n -= given;
            if waiter.assigned == waiter.needed {
                wakers.push(state.waiters.take(head));
                served = true;
            }
        }
        if served {
            self.publish_head(state);
        }
        add_free(state, n);
    }
    // ANCHOR_END: assign
}

/// Makes `n` permits free; panics past `MAX_PERMITS`.
#[track_caller]
fn add_free(state: &mut State, n: usize) {
    // Tokio's two messages: more than a semaphore may ever hold, then more
    // than this one can take on top of what it holds.
    assert!(
        n <= Semaphore::MAX_PERMITS,
        "cannot add more than MAX_PERMITS permits ({})",
        Semaphore::MAX_PERMITS
    );
    assert!(
        n <= Semaphore::MAX_PERMITS - state.permits,
        "number of added permits ({n}) would overflow MAX_PERMITS ({})",
        Semaphore::MAX_PERMITS
    );
    state.permits += n;
    debug_assert!(state.permits == 0 || state.waiters.is_empty());
}

/// The future behind every `acquire`: first poll takes the permits or joins
/// the line; later polls look whether the line has served it.
pub(crate) struct Acquire<'a> {
    sem: &'a Semaphore,
    needed: usize,
    /// Our place in the line, once we joined it and until we learn that we
    /// left it.
    place: Option<Place>,
}

/// A waiter's place in the line: its slot (valid while it is in the line,
/// and after a close took it out; a served slot is freed at once and may be
/// reused) and its ticket.
#[derive(Clone, Copy)]
struct Place {
    key: usize,
    ticket: u64,
}

impl<'a> Acquire<'a> {
    fn new(sem: &'a Semaphore, needed: usize) -> Acquire<'a> {
        Acquire {
            sem,
            needed,
            place: None,
        }
    }
}

impl Future for Acquire<'_> {
    type Output = Result<(), AcquireError>;

    // ANCHOR: acquire_poll
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let budget = std::task::ready!(coop::poll_proceed(cx));
        let this = &mut *self;
        let Some(place) = this.place else {
            // First poll.
            let mut state = this.sem.lock();
            if state.closed {
                budget.made_progress();
                return Poll::Ready(Err(AcquireError(())));
            }
            if state.permits >= this.needed {
                state.permits -= this.needed;
                budget.made_progress();
                return Poll::Ready(Ok(()));
            }
            // Not enough: take what is free (the line is empty, since some
            // are free or none are needed) and join the line with the next
            // ticket. (If the line was empty, `head` already names that
            // ticket; if not, the head is unchanged: nothing to publish.)
            let taken = state.permits;
            state.permits = 0;
            let ticket = state.next_ticket;
            state.next_ticket += 1;
            let waiter = Waiter {
                needed: this.needed,
                assigned: taken,
                ticket,
            };
            let key = state.waiters.push_back(waiter, Some(cx.waker().clone()));
            this.place = Some(Place { key, ticket });
            return Poll::Pending;
        };
        // Later polls. A head past our ticket means we have left the line:
        // served, then, unless the semaphore was closed. No lock to learn it.
        let head = this.sem.head.load(Ordering::Acquire);
        if head > place.ticket && head != CLOSED {
            this.place = None;
            budget.made_progress();
            return Poll::Ready(Ok(()));
        }
        let mut state = this.sem.lock();
        match this.sem.outcome(&state, place.ticket) {
            None => {
                // Still in line: make sure the latest waker is the one woken.
                state.waiters.set_waker(place.key, cx.waker());
                Poll::Pending
            }
            Some(Ok(())) => {
                // Served just now.
                this.place = None;
                budget.made_progress();
                Poll::Ready(Ok(()))
            }
            Some(Err(closed)) => {
                // Closed out: give back what was assigned before the close.
                this.place = None;
                budget.made_progress();
                let assigned = state.waiters.free(place.key).assigned;
                let mut wakers = WakeList::new();
                this.sem.assign(&mut state, assigned, &mut wakers);
                drop(state);
                wakers.wake_all();
                Poll::Ready(Err(closed))
            }
        }
    }
    // ANCHOR_END: acquire_poll
}

// ANCHOR: acquire_drop
impl Drop for Acquire<'_> {
    fn drop(&mut self) {
        let Some(place) = self.place else { return };
        let mut wakers = WakeList::new();
        {
            let mut state = self.sem.lock();
            let sem = self.sem;
            // Whatever was assigned to us goes to whoever is next.
            let assigned = match sem.outcome(&state, place.ticket) {
                // Still in line: leave it (if we were its head, the next
                // waiter is now), with what we were given so far.
                None => {
                    let assigned = state.waiters.free(place.key).assigned;
                    sem.publish_head(&state);
                    assigned
                }
                // Served, but never polled again: all of it.
                Some(Ok(())) => self.needed,
                // Closed out: what was assigned before the close.
                Some(Err(_)) => state.waiters.free(place.key).assigned,
            };
            sem.assign(&mut state, assigned, &mut wakers);
        }
        wakers.wake_all();
    }
}
// ANCHOR_END: acquire_drop

impl<'a> SemaphorePermit<'a> {
    /// Keeps the permits out of the semaphore for good: they are not given
    /// back on drop.
    pub fn forget(mut self) {
        self.permits = 0;
    }

    /// How many permits this holds.
    pub fn num_permits(&self) -> usize {
        self.permits as usize
    }

    /// The semaphore the permits came from.
    pub fn semaphore(&self) -> &'a Semaphore {
        self.sem
    }

    /// Takes over `other`'s permits: this permit then gives back both.
    ///
    /// # Panics
    ///
    /// If the permits come from different semaphores, or the sum
    /// overflows.
    #[track_caller]
    pub fn merge(&mut self, mut other: SemaphorePermit<'a>) {
        assert!(
            std::ptr::eq(self.sem, other.sem),
            "merging permits from different semaphore instances"
        );
        take_over(&mut self.permits, &mut other.permits);
    }

    /// Moves `n` of the permits into a new permit, or `None` if this one
    /// holds fewer than `n`.
    pub fn split(&mut self, n: usize) -> Option<SemaphorePermit<'a>> {
        let n = u32::try_from(n).ok().filter(|&n| n <= self.permits)?;
        self.permits -= n;
        Some(SemaphorePermit {
            sem: self.sem,
            permits: n,
        })
    }
}

/// A permit's merge: `mine` takes over the count of `theirs`, which then
/// gives nothing back when dropped.
#[track_caller]
fn take_over(mine: &mut u32, theirs: &mut u32) {
    *mine = mine
        .checked_add(*theirs)
        .expect("number of permits overflowed");
    *theirs = 0;
}

impl OwnedSemaphorePermit {
    /// Keeps the permits out of the semaphore for good: they are not given
    /// back on drop.
    pub fn forget(mut self) {
        self.permits = 0;
    }

    /// How many permits this holds.
    pub fn num_permits(&self) -> usize {
        self.permits as usize
    }

    /// The semaphore the permits came from.
    pub fn semaphore(&self) -> &Arc<Semaphore> {
        &self.sem
    }

    /// Takes over `other`'s permits: this permit then gives back both.
    ///
    /// # Panics
    ///
    /// If the permits come from different semaphores, or the sum
    /// overflows.
    #[track_caller]
    pub fn merge(&mut self, mut other: OwnedSemaphorePermit) {
        assert!(
            Arc::ptr_eq(&self.sem, &other.sem),
            "merging permits from different semaphore instances"
        );
        take_over(&mut self.permits, &mut other.permits);
    }

    /// Moves `n` of the permits into a new permit (with a clone of the
    /// `Arc`), or `None` if this one holds fewer than `n`.
    pub fn split(&mut self, n: usize) -> Option<OwnedSemaphorePermit> {
        let n = u32::try_from(n).ok().filter(|&n| n <= self.permits)?;
        self.permits -= n;
        Some(OwnedSemaphorePermit {
            sem: self.sem.clone(),
            permits: n,
        })
    }
}

impl Drop for SemaphorePermit<'_> {
    fn drop(&mut self) {
        self.sem.release(self.permits as usize);
    }
}

impl Drop for OwnedSemaphorePermit {
    fn drop(&mut self) {
        self.sem.release(self.permits as usize);
    }
}

impl fmt::Debug for Semaphore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let state = self.lock();
        f.debug_struct("Semaphore")
            .field("permits", &state.permits)
            .field("closed", &state.closed)
            .finish_non_exhaustive()
    }
}

impl fmt::Debug for SemaphorePermit<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SemaphorePermit")
            .field("permits", &self.permits)
            .finish_non_exhaustive()
    }
}

impl fmt::Debug for OwnedSemaphorePermit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OwnedSemaphorePermit")
            .field("permits", &self.permits)
            .finish_non_exhaustive()
    }
}

error_impls! {
    AcquireError => [] "semaphore closed",
    TryAcquireError => [] {
        TryAcquireError::Closed => "semaphore closed",
        TryAcquireError::NoPermits => "no permits available",
    },
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use crate::sync::poll_once as poll;

    #[test]
    fn a_partial_assignment_is_given_back_when_cancelled() {
        let sem = Semaphore::new(2);
        let mut big = Acquire::new(&sem, 3);
        assert!(poll(&mut big).is_pending());
        assert_eq!(sem.available_permits(), 0);
        let mut small = Acquire::new(&sem, 1);
        assert!(poll(&mut small).is_pending());
        drop(big);
        // The 2 assigned to `big` went to `small` (1) and back to free (1).
        assert!(matches!(poll(&mut small), Poll::Ready(Ok(()))));
        assert_eq!(sem.available_permits(), 1);
    }

    #[test]
    fn a_granted_but_unpolled_acquire_gives_everything_back() {
        let sem = Semaphore::new(0);
        let mut waiter = Acquire::new(&sem, 2);
        assert!(poll(&mut waiter).is_pending());
        sem.add_permits(2);
        drop(waiter);
        assert_eq!(sem.available_permits(), 2);
    }

    #[test]
    #[should_panic(expected = "would overflow MAX_PERMITS")]
    fn adding_beyond_max_permits_panics() {
        let sem = Semaphore::new(Semaphore::MAX_PERMITS);
        sem.add_permits(1);
    }
}

/// A `block_on` for the loom models of `sync/` that parks on loom's own
/// mutex and condition variable, so that loom sees (and explores) the
/// wake-up. (`loom::future::block_on` needs loom's `futures` feature.)
#[cfg(all(test, loom))]
pub(crate) mod loom_block_on {
    use crate::loom::{Condvar, Mutex};
    use std::future::Future;
    use std::pin::pin;
    use std::sync::Arc;
    use std::task::{Context, Poll, Wake, Waker};

    struct Signal {
        woken: Mutex<bool>,
        condvar: Condvar,
    }

    impl Wake for Signal {
        fn wake(self: Arc<Self>) {
            self.wake_by_ref();
        }
        fn wake_by_ref(self: &Arc<Self>) {
            *self.woken.lock() = true;
            self.condvar.notify_one();
        }
    }

    /// Polls `future` on this thread until it is ready, sleeping between
    /// polls until its waker is called; a lost wake-up is a deadlock that
    /// loom reports.
    pub(crate) fn block_on<F: Future>(future: F) -> F::Output {
        let signal = Arc::new(Signal {
            woken: Mutex::new(false),
            condvar: Condvar::new(),
        });
        let waker = Waker::from(signal.clone());
        let mut cx = Context::from_waker(&waker);
        let mut future = pin!(future);
        loop {
            if let Poll::Ready(output) = future.as_mut().poll(&mut cx) {
                return output;
            }
            let mut woken = signal.woken.lock();
            while !*woken {
                woken = signal.condvar.wait(woken);
            }
            *woken = false;
        }
    }
}

#[cfg(all(test, loom))]
mod loom_semaphore {
    use super::loom_block_on::block_on;
    use super::*;
    use crate::loom::{AtomicUsize, thread};

    /// A release on one thread races an acquire on another that must wait:
    /// the waiter is always woken and gets the permit.
    #[test]
    fn loom_release_racing_acquire_wakes_the_waiter() {
        loom::model(|| {
            let sem = Arc::new(Semaphore::new(1));
            let held = sem.clone().try_acquire_owned().unwrap();
            let releaser = thread::spawn(move || drop(held));
            block_on(async {
                let permit = sem.acquire().await.unwrap();
                assert_eq!(permit.num_permits(), 1);
            });
            releaser.join().unwrap();
            assert_eq!(sem.available_permits(), 1);
        });
    }

    /// The contended mutex's hand-off: two waiters queue behind a held
    /// permit, and each learns that it was served from the head ticket,
    /// without the lock. Each one, holding the permit, increments a counter
    /// with relaxed atomics, so only the semaphore orders the increments: a
    /// hand-off that did not carry the holder's writes to the next, or a
    /// waiter left asleep, fails the model. One waiter sleeps until woken;
    /// the other polls again and again without being woken, so that its
    /// look at the head ticket is all that orders it after the release (the
    /// wake-up, a lock and a condition variable, would order it anyway).
    #[test]
    fn loom_served_waiters_learn_it_from_the_head_ticket() {
        loom::model(|| {
            let sem = Arc::new(Semaphore::new(1));
            let count = Arc::new(AtomicUsize::new(0));
            let held = sem.clone().try_acquire_owned().unwrap();
            let increment = |count: &AtomicUsize| {
                let seen = count.load(Ordering::Relaxed);
                count.store(seen + 1, Ordering::Relaxed);
            };
            let other = {
                let (sem, count) = (sem.clone(), count.clone());
                thread::spawn(move || {
                    let mut acquire = Acquire::new(&sem, 1);
                    let mut cx = Context::from_waker(std::task::Waker::noop());
                    while Pin::new(&mut acquire).poll(&mut cx).is_pending() {
                        thread::yield_now();
                    }
                    increment(&count);
                    sem.release(1);
                })
            };
            let releaser = {
                let count = count.clone();
                thread::spawn(move || {
                    count.store(1, Ordering::Relaxed);
                    drop(held);
                })
            };
            block_on(async {
                let _permit = sem.acquire().await.unwrap();
                increment(&count);
            });
            other.join().unwrap();
            releaser.join().unwrap();
            assert_eq!(count.load(Ordering::Relaxed), 3);
            assert_eq!(sem.available_permits(), 1);
        });
    }

    /// A waiter polled once with one waker and then with another, while a
    /// release races the second poll (whose look at the head ticket may
    /// come just before the release, and its lock just after): it is always
    /// woken, through whichever waker the release finds.
    #[test]
    fn loom_a_waiter_that_changes_its_waker_is_still_woken() {
        loom::model(|| {
            let sem = Arc::new(Semaphore::new(1));
            let held = sem.clone().try_acquire_owned().unwrap();
            let mut acquire = Box::pin(Acquire::new(&sem, 1));
            let mut cx = Context::from_waker(std::task::Waker::noop());
            assert!(acquire.as_mut().poll(&mut cx).is_pending());
            let releaser = thread::spawn(move || drop(held));
            assert!(block_on(acquire).is_ok());
            releaser.join().unwrap();
            // The permit `acquire` took is not given back by a guard here.
            assert_eq!(sem.available_permits(), 0);
        });
    }

    /// `close` races a release that would serve the waiter: the waiter
    /// either is served (the release came first) or fails, never hangs, and
    /// no permit is lost either way.
    #[test]
    fn loom_close_racing_a_hand_off_serves_or_fails_the_waiter() {
        loom::model(|| {
            let sem = Arc::new(Semaphore::new(1));
            let held = sem.clone().try_acquire_owned().unwrap();
            let releaser = thread::spawn(move || drop(held));
            let closer = {
                let sem = sem.clone();
                thread::spawn(move || sem.close())
            };
            drop(block_on(sem.acquire()));
            releaser.join().unwrap();
            closer.join().unwrap();
            assert_eq!(sem.available_permits(), 1);
        });
    }

    /// One waiter is cancelled while a release races it; a second waiter
    /// must still get the permit (nothing lost, nobody left asleep), and at
    /// the end every permit is back.
    #[test]
    fn loom_cancelled_acquire_passes_on_its_permit() {
        loom::model(|| {
            let sem = Arc::new(Semaphore::new(1));
            let held = sem.clone().try_acquire_owned().unwrap();
            // The first in line: polled once, then cancelled on its thread.
            let first = {
                let sem = sem.clone();
                thread::spawn(move || {
                    let mut acquire = Acquire::new(&sem, 1);
                    let mut cx = Context::from_waker(std::task::Waker::noop());
                    if let Poll::Ready(Ok(())) = Pin::new(&mut acquire).poll(&mut cx) {
                        // Got it at once (the release came first): give
                        // it back, as a dropped permit would.
                        sem.add_permits(1);
                    }
                    drop(acquire);
                })
            };
            let releaser = thread::spawn(move || drop(held));
            // The second waiter must always complete.
            block_on(async {
                drop(sem.acquire().await.unwrap());
            });
            first.join().unwrap();
            releaser.join().unwrap();
            assert_eq!(sem.available_permits(), 1);
        });
    }
}
