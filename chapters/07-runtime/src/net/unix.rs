//! Unix-domain stream sockets: [`UnixListener`] and [`UnixStream`].
//!
//! A Unix socket is a stream between two processes on one machine, named by
//! a path in the file system instead of an address and port. To the driver
//! it is one more descriptor that becomes readable and writable, so these
//! types are TCP's, line for line: a mio socket, a registration, the
//! ready/try/clear loop, `AsyncRead`/`AsyncWrite`, the readiness API, and a
//! borrowed [`split`](UnixStream::split) (in `unix/split.rs`).
//!
//! The socket file stays after the listener closes (as with any Unix
//! socket); remove it before binding the path again.
//!
//! Book: Chapter 7, "Sockets and signals".

mod split;
mod split_owned;

pub use split::{ReadHalf, WriteHalf};
pub use split_owned::{OwnedReadHalf, OwnedWriteHalf, ReuniteError};

use crate::io::driver::registration::Registration;
use crate::io::driver::scheduled_io::Direction;
use crate::io::{Interest, Ready};
use futures::io::{AsyncRead, AsyncWrite};
use std::fmt;
use std::io::{self, IoSlice, IoSliceMut, Read, Write};
use std::net::Shutdown;
use std::os::fd::AsFd;
use std::os::unix::net::SocketAddr;
use std::path::Path;
use std::pin::Pin;
use std::task::{Context, Poll, ready};

/// A listening Unix-domain socket.
pub struct UnixListener {
    io: mio::net::UnixListener,
    registration: Registration,
}

/// A Unix-domain stream.
pub struct UnixStream {
    io: mio::net::UnixStream,
    registration: Registration,
}

impl UnixListener {
    /// Binds to `path` (which must not exist yet); call inside a runtime.
    pub fn bind(path: impl AsRef<Path>) -> io::Result<UnixListener> {
        UnixListener::from_mio(mio::net::UnixListener::bind(path)?)
    }

    /// Takes over a bound `std` listener (set non-blocking here).
    pub fn from_std(listener: std::os::unix::net::UnixListener) -> io::Result<UnixListener> {
        listener.set_nonblocking(true)?;
        UnixListener::from_mio(mio::net::UnixListener::from_std(listener))
    }

    fn from_mio(mut io: mio::net::UnixListener) -> io::Result<UnixListener> {
        let registration = Registration::new(&mut io, mio::Interest::READABLE)?;
        Ok(UnixListener { io, registration })
    }

    /// Polls for a connection: [`accept`](Self::accept) as a poll method;
    /// only the waker of the last call is kept.
    pub fn poll_accept(&self, cx: &mut Context<'_>) -> Poll<io::Result<(UnixStream, SocketAddr)>> {
        let (stream, peer) = ready!(
            self.registration
                .poll_io(cx, Direction::Read, || self.io.accept())
        )?;
        Poll::Ready(Ok((UnixStream::from_mio(stream)?, peer)))
    }

    /// The pending socket error (`SO_ERROR`), taken.
    pub fn take_error(&self) -> io::Result<Option<io::Error>> {
        self.io.take_error()
    }

    /// Gives the listener back as a `std` listener, taken off the driver,
    /// still non-blocking (as in Tokio); ours is a `dup` of the descriptor.
    pub fn into_std(mut self) -> io::Result<std::os::unix::net::UnixListener> {
        self.registration.deregister(&mut self.io)?;
        let fd = self.io.as_fd().try_clone_to_owned()?;
        Ok(std::os::unix::net::UnixListener::from(fd))
    }

    /// Accepts a connection; any number of tasks may wait, as for TCP.
    pub async fn accept(&self) -> io::Result<(UnixStream, SocketAddr)> {
        let (stream, peer) = self
            .registration
            .async_io(Direction::Read, || self.io.accept())
            .await?;
        Ok((UnixStream::from_mio(stream)?, peer))
    }

    /// The address (path) it listens on.
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.io.local_addr()
    }
}

