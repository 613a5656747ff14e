//! Reference solution for ch04_drain.

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
    let mut chunk = [0u8; CHUNK];
    loop {
        let room = limit.saturating_sub(into.len()).min(CHUNK);
        if room == 0 {
            return Ok(Stop::Full);
        }
        match reader.read(&mut chunk[..room]) {
            Ok(0) => return Ok(Stop::Eof),
            Ok(n) => into.extend_from_slice(&chunk[..n]),
            Err(err) if err.kind() == io::ErrorKind::WouldBlock => return Ok(Stop::Drained),
            Err(err) if err.kind() == io::ErrorKind::Interrupted => {}
            Err(err) => return Err(err),
        }
    }
}
