//! Exercise ch04_accept_all: accept until `WouldBlock`, and stop listening
//! when descriptors run out.
//!
//! An edge-triggered listener is reported once when connections arrive,
//! however many arrive: one `accept` per event leaves the rest in the
//! queue, and no new event will come for them until yet another client
//! connects. So on each event the server accepts until the listener says
//! `WouldBlock` (Chapter 4, "Level or edge").
//!
//! Not every failure of `accept` is the listener's. Chapter 4's server
//! sorts them (Chapter 4, "Out of descriptors"):
//!
//! * `WouldBlock`: the queue is empty. Stop: [`Stop::Drained`].
//! * Out of resources: `EMFILE` (this process's descriptors), `ENFILE`
//!   (the machine's), `ENOBUFS` or `ENOMEM`. The pending connection stays
//!   queued, and accepting again at once would fail again at once: with
//!   level triggering the loop would spin at 100% CPU. Stop:
//!   [`Stop::OutOfResources`], and the caller pauses the listener until a
//!   connection closes.
//! * Errors that concern one pending connection: `ConnectionAborted` (the
//!   client gave up before we accepted it), `Interrupted` (a signal), and
//!   the raw errors `EPROTO` and `EPERM` (a firewall rule). Skip it and
//!   accept the next.
//! * Anything else (`EBADF`, `EINVAL`, ...) is the listener's own failure:
//!   return it as the error.
//!
//! Write [`accept_all`]: accept from `listener` until one of the stops
//! above, handing each accepted connection to `on_accept` as it comes,
//! and return why it stopped. [`Accept`] is implemented for
//! `std::net::TcpListener` below; the tests also script listeners of their
//! own, so call nothing but [`Accept::accept`].
//!
//! Check: `cargo run -p exercises -- check ch04_accept_all`. Hint:
//! `cargo run -p exercises -- hint ch04_accept_all`.

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
    let _ = &mut on_accept;
    todo!("loop over listener.accept() and sort the errors")
}
