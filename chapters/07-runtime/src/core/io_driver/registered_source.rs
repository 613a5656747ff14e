//! One socket on the driver: a non-blocking `mio` source and its
//! registration, owned together, with every readiness operation a socket
//! type offers written once.
//!
//! `TcpStream`, `UnixStream`, `UdpSocket`, `UnixDatagram` and the
//! listeners all need the same things from the driver: register the
//! socket, wait until a direction is ready, run a non-blocking system call,
//! clear the readiness when the kernel says `WouldBlock`, and deregister
//! before the descriptor closes. [`RegisteredSource<S>`] does that for any
//! `mio` source `S`, so a socket type is a `RegisteredSource` of its `mio`
//! socket plus the methods that name its system calls: `accept`,
//! `send_to`, `peek`. (Tokio has the same layer, `PollEvented`.)
//!
//! What it owns: the source (the descriptor) and its
//! [`Registration`](super::registration::Registration) (the slot in the
//! driver's table, with the readiness word and the waiters).
//!
//! What it promises:
//!
//! * **Registered while it lives.** [`new`](RegisteredSource::new)
//!   registers the source, and dropping the `RegisteredSource` deregisters
//!   it *before* the descriptor closes, so the driver never holds a token
//!   for a closed (and perhaps reused) descriptor.
//! * **Every operation is the ready/try/clear loop.** The three shapes of
//!   `registration.rs` cover every call a socket makes: a poll method that
//!   registers `cx` ([`poll_io`](RegisteredSource::poll_io)), an `async fn`
//!   on `&self` that waits in the waiter list
//!   ([`async_io`](RegisteredSource::async_io)), and one attempt without
//!   waiting ([`try_io`](RegisteredSource::try_io)). The operation is a
//!   closure given the source: `io.async_io(Direction::Read, |socket|
//!   socket.recv(buf))`.
//! * **Every operation that waits spends budget.** Each readiness check in
//!   those loops spends one unit of the task's cooperative budget (given
//!   back if it ends `Pending`), so a task looping on a socket that is
//!   always ready still yields to its worker. Since every socket method
//!   goes through here, no socket type can forget it.
//! * **A read that comes back short clears readiness** (byte streams
//!   only): see `Registration::poll_read_stream`.
//!
//! So the socket types are thin: a method of `TcpStream` is one line that
//! names the system call and hands it to one of these loops.
//!
//! Book: Chapter 7, "The I/O driver", and Chapter 8, "Sockets".

use super::registration::Registration;
use super::scheduled_io::Direction;
use crate::io::{Interest, Ready};
use std::io::{self, IoSlice, IoSliceMut, Read, Write};
use std::mem::MaybeUninit;
use std::ops::Deref;
use std::os::fd::{AsFd, OwnedFd};
use std::task::{Context, Poll, ready};

/// A `mio` source registered with the current runtime's I/O driver.
pub(crate) struct RegisteredSource<S: mio::event::Source> {
    /// `None` only after [`into_inner`](Self::into_inner) took it out.
    source: Option<S>,
    registration: Registration,
}

/// The one direction of an [`Interest`] that `try_io`/`async_io` wait on:
/// reading if it includes `READABLE`, else writing.
pub(crate) fn direction_of(interest: Interest) -> Direction {
    if interest.is_readable() {
        Direction::Read
    } else {
        Direction::Write
    }
}

impl<S: mio::event::Source> RegisteredSource<S> {
    /// Registers `source` with the current runtime's driver, for
    /// `interest`. Panics outside a runtime, as Tokio's sockets do (see
    /// [`Registration::new`]).
    #[track_caller]
    pub(crate) fn new(mut source: S, interest: mio::Interest) -> io::Result<Self> {
        let registration = Registration::new(&mut source, interest)?;
        Ok(RegisteredSource {
            source: Some(source),
            registration,
        })
    }

    /// Registers `source` for both directions: a stream or a datagram
    /// socket.
    #[track_caller]
    pub(crate) fn new_duplex(source: S) -> io::Result<Self> {
        RegisteredSource::new(source, mio::Interest::READABLE | mio::Interest::WRITABLE)
    }

    /// Takes the source off the driver and hands it back.
    pub(crate) fn into_inner(mut self) -> io::Result<S> {
        let mut source = self.source.take().expect("the source is taken only once");
        self.registration.deregister(&mut source)?;
        Ok(source)
    }

    /// Takes the source off the driver and hands its descriptor back as a
    /// `std` type (still non-blocking, as in Tokio).
    pub(crate) fn into_std<T: From<OwnedFd>>(self) -> io::Result<T>
    where
        OwnedFd: From<S>,
    {
        Ok(T::from(OwnedFd::from(self.into_inner()?)))
    }

    // ANCHOR: loops
    /// Polls until `direction` is ready and `op` does not say
    /// `WouldBlock`; only the waker of the last caller is kept (the
    /// reader's or the writer's slot).
    pub(crate) fn poll_io<R>(
        &self,
        cx: &mut Context<'_>,
        direction: Direction,
        mut op: impl FnMut(&S) -> io::Result<R>,
    ) -> Poll<io::Result<R>> {
        self.registration.poll_io(cx, direction, || op(self))
    }

