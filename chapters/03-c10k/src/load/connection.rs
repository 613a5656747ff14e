//! One client connection of the load generator, as a state machine.
//!
//! The generator is event-driven: a few threads each own thousands of
//! non-blocking sockets and react to readiness events (Chapters 4 and 5
//! explain the machinery; here we use it). So a connection cannot "block
//! until the echo arrives"; it keeps its progress in fields instead:
//!
//! * `queued`: messages due to be sent, each with the time it *should* have
//!   been sent (its intended time);
//! * the message being written, and how much of it the socket has taken;
//! * `awaiting`: messages written (or being written) whose echo is not
//!   complete yet, with their intended times;
//! * two [`PatternStream`]s: the bytes to send next, and the bytes we expect
//!   back next, so every echoed byte is checked against what was sent.
//!
//! Latency runs from a message's *intended* send time to the moment its last
//! echoed byte arrives. In an open-loop run (a fixed rate) a slow server
//! delays later sends; timing from the intended time counts that delay
//! against the server, instead of hiding it ("coordinated omission").

use std::collections::VecDeque;
use std::io::{self, Read, Write};
use std::net::SocketAddr;
use std::time::{Duration, Instant};

use chapter_01::pattern::PatternStream;
use mio::net::TcpStream;
use socket2::{Domain, Protocol, Socket, Type};

use super::stats::WorkerStats;

/// Where a connection is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// `connect` is in progress.
    Connecting,
    /// Connected; messages flow.
    Open,
    /// Failed or closed; nothing more happens.
    Done,
}

/// One client connection.
#[derive(Debug)]
pub struct Connection {
    stream: TcpStream,
    phase: Phase,
    tx: PatternStream,
    rx: PatternStream,
    message: Vec<u8>,
    written: usize,
    writing: bool,
    queued: VecDeque<Instant>,
    awaiting: VecDeque<Instant>,
    received: usize,
    last_progress: Instant,
    echoes: u64,
}

// ANCHOR: connect
/// Starts a non-blocking connect to `target` from `source` (or a source the
/// kernel picks). The connection completes later, signalled by writability.
pub fn start_connect(target: SocketAddr, source: Option<SocketAddr>) -> io::Result<TcpStream> {
    let socket = Socket::new(
        Domain::for_address(target),
        Type::STREAM,
        Some(Protocol::TCP),
    )?;
    socket.set_nonblocking(true)?;
    socket.set_tcp_nodelay(true)?;
    if let Some(source) = source {
        socket.bind(&source.into())?;
    }
    match socket.connect(&target.into()) {
        Ok(()) => {}
        Err(err) if err.raw_os_error() == Some(libc::EINPROGRESS) => {}
        Err(err) => return Err(err),
    }
    Ok(TcpStream::from_std(socket.into()))
}
// ANCHOR_END: connect

impl Connection {
    /// A connection whose connect has started, sending the stream `seed`.
    pub fn new(stream: TcpStream, seed: u64, message_bytes: usize, now: Instant) -> Connection {
        Connection {
            stream,
            phase: Phase::Connecting,
            tx: PatternStream::new(seed),
            rx: PatternStream::new(seed),
            message: vec![0; message_bytes],
            written: 0,
            writing: false,
            queued: VecDeque::new(),
            awaiting: VecDeque::new(),
            received: 0,
            last_progress: now,
            echoes: 0,
        }
    }

    /// The socket, to register with the poller.
    pub fn stream_mut(&mut self) -> &mut TcpStream {
        &mut self.stream
    }

    /// The connection's phase.
    pub fn phase(&self) -> Phase {
        self.phase
    }

    /// Messages echoed back completely so far.
    pub fn echoes(&self) -> u64 {
        self.echoes
    }

    /// Whether messages are queued, being written or awaiting their echo.
    pub fn busy(&self) -> bool {
        self.writing || !self.queued.is_empty() || !self.awaiting.is_empty()
    }

    /// Marks the connection failed.
    pub fn fail(&mut self) {
        self.phase = Phase::Done;
    }

    /// Checks whether a pending connect has finished. Returns `Ok(true)` once
    /// connected, `Ok(false)` if still in progress, or the connect's error.
    pub fn finish_connect(&mut self, now: Instant) -> io::Result<bool> {
        if let Some(err) = self.stream.take_error()? {
            return Err(err);
        }
        match self.stream.peer_addr() {
            Ok(_) => {
                self.phase = Phase::Open;
                self.last_progress = now;
                Ok(true)
            }
            Err(err)
                if err.kind() == io::ErrorKind::NotConnected
                    || err.raw_os_error() == Some(libc::EINPROGRESS) =>
            {
                Ok(false)
            }
            Err(err) => Err(err),
        }
    }

