//! The event loop: wait for events, run the callbacks they are for, repeat.
//!
//! Chapter 4's server mixed two things in one loop: the machinery (epoll,
//! tokens, buffers, interest sets, accept) and the application (echo). This
//! loop keeps the machinery and lets the application register *callbacks*:
//!
//! * [`EventLoop::listen`]: call me with every accepted connection;
//! * [`EventLoop::on_data`]: call me with the bytes that arrived;
//! * [`EventLoop::write`]: send these bytes, and call me once they are all
//!   written (a write *completion*);
//! * [`EventLoop::on_close`]: call me when the connection is gone;
//! * [`EventLoop::connect`]: open a connection, call me when it is up;
//! * [`EventLoop::set_timeout`]: call me after a while (cancellable);
//! * [`EventLoop::next_tick`]: call me as soon as the current callbacks are
//!   done, before waiting again;
//! * [`Remote::submit`]: from another thread, run this on the loop.
//!
//! One turn of the loop ([`EventLoop::turn`]) runs the next-tick callbacks,
//! computes how long it may sleep (zero if more ticks are queued, else
//! until the next timer), waits in `mio::Poll` (epoll on Linux, kqueue on
//! BSD and macOS, IOCP on Windows), runs the callbacks of every event, then
//! those of every expired timer.
//!
//! Callbacks receive `&mut EventLoop`, so they can register more callbacks,
//! write, close, and set timers. To hand a callback `&mut EventLoop` while
//! the callback itself is stored inside the loop, the loop takes it out of
//! its slot for the call and puts it back afterwards, unless the callback
//! replaced or closed it meanwhile.
//!
//! Book: Chapter 5, "An event loop on mio".

use std::collections::VecDeque;
use std::io::{self, Read, Write};
use std::net::{Shutdown, SocketAddr};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crossbeam_queue::SegQueue;
use mio::net::{TcpListener, TcpStream};
use mio::{Events, Interest, Poll, Token, Waker};

use crate::slab::{Key, Slab};
use crate::timers::{TimerHeap, TimerId};

/// The waker's token; slab keys never reach it.
const WAKER: Token = Token(usize::MAX);

/// Events taken per wait.
const EVENTS_PER_WAIT: usize = 1024;

/// Bytes read at a time, into one buffer shared by every connection.
const SCRATCH_BYTES: usize = 64 * 1024;

/// Stop reading from a connection whose unsent output reaches this.
pub const HIGH_WATER: usize = 256 * 1024;

/// Read from it again when its unsent output falls below this.
pub const LOW_WATER: usize = 64 * 1024;

/// A connection registered with the loop. Stale ids find nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ConnId(Key);

/// A listener registered with the loop.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ListenerId(Key);

/// A raw readiness registration ([`EventLoop::register_io`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct IoId(Key);

/// What a readiness event says about a source.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Readiness {
    /// A read will not block (data, end of stream, or an error waits).
    pub readable: bool,
    /// A write will not block (room, or an error waits).
    pub writable: bool,
}

type OnReady = Box<dyn FnMut(&mut EventLoop, Readiness)>;

/// A callback run once, on the loop.
pub type Task = Box<dyn FnOnce(&mut EventLoop)>;

/// A callback sent from another thread.
pub type RemoteTask = Box<dyn FnOnce(&mut EventLoop) + Send>;

type OnAccept = Box<dyn FnMut(&mut EventLoop, ConnId)>;
type OnData = Box<dyn FnMut(&mut EventLoop, ConnId, &[u8])>;
type OnClose = Box<dyn FnOnce(&mut EventLoop, ConnId, Closed)>;
/// Runs once all of a write's bytes are written (or the connection failed).
pub type OnWritten = Box<dyn FnOnce(&mut EventLoop, ConnId, io::Result<()>)>;
type OnConnect = Box<dyn FnOnce(&mut EventLoop, io::Result<ConnId>)>;

/// Why a connection ended.
#[derive(Debug)]
pub enum Closed {
    /// The peer closed its side, and everything we had to send was sent.
    PeerClosed,
    /// We closed it ([`EventLoop::close`]).
    Local,
    /// It failed (a reset, a broken pipe...).
    Error(io::Error),
}

