//! A listener and a stream whose reads and writes take owned buffers.
//!
//! The sockets are ordinary (blocking-mode) std sockets: io_uring never
//! blocks the thread on them; it tries the operation at once and, if the
//! socket is not ready, waits for readiness inside the kernel and
//! completes the operation then. Each method takes the buffer by value and
//! returns it with the result, because the kernel uses it after the call
//! that submitted the operation has returned.
//!
//! Book: Chapter 10, "Owned buffers and cancellation".

use std::io;
use std::net::{Shutdown, SocketAddr, ToSocketAddrs};
use std::os::fd::{AsRawFd, FromRawFd, RawFd};

use super::buf::{IoBuf, IoBufMut};
use super::op;

/// A listening TCP socket whose `accept` is an io_uring operation.
#[derive(Debug)]
pub struct TcpListener {
    inner: std::net::TcpListener,
}

impl TcpListener {
    /// Binds a listener.
    pub fn bind(addr: impl ToSocketAddrs) -> io::Result<TcpListener> {
        Ok(TcpListener::from_std(std::net::TcpListener::bind(addr)?))
    }

    /// Wraps a std listener.
    pub fn from_std(inner: std::net::TcpListener) -> TcpListener {
        TcpListener { inner }
    }

    /// The bound address.
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.inner.local_addr()
    }

    /// Waits for the next connection.
    pub async fn accept(&self) -> io::Result<TcpStream> {
        let fd = op::accept(self.inner.as_raw_fd()).await?;
        // SAFETY: accept returned a new descriptor that nothing else owns.
        let inner = unsafe { std::net::TcpStream::from_raw_fd(fd) };
        Ok(TcpStream { inner })
    }
}

// ANCHOR: stream
/// A connected TCP socket whose reads and writes own their buffers.
#[derive(Debug)]
pub struct TcpStream {
    inner: std::net::TcpStream,
}

impl TcpStream {
    /// Wraps a connected std stream.
    pub fn from_std(inner: std::net::TcpStream) -> TcpStream {
        TcpStream { inner }
    }

    /// Reads into `buf` (from its start, up to its capacity); returns the
    /// byte count, 0 at end of stream, and the buffer with that many bytes.
    pub async fn read<B: IoBufMut>(&self, buf: B) -> (io::Result<usize>, B) {
        op::read(self.fd(), buf).await
    }

    /// Writes `buf`'s bytes once; the kernel may take fewer.
    pub async fn write<B: IoBuf>(&self, buf: B) -> (io::Result<usize>, B) {
        op::write(self.fd(), buf).await
    }

    /// Writes all of `buf`'s bytes, then gives `buf` back.
    pub async fn write_all<B: IoBuf>(&self, buf: B) -> (io::Result<()>, B) {
        op::write_all(self.fd(), buf).await
    }
    // ANCHOR_END: stream

    /// Shuts down reading, writing or both (a plain system call).
    pub fn shutdown(&self, how: Shutdown) -> io::Result<()> {
        self.inner.shutdown(how)
    }

    /// The peer's address.
    pub fn peer_addr(&self) -> io::Result<SocketAddr> {
        self.inner.peer_addr()
    }

    fn fd(&self) -> RawFd {
        self.inner.as_raw_fd()
    }
}

impl AsRawFd for TcpStream {
    fn as_raw_fd(&self) -> RawFd {
        self.fd()
    }
}
