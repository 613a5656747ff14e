//! `TcpSocket`: a TCP socket configured before it becomes a stream or a
//! listener, as Tokio's `TcpSocket` does.
//!
//! `TcpStream::connect` and `TcpListener::bind` cover the usual case; some
//! options only work if they are set *before* `bind`, `listen` or
//! `connect`: `SO_REUSEADDR` (bind a port still in `TIME_WAIT` after a
//! restart), `SO_REUSEPORT` (several listeners on one port, the kernel
//! spreading connections over them), the buffer sizes (the TCP window is
//! negotiated at the handshake). So a `TcpSocket` is the bare socket, made
//! with the `socket2` crate (a thin, safe wrapper over `socket(2)` and
//! `setsockopt(2)`), and it turns into a registered [`TcpStream`] on
//! `connect` or a [`TcpListener`] on `listen`. Nothing touches the driver
//! until then.
//!
//! Book: Chapter 8, "Sockets".

use super::{TcpListener, TcpStream};
use crate::net::shared::deprecated_tos;
use socket2::{Domain, Protocol, SockAddr, Socket, Type};
use std::fmt;
use std::io;
use std::net::SocketAddr;

/// A TCP socket not yet connected or listening.
pub struct TcpSocket {
    inner: Socket,
}

impl TcpSocket {
    /// A new IPv4 socket (non-blocking, close-on-exec).
    pub fn new_v4() -> io::Result<TcpSocket> {
        TcpSocket::new(Domain::IPV4)
    }

    /// A new IPv6 socket (non-blocking, close-on-exec).
    pub fn new_v6() -> io::Result<TcpSocket> {
        TcpSocket::new(Domain::IPV6)
    }

    fn new(domain: Domain) -> io::Result<TcpSocket> {
        // socket2 sets close-on-exec itself on Linux.
        let inner = Socket::new(domain, Type::STREAM, Some(Protocol::TCP))?;
        inner.set_nonblocking(true)?;
        Ok(TcpSocket { inner })
    }

    /// Takes over a `std` stream's socket, to set options on it before it
    /// connects or listens.
    pub fn from_std_stream(stream: std::net::TcpStream) -> TcpSocket {
        TcpSocket {
            inner: Socket::from(stream),
        }
    }

    /// `SO_REUSEADDR`: allow binding an address still held by a closed
    /// connection in `TIME_WAIT` (a server restarting on its port).
    pub fn set_reuseaddr(&self, reuseaddr: bool) -> io::Result<()> {
        self.inner.set_reuse_address(reuseaddr)
    }

    /// Whether `SO_REUSEADDR` is set.
    pub fn reuseaddr(&self) -> io::Result<bool> {
        self.inner.reuse_address()
    }

    /// `SO_REUSEPORT`: allow several sockets to bind the same address and
    /// port (each must set it); the kernel spreads connections over them.
    pub fn set_reuseport(&self, reuseport: bool) -> io::Result<()> {
        self.inner.set_reuse_port(reuseport)
    }

    /// Whether `SO_REUSEPORT` is set.
    pub fn reuseport(&self) -> io::Result<bool> {
        self.inner.reuse_port()
    }

    /// `SO_SNDBUF`: the kernel's send buffer, in bytes (Linux doubles the
    /// value for its bookkeeping, and reports the doubled size).
    pub fn set_send_buffer_size(&self, size: u32) -> io::Result<()> {
        self.inner.set_send_buffer_size(size as usize)
    }

    /// The send buffer's size, as the kernel reports it.
    pub fn send_buffer_size(&self) -> io::Result<u32> {
        self.inner
            .send_buffer_size()
            .map(|size| u32::try_from(size).unwrap_or(u32::MAX))
    }

    /// `SO_RCVBUF`: the kernel's receive buffer, in bytes (doubled, as for
    /// the send buffer).
    pub fn set_recv_buffer_size(&self, size: u32) -> io::Result<()> {
        self.inner.set_recv_buffer_size(size as usize)
    }

    /// The receive buffer's size, as the kernel reports it.
    pub fn recv_buffer_size(&self) -> io::Result<u32> {
        self.inner
            .recv_buffer_size()
            .map(|size| u32::try_from(size).unwrap_or(u32::MAX))
    }

    /// `SO_KEEPALIVE`: probe an idle connection.
    pub fn set_keepalive(&self, keepalive: bool) -> io::Result<()> {
        self.inner.set_keepalive(keepalive)
    }

    /// Whether `SO_KEEPALIVE` is set.
    pub fn keepalive(&self) -> io::Result<bool> {
        self.inner.keepalive()
    }

    /// `SO_LINGER`: see [`TcpStream::set_linger`].
    #[deprecated = "`SO_LINGER` with a timeout blocks the thread that closes the socket; use `set_zero_linger`"]
    pub fn set_linger(&self, dur: Option<std::time::Duration>) -> io::Result<()> {
        self.inner.set_linger(dur)
    }

    /// `SO_LINGER` with a zero timeout: closing sends a reset.
    pub fn set_zero_linger(&self) -> io::Result<()> {
        self.inner.set_linger(Some(std::time::Duration::ZERO))
    }

    /// The current `SO_LINGER`.
    pub fn linger(&self) -> io::Result<Option<std::time::Duration>> {
        self.inner.linger()
    }

