//! A `TcpStream` in two halves: one that reads and one that writes, so that
//! reading and writing can go on at the same time (an echo server's copy
//! loop, a client that sends while it receives).
//!
//! Why is that possible without a lock? The driver keeps a reader slot and a
//! writer slot per socket (`scheduled_io.rs`), and the kernel lets one
//! thread `read` a socket while another `write`s it. So a half is nothing
//! but a reference to the stream that promises to use one direction only:
//!
//! * `split(&mut self)` lends the stream to a [`ReadHalf`] and a
//!   [`WriteHalf`] that borrow it: free, but both halves live in the
//!   caller's scope (two futures joined in one task);
//! * `into_split(self)` puts the stream in an `Arc` shared by an
//!   [`OwnedReadHalf`] and an [`OwnedWriteHalf`], which can move to two
//!   tasks. Dropping the owned write half shuts down the write direction
//!   (the peer reads end of stream), as in Tokio; `forget` drops it without
//!   that. `reunite` puts the two halves of one stream back together, and
//!   refuses (with [`ReuniteError`], handing both back) halves of two
//!   different streams.
//!
//! Book: Chapter 7, "Sockets and signals".

use super::TcpStream;
use crate::io::{Interest, Ready};
use futures::io::{AsyncRead, AsyncWrite};
use std::error::Error;
use std::fmt;
use std::io::{self, IoSlice, IoSliceMut};
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

/// The read half of a borrowed split ([`TcpStream::split`]).
#[derive(Debug)]
pub struct ReadHalf<'a>(&'a TcpStream);

/// The write half of a borrowed split ([`TcpStream::split`]). `close`
/// shuts down the write direction; dropping it does not.
#[derive(Debug)]
pub struct WriteHalf<'a>(&'a TcpStream);

// ANCHOR: owned
/// The read half of an owned split ([`TcpStream::into_split`]).
#[derive(Debug)]
pub struct OwnedReadHalf {
    stream: Arc<TcpStream>,
}

/// The write half of an owned split ([`TcpStream::into_split`]). Dropping
/// it shuts down the write direction of the stream.
#[derive(Debug)]
pub struct OwnedWriteHalf {
    stream: Arc<TcpStream>,
    shutdown_on_drop: bool,
}
// ANCHOR_END: owned

/// [`OwnedWriteHalf::reunite`] was given halves of two different streams;
/// both are handed back, unchanged.
#[derive(Debug)]
pub struct ReuniteError(pub OwnedReadHalf, pub OwnedWriteHalf);

pub(super) fn split(stream: &mut TcpStream) -> (ReadHalf<'_>, WriteHalf<'_>) {
    (ReadHalf(stream), WriteHalf(stream))
}

pub(super) fn into_split(stream: TcpStream) -> (OwnedReadHalf, OwnedWriteHalf) {
    let stream = Arc::new(stream);
    (
        OwnedReadHalf {
            stream: stream.clone(),
        },
        OwnedWriteHalf {
            stream,
            shutdown_on_drop: true,
        },
    )
}

/// The methods both halves of each kind share, delegated to the stream.
macro_rules! common {
    () => {
        /// The peer's address.
        pub fn peer_addr(&self) -> io::Result<SocketAddr> {
            self.stream().peer_addr()
        }

        /// This end's address.
        pub fn local_addr(&self) -> io::Result<SocketAddr> {
            self.stream().local_addr()
        }

        /// [`TcpStream::ready`] on the whole stream.
        pub async fn ready(&self, interest: Interest) -> io::Result<Ready> {
            self.stream().ready(interest).await
        }
    };
}

macro_rules! reading {
    () => {
        /// [`TcpStream::readable`].
        pub async fn readable(&self) -> io::Result<()> {
            self.stream().readable().await
        }

        /// [`TcpStream::try_read`].
        pub fn try_read(&self, buf: &mut [u8]) -> io::Result<usize> {
            self.stream().try_read(buf)
        }

        /// [`TcpStream::peek`].
        pub async fn peek(&self, buf: &mut [u8]) -> io::Result<usize> {
            self.stream().peek(buf).await
        }
    };
}

