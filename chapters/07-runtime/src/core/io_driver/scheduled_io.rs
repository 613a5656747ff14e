//! The readiness of one registered socket, as the I/O driver and the tasks
//! using the socket share it.
//!
//! The driver runs epoll in edge-triggered mode: the kernel reports a socket
//! once when it *becomes* readable, not again while it stays readable. So
//! the runtime must remember readiness itself, and a task must clear it only
//! when the socket says `WouldBlock`. The danger is the edge that arrives in
//! between: a task reads, gets `WouldBlock`, and before it clears the
//! readable bit the driver records a new edge; clearing now would erase that
//! edge, and with edge triggering no other will come. The task would wait
//! for ever on a socket with data.
//!
//! The fix is a *tick*: the readiness word holds the readiness bits and the
//! driver's turn number when they were last set, in one atomic:
//!
//! ```text
//!   63      33   32      31            16 15          0
//!  +----------+----------+----------------+-------------+
//!  | (unused) | shutdown |  tick (u16)    |  readiness  |
//!  +----------+----------+----------------+-------------+
//! ```
//!
//! A task that observed readiness at tick `t` and then hit `WouldBlock` asks
//! to clear "the readiness I saw at tick `t`"; if the driver has set it again
//! since (the tick moved), the clear is refused and the task tries again.
//!
//! Who waits, and how many? A socket read through `AsyncRead::poll_read`
//! takes `&mut self`, so at most one task reads it at a time, and so it
//! keeps one reader and one writer waker slot (the last poller's waker
//! wins, as with Tokio's `poll_*` methods). But `accept(&self)` and the
//! other `async fn`s on `&self` may be awaited by any number of tasks at
//! once: two tasks accepting on one shared listener must both be woken when
//! connections arrive, or one waits for ever beside a waiting connection.
//! Those wait through a [`Readiness`] future, which holds a place in the
//! socket's *waiter list*, any number per direction. All of it sits behind a
//! small mutex, and the driver wakes every waiter whose direction the event
//! serves.
//!
//! Tokio keeps that list intrusive: each waiting future is itself a node of a
//! linked list, so waiting allocates nothing, at the price of unsafe pointer
//! code. We keep a plain `Vec` of slots, indexed by the waiting future: an
//! empty list costs one `Vec` header (24 bytes) per socket and allocates
//! nothing, a waiter costs one slot, and a socket rarely has more than a
//! few waiters, so finding a free slot by a scan is cheap.
//!
//! Book: Chapter 7, "The I/O driver".

use crate::loom::{AtomicU64, Mutex, Ordering};
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll, Waker};

/// Readiness bits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct ReadyBits(u16);

impl ReadyBits {
    pub(crate) const EMPTY: ReadyBits = ReadyBits(0);
    pub(crate) const READABLE: ReadyBits = ReadyBits(1);
    pub(crate) const WRITABLE: ReadyBits = ReadyBits(2);
    pub(crate) const READ_CLOSED: ReadyBits = ReadyBits(4);
    pub(crate) const WRITE_CLOSED: ReadyBits = ReadyBits(8);
    pub(crate) const ERROR: ReadyBits = ReadyBits(16);
    /// Priority (out-of-band) data, reported only to a descriptor
    /// registered for it (`EPOLLPRI`).
    pub(crate) const PRIORITY: ReadyBits = ReadyBits(32);

    /// What a mio event reports.
    pub(crate) fn from_event(event: &mio::event::Event) -> ReadyBits {
        let mut ready = ReadyBits::EMPTY;
        if event.is_readable() {
            ready = ready | ReadyBits::READABLE;
        }
        if event.is_writable() {
            ready = ready | ReadyBits::WRITABLE;
        }
        if event.is_read_closed() {
            ready = ready | ReadyBits::READ_CLOSED;
        }
        if event.is_write_closed() {
            ready = ready | ReadyBits::WRITE_CLOSED;
        }
        if event.is_error() {
            ready = ready | ReadyBits::ERROR;
        }
        if event.is_priority() {
            ready = ready | ReadyBits::PRIORITY;
        }
        ready
    }

    pub(crate) fn is_empty(self) -> bool {
        self.0 == 0
    }

    pub(crate) fn intersects(self, other: ReadyBits) -> bool {
        self.0 & other.0 != 0
    }
}

