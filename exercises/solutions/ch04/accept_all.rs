//! Reference solution for ch04_accept_all.

use std::io;
use std::net::{TcpListener, TcpStream};

/// Something connections can be accepted from.
pub trait Accept {
    /// What `accept` returns.
    type Conn;
    /// Accepts one pending connection, or fails (`WouldBlock` when none is
    /// pending, for a non-blocking listener).
    fn accept(&self) -> io::Result<Self::Conn>;
}

impl Accept for TcpListener {
    type Conn = TcpStream;
    fn accept(&self) -> io::Result<TcpStream> {
        TcpListener::accept(self).map(|(stream, _peer)| stream)
    }
}

/// Why [`accept_all`] stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stop {
    /// The queue is empty (`WouldBlock`).
    Drained,
    /// Out of descriptors or memory: pause the listener.
    OutOfResources,
}

/// Accepts until `WouldBlock` or a shortage of resources, handing each
/// connection to `on_accept`, skipping failures of single connections.
pub fn accept_all<A: Accept>(listener: &A, mut on_accept: impl FnMut(A::Conn)) -> io::Result<Stop> {
    loop {
        match listener.accept() {
            Ok(conn) => on_accept(conn),
            Err(err) if err.kind() == io::ErrorKind::WouldBlock => return Ok(Stop::Drained),
            Err(err) if out_of_resources(&err) => return Ok(Stop::OutOfResources),
            Err(err) if concerns_one_connection(&err) => {}
            Err(err) => return Err(err),
        }
    }
}

/// No descriptor or memory for the next connection, which stays queued.
fn out_of_resources(err: &io::Error) -> bool {
    matches!(
        err.raw_os_error(),
        Some(libc::EMFILE | libc::ENFILE | libc::ENOBUFS | libc::ENOMEM)
    )
}

/// A failure of the one connection being accepted, not of the listener.
fn concerns_one_connection(err: &io::Error) -> bool {
    matches!(
        err.kind(),
        io::ErrorKind::ConnectionAborted | io::ErrorKind::Interrupted
    ) || matches!(err.raw_os_error(), Some(libc::EPROTO | libc::EPERM))
}