impl UnixStream {
    /// Connects to the socket at `path`.
    pub async fn connect(path: impl AsRef<Path>) -> io::Result<UnixStream> {
        let stream = UnixStream::from_mio(mio::net::UnixStream::connect(path)?)?;
        // As for TCP: the connect is done when the socket is writable, and
        // SO_ERROR says whether it worked.
        stream.registration.readiness(Direction::Write).await?;
        match stream.io.take_error()? {
            Some(error) => Err(error),
            None => Ok(stream),
        }
    }

    /// Two streams connected to each other (`socketpair(2)`).
    pub fn pair() -> io::Result<(UnixStream, UnixStream)> {
        let (a, b) = mio::net::UnixStream::pair()?;
        Ok((UnixStream::from_mio(a)?, UnixStream::from_mio(b)?))
    }

    /// Takes over a connected `std` stream (set non-blocking here).
    pub fn from_std(stream: std::os::unix::net::UnixStream) -> io::Result<UnixStream> {
        stream.set_nonblocking(true)?;
        UnixStream::from_mio(mio::net::UnixStream::from_std(stream))
    }

    fn from_mio(mut io: mio::net::UnixStream) -> io::Result<UnixStream> {
        let registration =
            Registration::new(&mut io, mio::Interest::READABLE | mio::Interest::WRITABLE)?;
        Ok(UnixStream { io, registration })
    }