struct Listener {
    listener: TcpListener,
    on_accept: Option<OnAccept>,
    paused: bool,
}

struct Connection {
    stream: TcpStream,
    connecting: Option<OnConnect>,
    on_data: Option<OnData>,
    on_close: Option<OnClose>,
    out: VecDeque<u8>,
    /// Bytes ever queued, and ever written: a write completes when
    /// `written` reaches the `queued` it was given.
    queued: u64,
    written: u64,
    on_written: VecDeque<(u64, OnWritten)>,
    peer_closed: bool,
    closing: bool,
    reading: bool,
    interest: Option<Interest>,
}

enum Source {
    Listener(Listener),
    Connection(Box<Connection>),
    /// A source owned by someone else (a future, in Chapter 6): the loop
    /// only reports its readiness.
    Io(Option<OnReady>),
}

/// Counters a reader (or a test) can inspect.
#[derive(Debug, Default, Clone, Copy)]
pub struct LoopStats {
    /// Turns of the loop.
    pub turns: u64,
    /// Readiness events handled.
    pub events: u64,
    /// Timer callbacks run.
    pub timers_fired: u64,
    /// Next-tick callbacks run.
    pub ticks_run: u64,
    /// Callbacks submitted from other threads and run.
    pub remote_tasks: u64,
    /// Connections accepted.
    pub accepted: u64,
    /// Times `accept` ran out of descriptors.
    pub accept_paused: u64,
}

struct RemoteShared {
    queue: SegQueue<RemoteTask>,
    waker: Waker,
    wake_pending: AtomicBool,
    stop: AtomicBool,
}

/// A handle other threads use to run code on the loop, or stop it.
#[derive(Clone)]
pub struct Remote {
    shared: Arc<RemoteShared>,
}

impl std::fmt::Debug for Remote {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Remote").finish_non_exhaustive()
    }
}

impl Remote {
    // ANCHOR: submit
    /// Runs `task` on the loop's thread, soon. Wakes the loop if it sleeps.
    pub fn submit(&self, task: impl FnOnce(&mut EventLoop) + Send + 'static) {
        self.shared.queue.push(Box::new(task));
        self.wake();
    }

    /// Wakes the loop if it sleeps, without giving it anything to run
    /// (Chapter 6's wakers use this: the work is in their own queue).
    pub fn wake(&self) {
        // One wake-up is enough for any number of submissions until the
        // loop drains the queue: skip the system call if one is pending.
        if !self.shared.wake_pending.swap(true, Ordering::AcqRel) {
            // A failure here means the poller is gone: the loop has ended.
            let _ = self.shared.waker.wake();
        }
    }
    // ANCHOR_END: submit

    /// Asks the loop to stop after its current turn.
    pub fn stop(&self) {
        self.shared.stop.store(true, Ordering::Release);
        self.wake();
    }
}

/// The event loop. Not `Send`: it and its callbacks live on one thread.
pub struct EventLoop {
    poll: Poll,
    events: Events,
    sources: Slab<Source>,
    timers: TimerHeap<Task>,
    ticks: VecDeque<Task>,
    remote: Arc<RemoteShared>,
    stopped: bool,
    scratch: Vec<u8>,
    stats: LoopStats,
    /// Listeners paused after EMFILE, resumed when a connection closes.
    accept_paused: bool,
}

impl EventLoop {
    /// A loop with nothing registered.
    pub fn new() -> io::Result<EventLoop> {
        let poll = Poll::new()?;
        let waker = Waker::new(poll.registry(), WAKER)?;
        Ok(EventLoop {
            poll,
            events: Events::with_capacity(EVENTS_PER_WAIT),
            sources: Slab::new(),
            timers: TimerHeap::new(),
            ticks: VecDeque::new(),
            remote: Arc::new(RemoteShared {
                queue: SegQueue::new(),
                waker,
                wake_pending: AtomicBool::new(false),
                stop: AtomicBool::new(false),
            }),
            stopped: false,
            scratch: vec![0; SCRATCH_BYTES],
            stats: LoopStats::default(),
            accept_paused: false,
        })
    }

