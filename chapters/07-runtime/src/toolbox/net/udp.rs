//! `UdpSocket`: datagrams on the runtime's I/O driver.
//!
//! UDP has no connection and no stream: each `send_to` is one datagram to
//! one address, each `recv_from` takes one whole datagram (the part that
//! does not fit the buffer is lost) and says who sent it. The driver does
//! not care: a UDP socket is readable when a datagram waits and writable
//! when the send buffer has room, so every method is the same
//! ready/try/clear loop as TCP's, on `&self`, through the socket's waiter
//! list; any number of tasks may send and receive on one shared socket.
//!
//! `connect` gives the socket a default peer: `send` and `recv` then need
//! no address, and the kernel drops datagrams from any other address, so
//! `recv` only ever sees the peer's.
//!
//! Each operation comes in Tokio's three forms: an `async fn` (waits in the
//! waiter list), a `try_` method (one attempt), and a `poll_` method for
//! code that writes its own futures (waits in the reader or writer slot;
//! the last caller's waker is kept). All three run on the socket's
//! `RegisteredSource`, so the `async` and `poll_` forms spend the task's
//! cooperative budget as Tokio's do: a task looping on a socket that is
//! always ready still yields. The `poll_` receives take the bytes and
//! return the length, where Tokio's fill a `ReadBuf` (as `poll_read` does
//! in rt, see `rt::io`).
//!
//! Most of those methods are `UnixDatagram`'s too, with other addresses, so
//! they are written once, as macros in `net/shared.rs`; what is UDP's own
//! is here: `send_to` resolving a host name, the peeks and the IP options.
//!
//! Book: Chapter 8, "Sockets".

use super::addr::{self, ToSocketAddrs, first_that_works};
use super::shared::{
    addressed_datagram_methods, datagram_methods, deprecated_tos, fd_impls, readiness_methods,
    try_from_std,
};
use crate::io_driver::registered_source::RegisteredSource;
use crate::io_driver::scheduled_io::Direction;
use std::io;
use std::net::{Ipv4Addr, Ipv6Addr, SocketAddr};
use std::task::{Context, Poll};

/// A UDP socket.
#[derive(Debug)]
pub struct UdpSocket {
    io: RegisteredSource<mio::net::UdpSocket>,
}

impl UdpSocket {
    /// Binds to `addr` (the first address it resolves to that binds).
    pub async fn bind(addr: impl ToSocketAddrs) -> io::Result<UdpSocket> {
        first_that_works(addr, |addr| async move {
            UdpSocket::from_mio(mio::net::UdpSocket::bind(addr)?)
        })
        .await
    }

    /// Takes over a bound `std` socket (set non-blocking here).
    pub fn from_std(socket: std::net::UdpSocket) -> io::Result<UdpSocket> {
        socket.set_nonblocking(true)?;
        UdpSocket::from_mio(mio::net::UdpSocket::from_std(socket))
    }

    fn from_mio(io: mio::net::UdpSocket) -> io::Result<UdpSocket> {
        let io = RegisteredSource::new_duplex(io)?;
        Ok(UdpSocket { io })
    }

    readiness_methods!();
    datagram_methods!();
    addressed_datagram_methods!(
        sender: SocketAddr, from inet;
        target: [] target: SocketAddr => target
    );

    /// Sets the default peer (the first address `addr` resolves to that
    /// the kernel accepts): `send` goes there, and only its datagrams are
    /// received from now on.
    pub async fn connect(&self, addr: impl ToSocketAddrs) -> io::Result<()> {
        first_that_works(addr, |addr| std::future::ready(self.io.connect(addr))).await
    }

    /// Gives the socket back as a `std` socket, taken off the driver, still
    /// in non-blocking mode (as in Tokio).
    pub fn into_std(self) -> io::Result<std::net::UdpSocket> {
        self.io.into_std()
    }

