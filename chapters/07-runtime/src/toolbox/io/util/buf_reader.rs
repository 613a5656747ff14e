//! [`BufReader`]: a reader with a buffer in front, for the delimiter
//! methods (`read_line`, `lines`) and for many small reads.
//!
//! The buffering is `futures::io`'s `BufReader`, whose reads, `fill_buf`,
//! `consume` and seeks behave as Tokio's (a read at least as large as the
//! buffer, with the buffer empty, goes straight to the reader; a seek
//! discards the buffer and counts `SeekFrom::Current` from what the caller
//! consumed). Ours wraps it for the one place it differs from Tokio's:
//! `with_capacity(0, ..)` panics. A buffer with no room would read nothing,
//! so `fill_buf` would be empty at once and `lines()` would end before the
//! first line, silently; Tokio documents the panic instead ("Panics if
//! `capacity` is zero").
//!
//! The wrapped reader sits in a `Pin<Box<_>>`, as `Timeout`'s future does,
//! so a `BufReader` is `Unpin` whatever it reads from and reaching it takes
//! no `unsafe`; the price is that [`get_mut`](BufReader::get_mut) and
//! [`into_inner`](BufReader::into_inner) need `R: Unpin` (every rt stream
//! is), where Tokio's do not.
//!
//! Book: Chapter 8, "Sockets", section "Tokio's names: the extension traits".

use futures::io::{AsyncBufRead, AsyncRead, AsyncSeek, AsyncWrite, IoSlice, IoSliceMut};
use std::fmt;
use std::io::{self, SeekFrom};
use std::pin::Pin;
use std::task::{Context, Poll};

/// The buffer of [`BufReader::new`]: 8 KiB, Tokio's default too.
const DEFAULT_CAPACITY: usize = 8 * 1024;

/// Adds a read buffer to any reader (`tokio::io::BufReader`).
///
/// When it is dropped, or taken apart with
/// [`into_inner`](Self::into_inner), the bytes it read ahead are lost.
pub struct BufReader<R> {
    inner: Pin<Box<futures::io::BufReader<R>>>,
}

impl<R: AsyncRead> BufReader<R> {
    /// A reader with a buffer of 8 KiB.
    pub fn new(inner: R) -> Self {
        Self::with_capacity(DEFAULT_CAPACITY, inner)
    }

    /// A reader with a buffer of `capacity` bytes.
    ///
    /// # Panics
    ///
    /// If `capacity` is zero, at the caller's line (as Tokio's).
    #[track_caller]
    pub fn with_capacity(capacity: usize, inner: R) -> Self {
        assert!(
            capacity > 0,
            "BufReader: capacity must be greater than zero"
        );
        BufReader {
            inner: Box::pin(futures::io::BufReader::with_capacity(capacity, inner)),
        }
    }
}

impl<R> BufReader<R> {
    /// The reader underneath. Reading it directly skips what is buffered.
    pub fn get_ref(&self) -> &R {
        self.inner.get_ref()
    }

    /// The reader underneath, mutably. Ours needs `R: Unpin` (the reader
    /// is pinned in its box); Tokio's does not.
    pub fn get_mut(&mut self) -> &mut R
    where
        R: Unpin,
    {
        Pin::get_mut(self.inner.as_mut()).get_mut()
    }

    /// The reader underneath, pinned.
    pub fn get_pin_mut(self: Pin<&mut Self>) -> Pin<&mut R> {
        self.get_mut().inner.as_mut().get_pin_mut()
    }

    /// The reader; the bytes read ahead are lost. Ours needs `R: Unpin`,
    /// as [`get_mut`](Self::get_mut) does.
    pub fn into_inner(self) -> R
    where
        R: Unpin,
    {
        (*Pin::into_inner(self.inner)).into_inner()
    }

    /// The bytes read ahead and not yet consumed; it does not read more.
    pub fn buffer(&self) -> &[u8] {
        self.inner.buffer()
    }

    /// The `futures::io` reader inside, out of its box, with what it has
    /// read ahead: for `BufStream`'s `From`.
    pub(super) fn into_unboxed(self) -> futures::io::BufReader<R>
    where
        R: Unpin,
    {
        *Pin::into_inner(self.inner)
    }
}

impl<R: AsyncRead> AsyncRead for BufReader<R> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut [u8],
    ) -> Poll<io::Result<usize>> {
        self.get_mut().inner.as_mut().poll_read(cx, buf)
    }

    fn poll_read_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &mut [IoSliceMut<'_>],
    ) -> Poll<io::Result<usize>> {
        self.get_mut().inner.as_mut().poll_read_vectored(cx, bufs)
    }
}

impl<R: AsyncRead> AsyncBufRead for BufReader<R> {
    fn poll_fill_buf(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<&[u8]>> {
        self.get_mut().inner.as_mut().poll_fill_buf(cx)
    }

    fn consume(self: Pin<&mut Self>, amt: usize) {
        self.get_mut().inner.as_mut().consume(amt)
    }
}

/// Seeks the reader underneath. The buffer is discarded, even when the new
/// position falls inside it, so that `into_inner` right after a seek gives
/// the reader at that position; `SeekFrom::Current` counts from what the
/// caller consumed, not from where the read-ahead left the reader.
impl<R: AsyncRead + AsyncSeek> AsyncSeek for BufReader<R> {
    fn poll_seek(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        pos: SeekFrom,
    ) -> Poll<io::Result<u64>> {
        self.get_mut().inner.as_mut().poll_seek(cx, pos)
    }
}

/// Writes go straight to the reader underneath, when it is also a writer.
impl<R: AsyncWrite> AsyncWrite for BufReader<R> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        self.get_mut().inner.as_mut().poll_write(cx, buf)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        self.get_mut().inner.as_mut().poll_write_vectored(cx, bufs)
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.get_mut().inner.as_mut().poll_flush(cx)
    }

    fn poll_close(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.get_mut().inner.as_mut().poll_close(cx)
    }
}

impl<R: fmt::Debug> fmt::Debug for BufReader<R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.inner.fmt(f)
    }
}
