//! The I/O driver: one `mio::Poll` (epoll, edge-triggered) for the whole
//! runtime, and the table that maps its events back to sockets.
//!
//! Each registered socket gets a [`ScheduledIo`] (its readiness word and
//! waker slots) and a *token*, the number epoll hands back with every event
//! for that socket. How to turn the token back into the `ScheduledIo`
//! safely, when a socket may be deregistered (and its slot reused) while an
//! event for it is still in the batch being processed?
//!
//! We use Chapter 5's answer: a slab with generations. The token is the slot
//! index in the low 32 bits and the slot's generation in the high 32; a slot
//! reused by a new socket has a new generation, so a stale event finds a
//! mismatch and is dropped. The table sits behind a mutex taken once per
//! batch of events (and once per registration), and holds an `Arc` per
//! socket, so the socket's state lives until both the socket and any
//! in-flight wake are done with it. (Tokio instead uses the address of the
//! `ScheduledIo` as the token, and keeps every registration alive in a list
//! until the driver has seen its deregistration: no lookup at all, at the
//! price of unsafe pointer casts and deferred frees.)
//!
//! A turn of the driver: bump the tick, `epoll_wait` (with a timeout: zero
//! for a maintenance poll, the next timer's deadline when a worker parks
//! here), then, under the table's lock, stamp each event's readiness and
//! tick into its socket, and wake the waiters outside the lock.
//!
//! The folder holds the driver and its parts:
//!
//! * `mod.rs` (this file): the `mio::Poll`, the token table, one turn;
//! * `scheduled_io`: one socket's readiness word (with its tick) and
//!   waiters;
//! * `registration`: a socket's handle on the driver, and the
//!   ready/try/clear loop every socket operation runs;
//! * `registered_source`: a socket and its registration owned together,
//!   with every readiness operation of the socket types written once;
//! * `interest` and `ready`: the public names for what an operation waits
//!   for and what it saw ([`Interest`](crate::io::Interest),
//!   [`Ready`](crate::io::Ready));
//! * `timerfd`: the descriptor that lets `epoll_wait` sleep to the
//!   microsecond.
//!
//! Book: Chapter 7, "The I/O driver".

pub(crate) mod interest;
pub(crate) mod ready;
pub(crate) mod registered_source;
pub(crate) mod registration;
pub(crate) mod scheduled_io;
pub(crate) mod timerfd;

use self::scheduled_io::{ReadyBits, ScheduledIo};
use self::timerfd::TimerFd;
use crate::loom::Mutex;
use mio::{Events, Interest, Poll, Registry, Token};
use std::io;
use std::sync::Arc;
use std::time::Duration;

// ANCHOR: tokens
/// The token of the driver's own waker (an eventfd): wakes a worker parked
/// in `epoll_wait`.
const WAKE_TOKEN: Token = Token(usize::MAX);

/// The token of the timer descriptor that ends a wait at a timer's deadline.
const TIMER_TOKEN: Token = Token(usize::MAX - 1);
// ANCHOR_END: tokens

// ANCHOR: events_per_turn
/// Events fetched per `epoll_wait`, at most: half a worker's ring. A busy
/// worker turns the driver only when its ring has this much room left
/// (`multi_thread/worker.rs`, `park_yield`), so the tasks a turn wakes fit
/// in the ring instead of overflowing to the inject queue, where they
/// would wait behind every task later turns bring. Events that do not fit
/// stay in the kernel's ready list, which `epoll_wait` hands out oldest
/// first: the kernel holds the queue, and keeps it in order. (Tokio takes
/// up to 1,024 per turn.)
pub(crate) const EVENTS_PER_TURN: usize = 128;
// ANCHOR_END: events_per_turn

/// The part of the driver only the thread holding it uses.
pub(crate) struct IoDriver {
    poll: Poll,
    timer: TimerFd,
    events: Events,
    tick: u16,
    /// Reused between turns: the sockets to wake and their readiness.
    to_wake: Vec<(Arc<ScheduledIo>, ReadyBits)>,
}