    /// The address it is bound to.
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.io.local_addr()
    }

    /// The connected peer's address (`NotConnected` before `connect`).
    pub fn peer_addr(&self) -> io::Result<SocketAddr> {
        self.io.peer_addr()
    }

    // ANCHOR: datagrams
    /// Sends one datagram to `target` (the first address it resolves to);
    /// returns the bytes sent, all of `buf` or an error.
    pub async fn send_to(&self, buf: &[u8], target: impl ToSocketAddrs) -> io::Result<usize> {
        let target = addr::first(target).await?;
        self.io
            .async_io(Direction::Write, |socket| socket.send_to(buf, target))
            .await
    }
    // ANCHOR_END: datagrams

    /// Waits for a datagram and copies it into `buf` without taking it: the
    /// next receive returns it again.
    pub async fn peek_from(&self, buf: &mut [u8]) -> io::Result<(usize, SocketAddr)> {
        self.io
            .async_io(Direction::Read, |socket| socket.peek_from(buf))
            .await
    }

    /// Waits for a datagram from the connected peer and copies it into
    /// `buf` without taking it.
    pub async fn peek(&self, buf: &mut [u8]) -> io::Result<usize> {
        self.io
            .async_io(Direction::Read, |socket| socket.peek(buf))
            .await
    }

    /// [`peek`](Self::peek) without waiting (`WouldBlock` if no datagram
    /// waits).
    pub fn try_peek(&self, buf: &mut [u8]) -> io::Result<usize> {
        self.io.try_io(Direction::Read, |socket| socket.peek(buf))
    }

    /// [`peek_from`](Self::peek_from) without waiting.
    pub fn try_peek_from(&self, buf: &mut [u8]) -> io::Result<(usize, SocketAddr)> {
        self.io
            .try_io(Direction::Read, |socket| socket.peek_from(buf))
    }

    /// Waits for a datagram and returns who sent it, leaving the datagram
    /// in the queue (`MSG_PEEK` with an empty buffer).
    pub async fn peek_sender(&self) -> io::Result<SocketAddr> {
        self.io.async_io(Direction::Read, peek_sender).await
    }

    /// [`peek_sender`](Self::peek_sender) without waiting.
    pub fn try_peek_sender(&self) -> io::Result<SocketAddr> {
        self.io.try_io(Direction::Read, peek_sender)
    }

    /// [`peek`](Self::peek) as a poll method (the datagram stays queued).
    pub fn poll_peek(&self, cx: &mut Context<'_>, buf: &mut [u8]) -> Poll<io::Result<usize>> {
        self.io
            .poll_io(cx, Direction::Read, |socket| socket.peek(buf))
    }

    /// [`peek_from`](Self::peek_from) as a poll method (the datagram stays
    /// queued).
    pub fn poll_peek_from(
        &self,
        cx: &mut Context<'_>,
        buf: &mut [u8],
    ) -> Poll<io::Result<(usize, SocketAddr)>> {
        self.io
            .poll_io(cx, Direction::Read, |socket| socket.peek_from(buf))
    }

    /// [`peek_sender`](Self::peek_sender) as a poll method.
    pub fn poll_peek_sender(&self, cx: &mut Context<'_>) -> Poll<io::Result<SocketAddr>> {
        self.io.poll_io(cx, Direction::Read, peek_sender)
    }

    /// `SO_BROADCAST`: allow sending to a broadcast address.
    pub fn set_broadcast(&self, on: bool) -> io::Result<()> {
        self.io.set_broadcast(on)
    }

    /// Whether `SO_BROADCAST` is set.
    pub fn broadcast(&self) -> io::Result<bool> {
        self.io.broadcast()
    }

    /// `IP_TTL` for outgoing datagrams.
    pub fn set_ttl(&self, ttl: u32) -> io::Result<()> {
        self.io.set_ttl(ttl)
    }

    /// The current `IP_TTL`.
    pub fn ttl(&self) -> io::Result<u32> {
        self.io.ttl()
    }

    /// Joins the IPv4 multicast group `multiaddr` on the interface with
    /// address `interface` (`Ipv4Addr::UNSPECIFIED`: the kernel picks).
    pub fn join_multicast_v4(&self, multiaddr: Ipv4Addr, interface: Ipv4Addr) -> io::Result<()> {
        self.io.join_multicast_v4(&multiaddr, &interface)
    }

    /// Joins the IPv6 multicast group `multiaddr` on interface number
    /// `interface` (0: the kernel picks).
    pub fn join_multicast_v6(&self, multiaddr: &Ipv6Addr, interface: u32) -> io::Result<()> {
        self.io.join_multicast_v6(multiaddr, interface)
    }

    /// Leaves an IPv4 multicast group.
    pub fn leave_multicast_v4(&self, multiaddr: Ipv4Addr, interface: Ipv4Addr) -> io::Result<()> {
        self.io.leave_multicast_v4(&multiaddr, &interface)
    }

    /// Leaves an IPv6 multicast group.
    pub fn leave_multicast_v6(&self, multiaddr: &Ipv6Addr, interface: u32) -> io::Result<()> {
        self.io.leave_multicast_v6(multiaddr, interface)
    }

    /// `IP_MULTICAST_LOOP`: whether this host receives its own multicast.
    pub fn multicast_loop_v4(&self) -> io::Result<bool> {
        self.io.multicast_loop_v4()
    }

    /// Sets `IP_MULTICAST_LOOP`.
    pub fn set_multicast_loop_v4(&self, on: bool) -> io::Result<()> {
        self.io.set_multicast_loop_v4(on)
    }

    /// `IP_MULTICAST_TTL`: how many hops multicast datagrams may travel.
    pub fn multicast_ttl_v4(&self) -> io::Result<u32> {
        self.io.multicast_ttl_v4()
    }

    /// Sets `IP_MULTICAST_TTL`.
    pub fn set_multicast_ttl_v4(&self, ttl: u32) -> io::Result<()> {
        self.io.set_multicast_ttl_v4(ttl)
    }

    /// `IPV6_MULTICAST_LOOP`.
    pub fn multicast_loop_v6(&self) -> io::Result<bool> {
        self.io.multicast_loop_v6()
    }

    /// Sets `IPV6_MULTICAST_LOOP`.
    pub fn set_multicast_loop_v6(&self, on: bool) -> io::Result<()> {
        self.io.set_multicast_loop_v6(on)
    }

    /// `IP_TOS`: the type-of-service byte of outgoing IPv4 datagrams (the
    /// DSCP and ECN bits). An error on an IPv6 socket.
    pub fn tos_v4(&self) -> io::Result<u32> {
        socket2::SockRef::from(self).tos_v4()
    }

    /// Sets `IP_TOS` (see [`tos_v4`](Self::tos_v4)).
    pub fn set_tos_v4(&self, tos: u32) -> io::Result<()> {
        socket2::SockRef::from(self).set_tos_v4(tos)
    }

    deprecated_tos!();

    /// `IPV6_TCLASS`: the traffic class of outgoing IPv6 datagrams, IPv6's
    /// counterpart of [`tos_v4`](Self::tos_v4). An error on an IPv4 socket.
    pub fn tclass_v6(&self) -> io::Result<u32> {
        socket2::SockRef::from(self).tclass_v6()
    }

    /// Sets `IPV6_TCLASS` (see [`tclass_v6`](Self::tclass_v6)).
    pub fn set_tclass_v6(&self, tclass: u32) -> io::Result<()> {
        socket2::SockRef::from(self).set_tclass_v6(tclass)
    }

    /// `SO_BINDTODEVICE`: the name of the network interface the socket is
    /// bound to, or `None` if it may use any.
    pub fn device(&self) -> io::Result<Option<Vec<u8>>> {
        socket2::SockRef::from(self).device()
    }

    /// Binds the socket to the interface named `interface` (`b"lo"`), so it
    /// sends and receives through that one only; `None` undoes it. Linux
    /// asks for `CAP_NET_RAW` to bind (an unprivileged caller gets
    /// `PermissionDenied`), not to unbind.
    pub fn bind_device(&self, interface: Option<&[u8]>) -> io::Result<()> {
        socket2::SockRef::from(self).bind_device(interface)
    }
}

/// Who sent the datagram at the head of the queue (`MSG_PEEK` with an empty
/// buffer).
fn peek_sender(socket: &mio::net::UdpSocket) -> io::Result<SocketAddr> {
    inet(socket2::SockRef::from(socket).peek_sender()?)
}

/// An IP socket address from `socket2`'s any-family address.
fn inet(addr: socket2::SockAddr) -> io::Result<SocketAddr> {
    addr.as_socket()
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidData, "not an IP sender"))
}

fd_impls!(UdpSocket);
try_from_std!(UdpSocket: std::net::UdpSocket);