impl std::ops::BitOr for ReadyBits {
    type Output = ReadyBits;
    fn bitor(self, other: ReadyBits) -> ReadyBits {
        ReadyBits(self.0 | other.0)
    }
}

impl std::ops::BitAnd for ReadyBits {
    type Output = ReadyBits;
    fn bitand(self, other: ReadyBits) -> ReadyBits {
        ReadyBits(self.0 & other.0)
    }
}

impl std::ops::Sub for ReadyBits {
    type Output = ReadyBits;
    /// The states of `self` that are not in `other`.
    fn sub(self, other: ReadyBits) -> ReadyBits {
        ReadyBits(self.0 & !other.0)
    }
}

/// Which half of a socket a task waits on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Direction {
    Read,
    Write,
    /// Neither half: an error pending on the descriptor (`Interest::ERROR`,
    /// waited for only through [`Readiness`]).
    Error,
    /// Priority data (`Interest::PRIORITY`, waited for only through
    /// [`Readiness`]).
    Priority,
}

impl Direction {
    /// The readiness that lets this direction proceed (closing and errors
    /// do too: the next call returns them).
    pub(crate) fn mask(self) -> ReadyBits {
        match self {
            Direction::Read => ReadyBits::READABLE | ReadyBits::READ_CLOSED | ReadyBits::ERROR,
            Direction::Write => ReadyBits::WRITABLE | ReadyBits::WRITE_CLOSED | ReadyBits::ERROR,
            Direction::Error => ReadyBits::ERROR,
            // A closed read half ends the wait for priority data too, as in
            // Tokio: none can come any more.
            Direction::Priority => ReadyBits::PRIORITY | ReadyBits::READ_CLOSED,
        }
    }
}

/// Readiness seen by a task, with the tick it was set at.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ReadyEvent {
    pub(crate) tick: u16,
    pub(crate) ready: ReadyBits,
}

// ANCHOR: word
const READINESS_MASK: u64 = 0xFFFF;
const TICK_SHIFT: u32 = 16;
/// The resource is gone (deregistered, or the runtime shut down).
const SHUTDOWN: u64 = 1 << 32;

/// One registered socket's shared state.
pub(crate) struct ScheduledIo {
    readiness: AtomicU64,
    waiters: Mutex<Waiters>,
}
// ANCHOR_END: word

#[derive(Default)]
struct Waiters {
    /// The `poll_read` caller's waker.
    reader: Option<Waker>,
    /// The `poll_write` caller's waker.
    writer: Option<Waker>,
    /// The [`Readiness`] futures waiting now, each at the index it holds;
    /// `None` is a free slot.
    list: Vec<Option<Waiter>>,
}

/// One waiting [`Readiness`] future.
struct Waiter {
    direction: Direction,
    /// Taken when woken; the future puts a new one back if it must wait
    /// again (another waiter may have taken the connection it was woken for).
    waker: Option<Waker>,
}

impl Default for ScheduledIo {
    fn default() -> ScheduledIo {
        ScheduledIo {
            readiness: AtomicU64::new(0),
            waiters: Mutex::new(Waiters::default()),
        }
    }
}

fn pack(tick: u16, ready: ReadyBits) -> u64 {
    (u64::from(tick) << TICK_SHIFT) | u64::from(ready.0)
}

fn unpack(word: u64) -> (u16, ReadyBits) {
    (
        (word >> TICK_SHIFT) as u16,
        ReadyBits((word & READINESS_MASK) as u16),
    )
}

impl ScheduledIo {
    /// The driver saw an event at turn `tick`: add its readiness, stamp the
    /// tick, and wake whoever waits for it.
    // ANCHOR: set_readiness
    pub(crate) fn set_readiness(&self, tick: u16, ready: ReadyBits) {
        let mut current = self.readiness.load(Ordering::Acquire);
        loop {
            let (_, old) = unpack(current);
            let next = pack(tick, old | ready) | (current & SHUTDOWN);
            match self.readiness.compare_exchange_weak(
                current,
                next,
                Ordering::AcqRel,
                Ordering::Acquire,
            ) {
                Ok(_) => break,
                Err(actual) => current = actual,
            }
        }
        self.wake(ready);
    }
    // ANCHOR_END: set_readiness

