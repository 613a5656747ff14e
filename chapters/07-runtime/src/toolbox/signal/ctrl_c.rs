//! [`ctrl_c`]: a future that completes at the next SIGINT.
//!
//! When first polled, it subscribes (`self_pipe.rs`: the handler is
//! installed once, the count of delivered signals noted, the pipe's read end
//! duplicated and registered with this runtime's driver). Then each poll:
//!
//! ```text
//! count moved since we subscribed?   -> done
//! leave our waker in the waiter list, and look at the count again
//! wait on the driver until the pipe is readable (ready/try/clear)
//! drain it, wake every waiter, and look again
//! ```
//!
//! Book: Chapter 8, "Signals and a graceful shutdown".

use super::self_pipe;
use crate::io_driver::registration::Registration;
use crate::io_driver::scheduled_io::Direction;
use std::io::{self, Read};
use std::task::{Context, Poll, ready};

/// Completes at the first SIGINT the process receives after this future is
/// first polled (a signal that arrived before does not count).
///
/// The first call installs a SIGINT handler for the rest of the process's
/// life, which replaces the default action (terminate): from then on Ctrl-C
/// only completes these futures. Any number of `ctrl_c()` futures may wait
/// at once, in any tasks and runtimes; each SIGINT completes them all.
///
/// Fails if the handler or the pipe cannot be set up, or once the runtime
/// has shut down; panics when first polled outside a runtime, as Tokio's
/// does ("there is no reactor running").
///
/// ```no_run
/// # rt::Runtime::new().unwrap().block_on(async {
/// rt::signal::ctrl_c().await.expect("listen for Ctrl-C");
/// println!("interrupted: shutting down");
/// # });
/// ```
// ANCHOR: ctrl_c
pub async fn ctrl_c() -> io::Result<()> {
    let mut listener = Listener::subscribe(libc::SIGINT)?;
    std::future::poll_fn(|cx| listener.poll(cx)).await
}

/// One waiting `ctrl_c()` (or `unix::Signal`).
pub(super) struct Listener {
    /// Which signal.
    signal: libc::c_int,
    /// Signals delivered when we subscribed, or when we last reported one.
    seen: u64,
    /// Our own descriptor for the pipe's read end, on our driver.
    pipe: mio::net::UnixStream,
    registration: Registration,
    /// Our place in the waiter list.
    slot: Option<usize>,
}

impl Listener {
    pub(super) fn subscribe(signal: libc::c_int) -> io::Result<Listener> {
        // Outside a runtime, panic as Tokio's `signal` does ("there is no
        // reactor running"), before installing the handler: otherwise
        // Ctrl-C would stop terminating a process that has no listener.
        if crate::runtime::Handle::try_current().is_err() {
            panic!(
                "{} (signals are listened for on the current runtime)",
                crate::runtime::NO_RUNTIME
            );
        }
        let (seen, pipe) = self_pipe::subscribe(signal)?;
        let mut pipe = mio::net::UnixStream::from_std(pipe);
        let registration = Registration::new(&mut pipe, mio::Interest::READABLE)?;
        Ok(Listener {
            signal,
            seen,
            pipe,
            registration,
            slot: None,
        })
    }

    /// Ready once a signal arrived since we subscribed or last reported
    /// one; all those that arrived meanwhile count as one.
    pub(super) fn poll(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        loop {
            let now = self_pipe::delivered(self.signal);
            if now != self.seen {
                self.seen = now;
                return Poll::Ready(Ok(()));
            }
            self_pipe::wait(&mut self.slot, cx.waker());
            let now = self_pipe::delivered(self.signal);
            if now != self.seen {
                self.seen = now;
                return Poll::Ready(Ok(()));
            }
            let pipe = &self.pipe;
            ready!(
                self.registration
                    .poll_io(cx, Direction::Read, || drain(pipe))
            )?;
            // We emptied the pipe: futures whose drivers had not collected
            // the edge yet will not see it now, so wake them all.
            self_pipe::wake_all();
        }
    }
}
// ANCHOR_END: ctrl_c

/// Reads every byte waiting in the pipe; `WouldBlock` if there was none.
fn drain(mut pipe: &mio::net::UnixStream) -> io::Result<()> {
    let mut buf = [0u8; 64];
    let mut drained = false;
    loop {
        match pipe.read(&mut buf) {
            // The write end is never closed; nothing more to read anyway.
            Ok(0) => return Ok(()),
            Ok(_) => drained = true,
            Err(error) if error.kind() == io::ErrorKind::WouldBlock && drained => return Ok(()),
            Err(error) => return Err(error),
        }
    }
}

impl Drop for Listener {
    fn drop(&mut self) {
        self_pipe::leave(&mut self.slot);
        let _ = self.registration.deregister(&mut self.pipe);
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use crate::runtime::Builder;
    use std::pin::pin;

    /// A signal delivered before the first poll does not count; the next
    /// one does, for every waiting future.
    #[test]
    #[cfg_attr(miri, ignore = "signals and a real pipe")]
    fn only_a_signal_after_the_first_poll_counts() {
        let rt = Builder::new_multi_thread()
            .worker_threads(1)
            .build()
            .unwrap();
        rt.block_on(async {
            // Install the handler first: a raise before that would kill us.
            let mut first = pin!(ctrl_c());
            assert!(futures::poll!(first.as_mut()).is_pending());
            // SAFETY: raise(3) only sends SIGINT to this thread; the handler
            // above is installed, so the process survives it.
            assert_eq!(unsafe { libc::raise(libc::SIGINT) }, 0);
            first.await.unwrap();
            let mut late = pin!(ctrl_c());
            assert!(futures::poll!(late.as_mut()).is_pending());
            crate::time::sleep(std::time::Duration::from_millis(20)).await;
            assert!(
                futures::poll!(late.as_mut()).is_pending(),
                "an old signal completed a new ctrl_c"
            );
            // SAFETY: as above.
            assert_eq!(unsafe { libc::raise(libc::SIGINT) }, 0);
            crate::time::timeout(std::time::Duration::from_secs(5), late)
                .await
                .expect("woken by the second SIGINT")
                .unwrap();
        });
    }
}
