//! One request and its reply, every byte checked: the unit of the soak's
//! misbehaving clients.
//!
//! The soak speaks two protocols. To an **echo** server a request is a run
//! of pattern bytes ([`chapter_01::pattern`]) and the reply is the same run.
//! To the **HTTP** server a request is `POST /echo` with a pattern body and
//! the reply is a `200` whose body (by `content-length` or chunked) is the
//! same run. Either way each request has its own seed, so a byte that comes
//! back on the wrong connection, late, twice or changed does not match.
//!
//! [`Tally`] counts, for the whole soak of one server, the bytes sent that
//! must come back, the bytes verified, the bytes wrong, and the bytes lost:
//! sent in a request that never got its whole reply.

use std::io::{self, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpStream};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

use chapter_01::pattern::PatternStream;

/// The wire protocol of a server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Protocol {
    /// Every byte comes back.
    Echo,
    /// HTTP/1.1 with `POST /echo`.
    Http,
}

/// The longest HTTP response head the client accepts.
const MAX_HEAD: usize = 16 * 1024;

/// Bytes per write of a bulk writer (between two looks at the reader).
const WRITE_PIECE: usize = 64 * 1024;

/// Seeds for requests: each request gets its own.
static NEXT_SEED: AtomicU64 = AtomicU64::new(0x50AC_0000);

/// A fresh seed.
pub fn next_seed() -> u64 {
    NEXT_SEED.fetch_add(1, Ordering::Relaxed)
}

/// What one server's soak counted. Shared by every client thread.
#[derive(Debug, Default)]
pub struct Tally {
    /// Bytes sent in requests whose replies must come back.
    pub sent: AtomicU64,
    /// Reply bytes that matched.
    pub verified: AtomicU64,
    /// Reply bytes that did not match.
    pub wrong: AtomicU64,
    /// Bytes of requests whose reply did not come back whole.
    pub lost: AtomicU64,
    /// Connections closed with a reset in the middle of a request.
    pub resets: AtomicU64,
    /// Connections that half-closed and read their reply.
    pub half_closes: AtomicU64,
    /// Requests written or read a few bytes at a time.
    pub slow: AtomicU64,
    /// Clean keep-alive requests answered (HTTP).
    pub clean: AtomicU64,
    /// Pipelined batches (HTTP).
    pub pipelined: AtomicU64,
    /// Idle connections held through a round and used at its end.
    pub idle: AtomicU64,
    /// Connections opened past the server's descriptor limit, in all.
    pub exhaustion: AtomicU64,
    /// Connections opened by the misbehaving clients (the clean load's are
    /// counted apart).
    pub connections: AtomicU64,
    /// The most bytes a bulk writer was ever ahead of its reader.
    pub most_ahead: AtomicU64,
    /// Failures of any kind (a lost reply, a refused connection...).
    pub errors: AtomicU64,
    first_error: Mutex<Option<String>>,
}

impl Tally {
    /// Counts one failure and keeps the first description.
    pub fn error(&self, what: impl std::fmt::Display) {
        self.errors.fetch_add(1, Ordering::Relaxed);
        let mut first = self.first_error.lock().unwrap_or_else(|e| e.into_inner());
        first.get_or_insert_with(|| what.to_string());
    }