    /// This end's address.
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.io.local_addr()
    }

    /// The peer's address.
    pub fn peer_addr(&self) -> io::Result<SocketAddr> {
        self.io.peer_addr()
    }

    /// The pending socket error (`SO_ERROR`), taken.
    pub fn take_error(&self) -> io::Result<Option<io::Error>> {
        self.io.take_error()
    }

    /// Gives the stream back as a `std` stream, taken off the driver, still
    /// non-blocking (as in Tokio); ours is a `dup` of the descriptor.
    pub fn into_std(mut self) -> io::Result<std::os::unix::net::UnixStream> {
        self.registration.deregister(&mut self.io)?;
        let fd = self.io.as_fd().try_clone_to_owned()?;
        Ok(std::os::unix::net::UnixStream::from(fd))
    }

    /// Two owned halves (one `Arc` inside) that can move to two tasks;
    /// dropping the write half shuts down writing. As
    /// `TcpStream::into_split`.
    pub fn into_split(self) -> (OwnedReadHalf, OwnedWriteHalf) {
        split_owned::into_split(self)
    }

    /// Polls for read readiness (the reader slot's waker).
    pub fn poll_read_ready(&self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        ready!(self.registration.poll_ready(cx, Direction::Read))?;
        Poll::Ready(Ok(()))
    }

    /// Polls for write readiness (the writer slot's waker).
    pub fn poll_write_ready(&self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        ready!(self.registration.poll_ready(cx, Direction::Write))?;
        Poll::Ready(Ok(()))
    }

    /// [`try_read`](Self::try_read) into several buffers (one `readv`).
    pub fn try_read_vectored(&self, bufs: &mut [IoSliceMut<'_>]) -> io::Result<usize> {
        self.registration
            .try_io(Direction::Read, || (&self.io).read_vectored(bufs))
    }

    /// [`try_write`](Self::try_write) from several buffers (one `writev`).
    pub fn try_write_vectored(&self, bufs: &[IoSlice<'_>]) -> io::Result<usize> {
        self.registration
            .try_io(Direction::Write, || (&self.io).write_vectored(bufs))
    }

    /// A non-blocking operation of the caller's, if the socket looks ready;
    /// see `TcpStream::try_io`.
    pub fn try_io<R>(
        &self,
        interest: Interest,
        f: impl FnOnce() -> io::Result<R>,
    ) -> io::Result<R> {
        self.registration
            .try_io(super::tcp::direction_of(interest), f)
    }

    /// Waits for readiness, then runs `f`, until it does not say
    /// `WouldBlock`; see `TcpStream::async_io`.
    pub async fn async_io<R>(
        &self,
        interest: Interest,
        f: impl FnMut() -> io::Result<R>,
    ) -> io::Result<R> {
        self.registration
            .async_io(super::tcp::direction_of(interest), f)
            .await
    }

    /// Closes the write direction (the peer reads end of stream).
    pub fn shutdown_write(&self) -> io::Result<()> {
        match self.io.shutdown(Shutdown::Write) {
            Err(error) if error.kind() == io::ErrorKind::NotConnected => Ok(()),
            result => result,
        }
    }

    /// Waits until readable; see `TcpStream::readable`.
    pub async fn readable(&self) -> io::Result<()> {
        self.registration.readiness(Direction::Read).await?;
        Ok(())
    }

    /// Waits until writable; see `TcpStream::writable`.
    pub async fn writable(&self) -> io::Result<()> {
        self.registration.readiness(Direction::Write).await?;
        Ok(())
    }

    /// Waits for any readiness of `interest`; see `TcpStream::ready`.
    pub async fn ready(&self, interest: Interest) -> io::Result<Ready> {
        Ok(Ready::from_driver(self.registration.ready(interest).await?))
    }

    /// Reads without waiting; see `TcpStream::try_read`.
    pub fn try_read(&self, buf: &mut [u8]) -> io::Result<usize> {
        self.registration
            .try_io(Direction::Read, || (&self.io).read(buf))
    }

    /// Writes without waiting; see `TcpStream::try_write`.
    pub fn try_write(&self, buf: &[u8]) -> io::Result<usize> {
        self.registration
            .try_io(Direction::Write, || (&self.io).write(buf))
    }

    /// A read half and a write half borrowing the stream; see
    /// `TcpStream::split` (and call it as `UnixStream::split(&mut stream)`
    /// when `futures::io::AsyncReadExt` is in scope).
    pub fn split(&mut self) -> (ReadHalf<'_>, WriteHalf<'_>) {
        split::split(self)
    }

    pub(crate) fn poll_read_ref(
        &self,
        cx: &mut Context<'_>,
        buf: &mut [u8],
    ) -> Poll<io::Result<usize>> {
        self.registration
            .poll_read_stream(cx, buf.len(), || (&self.io).read(buf))
    }

    pub(crate) fn poll_write_ref(
        &self,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        self.registration
            .poll_io(cx, Direction::Write, || (&self.io).write(buf))
    }

    /// One `writev` for all of `bufs` (see `TcpStream`'s).
    fn poll_write_vectored_ref(
        &self,
        cx: &mut Context<'_>,
        bufs: &[IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        self.registration
            .poll_io(cx, Direction::Write, || (&self.io).write_vectored(bufs))
    }

    /// One `readv` into all of `bufs`.
    fn poll_read_vectored_ref(
        &self,
        cx: &mut Context<'_>,
        bufs: &mut [IoSliceMut<'_>],
    ) -> Poll<io::Result<usize>> {
        let len = bufs.iter().map(|b| b.len()).sum();
        self.registration
            .poll_read_stream(cx, len, || (&self.io).read_vectored(bufs))
    }
}

impl AsyncRead for UnixStream {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut [u8],
    ) -> Poll<io::Result<usize>> {
        self.get_mut().poll_read_ref(cx, buf)
    }

    fn poll_read_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &mut [IoSliceMut<'_>],
    ) -> Poll<io::Result<usize>> {
        self.get_mut().poll_read_vectored_ref(cx, bufs)
    }
}

impl AsyncWrite for UnixStream {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        self.get_mut().poll_write_ref(cx, buf)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        self.get_mut().poll_write_vectored_ref(cx, bufs)
    }

    fn poll_flush(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn poll_close(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(self.shutdown_write())
    }
}

super::tcp::fd_impls!(UnixListener, UnixStream);

impl Drop for UnixListener {
    fn drop(&mut self) {
        let _ = self.registration.deregister(&mut self.io);
    }
}

impl Drop for UnixStream {
    fn drop(&mut self) {
        let _ = self.registration.deregister(&mut self.io);
    }
}

impl fmt::Debug for UnixListener {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("UnixListener")
            .field("local", &self.io.local_addr().ok())
            .finish()
    }
}

impl fmt::Debug for UnixStream {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("UnixStream")
            .field("local", &self.io.local_addr().ok())
            .field("peer", &self.io.peer_addr().ok())
            .finish()
    }
}
