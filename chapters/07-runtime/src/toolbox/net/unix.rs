//! Unix-domain stream sockets: [`UnixListener`] and [`UnixStream`].
//!
//! A Unix socket is a stream between two processes on one machine, named by
//! a path in the file system instead of an address and port. To the driver
//! it is one more descriptor that becomes readable and writable, so these
//! types are TCP's: a `RegisteredSource` of the `mio` socket, with the same
//! `AsyncRead`/`AsyncWrite`, readiness API and halves (`unix/split.rs`),
//! each written once for both (`net/shared.rs`, `net/halves.rs`).
//!
//! The socket file stays after the listener closes (as with any Unix
//! socket); remove it before binding the path again.
//!
//! Unix datagrams are in `unix/datagram.rs`: `UnixDatagram` is UDP's kind of
//! socket, not a stream, and is exported as `rt::net::UnixDatagram`, where
//! Tokio has it. `unix/socket.rs` has [`UnixSocket`](super::UnixSocket),
//! a socket set up before it listens, connects or becomes a datagram
//! socket; `unix/ucred.rs` the peer's credentials ([`UCred`]); and
//! [`pipe`] anonymous pipes and FIFOs, on the same driver plumbing.
//!
//! Book: Chapter 8, "Sockets".

pub(super) mod datagram;
pub mod pipe;
pub(super) mod socket;
mod split;
mod ucred;

pub use split::{OwnedReadHalf, OwnedWriteHalf, ReadHalf, ReuniteError, WriteHalf};
pub use ucred::{UCred, gid_t, pid_t, uid_t};

/// The address of a Unix socket: a path, an abstract name (Linux) or none
/// (unnamed), at Tokio's path `net::unix::SocketAddr`.
///
/// Tokio's is a wrapper of std's type with `is_unnamed`, `as_pathname` and
/// (on Linux) `as_abstract_name`, and `From` each way; ours is std's type
/// itself, so the first two and the conversions are the same, and
/// `as_abstract_name` needs `std::os::linux::net::SocketAddrExt` in scope.
pub use std::os::unix::net::SocketAddr;

use super::shared::{
    fd_impls, listener_methods, readiness_methods, stream_methods, stream_traits, try_from_std,
};
use crate::io_driver::registered_source::RegisteredSource;
use std::io;
use std::path::Path;

/// The socket address `path` names: the file at that path, or, when its
/// first byte is NUL, the abstract name made of the bytes after it (Linux's
/// namespace of socket names that are not files). Tokio reads a path that
/// way in `UnixListener::bind` and `UnixStream::connect` (since 1.39.3);
/// `std` and `mio` refuse a NUL in a path.
fn socket_addr_of(path: &Path) -> io::Result<SocketAddr> {
    use std::os::linux::net::SocketAddrExt;
    use std::os::unix::ffi::OsStrExt;
    match path.as_os_str().as_bytes().strip_prefix(b"\0") {
        Some(name) => SocketAddr::from_abstract_name(name),
        None => SocketAddr::from_pathname(path),
    }
}

/// A listening Unix-domain socket.
#[derive(Debug)]
pub struct UnixListener {
    io: RegisteredSource<mio::net::UnixListener>,
}

/// A Unix-domain stream.
#[derive(Debug)]
pub struct UnixStream {
    io: RegisteredSource<mio::net::UnixStream>,
}

impl UnixListener {
    /// Binds to `path` (which must not exist yet); call inside a runtime.
    ///
    /// As with Tokio on Linux, a `path` whose first byte is NUL (`"\0name"`)
    /// binds the abstract name after that byte instead of a file.
    pub fn bind(path: impl AsRef<Path>) -> io::Result<UnixListener> {
        UnixListener::bind_addr(&socket_addr_of(path.as_ref())?)
    }

    /// Binds to `socket_addr`, which may name a path or (Linux) an
    /// abstract name, as std's `SocketAddr::from_abstract_name` makes;
    /// call inside a runtime.
    pub fn bind_addr(socket_addr: &SocketAddr) -> io::Result<UnixListener> {
        UnixListener::from_mio(mio::net::UnixListener::bind_addr(socket_addr)?)
    }

