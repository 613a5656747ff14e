//! Reference solution for ch01_echo_loop.
//!
//! `write_all` already loops over partial writes and retries `Interrupted`;
//! `read` does neither, so the loop retries it by hand.

use std::io::{self, Read, Write};

/// Copies everything read from `stream` back to it, using a buffer of
/// `buffer_bytes` (at least 1), until `read` reports end of file. Returns the
/// number of bytes echoed. Retries `Interrupted`; returns any other error.
pub fn echo_until_eof<S: Read + Write>(stream: &mut S, buffer_bytes: usize) -> io::Result<u64> {
    let mut buf = vec![0u8; buffer_bytes.max(1)];
    let mut echoed = 0;
    loop {
        let n = match stream.read(&mut buf) {
            Ok(0) => return Ok(echoed),
            Ok(n) => n,
            Err(err) if err.kind() == io::ErrorKind::Interrupted => continue,
            Err(err) => return Err(err),
        };
        stream.write_all(&buf[..n])?;
        echoed += n as u64;
    }
}
