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
//!     Interrupted -> a signal arrived mid-call: try again
//!     anything else -> done
//! ```
//!
//! [`Registration::async_io`] is the same loop for `async fn`s on `&self`,
//! which any number of tasks may await at once: it waits in the socket's
//! waiter list rather than in its single reader or writer slot.
//!
//! Once the runtime has shut down, waiting fails with an error that says so,
//! instead of reporting readiness for ever (the socket would spin).
//!
//! Dropping the registration deregisters the socket, which must happen
//! before the socket is closed (the socket types drop their registration
//! first).
//!
//! Book: Chapter 7, "The I/O driver".

use super::scheduled_io::{Direction, ReadyBits, ReadyEvent, ScheduledIo};
use crate::driver;
use crate::runtime::context;
use crate::task::coop;
use mio::{Interest, Token};
use std::future::Future;
use std::io;
use std::pin::pin;
use std::sync::Arc;
use std::task::{Context, Poll, ready};

/// A registered socket.
pub(crate) struct Registration {
    /// The driver it is registered with (not the whole scheduler: a socket
    /// needs only the driver, and must not keep the workers' state alive).
    driver: Arc<driver::DriverHandle>,
    token: Token,
    io: Arc<ScheduledIo>,
}

impl Registration {
    /// Registers `source` with the current runtime's driver. Fails if the
    /// runtime has shut down, or if epoll refuses the descriptor.
    ///
    /// # Panics
    ///
    /// Outside a runtime, as Tokio's registration does, in Tokio's words
    /// (its socket constructors, `AsyncFd::new` and `signal` document the
    /// panic): a socket that no driver watches would never be woken.
    #[track_caller]
    pub(crate) fn new(
        source: &mut impl mio::event::Source,
        interest: Interest,
    ) -> io::Result<Registration> {
        let Some(driver) =
            context::with_current(|handle| handle.map(|scheduler| scheduler.driver().clone()))
        else {
            panic!(
                "{} (sockets, pipes, `AsyncFd` and signals are registered with the current \
                 runtime: make them in a task, in block_on, or under Handle::enter)",
                crate::runtime::NO_RUNTIME
            );
        };
        let (token, io) = driver.io.register(source, interest)?;
        Ok(Registration { driver, token, io })
    }

