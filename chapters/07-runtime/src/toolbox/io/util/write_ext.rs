//! `AsyncWriteExt`: Tokio's writing methods, on every `AsyncWrite`.
//!
//! The same pattern as `read_ext.rs`: the trait a stream implements has
//! poll methods (`poll_write`, `poll_flush`, `poll_close`), and the
//! extension trait, implemented for every writer, turns each into an
//! awaitable method. `write`, `write_vectored` and `flush` reuse
//! `futures::io`'s futures, whose outputs are Tokio's; `shutdown` is
//! Tokio's name for what `futures::io` calls `close`, and its future is
//! written here; so are the integer writers, and `write_all`, because
//! Tokio's tries a write again when it fails with `Interrupted` ("Errors
//! of kind `Interrupted` are ignored and the write is retried") where
//! `futures::io`'s ends with the error. Every writer of a whole buffer
//! here (`write_all`, `write_all_buf`, the integers) retries the same way.
//!
//! Book: Chapter 8, "Sockets", section "Tokio's names: the extension traits".

use bytes::Buf;
use bytes::buf::Take;
use futures::io::{AsyncWrite, Flush, Write, WriteVectored};
use std::future::Future;
use std::io::{self, Cursor, IoSlice};
use std::pin::Pin;
use std::task::{Context, Poll, ready};

