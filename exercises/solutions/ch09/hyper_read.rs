//! Reference solution for ch09_hyper_read.

use futures::io::{AsyncRead, AsyncWrite};
use hyper::rt::{Read, ReadBufCursor, Write};
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};

/// The most bytes one `poll_read` lends the stream. hyper's read buffer
/// starts at 8 KiB and grows; zeroing much more than a socket buffer holds
/// per read would cost more than it saves.
const READ_CHUNK: usize = 64 * 1024;

/// A stream with `futures::io` traits, seen through hyper's `Read` and
/// `Write`.
#[derive(Debug)]
pub struct HyperIo<S>(pub S);

impl<S: AsyncRead + Unpin> Read for HyperIo<S> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        mut buf: ReadBufCursor<'_>,
    ) -> Poll<io::Result<()>> {
        // Read straight into hyper's buffer: zero the part we lend to the
        // stream (safe code), then mark what arrived. No copy.
        let len = buf.remaining().min(READ_CHUNK);
        let dst = buf.initialize_unfilled_to(len);
        let n = std::task::ready!(Pin::new(&mut self.0).poll_read(cx, dst))?;
        if n > len {
            return Poll::Ready(Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!("the stream reported {n} bytes read into a buffer of {len}"),
            )));
        }
        // SAFETY: `n <= len` (checked just above: `AsyncRead` is a safe trait,
        // so its promise that `n` fits the buffer cannot be relied on), and
        // the first `len` bytes of the cursor were initialized by
        // `initialize_unfilled_to(len)`, then written by the read.
        unsafe { buf.advance(n) };
        Poll::Ready(Ok(()))
    }
}

/// Written for you: each call goes straight to the stream (`poll_shutdown`
/// is `futures::io`'s `poll_close`).
impl<S: AsyncWrite + Unpin> Write for HyperIo<S> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.0).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.0).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.0).poll_close(cx)
    }
}