/// The part every thread can use: registering, and waking the driver.
pub(crate) struct IoHandle {
    registry: Registry,
    waker: mio::Waker,
    resources: Mutex<Slab>,
    /// Readiness events delivered to sockets since the start.
    ready_events: std::sync::atomic::AtomicU64,
    /// `Slab::live`, mirrored (written under the table's lock) so that a
    /// turn without waiting can see without the lock that no socket is
    /// registered, and skip the system call.
    live: std::sync::atomic::AtomicUsize,
}

#[derive(Default)]
struct Slab {
    entries: Vec<SlabEntry>,
    free: Vec<u32>,
    live: usize,
    /// The runtime has shut down: no new registrations.
    shut_down: bool,
}

struct SlabEntry {
    generation: u32,
    io: Option<Arc<ScheduledIo>>,
}

// ANCHOR: token_pack
fn token(index: u32, generation: u32) -> Token {
    Token(((generation as usize) << 32) | index as usize)
}

fn untoken(token: Token) -> (u32, u32) {
    ((token.0 & 0xFFFF_FFFF) as u32, (token.0 >> 32) as u32)
}
// ANCHOR_END: token_pack

/// Creates the driver and its handle.
pub(crate) fn create() -> io::Result<(IoDriver, IoHandle)> {
    let poll = Poll::new()?;
    let registry = poll.registry().try_clone()?;
    let waker = mio::Waker::new(poll.registry(), WAKE_TOKEN)?;
    let timer = TimerFd::new()?;
    registry.register(
        &mut mio::unix::SourceFd(&timer.raw()),
        TIMER_TOKEN,
        Interest::READABLE,
    )?;
    Ok((
        IoDriver {
            poll,
            timer,
            events: Events::with_capacity(EVENTS_PER_TURN),
            tick: 0,
            to_wake: Vec::new(),
        },
        IoHandle {
            registry,
            waker,
            resources: Mutex::new(Slab::default()),
            ready_events: std::sync::atomic::AtomicU64::new(0),
            live: std::sync::atomic::AtomicUsize::new(0),
        },
    ))
}

impl IoDriver {
    /// One turn: wait for events (at most `timeout`; `None` waits until one
    /// arrives or the driver is woken), then deliver them.
    pub(crate) fn turn(&mut self, handle: &IoHandle, timeout: Option<Duration>) -> io::Result<()> {
        // ANCHOR: turn_wait
        // A turn that may not wait, with no socket registered, has nothing
        // to deliver: no system call. (The wake and timer descriptors are
        // not sockets; a wake pending on them ends the next wait at once.)
        // A busy runtime without sockets (pure computation, channels,
        // timers) turns the driver every `event_interval` tasks, and the
        // `epoll_wait` was most of that turn's cost.
        if timeout == Some(Duration::ZERO)
            && handle.live.load(std::sync::atomic::Ordering::Relaxed) == 0
        {
            return Ok(());
        }
        self.tick = self.tick.wrapping_add(1);
        // A positive timeout is a timer's deadline: the timer descriptor ends
        // the wait to the microsecond; epoll_wait's own millisecond timeout
        // (one more, as a safety net) would be up to a millisecond late.
        // The descriptor stays armed after the wait: the next timed wait
        // arms it afresh, and if it expires first, its one event (mio
        // registers edge-triggered) ends one wait early, which is all a
        // stale deadline costs.
        let wait = match timeout {
            Some(t) if !t.is_zero() => {
                self.timer.arm(t)?;
                Some(t + Duration::from_millis(1))
            }
            other => other,
        };
        let result = self.poll.poll(&mut self.events, wait);
        match result {
            Ok(()) => {}
            Err(error) if error.kind() == io::ErrorKind::Interrupted => return Ok(()),
            Err(error) => return Err(error),
        }
        // ANCHOR_END: turn_wait
        {
            // ANCHOR: turn_deliver
            let resources = handle.resources.lock();
            for event in self.events.iter() {
                if event.token() == WAKE_TOKEN || event.token() == TIMER_TOKEN {
                    continue;
                }
                let (index, generation) = untoken(event.token());
                let Some(entry) = resources.entries.get(index as usize) else {
                    continue;
                };
                // A stale event for a socket already deregistered: drop it.
                if entry.generation != generation {
                    continue;
                }
                if let Some(io) = &entry.io {
                    self.to_wake
                        .push((io.clone(), ReadyBits::from_event(event)));
                }
            }
            // ANCHOR_END: turn_deliver
        }
        // Outside the table's lock: waking may run scheduler code, and a
        // woken task's socket may be dropped (which takes the lock).
        if !self.to_wake.is_empty() {
            handle.ready_events.fetch_add(
                self.to_wake.len() as u64,
                std::sync::atomic::Ordering::Relaxed,
            );
        }
        for (io, ready) in self.to_wake.drain(..) {
            io.set_readiness(self.tick, ready);
        }
        Ok(())
    }
}

