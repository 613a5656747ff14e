//! Networking on the runtime's I/O driver: TCP ([`TcpListener`],
//! [`TcpStream`], [`TcpSocket`], and the split halves in [`tcp`]), UDP
//! ([`UdpSocket`]), Unix-domain streams ([`UnixListener`],
//! [`UnixStream`], [`UnixSocket`]) and Unix-domain datagrams
//! ([`UnixDatagram`]).
//!
//! Every type is a `RegisteredSource` of a non-blocking `mio` socket
//! (`core/io_driver/registered_source.rs`): the socket and its registration with
//! the driver, and every operation the ready/try/clear loop, written once
//! for all of them. The methods several types share are written once too,
//! as macros (`shared.rs`; `halves.rs` for the halves of a split stream).
//! The streams implement `futures::io::AsyncRead` and
//! `AsyncWrite`, so the `futures::io::{AsyncReadExt, AsyncWriteExt}` helpers
//! (`read`, `write_all`, `read_to_end`, `close`, `copy`...) work on them;
//! they also offer Tokio's readiness API (`readable`, `writable`,
//! `ready(Interest)`, `try_read`, `try_write`) on `&self`.
//!
//! Addresses come in through [`ToSocketAddrs`] (`addr.rs`): an address is
//! parsed on the spot, a host name resolved on the blocking pool, so no
//! worker ever waits for DNS.
//!
//! Book: Chapter 7, "The I/O driver", and Chapter 8, "Sockets".

mod addr;
mod halves;
mod shared;
pub mod tcp;
mod udp;
pub mod unix;

pub use addr::{ToSocketAddrs, lookup_host};
pub use tcp::{TcpListener, TcpSocket, TcpStream};
pub use udp::UdpSocket;
pub use unix::datagram::UnixDatagram;
pub use unix::socket::UnixSocket;
pub use unix::{UnixListener, UnixStream};