macro_rules! writing {
    () => {
        /// [`TcpStream::writable`].
        pub async fn writable(&self) -> io::Result<()> {
            self.stream().writable().await
        }

        /// [`TcpStream::try_write`].
        pub fn try_write(&self, buf: &[u8]) -> io::Result<usize> {
            self.stream().try_write(buf)
        }
    };
}

impl ReadHalf<'_> {
    fn stream(&self) -> &TcpStream {
        self.0
    }
    common!();
    reading!();
}

impl WriteHalf<'_> {
    fn stream(&self) -> &TcpStream {
        self.0
    }
    common!();
    writing!();
}

impl OwnedReadHalf {
    fn stream(&self) -> &TcpStream {
        &self.stream
    }
    common!();
    reading!();

    /// Puts the stream back together; see [`OwnedWriteHalf::reunite`].
    pub fn reunite(self, other: OwnedWriteHalf) -> Result<TcpStream, ReuniteError> {
        other.reunite(self)
    }
}

impl OwnedWriteHalf {
    fn stream(&self) -> &TcpStream {
        &self.stream
    }
    common!();
    writing!();

    // ANCHOR: reunite
    /// Puts the two halves of one [`into_split`](TcpStream::into_split)
    /// back into the stream; halves of different streams are refused and
    /// handed back in the error. The write direction stays open.
    pub fn reunite(mut self, other: OwnedReadHalf) -> Result<TcpStream, ReuniteError> {
        if !Arc::ptr_eq(&self.stream, &other.stream) {
            return Err(ReuniteError(other, self));
        }
        self.shutdown_on_drop = false;
        let stream = self.stream.clone();
        drop(self);
        drop(other);
        Ok(Arc::into_inner(stream).expect("the two halves held the only references"))
    }
    // ANCHOR_END: reunite

    /// Drops the write half without shutting down the write direction (it
    /// closes with the stream, when the read half is dropped too).
    pub fn forget(mut self) {
        self.shutdown_on_drop = false;
    }
}

// ANCHOR: drop
impl Drop for OwnedWriteHalf {
    fn drop(&mut self) {
        if self.shutdown_on_drop {
            // The peer reads end of stream, as when Tokio's write half
            // drops; an error (the peer already gone) has nobody to go to.
            let _ = self.stream.shutdown_write();
        }
    }
}
// ANCHOR_END: drop

impl AsRef<TcpStream> for OwnedReadHalf {
    fn as_ref(&self) -> &TcpStream {
        &self.stream
    }
}

impl AsRef<TcpStream> for OwnedWriteHalf {
    fn as_ref(&self) -> &TcpStream {
        &self.stream
    }
}

impl AsRef<TcpStream> for ReadHalf<'_> {
    fn as_ref(&self) -> &TcpStream {
        self.0
    }
}

impl AsRef<TcpStream> for WriteHalf<'_> {
    fn as_ref(&self) -> &TcpStream {
        self.0
    }
}

impl AsyncRead for ReadHalf<'_> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut [u8],
    ) -> Poll<io::Result<usize>> {
        self.0.poll_read_ref(cx, buf)
    }

    fn poll_read_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &mut [IoSliceMut<'_>],
    ) -> Poll<io::Result<usize>> {
        self.0.poll_read_vectored_ref(cx, bufs)
    }
}

impl AsyncRead for OwnedReadHalf {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut [u8],
    ) -> Poll<io::Result<usize>> {
        self.stream.poll_read_ref(cx, buf)
    }

    fn poll_read_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &mut [IoSliceMut<'_>],
    ) -> Poll<io::Result<usize>> {
        self.stream.poll_read_vectored_ref(cx, bufs)
    }
}

impl AsyncWrite for WriteHalf<'_> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        self.0.poll_write_ref(cx, buf)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        self.0.poll_write_vectored_ref(cx, bufs)
    }

    fn poll_flush(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn poll_close(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(self.0.shutdown_write())
    }
}

impl AsyncWrite for OwnedWriteHalf {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        self.stream.poll_write_ref(cx, buf)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        self.stream.poll_write_vectored_ref(cx, bufs)
    }

    fn poll_flush(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn poll_close(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(self.stream.shutdown_write())
    }
}

impl fmt::Display for ReuniteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the two halves come from different TCP streams, so they cannot be reunited")
    }
}

impl Error for ReuniteError {}