/// One method per integer type: encode with `$to` (`to_be_bytes` or
/// `to_le_bytes`) into a [`WriteInt`], which writes every byte.
macro_rules! write_int {
    ($($(#[$doc:meta])* fn $name:ident($ty:ty) = $to:ident;)*) => {
        $(
            $(#[$doc])*
            ///
            /// A write that accepts no byte is an error of kind
            /// [`WriteZero`](io::ErrorKind::WriteZero); one that fails with
            /// `Interrupted` is tried again. Not cancel safe for
            /// more than one byte: dropped part-way, the bytes already
            /// written are gone and the rest are not sent.
            fn $name(&mut self, n: $ty) -> WriteInt<'_, Self>
            where
                Self: Unpin,
            {
                WriteInt::new(self, &n.$to())
            }
        )*
    };
}

/// Writing methods for every [`AsyncWrite`], with Tokio's names and
/// signatures (`tokio::io::AsyncWriteExt`).
pub trait AsyncWriteExt: AsyncWrite {
    futures_io_methods! {
        AsyncWriteExt;

        /// Writes some of `buf` and returns how many bytes were accepted, which
        /// may be fewer than `buf.len()`.
        ///
        /// # Cancel safety
        ///
        /// Cancel safe: if the future is dropped before it completes, nothing
        /// was written.
        fn write<'a>(&'a mut self, buf: &'a [u8]) -> Write<'a, Self>;

        /// Writes some of `bufs`, in order, as one operation where the writer
        /// supports it (`writev`), and returns how many bytes were accepted.
        ///
        /// # Cancel safety
        ///
        /// Cancel safe, as [`write`](Self::write).
        fn write_vectored<'a>(&'a mut self, bufs: &'a [IoSlice<'a>]) -> WriteVectored<'a, Self>;

        /// Waits until everything buffered in this writer (a [`BufWriter`]'s
        /// buffer, for example) has reached the device underneath.
        ///
        /// # Cancel safety
        ///
        /// Cancel safe: flushing again later finishes the job.
        ///
        /// [`BufWriter`]: crate::io::BufWriter
        fn flush(&mut self) -> Flush<'_, Self>;
    }

    /// Writes the whole of `buf`, calling `poll_write` until it is all
    /// accepted. A write that accepts no byte is an error of kind
    /// [`WriteZero`](io::ErrorKind::WriteZero); one that fails with
    /// `Interrupted` is tried again; any other error ends the call.
    ///
    /// # Cancel safety
    ///
    /// Not cancel safe: dropped part-way, some prefix of `buf` was written
    /// and the caller cannot know how much.
    fn write_all<'a>(&'a mut self, buf: &'a [u8]) -> WriteAll<'a, Self>
    where
        Self: Unpin,
    {
        WriteAll { writer: self, buf }
    }

    /// Writes some of `buf` (a `Bytes`, a `BytesMut`, a `Cursor`, a
    /// `Chain` of them, ...) in one write, vectored over its chunks, and
    /// advances `buf` past what was written; returns how many bytes, 0 if
    /// `buf` had none left.
    ///
    /// # Cancel safety
    ///
    /// Cancel safe: `buf` is advanced only by what was written.
    fn write_buf<'a, B>(&'a mut self, buf: &'a mut B) -> WriteBuf<'a, Self, B>
    where
        Self: Unpin,
        B: bytes::Buf,
    {
        WriteBuf { writer: self, buf }
    }

    /// Writes the whole of `buf`, advancing it as each write is accepted. A
    /// write that accepts no byte is an error of kind
    /// [`WriteZero`](io::ErrorKind::WriteZero); one that fails with
    /// `Interrupted` is tried again.
    ///
    /// # Cancel safety
    ///
    /// Not cancel safe as a way of writing it all, but nothing is lost:
    /// dropped part-way, `buf` has been advanced past exactly what was
    /// written, and the rest can be written later.
    fn write_all_buf<'a, B>(&'a mut self, buf: &'a mut B) -> WriteAllBuf<'a, Self, B>
    where
        Self: Unpin,
        B: bytes::Buf,
    {
        WriteAllBuf { writer: self, buf }
    }

    /// Shuts the writer down: a socket closes its write direction, so that
    /// the peer reads end of file; a buffering writer flushes first. This is
    /// Tokio's name for what the `futures::io` trait calls `poll_close`.
    fn shutdown(&mut self) -> Shutdown<'_, Self>
    where
        Self: Unpin,
    {
        Shutdown { writer: self }
    }

    write_int! {
        /// Writes one byte.
        fn write_u8(u8) = to_be_bytes;
        /// Writes one signed byte.
        fn write_i8(i8) = to_be_bytes;
        /// Writes a big-endian `u16`.
        fn write_u16(u16) = to_be_bytes;
        /// Writes a big-endian `i16`.
        fn write_i16(i16) = to_be_bytes;
        /// Writes a big-endian `u32`.
        fn write_u32(u32) = to_be_bytes;
        /// Writes a big-endian `i32`.
        fn write_i32(i32) = to_be_bytes;
        /// Writes a big-endian `u64`.
        fn write_u64(u64) = to_be_bytes;
        /// Writes a big-endian `i64`.
        fn write_i64(i64) = to_be_bytes;
        /// Writes a big-endian `u128`.
        fn write_u128(u128) = to_be_bytes;
        /// Writes a big-endian `i128`.
        fn write_i128(i128) = to_be_bytes;
        /// Writes a big-endian `f32`.
        fn write_f32(f32) = to_be_bytes;
        /// Writes a big-endian `f64`.
        fn write_f64(f64) = to_be_bytes;
        /// Writes a little-endian `u16`.
        fn write_u16_le(u16) = to_le_bytes;
        /// Writes a little-endian `i16`.
        fn write_i16_le(i16) = to_le_bytes;
        /// Writes a little-endian `u32`.
        fn write_u32_le(u32) = to_le_bytes;
        /// Writes a little-endian `i32`.
        fn write_i32_le(i32) = to_le_bytes;
        /// Writes a little-endian `u64`.
        fn write_u64_le(u64) = to_le_bytes;
        /// Writes a little-endian `i64`.
        fn write_i64_le(i64) = to_le_bytes;
        /// Writes a little-endian `u128`.
        fn write_u128_le(u128) = to_le_bytes;
        /// Writes a little-endian `i128`.
        fn write_i128_le(i128) = to_le_bytes;
        /// Writes a little-endian `f32`.
        fn write_f32_le(f32) = to_le_bytes;
        /// Writes a little-endian `f64`.
        fn write_f64_le(f64) = to_le_bytes;
    }
}

/// Every `AsyncWrite`, sized or not, gets the methods.
impl<W: AsyncWrite + ?Sized> AsyncWriteExt for W {}

/// The future of [`AsyncWriteExt::shutdown`].
#[must_use = "futures do nothing unless you `.await` or poll them"]
pub struct Shutdown<'a, W: ?Sized> {
    writer: &'a mut W,
}

impl<W: AsyncWrite + Unpin + ?Sized> Future for Shutdown<'_, W> {
    type Output = io::Result<()>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut *self.writer).poll_close(cx)
    }
}

/// The future of `write_u8` … `write_f64_le`: the encoded bytes, written
/// as [`WriteAllBuf`] writes a buffer.
#[must_use = "futures do nothing unless you `.await` or poll them"]
pub struct WriteInt<'a, W: ?Sized> {
    writer: &'a mut W,
    /// The bytes not yet written: a buffer with room for the largest type,
    /// `u128`, limited to the type's size.
    bytes: Take<Cursor<[u8; 16]>>,
}