    /// The first failure, described.
    pub fn first_error(&self) -> Option<String> {
        self.first_error
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// Adds to a counter.
    pub fn add(counter: &AtomicU64, n: u64) {
        counter.fetch_add(n, Ordering::Relaxed);
    }

    /// Reads a counter.
    pub fn get(counter: &AtomicU64) -> u64 {
        counter.load(Ordering::Relaxed)
    }
}

/// How a client reads replies: at most `chunk` bytes per read, with `pause`
/// after each (a slow reader), or as fast as they come.
#[derive(Debug, Clone, Copy)]
pub struct Pace {
    /// Bytes per read.
    pub chunk: usize,
    /// Sleep after each read or write.
    pub pause: Duration,
}

impl Pace {
    /// No pause, large reads.
    pub const FAST: Pace = Pace {
        chunk: 64 * 1024,
        pause: Duration::ZERO,
    };
}

/// A request sent and not answered yet.
#[derive(Debug, Clone, Copy)]
pub struct Pending {
    seed: u64,
    len: usize,
}

/// One client connection.
#[derive(Debug)]
pub struct Conn {
    stream: TcpStream,
    protocol: Protocol,
    /// Bytes read past the end of the last reply (HTTP pipelining).
    spare: Vec<u8>,
    /// Reply payload bytes read so far (a writer thread watches it).
    received: Arc<AtomicU64>,
}

impl Conn {
    /// Connects, with time limits on the connect and on every read and
    /// write.
    pub fn open(
        addr: SocketAddr,
        protocol: Protocol,
        io_timeout: Duration,
        tally: &Tally,
    ) -> io::Result<Conn> {
        let stream = TcpStream::connect_timeout(&addr, io_timeout)?;
        Tally::add(&tally.connections, 1);
        stream.set_read_timeout(Some(io_timeout))?;
        stream.set_write_timeout(Some(io_timeout))?;
        stream.set_nodelay(true)?;
        Ok(Conn {
            stream,
            protocol,
            spare: Vec::new(),
            received: Arc::default(),
        })
    }

    /// The socket.
    pub fn stream(&self) -> &TcpStream {
        &self.stream
    }

    /// The bytes of one request of `len` payload bytes.
    fn request(&self, seed: u64, len: usize) -> Vec<u8> {
        let mut body = vec![0; len];
        PatternStream::new(seed).fill(&mut body);
        match self.protocol {
            Protocol::Echo => body,
            Protocol::Http => {
                let mut bytes =
                    format!("POST /echo HTTP/1.1\r\nhost: soak\r\ncontent-length: {len}\r\n\r\n")
                        .into_bytes();
                bytes.extend_from_slice(&body);
                bytes
            }
        }
    }

    /// Writes a request of `len` payload bytes, `pace.chunk` bytes at a
    /// time, and counts its payload as sent.
    pub fn send(&mut self, len: usize, pace: Pace, tally: &Tally) -> io::Result<Pending> {
        let seed = next_seed();
        let bytes = self.request(seed, len);
        write_paced(&mut self.stream, &bytes, pace)?;
        Tally::add(&tally.sent, len as u64);
        Ok(Pending { seed, len })
    }

    /// Writes only the first `part` bytes of a request (for a reset mid-request);
    /// nothing counts as sent.
    pub fn send_part(&mut self, len: usize, part: usize) -> io::Result<()> {
        let bytes = self.request(next_seed(), len);
        self.stream.write_all(&bytes[..part.min(bytes.len())])
    }

    /// Reads the reply to `pending` and checks it. Bytes that never came
    /// back count as lost, with one error.
    pub fn receive(&mut self, pending: Pending, pace: Pace, tally: &Tally) -> io::Result<()> {
        let mut check = PatternStream::new(pending.seed);
        let result = match self.protocol {
            Protocol::Echo => self.read_body(pending.len, &mut check, pace, tally),
            Protocol::Http => self.read_http(pending.len, &mut check, pace, tally),
        };
        if let Err(err) = &result {
            let missing = pending.len as u64 - check.offset().min(pending.len as u64);
            Tally::add(&tally.lost, missing);
            tally.error(format!("a reply was cut short: {err}"));
        }
        result
    }

    /// One request and its reply.
    pub fn round_trip(&mut self, len: usize, pace: Pace, tally: &Tally) -> io::Result<()> {
        let pending = self.send(len, pace, tally)?;
        self.receive(pending, pace, tally)
    }