    /// Wakes the waiters whose direction `ready` serves.
    // ANCHOR: wake
    pub(crate) fn wake(&self, ready: ReadyBits) {
        let mut listed = Vec::new();
        let (reader, writer) = {
            let mut waiters = self.waiters.lock();
            let reader = if ready.intersects(Direction::Read.mask()) {
                waiters.reader.take()
            } else {
                None
            };
            let writer = if ready.intersects(Direction::Write.mask()) {
                waiters.writer.take()
            } else {
                None
            };
            // Every listed waiter of a direction this event serves: each
            // looks again, and those that find nothing wait again.
            for waiter in waiters.list.iter_mut().flatten() {
                if ready.intersects(waiter.direction.mask())
                    && let Some(waker) = waiter.waker.take()
                {
                    listed.push(waker);
                }
            }
            (reader, writer)
        };
        // Outside the lock: a wake may run arbitrary scheduler code.
        if let Some(waker) = reader {
            waker.wake();
        }
        if let Some(waker) = writer {
            waker.wake();
        }
        listed.into_iter().for_each(Waker::wake);
    }
    // ANCHOR_END: wake

    /// True once the socket is gone: its runtime shut down (a deregistered
    /// socket has no user left to ask).
    pub(crate) fn is_shutdown(&self) -> bool {
        self.readiness.load(Ordering::Acquire) & SHUTDOWN != 0
    }

    /// A future that completes when `direction` is ready, for `async fn`s
    /// on `&self` that any number of tasks may await at once.
    pub(crate) fn readiness(&self, direction: Direction) -> Readiness<'_> {
        Readiness {
            io: self,
            direction,
            slot: None,
        }
    }

    /// Marks the resource gone and wakes everyone (their next call fails or
    /// sees end of stream).
    pub(crate) fn shutdown(&self) {
        self.readiness.fetch_or(SHUTDOWN, Ordering::AcqRel);
        self.wake(Direction::Read.mask() | Direction::Write.mask());
    }

    /// The direction's readiness now, if any (without waiting).
    pub(crate) fn ready_in(&self, direction: Direction) -> Option<ReadyEvent> {
        self.ready_matching(direction.mask())
    }

    /// The states of `mask` set now, if any, read in one load so that they
    /// share one tick (for `AsyncFd`'s guards, which may wait on both
    /// directions at once). Once shut down, the whole mask.
    pub(crate) fn ready_matching(&self, mask: ReadyBits) -> Option<ReadyEvent> {
        let word = self.readiness.load(Ordering::Acquire);
        let (tick, ready) = unpack(word);
        if word & SHUTDOWN != 0 {
            return Some(ReadyEvent { tick, ready: mask });
        }
        let ready = ready & mask;
        (!ready.is_empty()).then_some(ReadyEvent { tick, ready })
    }

    /// ReadyBits if the direction's readiness is set; otherwise leaves the
    /// task's waker for the driver.
    // ANCHOR: poll_ready
    pub(crate) fn poll_ready(
        &self,
        cx: &mut Context<'_>,
        direction: Direction,
    ) -> Poll<ReadyEvent> {
        if let Some(event) = self.ready_in(direction) {
            return Poll::Ready(event);
        }
        let mut waiters = self.waiters.lock();
        let slot = match direction {
            Direction::Read => &mut waiters.reader,
            Direction::Write => &mut waiters.writer,
            Direction::Error | Direction::Priority => {
                unreachable!("errors and priority data are awaited through `readiness`")
            }
        };
        if !slot
            .as_ref()
            .is_some_and(|waker| waker.will_wake(cx.waker()))
        {
            *slot = Some(cx.waker().clone());
        }
        // Look again under the lock: the driver sets readiness before it
        // takes this lock to wake, so either we see the readiness now, or it
        // finds our waker.
        match self.ready_in(direction) {
            Some(event) => Poll::Ready(event),
            None => Poll::Pending,
        }
    }
    // ANCHOR_END: poll_ready

    /// Takes a waiter's slot out of the list.
    fn remove_waiter(&self, slot: usize) {
        let mut waiters = self.waiters.lock();
        if let Some(entry) = waiters.list.get_mut(slot) {
            *entry = None;
        }
        // Keep the list as short as its last waiter, so a socket whose
        // waiters have all gone costs nothing but the empty Vec.
        while waiters.list.last().is_some_and(Option::is_none) {
            waiters.list.pop();
        }
    }

    /// The task saw `event` and then `WouldBlock`: clear that readiness,
    /// unless the driver set it again since (the tick moved). Closing is
    /// never cleared: a closed half stays closed. An error or priority
    /// data is, as in Tokio: a call that returned `WouldBlock` found none
    /// pending, and epoll reports the next as a new edge.
    // ANCHOR: clear_readiness
    pub(crate) fn clear_readiness(&self, event: ReadyEvent) {
        let clear = event.ready - (ReadyBits::READ_CLOSED | ReadyBits::WRITE_CLOSED);
        let mut current = self.readiness.load(Ordering::Acquire);
        loop {
            let (tick, ready) = unpack(current);
            if tick != event.tick {
                // A new edge arrived after the task looked: keep it.
                return;
            }
            let next = pack(tick, ready - clear) | (current & SHUTDOWN);
            match self.readiness.compare_exchange_weak(
                current,
                next,
                Ordering::AcqRel,
                Ordering::Acquire,
            ) {
                Ok(_) => return,
                Err(actual) => current = actual,
            }
        }
    }
    // ANCHOR_END: clear_readiness
}