    /// Queues one message that should be sent at `intended`.
    pub fn queue(&mut self, intended: Instant) {
        if self.queued.is_empty() && self.awaiting.is_empty() && !self.writing {
            // Idle until now: the clock for "no progress" starts here.
            self.last_progress = intended.max(self.last_progress);
        }
        self.queued.push_back(intended);
    }

    // ANCHOR: write
    /// Writes queued messages until they are all sent or the socket is full.
    pub fn write_ready(&mut self, now: Instant, stats: &mut WorkerStats) -> io::Result<()> {
        loop {
            if !self.writing {
                let Some(intended) = self.queued.pop_front() else {
                    return Ok(());
                };
                stats.record_send_lag(now.saturating_duration_since(intended));
                self.tx.fill(&mut self.message);
                self.written = 0;
                self.writing = true;
                self.awaiting.push_back(intended);
            }
            match self.stream.write(&self.message[self.written..]) {
                Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
                Ok(n) => {
                    self.written += n;
                    self.last_progress = now;
                    if self.written == self.message.len() {
                        self.writing = false;
                    }
                }
                Err(err) if err.kind() == io::ErrorKind::WouldBlock => return Ok(()),
                Err(err) if err.kind() == io::ErrorKind::Interrupted => {}
                Err(err) => return Err(err),
            }
        }
    }
    // ANCHOR_END: write

    // ANCHOR: read
    /// Reads and checks everything the server has sent, recording each
    /// completed message's latency. Returns how many messages completed.
    pub fn read_ready(
        &mut self,
        now: Instant,
        scratch: &mut [u8],
        stats: &mut WorkerStats,
    ) -> io::Result<u64> {
        let message_bytes = self.message.len();
        let mut completed = 0;
        loop {
            let n = match self.stream.read(scratch) {
                Ok(0) => return Err(io::ErrorKind::UnexpectedEof.into()),
                Ok(n) => n,
                Err(err) if err.kind() == io::ErrorKind::WouldBlock => return Ok(completed),
                Err(err) if err.kind() == io::ErrorKind::Interrupted => continue,
                Err(err) => return Err(err),
            };
            self.last_progress = now;
            let wrong = self.rx.verify(&scratch[..n]);
            stats.mismatches += wrong;
            stats.bytes_verified += n as u64 - wrong;
            self.received += n;
            while self.received >= message_bytes {
                let Some(intended) = self.awaiting.pop_front() else {
                    // More bytes than we sent: the server made some up.
                    return Err(io::Error::new(
                        io::ErrorKind::InvalidData,
                        "the server sent more bytes than it was sent",
                    ));
                };
                self.received -= message_bytes;
                stats.record_latency(now.saturating_duration_since(intended));
                self.echoes += 1;
                completed += 1;
            }
        }
    }
    // ANCHOR_END: read

    /// Whether the connection has waited longer than `limit` for progress
    /// on something it expects (a connect, a write, an echo).
    pub fn stalled(&self, now: Instant, connect_limit: Duration, io_limit: Duration) -> bool {
        match self.phase {
            Phase::Connecting => now.duration_since(self.last_progress) > connect_limit,
            Phase::Open => self.busy() && now.duration_since(self.last_progress) > io_limit,
            Phase::Done => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::TcpListener;

    #[test]
    fn a_connect_to_nobody_is_refused() {
        // Bind, learn the port, close: nothing listens there any more.
        let port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap();
        let stream = start_connect(port, None).unwrap();
        let mut conn = Connection::new(stream, 1, 16, Instant::now());
        let deadline = Instant::now() + Duration::from_secs(10);
        let err = loop {
            match conn.finish_connect(Instant::now()) {
                Ok(false) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(1))
                }
                Ok(done) => panic!("connect finished: {done}"),
                Err(err) => break err,
            }
        };
        assert_eq!(err.kind(), io::ErrorKind::ConnectionRefused);
    }

    #[test]
    fn an_idle_open_connection_is_not_stalled() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let stream = start_connect(listener.local_addr().unwrap(), None).unwrap();
        let start = Instant::now();
        let mut conn = Connection::new(stream, 1, 16, start);
        conn.phase = Phase::Open;
        let later = start + Duration::from_secs(100);
        assert!(!conn.stalled(later, Duration::from_secs(1), Duration::from_secs(1)));
        conn.queue(start);
        assert!(conn.stalled(later, Duration::from_secs(1), Duration::from_secs(1)));
    }
}
