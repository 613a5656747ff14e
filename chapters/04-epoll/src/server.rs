//! The single-threaded echo server: one `epoll_wait`, thousands of sockets.
//!
//! The loop waits for readiness and, for each event, does what the
//! thread-per-connection server did in a whole thread: for the listener,
//! accept every pending connection; for a connection, read what has
//! arrived, echo it, and choose the interest set for next time
//! ([`crate::connection`]). Nothing blocks, so one thread serves everyone.
//!
//! Three details make it a server rather than a demo:
//!
//! * **Tokens cannot go stale within a batch.** A connection is known to
//!   epoll by its slot number. If a slot freed while handling one event were
//!   reused for a new connection accepted later in the *same* batch, a later
//!   event of the old connection would be delivered to the new one. Freed
//!   slots therefore rejoin the free list only after the batch. (Chapter 5
//!   solves this in general with a generation in every token.)
//! * **Running out of descriptors does not spin.** When `accept` fails with
//!   `EMFILE`, the pending connection stays in the kernel's queue, so a
//!   level-triggered listener is reported ready again at once, forever: a
//!   100% CPU loop that serves nobody. We take the listener out of the
//!   interest set instead, keep serving the open connections, and put it
//!   back when a connection closes (or after [`ACCEPT_RETRY`], in case
//!   descriptors were freed elsewhere).
//! * **It can be stopped from another thread.** An `eventfd` sits in the
//!   interest list; [`ServerHandle::stop`] writes to it, and the loop wakes
//!   up and returns. This is how any thread wakes an event loop, and Chapter
//!   5's `mio::Waker` is the same idea.
//!
//! Book: Chapter 4, "An echo server on epoll".

use std::io;
use std::net::{SocketAddr, TcpListener};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use crate::connection::{Connection, Mode, Next};
use crate::epoll::{Epoll, Events, flags};

/// The listener's token.
const LISTENER: u64 = u64::MAX;
/// The stop eventfd's token.
const STOP: u64 = u64::MAX - 1;

/// Events handled per `epoll_wait`.
const EVENTS_PER_WAIT: usize = 1024;

/// Bytes read at a time, into one buffer shared by every connection.
const SCRATCH_BYTES: usize = 64 * 1024;

/// How long accepting stays paused after `EMFILE` if no connection closes.
pub const ACCEPT_RETRY: Duration = Duration::from_millis(100);

/// What the server has done, readable while it runs.
#[derive(Debug, Default)]
pub struct ServerStats {
    /// Connections accepted.
    pub accepted: AtomicU64,
    /// Connections open now.
    pub open: AtomicU64,
    /// Connections closed after an error.
    pub failed: AtomicU64,
    /// Times `accept` failed for lack of descriptors.
    pub accept_paused: AtomicU64,
    /// `epoll_wait` calls that returned.
    pub wakeups: AtomicU64,
    /// Bytes echoed.
    pub echoed: AtomicU64,
}

/// A bound, not yet running, epoll echo server.
pub struct EpollServer {
    epoll: Epoll,
    listener: TcpListener,
    stop: OwnedFd,
    mode: Mode,
    connections: Vec<Option<Connection>>,
    free: Vec<usize>,
    freed_this_batch: Vec<usize>,
    accepting: bool,
    paused_at: Option<Instant>,
    stats: Arc<ServerStats>,
}

/// Stops a running server from any thread.
#[derive(Debug, Clone)]
pub struct ServerHandle {
    stop: Arc<OwnedFd>,
}

// ANCHOR: waker
impl ServerHandle {
    /// Wakes the loop and makes it return.
    pub fn stop(&self) {
        let one = 1u64.to_ne_bytes();
        // SAFETY: writing 8 bytes from a valid buffer to an eventfd we own.
        unsafe { libc::write(self.stop.as_raw_fd(), one.as_ptr().cast(), 8) };
    }
}

fn eventfd() -> io::Result<OwnedFd> {
    // SAFETY: eventfd takes an initial value and flags; on success it
    // returns a new descriptor nobody else owns.
    let fd = unsafe { libc::eventfd(0, libc::EFD_CLOEXEC | libc::EFD_NONBLOCK) };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: `fd` is a fresh descriptor we now own.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}
// ANCHOR_END: waker

impl EpollServer {
    /// Serves `listener` (made non-blocking here) in `mode`.
    pub fn new(listener: TcpListener, mode: Mode) -> io::Result<EpollServer> {
        listener.set_nonblocking(true)?;
        let epoll = Epoll::new()?;
        let stop = eventfd()?;
        epoll.add(&listener, flags::IN | mode.flag(), LISTENER)?;
        epoll.add(&stop, flags::IN, STOP)?;
        Ok(EpollServer {
            epoll,
            listener,
            stop,
            mode,
            connections: Vec::new(),
            free: Vec::new(),
            freed_this_batch: Vec::new(),
            accepting: true,
            paused_at: None,
            stats: Arc::default(),
        })
    }