/// Completes when a direction of a socket is ready; see
/// [`ScheduledIo::readiness`]. Dropping it before then gives up its place in
/// the waiter list.
// ANCHOR: readiness
pub(crate) struct Readiness<'a> {
    io: &'a ScheduledIo,
    direction: Direction,
    /// Our index in the waiter list, once we have had to wait.
    slot: Option<usize>,
}

impl Future for Readiness<'_> {
    type Output = ReadyEvent;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<ReadyEvent> {
        let this = &mut *self;
        if let Some(event) = this.io.ready_in(this.direction) {
            this.leave();
            return Poll::Ready(event);
        }
        {
            let mut waiters = this.io.waiters.lock();
            let list = &mut waiters.list;
            match this.slot {
                Some(slot) => {
                    let waiter = list[slot].as_mut().expect("our slot is ours until we drop");
                    if !waiter
                        .waker
                        .as_ref()
                        .is_some_and(|waker| waker.will_wake(cx.waker()))
                    {
                        waiter.waker = Some(cx.waker().clone());
                    }
                }
                None => {
                    let waiter = Some(Waiter {
                        direction: this.direction,
                        waker: Some(cx.waker().clone()),
                    });
                    let slot = match list.iter().position(Option::is_none) {
                        Some(free) => {
                            list[free] = waiter;
                            free
                        }
                        None => {
                            list.push(waiter);
                            list.len() - 1
                        }
                    };
                    this.slot = Some(slot);
                }
            }
            // Look again under the lock: the driver sets readiness before it
            // takes this lock to wake, so either we see it now or it finds
            // our waker.
            if let Some(event) = this.io.ready_in(this.direction) {
                drop(waiters);
                this.leave();
                return Poll::Ready(event);
            }
        }
        Poll::Pending
    }
}

impl Readiness<'_> {
    fn leave(&mut self) {
        if let Some(slot) = self.slot.take() {
            self.io.remove_waiter(slot);
        }
    }
}