impl<'a, W: ?Sized> WriteInt<'a, W> {
    fn new(writer: &'a mut W, bytes: &[u8]) -> Self {
        let mut buf = [0; 16];
        buf[..bytes.len()].copy_from_slice(bytes);
        WriteInt {
            writer,
            bytes: Cursor::new(buf).take(bytes.len()),
        }
    }
}

impl<W: AsyncWrite + Unpin + ?Sized> Future for WriteInt<'_, W> {
    type Output = io::Result<()>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = &mut *self;
        poll_write_all(&mut *this.writer, cx, &mut this.bytes)
    }
}

/// The future of [`AsyncWriteExt::write_all`].
#[must_use = "futures do nothing unless you `.await` or poll them"]
pub struct WriteAll<'a, W: ?Sized> {
    writer: &'a mut W,
    /// What is left to write.
    buf: &'a [u8],
}

impl<W: AsyncWrite + Unpin + ?Sized> Future for WriteAll<'_, W> {
    type Output = io::Result<()>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = &mut *self;
        poll_write_all(&mut *this.writer, cx, &mut this.buf)
    }
}

/// The future of [`AsyncWriteExt::write_buf`].
#[must_use = "futures do nothing unless you `.await` or poll them"]
pub struct WriteBuf<'a, W: ?Sized, B> {
    writer: &'a mut W,
    buf: &'a mut B,
}

/// How many of a buffer's chunks [`WriteBuf`] hands to one vectored write
/// (Tokio's limit too).
const MAX_VECTOR_ELEMENTS: usize = 64;

impl<W: AsyncWrite + Unpin + ?Sized, B: bytes::Buf> Future for WriteBuf<'_, W, B> {
    type Output = io::Result<usize>;

    /// One vectored write of the buffer's chunks, as Tokio's `write_buf`
    /// does for a writer that writes vectored: a buffer in pieces (a
    /// `Chain`, a queue of `Bytes`) goes out whole in one call when the
    /// writer takes it all. A writer that does not write vectored (the
    /// trait's default `poll_write_vectored`) writes the first non-empty
    /// chunk, as a `poll_write` of `chunk()` would.
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<usize>> {
        let this = &mut *self;
        if !this.buf.has_remaining() {
            return Poll::Ready(Ok(0));
        }
        let n = {
            let mut slices = [IoSlice::new(&[]); MAX_VECTOR_ELEMENTS];
            let count = this.buf.chunks_vectored(&mut slices);
            ready!(Pin::new(&mut *this.writer).poll_write_vectored(cx, &slices[..count]))?
        };
        this.buf.advance(n.min(this.buf.remaining()));
        Poll::Ready(Ok(n))
    }
}

/// The future of [`AsyncWriteExt::write_all_buf`].
#[must_use = "futures do nothing unless you `.await` or poll them"]
pub struct WriteAllBuf<'a, W: ?Sized, B> {
    writer: &'a mut W,
    buf: &'a mut B,
}

impl<W: AsyncWrite + Unpin + ?Sized, B: bytes::Buf> Future for WriteAllBuf<'_, W, B> {
    type Output = io::Result<()>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = &mut *self;
        poll_write_all(&mut *this.writer, cx, this.buf)
    }
}

/// Writes all that remains of `buf`, advancing it past what each write
/// accepts, so that a poll after `Pending` carries on: the loop of
/// `write_all`, `write_all_buf` and of the integer writers. A write that
/// fails with `Interrupted` is tried again, as Tokio's are.
fn poll_write_all<W: AsyncWrite + Unpin + ?Sized, B: Buf + ?Sized>(
    writer: &mut W,
    cx: &mut Context<'_>,
    buf: &mut B,
) -> Poll<io::Result<()>> {
    while buf.has_remaining() {
        let n = match ready!(Pin::new(&mut *writer).poll_write(cx, buf.chunk())) {
            Err(err) if err.kind() == io::ErrorKind::Interrupted => continue,
            written => written?,
        };
        if n == 0 {
            return Poll::Ready(Err(io::ErrorKind::WriteZero.into()));
        }
        // A faulty writer may claim more than it was given.
        buf.advance(n.min(buf.remaining()));
    }
    Poll::Ready(Ok(()))
}
