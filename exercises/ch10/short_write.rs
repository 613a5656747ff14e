//! Exercise ch10_short_write: a completion write loop that survives short
//! writes.
//!
//! A write completion says how many bytes the kernel took, and on a socket
//! that can be fewer than offered: the send buffer had room for part of
//! it. The rest must be submitted again, from where the kernel stopped.
//! Because the buffer is owned by each write operation, the loop passes it
//! in, gets it back with the count, and passes it in again with a new
//! offset. Chapter 10's `owned::write_all` is this loop.
//!
//! Write [`write_all`]: write every byte of `buf` with `writer.write_at`,
//! and return the result with the buffer (always the buffer, error or not):
//!
//! * after `Ok(n)`, continue from `offset + n` until the whole buffer is
//!   written;
//! * `Ok(0)` with bytes left means the kernel will take no more:
//!   `io::ErrorKind::WriteZero`;
//! * `Interrupted` is retried from the same offset; any other error is
//!   returned;
//! * an empty buffer writes nothing and submits nothing.
//!
//! Check: `cargo run -p exercises -- check ch10_short_write`. Hint:
//! `cargo run -p exercises -- hint ch10_short_write`.

use std::future::Future;
use std::io;

/// One write operation, as a completion-based runtime offers it.
pub trait Writer {
    /// Submits a write of `buf[offset..]` and resolves when its completion
    /// arrives: how many bytes the kernel took (possibly fewer than
    /// offered), or the error; and the buffer, back.
    fn write_at(
        &mut self,
        buf: Vec<u8>,
        offset: usize,
    ) -> impl Future<Output = (io::Result<usize>, Vec<u8>)>;
}

/// Writes all of `buf`, resubmitting after short writes; gives `buf` back.
pub async fn write_all(writer: &mut impl Writer, buf: Vec<u8>) -> (io::Result<()>, Vec<u8>) {
    let _ = writer;
    todo!("loop on write_at from the offset the last completion reached")
}