impl Drop for Readiness<'_> {
    fn drop(&mut self) {
        self.leave();
    }
}
// ANCHOR_END: readiness

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use crate::task::tests::counting_waker;

    #[test]
    fn a_clear_with_a_stale_tick_keeps_the_new_edge() {
        let io = ScheduledIo::default();
        let mut cx = Context::from_waker(Waker::noop());
        io.set_readiness(1, ReadyBits::READABLE);
        let Poll::Ready(seen) = io.poll_ready(&mut cx, Direction::Read) else {
            panic!("readable");
        };
        // The task reads until WouldBlock; meanwhile a new edge arrives.
        io.set_readiness(2, ReadyBits::READABLE);
        io.clear_readiness(seen);
        assert!(
            io.poll_ready(&mut cx, Direction::Read).is_ready(),
            "the edge was lost"
        );
        // With no new edge, the clear takes effect.
        let Poll::Ready(seen) = io.poll_ready(&mut cx, Direction::Read) else {
            panic!("readable");
        };
        io.clear_readiness(seen);
        assert!(io.poll_ready(&mut cx, Direction::Read).is_pending());
    }

    #[test]
    fn closing_is_never_cleared_and_directions_are_separate() {
        let io = ScheduledIo::default();
        let mut cx = Context::from_waker(Waker::noop());
        io.set_readiness(1, ReadyBits::WRITABLE);
        assert!(io.poll_ready(&mut cx, Direction::Read).is_pending());
        io.set_readiness(2, ReadyBits::READ_CLOSED);
        let Poll::Ready(seen) = io.poll_ready(&mut cx, Direction::Read) else {
            panic!("read closed");
        };
        io.clear_readiness(seen);
        assert!(io.poll_ready(&mut cx, Direction::Read).is_ready());
    }

    #[test]
    fn every_listed_waiter_is_woken_and_a_dropped_one_leaves_the_list() {
        let io = ScheduledIo::default();
        let (wakers, counts): (Vec<_>, Vec<_>) = (0..3).map(|_| counting_waker()).unzip();
        let mut futures: Vec<_> = (0..3)
            .map(|_| Box::pin(io.readiness(Direction::Read)))
            .collect();
        for (future, waker) in futures.iter_mut().zip(&wakers) {
            assert!(
                future
                    .as_mut()
                    .poll(&mut Context::from_waker(waker))
                    .is_pending()
            );
        }
        // The middle one is cancelled: it must not be woken, nor stay listed.
        drop(futures.remove(1));
        io.set_readiness(1, ReadyBits::WRITABLE);
        assert!(counts.iter().all(|count| count.load(Ordering::SeqCst) == 0));
        io.set_readiness(2, ReadyBits::READABLE);
        let woken: Vec<usize> = counts
            .iter()
            .map(|count| count.load(Ordering::SeqCst))
            .collect();
        assert_eq!(woken, [1, 0, 1], "both remaining acceptors are woken");
        for future in &mut futures {
            assert!(
                future
                    .as_mut()
                    .poll(&mut Context::from_waker(Waker::noop()))
                    .is_ready()
            );
        }
        drop(futures);
        assert!(
            io.waiters.lock().list.is_empty(),
            "the list shrinks when its waiters go"
        );
    }

    #[test]
    fn the_driver_wakes_the_waiting_reader() {
        let (waker, count) = counting_waker();
        let io = ScheduledIo::default();
        assert!(
            io.poll_ready(&mut Context::from_waker(&waker), Direction::Read)
                .is_pending()
        );
        io.set_readiness(1, ReadyBits::WRITABLE);
        assert_eq!(
            count.load(Ordering::SeqCst),
            0,
            "writability does not wake a reader"
        );
        io.set_readiness(2, ReadyBits::READABLE);
        assert_eq!(count.load(Ordering::SeqCst), 1);
    }
}

#[cfg(all(test, loom))]
mod loom_readiness {
    use super::*;
    use crate::loom::{Arc, thread};

    /// The driver records a new edge while a task clears the readiness it
    /// saw before its read hit WouldBlock: the new edge must survive.
    #[test]
    fn loom_clear_readiness_never_erases_a_newer_edge() {
        loom::model(|| {
            let io = Arc::new(ScheduledIo::default());
            io.set_readiness(1, ReadyBits::READABLE);
            let seen = io.ready_in(Direction::Read).expect("readable at tick 1");
            let driver = {
                let io = io.clone();
                thread::spawn(move || io.set_readiness(2, ReadyBits::READABLE))
            };
            io.clear_readiness(seen);
            driver.join().unwrap();
            assert!(
                io.ready_in(Direction::Read).is_some(),
                "the edge of tick 2 was erased"
            );
        });
    }

    /// A task registers its waker while the driver sets readiness: either
    /// the task sees the readiness or the driver wakes it.
    #[test]
    fn loom_poll_ready_races_set_readiness() {
        use std::sync::atomic::AtomicBool;
        struct Flag(AtomicBool);
        impl std::task::Wake for Flag {
            fn wake(self: std::sync::Arc<Self>) {
                self.0.store(true, std::sync::atomic::Ordering::SeqCst);
            }
        }
        loom::model(|| {
            let io = Arc::new(ScheduledIo::default());
            let driver = {
                let io = io.clone();
                thread::spawn(move || io.set_readiness(1, ReadyBits::READABLE))
            };
            let flag = std::sync::Arc::new(Flag(AtomicBool::new(false)));
            let waker = Waker::from(flag.clone());
            let ready = io
                .poll_ready(&mut Context::from_waker(&waker), Direction::Read)
                .is_ready();
            driver.join().unwrap();
            assert!(
                ready || flag.0.load(std::sync::atomic::Ordering::SeqCst),
                "lost wake-up"
            );
        });
    }
}
