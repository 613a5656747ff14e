//! The server this chapter loads: Chapter 1's thread-per-connection echo
//! server, unchanged, behind a listening socket sized for ten thousand
//! clients.
//!
//! Two things change when the clients number in thousands, and neither is
//! in the echo loop:
//!
//! * **The accept backlog.** `std::net::TcpListener::bind` asks for a
//!   backlog of 128 connections that the kernel has completed but the
//!   server has not accepted yet. Ten thousand clients connecting at once
//!   overflow it, and the kernel drops their handshakes, so they retry a
//!   second later. We build the listener with `socket2` and ask for
//!   [`BACKLOG`] (the kernel caps it at `net.core.somaxconn`).
//! * **The open-file limit.** Each connection is a descriptor; the server
//!   raises its soft limit to the hard one first.
//!
//! The `serve` subcommand of every chapter prints one line,
//! `listening on ADDR`, once it accepts connections: the C10K harness
//! starts the server as a child process and waits for that line.

use std::io::{self, Write};
use std::net::{SocketAddr, TcpListener};

use chapter_01::echo_server::EchoServer;
use socket2::{Domain, Protocol, Socket, Type};

use crate::limits;

/// The accept backlog we ask for.
pub const BACKLOG: i32 = 4096;

/// The line a `serve` subcommand prints when it is ready, before the address.
pub const READY_PREFIX: &str = "listening on ";

// ANCHOR: listener
/// A listening socket with a large backlog, `SO_REUSEADDR` set (so a
/// restarted server can bind while old connections sit in TIME_WAIT).
pub fn listener(addr: SocketAddr) -> io::Result<TcpListener> {
    let socket = Socket::new(Domain::for_address(addr), Type::STREAM, Some(Protocol::TCP))?;
    socket.set_reuse_address(true)?;
    socket.bind(&addr.into())?;
    socket.listen(BACKLOG)?;
    Ok(socket.into())
}
// ANCHOR_END: listener

/// Announces readiness on stdout: `listening on ADDR`.
pub fn announce(addr: SocketAddr) -> io::Result<()> {
    let mut out = io::stdout().lock();
    writeln!(out, "{READY_PREFIX}{addr}")?;
    out.flush()
}

/// Threads kept in reserve below the process's thread ceiling (the accept
/// thread, the runtime's own, slack for the limits moving meanwhile).
pub const THREAD_RESERVE: u64 = 64;

/// The most connections the threads server takes by default: the thread
/// ceiling of [`limits::SystemLimits`] minus [`THREAD_RESERVE`].
pub fn default_max_connections() -> Option<u64> {
    limits::SystemLimits::current()
        .thread_ceiling()
        .map(|(ceiling, _)| ceiling.saturating_sub(THREAD_RESERVE))
}

// ANCHOR: serve_threads
/// Runs Chapter 1's thread-per-connection server on `addr` until the
/// process is killed. `stack_bytes` sets each connection thread's stack;
/// `max_connections` caps the connections served at once (`None`: no cap,
/// and the process dies when thread creation fails).
pub fn serve_threads(
    addr: SocketAddr,
    stack_bytes: Option<usize>,
    max_connections: Option<u64>,
) -> io::Result<()> {
    limits::raise_fd_limit()?;
    let listener = listener(addr)
        .map_err(|err| io::Error::new(err.kind(), format!("cannot bind {addr}: {err}")))?;
    let mut server = EchoServer::from_listener(listener);
    if let Some(bytes) = stack_bytes {
        server = server.stack_size(bytes);
    }
    if let Some(max) = max_connections {
        server = server.max_connections(max);
    }
    announce(server.local_addr()?)?;
    server.run()
}
// ANCHOR_END: serve_threads
