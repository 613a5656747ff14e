//! Chapter 4's echo server, rewritten on completions.
//!
//! The epoll server asks "which sockets are ready?" and then makes the
//! system calls itself. This one never asks: it hands the kernel whole
//! operations (accept on this listener; receive into this buffer; send
//! these bytes) through the submission ring, makes one `io_uring_enter` per
//! loop turn, and acts on the results it finds in the completion ring.
//!
//! Each connection has **one operation in flight at a time**: a receive,
//! then a send of what it brought (again, for what a short send left), then
//! the next receive. So:
//!
//! * **The kernel owns the buffer until the completion.** A receive names
//!   the connection's buffer, a heap allocation in the connection's slab
//!   slot. The slot is freed only after the completion of the connection's
//!   last operation, so the buffer outlives every operation that points into
//!   it, and nobody else touches it meanwhile (the `// SAFETY:` comments
//!   below say this at each push).
//! * **Tokens never go stale.** A completion's `user_data` names a slot and
//!   an operation ([`Token`]). Since a slot is reused only when nothing of its
//!   old connection is in flight, no late completion can reach the new one:
//!   the epoll server's "free slots after the batch" rule is not needed.
//! * **Back-pressure is free.** The next receive is submitted only when the
//!   echo of the last has been sent, so a client that never reads holds one
//!   buffer's worth of our memory, and TCP slows it down.
//! * **Half-close as in Chapter 4.** A receive of 0 bytes means the peer has
//!   finished sending; everything it sent has been echoed (nothing else was
//!   in flight), so the server shuts its own side down, then closes.
//! * **`EMFILE` does not spin.** When an accept fails for lack of
//!   descriptors, the server simply does not submit another one: there is no
//!   readiness to be told about again and again. It resubmits when a
//!   connection closes, or when a timer of [`ACCEPT_RETRY`] fires.
//! * **It stops from another thread** by an eventfd, as Chapter 4's does: a
//!   read of the eventfd is always in flight, and its completion ends the
//!   loop, which then cancels every operation in flight and waits for their
//!   completions before the buffers are freed.
//!
//! The measured steps are switches of [`Options`]: **multishot accept**
//! (one accept submission that yields a completion per connection),
//! **provided buffers** ([`crate::uring::buf_ring`]: the kernel picks a
//! buffer from a shared pool when bytes arrive, so idle connections hold
//! none), and **deferred task work** (the kernel finishes operations only
//! inside our `io_uring_enter`).
//!
//! Book: Chapter 10, "The echo server on completions".

use std::io;
use std::net::{SocketAddr, TcpListener};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::thread::{self, JoinHandle};
use std::time::Duration;

use io_uring::{opcode, squeue, types};

use crate::uring::buf_ring::BufRing;
use crate::uring::{Completion, Op, Opcodes, Ring, Token};

/// Bytes each connection reads at a time, as Chapter 7's echo server.
pub const BUFFER_BYTES: usize = 4096;

/// Submission ring slots: operations queued between two `io_uring_enter`s
/// (a fuller ring is submitted early; see [`Ring::push`]).
pub const SQ_ENTRIES: u32 = 1024;

/// Completion ring slots: enough for one completion per connection of a
/// 10,000-connection run in one turn. A smaller ring still loses nothing
/// (the overflow list), it only costs extra `io_uring_enter`s.
pub const CQ_ENTRIES: u32 = 16_384;

/// Buffers in the provided-buffer pool: enough for every connection that
/// has bytes in hand at once; a receive that finds the pool empty waits for
/// a buffer to come back.
pub const POOL_BUFFERS: u16 = 4096;

/// The pool's group id.
const BUFFER_GROUP: u16 = 7;

/// How long accepting stays paused after `EMFILE` if no connection closes.
pub const ACCEPT_RETRY: Duration = Duration::from_millis(100);

/// How the server accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum AcceptMode {
    /// One accept submission per connection.
    #[default]
    Single,
    /// One submission, a completion per connection (`IORING_ACCEPT_MULTISHOT`,
    /// Linux 5.19). Falls back to `Single` if the kernel refuses it.
    Multishot,
}

