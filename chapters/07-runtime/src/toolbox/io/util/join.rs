//! [`join`]: a reader and a writer as one stream, the inverse of
//! [`split`](crate::io::split): standard input and standard output as one
//! `AsyncRead + AsyncWrite`, say, for code that wants a single stream.
//!
//! Book: Chapter 8, "Sockets", section "Tokio's names: the extension traits".

use futures::io::{AsyncBufRead, AsyncRead, AsyncWrite};
use std::io::{self, IoSlice};
use std::pin::Pin;
use std::task::{Context, Poll};

/// A reader and a writer joined into one stream; made by [`join`]. Reads go
/// to the reader, writes (and `flush`, `shutdown`) to the writer.
///
/// Ours needs both parts to be `Unpin` to read or write through the join
/// (Tokio's projects the pin and does not); pin a part that is not with
/// `Box::pin`.
#[derive(Debug)]
pub struct Join<R, W> {
    reader: R,
    writer: W,
}

/// Joins `reader` and `writer` into one stream that reads from the first
/// and writes to the second.
pub fn join<R, W>(reader: R, writer: W) -> Join<R, W>
where
    R: AsyncRead,
    W: AsyncWrite,
{
    Join { reader, writer }
}

impl<R, W> Join<R, W> {
    /// The two parts, separated again.
    pub fn into_inner(self) -> (R, W) {
        (self.reader, self.writer)
    }

    /// The reader.
    pub fn reader(&self) -> &R {
        &self.reader
    }

    /// The writer.
    pub fn writer(&self) -> &W {
        &self.writer
    }

    /// The reader, mutably.
    pub fn reader_mut(&mut self) -> &mut R {
        &mut self.reader
    }

    /// The writer, mutably.
    pub fn writer_mut(&mut self) -> &mut W {
        &mut self.writer
    }

    /// The reader, pinned.
    pub fn reader_pin_mut(self: Pin<&mut Self>) -> Pin<&mut R>
    where
        R: Unpin,
        W: Unpin,
    {
        Pin::new(&mut self.get_mut().reader)
    }

    /// The writer, pinned.
    pub fn writer_pin_mut(self: Pin<&mut Self>) -> Pin<&mut W>
    where
        R: Unpin,
        W: Unpin,
    {
        Pin::new(&mut self.get_mut().writer)
    }
}

impl<R: AsyncRead + Unpin, W: Unpin> AsyncRead for Join<R, W> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut [u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().reader).poll_read(cx, buf)
    }
}

impl<R: AsyncBufRead + Unpin, W: Unpin> AsyncBufRead for Join<R, W> {
    fn poll_fill_buf(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<&[u8]>> {
        Pin::new(&mut self.get_mut().reader).poll_fill_buf(cx)
    }

    fn consume(self: Pin<&mut Self>, amt: usize) {
        Pin::new(&mut self.get_mut().reader).consume(amt)
    }
}

impl<R: Unpin, W: AsyncWrite + Unpin> AsyncWrite for Join<R, W> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().writer).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().writer).poll_write_vectored(cx, bufs)
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().writer).poll_flush(cx)
    }

    fn poll_close(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().writer).poll_close(cx)
    }
}