    /// Where it listens.
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.listener.local_addr()
    }

    /// Its counters.
    pub fn stats(&self) -> Arc<ServerStats> {
        Arc::clone(&self.stats)
    }

    /// A handle that stops it.
    pub fn handle(&self) -> io::Result<ServerHandle> {
        Ok(ServerHandle {
            stop: Arc::new(self.stop.try_clone()?),
        })
    }

    /// Runs on a new thread; stop it with the returned handle.
    pub fn spawn(self) -> io::Result<(ServerHandle, JoinHandle<io::Result<()>>)> {
        let handle = self.handle()?;
        let thread = thread::Builder::new()
            .name("epoll-server".into())
            .spawn(move || self.run())?;
        Ok((handle, thread))
    }

    // ANCHOR: run
    /// The event loop. Returns when stopped, or on an error of epoll itself.
    pub fn run(mut self) -> io::Result<()> {
        let mut events = Events::with_capacity(EVENTS_PER_WAIT);
        let mut scratch = vec![0u8; SCRATCH_BYTES];
        loop {
            let timeout = self.paused_at.map(|_| ACCEPT_RETRY);
            self.epoll.wait(&mut events, timeout)?;
            self.stats.wakeups.fetch_add(1, Ordering::Relaxed);
            for event in events.iter() {
                match event.token() {
                    STOP => return Ok(()),
                    LISTENER => self.accept_all()?,
                    slot => self.on_connection(slot as usize, event.flags(), &mut scratch)?,
                }
            }
            // Only now may slots freed during the batch be reused.
            self.free.append(&mut self.freed_this_batch);
            self.maybe_resume_accepting()?;
        }
    }
    // ANCHOR_END: run

    // ANCHOR: accept
    /// Accepts every pending connection (level-triggered would allow one per
    /// event; draining is right in both modes and saves wake-ups).
    fn accept_all(&mut self) -> io::Result<()> {
        while self.accepting {
            match self.listener.accept() {
                Ok((stream, _)) => self.add_connection(stream)?,
                Err(err) if err.kind() == io::ErrorKind::WouldBlock => return Ok(()),
                Err(err) if chapter_01::echo_server::is_out_of_resources(&err) => {
                    // No descriptor for the next connection: stop listening
                    // instead of being told about it again and again.
                    self.pause_accepting()?;
                }
                Err(err) if chapter_01::echo_server::is_transient(&err) => {}
                Err(err) => return Err(err),
            }
        }
        Ok(())
    }
    // ANCHOR_END: accept

    fn add_connection(&mut self, stream: std::net::TcpStream) -> io::Result<()> {
        stream.set_nonblocking(true)?;
        stream.set_nodelay(true)?;
        let slot = match self.free.pop() {
            Some(slot) => slot,
            None => {
                self.connections.push(None);
                self.connections.len() - 1
            }
        };
        let interest = Connection::initial_interest() | self.mode.flag();
        if let Err(err) = self.epoll.add(&stream, interest, slot as u64) {
            self.free.push(slot);
            // Most likely ENOMEM/ENOSPC for the interest list: drop this one.
            self.stats.failed.fetch_add(1, Ordering::Relaxed);
            return if err.raw_os_error() == Some(libc::ENOSPC)
                || err.raw_os_error() == Some(libc::ENOMEM)
            {
                Ok(())
            } else {
                Err(err)
            };
        }
        self.connections[slot] = Some(Connection::new(stream));
        self.stats.accepted.fetch_add(1, Ordering::Relaxed);
        self.stats.open.fetch_add(1, Ordering::Relaxed);
        Ok(())
    }

    // ANCHOR: on_connection
    fn on_connection(
        &mut self,
        slot: usize,
        event_flags: u32,
        scratch: &mut [u8],
    ) -> io::Result<()> {
        let Some(conn) = self.connections.get_mut(slot).and_then(Option::as_mut) else {
            return Ok(()); // closed earlier in this batch
        };
        let before = conn.echoed();
        let next = conn.on_event(event_flags, self.mode, scratch);
        self.stats
            .echoed
            .fetch_add(conn.echoed() - before, Ordering::Relaxed);
        match next {
            // Change the registration only when the interest changed: an
            // `epoll_ctl` per event would double the system calls.
            Next::Keep(interest) if conn.registered() == interest => Ok(()),
            Next::Keep(interest) => {
                conn.set_registered(interest);
                self.epoll
                    .modify(conn.stream(), interest | self.mode.flag(), slot as u64)
            }
            Next::Close => {
                let conn = self.connections[slot].take().expect("the slot is occupied");
                let _ = self.epoll.delete(conn.stream());
                if conn.failed() {
                    self.stats.failed.fetch_add(1, Ordering::Relaxed);
                }
                self.stats.open.fetch_sub(1, Ordering::Relaxed);
                self.freed_this_batch.push(slot);
                drop(conn); // closes the socket: one descriptor free again
                if self.paused_at.is_some() {
                    self.resume_accepting()?;
                }
                Ok(())
            }
        }
    }
    // ANCHOR_END: on_connection

    // ANCHOR: pause
    fn pause_accepting(&mut self) -> io::Result<()> {
        self.accepting = false;
        self.paused_at = Some(Instant::now());
        self.stats.accept_paused.fetch_add(1, Ordering::Relaxed);
        // An empty interest set: the listener stays registered but is never
        // reported, so a full accept queue cannot wake us in a loop.
        self.epoll.modify(&self.listener, 0, LISTENER)
    }

    fn resume_accepting(&mut self) -> io::Result<()> {
        self.accepting = true;
        self.paused_at = None;
        // Re-arming reports the listener at once if connections wait.
        self.epoll
            .modify(&self.listener, flags::IN | self.mode.flag(), LISTENER)
    }

    fn maybe_resume_accepting(&mut self) -> io::Result<()> {
        match self.paused_at {
            Some(at) if at.elapsed() >= ACCEPT_RETRY => self.resume_accepting(),
            _ => Ok(()),
        }
    }
    // ANCHOR_END: pause
}

/// Runs the epoll server on `addr` until the process is killed, printing
/// `listening on ADDR` once ready (the C10K harness waits for that line).
pub fn serve(addr: SocketAddr, mode: Mode) -> io::Result<()> {
    chapter_03::limits::raise_fd_limit()?;
    let listener = chapter_03::server::listener(addr)
        .map_err(|err| io::Error::new(err.kind(), format!("cannot bind {addr}: {err}")))?;
    let server = EpollServer::new(listener, mode)?;
    chapter_03::server::announce(server.local_addr()?)?;
    server.run()
}