    /// `TCP_NODELAY`: turn Nagle's algorithm off (true) or on.
    pub fn set_nodelay(&self, nodelay: bool) -> io::Result<()> {
        self.inner.set_tcp_nodelay(nodelay)
    }

    /// Whether `TCP_NODELAY` is set.
    pub fn nodelay(&self) -> io::Result<bool> {
        self.inner.tcp_nodelay()
    }

    /// `IP_TOS`: the type-of-service byte of the IPv4 packets the
    /// connection will send (the DSCP and ECN bits). An error on an IPv6
    /// socket.
    pub fn tos_v4(&self) -> io::Result<u32> {
        self.inner.tos_v4()
    }

    /// Sets `IP_TOS` (see [`tos_v4`](Self::tos_v4)).
    pub fn set_tos_v4(&self, tos: u32) -> io::Result<()> {
        self.inner.set_tos_v4(tos)
    }

    deprecated_tos!();

    /// `IPV6_TCLASS`: the traffic class of the IPv6 packets the connection
    /// will send, IPv6's counterpart of [`tos_v4`](Self::tos_v4). An error
    /// on an IPv4 socket.
    pub fn tclass_v6(&self) -> io::Result<u32> {
        self.inner.tclass_v6()
    }

    /// Sets `IPV6_TCLASS` (see [`tclass_v6`](Self::tclass_v6)).
    pub fn set_tclass_v6(&self, tclass: u32) -> io::Result<()> {
        self.inner.set_tclass_v6(tclass)
    }

    /// `SO_BINDTODEVICE`: the name of the network interface the socket is
    /// bound to, or `None` if it may use any.
    pub fn device(&self) -> io::Result<Option<Vec<u8>>> {
        self.inner.device()
    }

    /// Binds the socket to the interface named `interface` (`b"lo"`), so
    /// the connection goes through that one only; `None` undoes it. Linux
    /// asks for `CAP_NET_RAW` to bind (an unprivileged caller gets
    /// `PermissionDenied`), not to unbind.
    pub fn bind_device(&self, interface: Option<&[u8]>) -> io::Result<()> {
        self.inner.bind_device(interface)
    }

    /// Binds the socket to `addr` (port 0: any free port).
    pub fn bind(&self, addr: SocketAddr) -> io::Result<()> {
        self.inner.bind(&SockAddr::from(addr))
    }

    /// The address the socket is bound to.
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.inner
            .local_addr()?
            .as_socket()
            .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "not an IP socket address"))
    }

    /// The pending socket error (`SO_ERROR`), taken.
    pub fn take_error(&self) -> io::Result<Option<io::Error>> {
        self.inner.take_error()
    }

    // ANCHOR: connect
    /// Connects to `addr` and registers the stream with the driver.
    pub async fn connect(self, addr: SocketAddr) -> io::Result<TcpStream> {
        // A non-blocking connect returns at once with EINPROGRESS; the
        // stream becomes writable when the handshake is done.
        self.inner.set_nonblocking(true)?;
        match self.inner.connect(&SockAddr::from(addr)) {
            Ok(()) => {}
            Err(error) if error.raw_os_error() == Some(libc::EINPROGRESS) => {}
            Err(error) => return Err(error),
        }
        let stream = std::net::TcpStream::from(self.inner);
        TcpStream::connect_mio(mio::net::TcpStream::from_std(stream)).await
    }

    /// Listens, with a queue of `backlog` connections waiting for `accept`
    /// (the kernel caps it at `net.core.somaxconn`).
    pub fn listen(self, backlog: u32) -> io::Result<TcpListener> {
        let backlog = i32::try_from(backlog).unwrap_or(i32::MAX);
        self.inner.set_nonblocking(true)?;
        self.inner.listen(backlog)?;
        let listener = std::net::TcpListener::from(self.inner);
        TcpListener::from_mio(mio::net::TcpListener::from_std(listener))
    }
    // ANCHOR_END: connect
}

impl std::os::fd::AsRawFd for TcpSocket {
    fn as_raw_fd(&self) -> std::os::fd::RawFd {
        self.inner.as_raw_fd()
    }
}

impl std::os::fd::AsFd for TcpSocket {
    fn as_fd(&self) -> std::os::fd::BorrowedFd<'_> {
        self.inner.as_fd()
    }
}

impl std::os::fd::FromRawFd for TcpSocket {
    /// Takes over `fd`, a TCP socket not yet connected or listening, to
    /// set options on it; it is set non-blocking when it connects or
    /// listens.
    ///
    /// # Safety
    ///
    /// `fd` must be an open socket that nothing else owns or closes.
    unsafe fn from_raw_fd(fd: std::os::fd::RawFd) -> TcpSocket {
        // SAFETY: the caller passes an open descriptor that it gives up,
        // which is what `Socket::from_raw_fd` asks.
        let inner = unsafe { <Socket as std::os::fd::FromRawFd>::from_raw_fd(fd) };
        TcpSocket { inner }
    }
}

impl std::os::fd::IntoRawFd for TcpSocket {
    /// Gives up the descriptor: the caller closes it.
    fn into_raw_fd(self) -> std::os::fd::RawFd {
        std::os::fd::IntoRawFd::into_raw_fd(self.inner)
    }
}

impl fmt::Debug for TcpSocket {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TcpSocket")
            .field("local", &self.local_addr().ok())
            .finish()
    }
}
