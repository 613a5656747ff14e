//! `AsyncReadExt`: Tokio's reading methods, on every `AsyncRead`.
//!
//! The trait a stream implements has one method, `poll_read`: "copy what
//! you have into this buffer, or register my waker and say `Pending`". That
//! is the right shape for a runtime and the wrong one for a program, which
//! wants `let n = stream.read(&mut buf).await?`. The *extension trait*
//! bridges the two: it is implemented once for every `AsyncRead` (a blanket
//! impl), and each of its methods returns a small hand-written future that
//! calls `poll_read` until its job is done. `read_exact`'s future below is
//! the whole pattern in a dozen lines: its state is how much of the buffer
//! is already filled, and each poll carries on from there.
//!
//! The futures borrow the reader (`&'a mut R`) and poll it through
//! `Pin::new`, so, as in Tokio, the methods need `Self: Unpin`; a reader
//! that is not `Unpin` is pinned first (`Box::pin`, `std::pin::pin!`).
//!
//! Where `futures::io` already has a future with Tokio's output type and
//! behaviour (`read`, `take`, `chain`), it is reused. `read_to_string` is
//! our own: `futures::io`'s empties `buf` when the bytes are not UTF-8,
//! where Tokio leaves it as it was. So is `read_to_end`: Tokio's, like
//! `read_exact` and the integer readers, tries a read again when it fails
//! with `Interrupted` ("Errors of kind `Interrupted` are retried"), where
//! `futures::io`'s ends with the error.
//!
//! Book: Chapter 8, "Sockets", section "Tokio's names: the extension traits".

use futures::io::{AsyncRead, Chain, Read, Take};
use std::future::Future;
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll, ready};

