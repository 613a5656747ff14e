//! One connection of the epoll server, as a state machine kept by hand.
//!
//! A thread-per-connection server keeps a connection's state in the
//! thread: where it is in the protocol is *where the thread is* in its code,
//! and its buffer is a local variable on its stack. A single-threaded server
//! cannot block in one connection's `read`, so everything a connection
//! needs between two readiness events moves into a struct:
//!
//! * the socket, non-blocking: `read` and `write` return `WouldBlock`
//!   instead of sleeping;
//! * the **backlog**: echoed bytes the socket would not take yet (a partial
//!   write). While it is not empty we ask epoll for `EPOLLOUT`;
//! * whether the peer has half-closed (`read` returned 0, or `EPOLLRDHUP`);
//! * whether we are reading at all: **back-pressure**. A client that sends
//!   faster than it reads would otherwise make the backlog grow without
//!   bound; above [`HIGH_WATER`] we stop reading from it (its own send
//!   buffer fills, and TCP slows it down), below [`LOW_WATER`] we start
//!   again.
//!
//! The bytes read go through a scratch buffer shared by every connection
//! (the server runs one at a time), so an idle connection costs this struct
//! and the kernel's socket, nothing more.
//!
//! Book: Chapter 4, "A connection is a state machine".

use std::collections::VecDeque;
use std::io::{self, Read, Write};
use std::net::{Shutdown, TcpStream};

use crate::epoll::flags;

/// Backlog size at which we stop reading from a connection.
pub const HIGH_WATER: usize = 256 * 1024;

/// Backlog size below which we read from it again. The gap between the two
/// keeps a connection from flapping between the states on every event.
pub const LOW_WATER: usize = 64 * 1024;

/// How a server reacts to readiness.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Level-triggered: epoll reports a descriptor while it *is* ready, so
    /// one `read` per event is enough; the next wait reports it again if
    /// more is left.
    Level,
    /// Edge-triggered: epoll reports a descriptor when it *becomes* ready,
    /// once. Each event must be drained until `WouldBlock`, or the rest is
    /// never reported.
    Edge,
}

impl Mode {
    /// The flag added to every registration.
    pub fn flag(self) -> u32 {
        match self {
            Mode::Level => 0,
            Mode::Edge => flags::ET,
        }
    }
}

/// What the server must do with a connection after an event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Next {
    /// Keep it, registered for these flags (only `IN`/`OUT`/`RDHUP`; the
    /// server adds the mode flag).
    Keep(u32),
    /// It is finished, cleanly or not: deregister and close it.
    Close,
}

/// One client connection.
#[derive(Debug)]
pub struct Connection {
    stream: TcpStream,
    backlog: VecDeque<u8>,
    peer_closed: bool,
    reading: bool,
    echoed: u64,
    failed: bool,
    registered: u32,
}

impl Connection {
    /// Wraps a freshly accepted socket, which must already be non-blocking.
    pub fn new(stream: TcpStream) -> Connection {
        Connection {
            stream,
            backlog: VecDeque::new(),
            peer_closed: false,
            reading: true,
            echoed: 0,
            failed: false,
            registered: Connection::initial_interest(),
        }
    }

    /// The interest epoll holds for it now (without the mode flag).
    pub fn registered(&self) -> u32 {
        self.registered
    }

    /// Records a new registration.
    pub fn set_registered(&mut self, interest: u32) {
        self.registered = interest;
    }

    /// The socket (to register it).
    pub fn stream(&self) -> &TcpStream {
        &self.stream
    }

    /// Bytes echoed so far.
    pub fn echoed(&self) -> u64 {
        self.echoed
    }

    /// Bytes waiting to be written.
    pub fn backlog(&self) -> usize {
        self.backlog.len()
    }

    /// Whether it ended with an error (a reset, say) rather than a clean close.
    pub fn failed(&self) -> bool {
        self.failed
    }

