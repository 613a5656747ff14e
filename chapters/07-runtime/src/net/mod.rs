//! Networking on the runtime's I/O driver: TCP ([`TcpListener`],
//! [`TcpStream`], [`TcpSocket`], and the split halves in [`tcp`]), UDP
//! ([`UdpSocket`]) and Unix-domain streams ([`UnixListener`],
//! [`UnixStream`]).
//!
//! Every type is a `RegisteredSource` of a non-blocking `mio` socket
//! (`io/driver/registered_source.rs`): the socket and its registration with
//! the driver, and every operation the ready/try/clear loop, written once
//! for all of them. The methods several types share are written once too,
//! as macros (`shared.rs`; `halves.rs` for the halves of a split stream).
//! The streams implement `futures::io::AsyncRead` and
//! `AsyncWrite`, so the `futures::io::{AsyncReadExt, AsyncWriteExt}` helpers
//! (`read`, `write_all`, `read_to_end`, `close`, `copy`...) work on them;
//! they also offer Tokio's readiness API (`readable`, `writable`,
//! `ready(Interest)`, `try_read`, `try_write`) on `&self`.
//!
//! Book: Chapter 7, "The I/O driver" and "Sockets and signals".

mod halves;
mod shared;
pub mod tcp;
mod udp;
pub mod unix;

/// What `bind`, `connect` and `send_to` accept: an address, or anything
/// std can turn into addresses. Tokio's trait of this name also resolves
/// host names without blocking (on its blocking pool); ours is std's, so a
/// name is resolved on the calling thread.
pub use std::net::ToSocketAddrs;

/// Resolves `host` (a `"name:port"` string, a `(name, port)` pair, an
/// address) to its socket addresses, as Tokio's `net::lookup_host` does.
///
/// Tokio resolves a name on its blocking pool; ours takes std's
/// [`ToSocketAddrs`], whose input need not be `Send` or `'static`, so a
/// name is resolved on the calling thread (an address is only parsed).
///
/// ```
/// # rt::Runtime::new().unwrap().block_on(async {
/// let addrs: Vec<_> = rt::net::lookup_host("127.0.0.1:80").await?.collect();
/// assert_eq!(addrs, ["127.0.0.1:80".parse().unwrap()]);
/// # Ok::<(), std::io::Error>(())
/// # }).unwrap();
/// ```
pub async fn lookup_host<T: ToSocketAddrs>(
    host: T,
) -> std::io::Result<impl Iterator<Item = std::net::SocketAddr>> {
    host.to_socket_addrs()
}
pub use tcp::{TcpListener, TcpSocket, TcpStream};
pub use udp::UdpSocket;
pub use unix::{UnixListener, UnixStream};