    /// One large request written by a second thread while this one reads
    /// the reply at `pace`: the server's writes meet a full socket buffer
    /// and must wait for the reader without losing a byte or stalling.
    pub fn round_trip_while_writing(
        &mut self,
        len: usize,
        pace: Pace,
        tally: &Tally,
    ) -> io::Result<()> {
        let seed = next_seed();
        let bytes = self.request(seed, len);
        let mut writer = self.stream.try_clone()?;
        Tally::add(&tally.sent, len as u64);
        thread::scope(|scope| {
            let received = Arc::clone(&self.received);
            let start = received.load(Ordering::Relaxed);
            let written = scope.spawn(move || {
                let mut sent = 0u64;
                for piece in bytes.chunks(WRITE_PIECE) {
                    // How far the writer is ahead of the reader: when it
                    // stays below the request's size, the buffers between
                    // them were full and the server waited.
                    let ahead = sent.saturating_sub(received.load(Ordering::Relaxed) - start);
                    tally.most_ahead.fetch_max(ahead, Ordering::Relaxed);
                    writer.write_all(piece)?;
                    sent += piece.len() as u64;
                }
                Ok(())
            });
            let read = self.receive(Pending { seed, len }, pace, tally);
            if read.is_err() {
                // Unblocks the writer, which may wait on a server that stopped.
                let _ = self.stream.shutdown(Shutdown::Both);
            }
            let written = written
                .join()
                .unwrap_or_else(|_| Err(io::Error::other("the writer thread panicked")));
            read.and(written)
        })
    }

    /// Shuts down the writing half (the server sees end of file).
    pub fn half_close(&self) -> io::Result<()> {
        self.stream.shutdown(Shutdown::Write)
    }

    /// After a half-close: the server must close its side too, having sent
    /// nothing more.
    pub fn expect_end(&mut self) -> io::Result<()> {
        if !self.spare.is_empty() {
            return Err(io::Error::other("bytes after the last reply"));
        }
        let mut byte = [0u8; 1];
        match self.stream.read(&mut byte)? {
            0 => Ok(()),
            _ => Err(io::Error::other("bytes after the last reply")),
        }
    }

    /// Closes with a reset: `SO_LINGER` 0 makes `close` send RST and drop
    /// whatever is unsent or unread.
    pub fn reset(self) -> io::Result<()> {
        socket2::SockRef::from(&self.stream).set_linger(Some(Duration::ZERO))?;
        drop(self.stream);
        Ok(())
    }

    /// Reads `len` bytes into `check`, counting verified and wrong ones.
    fn read_body(
        &mut self,
        len: usize,
        check: &mut PatternStream,
        pace: Pace,
        tally: &Tally,
    ) -> io::Result<()> {
        let mut buf = vec![0u8; pace.chunk.clamp(1, 64 * 1024)];
        let mut left = len;
        // Bytes already read past the head.
        if !self.spare.is_empty() {
            let n = self.spare.len().min(left);
            let spare: Vec<u8> = self.spare.drain(..n).collect();
            tally_checked(check, &spare, tally);
            self.received.fetch_add(n as u64, Ordering::Relaxed);
            left -= n;
        }
        while left > 0 {
            let want = left.min(buf.len());
            let n = read_some(&mut self.stream, &mut buf[..want])?;
            tally_checked(check, &buf[..n], tally);
            self.received.fetch_add(n as u64, Ordering::Relaxed);
            left -= n;
            if !pace.pause.is_zero() {
                thread::sleep(pace.pause);
            }
        }
        Ok(())
    }