    /// The interest a new connection starts with.
    pub fn initial_interest() -> u32 {
        flags::IN | flags::RDHUP
    }

    // ANCHOR: on_event
    /// Handles one readiness event with `event_flags`, using `scratch` for
    /// reads, and says what to do next.
    pub fn on_event(&mut self, event_flags: u32, mode: Mode, scratch: &mut [u8]) -> Next {
        let readable = flags::IN | flags::RDHUP | flags::HUP | flags::ERR;
        let result = (|| {
            if event_flags & flags::OUT != 0 {
                self.flush()?;
            }
            if event_flags & readable != 0 && self.reading && !self.peer_closed {
                self.read_and_echo(mode, scratch)?;
            }
            Ok::<(), io::Error>(())
        })();
        if result.is_err() {
            self.failed = true;
            return Next::Close;
        }
        self.next()
    }
    // ANCHOR_END: on_event

    // ANCHOR: read_and_echo
    /// Reads what has arrived and writes it back at once; whatever the socket
    /// will not take goes to the backlog. Level-triggered: one read per
    /// event. Edge-triggered: until `WouldBlock`, because this edge will not
    /// be reported again.
    fn read_and_echo(&mut self, mode: Mode, scratch: &mut [u8]) -> io::Result<()> {
        loop {
            let n = match self.stream.read(scratch) {
                Ok(0) => {
                    self.peer_closed = true; // half-close: echo what is left, then close
                    return Ok(());
                }
                Ok(n) => n,
                Err(err) if err.kind() == io::ErrorKind::WouldBlock => return Ok(()),
                Err(err) if err.kind() == io::ErrorKind::Interrupted => continue,
                Err(err) => return Err(err),
            };
            self.echo(&scratch[..n])?;
            if self.backlog.len() >= HIGH_WATER {
                self.reading = false; // back-pressure: stop until drained
                return Ok(());
            }
            if mode == Mode::Level {
                return Ok(());
            }
        }
    }
    // ANCHOR_END: read_and_echo

    // ANCHOR: echo
    /// Writes `data` now if nothing is queued before it, and queues the rest.
    fn echo(&mut self, data: &[u8]) -> io::Result<()> {
        let mut written = 0;
        if self.backlog.is_empty() {
            written = write_some(&mut self.stream, data)?;
        }
        self.echoed += written as u64;
        self.backlog.extend(&data[written..]);
        Ok(())
    }
    // ANCHOR_END: echo

    // ANCHOR: flush
    /// Writes the backlog until it is empty or the socket is full.
    fn flush(&mut self) -> io::Result<()> {
        while !self.backlog.is_empty() {
            let (front, _) = self.backlog.as_slices();
            let n = write_some(&mut self.stream, front)?;
            if n == 0 {
                break; // the socket is full: wait for EPOLLOUT
            }
            self.backlog.drain(..n);
            self.echoed += n as u64;
        }
        if !self.reading && self.backlog.len() < LOW_WATER {
            self.reading = true;
        }
        if self.backlog.is_empty() && self.backlog.capacity() > LOW_WATER {
            // A connection that once backed up gives its buffer back.
            self.backlog.shrink_to_fit();
        }
        Ok(())
    }
    // ANCHOR_END: flush

    // ANCHOR: next
    /// Chooses the interest set from the state, or decides to close.
    fn next(&mut self) -> Next {
        if self.peer_closed && self.backlog.is_empty() {
            // Everything the client sent has been echoed: finish our side.
            let _ = self.stream.shutdown(Shutdown::Write);
            return Next::Close;
        }
        let mut interest = 0;
        if self.reading && !self.peer_closed {
            interest |= flags::IN | flags::RDHUP;
        }
        if !self.backlog.is_empty() {
            interest |= flags::OUT;
        }
        Next::Keep(interest)
    }
    // ANCHOR_END: next
}