    /// A handle for other threads.
    pub fn remote(&self) -> Remote {
        Remote {
            shared: Arc::clone(&self.remote),
        }
    }

    /// Counters so far.
    pub fn stats(&self) -> LoopStats {
        self.stats
    }

    /// Stops the loop after the current turn.
    pub fn stop(&mut self) {
        self.stopped = true;
    }

    /// Open connections and listeners.
    pub fn sources(&self) -> usize {
        self.sources.len()
    }

    /// Pending timers.
    pub fn pending_timers(&self) -> usize {
        self.timers.len()
    }

    // ANCHOR: run
    /// Runs until stopped.
    pub fn run(&mut self) -> io::Result<()> {
        while !self.stopped {
            self.turn()?;
        }
        Ok(())
    }

    /// One turn: ticks, wait, events, timers.
    pub fn turn(&mut self) -> io::Result<()> {
        self.turn_at_most(None)
    }

    /// One turn that waits at most `max_wait` (`None`: as long as the
    /// timers allow). Chapter 6's executor uses a zero wait to collect I/O
    /// events between batches of tasks without sleeping.
    pub fn turn_at_most(&mut self, max_wait: Option<Duration>) -> io::Result<()> {
        self.stats.turns += 1;
        // Next-tick callbacks queued before this turn; ones they queue wait
        // for the next turn, so a tick that re-queues itself cannot starve
        // the I/O.
        for _ in 0..self.ticks.len() {
            if let Some(task) = self.ticks.pop_front() {
                self.stats.ticks_run += 1;
                task(self);
            }
        }
        let timeout = if !self.ticks.is_empty() || self.stopped {
            Some(Duration::ZERO)
        } else {
            self.timers
                .next_deadline()
                .map(|deadline| deadline.saturating_duration_since(Instant::now()))
        };
        let timeout = match (timeout, max_wait) {
            (Some(t), Some(max)) => Some(t.min(max)),
            (t, None) => t,
            (None, max) => max,
        };
        let mut events = std::mem::replace(&mut self.events, Events::with_capacity(0));
        let polled = self.poll.poll(&mut events, timeout);
        if let Err(err) = polled
            && err.kind() != io::ErrorKind::Interrupted
        {
            self.events = events;
            return Err(err);
        }
        for event in events.iter() {
            self.stats.events += 1;
            if event.token() == WAKER {
                self.run_remote_tasks();
            } else {
                self.dispatch(Key::from_usize(event.token().0), event);
            }
        }
        self.events = events;
        let now = Instant::now();
        while let Some(task) = self.timers.pop_expired(now) {
            self.stats.timers_fired += 1;
            task(self);
        }
        Ok(())
    }
    // ANCHOR_END: run

    // ANCHOR: remote_tasks
    fn run_remote_tasks(&mut self) {
        // Clear the flag first: a submission from now on wakes us again.
        // A read-modify-write with Acquire: the queue is read only after
        // the flag is cleared, and a submitter whose own swap saw the flag
        // still set is seen with its push.
        self.remote.wake_pending.swap(false, Ordering::AcqRel);
        if self.remote.stop.load(Ordering::Acquire) {
            self.stopped = true;
        }
        while let Some(task) = self.remote.queue.pop() {
            self.stats.remote_tasks += 1;
            task(self);
        }
    }
    // ANCHOR_END: remote_tasks

    // ---- timers and ticks ----

    /// Calls `task` after `delay` (or later: the loop may be busy).
    pub fn set_timeout(
        &mut self,
        delay: Duration,
        task: impl FnOnce(&mut EventLoop) + 'static,
    ) -> TimerId {
        self.timers.insert(Instant::now() + delay, Box::new(task))
    }

    /// Cancels a timer that has not fired. Returns whether it was pending.
    pub fn cancel_timeout(&mut self, id: TimerId) -> bool {
        self.timers.cancel(id).is_some()
    }

    /// Calls `task` once the current callbacks are done, before waiting.
    pub fn next_tick(&mut self, task: impl FnOnce(&mut EventLoop) + 'static) {
        self.ticks.push_back(Box::new(task));
    }