/// One method per integer type: a [`ReadInt`] of the type's size that
/// decodes with `$from` (`from_be_bytes` or `from_le_bytes`). End of file
/// part-way is `UnexpectedEof`, as for `read_exact`.
macro_rules! read_int {
    ($($(#[$doc:meta])* fn $name:ident -> $ty:ty = $from:ident;)*) => {
        $(
            $(#[$doc])*
            ///
            /// End of file before the last byte is an error of kind
            /// [`UnexpectedEof`](io::ErrorKind::UnexpectedEof); a read
            /// that fails with `Interrupted` is tried again. Reading
            /// more than one byte is not cancel safe: dropped part-way,
            /// the bytes already read are lost.
            fn $name(&mut self) -> ReadInt<'_, Self, $ty>
            where
                Self: Unpin,
            {
                ReadInt::new(self, size_of::<$ty>(), |bytes| {
                    <$ty>::$from(bytes.try_into().expect("ReadInt passes exactly the type's size"))
                })
            }
        )*
    };
}

/// Reading methods for every [`AsyncRead`], with Tokio's names and
/// signatures (`tokio::io::AsyncReadExt`).
///
/// ```
/// use rt::io::{AsyncReadExt, AsyncWriteExt};
///
/// # rt::Runtime::new().unwrap().block_on(async {
/// let (mut a, mut b) = rt::io::duplex(64);
/// a.write_u32(7).await?;
/// a.write_all(b"hi").await?;
/// assert_eq!(b.read_u32().await?, 7);
/// let mut two = [0u8; 2];
/// b.read_exact(&mut two).await?;
/// assert_eq!(&two, b"hi");
/// # Ok::<(), std::io::Error>(())
/// # }).unwrap();
/// ```
pub trait AsyncReadExt: AsyncRead {
    futures_io_methods! {
        AsyncReadExt;

        /// Reads some bytes into `buf` and returns how many: at most
        /// `buf.len()`, and 0 only at end of file (or if `buf` is empty).
        ///
        /// # Cancel safety
        ///
        /// Cancel safe: if the future is dropped before it completes (another
        /// branch of `select!` won), no data was read.
        fn read<'a>(&'a mut self, buf: &'a mut [u8]) -> Read<'a, Self>;
    }

    /// Reads until end of file, appending to `buf`; returns the number of
    /// bytes appended. A read that fails with `Interrupted` is tried
    /// again; on any other error the bytes read so far stay in `buf`.
    ///
    /// # Cancel safety
    ///
    /// Not cancel safe as a way of reading a whole stream: bytes read before
    /// the future was dropped are in `buf`, and the stream is part-consumed.
    fn read_to_end<'a>(&'a mut self, buf: &'a mut Vec<u8>) -> ReadToEnd<'a, Self>
    where
        Self: Unpin,
    {
        let start_len = buf.len();
        ReadToEnd {
            reader: self,
            buf,
            start_len,
        }
    }

    /// Reads until end of file, appending to `buf`; returns the number of
    /// bytes appended. If the bytes are not valid UTF-8, returns an error of
    /// kind [`InvalidData`](io::ErrorKind::InvalidData) and leaves `buf` as
    /// it was; so does a read error (Tokio: "`buf` is unchanged").
    ///
    /// # Cancel safety
    ///
    /// Not cancel safe: bytes read before the future was dropped are lost,
    /// and `buf` is as it was.
    fn read_to_string<'a>(&'a mut self, buf: &'a mut String) -> ReadToString<'a, Self>
    where
        Self: Unpin,
    {
        ReadToString {
            reader: self,
            buf,
            bytes: Vec::new(),
            filled: 0,
        }
    }

    /// Reads exactly `buf.len()` bytes and returns that count. End of file
    /// before the buffer is full is an error of kind
    /// [`UnexpectedEof`](io::ErrorKind::UnexpectedEof); the contents of
    /// `buf` are then unspecified. A read that fails with `Interrupted` is
    /// tried again.
    ///
    /// # Cancel safety
    ///
    /// Not cancel safe: dropped part-way, the bytes already read are in
    /// `buf` but the caller cannot know how many.
    fn read_exact<'a>(&'a mut self, buf: &'a mut [u8]) -> ReadExact<'a, Self>
    where
        Self: Unpin,
    {
        ReadExact {
            reader: self,
            buf,
            filled: 0,
        }
    }

    /// Reads some bytes into the spare capacity of `buf` (a `BytesMut`, a
    /// `Vec<u8>`, ...) and advances it; returns how many, 0 at end of file
    /// or when `buf` has no room left. One read, of at most what
    /// `buf.chunk_mut()` offers, as Tokio's: the room a `Vec` already has,
    /// or 64 bytes more when it is full. Ours reads into a buffer of that
    /// size (on the stack up to 8 KiB) and copies what arrived, since
    /// `AsyncRead` wants initialized memory.
    ///
    /// # Cancel safety
    ///
    /// Cancel safe: if the future is dropped before it completes, no data
    /// was read.
    fn read_buf<'a, B>(&'a mut self, buf: &'a mut B) -> ReadBufFuture<'a, Self, B>
    where
        Self: Unpin,
        B: bytes::BufMut + ?Sized,
    {
        ReadBufFuture { reader: self, buf }
    }

    /// A reader that yields at most `limit` bytes of this one, then end of
    /// file.
    fn take(self, limit: u64) -> Take<Self>
    where
        Self: Sized,
    {
        futures::io::AsyncReadExt::take(self, limit)
    }

    /// A reader that yields all of this one, then all of `next`.
    fn chain<R: AsyncRead>(self, next: R) -> Chain<Self, R>
    where
        Self: Sized,
    {
        futures::io::AsyncReadExt::chain(self, next)
    }

    read_int! {
        /// Reads one byte. Cancel safe: the byte is either read whole or not
        /// at all.
        fn read_u8 -> u8 = from_be_bytes;
        /// Reads one signed byte. Cancel safe, as [`read_u8`](Self::read_u8).
        fn read_i8 -> i8 = from_be_bytes;
    }

    read_int! {
        /// Reads a big-endian `u16`.
        fn read_u16 -> u16 = from_be_bytes;
        /// Reads a big-endian `i16`.
        fn read_i16 -> i16 = from_be_bytes;
        /// Reads a big-endian `u32`.
        fn read_u32 -> u32 = from_be_bytes;
        /// Reads a big-endian `i32`.
        fn read_i32 -> i32 = from_be_bytes;
        /// Reads a big-endian `u64`.
        fn read_u64 -> u64 = from_be_bytes;
        /// Reads a big-endian `i64`.
        fn read_i64 -> i64 = from_be_bytes;
        /// Reads a big-endian `u128`.
        fn read_u128 -> u128 = from_be_bytes;
        /// Reads a big-endian `i128`.
        fn read_i128 -> i128 = from_be_bytes;
        /// Reads a big-endian `f32`.
        fn read_f32 -> f32 = from_be_bytes;
        /// Reads a big-endian `f64`.
        fn read_f64 -> f64 = from_be_bytes;
        /// Reads a little-endian `u16`.
        fn read_u16_le -> u16 = from_le_bytes;
        /// Reads a little-endian `i16`.
        fn read_i16_le -> i16 = from_le_bytes;
        /// Reads a little-endian `u32`.
        fn read_u32_le -> u32 = from_le_bytes;
        /// Reads a little-endian `i32`.
        fn read_i32_le -> i32 = from_le_bytes;
        /// Reads a little-endian `u64`.
        fn read_u64_le -> u64 = from_le_bytes;
        /// Reads a little-endian `i64`.
        fn read_i64_le -> i64 = from_le_bytes;
        /// Reads a little-endian `u128`.
        fn read_u128_le -> u128 = from_le_bytes;
        /// Reads a little-endian `i128`.
        fn read_i128_le -> i128 = from_le_bytes;
        /// Reads a little-endian `f32`.
        fn read_f32_le -> f32 = from_le_bytes;
        /// Reads a little-endian `f64`.
        fn read_f64_le -> f64 = from_le_bytes;
    }
}

/// Every `AsyncRead`, sized or not, gets the methods.
impl<R: AsyncRead + ?Sized> AsyncReadExt for R {}

/// The future of [`AsyncReadExt::read_exact`].
// ANCHOR: read_exact
#[must_use = "futures do nothing unless you `.await` or poll them"]
pub struct ReadExact<'a, R: ?Sized> {
    reader: &'a mut R,
    buf: &'a mut [u8],
    /// How much of `buf` earlier polls filled: the future's whole state.
    filled: usize,
}

impl<R: AsyncRead + Unpin + ?Sized> Future for ReadExact<'_, R> {
    type Output = io::Result<usize>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<usize>> {
        let this = &mut *self; // only references inside: the future is Unpin
        // Tokio's read_exact says "early eof".
        let early_eof = || io::Error::new(io::ErrorKind::UnexpectedEof, "early eof");
        ready!(poll_fill(
            &mut *this.reader,
            cx,
            this.buf,
            &mut this.filled,
            early_eof
        ))?;
        Poll::Ready(Ok(this.filled))
    }
}

/// Reads into `buf` until it is full, `filled` counting what the polls
/// before read: the loop of `read_exact`, and of the integer readers. End
/// of file first is `eof()`: each caller's error, in Tokio's words.
fn poll_fill<R: AsyncRead + Unpin + ?Sized>(
    reader: &mut R,
    cx: &mut Context<'_>,
    buf: &mut [u8],
    filled: &mut usize,
    eof: fn() -> io::Error,
) -> Poll<io::Result<()>> {
    while *filled < buf.len() {
        // `Pending` here returns from `poll` with `filled` kept: the next
        // poll, after the waker fires, carries on where this one left off.
        let n = match ready!(Pin::new(&mut *reader).poll_read(cx, &mut buf[*filled..])) {
            Err(err) if err.kind() == io::ErrorKind::Interrupted => continue,
            read => read?,
        };
        if n == 0 {
            return Poll::Ready(Err(eof()));
        }
        *filled += n;
    }
    Poll::Ready(Ok(()))
}
// ANCHOR_END: read_exact

/// The future of [`AsyncReadExt::read_to_string`]. The bytes are read
/// into a vector of their own and appended to the string only once they
/// are all there and valid UTF-8, so an error leaves the string as it was.
#[must_use = "futures do nothing unless you `.await` or poll them"]
pub struct ReadToString<'a, R: ?Sized> {
    reader: &'a mut R,
    buf: &'a mut String,
    /// Initialised room for the bytes; the first `filled` are read.
    bytes: Vec<u8>,
    filled: usize,
}