    /// Waits (in the waiter list, so any number of tasks may) until
    /// `direction` is ready and `op` does not say `WouldBlock`.
    pub(crate) async fn async_io<R>(
        &self,
        direction: Direction,
        mut op: impl FnMut(&S) -> io::Result<R>,
    ) -> io::Result<R> {
        self.registration.async_io(direction, || op(self)).await
    }

    /// Runs `op` once if `direction` looks ready (`WouldBlock` at once if
    /// not); a `WouldBlock` from `op` clears that readiness.
    pub(crate) fn try_io<R>(
        &self,
        direction: Direction,
        op: impl FnOnce(&S) -> io::Result<R>,
    ) -> io::Result<R> {
        self.registration.try_io(direction, || op(self))
    }
    // ANCHOR_END: loops

    /// Polls for readiness in `direction`, with the waker of that
    /// direction's slot.
    pub(crate) fn poll_ready(
        &self,
        cx: &mut Context<'_>,
        direction: Direction,
    ) -> Poll<io::Result<()>> {
        ready!(self.registration.poll_ready(cx, direction))?;
        Poll::Ready(Ok(()))
    }

    /// Waits, in the waiter list, until `direction` is ready: `readable()`
    /// and `writable()`. Waiting consumes no readiness (only a `try_*`
    /// call that hits `WouldBlock` clears it), so a wait dropped half way
    /// loses nothing, and a wake-up may be spurious.
    pub(crate) async fn readiness(&self, direction: Direction) -> io::Result<()> {
        self.registration.readiness(direction).await?;
        Ok(())
    }

    /// Waits until any direction of `interest` is ready and returns what is
    /// set in those directions (e.g. `READABLE | READ_CLOSED`).
    pub(crate) async fn ready(&self, interest: Interest) -> io::Result<Ready> {
        Ok(Ready::from_driver(self.registration.ready(interest).await?))
    }
}