    /// The readiness an event reported, or the error of a runtime that has
    /// shut down.
    fn checked(&self, event: ReadyEvent) -> io::Result<ReadyEvent> {
        if self.io.is_shutdown() {
            Err(driver::shut_down_error())
        } else {
            Ok(event)
        }
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
        Poll::Ready(self.checked(event))
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
                Err(error) if error.kind() == io::ErrorKind::Interrupted => {}
                result => return Poll::Ready(result),
            }
        }
    }
    // ANCHOR_END: poll_io

    /// [`poll_io`](Self::poll_io) for a read from a byte stream into a
    /// buffer of `len` bytes. A read that returns some bytes but fewer than
    /// asked for emptied the socket's receive buffer, so the readiness it
    /// used is cleared at once: the next read waits for the next edge
    /// instead of making a system call only to hear `WouldBlock` (Tokio
    /// does the same). Data that arrives after the read is a new edge with
    /// a new tick, which the clear leaves alone. Not for datagrams: a short
    /// datagram says nothing about the ones queued behind it.
    // ANCHOR: poll_read_stream
    pub(crate) fn poll_read_stream(
        &self,
        cx: &mut Context<'_>,
        len: usize,
        mut op: impl FnMut() -> io::Result<usize>,
    ) -> Poll<io::Result<usize>> {
        loop {
            let event = ready!(self.poll_ready(cx, Direction::Read))?;
            match op() {
                Ok(n) if n > 0 && n < len => {
                    self.io.clear_readiness(event);
                    return Poll::Ready(Ok(n));
                }
                Err(error) if error.kind() == io::ErrorKind::WouldBlock => {
                    self.io.clear_readiness(event)
                }
                Err(error) if error.kind() == io::ErrorKind::Interrupted => {}
                result => return Poll::Ready(result),
            }
        }
    }
    // ANCHOR_END: poll_read_stream

    /// Waits until `direction` is ready, in the socket's waiter list (any
    /// number of tasks may wait at once).
    pub(crate) async fn readiness(&self, direction: Direction) -> io::Result<ReadyEvent> {
        let mut readiness = pin!(self.io.readiness(direction));
        std::future::poll_fn(|cx| {
            let budget = ready!(coop::poll_proceed(cx));
            let event = ready!(readiness.as_mut().poll(cx));
            budget.made_progress();
            Poll::Ready(self.checked(event))
        })
        .await
    }

    /// [`poll_io`](Self::poll_io) for an `async fn` on `&self`.
    // ANCHOR: async_io
    pub(crate) async fn async_io<R>(
        &self,
        direction: Direction,
        mut op: impl FnMut() -> io::Result<R>,
    ) -> io::Result<R> {
        loop {
            let event = self.readiness(direction).await?;
            match op() {
                Err(error) if error.kind() == io::ErrorKind::WouldBlock => {
                    self.io.clear_readiness(event)
                }
                Err(error) if error.kind() == io::ErrorKind::Interrupted => {}
                result => return result,
            }
        }
    }
    // ANCHOR_END: async_io

    /// Waits until any direction of `interest` is ready, in the waiter list,
    /// and returns every readiness bit seen in those directions (for the
    /// public `ready(interest)`; `readable()` is `readiness(Read)`).
    pub(crate) async fn ready(&self, interest: crate::io::Interest) -> io::Result<ReadyBits> {
        let mut waits: Vec<_> = interest
            .directions()
            .map(|direction| self.io.readiness(direction))
            .collect();
        std::future::poll_fn(|cx| {
            let budget = ready!(coop::poll_proceed(cx));
            let mut seen = ReadyBits::EMPTY;
            for wait in &mut waits {
                if let Poll::Ready(event) = std::pin::Pin::new(wait).poll(cx) {
                    seen = seen | event.ready;
                }
            }
            if seen.is_empty() {
                return Poll::Pending;
            }
            budget.made_progress();
            if self.io.is_shutdown() {
                return Poll::Ready(Err(driver::shut_down_error()));
            }
            Poll::Ready(Ok(seen))
        })
        .await
    }

    /// One attempt, without waiting: `WouldBlock` at once if `direction` is
    /// not ready; otherwise runs `op`, and if the socket says `WouldBlock`,
    /// clears the readiness seen (unless a newer edge arrived) before
    /// returning it. The `try_read`/`try_write` family, paired with
    /// `readable()`/`writable()`.
    // ANCHOR: try_io
    pub(crate) fn try_io<R>(
        &self,
        direction: Direction,
        op: impl FnOnce() -> io::Result<R>,
    ) -> io::Result<R> {
        let Some(event) = self.io.ready_in(direction) else {
            return Err(io::ErrorKind::WouldBlock.into());
        };
        self.checked(event)?;
        match op() {
            Err(error) if error.kind() == io::ErrorKind::WouldBlock => {
                self.io.clear_readiness(event);
                Err(error)
            }
            result => result,
        }
    }
    // ANCHOR_END: try_io

    /// The readiness of `interest`'s directions now, if any, with its tick
    /// (for `AsyncFd`'s guards, which clear it later).
    pub(crate) fn ready_event(&self, interest: crate::io::Interest) -> Option<ReadyEvent> {
        let mask = interest
            .directions()
            .fold(ReadyBits::EMPTY, |mask, direction| mask | direction.mask());
        self.io.ready_matching(mask)
    }

    /// Clears the readiness of `event`, unless a newer edge arrived.
    pub(crate) fn clear_readiness(&self, event: ReadyEvent) {
        self.io.clear_readiness(event);
    }

    /// The error of a runtime that has shut down, if it has.
    pub(crate) fn check_shutdown(&self) -> io::Result<()> {
        if self.io.is_shutdown() {
            Err(driver::shut_down_error())
        } else {
            Ok(())
        }
    }

    /// Deregisters `source`; called by the socket's drop, before it closes.
    pub(crate) fn deregister(&self, source: &mut impl mio::event::Source) -> io::Result<()> {
        self.driver.io.deregister(source, self.token)
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use crate::runtime::Builder;

    /// A system call interrupted by a signal (`EINTR`) is retried, not
    /// handed to the caller as an error (Chapter 6's loop does the same).
    #[test]
    #[cfg_attr(miri, ignore = "real sockets and epoll")]
    fn an_interrupted_call_is_retried() {
        let rt = Builder::new_multi_thread()
            .worker_threads(1)
            .build()
            .unwrap();
        rt.block_on(async {
            let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
            let mut socket = mio::net::TcpStream::from_std(
                std::net::TcpStream::connect(listener.local_addr().unwrap()).unwrap(),
            );
            let registration =
                Registration::new(&mut socket, Interest::READABLE | Interest::WRITABLE).unwrap();
            // A call that a signal interrupts the first time.
            let interrupted_once = || {
                let mut calls = 0;
                move || {
                    calls += 1;
                    if calls == 1 {
                        Err(io::ErrorKind::Interrupted.into())
                    } else {
                        Ok(calls)
                    }
                }
            };
            let mut op = interrupted_once();
            let result =
                std::future::poll_fn(|cx| registration.poll_io(cx, Direction::Write, &mut op))
                    .await;
            assert_eq!(result.unwrap(), 2, "the interrupted call was not retried");
            let result = registration
                .async_io(Direction::Write, interrupted_once())
                .await;
            assert_eq!(result.unwrap(), 2);
            registration.deregister(&mut socket).unwrap();
        });
    }
}
