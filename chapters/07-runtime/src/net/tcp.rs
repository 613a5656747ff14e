//! `TcpListener` and `TcpStream`, and (in `tcp/`) the halves of a split
//! stream and `TcpSocket`.
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
//! Dropping either type deregisters the socket from the driver (before the
//! descriptor closes), so the driver never holds a socket nobody owns.
//!
//! Book: Chapter 7, "The I/O driver" and "Sockets and signals".

mod socket;
mod split;

pub use socket::TcpSocket;
pub use split::{OwnedReadHalf, OwnedWriteHalf, ReadHalf, ReuniteError, WriteHalf};

use crate::io::driver::registration::Registration;
use crate::io::driver::scheduled_io::Direction;
use crate::io::{Interest, Ready};
use futures::io::{AsyncRead, AsyncWrite};
use std::fmt;
use std::io::{self, IoSlice, IoSliceMut, Read, Write};
use std::mem::MaybeUninit;
use std::net::{Shutdown, SocketAddr, ToSocketAddrs};
use std::os::fd::AsFd;
use std::pin::Pin;
use std::task::{Context, Poll, ready};

/// The one direction of an [`Interest`] that `try_io`/`async_io` wait on:
/// reading if it includes `READABLE`, else writing.
pub(crate) fn direction_of(interest: Interest) -> Direction {
    if interest.is_readable() {
        Direction::Read
    } else {
        Direction::Write
    }
}

/// The descriptor, for `socket2::SockRef`, `setsockopt` and the like.
macro_rules! fd_impls {
    ($($ty:ty),*) => {$(
        impl ::std::os::fd::AsRawFd for $ty {
            fn as_raw_fd(&self) -> ::std::os::fd::RawFd {
                ::std::os::fd::AsRawFd::as_raw_fd(&self.io)
            }
        }

        impl ::std::os::fd::AsFd for $ty {
            fn as_fd(&self) -> ::std::os::fd::BorrowedFd<'_> {
                ::std::os::fd::AsFd::as_fd(&self.io)
            }
        }
    )*};
}
pub(crate) use fd_impls;

