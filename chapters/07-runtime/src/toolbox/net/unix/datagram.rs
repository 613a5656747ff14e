//! [`UnixDatagram`]: datagrams between processes on one machine.
//!
//! A Unix datagram socket is UDP's kind of socket with a path for its
//! address: each send is one datagram, each receive takes one whole datagram
//! (what does not fit the buffer is lost) and can say who sent it. To the
//! driver it is one more descriptor that becomes readable and writable, so
//! the type is UDP's: a `RegisteredSource` of the `mio` socket, with the
//! same readiness API and the same `send`/`recv` and `send_to`/`recv_from`
//! families, written once for both in `net/shared.rs`. What is Unix's own is
//! here: binding to a path, `pair` and `unbound`, `connect` (at once: there
//! is no handshake), `shutdown`, and reading a sender's address.
//!
//! A socket need not have a path. One from `unbound` or `pair` is
//! *unnamed*: it can send, and its datagrams arrive from an unnamed sender,
//! which the receiver cannot answer with `send_to`.
//!
//! As for every Unix socket, the socket file stays after the socket closes;
//! remove it before binding the path again.
//!
//! Book: Chapter 8, "Sockets".

use super::SocketAddr;
use crate::io_driver::registered_source::RegisteredSource;
use crate::io_driver::scheduled_io::Direction;
use crate::net::shared::{
    addressed_datagram_methods, datagram_methods, fd_impls, readiness_methods, try_from_std,
};
use std::io;
use std::net::Shutdown;
use std::path::Path;

/// A Unix-domain datagram socket.
#[derive(Debug)]
pub struct UnixDatagram {
    io: RegisteredSource<mio::net::UnixDatagram>,
}

impl UnixDatagram {
    /// Creates a socket bound to `path`, which must not exist yet; call
    /// inside a runtime.
    pub fn bind<P>(path: P) -> io::Result<UnixDatagram>
    where
        P: AsRef<Path>,
    {
        UnixDatagram::from_mio(mio::net::UnixDatagram::bind(path)?)
    }

    /// Two unnamed sockets connected to each other (`socketpair(2)`): what
    /// one `send`s, the other `recv`s.
    pub fn pair() -> io::Result<(UnixDatagram, UnixDatagram)> {
        let (a, b) = mio::net::UnixDatagram::pair()?;
        Ok((UnixDatagram::from_mio(a)?, UnixDatagram::from_mio(b)?))
    }

    /// Creates a socket bound to no path. It can send with `send_to`, or
    /// with `send` after `connect`; a receiver sees an unnamed sender.
    pub fn unbound() -> io::Result<UnixDatagram> {
        UnixDatagram::from_mio(mio::net::UnixDatagram::unbound()?)
    }

    /// Takes over a `std` socket. Tokio asks the caller to have set it
    /// non-blocking; here it is set non-blocking, as rt's other `from_std`
    /// do, so a blocking socket cannot stall a worker. Fails outside a
    /// runtime (Tokio's panics).
    pub fn from_std(datagram: std::os::unix::net::UnixDatagram) -> io::Result<UnixDatagram> {
        datagram.set_nonblocking(true)?;
        UnixDatagram::from_mio(mio::net::UnixDatagram::from_std(datagram))
    }

    pub(super) fn from_mio(io: mio::net::UnixDatagram) -> io::Result<UnixDatagram> {
        let io = RegisteredSource::new_duplex(io)?;
        Ok(UnixDatagram { io })
    }

    /// Gives the socket back as a `std` socket, taken off the driver, still
    /// in non-blocking mode (as in Tokio): call `set_nonblocking(false)`
    /// before a blocking receive.
    pub fn into_std(self) -> io::Result<std::os::unix::net::UnixDatagram> {
        self.io.into_std()
    }

    readiness_methods!();
    datagram_methods!();
    addressed_datagram_methods!(
        sender: SocketAddr, from sender_address;
        target: [P: AsRef<Path>] target: P => target.as_ref()
    );

    /// Sets the default peer, the socket bound at `path`: `send` goes
    /// there, and only its datagrams are received from now on. A Unix
    /// connect has no handshake, so this completes at once (or fails, if
    /// nothing is bound at `path`).
    pub fn connect<P: AsRef<Path>>(&self, path: P) -> io::Result<()> {
        self.io.connect(path)
    }

    /// Sends one datagram to the socket bound at `target`; returns the bytes
    /// sent, all of `buf` or an error.
    ///
    /// Cancel safety: a datagram is sent only by a call that returns its
    /// length.
    pub async fn send_to<P>(&self, buf: &[u8], target: P) -> io::Result<usize>
    where
        P: AsRef<Path>,
    {
        let target = target.as_ref();
        self.io
            .async_io(Direction::Write, |socket| socket.send_to(buf, target))
            .await
    }

    /// The address it is bound to (unnamed if none).
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.io.local_addr()
    }

    /// The connected peer's address (`NotConnected` before `connect`;
    /// unnamed for the other end of a `pair`).
    pub fn peer_addr(&self) -> io::Result<SocketAddr> {
        self.io.peer_addr()
    }

    /// Shuts down reading, writing or both (`shutdown(2)`): a send after
    /// `Shutdown::Write` fails.
    pub fn shutdown(&self, how: Shutdown) -> io::Result<()> {
        self.io.shutdown(how)
    }
}

/// The sender of a datagram that `socket2` received, as std's address.
///
/// std can make a path's address but has no constructor for the other two
/// kinds, so each is built another way. An unnamed sender comes back from
/// the kernel as an empty address (Linux gives no bytes at all, not even
/// the family), and unix(7) defines an unnamed address as one with no path
/// bytes, which is what `from_pathname` makes of an empty path. An abstract
/// name (Linux) goes through `SocketAddrExt`.
fn sender_address(addr: socket2::SockAddr) -> io::Result<SocketAddr> {
    if let Some(path) = addr.as_pathname() {
        return SocketAddr::from_pathname(path);
    }
    if addr.len() == 0 || addr.is_unnamed() {
        return SocketAddr::from_pathname("");
    }
    #[cfg(target_os = "linux")]
    if let Some(name) = addr.as_abstract_namespace() {
        use std::os::linux::net::SocketAddrExt;
        return SocketAddr::from_abstract_name(name);
    }
    Err(io::Error::new(
        io::ErrorKind::InvalidData,
        "not a Unix-domain sender",
    ))
}

fd_impls!(UnixDatagram);
try_from_std!(UnixDatagram: std::os::unix::net::UnixDatagram);
