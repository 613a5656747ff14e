//! `UnixSocket`: a Unix-domain socket set up before it becomes a stream, a
//! listener or a datagram socket, as Tokio's `UnixSocket` is.
//!
//! `TcpSocket`'s idea (`net/tcp/socket.rs`) for the Unix family: the bare
//! socket, made with `socket2`, with nothing registered with the driver
//! until [`listen`](UnixSocket::listen), [`connect`](UnixSocket::connect)
//! or [`datagram`](UnixSocket::datagram) turns it into a [`UnixListener`],
//! a [`UnixStream`] or a [`UnixDatagram`]. A socket made by
//! [`new_stream`](UnixSocket::new_stream) can only listen or connect; one
//! made by [`new_datagram`](UnixSocket::new_datagram) can only become a
//! datagram socket: the wrong call is an error (of kind `Other`, as in
//! Tokio), and the socket is closed.
//!
//! Book: Chapter 8, "Sockets".

use crate::net::{UnixDatagram, UnixListener, UnixStream};
use socket2::{Domain, SockAddr, Socket, Type};
use std::io;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, FromRawFd, IntoRawFd, OwnedFd, RawFd};
use std::path::Path;

/// A Unix-domain socket not yet listening, connected or in use for
/// datagrams.
#[derive(Debug)]
pub struct UnixSocket {
    inner: Socket,
}

impl UnixSocket {
    /// A new datagram socket (non-blocking, close-on-exec), for
    /// [`datagram`](Self::datagram).
    pub fn new_datagram() -> io::Result<UnixSocket> {
        UnixSocket::new(Type::DGRAM)
    }

    /// A new stream socket (non-blocking, close-on-exec), for
    /// [`listen`](Self::listen) or [`connect`](Self::connect).
    pub fn new_stream() -> io::Result<UnixSocket> {
        UnixSocket::new(Type::STREAM)
    }

    fn new(ty: Type) -> io::Result<UnixSocket> {
        // socket2 sets close-on-exec itself on Linux.
        let inner = Socket::new(Domain::UNIX, ty.nonblocking(), None)?;
        Ok(UnixSocket { inner })
    }

    /// Whether the socket was made as a datagram socket.
    fn is_datagram(&self) -> io::Result<bool> {
        Ok(self.inner.r#type()? == Type::DGRAM)
    }

    /// Binds the socket to `path`, which must not exist yet.
    pub fn bind(&self, path: impl AsRef<Path>) -> io::Result<()> {
        self.inner.bind(&SockAddr::unix(path)?)
    }

    /// Listens, with a queue of `backlog` connections waiting for `accept`
    /// (the kernel caps it at `net.core.somaxconn`), and registers the
    /// listener with the driver. An error for a datagram socket.
    pub fn listen(self, backlog: u32) -> io::Result<UnixListener> {
        if self.is_datagram()? {
            return Err(io::Error::other(
                "listen cannot be called on a datagram socket",
            ));
        }
        self.inner
            .listen(i32::try_from(backlog).unwrap_or(i32::MAX))?;
        let listener = std::os::unix::net::UnixListener::from(OwnedFd::from(self.inner));
        UnixListener::from_mio(mio::net::UnixListener::from_std(listener))
    }

    /// Connects to the socket listening at `path` and registers the stream
    /// with the driver. An error for a datagram socket.
    pub async fn connect(self, path: impl AsRef<Path>) -> io::Result<UnixStream> {
        if self.is_datagram()? {
            return Err(io::Error::other(
                "connect cannot be called on a datagram socket",
            ));
        }
        match self.inner.connect(&SockAddr::unix(path)?) {
            Ok(()) => {}
            Err(error) if error.raw_os_error() == Some(libc::EINPROGRESS) => {}
            Err(error) => return Err(error),
        }
        let stream = std::os::unix::net::UnixStream::from(OwnedFd::from(self.inner));
        UnixStream::connect_mio(mio::net::UnixStream::from_std(stream)).await
    }

    /// Registers the socket with the driver as a [`UnixDatagram`] (bound or
    /// not, as it is). An error for a stream socket.
    pub fn datagram(self) -> io::Result<UnixDatagram> {
        if !self.is_datagram()? {
            return Err(io::Error::other(
                "datagram cannot be called on a stream socket",
            ));
        }
        let datagram = std::os::unix::net::UnixDatagram::from(OwnedFd::from(self.inner));
        UnixDatagram::from_mio(mio::net::UnixDatagram::from_std(datagram))
    }
}

impl AsRawFd for UnixSocket {
    fn as_raw_fd(&self) -> RawFd {
        self.inner.as_raw_fd()
    }
}

impl AsFd for UnixSocket {
    fn as_fd(&self) -> BorrowedFd<'_> {
        self.inner.as_fd()
    }
}

impl FromRawFd for UnixSocket {
    /// Takes over `fd`, a Unix-domain socket (non-blocking, for the
    /// driver).
    ///
    /// # Safety
    ///
    /// `fd` must be an open socket that nothing else owns or closes.
    unsafe fn from_raw_fd(fd: RawFd) -> UnixSocket {
        // SAFETY: the caller passes an open descriptor that it gives up,
        // which is what `Socket::from_raw_fd` asks.
        let inner = unsafe { Socket::from_raw_fd(fd) };
        UnixSocket { inner }
    }
}

impl IntoRawFd for UnixSocket {
    fn into_raw_fd(self) -> RawFd {
        self.inner.into_raw_fd()
    }
}