    // ---- listeners ----

    // ANCHOR: listen
    /// Accepts connections on `listener`, calling `on_accept` with each.
    pub fn listen(
        &mut self,
        listener: std::net::TcpListener,
        on_accept: impl FnMut(&mut EventLoop, ConnId) + 'static,
    ) -> io::Result<ListenerId> {
        listener.set_nonblocking(true)?;
        let mut listener = TcpListener::from_std(listener);
        let key = self.sources.next_key();
        self.poll
            .registry()
            .register(&mut listener, Token(key.to_usize()), Interest::READABLE)?;
        let inserted = self.sources.insert(Source::Listener(Listener {
            listener,
            on_accept: Some(Box::new(on_accept)),
            paused: false,
        }));
        debug_assert_eq!(inserted, key);
        Ok(ListenerId(key))
    }
    // ANCHOR_END: listen

    /// Where a listener listens.
    pub fn local_addr(&self, id: ListenerId) -> io::Result<SocketAddr> {
        match self.sources.get(id.0) {
            Some(Source::Listener(entry)) => entry.listener.local_addr(),
            _ => Err(io::ErrorKind::NotFound.into()),
        }
    }

    fn accept(&mut self, key: Key) {
        loop {
            let Some(Source::Listener(entry)) = self.sources.get_mut(key) else {
                return;
            };
            if entry.paused {
                return;
            }
            match entry.listener.accept() {
                Ok((stream, _)) => {
                    let _ = stream.set_nodelay(true);
                    let Ok(id) = self.add_connection(stream, None) else {
                        continue; // could not register it: dropped, closed
                    };
                    self.stats.accepted += 1;
                    // Take the callback out to call it with `&mut self`.
                    let callback = match self.sources.get_mut(key) {
                        Some(Source::Listener(entry)) => entry.on_accept.take(),
                        _ => None,
                    };
                    let Some(mut callback) = callback else { return };
                    callback(self, id);
                    if let Some(Source::Listener(entry)) = self.sources.get_mut(key)
                        && entry.on_accept.is_none()
                    {
                        entry.on_accept = Some(callback);
                    }
                }
                Err(err) if err.kind() == io::ErrorKind::WouldBlock => return,
                Err(err) if chapter_01::echo_server::is_out_of_resources(&err) => {
                    // As in Chapter 4: stop listening until a descriptor is
                    // free, instead of spinning on a listener that stays
                    // ready.
                    entry.paused = true;
                    self.accept_paused = true;
                    self.stats.accept_paused += 1;
                    let _ = self.poll.registry().deregister(&mut entry.listener);
                    // Retry later too, in case descriptors free up elsewhere.
                    self.set_timeout(Duration::from_millis(100), |ev| ev.resume_accepting());
                    return;
                }
                Err(err) if chapter_01::echo_server::is_transient(&err) => {}
                Err(_) => return,
            }
        }
    }

    fn resume_accepting(&mut self) {
        if !self.accept_paused {
            return;
        }
        self.accept_paused = false;
        for key in self.sources.keys() {
            if let Some(Source::Listener(entry)) = self.sources.get_mut(key)
                && entry.paused
            {
                entry.paused = false;
                let _ = self.poll.registry().register(
                    &mut entry.listener,
                    Token(key.to_usize()),
                    Interest::READABLE,
                );
                // Registering reports readiness if connections wait, but
                // accept now rather than wait for the next turn.
                self.next_tick(move |ev| ev.accept(key));
            }
        }
    }

    // ---- connections ----

    fn add_connection(
        &mut self,
        stream: TcpStream,
        connecting: Option<OnConnect>,
    ) -> io::Result<ConnId> {
        let key = self.sources.insert(Source::Connection(Box::new(Connection {
            stream,
            connecting,
            on_data: None,
            on_close: None,
            out: VecDeque::new(),
            queued: 0,
            written: 0,
            on_written: VecDeque::new(),
            peer_closed: false,
            closing: false,
            reading: true,
            interest: None,
        })));
        let interest = Interest::READABLE | Interest::WRITABLE;
        let token = Token(key.to_usize());
        let registered = match self.sources.get_mut(key) {
            Some(Source::Connection(conn)) => {
                conn.interest = Some(interest);
                self.poll
                    .registry()
                    .register(&mut conn.stream, token, interest)
            }
            _ => unreachable!("just inserted"),
        };
        if let Err(err) = registered {
            self.sources.remove(key);
            return Err(err);
        }
        Ok(ConnId(key))
    }

