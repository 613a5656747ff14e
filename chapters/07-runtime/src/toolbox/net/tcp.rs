//! `TcpListener` and `TcpStream`, and (in `tcp/`) the halves of a split
//! stream and `TcpSocket`.
//!
//! Each type is a `RegisteredSource` of its `mio` socket
//! (`core/io_driver/registered_source.rs`): registered with the driver while it
//! lives, deregistered before the descriptor closes, and every operation
//! the ready/try/clear loop. What is left here is what only TCP has:
//! binding and accepting, a non-blocking connect, `peek`, the TCP options.
//!
//! A stream can be used two ways. Through `AsyncRead`/`AsyncWrite` (`&mut
//! self`, one reader and one writer at a time, each with its waker slot),
//! or through readiness: `readable()`, `writable()` and `ready(interest)`
//! wait in the socket's waiter list (any number of tasks, on a shared
//! `&TcpStream`), and `try_read`/`try_write` make one non-blocking attempt
//! that clears the readiness, with its tick, when the kernel says
//! `WouldBlock`. The pair is Tokio's; the wait may wake spuriously, so the
//! caller loops:
//!
//! ```text
//! loop { stream.readable().await?; match stream.try_read(buf) { WouldBlock => continue, r => break r } }
//! ```
//!
//! Book: Chapter 7, "The I/O driver", and Chapter 8, "Sockets".

mod socket;
mod split;

pub use socket::TcpSocket;
pub use split::{OwnedReadHalf, OwnedWriteHalf, ReadHalf, ReuniteError, WriteHalf};

use super::addr::{ToSocketAddrs, first_that_works};
use super::shared::{
    fd_impls, listener_methods, readiness_methods, stream_methods, stream_traits, try_from_std,
};
use crate::io_driver::registered_source::RegisteredSource;
use crate::io_driver::scheduled_io::Direction;
use std::io;
use std::mem::MaybeUninit;
use std::net::SocketAddr;
use std::task::{Context, Poll};

/// Kept at this path for `io/async_fd.rs`.
pub(crate) use crate::io_driver::registered_source::direction_of;

fd_impls!(TcpListener, TcpStream);
try_from_std!(TcpListener: std::net::TcpListener, TcpStream: std::net::TcpStream);

/// A listening TCP socket.
#[derive(Debug)]
pub struct TcpListener {
    io: RegisteredSource<mio::net::TcpListener>,
}

/// A TCP connection.
#[derive(Debug)]
pub struct TcpStream {
    io: RegisteredSource<mio::net::TcpStream>,
}

impl TcpListener {
    /// Binds to `addr` (the first address it resolves to that binds), with a
    /// backlog of 1024.
    pub async fn bind(addr: impl ToSocketAddrs) -> io::Result<TcpListener> {
        first_that_works(addr, |addr| async move {
            TcpListener::from_mio(mio::net::TcpListener::bind(addr)?)
        })
        .await
    }

    /// Takes over a bound `std` listener (set non-blocking here).
    pub fn from_std(listener: std::net::TcpListener) -> io::Result<TcpListener> {
        listener.set_nonblocking(true)?;
        TcpListener::from_mio(mio::net::TcpListener::from_std(listener))
    }

    pub(crate) fn from_mio(io: mio::net::TcpListener) -> io::Result<TcpListener> {
        let io = RegisteredSource::new(io, mio::Interest::READABLE)?;
        Ok(TcpListener { io })
    }

    listener_methods!(
        mio::net::TcpListener,
        TcpStream,
        SocketAddr,
        std::net::TcpListener
    );

    /// `IP_TTL` of the connections it accepts.
    pub fn ttl(&self) -> io::Result<u32> {
        self.io.ttl()
    }

    /// Sets `IP_TTL` of the connections it accepts.
    pub fn set_ttl(&self, ttl: u32) -> io::Result<()> {
        self.io.set_ttl(ttl)
    }
}