/// The server's switches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Options {
    /// Single-shot or multishot accept.
    pub accept: AcceptMode,
    /// Receive into buffers the kernel picks from a pool, instead of one
    /// buffer per connection.
    pub provided_buffers: bool,
    /// Submission ring size.
    pub sq_entries: u32,
    /// Completion ring size (at least `sq_entries`).
    pub cq_entries: u32,
    /// Finish operations only inside our own `io_uring_enter`
    /// (`IORING_SETUP_DEFER_TASKRUN`), not by interrupting the thread.
    pub defer_taskrun: bool,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            accept: AcceptMode::Single,
            provided_buffers: false,
            sq_entries: SQ_ENTRIES,
            cq_entries: CQ_ENTRIES,
            defer_taskrun: false,
        }
    }
}

/// The chapter's four measured steps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// Single-shot accept, a buffer per connection.
    Basic,
    /// Multishot accept, a buffer per connection.
    Multishot,
    /// Multishot accept and provided buffers.
    Buffers,
    /// All of that, and the kernel's deferred work run only inside our
    /// `io_uring_enter` (`IORING_SETUP_DEFER_TASKRUN`).
    Deferred,
}

impl Step {
    /// All four, in the order the book takes them.
    pub const ALL: [Step; 4] = [Step::Basic, Step::Multishot, Step::Buffers, Step::Deferred];

    /// Its name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Step::Basic => "basic",
            Step::Multishot => "multishot",
            Step::Buffers => "buffers",
            Step::Deferred => "deferred",
        }
    }

    /// The options it sets.
    pub fn options(self) -> Options {
        Options {
            accept: match self {
                Step::Basic => AcceptMode::Single,
                Step::Multishot | Step::Buffers | Step::Deferred => AcceptMode::Multishot,
            },
            provided_buffers: matches!(self, Step::Buffers | Step::Deferred),
            defer_taskrun: self == Step::Deferred,
            ..Options::default()
        }
    }
}

/// What the server has done, readable while it runs.
#[derive(Debug, Default)]
pub struct ServerStats {
    /// Connections accepted.
    pub accepted: AtomicU64,
    /// Connections open now.
    pub open: AtomicU64,
    /// Connections closed after an error.
    pub failed: AtomicU64,
    /// Times an accept failed for lack of descriptors.
    pub accept_paused: AtomicU64,
    /// `io_uring_enter` calls.
    pub enters: AtomicU64,
    /// Completions handled.
    pub completions: AtomicU64,
    /// Times completions were fetched from the kernel's overflow list.
    pub overflow_flushes: AtomicU64,
    /// Receives that found the provided-buffer pool empty.
    pub no_buffer: AtomicU64,
    /// Bytes echoed.
    pub echoed: AtomicU64,
}

/// One connection: its socket, its buffer, where its echo stands.
#[derive(Debug)]
struct Conn {
    fd: OwnedFd,
    /// Its own buffer (empty when the pool provides them).
    buf: Box<[u8]>,
    /// The pool buffer holding the bytes being echoed, if any.
    held: Option<u16>,
    /// Bytes received by the last receive, and how many are sent.
    len: usize,
    sent: usize,
}

/// Stops a running server from any thread.
#[derive(Debug, Clone)]
pub struct ServerHandle {
    stop: Arc<OwnedFd>,
}

impl ServerHandle {
    /// Wakes the loop and makes it return.
    pub fn stop(&self) {
        let one = 1u64.to_ne_bytes();
        // SAFETY: writing 8 bytes from a valid buffer to an eventfd we own.
        unsafe { libc::write(self.stop.as_raw_fd(), one.as_ptr().cast(), 8) };
    }
}

/// A bound, not yet running, io_uring echo server.
#[derive(Debug)]
pub struct UringServer {
    ring: Ring,
    opcodes: Opcodes,
    listener: TcpListener,
    stop: OwnedFd,
    /// Where the stop eventfd's read puts its 8 bytes.
    stop_buf: Box<[u8; 8]>,
    /// The timer's duration, read by the kernel at submission.
    retry: Box<types::Timespec>,
    options: Options,
    pool: Option<BufRing>,
    conns: Vec<Option<Conn>>,
    free: Vec<usize>,
    /// Connections whose receive found the pool empty.
    starving: Vec<usize>,
    /// Operations submitted whose last completion has not come.
    in_flight: usize,
    accept_armed: bool,
    paused: bool,
    timer_armed: bool,
    stopping: bool,
    stats: Arc<ServerStats>,
}