    // ANCHOR: connect
    /// Connects to `addr`; `on_connect` gets the connection once it is up,
    /// or the error. The id is returned at once, so the caller can
    /// [`close`](EventLoop::close) it (say, on a timeout) before it is up; a
    /// connection closed before it is up never calls `on_connect`.
    pub fn connect(
        &mut self,
        addr: SocketAddr,
        on_connect: impl FnOnce(&mut EventLoop, io::Result<ConnId>) + 'static,
    ) -> io::Result<ConnId> {
        let stream = TcpStream::connect(addr)?;
        self.add_connection(stream, Some(Box::new(on_connect)))
    }
    // ANCHOR_END: connect

    /// Sets the callback for bytes arriving on `conn` (replacing any).
    pub fn on_data(
        &mut self,
        conn: ConnId,
        callback: impl FnMut(&mut EventLoop, ConnId, &[u8]) + 'static,
    ) {
        if let Some(c) = self.connection(conn) {
            c.on_data = Some(Box::new(callback));
        }
    }

    /// Sets the callback for the end of `conn` (replacing any). It runs
    /// exactly once, whatever ends the connection.
    pub fn on_close(
        &mut self,
        conn: ConnId,
        callback: impl FnOnce(&mut EventLoop, ConnId, Closed) + 'static,
    ) {
        if let Some(c) = self.connection(conn) {
            c.on_close = Some(Box::new(callback));
        }
    }

    /// Whether `conn` is still open.
    pub fn is_open(&self, conn: ConnId) -> bool {
        matches!(self.sources.get(conn.0), Some(Source::Connection(_)))
    }

    /// Bytes queued on `conn` and not yet written.
    pub fn unsent(&self, conn: ConnId) -> usize {
        match self.sources.get(conn.0) {
            Some(Source::Connection(c)) => c.out.len(),
            _ => 0,
        }
    }

    fn connection(&mut self, conn: ConnId) -> Option<&mut Connection> {
        match self.sources.get_mut(conn.0) {
            Some(Source::Connection(c)) => Some(c),
            _ => None,
        }
    }

    // ANCHOR: write
    /// Queues `data` on `conn` and writes what the socket takes now.
    /// `on_written`, if given, runs once all of it is written (with an error
    /// if the connection fails first). Returns false if `conn` is closed.
    pub fn write(&mut self, conn: ConnId, data: &[u8], on_written: Option<OnWritten>) -> bool {
        let Some(c) = self.connection(conn) else {
            return false;
        };
        c.out.extend(data);
        c.queued += data.len() as u64;
        if let Some(callback) = on_written {
            let at = c.queued;
            c.on_written.push_back((at, callback));
        }
        if c.connecting.is_none() {
            self.flush(conn);
        }
        true
    }
    // ANCHOR_END: write

    /// Closes `conn` once its queued output is written (or at once if it has
    /// failed). `on_close` runs with [`Closed::Local`].
    pub fn close(&mut self, conn: ConnId) {
        let Some(c) = self.connection(conn) else {
            return;
        };
        if c.connecting.is_some() {
            // Not up yet: nobody hears of it again.
            c.connecting = None;
            self.finish(conn, Closed::Local);
            return;
        }
        c.closing = true;
        self.flush(conn);
    }

    fn dispatch(&mut self, key: Key, event: &mio::event::Event) {
        match self.sources.get_mut(key) {
            Some(Source::Listener(_)) => self.accept(key),
            Some(Source::Connection(_)) => self.on_connection_event(ConnId(key), event),
            Some(Source::Io(callback)) => {
                let Some(mut callback) = callback.take() else {
                    return;
                };
                let readiness = Readiness {
                    readable: event.is_readable() || event.is_read_closed() || event.is_error(),
                    writable: event.is_writable() || event.is_write_closed() || event.is_error(),
                };
                callback(self, readiness);
                if let Some(Source::Io(slot @ None)) = self.sources.get_mut(key) {
                    *slot = Some(callback);
                }
            }
            None => {} // a stale token: that source is gone
        }
    }