fd_impls!(TcpListener, TcpStream);

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

    pub(crate) fn from_mio(mut io: mio::net::TcpListener) -> io::Result<TcpListener> {
        let registration = Registration::new(&mut io, mio::Interest::READABLE)?;
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

    /// Polls for a connection: the future of [`accept`](Self::accept) as a
    /// poll method, for code that writes its own futures. Only the waker
    /// of the last call is kept.
    pub fn poll_accept(&self, cx: &mut Context<'_>) -> Poll<io::Result<(TcpStream, SocketAddr)>> {
        let (stream, peer) = ready!(
            self.registration
                .poll_io(cx, Direction::Read, || self.io.accept())
        )?;
        Poll::Ready(Ok((TcpStream::from_mio(stream)?, peer)))
    }

    /// The address it listens on.
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.io.local_addr()
    }

    /// `IP_TTL` of the connections it accepts.
    pub fn ttl(&self) -> io::Result<u32> {
        self.io.ttl()
    }

    /// Sets `IP_TTL` of the connections it accepts.
    pub fn set_ttl(&self, ttl: u32) -> io::Result<()> {
        self.io.set_ttl(ttl)
    }

    /// Gives the listener back as a `std` listener, taken off the driver. It
    /// is still in non-blocking mode (as in Tokio): call
    /// `set_nonblocking(false)` before a blocking `accept`.
    ///
    /// Ours hands back a duplicate of the descriptor (`dup`), and the
    /// original closes with `self`; the socket is the same.
    pub fn into_std(mut self) -> io::Result<std::net::TcpListener> {
        self.registration.deregister(&mut self.io)?;
        let fd = self.io.as_fd().try_clone_to_owned()?;
        Ok(std::net::TcpListener::from(fd))
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
        TcpStream::connect_mio(mio::net::TcpStream::connect(addr)?).await
    }

    /// Finishes a non-blocking connect that `io` has started.
    pub(crate) async fn connect_mio(io: mio::net::TcpStream) -> io::Result<TcpStream> {
        let stream = TcpStream::from_mio(io)?;
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
        let registration =
            Registration::new(&mut io, mio::Interest::READABLE | mio::Interest::WRITABLE)?;
        Ok(TcpStream { io, registration })
    }

    // ANCHOR: readiness
    /// Waits until the stream is readable (or its read half closed): then
    /// [`try_read`](Self::try_read) will likely succeed. Any number of tasks
    /// may wait at once on a shared stream; each is woken.
    ///
    /// The wait may end spuriously; `try_read` then says `WouldBlock` (and
    /// clears the readiness), and the caller waits again.
    ///
    /// Cancel safety: readiness is not consumed by waiting, only by a
    /// `try_*` call that hits `WouldBlock`, so a dropped wait loses nothing.
    pub async fn readable(&self) -> io::Result<()> {
        self.registration.readiness(Direction::Read).await?;
        Ok(())
    }

    /// Waits until the stream is writable (or its write half closed); the
    /// counterpart of [`readable`](Self::readable) for
    /// [`try_write`](Self::try_write).
    pub async fn writable(&self) -> io::Result<()> {
        self.registration.readiness(Direction::Write).await?;
        Ok(())
    }

    /// Waits until any readiness of `interest` is set and returns what is
    /// set in those directions (e.g. `READABLE | READ_CLOSED`). One task can
    /// wait for reading and writing together with `Interest::READABLE |
    /// Interest::WRITABLE`.
    pub async fn ready(&self, interest: Interest) -> io::Result<Ready> {
        let ready = self.registration.ready(interest).await?;
        Ok(Ready::from_driver(ready))
    }

    /// Reads what the kernel has without waiting: `Ok(n)` bytes (0 at end of
    /// stream or for an empty `buf`), or `WouldBlock` if nothing is there
    /// now, which clears the stream's readable state until the driver sees
    /// new data.
    pub fn try_read(&self, buf: &mut [u8]) -> io::Result<usize> {
        self.registration
            .try_io(Direction::Read, || (&self.io).read(buf))
    }
    // ANCHOR_END: readiness

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
        let len = buf.len();
        let socket = socket2::SockRef::from(&self.io);
        self.registration
            .poll_read_stream(cx, len, || socket.recv(buf))
    }

    /// [`try_read`](Self::try_read) into several buffers (one `readv`).
    pub fn try_read_vectored(&self, bufs: &mut [IoSliceMut<'_>]) -> io::Result<usize> {
        self.registration
            .try_io(Direction::Read, || (&self.io).read_vectored(bufs))
    }

    /// Writes what the kernel will take without waiting: `Ok(n)` bytes, or
    /// `WouldBlock` if the send buffer is full (clearing the writable state
    /// until the driver sees room).
    pub fn try_write(&self, buf: &[u8]) -> io::Result<usize> {
        self.registration
            .try_io(Direction::Write, || (&self.io).write(buf))
    }

    /// [`try_write`](Self::try_write) from several buffers (one `writev`).
    pub fn try_write_vectored(&self, bufs: &[IoSlice<'_>]) -> io::Result<usize> {
        self.registration
            .try_io(Direction::Write, || (&self.io).write_vectored(bufs))
    }

    /// Waits for data and copies it into `buf` without removing it from the
    /// socket: the next read returns the same bytes.
    pub async fn peek(&self, buf: &mut [u8]) -> io::Result<usize> {
        self.registration
            .async_io(Direction::Read, || self.io.peek(buf))
            .await
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
    ///
    /// Ours hands back a duplicate of the descriptor (`dup`), and the
    /// original closes with `self`; the connection is the same.
    pub fn into_std(mut self) -> io::Result<std::net::TcpStream> {
        self.registration.deregister(&mut self.io)?;
        let fd = self.io.as_fd().try_clone_to_owned()?;
        Ok(std::net::TcpStream::from(fd))
    }

    /// Polls for read readiness, with the waker of the stream's reader slot
    /// (the one `poll_read` uses): only the last caller's waker is kept.
    pub fn poll_read_ready(&self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        ready!(self.registration.poll_ready(cx, Direction::Read))?;
        Poll::Ready(Ok(()))
    }

    /// Polls for write readiness, with the waker of the stream's writer slot.
    pub fn poll_write_ready(&self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        ready!(self.registration.poll_ready(cx, Direction::Write))?;
        Poll::Ready(Ok(()))
    }

    /// [`try_read`](Self::try_read) into the spare capacity of `buf` (a
    /// `BytesMut`, a `Vec<u8>`), advancing it by what was read. The bytes go
    /// straight into `buf`'s uninitialized memory, by the same `recv` as
    /// [`poll_read_uninit`](Self::poll_read_uninit): nothing is zeroed or
    /// copied.
    pub fn try_read_buf<B: bytes::BufMut>(&self, buf: &mut B) -> io::Result<usize> {
        let socket = socket2::SockRef::from(&self.io);
        self.registration.try_io(Direction::Read, || {
            // SAFETY: `recv` only writes received (initialized) bytes into
            // the slice; nothing here writes uninitialized ones.
            let dst = unsafe { buf.chunk_mut().as_uninit_slice_mut() };
            let n = socket.recv(dst)?;
            // SAFETY: `recv` initialized the first `n` bytes of the chunk,
            // and `n` is at most its length.
            unsafe { buf.advance_mut(n) };
            Ok(n)
        })
    }

    /// Runs `f`, a non-blocking operation on the socket (through
    /// [`AsRawFd`](std::os::fd::AsRawFd), say), if the socket looks ready
    /// for `interest`; a `WouldBlock` from `f` clears that readiness, so
    /// the next `ready(interest)` waits for a new event. `WouldBlock`
    /// without calling `f` if the socket is not ready.
    pub fn try_io<R>(
        &self,
        interest: Interest,
        f: impl FnOnce() -> io::Result<R>,
    ) -> io::Result<R> {
        self.registration.try_io(direction_of(interest), f)
    }

    /// Waits until the socket is ready for `interest`, then runs `f`; on
    /// `WouldBlock` clears the readiness and waits again. The loop of
    /// [`readable`](Self::readable) and [`try_io`](Self::try_io) in one
    /// call.
    pub async fn async_io<R>(
        &self,
        interest: Interest,
        f: impl FnMut() -> io::Result<R>,
    ) -> io::Result<R> {
        self.registration.async_io(direction_of(interest), f).await
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
        socket2::SockRef::from(&self.io).linger()
    }

    /// Sets `SO_LINGER`. `Some(Duration::ZERO)` makes closing send a reset
    /// (RST) and drop unsent data; Tokio deprecates that use in favour of
    /// [`set_zero_linger`](Self::set_zero_linger), since a close that
    /// blocks has no place in async code.
    #[deprecated = "`SO_LINGER` with a timeout blocks the thread that closes the socket; use `set_zero_linger`"]
    pub fn set_linger(&self, dur: Option<std::time::Duration>) -> io::Result<()> {
        socket2::SockRef::from(&self.io).set_linger(dur)
    }

    /// Makes closing the stream abort the connection with a reset (RST),
    /// dropping unsent data: `SO_LINGER` with a zero timeout.
    pub fn set_zero_linger(&self) -> io::Result<()> {
        socket2::SockRef::from(&self.io).set_linger(Some(std::time::Duration::ZERO))
    }

    /// Nagle's algorithm is off (true) or on.
    pub fn nodelay(&self) -> io::Result<bool> {
        self.io.nodelay()
    }

    /// The pending socket error (`SO_ERROR`), taken.
    pub fn take_error(&self) -> io::Result<Option<io::Error>> {
        self.io.take_error()
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

impl TcpStream {
    /// `poll_read` on `&self`, shared with the halves of a split stream.
    pub(crate) fn poll_read_ref(
        &self,
        cx: &mut Context<'_>,
        buf: &mut [u8],
    ) -> Poll<io::Result<usize>> {
        self.registration
            .poll_read_stream(cx, buf.len(), || (&self.io).read(buf))
    }

    /// `poll_write` on `&self`, shared with the halves of a split stream.
    pub(crate) fn poll_write_ref(
        &self,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        self.registration
            .poll_io(cx, Direction::Write, || (&self.io).write(buf))
    }

    /// `poll_write_vectored` on `&self`: one `writev` for all of `bufs`.
    /// Without it, `futures`' default writes only the first non-empty
    /// buffer, and a caller with a header and a body (hyper) makes two
    /// system calls and sends two segments where one would do.
    pub(crate) fn poll_write_vectored_ref(
        &self,
        cx: &mut Context<'_>,
        bufs: &[IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        self.registration
            .poll_io(cx, Direction::Write, || (&self.io).write_vectored(bufs))
    }

    /// `poll_read_vectored` on `&self`: one `readv` into all of `bufs`.
    pub(crate) fn poll_read_vectored_ref(
        &self,
        cx: &mut Context<'_>,
        bufs: &mut [IoSliceMut<'_>],
    ) -> Poll<io::Result<usize>> {
        let len = bufs.iter().map(|b| b.len()).sum();
        self.registration
            .poll_read_stream(cx, len, || (&self.io).read_vectored(bufs))
    }
}

impl AsyncRead for TcpStream {
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

impl AsyncWrite for TcpStream {
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