fn eventfd() -> io::Result<OwnedFd> {
    // SAFETY: eventfd takes an initial value and flags; on success it
    // returns a new descriptor nobody else owns.
    let fd = unsafe { libc::eventfd(0, libc::EFD_CLOEXEC) };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: `fd` is a fresh descriptor we now own.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

fn set_nodelay(fd: RawFd) {
    let one: libc::c_int = 1;
    // SAFETY: a valid socket and a pointer to an int of the size given.
    unsafe {
        libc::setsockopt(
            fd,
            libc::IPPROTO_TCP,
            libc::TCP_NODELAY,
            (&raw const one).cast(),
            std::mem::size_of::<libc::c_int>() as libc::socklen_t,
        )
    };
}

/// What the loop does after a completion.
#[derive(Debug, PartialEq, Eq)]
enum Flow {
    Go,
    Stop,
}

impl UringServer {
    /// Serves `listener` on a new ring with `options`.
    pub fn new(listener: TcpListener, options: Options) -> io::Result<UringServer> {
        let ring = if options.defer_taskrun {
            Ring::new_deferred(options.sq_entries, options.cq_entries)?
        } else {
            Ring::new(options.sq_entries, options.cq_entries)?
        };
        UringServer::with_ring(ring, listener, options)
    }

    /// Serves `listener` on `ring` (already set up) with `options`. Errors
    /// if the kernel lacks an operation the server cannot do without.
    pub fn with_ring(
        ring: Ring,
        listener: TcpListener,
        options: Options,
    ) -> io::Result<UringServer> {
        let opcodes = ring.probe()?;
        if !opcodes.can_echo() {
            let missing: Vec<&str> = opcodes
                .list()
                .iter()
                .filter(|(name, present)| {
                    !present && *name != "SHUTDOWN" && *name != "PROVIDE_BUFFERS"
                })
                .map(|(name, _)| *name)
                .collect();
            return Err(io::Error::new(
                io::ErrorKind::Unsupported,
                format!("this kernel's io_uring lacks {}", missing.join(", ")),
            ));
        }
        // io_uring does the waiting; the socket may stay blocking.
        let mut options = options;
        let pool = if options.provided_buffers {
            match BufRing::register(&ring, BUFFER_GROUP, POOL_BUFFERS, BUFFER_BYTES as u32) {
                Ok(pool) => Some(pool),
                Err(_) => {
                    // A kernel before 5.19: one buffer per connection.
                    options.provided_buffers = false;
                    None
                }
            }
        } else {
            None
        };
        Ok(UringServer {
            ring,
            opcodes,
            listener,
            stop: eventfd()?,
            stop_buf: Box::new([0; 8]),
            retry: Box::new(
                types::Timespec::new()
                    .sec(ACCEPT_RETRY.as_secs())
                    .nsec(ACCEPT_RETRY.subsec_nanos()),
            ),
            options,
            pool,
            conns: Vec::new(),
            free: Vec::new(),
            starving: Vec::new(),
            in_flight: 0,
            accept_armed: false,
            paused: false,
            timer_armed: false,
            stopping: false,
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

    /// The options in force (provided buffers are off if the kernel could
    /// not register a pool).
    pub fn options(&self) -> Options {
        self.options
    }

    /// Which operations the kernel has.
    pub fn opcodes(&self) -> Opcodes {
        self.opcodes
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
            .name("uring-server".into())
            .spawn(move || self.run())?;
        Ok((handle, thread))
    }

    // ANCHOR: run
    /// The loop: one `io_uring_enter` submits everything queued and waits
    /// for at least one completion; then every completion is handled, which
    /// queues the next operations. Returns when stopped.
    pub fn run(mut self) -> io::Result<()> {
        self.ring.enable()?; // this thread submits from now on
        self.arm_stop()?;
        self.arm_accept()?;
        let mut completions = Vec::with_capacity(self.options.cq_entries as usize);
        let mut flow = Flow::Go;
        while flow == Flow::Go || self.in_flight > 0 {
            self.ring.submit_and_wait(1)?;
            completions.clear();
            self.ring.reap(&mut completions)?;
            for completion in &completions {
                if self.on_completion(*completion)? == Flow::Stop {
                    flow = Flow::Stop;
                    self.begin_stop()?;
                }
            }
            self.publish_stats(completions.len());
        }
        if let Some(pool) = &self.pool {
            pool.unregister(&self.ring)?;
        }
        Ok(())
    }
    // ANCHOR_END: run

    fn publish_stats(&self, completions: usize) {
        let stats = &self.stats;
        stats.enters.store(self.ring.enters(), Ordering::Relaxed);
        stats
            .overflow_flushes
            .store(self.ring.overflow_flushes(), Ordering::Relaxed);
        stats
            .completions
            .fetch_add(completions as u64, Ordering::Relaxed);
    }

    // ANCHOR: on_completion
    fn on_completion(&mut self, c: Completion) -> io::Result<Flow> {
        let Some(token) = c.token() else {
            return Ok(Flow::Go);
        };
        if !c.more() {
            self.in_flight -= 1; // that operation is over
        }
        if self.stopping {
            // Only count down; close what a late accept brought.
            if token.op == Op::Accept && c.result >= 0 {
                // SAFETY: the kernel just gave us this new descriptor.
                drop(unsafe { OwnedFd::from_raw_fd(c.result) });
            }
            return Ok(Flow::Go);
        }
        let index = token.index as usize;
        match token.op {
            Op::Stop => return Ok(Flow::Stop),
            Op::Accept => self.on_accept(c)?,
            Op::Recv => self.on_recv(index, c)?,
            Op::Send => self.on_send(index, c)?,
            Op::Shutdown => self.close(index, c.result < 0)?,
            Op::Timer => {
                self.timer_armed = false;
                if self.paused {
                    self.resume_accepting()?;
                }
            }
            Op::Cancel | Op::Nop => {}
        }
        Ok(Flow::Go)
    }
    // ANCHOR_END: on_completion

    // ANCHOR: accept
    fn arm_accept(&mut self) -> io::Result<()> {
        let listener = types::Fd(self.listener.as_raw_fd());
        let entry = match self.options.accept {
            AcceptMode::Single => {
                opcode::Accept::new(listener, std::ptr::null_mut(), std::ptr::null_mut())
                    .flags(libc::SOCK_CLOEXEC)
                    .build()
            }
            AcceptMode::Multishot => opcode::AcceptMulti::new(listener)
                .flags(libc::SOCK_CLOEXEC)
                .build(),
        };
        let entry = entry.user_data(Token::new(0, Op::Accept).to_user_data());
        // SAFETY: no buffer (the peer's address is not asked for); the
        // listener is a field of `self`, open until `run` returns, and `run`
        // returns only when nothing is in flight.
        unsafe { self.ring.push(&entry)? };
        self.in_flight += 1;
        self.accept_armed = true;
        Ok(())
    }

    fn on_accept(&mut self, c: Completion) -> io::Result<()> {
        if !c.more() {
            self.accept_armed = false; // a multishot accept ended, or a single one completed
        }
        if c.result >= 0 {
            // SAFETY: the kernel just gave us this new descriptor.
            let fd = unsafe { OwnedFd::from_raw_fd(c.result) };
            self.add_connection(fd)?;
        } else {
            let err = io::Error::from_raw_os_error(-c.result);
            if self.options.accept == AcceptMode::Multishot && c.result == -libc::EINVAL {
                // A kernel without multishot accept: fall back to one at a time.
                self.options.accept = AcceptMode::Single;
            } else if chapter_01::echo_server::is_out_of_resources(&err) {
                self.pause_accepting()?;
            } else if !chapter_01::echo_server::is_transient(&err) {
                return Err(err);
            }
        }
        if !self.accept_armed && !self.paused {
            self.arm_accept()?;
        }
        Ok(())
    }

    fn pause_accepting(&mut self) -> io::Result<()> {
        self.paused = true;
        self.stats.accept_paused.fetch_add(1, Ordering::Relaxed);
        if !self.timer_armed {
            let entry = opcode::Timeout::new(&raw const *self.retry)
                .build()
                .user_data(Token::new(0, Op::Timer).to_user_data());
            // SAFETY: the timespec is boxed in `self` and outlives the loop.
            unsafe { self.ring.push(&entry)? };
            self.in_flight += 1;
            self.timer_armed = true;
        }
        Ok(())
    }

    fn resume_accepting(&mut self) -> io::Result<()> {
        self.paused = false;
        if !self.accept_armed {
            self.arm_accept()?;
        }
        Ok(())
    }
    // ANCHOR_END: accept

    fn add_connection(&mut self, fd: OwnedFd) -> io::Result<()> {
        set_nodelay(fd.as_raw_fd());
        let buf = if self.pool.is_some() {
            Box::default()
        } else {
            vec![0u8; BUFFER_BYTES].into_boxed_slice()
        };
        let conn = Conn {
            fd,
            buf,
            held: None,
            len: 0,
            sent: 0,
        };
        let index = match self.free.pop() {
            Some(index) => {
                self.conns[index] = Some(conn);
                index
            }
            None => {
                self.conns.push(Some(conn));
                self.conns.len() - 1
            }
        };
        self.stats.accepted.fetch_add(1, Ordering::Relaxed);
        self.stats.open.fetch_add(1, Ordering::Relaxed);
        self.push_recv(index)
    }

    // ANCHOR: push_recv
    fn push_recv(&mut self, index: usize) -> io::Result<()> {
        let conn = self.conns[index].as_mut().expect("a live connection");
        let fd = types::Fd(conn.fd.as_raw_fd());
        let entry = match &self.pool {
            // The kernel picks a buffer from the pool when bytes arrive.
            Some(pool) => opcode::Recv::new(fd, std::ptr::null_mut(), pool.buffer_bytes())
                .buf_group(pool.group())
                .build()
                .flags(squeue::Flags::BUFFER_SELECT),
            None => opcode::Recv::new(fd, conn.buf.as_mut_ptr(), conn.buf.len() as u32).build(),
        };
        let entry = entry.user_data(Token::new(index as u32, Op::Recv).to_user_data());
        // SAFETY: `conn.buf` is a heap allocation owned by slot `index`. The
        // slot is freed, and the buffer dropped or read, only after this
        // receive's completion is reaped: a connection has one operation in
        // flight at a time. (With the pool, the buffer is the pool's, which
        // lives as long as the ring.)
        unsafe { self.ring.push(&entry)? };
        self.in_flight += 1;
        Ok(())
    }
    // ANCHOR_END: push_recv

    // ANCHOR: on_recv
    fn on_recv(&mut self, index: usize, c: Completion) -> io::Result<()> {
        match c.result {
            n if n > 0 => {
                let conn = self.conns[index].as_mut().expect("a live connection");
                conn.len = n as usize;
                conn.sent = 0;
                conn.held = c.buffer_id();
                self.push_send(index)
            }
            // The peer finished sending, and all it sent is echoed.
            0 => self.push_shutdown(index),
            e if e == -libc::ENOBUFS => {
                // The pool is empty: retry when a buffer comes back.
                self.stats.no_buffer.fetch_add(1, Ordering::Relaxed);
                self.starving.push(index);
                Ok(())
            }
            e if e == -libc::EINTR || e == -libc::EAGAIN => self.push_recv(index),
            _ => self.close(index, true), // a reset, most likely
        }
    }
    // ANCHOR_END: on_recv

    // ANCHOR: push_send
    fn push_send(&mut self, index: usize) -> io::Result<()> {
        let conn = self.conns[index].as_ref().expect("a live connection");
        let bytes: &[u8] = match (conn.held, &self.pool) {
            (Some(bid), Some(pool)) => pool.buffer(bid, conn.len),
            _ => &conn.buf[..conn.len],
        };
        let rest = &bytes[conn.sent..];
        let entry = opcode::Send::new(
            types::Fd(conn.fd.as_raw_fd()),
            rest.as_ptr(),
            rest.len() as u32,
        )
        .flags(libc::MSG_NOSIGNAL)
        .build()
        .user_data(Token::new(index as u32, Op::Send).to_user_data());
        // SAFETY: the bytes are in the connection's buffer or in the pool
        // buffer it holds; neither is freed, reused or written until this
        // send's completion is reaped (the next receive is submitted only
        // then, and a held pool buffer is recycled only then).
        unsafe { self.ring.push(&entry)? };
        self.in_flight += 1;
        Ok(())
    }

    fn on_send(&mut self, index: usize, c: Completion) -> io::Result<()> {
        if c.result == -libc::EINTR || c.result == -libc::EAGAIN {
            return self.push_send(index);
        }
        if c.result <= 0 {
            return self.close(index, true); // the peer reset, or went away
        }
        let conn = self.conns[index].as_mut().expect("a live connection");
        conn.sent += c.result as usize;
        self.stats
            .echoed
            .fetch_add(c.result as u64, Ordering::Relaxed);
        if conn.sent < conn.len {
            return self.push_send(index); // a short send: send the rest
        }
        if let Some(bid) = conn.held.take() {
            self.give_back(bid)?;
        }
        self.push_recv(index)
    }
    // ANCHOR_END: push_send

    /// Returns a pool buffer, and retries a receive that found the pool empty.
    fn give_back(&mut self, bid: u16) -> io::Result<()> {
        if let Some(pool) = &mut self.pool {
            pool.recycle(bid);
        }
        match self.starving.pop() {
            Some(waiting) if self.conns[waiting].is_some() => self.push_recv(waiting),
            _ => Ok(()),
        }
    }

    fn push_shutdown(&mut self, index: usize) -> io::Result<()> {
        let conn = self.conns[index].as_ref().expect("a live connection");
        if !self.opcodes.shutdown {
            // SAFETY: shutting down the write side of a socket we own.
            unsafe { libc::shutdown(conn.fd.as_raw_fd(), libc::SHUT_WR) };
            return self.close(index, false);
        }
        let entry = opcode::Shutdown::new(types::Fd(conn.fd.as_raw_fd()), libc::SHUT_WR)
            .build()
            .user_data(Token::new(index as u32, Op::Shutdown).to_user_data());
        // SAFETY: no buffer; the descriptor stays open until this completes.
        unsafe { self.ring.push(&entry)? };
        self.in_flight += 1;
        Ok(())
    }

    /// Frees slot `index` (nothing of it is in flight) and closes its socket.
    fn close(&mut self, index: usize, failed: bool) -> io::Result<()> {
        let Some(conn) = self.conns[index].take() else {
            return Ok(());
        };
        if let Some(bid) = conn.held {
            self.give_back(bid)?;
        }
        drop(conn); // closes the socket: one descriptor free again
        self.free.push(index);
        self.stats.open.fetch_sub(1, Ordering::Relaxed);
        if failed {
            self.stats.failed.fetch_add(1, Ordering::Relaxed);
        }
        if self.paused {
            self.resume_accepting()?;
        }
        Ok(())
    }

    fn arm_stop(&mut self) -> io::Result<()> {
        let entry = opcode::Read::new(
            types::Fd(self.stop.as_raw_fd()),
            self.stop_buf.as_mut_ptr(),
            8,
        )
        .build()
        .user_data(Token::new(0, Op::Stop).to_user_data());
        // SAFETY: `stop_buf` is boxed in `self`, untouched by us, and `run`
        // returns only when nothing is in flight.
        unsafe { self.ring.push(&entry)? };
        self.in_flight += 1;
        Ok(())
    }

    // ANCHOR: begin_stop
    /// Cancels everything in flight; `run` then waits for the completions,
    /// so no buffer is freed while the kernel may still write into it.
    fn begin_stop(&mut self) -> io::Result<()> {
        self.stopping = true;
        let entry = opcode::AsyncCancel2::new(types::CancelBuilder::any())
            .build()
            .user_data(Token::new(0, Op::Cancel).to_user_data());
        // SAFETY: a cancellation points to nothing of ours.
        unsafe { self.ring.push(&entry)? };
        self.in_flight += 1;
        Ok(())
    }
    // ANCHOR_END: begin_stop
}

/// Runs the io_uring server on `listener` until the process is killed,
/// printing `listening on ADDR` once ready.
pub fn serve(listener: TcpListener, options: Options) -> io::Result<()> {
    let server = UringServer::new(listener, options)?;
    chapter_03::server::announce(server.local_addr()?)?;
    server.run()
}