/// Writes as much of `data` as the socket takes now: 0 means it is full.
fn write_some(stream: &mut TcpStream, data: &[u8]) -> io::Result<usize> {
    loop {
        match stream.write(data) {
            Ok(n) => return Ok(n),
            Err(err) if err.kind() == io::ErrorKind::WouldBlock => return Ok(0),
            Err(err) if err.kind() == io::ErrorKind::Interrupted => continue,
            Err(err) => return Err(err),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::TcpListener;

    fn pair() -> (Connection, TcpStream) {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let client = TcpStream::connect(listener.local_addr().unwrap()).unwrap();
        let (server, _) = listener.accept().unwrap();
        server.set_nonblocking(true).unwrap();
        (Connection::new(server), client)
    }

    fn wait_readable(conn: &Connection) {
        // Poll until data has crossed loopback (a few microseconds).
        let mut byte = [0u8; 1];
        for _ in 0..10_000 {
            if conn.stream.peek(&mut byte).is_ok() {
                return;
            }
            std::thread::sleep(std::time::Duration::from_micros(100));
        }
        panic!("no data arrived");
    }

    #[test]
    fn an_echo_goes_straight_back() {
        let (mut conn, mut client) = pair();
        client.write_all(b"hello").unwrap();
        wait_readable(&conn);
        let mut scratch = [0u8; 64];
        let next = conn.on_event(flags::IN, Mode::Edge, &mut scratch);
        assert_eq!(next, Next::Keep(flags::IN | flags::RDHUP));
        let mut echoed = [0u8; 5];
        client.read_exact(&mut echoed).unwrap();
        assert_eq!(&echoed, b"hello");
        assert_eq!(conn.echoed(), 5);
    }

    #[test]
    fn a_half_close_finishes_after_the_echo() {
        let (mut conn, mut client) = pair();
        client.write_all(b"bye").unwrap();
        client.shutdown(Shutdown::Write).unwrap();
        wait_readable(&conn);
        let mut scratch = [0u8; 64];
        // Level-triggered reads once per event: data first, then the EOF.
        let mut next = conn.on_event(flags::IN, Mode::Level, &mut scratch);
        if next != Next::Close {
            next = conn.on_event(flags::IN | flags::RDHUP, Mode::Level, &mut scratch);
        }
        assert_eq!(next, Next::Close);
        let mut echoed = Vec::new();
        client.read_to_end(&mut echoed).unwrap();
        assert_eq!(echoed, b"bye");
    }

    #[test]
    fn a_client_that_does_not_read_is_throttled() {
        let (mut conn, mut client) = pair();
        // Small kernel buffers, so the echo has nowhere to go but the
        // backlog (loopback buffers otherwise grow to megabytes).
        socket2::SockRef::from(&client)
            .set_recv_buffer_size(16 * 1024)
            .unwrap();
        socket2::SockRef::from(&conn.stream)
            .set_send_buffer_size(16 * 1024)
            .unwrap();
        // The client sends 16 MiB and reads nothing: the echo fills the
        // socket buffers, then the backlog, then reading stops.
        let sender = std::thread::spawn(move || {
            let chunk = vec![1u8; 64 * 1024];
            for _ in 0..256 {
                if client.write_all(&chunk).is_err() {
                    break;
                }
            }
            client
        });
        let mut scratch = vec![0u8; 64 * 1024];
        let mut throttled = false;
        for _ in 0..100_000 {
            match conn.on_event(flags::IN, Mode::Edge, &mut scratch) {
                Next::Keep(interest) if interest & flags::IN == 0 => {
                    throttled = true;
                    break;
                }
                Next::Keep(_) => std::thread::sleep(std::time::Duration::from_micros(50)),
                Next::Close => panic!("closed"),
            }
        }
        assert!(throttled, "reading never stopped");
        assert!(conn.backlog() >= HIGH_WATER);
        drop(conn); // lets the sender finish
        let _ = sender.join();
    }
}