    // ---- raw readiness, for futures ----

    // ANCHOR: register_io
    /// Registers `source` (owned by the caller) for `interest`; `on_ready`
    /// runs on each readiness event. This is the hook Chapter 6's futures
    /// use: the loop tells them a socket is ready, they do the I/O.
    pub fn register_io(
        &mut self,
        source: &mut impl mio::event::Source,
        interest: Interest,
        on_ready: impl FnMut(&mut EventLoop, Readiness) + 'static,
    ) -> io::Result<IoId> {
        let key = self.sources.next_key();
        self.poll
            .registry()
            .register(source, Token(key.to_usize()), interest)?;
        let inserted = self.sources.insert(Source::Io(Some(Box::new(on_ready))));
        debug_assert_eq!(inserted, key);
        Ok(IoId(key))
    }

    /// Forgets a registration. The caller closes (or deregisters) the
    /// source itself; a descriptor that is closed leaves epoll on its own.
    pub fn remove_io(&mut self, id: IoId) {
        if let Some(Source::Io(_)) = self.sources.get(id.0) {
            self.sources.remove(id.0);
        }
    }
    // ANCHOR_END: register_io

    fn on_connection_event(&mut self, conn: ConnId, event: &mio::event::Event) {
        // A pending connect finishes first.
        if let Some(c) = self.connection(conn)
            && c.connecting.is_some()
        {
            if !(event.is_writable() || event.is_error() || event.is_write_closed()) {
                return;
            }
            let result = match c.stream.take_error() {
                Ok(Some(err)) | Err(err) => Err(err),
                Ok(None) => match c.stream.peer_addr() {
                    Ok(_) => Ok(()),
                    Err(err) if err.kind() == io::ErrorKind::NotConnected => return,
                    Err(err) => Err(err),
                },
            };
            let callback = c.connecting.take().expect("checked above");
            match result {
                Ok(()) => {
                    let _ = c.stream.set_nodelay(true);
                    callback(self, Ok(conn));
                    // Bytes written before the connect completed go now.
                    self.flush(conn);
                }
                Err(err) => {
                    // Nobody knew this connection yet but its creator.
                    self.sources.remove(conn.0);
                    callback(self, Err(err));
                    return;
                }
            }
        }
        if event.is_writable() {
            self.flush(conn);
        }
        if event.is_readable() || event.is_read_closed() || event.is_error() {
            self.read(conn);
        }
    }

    // ANCHOR: read
    /// Reads everything available (mio is edge-triggered) and hands each
    /// chunk to the connection's `on_data`.
    fn read(&mut self, conn: ConnId) {
        let mut scratch = std::mem::take(&mut self.scratch);
        while let Some(c) = self.connection(conn) {
            if !c.reading || c.peer_closed || c.closing {
                break;
            }
            let n = match c.stream.read(&mut scratch) {
                Ok(0) => {
                    c.peer_closed = true;
                    // Finish the output, then close: see `flush`.
                    self.flush(conn);
                    break;
                }
                Ok(n) => n,
                Err(err) if err.kind() == io::ErrorKind::WouldBlock => break,
                Err(err) if err.kind() == io::ErrorKind::Interrupted => continue,
                Err(err) => {
                    self.finish(conn, Closed::Error(err));
                    break;
                }
            };
            let Some(mut callback) = c.on_data.take() else {
                continue; // nobody listens: the bytes are dropped
            };
            callback(self, conn, &scratch[..n]);
            if let Some(c) = self.connection(conn)
                && c.on_data.is_none()
            {
                c.on_data = Some(callback);
            }
        }
        self.scratch = scratch;
    }
    // ANCHOR_END: read

