//! [`BufStream`]: a stream buffered both ways, a
//! [`BufReader`](crate::io::BufReader) around a
//! [`BufWriter`](crate::io::BufWriter) around the stream, as Tokio's is.
//! Reads come out of one buffer, writes gather in the other until
//! `flush`. Over a stream that seeks (a file), it seeks too, as Tokio's
//! does.
//!
//! Book: Chapter 8, "Sockets", section "Tokio's names: the extension traits".

use futures::io::{AsyncBufRead, AsyncRead, AsyncSeek, AsyncWrite, BufReader, BufWriter};
use std::io::{self, IoSlice, SeekFrom};
use std::pin::Pin;
use std::task::{Context, Poll};

/// A stream with a read buffer and a write buffer.
#[derive(Debug)]
pub struct BufStream<RW> {
    inner: BufReader<BufWriter<RW>>,
}

impl<RW: AsyncRead + AsyncWrite> BufStream<RW> {
    /// Wraps `stream` with buffers of the default size (8 KiB each).
    pub fn new(stream: RW) -> Self {
        BufStream {
            inner: BufReader::new(BufWriter::new(stream)),
        }
    }

    /// Wraps `stream` with a read buffer of `reader_capacity` bytes and a
    /// write buffer of `writer_capacity` bytes.
    ///
    /// # Panics
    ///
    /// If `reader_capacity` is zero, at the caller's line, as
    /// [`BufReader::with_capacity`](crate::io::BufReader::with_capacity)
    /// (a write buffer of no bytes only passes every write through).
    #[track_caller]
    pub fn with_capacity(reader_capacity: usize, writer_capacity: usize, stream: RW) -> Self {
        assert!(
            reader_capacity > 0,
            "BufStream: reader_capacity must be greater than zero"
        );
        BufStream {
            inner: BufReader::with_capacity(
                reader_capacity,
                BufWriter::with_capacity(writer_capacity, stream),
            ),
        }
    }

    /// The stream underneath.
    pub fn get_ref(&self) -> &RW {
        self.inner.get_ref().get_ref()
    }

    /// The stream underneath, mutably; reading or writing it directly
    /// bypasses the buffers.
    pub fn get_mut(&mut self) -> &mut RW {
        self.inner.get_mut().get_mut()
    }

    /// The stream underneath, pinned. Ours needs `RW: Unpin` (reaching
    /// through the buffers otherwise takes `unsafe`); Tokio's does not.
    pub fn get_pin_mut(self: Pin<&mut Self>) -> Pin<&mut RW>
    where
        RW: Unpin,
    {
        Pin::new(Pin::into_inner(self).get_mut())
    }

    /// The stream; buffered bytes not yet read or flushed are lost.
    pub fn into_inner(self) -> RW {
        self.inner.into_inner().into_inner()
    }
}

/// A `BufStream` from the same two buffers built by hand, keeping what
/// the reader has read ahead and what the writer has not yet flushed.
/// Ours needs `RW: Unpin`, as [`BufReader::into_inner`](crate::io::BufReader::into_inner)
/// does; Tokio's does not. The other nesting, a `BufWriter` around a
/// `BufReader`, Tokio also converts and ours does not: `futures::io`'s
/// `BufWriter` cannot be rebuilt around the reader with its buffer.
impl<RW: Unpin> From<crate::io::BufReader<BufWriter<RW>>> for BufStream<RW> {
    fn from(reader: crate::io::BufReader<BufWriter<RW>>) -> BufStream<RW> {
        BufStream {
            inner: reader.into_unboxed(),
        }
    }
}

impl<RW: AsyncRead + AsyncWrite + Unpin> AsyncRead for BufStream<RW> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut [u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.inner).poll_read(cx, buf)
    }
}

impl<RW: AsyncRead + AsyncWrite + Unpin> AsyncBufRead for BufStream<RW> {
    fn poll_fill_buf(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<&[u8]>> {
        Pin::new(&mut self.get_mut().inner).poll_fill_buf(cx)
    }

    fn consume(mut self: Pin<&mut Self>, amt: usize) {
        Pin::new(&mut self.inner).consume(amt)
    }
}

impl<RW: AsyncRead + AsyncWrite + Unpin> AsyncWrite for BufStream<RW> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write_vectored(cx, bufs)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_close(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_close(cx)
    }
}

/// Seeks the stream underneath, as Tokio's `BufStream` does: bytes still
/// in the write buffer are written out first, and the read buffer is
/// discarded, even when the new position falls inside it, so that
/// `into_inner` right after a seek gives the stream at that position.
/// `SeekFrom::Current` counts from where the caller has read to (what it
/// consumed), not from where the read-ahead left the stream: the
/// `BufReader` outside subtracts what it still holds.
impl<RW: AsyncRead + AsyncWrite + AsyncSeek + Unpin> AsyncSeek for BufStream<RW> {
    fn poll_seek(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        pos: SeekFrom,
    ) -> Poll<io::Result<u64>> {
        Pin::new(&mut self.inner).poll_seek(cx, pos)
    }
}
