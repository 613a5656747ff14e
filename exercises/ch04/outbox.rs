//! Exercise ch04_outbox: the partial-write backlog.
//!
//! A non-blocking `write` takes what fits in the socket's send buffer and
//! says how much; when nothing fits, it returns `WouldBlock`. An echo server
//! must keep the rest and send it later, when epoll reports the socket
//! writable, and must never send newer bytes before older ones.
//!
//! Write [`Outbox`]:
//!
//! * [`Outbox::send`] writes `data` to `socket` at once if nothing is
//!   queued, and queues whatever the socket does not take. If something is
//!   already queued, `data` goes behind it without touching the socket
//!   (writing it first would reorder the stream);
//! * [`Outbox::flush`] writes queued bytes until the queue is empty or the
//!   socket is full, and returns whether the queue is now empty (the server
//!   asks for `EPOLLOUT` only while it is not);
//! * [`Outbox::len`] is the number of queued bytes.
//!
//! `WouldBlock` is not an error (it just means "full"); `Interrupted` is
//! retried; any other error is returned. A `write` that returns `Ok(0)` for
//! a non-empty buffer means the socket can take nothing: treat it as full.
//!
//! Check: `cargo run -p exercises -- check ch04_outbox`. Hint:
//! `cargo run -p exercises -- hint ch04_outbox`.

use std::collections::VecDeque;
use std::io::{self, Write};

/// Bytes accepted for sending but not yet written to the socket.
#[derive(Debug, Default)]
pub struct Outbox {
    queue: VecDeque<u8>,
}

impl Outbox {
    /// Sends `data`: now if possible, later for the rest.
    pub fn send(&mut self, socket: &mut impl Write, data: &[u8]) -> io::Result<()> {
        let _ = (&mut self.queue, socket, data);
        todo!("write what fits, queue the rest")
    }

    /// Writes queued bytes; returns whether the queue is empty.
    pub fn flush(&mut self, socket: &mut impl Write) -> io::Result<bool> {
        let _ = socket;
        todo!("write the queue until empty or WouldBlock")
    }

    /// Bytes queued.
    pub fn len(&self) -> usize {
        todo!()
    }

    /// Whether nothing is queued.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}