    /// Writes queued output; runs write completions; applies back-pressure;
    /// closes the connection when it is finished.
    fn flush(&mut self, conn: ConnId) {
        let Some(c) = self.connection(conn) else {
            return;
        };
        let mut failure = None;
        while !c.out.is_empty() {
            let (front, _) = c.out.as_slices();
            match c.stream.write(front) {
                Ok(0) => break,
                Ok(n) => {
                    c.out.drain(..n);
                    c.written += n as u64;
                }
                Err(err) if err.kind() == io::ErrorKind::WouldBlock => break,
                Err(err) if err.kind() == io::ErrorKind::Interrupted => {}
                Err(err) => {
                    failure = Some(err);
                    break;
                }
            }
        }
        if let Some(err) = failure {
            self.finish(conn, Closed::Error(err));
            return;
        }
        // Back-pressure: a peer that does not read stops being read.
        if c.out.len() >= HIGH_WATER {
            c.reading = false;
        } else if !c.reading && c.out.len() < LOW_WATER {
            c.reading = true;
            self.next_tick(move |ev| ev.read(conn));
        }
        self.update_interest(conn);
        // Completed writes.
        loop {
            let Some(c) = self.connection(conn) else {
                return;
            };
            match c.on_written.front() {
                Some(&(at, _)) if at <= c.written => {
                    let (_, callback) = c.on_written.pop_front().expect("just peeked");
                    callback(self, conn, Ok(()));
                }
                _ => break,
            }
        }
        let Some(c) = self.connection(conn) else {
            return;
        };
        if c.out.is_empty() && (c.closing || c.peer_closed) {
            let reason = if c.closing {
                Closed::Local
            } else {
                Closed::PeerClosed
            };
            let _ = c.stream.shutdown(Shutdown::Write);
            self.finish(conn, reason);
        }
    }

    fn update_interest(&mut self, conn: ConnId) {
        let token = Token(conn.0.to_usize());
        let Some(Source::Connection(c)) = self.sources.get_mut(conn.0) else {
            return;
        };
        let want_read = c.reading && !c.peer_closed;
        let want_write = !c.out.is_empty() || c.connecting.is_some();
        let interest = match (want_read, want_write) {
            (true, true) => Some(Interest::READABLE | Interest::WRITABLE),
            (true, false) => Some(Interest::READABLE),
            (false, true) => Some(Interest::WRITABLE),
            (false, false) => None,
        };
        if interest == c.interest {
            return;
        }
        let registry = self.poll.registry();
        let result = match (c.interest, interest) {
            (None, Some(new)) => registry.register(&mut c.stream, token, new),
            (Some(_), Some(new)) => registry.reregister(&mut c.stream, token, new),
            (Some(_), None) => registry.deregister(&mut c.stream),
            (None, None) => Ok(()),
        };
        c.interest = interest;
        if let Err(err) = result {
            self.finish(conn, Closed::Error(err));
        }
    }

    /// Removes `conn` and runs the callbacks still owed: failed writes, then
    /// `on_close`, exactly once.
    fn finish(&mut self, conn: ConnId, reason: Closed) {
        let Some(Source::Connection(mut c)) = self.sources.remove(conn.0) else {
            return;
        };
        let _ = self.poll.registry().deregister(&mut c.stream);
        let on_written: Vec<_> = c.on_written.drain(..).collect();
        let on_close = c.on_close.take();
        drop(c); // the socket closes: one descriptor free again
        if self.accept_paused {
            self.resume_accepting();
        }
        for (_, callback) in on_written {
            callback(self, conn, Err(io::ErrorKind::NotConnected.into()));
        }
        if let Some(callback) = on_close {
            callback(self, conn, reason);
        }
    }
}

#[cfg(test)]
mod size_tests {
    /// Chapter 5 quotes "a `Box<Connection>` of 136 bytes" (a release
    /// build); if a field changes, this fails and the sentence must change
    /// with it. In a debug build mio's `TcpStream` carries the id of its
    /// selector too (checked only under `debug_assertions`): 16 bytes more.
    #[test]
    fn a_connection_is_the_136_bytes_the_book_quotes() {
        let expected = if cfg!(debug_assertions) { 152 } else { 136 };
        assert_eq!(std::mem::size_of::<super::Connection>(), expected);
    }
}