impl IoHandle {
    /// Wakes a worker parked in `epoll_wait`.
    pub(crate) fn unpark(&self) {
        // Fails only if the eventfd is gone, i.e. the runtime is shutting
        // down; nobody is parked then.
        let _ = self.waker.wake();
    }

    /// Registers a socket for read and write readiness, edge-triggered.
    pub(crate) fn register(
        &self,
        source: &mut impl mio::event::Source,
        interest: Interest,
    ) -> io::Result<(Token, Arc<ScheduledIo>)> {
        let io = Arc::new(ScheduledIo::default());
        let token = {
            let mut slab = self.resources.lock();
            if slab.shut_down {
                return Err(crate::driver::shut_down_error());
            }
            let index = match slab.free.pop() {
                Some(index) => index,
                None => {
                    let index = u32::try_from(slab.entries.len())
                        .map_err(|_| io::Error::other("more than 4 billion sockets registered"))?;
                    slab.entries.push(SlabEntry {
                        generation: 0,
                        io: None,
                    });
                    index
                }
            };
            let entry = &mut slab.entries[index as usize];
            entry.io = Some(io.clone());
            let token = token(index, entry.generation);
            slab.live += 1;
            self.live
                .store(slab.live, std::sync::atomic::Ordering::Relaxed);
            token
        };
        if let Err(error) = self.registry.register(source, token, interest) {
            self.release(token);
            return Err(error);
        }
        Ok((token, io))
    }

    /// Deregisters a socket and frees its slot (the next user of the slot
    /// gets a new generation, so late events for this one are dropped).
    pub(crate) fn deregister(
        &self,
        source: &mut impl mio::event::Source,
        token: Token,
    ) -> io::Result<()> {
        let result = self.registry.deregister(source);
        self.release(token);
        result
    }

    fn release(&self, token: Token) {
        let (index, generation) = untoken(token);
        let io = {
            let mut slab = self.resources.lock();
            let Some(entry) = slab.entries.get_mut(index as usize) else {
                return;
            };
            if entry.generation != generation {
                return;
            }
            entry.generation = entry.generation.wrapping_add(1);
            let io = entry.io.take();
            slab.free.push(index);
            slab.live -= 1;
            self.live
                .store(slab.live, std::sync::atomic::Ordering::Relaxed);
            io
        };
        if let Some(io) = io {
            io.shutdown();
        }
    }

    /// Readiness events delivered since the start.
    pub(crate) fn ready_events(&self) -> u64 {
        self.ready_events.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Sockets registered now.
    pub(crate) fn registered(&self) -> usize {
        self.resources.lock().live
    }

    /// At runtime shutdown: refuse new sockets, and wake every waiter so it
    /// sees the runtime is gone (its next operation returns an error).
    pub(crate) fn shutdown(&self) {
        let all: Vec<Arc<ScheduledIo>> = {
            let mut slab = self.resources.lock();
            slab.shut_down = true;
            slab.entries
                .iter()
                .filter_map(|entry| entry.io.clone())
                .collect()
        };
        for io in all {
            io.shutdown();
        }
    }
}
