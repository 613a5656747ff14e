//! Reference solution for ch03_verify_echo.
//!
//! `PatternStream::fill` produces the expected bytes chunk by chunk, at the
//! same offsets as the bytes read, so each chunk can be compared with what
//! the reader returned.

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
    let mut pattern = PatternStream::new(seed);
    let mut got = [0u8; 4096];
    let mut want = [0u8; 4096];
    let mut verdict = Verdict {
        bytes: 0,
        mismatches: 0,
        first_mismatch: None,
    };
    while verdict.bytes < expected {
        let room = (expected - verdict.bytes).min(got.len() as u64) as usize;
        let n = match reader.read(&mut got[..room]) {
            Ok(0) => return Err(io::ErrorKind::UnexpectedEof.into()),
            Ok(n) => n,
            Err(err) if err.kind() == io::ErrorKind::Interrupted => continue,
            Err(err) => return Err(err),
        };
        pattern.fill(&mut want[..n]);
        for (i, (a, b)) in got[..n].iter().zip(&want[..n]).enumerate() {
            if a != b {
                verdict.mismatches += 1;
                verdict
                    .first_mismatch
                    .get_or_insert(verdict.bytes + i as u64);
            }
        }
        verdict.bytes += n as u64;
    }
    Ok(verdict)
}