/// The room [`ReadToString`] starts with, doubled each time it is full.
const READ_TO_STRING_FIRST_ROOM: usize = 64;

impl<R: AsyncRead + Unpin + ?Sized> Future for ReadToString<'_, R> {
    type Output = io::Result<usize>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<usize>> {
        let this = &mut *self;
        loop {
            if this.filled == this.bytes.len() {
                let room = (this.bytes.len() * 2).max(READ_TO_STRING_FIRST_ROOM);
                this.bytes.resize(room, 0);
            }
            let room = &mut this.bytes[this.filled..];
            let lent = room.len();
            match ready!(Pin::new(&mut *this.reader).poll_read(cx, room)) {
                Ok(0) => break,
                Ok(n) if n <= lent => this.filled += n,
                Ok(_) => {
                    return Poll::Ready(Err(io::Error::new(
                        io::ErrorKind::InvalidData,
                        "a read reported more bytes than it was lent",
                    )));
                }
                Err(err) if err.kind() == io::ErrorKind::Interrupted => {}
                Err(err) => return Poll::Ready(Err(err)),
            }
        }
        let read = std::str::from_utf8(&this.bytes[..this.filled]).map_err(|_| {
            io::Error::new(
                io::ErrorKind::InvalidData,
                "stream did not contain valid UTF-8",
            )
        })?;
        this.buf.push_str(read);
        let n = this.filled;
        this.bytes = Vec::new();
        this.filled = 0;
        Poll::Ready(Ok(n))
    }
}