impl TcpStream {
    /// Connects to `addr` (the first address that accepts).
    pub async fn connect(addr: impl ToSocketAddrs) -> io::Result<TcpStream> {
        first_that_works(addr, |addr| async move {
            TcpStream::connect_mio(mio::net::TcpStream::connect(addr)?).await
        })
        .await
    }

    /// Finishes a non-blocking connect that `io` has started.
    pub(crate) async fn connect_mio(io: mio::net::TcpStream) -> io::Result<TcpStream> {
        let stream = TcpStream::from_mio(io)?;
        // A non-blocking connect completes when the socket becomes writable;
        // then SO_ERROR says whether it succeeded.
        stream.writable().await?;
        if let Some(error) = stream.io.take_error()? {
            return Err(error);
        }
        match stream.io.peer_addr() {
            Ok(_) => Ok(stream),
            Err(error) if error.kind() == io::ErrorKind::NotConnected => {
                // Writable before connected (a spurious event): wait again.
                stream
                    .io
                    .async_io(Direction::Write, |socket| match socket.peer_addr() {
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

    fn from_mio(io: mio::net::TcpStream) -> io::Result<TcpStream> {
        let io = RegisteredSource::new_duplex(io)?;
        Ok(TcpStream { io })
    }

    readiness_methods!();
    stream_methods!();

    /// `poll_read` into memory that need not be initialized: the kernel
    /// writes the bytes that arrive and nothing else, and `Ok(n)` says the
    /// first `n` of `buf` are now initialized. What Tokio's `AsyncRead` does
    /// with an uninitialized `ReadBuf`; `futures`' `AsyncRead` takes only
    /// initialized buffers, so a caller holding spare capacity (hyper's read
    /// buffer, a `Vec`'s) would otherwise have to zero it first, and zeroing
    /// touches pages the kernel may never write. Waits like `poll_read`
    /// (registered with `cx` when nothing is there).
    pub fn poll_read_uninit(
        &self,
        cx: &mut Context<'_>,
        buf: &mut [MaybeUninit<u8>],
    ) -> Poll<io::Result<usize>> {
        self.io.poll_read_uninit(cx, buf)
    }

    /// Waits for data and copies it into `buf` without removing it from the
    /// socket: the next read returns the same bytes.
    pub async fn peek(&self, buf: &mut [u8]) -> io::Result<usize> {
        self.io
            .async_io(Direction::Read, |socket| socket.peek(buf))
            .await
    }

    /// [`peek`](Self::peek) as a poll method: copies what the socket holds
    /// into `buf` without taking it and returns the length, or registers
    /// `cx` and returns `Pending` if nothing has arrived. The waker goes in
    /// the reader's slot, shared with `poll_read` and `poll_read_ready`:
    /// only the last of their callers is woken (the writer's slot is
    /// apart). Never returns `WouldBlock`.
    ///
    /// Tokio's takes a `ReadBuf` and advances it by the length; ours takes
    /// the bytes and returns the length, as `UdpSocket::poll_peek` and
    /// `poll_read` do in rt (see `rt::io`).
    pub fn poll_peek(&self, cx: &mut Context<'_>, buf: &mut [u8]) -> Poll<io::Result<usize>> {
        self.io
            .poll_io(cx, Direction::Read, |socket| socket.peek(buf))
    }

    /// Splits the stream into a read half and a write half that borrow it,
    /// usable at the same time (e.g. in two branches of one task); no
    /// allocation. See [`into_split`](Self::into_split) for halves that can
    /// move to two tasks.
    ///
    /// With `futures::io::AsyncReadExt` in scope, `stream.split()` resolves
    /// to that trait's `split(self)` (a lock-based split of any reader and
    /// writer), which Rust's method lookup tries first; write
    /// `TcpStream::split(&mut stream)` to get this one.
    pub fn split(&mut self) -> (ReadHalf<'_>, WriteHalf<'_>) {
        split::split(self)
    }

    /// Splits the stream into two owned halves (one `Arc` inside), which may
    /// move to different tasks. Dropping the write half shuts down writing
    /// (the peer reads end of stream); [`OwnedWriteHalf::reunite`] gives the
    /// stream back.
    pub fn into_split(self) -> (OwnedReadHalf, OwnedWriteHalf) {
        split::into_split(self)
    }

    /// Gives the stream back as a `std` stream, taken off the driver. It is
    /// still in non-blocking mode (as in Tokio): call
    /// `set_nonblocking(false)` before blocking reads.
    pub fn into_std(self) -> io::Result<std::net::TcpStream> {
        self.io.into_std()
    }

    /// `IP_TTL` of the packets it sends.
    pub fn ttl(&self) -> io::Result<u32> {
        self.io.ttl()
    }

    /// Sets `IP_TTL` of the packets it sends.
    pub fn set_ttl(&self, ttl: u32) -> io::Result<()> {
        self.io.set_ttl(ttl)
    }

    /// `SO_LINGER`: `Some(duration)` if closing waits (up to `duration`)
    /// for unsent data, `None` if it returns at once (the default).
    pub fn linger(&self) -> io::Result<Option<std::time::Duration>> {
        socket2::SockRef::from(self).linger()
    }

    /// Sets `SO_LINGER`. `Some(Duration::ZERO)` makes closing send a reset
    /// (RST) and drop unsent data; Tokio deprecates that use in favour of
    /// [`set_zero_linger`](Self::set_zero_linger), since a close that
    /// blocks has no place in async code.
    #[deprecated = "`SO_LINGER` with a timeout blocks the thread that closes the socket; use `set_zero_linger`"]
    pub fn set_linger(&self, dur: Option<std::time::Duration>) -> io::Result<()> {
        socket2::SockRef::from(self).set_linger(dur)
    }

    /// Makes closing the stream abort the connection with a reset (RST),
    /// dropping unsent data: `SO_LINGER` with a zero timeout.
    pub fn set_zero_linger(&self) -> io::Result<()> {
        socket2::SockRef::from(self).set_linger(Some(std::time::Duration::ZERO))
    }

    /// `TCP_QUICKACK`: whether the kernel acknowledges received data at
    /// once instead of delaying the ACK. Linux turns it off again by
    /// itself as the connection goes on, so the value read is a snapshot.
    pub fn quickack(&self) -> io::Result<bool> {
        socket2::SockRef::from(self).tcp_quickack()
    }

    /// Sets `TCP_QUICKACK` (see [`quickack`](Self::quickack)); not
    /// permanent, so a program that wants it sets it again after reads.
    pub fn set_quickack(&self, quickack: bool) -> io::Result<()> {
        socket2::SockRef::from(self).set_tcp_quickack(quickack)
    }

    /// Nagle's algorithm is off (true) or on.
    pub fn nodelay(&self) -> io::Result<bool> {
        self.io.nodelay()
    }

    /// Turns Nagle's algorithm off (or on).
    pub fn set_nodelay(&self, nodelay: bool) -> io::Result<()> {
        self.io.set_nodelay(nodelay)
    }

    /// The peer's address.
    pub fn peer_addr(&self) -> io::Result<SocketAddr> {
        self.io.peer_addr()
    }

    /// This end's address.
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.io.local_addr()
    }

    /// Closes the write half (the peer reads end of stream); reading still
    /// works.
    pub fn shutdown_write(&self) -> io::Result<()> {
        self.io.shutdown_write()
    }
}

stream_traits!(both TcpStream, |stream| stream.io);

/// The stream itself, for code generic over "a stream or one of its
/// halves" (`S: AsRef<TcpStream>`), as in Tokio.
impl AsRef<TcpStream> for TcpStream {
    fn as_ref(&self) -> &Self {
        self
    }
}