    /// Takes over a bound `std` listener (set non-blocking here).
    pub fn from_std(listener: std::os::unix::net::UnixListener) -> io::Result<UnixListener> {
        listener.set_nonblocking(true)?;
        UnixListener::from_mio(mio::net::UnixListener::from_std(listener))
    }

    fn from_mio(io: mio::net::UnixListener) -> io::Result<UnixListener> {
        let io = RegisteredSource::new(io, mio::Interest::READABLE)?;
        Ok(UnixListener { io })
    }

    listener_methods!(
        mio::net::UnixListener,
        UnixStream,
        SocketAddr,
        std::os::unix::net::UnixListener
    );

    /// The pending socket error (`SO_ERROR`), taken.
    pub fn take_error(&self) -> io::Result<Option<io::Error>> {
        self.io.take_error()
    }
}

impl UnixStream {
    /// Connects to the socket at `path`; as for [`UnixListener::bind`], a
    /// `path` whose first byte is NUL names an abstract socket (Linux).
    pub async fn connect(path: impl AsRef<Path>) -> io::Result<UnixStream> {
        UnixStream::connect_addr(&socket_addr_of(path.as_ref())?).await
    }

    /// Connects to the socket `socket_addr` names: a path or (Linux) an
    /// abstract name, as for [`UnixListener::bind_addr`].
    pub async fn connect_addr(socket_addr: &SocketAddr) -> io::Result<UnixStream> {
        UnixStream::connect_mio(mio::net::UnixStream::connect_addr(socket_addr)?).await
    }

    /// Registers a socket whose non-blocking connect has begun (here, or in
    /// `UnixSocket::connect`) and waits for it to finish.
    pub(super) async fn connect_mio(io: mio::net::UnixStream) -> io::Result<UnixStream> {
        let stream = UnixStream::from_mio(io)?;
        // As for TCP: the connect is done when the socket is writable, and
        // SO_ERROR says whether it worked.
        stream.writable().await?;
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

    fn from_mio(io: mio::net::UnixStream) -> io::Result<UnixStream> {
        let io = RegisteredSource::new_duplex(io)?;
        Ok(UnixStream { io })
    }

    readiness_methods!();
    stream_methods!();

    /// This end's address.
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.io.local_addr()
    }

    /// The peer's address.
    pub fn peer_addr(&self) -> io::Result<SocketAddr> {
        self.io.peer_addr()
    }

    /// The credentials of the peer process (`SO_PEERCRED`), as the kernel
    /// took them when the connection was made: for an accepted stream, the
    /// client's at its `connect`; for a connected one, the server's at its
    /// `listen`; for a `pair`, the process that made it.
    pub fn peer_cred(&self) -> io::Result<UCred> {
        ucred::peer_cred(self)
    }

    /// Gives the stream back as a `std` stream, taken off the driver, still
    /// non-blocking (as in Tokio).
    pub fn into_std(self) -> io::Result<std::os::unix::net::UnixStream> {
        self.io.into_std()
    }

    /// A read half and a write half borrowing the stream; see
    /// `TcpStream::split` (and call it as `UnixStream::split(&mut stream)`
    /// when `futures::io::AsyncReadExt` is in scope).
    pub fn split(&mut self) -> (ReadHalf<'_>, WriteHalf<'_>) {
        split::split(self)
    }

    /// Two owned halves (one `Arc` inside) that can move to two tasks;
    /// dropping the write half shuts down writing. As
    /// `TcpStream::into_split`.
    pub fn into_split(self) -> (OwnedReadHalf, OwnedWriteHalf) {
        split::into_split(self)
    }

    /// Closes the write direction (the peer reads end of stream).
    pub fn shutdown_write(&self) -> io::Result<()> {
        self.io.shutdown_write()
    }
}

stream_traits!(both UnixStream, |stream| stream.io);

/// The stream itself, for code generic over "a stream or one of its
/// halves" (`S: AsRef<UnixStream>`), as in Tokio.
impl AsRef<UnixStream> for UnixStream {
    fn as_ref(&self) -> &Self {
        self
    }
}

fd_impls!(UnixListener, UnixStream);
try_from_std!(
    UnixListener: std::os::unix::net::UnixListener,
    UnixStream: std::os::unix::net::UnixStream
);