    /// Reads an HTTP/1.1 response whose body must be `len` bytes of `check`.
    fn read_http(
        &mut self,
        len: usize,
        check: &mut PatternStream,
        pace: Pace,
        tally: &Tally,
    ) -> io::Result<()> {
        let head = self.read_line_block()?;
        let head = String::from_utf8_lossy(&head).to_ascii_lowercase();
        let mut lines = head.split("\r\n");
        let status = lines.next().unwrap_or_default();
        if !status.starts_with("http/1.1 200") {
            return Err(io::Error::other(format!("status line {status:?}")));
        }
        let mut length = None;
        let mut chunked = false;
        for line in lines {
            if let Some((name, value)) = line.split_once(':') {
                match name.trim() {
                    "content-length" => length = value.trim().parse::<usize>().ok(),
                    "transfer-encoding" => chunked = value.contains("chunked"),
                    _ => {}
                }
            }
        }
        if chunked {
            let mut got = 0;
            loop {
                let size_line = self.read_crlf_line()?;
                let size_text = size_line.split(';').next().unwrap_or_default().trim();
                let size = usize::from_str_radix(size_text, 16)
                    .map_err(|_| io::Error::other(format!("chunk size {size_text:?}")))?;
                if size == 0 {
                    // Trailers (none expected), then the empty line.
                    while !self.read_crlf_line()?.is_empty() {}
                    break;
                }
                if got + size > len {
                    return Err(io::Error::other("a body longer than the request's"));
                }
                self.read_body(size, check, pace, tally)?;
                got += size;
                if !self.read_crlf_line()?.is_empty() {
                    return Err(io::Error::other("no CRLF after a chunk"));
                }
            }
            if got != len {
                return Err(io::Error::other(format!(
                    "a body of {got} bytes, not {len}"
                )));
            }
            Ok(())
        } else {
            match length {
                Some(n) if n == len => self.read_body(len, check, pace, tally),
                other => Err(io::Error::other(format!(
                    "content-length {other:?}, not {len}"
                ))),
            }
        }
    }

    /// Reads until the blank line ending a response head; keeps the rest.
    fn read_line_block(&mut self) -> io::Result<Vec<u8>> {
        loop {
            if let Some(end) = find(&self.spare, b"\r\n\r\n") {
                let head: Vec<u8> = self.spare.drain(..end + 4).collect();
                return Ok(head);
            }
            if self.spare.len() > MAX_HEAD {
                return Err(io::Error::other("a response head over 16 KiB"));
            }
            self.fill_spare()?;
        }
    }

    /// Reads one CRLF-terminated line (without the CRLF).
    fn read_crlf_line(&mut self) -> io::Result<String> {
        loop {
            if let Some(end) = find(&self.spare, b"\r\n") {
                let line: Vec<u8> = self.spare.drain(..end + 2).collect();
                return Ok(String::from_utf8_lossy(&line[..end]).into_owned());
            }
            if self.spare.len() > MAX_HEAD {
                return Err(io::Error::other("a chunk line over 16 KiB"));
            }
            self.fill_spare()?;
        }
    }

    fn fill_spare(&mut self) -> io::Result<()> {
        let mut buf = [0u8; 4096];
        let n = read_some(&mut self.stream, &mut buf)?;
        self.spare.extend_from_slice(&buf[..n]);
        Ok(())
    }
}

/// Checks `bytes` against the stream and counts them.
fn tally_checked(check: &mut PatternStream, bytes: &[u8], tally: &Tally) {
    let wrong = check.verify(bytes);
    Tally::add(&tally.wrong, wrong);
    Tally::add(&tally.verified, bytes.len() as u64 - wrong);
}

/// One read of at least one byte; end of file is an error here.
fn read_some(stream: &mut TcpStream, buf: &mut [u8]) -> io::Result<usize> {
    loop {
        match stream.read(buf) {
            Ok(0) => {
                return Err(io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    "the server closed the connection",
                ));
            }
            Ok(n) => return Ok(n),
            Err(err) if err.kind() == io::ErrorKind::Interrupted => {}
            Err(err) => return Err(err),
        }
    }
}

fn write_paced(stream: &mut TcpStream, bytes: &[u8], pace: Pace) -> io::Result<()> {
    if pace.pause.is_zero() {
        return stream.write_all(bytes);
    }
    for piece in bytes.chunks(pace.chunk.max(1)) {
        stream.write_all(piece)?;
        thread::sleep(pace.pause);
    }
    Ok(())
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}