/// The future of [`AsyncReadExt::read_to_end`]: reads straight into the
/// end of `buf`, growing it as it fills.
#[must_use = "futures do nothing unless you `.await` or poll them"]
pub struct ReadToEnd<'a, R: ?Sized> {
    reader: &'a mut R,
    buf: &'a mut Vec<u8>,
    /// The length of `buf` before the call: the count is what came after.
    start_len: usize,
}

/// The room [`ReadToEnd`] makes at least, when `buf` has less spare.
const READ_TO_END_MIN_ROOM: usize = 32;

impl<R: AsyncRead + Unpin + ?Sized> Future for ReadToEnd<'_, R> {
    type Output = io::Result<usize>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<usize>> {
        let this = &mut *self;
        loop {
            let len = this.buf.len();
            if this.buf.capacity() - len < READ_TO_END_MIN_ROOM {
                this.buf.reserve(READ_TO_END_MIN_ROOM);
            }
            // Lend the spare capacity, zeroed, then keep only what was read:
            // `buf` never holds bytes that did not come from the reader.
            let capacity = this.buf.capacity();
            this.buf.resize(capacity, 0);
            let read = Pin::new(&mut *this.reader).poll_read(cx, &mut this.buf[len..]);
            let n = match &read {
                Poll::Ready(Ok(n)) => (*n).min(capacity - len),
                _ => 0,
            };
            this.buf.truncate(len + n);
            match ready!(read) {
                Ok(0) => return Poll::Ready(Ok(this.buf.len() - this.start_len)),
                Ok(_) => {}
                Err(err) if err.kind() == io::ErrorKind::Interrupted => {}
                Err(err) => return Poll::Ready(Err(err)),
            }
        }
    }
}

/// The future of [`AsyncReadExt::read_buf`].
#[must_use = "futures do nothing unless you `.await` or poll them"]
pub struct ReadBufFuture<'a, R: ?Sized, B: ?Sized> {
    reader: &'a mut R,
    buf: &'a mut B,
}

/// The largest read [`ReadBufFuture`] makes through a buffer on the stack.
const READ_BUF_STACK: usize = 8 * 1024;

impl<R: AsyncRead + Unpin + ?Sized, B: bytes::BufMut + ?Sized> Future for ReadBufFuture<'_, R, B> {
    type Output = io::Result<usize>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<usize>> {
        let this = &mut *self;
        if !this.buf.has_remaining_mut() {
            return Poll::Ready(Ok(0));
        }
        // One read of at most the buffer's current chunk, as Tokio's.
        let room = this.buf.chunk_mut().len();
        let mut on_stack = [0u8; READ_BUF_STACK];
        let mut on_heap = Vec::new();
        let chunk = if room <= READ_BUF_STACK {
            &mut on_stack[..room]
        } else {
            on_heap.resize(room, 0);
            &mut on_heap[..]
        };
        let n = ready!(Pin::new(&mut *this.reader).poll_read(cx, chunk))?;
        // A faulty reader may claim more than it was given.
        let read = chunk.get(..n).ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::InvalidData,
                "a read reported more bytes than it was lent",
            )
        })?;
        this.buf.put_slice(read);
        Poll::Ready(Ok(n))
    }
}

/// The future of `read_u8` … `read_f64_le`: [`ReadExact`]'s loop into a
/// small array, then a decode.
#[must_use = "futures do nothing unless you `.await` or poll them"]
pub struct ReadInt<'a, R: ?Sized, T> {
    reader: &'a mut R,
    /// Room for the largest type, `u128`.
    buf: [u8; 16],
    /// The type's size in bytes.
    len: usize,
    filled: usize,
    decode: fn(&[u8]) -> T,
}

impl<'a, R: ?Sized, T> ReadInt<'a, R, T> {
    fn new(reader: &'a mut R, len: usize, decode: fn(&[u8]) -> T) -> Self {
        ReadInt {
            reader,
            buf: [0; 16],
            len,
            filled: 0,
            decode,
        }
    }
}

impl<R: AsyncRead + Unpin + ?Sized, T> Future for ReadInt<'_, R, T> {
    type Output = io::Result<T>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<T>> {
        let this = &mut *self;
        let bytes = &mut this.buf[..this.len];
        // Tokio's integer readers give the kind's own message.
        let eof = || io::ErrorKind::UnexpectedEof.into();
        ready!(poll_fill(
            &mut *this.reader,
            cx,
            bytes,
            &mut this.filled,
            eof
        ))?;
        Poll::Ready(Ok((this.decode)(bytes)))
    }
}
