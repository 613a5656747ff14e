//! `TcpListener` and `TcpStream`.
//!
//! Dropping either deregisters the socket from the driver (before the
//! descriptor closes), so the driver never holds a socket nobody owns.
//!
//! Book: Chapter 7, "The I/O driver".

use crate::io::registration::Registration;
use crate::io::scheduled_io::Direction;
use futures::io::{AsyncRead, AsyncWrite};
use mio::Interest;
use std::fmt;
use std::io::{self, Read, Write};
use std::net::{Shutdown, SocketAddr, ToSocketAddrs};
use std::pin::Pin;
use std::task::{Context, Poll};

/// A listening TCP socket.
pub struct TcpListener {
    io: mio::net::TcpListener,
    registration: Registration,
}

/// A TCP connection.
pub struct TcpStream {
    io: mio::net::TcpStream,
    registration: Registration,
}

impl TcpListener {
    /// Binds to `addr` (the first address it resolves to that binds), with a
    /// backlog of 1024.
    pub async fn bind(addr: impl ToSocketAddrs) -> io::Result<TcpListener> {
        let mut last_error = None;
        for addr in addr.to_socket_addrs()? {
            match mio::net::TcpListener::bind(addr) {
                Ok(listener) => return TcpListener::from_mio(listener),
                Err(error) => last_error = Some(error),
            }
        }
        Err(last_error.unwrap_or_else(|| {
            io::Error::new(io::ErrorKind::InvalidInput, "no address to bind to")
        }))
    }

    /// Takes over a bound `std` listener (set non-blocking here).
    pub fn from_std(listener: std::net::TcpListener) -> io::Result<TcpListener> {
        listener.set_nonblocking(true)?;
        TcpListener::from_mio(mio::net::TcpListener::from_std(listener))
    }

    fn from_mio(mut io: mio::net::TcpListener) -> io::Result<TcpListener> {
        let registration = Registration::new(&mut io, Interest::READABLE)?;
        Ok(TcpListener { io, registration })
    }

    /// Accepts a connection.
    ///
    /// Any number of tasks may await `accept` on one listener at once (share
    /// it in an `Arc`): each waits in the socket's waiter list, and every
    /// waiter is woken when connections arrive.
    ///
    /// Cancel safety: dropping the future before it completes loses no
    /// connection; one not yet accepted stays in the kernel's queue.
    pub async fn accept(&self) -> io::Result<(TcpStream, SocketAddr)> {
        let (stream, peer) = self
            .registration
            .async_io(Direction::Read, || self.io.accept())
            .await?;
        Ok((TcpStream::from_mio(stream)?, peer))
    }

    /// The address it listens on.
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.io.local_addr()
    }
}

impl TcpStream {
    /// Connects to `addr` (the first address that accepts).
    pub async fn connect(addr: impl ToSocketAddrs) -> io::Result<TcpStream> {
        let mut last_error = None;
        for addr in addr.to_socket_addrs()? {
            match TcpStream::connect_one(addr).await {
                Ok(stream) => return Ok(stream),
                Err(error) => last_error = Some(error),
            }
        }
        Err(last_error.unwrap_or_else(|| {
            io::Error::new(io::ErrorKind::InvalidInput, "no address to connect to")
        }))
    }

    async fn connect_one(addr: SocketAddr) -> io::Result<TcpStream> {
        let stream = TcpStream::from_mio(mio::net::TcpStream::connect(addr)?)?;
        // A non-blocking connect completes when the socket becomes writable;
        // then SO_ERROR says whether it succeeded.
        stream.registration.readiness(Direction::Write).await?;
        if let Some(error) = stream.io.take_error()? {
            return Err(error);
        }
        match stream.io.peer_addr() {
            Ok(_) => Ok(stream),
            Err(error) if error.kind() == io::ErrorKind::NotConnected => {
                // Writable before connected (a spurious event): wait again.
                stream
                    .registration
                    .async_io(Direction::Write, || match stream.io.peer_addr() {
                        Ok(_) => Ok(()),
                        Err(error) if error.kind() == io::ErrorKind::NotConnected => {
                            Err(io::ErrorKind::WouldBlock.into())
                        }
                        Err(error) => Err(error),
                    })
                    .await?;
                Ok(stream)
            }
            Err(error) => Err(error),
        }
    }

    /// Takes over a connected `std` stream (set non-blocking here).
    pub fn from_std(stream: std::net::TcpStream) -> io::Result<TcpStream> {
        stream.set_nonblocking(true)?;
        TcpStream::from_mio(mio::net::TcpStream::from_std(stream))
    }

    fn from_mio(mut io: mio::net::TcpStream) -> io::Result<TcpStream> {
        let registration = Registration::new(&mut io, Interest::READABLE | Interest::WRITABLE)?;
        Ok(TcpStream { io, registration })
    }

    /// The peer's address.
    pub fn peer_addr(&self) -> io::Result<SocketAddr> {
        self.io.peer_addr()
    }

    /// This end's address.
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.io.local_addr()
    }

    /// Turns Nagle's algorithm off (or on).
    pub fn set_nodelay(&self, nodelay: bool) -> io::Result<()> {
        self.io.set_nodelay(nodelay)
    }

    /// Closes the write half (the peer reads end of stream); reading still
    /// works.
    pub fn shutdown_write(&self) -> io::Result<()> {
        match self.io.shutdown(Shutdown::Write) {
            // Already closed by the peer: nothing left to shut.
            Err(error) if error.kind() == io::ErrorKind::NotConnected => Ok(()),
            result => result,
        }
    }
}

impl AsyncRead for TcpStream {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut [u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        this.registration
            .poll_io(cx, Direction::Read, || (&this.io).read(buf))
    }
}

impl AsyncWrite for TcpStream {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        this.registration
            .poll_io(cx, Direction::Write, || (&this.io).write(buf))
    }

    fn poll_flush(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        // TCP has no user-space buffer here: every write went to the kernel.
        Poll::Ready(Ok(()))
    }

    fn poll_close(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(self.shutdown_write())
    }
}

impl Drop for TcpListener {
    fn drop(&mut self) {
        let _ = self.registration.deregister(&mut self.io);
    }
}

impl Drop for TcpStream {
    fn drop(&mut self) {
        let _ = self.registration.deregister(&mut self.io);
    }
}

impl fmt::Debug for TcpListener {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TcpListener")
            .field("local", &self.io.local_addr().ok())
            .finish()
    }
}

impl fmt::Debug for TcpStream {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TcpStream")
            .field("local", &self.io.local_addr().ok())
            .field("peer", &self.io.peer_addr().ok())
            .finish()
    }
}
