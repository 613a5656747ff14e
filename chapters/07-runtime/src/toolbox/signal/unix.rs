//! Any Unix signal as a stream of notifications, with Tokio's names:
//! [`signal`]`(`[`SignalKind`]`)` returns a [`Signal`] whose
//! [`recv`](Signal::recv) completes each time the signal arrives. A server
//! that stops on SIGTERM (what `kill`, systemd and container runtimes
//! send) as well as on Ctrl-C uses this.
//!
//! The machinery is `ctrl_c`'s: the first `signal(kind)` for a signal
//! installs the handler for it, which counts the signal and writes a byte
//! to the self-pipe (`self_pipe.rs`); a `Signal` notes the count when it
//! is created and completes a `recv` whenever the count has moved since.
//! Several deliveries between two `recv`s count as one, as in Tokio.
//!
//! Book: Chapter 8, "Signals and a graceful shutdown".

use super::ctrl_c::Listener;
use super::self_pipe::SIGNALS;
use std::io;
use std::task::{Context, Poll};

/// Which signal: a signal number, with constructors for the usual ones.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SignalKind(libc::c_int);

impl SignalKind {
    /// Any signal, by number.
    pub const fn from_raw(signum: libc::c_int) -> SignalKind {
        SignalKind(signum)
    }

    /// The signal's number.
    pub const fn as_raw_value(&self) -> libc::c_int {
        self.0
    }

    /// SIGALRM: a timer set with `alarm(2)` ran out.
    pub const fn alarm() -> SignalKind {
        SignalKind(libc::SIGALRM)
    }

    /// SIGCHLD: a child process stopped or ended.
    pub const fn child() -> SignalKind {
        SignalKind(libc::SIGCHLD)
    }

    /// SIGHUP: the terminal hung up; daemons take it as "reload".
    pub const fn hangup() -> SignalKind {
        SignalKind(libc::SIGHUP)
    }

    /// SIGINT: Ctrl-C in the terminal.
    pub const fn interrupt() -> SignalKind {
        SignalKind(libc::SIGINT)
    }

    /// SIGIO: a descriptor set up for it is ready.
    pub const fn io() -> SignalKind {
        SignalKind(libc::SIGIO)
    }

    /// SIGPIPE: a write to a pipe or socket nobody reads.
    pub const fn pipe() -> SignalKind {
        SignalKind(libc::SIGPIPE)
    }

    /// SIGQUIT: Ctrl-\ in the terminal.
    pub const fn quit() -> SignalKind {
        SignalKind(libc::SIGQUIT)
    }

    /// SIGTERM: asked to terminate (`kill`'s default, systemd's stop).
    pub const fn terminate() -> SignalKind {
        SignalKind(libc::SIGTERM)
    }

    /// SIGUSR1: for the program's own use.
    pub const fn user_defined1() -> SignalKind {
        SignalKind(libc::SIGUSR1)
    }

    /// SIGUSR2: for the program's own use.
    pub const fn user_defined2() -> SignalKind {
        SignalKind(libc::SIGUSR2)
    }

    /// SIGWINCH: the terminal changed size.
    pub const fn window_change() -> SignalKind {
        SignalKind(libc::SIGWINCH)
    }
}

impl From<libc::c_int> for SignalKind {
    fn from(signum: libc::c_int) -> SignalKind {
        SignalKind(signum)
    }
}

impl From<SignalKind> for libc::c_int {
    fn from(kind: SignalKind) -> libc::c_int {
        kind.0
    }
}

/// Signals no handler may take over: the kernel does not let a program
/// catch SIGKILL or SIGSTOP, and catching a fault (SIGILL, SIGFPE,
/// SIGSEGV) and returning would run the faulting instruction again. The
/// same list as Tokio's.
const FORBIDDEN: [libc::c_int; 5] = [
    libc::SIGKILL,
    libc::SIGSTOP,
    libc::SIGILL,
    libc::SIGFPE,
    libc::SIGSEGV,
];

/// Listens for `kind` from now on: deliveries before this call are not
/// seen. The first call for a signal installs its handler for the rest of
/// the process, replacing the default action (for SIGTERM: terminate).
///
/// Fails for a forbidden or invalid signal, or if the handler cannot be
/// installed.
///
/// # Panics
///
/// Outside a runtime, as Tokio's does ("there is no reactor running").
///
/// ```no_run
/// use rt::signal::unix::{signal, SignalKind};
/// # rt::Runtime::new().unwrap().block_on(async {
/// let mut terminate = signal(SignalKind::terminate())?;
/// terminate.recv().await;
/// println!("SIGTERM: shutting down");
/// # Ok::<(), std::io::Error>(())
/// # });
/// ```
pub fn signal(kind: SignalKind) -> io::Result<Signal> {
    let signum = kind.0;
    if signum <= 0 || signum as usize >= SIGNALS || FORBIDDEN.contains(&signum) {
        return Err(io::Error::other(format!(
            "Refusing to register signal {signum}"
        )));
    }
    Ok(Signal {
        listener: Listener::subscribe(signum)?,
    })
}

/// A stream of deliveries of one signal; see [`signal`].
pub struct Signal {
    listener: Listener,
}

impl std::fmt::Debug for Signal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Signal").finish_non_exhaustive()
    }
}

impl Signal {
    /// Waits for the next delivery (all deliveries since the last `recv`
    /// count as one). `None` once no more can be received: the runtime
    /// this signal was set up on has shut down.
    ///
    /// # Cancel safety
    ///
    /// Cancel safe: a delivery that arrives while no `recv` is waiting is
    /// seen by the next one.
    pub async fn recv(&mut self) -> Option<()> {
        std::future::poll_fn(|cx| self.poll_recv(cx)).await
    }

    /// [`recv`](Signal::recv) as a poll method.
    pub fn poll_recv(&mut self, cx: &mut Context<'_>) -> Poll<Option<()>> {
        match self.listener.poll(cx) {
            Poll::Ready(Ok(())) => Poll::Ready(Some(())),
            Poll::Ready(Err(_)) => Poll::Ready(None),
            Poll::Pending => Poll::Pending,
        }
    }
}
