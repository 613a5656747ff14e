//! A socket's link to the runtime's I/O driver: register once, then ask for
//! readiness, do the system call, and clear readiness on `WouldBlock`.
//!
//! [`Registration::poll_io`] is the loop every socket operation runs:
//!
//! ```text
//! loop:
//!     wait until the direction is ready        (spends a unit of budget)
//!     try the non-blocking call
//!     WouldBlock  -> clear the readiness seen (if no newer edge), loop
//!     anything else -> done
//! ```
//!
//! Dropping the registration deregisters the socket, which must happen
//! before the socket is closed (the socket types drop their registration
//! first).
//!
//! Book: Chapter 7, "The I/O driver".

use super::scheduled_io::{Direction, ScheduledIo};
use crate::runtime::context;
use crate::scheduler::Handle;
use crate::task::coop;
use mio::{Interest, Token};
use std::io;
use std::sync::Arc;
use std::task::{Context, Poll, ready};

/// A registered socket.
pub(crate) struct Registration {
    handle: Arc<Handle>,
    token: Token,
    io: Arc<ScheduledIo>,
}

impl Registration {
    /// Registers `source` with the current runtime's driver.
    ///
    /// Fails with an error (not a panic) outside a runtime.
    pub(crate) fn new(
        source: &mut impl mio::event::Source,
        interest: Interest,
    ) -> io::Result<Registration> {
        let handle = context::with_current(|handle| handle.cloned()).ok_or_else(|| {
            io::Error::other(
                "no runtime: sockets must be created inside rt::Runtime (in a task or block_on)",
            )
        })?;
        let (token, io) = handle.driver.io.register(source, interest)?;
        Ok(Registration { handle, token, io })
    }

    /// Waits until `direction` is ready.
    // ANCHOR: budgeted_ready
    pub(crate) fn poll_ready(
        &self,
        cx: &mut Context<'_>,
        direction: Direction,
    ) -> Poll<io::Result<super::scheduled_io::ReadyEvent>> {
        let budget = ready!(coop::poll_proceed(cx));
        let event = ready!(self.io.poll_ready(cx, direction));
        budget.made_progress();
        Poll::Ready(Ok(event))
    }
    // ANCHOR_END: budgeted_ready

    /// Runs `op` when `direction` is ready, until it does not say
    /// `WouldBlock`.
    // ANCHOR: poll_io
    pub(crate) fn poll_io<R>(
        &self,
        cx: &mut Context<'_>,
        direction: Direction,
        mut op: impl FnMut() -> io::Result<R>,
    ) -> Poll<io::Result<R>> {
        loop {
            let event = ready!(self.poll_ready(cx, direction))?;
            match op() {
                Err(error) if error.kind() == io::ErrorKind::WouldBlock => {
                    self.io.clear_readiness(event)
                }
                result => return Poll::Ready(result),
            }
        }
    }
    // ANCHOR_END: poll_io

    /// Deregisters `source`; called by the socket's drop, before it closes.
    pub(crate) fn deregister(&self, source: &mut impl mio::event::Source) -> io::Result<()> {
        self.handle.driver.io.deregister(source, self.token)
    }
}
