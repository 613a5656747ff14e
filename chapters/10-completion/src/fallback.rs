//! When io_uring is not there: Chapter 4's epoll server instead.
//!
//! io_uring can be missing or refused in ordinary places: a kernel built
//! without it, `sysctl kernel.io_uring_disabled=2`, a container whose
//! seccomp profile blocks `io_uring_setup` (Docker's default profile does),
//! a kernel too old for an operation the server needs. Setting up the ring
//! then fails with `EPERM` or `ENOSYS`, or the probe shows a gap. The
//! server should still serve: [`start`] tries the ring, and on any of these
//! falls back to Chapter 4's epoll loop, saying why in one line.
//!
//! The fallback can be forced (`--force-fallback`, or the environment
//! variable [`NO_URING_ENV`] set to `1`), so the path is tested on machines
//! where io_uring works.
//!
//! Book: Chapter 10, "When the ring is refused".

use std::io;
use std::net::{SocketAddr, TcpListener};
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::thread::JoinHandle;

use chapter_04::connection::Mode;
use chapter_04::server::EpollServer;

use crate::server::{Options, UringServer};
use crate::uring::{self, Ring};

/// Set to `1` to make every server of this chapter fall back to epoll.
pub const NO_URING_ENV: &str = "CHAPTER10_NO_URING";

/// Whether the environment asks for the fallback.
pub fn forced_by_env() -> bool {
    std::env::var(NO_URING_ENV).is_ok_and(|value| value == "1")
}

/// An echo server on one of the two mechanisms.
pub enum Echo {
    /// This chapter's server (boxed: it is the larger by far).
    Uring(Box<UringServer>),
    /// Chapter 4's, edge-triggered, and why io_uring was not used.
    Epoll(EpollServer, String),
}

// ANCHOR: start
/// Serves `listener` on io_uring with `options`, or on epoll if `force`,
/// the environment, or the kernel says so.
pub fn start(listener: TcpListener, options: Options, force: bool) -> io::Result<Echo> {
    let why = if force || forced_by_env() {
        format!("io_uring switched off (--force-fallback or {NO_URING_ENV}=1)")
    } else {
        let ring = if options.defer_taskrun {
            Ring::new_deferred(options.sq_entries, options.cq_entries)
        } else {
            Ring::new(options.sq_entries, options.cq_entries)
        };
        match ring {
            Err(err) if uring::is_refused(&err) => format!("io_uring refused by the kernel: {err}"),
            Err(err) => return Err(err),
            Ok(ring) => match ring.probe() {
                Ok(opcodes) if opcodes.can_echo() => {
                    let server = UringServer::with_ring(ring, listener, options)?;
                    return Ok(Echo::Uring(Box::new(server)));
                }
                Ok(_) => "this kernel's io_uring lacks an operation the server needs".to_string(),
                Err(err) => format!("cannot probe io_uring's operations: {err}"),
            },
        }
    };
    Ok(Echo::Epoll(EpollServer::new(listener, Mode::Edge)?, why))
}
// ANCHOR_END: start

impl std::fmt::Debug for Echo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Echo::Uring(server) => f.debug_tuple("Uring").field(server).finish(),
            Echo::Epoll(_, why) => f.debug_tuple("Epoll").field(why).finish(),
        }
    }
}

/// Stops either server.
#[derive(Debug, Clone)]
pub enum EchoHandle {
    /// Stops the io_uring server.
    Uring(crate::server::ServerHandle),
    /// Stops the epoll server.
    Epoll(chapter_04::server::ServerHandle),
}

impl EchoHandle {
    /// Makes the server's loop return.
    pub fn stop(&self) {
        match self {
            EchoHandle::Uring(handle) => handle.stop(),
            EchoHandle::Epoll(handle) => handle.stop(),
        }
    }
}

/// Reads how many connections a running server has open.
pub type OpenCount = Box<dyn Fn() -> u64 + Send>;

impl Echo {
    /// Where it listens.
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        match self {
            Echo::Uring(server) => server.local_addr(),
            Echo::Epoll(server, _) => server.local_addr(),
        }
    }

    /// Why it fell back, if it did.
    pub fn fallback_reason(&self) -> Option<&str> {
        match self {
            Echo::Uring(_) => None,
            Echo::Epoll(_, why) => Some(why),
        }
    }

    /// A reader of its open-connection count.
    pub fn open_connections(&self) -> OpenCount {
        match self {
            Echo::Uring(server) => {
                let stats = server.stats();
                Box::new(move || stats.open.load(Ordering::Relaxed))
            }
            Echo::Epoll(server, _) => {
                let stats: Arc<chapter_04::server::ServerStats> = server.stats();
                Box::new(move || stats.open.load(Ordering::Relaxed))
            }
        }
    }

    /// Runs it on a new thread.
    pub fn spawn(self) -> io::Result<(EchoHandle, JoinHandle<io::Result<()>>)> {
        match self {
            Echo::Uring(server) => {
                let (handle, thread) = server.spawn()?;
                Ok((EchoHandle::Uring(handle), thread))
            }
            Echo::Epoll(server, _) => {
                let (handle, thread) = server.spawn()?;
                Ok((EchoHandle::Epoll(handle), thread))
            }
        }
    }

    /// Runs it on this thread, until the process is killed.
    pub fn run(self) -> io::Result<()> {
        match self {
            Echo::Uring(server) => server.run(),
            Echo::Epoll(server, _) => server.run(),
        }
    }
}

/// `serve`: binds `addr`, starts the io_uring server or the fallback (one
/// line on stderr says which and why), prints `listening on ADDR`, serves.
pub fn serve(listener: TcpListener, options: Options, force: bool) -> io::Result<()> {
    let echo = start(listener, options, force)?;
    if let Some(why) = echo.fallback_reason() {
        eprintln!("chapter-10: {why}; falling back to Chapter 4's epoll server");
    }
    chapter_03::server::announce(echo.local_addr()?)?;
    echo.run()
}
