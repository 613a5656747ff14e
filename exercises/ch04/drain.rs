//! Exercise ch04_drain: the read loop that edge-triggered epoll demands.
//!
//! With edge-triggered epoll, a readiness event says "something arrived";
//! it will not be repeated for bytes that are still waiting. So a handler
//! must read until the socket says `WouldBlock`, or until it decides to stop
//! on purpose (back-pressure), and must remember which of the two happened:
//! after a deliberate stop, the unread bytes will not produce another event,
//! so the server must come back on its own once it has room.
//!
//! Write [`drain`]: read from `reader` into `into` (appending) until one of
//!
//! * `read` returns `WouldBlock`: [`Stop::Drained`];
//! * `read` returns `Ok(0)`, end of stream: [`Stop::Eof`];
//! * `into` holds `limit` bytes or more: [`Stop::Full`] (read at most what
//!   fits: never let `into` grow past `limit`);
//!
//! retrying `Interrupted`, and returning any other error. Read in chunks of
//! at most [`CHUNK`] bytes.
//!
//! Check: `cargo run -p exercises -- check ch04_drain`. Hint:
//! `cargo run -p exercises -- hint ch04_drain`.

use std::io::{self, Read};

/// Bytes asked for per `read`.
pub const CHUNK: usize = 4096;

/// Why the loop stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stop {
    /// The socket has nothing more for now: wait for the next edge.
    Drained,
    /// The peer closed its sending side.
    Eof,
    /// `into` reached `limit`: stop reading, come back later on purpose.
    Full,
}

/// Reads until `WouldBlock`, end of stream, or `limit` bytes in `into`.
pub fn drain(reader: &mut impl Read, into: &mut Vec<u8>, limit: usize) -> io::Result<Stop> {
    let _ = (reader, into, limit);
    todo!("loop over read() until it would block")
}
