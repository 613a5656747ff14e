//! [`split`]: one stream, two owners, one reading and one writing.
//!
//! A `TcpStream` has its own `into_split`, which needs no lock because the
//! kernel lets two threads use one socket at once. A generic stream (a
//! `BufReader`, a TLS session, a [`DuplexStream`](crate::io::DuplexStream))
//! promises no such thing: `poll_read` and `poll_write` both take
//! `Pin<&mut Self>`. So `split` puts the stream behind a mutex shared by an
//! `Arc`, and each half locks it for the length of one poll. The lock is
//! never held across an `.await` (a poll does not wait), so a plain
//! `std::sync::Mutex` is enough; it is the price of being generic, which is
//! why Tokio's documentation, and this one, suggest a type's own split where
//! it has one.
//!
//! The stream sits in a `Pin<Box<_>>`, so a stream that is not `Unpin` can
//! be split without `unsafe`; getting it back with
//! [`unsplit`](ReadHalf::unsplit) needs `Unpin`, as in Tokio.
//!
//! Book: Chapter 8, "Sockets", section "Tokio's names: the extension traits".

use futures::io::{AsyncRead, AsyncWrite};
use std::fmt;
use std::io::{self, IoSlice};
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll};

/// The shared stream.
struct Inner<T> {
    stream: Mutex<Pin<Box<T>>>,
}

impl<T> Inner<T> {
    /// Locks the stream; a half that panicked mid-poll leaves the stream as
    /// the stream's own code left it, so a poisoned lock is used anyway.
    fn lock(&self) -> MutexGuard<'_, Pin<Box<T>>> {
        self.stream
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// The reading half made by [`split`].
pub struct ReadHalf<T> {
    inner: Arc<Inner<T>>,
}

/// The writing half made by [`split`].
pub struct WriteHalf<T> {
    inner: Arc<Inner<T>>,
}

/// Splits a stream that reads and writes into a reading half and a writing
/// half, each of which can move to its own task.
///
/// ```
/// use rt::io::{AsyncReadExt, AsyncWriteExt};
///
/// # rt::Runtime::new().unwrap().block_on(async {
/// let (near, mut far) = rt::io::duplex(64);
/// let (mut reader, mut writer) = rt::io::split(near);
/// rt::spawn(async move { writer.write_all(b"ping").await }).await.unwrap()?;
/// let mut got = [0u8; 4];
/// far.read_exact(&mut got).await?;
/// far.write_all(b"pong").await?;
/// reader.read_exact(&mut got).await?;
/// assert_eq!(&got, b"pong");
/// # Ok::<(), std::io::Error>(())
/// # }).unwrap();
/// ```
pub fn split<T>(stream: T) -> (ReadHalf<T>, WriteHalf<T>)
where
    T: AsyncRead + AsyncWrite,
{
    let inner = Arc::new(Inner {
        stream: Mutex::new(Box::pin(stream)),
    });
    (
        ReadHalf {
            inner: inner.clone(),
        },
        WriteHalf { inner },
    )
}

impl<T> ReadHalf<T> {
    /// True if `other` came from the same [`split`] call.
    pub fn is_pair_of(&self, other: &WriteHalf<T>) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
    }

    /// Puts the two halves back together.
    ///
    /// # Panics
    ///
    /// If `writer` came from another [`split`] call (a programming error,
    /// as in Tokio).
    pub fn unsplit(self, writer: WriteHalf<T>) -> T
    where
        T: Unpin,
    {
        assert!(
            self.is_pair_of(&writer),
            "Unrelated `split::Write` passed to `split::Read::unsplit`."
        );
        drop(writer);
        let inner = Arc::try_unwrap(self.inner)
            .ok()
            .expect("unsplit: both halves are here, so no other owner is left");
        let stream = inner
            .stream
            .into_inner()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        *Pin::into_inner(stream)
    }
}

impl<T> WriteHalf<T> {
    /// True if `other` came from the same [`split`] call.
    pub fn is_pair_of(&self, other: &ReadHalf<T>) -> bool {
        other.is_pair_of(self)
    }
}

impl<T: AsyncRead> AsyncRead for ReadHalf<T> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut [u8],
    ) -> Poll<io::Result<usize>> {
        self.inner.lock().as_mut().poll_read(cx, buf)
    }
}

impl<T: AsyncWrite> AsyncWrite for WriteHalf<T> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        self.inner.lock().as_mut().poll_write(cx, buf)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        self.inner.lock().as_mut().poll_write_vectored(cx, bufs)
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.inner.lock().as_mut().poll_flush(cx)
    }

    fn poll_close(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.inner.lock().as_mut().poll_close(cx)
    }
}

impl<T> fmt::Debug for ReadHalf<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("split::ReadHalf").finish_non_exhaustive()
    }
}

impl<T> fmt::Debug for WriteHalf<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("split::WriteHalf").finish_non_exhaustive()
    }
}
