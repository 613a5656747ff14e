//! Exercise ch01_echo_loop: the heart of an echo server, done right.
//!
//! Chapter 1's server gives each connection a thread that runs a loop: read
//! what the client sent, write it back, until the client is done. The loop is
//! short, but each line hides a trap that real sockets spring:
//!
//! * `read` may return fewer bytes than the buffer holds, and `Ok(0)` means
//!   the peer closed its sending side (end of file), not "try again";
//! * `write` may accept fewer bytes than it was given (a partial write):
//!   the rest must still be sent;
//! * either call may fail with `ErrorKind::Interrupted` when a signal
//!   arrives: that is not an error, just call again;
//! * any other error (a reset, say) ends the loop and is returned.
//!
//! Write [`echo_until_eof`] for any `Read + Write` stream, so the tests can
//! feed it a scripted stream that springs every trap
//! (`cargo run -p exercises -- check ch01_echo_loop`).
//!
//! Run `cargo run -p exercises -- hint ch01_echo_loop` if you are stuck.

use std::io::{self, Read, Write};

/// Copies everything read from `stream` back to it, using a buffer of
/// `buffer_bytes` (at least 1), until `read` reports end of file. Returns the
/// number of bytes echoed. Retries `Interrupted`; returns any other error.
pub fn echo_until_eof<S: Read + Write>(stream: &mut S, buffer_bytes: usize) -> io::Result<u64> {
    let _ = (stream, buffer_bytes);
    todo!("read, write back, repeat until end of file")
}
