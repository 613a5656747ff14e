//! The owned halves of a [`UnixStream`]: the stream in an `Arc`, a read
//! half and a write half that can move to two tasks. The same design as
//! TCP's (`net/tcp/split.rs`): dropping the write half shuts down writing
//! (the peer reads end of stream), `forget` drops it without that, and
//! `reunite` puts two halves of one stream back together.
//!
//! Book: Chapter 7, "Sockets and signals".

use super::UnixStream;
use crate::io::{Interest, Ready};
use futures::io::{AsyncRead, AsyncWrite};
use std::error::Error;
use std::fmt;
use std::io;
use std::os::unix::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

/// The read half of [`UnixStream::into_split`].
#[derive(Debug)]
pub struct OwnedReadHalf {
    stream: Arc<UnixStream>,
}

/// The write half of [`UnixStream::into_split`]. Dropping it shuts down
/// the write direction of the stream.
#[derive(Debug)]
pub struct OwnedWriteHalf {
    stream: Arc<UnixStream>,
    shutdown_on_drop: bool,
}

/// [`OwnedWriteHalf::reunite`] was given halves of two different streams;
/// both are handed back, unchanged.
#[derive(Debug)]
pub struct ReuniteError(pub OwnedReadHalf, pub OwnedWriteHalf);

pub(super) fn into_split(stream: UnixStream) -> (OwnedReadHalf, OwnedWriteHalf) {
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

impl OwnedReadHalf {
    /// Waits for read readiness; see `UnixStream::readable`.
    pub async fn readable(&self) -> io::Result<()> {
        self.stream.readable().await
    }

    /// Waits for any readiness of `interest`; see `UnixStream::ready`.
    pub async fn ready(&self, interest: Interest) -> io::Result<Ready> {
        self.stream.ready(interest).await
    }

    /// Reads without waiting; see `UnixStream::try_read`.
    pub fn try_read(&self, buf: &mut [u8]) -> io::Result<usize> {
        self.stream.try_read(buf)
    }

    /// The peer's address.
    pub fn peer_addr(&self) -> io::Result<SocketAddr> {
        self.stream.peer_addr()
    }

    /// This end's address.
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.stream.local_addr()
    }

    /// Puts the stream back together; see [`OwnedWriteHalf::reunite`].
    pub fn reunite(self, other: OwnedWriteHalf) -> Result<UnixStream, ReuniteError> {
        other.reunite(self)
    }
}

impl OwnedWriteHalf {
    /// Waits for write readiness; see `UnixStream::writable`.
    pub async fn writable(&self) -> io::Result<()> {
        self.stream.writable().await
    }

    /// Waits for any readiness of `interest`; see `UnixStream::ready`.
    pub async fn ready(&self, interest: Interest) -> io::Result<Ready> {
        self.stream.ready(interest).await
    }

    /// Writes without waiting; see `UnixStream::try_write`.
    pub fn try_write(&self, buf: &[u8]) -> io::Result<usize> {
        self.stream.try_write(buf)
    }

    /// The peer's address.
    pub fn peer_addr(&self) -> io::Result<SocketAddr> {
        self.stream.peer_addr()
    }

    /// This end's address.
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.stream.local_addr()
    }

    /// Puts the two halves of one `into_split` back into the stream; halves
    /// of different streams are refused and handed back in the error. The
    /// write direction stays open.
    pub fn reunite(mut self, other: OwnedReadHalf) -> Result<UnixStream, ReuniteError> {
        if !Arc::ptr_eq(&self.stream, &other.stream) {
            return Err(ReuniteError(other, self));
        }
        self.shutdown_on_drop = false;
        let stream = self.stream.clone();
        drop(self);
        drop(other);
        Ok(Arc::into_inner(stream).expect("the two halves held the only references"))
    }

    /// Drops the write half without shutting down the write direction.
    pub fn forget(mut self) {
        self.shutdown_on_drop = false;
    }
}

impl Drop for OwnedWriteHalf {
    fn drop(&mut self) {
        if self.shutdown_on_drop {
            // The peer reads end of stream; an error has nobody to go to.
            let _ = self.stream.shutdown_write();
        }
    }
}

impl AsRef<UnixStream> for OwnedReadHalf {
    fn as_ref(&self) -> &UnixStream {
        &self.stream
    }
}

impl AsRef<UnixStream> for OwnedWriteHalf {
    fn as_ref(&self) -> &UnixStream {
        &self.stream
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
}

impl AsyncWrite for OwnedWriteHalf {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        self.stream.poll_write_ref(cx, buf)
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
        f.write_str("the two halves come from different Unix streams, so they cannot be reunited")
    }
}

impl Error for ReuniteError {}
