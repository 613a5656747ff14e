//! Reference solution for ch09_hyper_write.

use futures::io::AsyncWrite;
use hyper::rt::Write;
use std::io::{self, IoSlice};
use std::pin::Pin;
use std::task::{Context, Poll, ready};

/// A stream with `futures::io`'s `AsyncWrite`, seen through hyper's
/// `Write`.
#[derive(Debug)]
pub struct HyperWrite<S> {
    /// The stream written to.
    pub stream: S,
    /// True if the stream's `poll_write_vectored` writes from every buffer
    /// it is given (as `rt`'s sockets do, with writev(2)); false if it is
    /// `AsyncWrite`'s default, which writes only the first non-empty one.
    pub vectored: bool,
}

/// The stream's count `n` for a write offered `len` bytes, unless it claims
/// more than that: hyper would advance its buffer past the end.
fn checked(n: usize, len: usize) -> io::Result<usize> {
    if n > len {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("the stream reported {n} bytes written of {len} offered"),
        ));
    }
    Ok(n)
}

impl<S: AsyncWrite + Unpin> Write for HyperWrite<S> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let n = ready!(Pin::new(&mut self.stream).poll_write(cx, buf))?;
        Poll::Ready(checked(n, buf.len()))
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let n = ready!(Pin::new(&mut self.stream).poll_write_vectored(cx, bufs))?;
        Poll::Ready(checked(n, bufs.iter().map(|buf| buf.len()).sum()))
    }

    fn is_write_vectored(&self) -> bool {
        self.vectored
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_close(cx)
    }
}
