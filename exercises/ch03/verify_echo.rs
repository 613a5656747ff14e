//! Exercise ch03_verify_echo: a reader that catches a corrupted echo.
//!
//! The load generator never trusts a server: every connection sends a
//! pattern stream ([`chapter_01::pattern::PatternStream`]) and checks each
//! echoed byte against the same stream. Write that check for a blocking
//! reader: [`verify_echo`] reads exactly `expected` bytes from `reader` and
//! compares them with the first `expected` bytes of the stream with `seed`.
//!
//! * `read` may return any number of bytes at a time (the tests hand them
//!   out one to seven at a time): keep going until `expected` bytes have
//!   been checked; retry `ErrorKind::Interrupted`;
//! * never read more than `expected` bytes (what follows belongs to
//!   someone else);
//! * a stream that ends early is an `UnexpectedEof` error;
//! * the [`Verdict`] counts the bytes that differ and gives the offset of
//!   the first one, so a report can say where the corruption began.
//!
//! Check: `cargo run -p exercises -- check ch03_verify_echo`. Hint:
//! `cargo run -p exercises -- hint ch03_verify_echo`.

use std::io::{self, Read};

pub use chapter_01::pattern::PatternStream;

/// What the check found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Verdict {
    /// Bytes checked (always `expected` when `verify_echo` returns `Ok`).
    pub bytes: u64,
    /// Bytes that differed from the pattern.
    pub mismatches: u64,
    /// Offset of the first byte that differed.
    pub first_mismatch: Option<u64>,
}

/// Reads `expected` bytes from `reader` and checks them against the pattern
/// stream with `seed`.
pub fn verify_echo(reader: &mut impl Read, seed: u64, expected: u64) -> io::Result<Verdict> {
    let _ = (reader, seed);
    todo!("read and check {expected} bytes")
}