/// Byte streams: reads and writes through `Read` and `Write` on `&S`.
impl<S: mio::event::Source> RegisteredSource<S>
where
    for<'a> &'a S: Read + Write,
{
    /// `AsyncRead::poll_read`: a short read clears the readiness it used.
    pub(crate) fn poll_read(
        &self,
        cx: &mut Context<'_>,
        buf: &mut [u8],
    ) -> Poll<io::Result<usize>> {
        let len = buf.len();
        self.registration
            .poll_read_stream(cx, len, || (&**self).read(buf))
    }

    /// One `readv` into all of `bufs`.
    pub(crate) fn poll_read_vectored(
        &self,
        cx: &mut Context<'_>,
        bufs: &mut [IoSliceMut<'_>],
    ) -> Poll<io::Result<usize>> {
        let len = bufs.iter().map(|buf| buf.len()).sum();
        self.registration
            .poll_read_stream(cx, len, || (&**self).read_vectored(bufs))
    }

    /// `AsyncWrite::poll_write`.
    pub(crate) fn poll_write(&self, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        self.poll_io(cx, Direction::Write, |mut socket| socket.write(buf))
    }

    /// One `writev` for all of `bufs`. Without it, `futures`' default
    /// writes only the first non-empty buffer, and a caller with a header
    /// and a body (hyper) makes two system calls and sends two segments
    /// where one would do.
    pub(crate) fn poll_write_vectored(
        &self,
        cx: &mut Context<'_>,
        bufs: &[IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        self.poll_io(cx, Direction::Write, |mut socket| {
            socket.write_vectored(bufs)
        })
    }

    /// Reads what the kernel has, without waiting.
    pub(crate) fn try_read(&self, buf: &mut [u8]) -> io::Result<usize> {
        self.try_io(Direction::Read, |mut socket| socket.read(buf))
    }

    /// [`try_read`](Self::try_read) into several buffers (one `readv`).
    pub(crate) fn try_read_vectored(&self, bufs: &mut [IoSliceMut<'_>]) -> io::Result<usize> {
        self.try_io(Direction::Read, |mut socket| socket.read_vectored(bufs))
    }

    /// Writes what the kernel takes, without waiting.
    pub(crate) fn try_write(&self, buf: &[u8]) -> io::Result<usize> {
        self.try_io(Direction::Write, |mut socket| socket.write(buf))
    }

    /// [`try_write`](Self::try_write) from several buffers (one `writev`).
    pub(crate) fn try_write_vectored(&self, bufs: &[IoSlice<'_>]) -> io::Result<usize> {
        self.try_io(Direction::Write, |mut socket| socket.write_vectored(bufs))
    }
}

/// What every socket can do through its descriptor (`socket2::SockRef`).
impl<S: mio::event::Source + AsFd> RegisteredSource<S> {
    /// `poll_read` into memory that need not be initialized: the kernel
    /// writes the bytes that arrive and nothing else.
    pub(crate) fn poll_read_uninit(
        &self,
        cx: &mut Context<'_>,
        buf: &mut [MaybeUninit<u8>],
    ) -> Poll<io::Result<usize>> {
        let len = buf.len();
        let socket = socket2::SockRef::from(&**self);
        self.registration
            .poll_read_stream(cx, len, || socket.recv(buf))
    }

    /// Receives into the spare capacity of `buf` (a `BytesMut`, a
    /// `Vec<u8>`) without waiting, advancing it by what arrived; nothing is
    /// zeroed or copied. For a datagram socket, one datagram (cut to the
    /// room there is).
    pub(crate) fn try_recv_buf<B: bytes::BufMut + ?Sized>(&self, buf: &mut B) -> io::Result<usize> {
        self.try_io(Direction::Read, |socket| recv_spare(socket, buf))
    }

    /// [`try_recv_buf`](Self::try_recv_buf), waiting in the waiter list.
    pub(crate) async fn recv_buf<B: bytes::BufMut + ?Sized>(
        &self,
        buf: &mut B,
    ) -> io::Result<usize> {
        self.async_io(Direction::Read, |socket| recv_spare(socket, buf))
            .await
    }

    /// [`try_recv_buf`](Self::try_recv_buf) with the sender's address.
    pub(crate) fn try_recv_buf_from<B: bytes::BufMut + ?Sized>(
        &self,
        buf: &mut B,
    ) -> io::Result<(usize, socket2::SockAddr)> {
        self.try_io(Direction::Read, |socket| recv_spare_from(socket, buf))
    }

    /// [`recv_buf`](Self::recv_buf) with the sender's address.
    pub(crate) async fn recv_buf_from<B: bytes::BufMut + ?Sized>(
        &self,
        buf: &mut B,
    ) -> io::Result<(usize, socket2::SockAddr)> {
        self.async_io(Direction::Read, |socket| recv_spare_from(socket, buf))
            .await
    }

    /// Closes the write direction (the peer reads end of stream); a socket
    /// the peer has already closed has nothing left to shut.
    pub(crate) fn shutdown_write(&self) -> io::Result<()> {
        match socket2::SockRef::from(&**self).shutdown(std::net::Shutdown::Write) {
            Err(error) if error.kind() == io::ErrorKind::NotConnected => Ok(()),
            result => result,
        }
    }

    /// The pending socket error (`SO_ERROR`), taken.
    pub(crate) fn take_error(&self) -> io::Result<Option<io::Error>> {
        socket2::SockRef::from(&**self).take_error()
    }
}

/// One `recv` into the spare capacity of `buf`, advancing it.
fn recv_spare<B: bytes::BufMut + ?Sized>(socket: &impl AsFd, buf: &mut B) -> io::Result<usize> {
    fill_spare(buf, |spare| {
        let n = socket2::SockRef::from(socket).recv(spare)?;
        Ok((n, ()))
    })
    .map(|(n, ())| n)
}

/// One `recvfrom` into the spare capacity of `buf`, advancing it.
fn recv_spare_from<B: bytes::BufMut + ?Sized>(
    socket: &impl AsFd,
    buf: &mut B,
) -> io::Result<(usize, socket2::SockAddr)> {
    fill_spare(buf, |spare| socket2::SockRef::from(socket).recv_from(spare))
}

/// Lends the spare capacity of `buf` to `recv`, which returns how many
/// bytes it wrote there, and advances `buf` by that much.
fn fill_spare<B: bytes::BufMut + ?Sized, T>(
    buf: &mut B,
    recv: impl FnOnce(&mut [MaybeUninit<u8>]) -> io::Result<(usize, T)>,
) -> io::Result<(usize, T)> {
    // SAFETY: the receive calls given here (`socket2`'s) only write
    // received, initialized bytes into the slice; none writes
    // uninitialized ones.
    let spare = unsafe { buf.chunk_mut().as_uninit_slice_mut() };
    let room = spare.len();
    let (n, extra) = recv(spare)?;
    assert!(n <= room, "a receive reported more bytes than it was lent");
    // SAFETY: `recv` initialized the first `n` bytes of the chunk, and `n`
    // is at most its length (checked above).
    unsafe { buf.advance_mut(n) };
    Ok((n, extra))
}

/// The socket's own methods (`local_addr`, `set_ttl`...) are reached
/// through the `RegisteredSource`.
impl<S: mio::event::Source> Deref for RegisteredSource<S> {
    type Target = S;

    fn deref(&self) -> &S {
        self.source
            .as_ref()
            .expect("the source is there until into_inner")
    }
}

/// Shows the socket (its addresses and descriptor, as `mio` prints them).
impl<S: mio::event::Source + std::fmt::Debug> std::fmt::Debug for RegisteredSource<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.source {
            Some(source) => source.fmt(f),
            None => f.write_str("(taken off the driver)"),
        }
    }
}

impl<S: mio::event::Source> Drop for RegisteredSource<S> {
    fn drop(&mut self) {
        if let Some(mut source) = self.source.take() {
            // Off the driver first; then `source` drops and closes.
            let _ = self.registration.deregister(&mut source);
        }
    }
}
