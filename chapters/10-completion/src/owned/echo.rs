//! The echo server again, on the owned-buffer executor.
//!
//! One task accepts; each connection is a task that loops: read into its
//! buffer, write the same buffer back, repeat. The buffer travels into the
//! read, back out with the bytes, into the write and back out again; the
//! code reads like the blocking server of Chapter 1, and no byte is copied
//! between a read and its write.
//!
//! A client that never reads is throttled without any bookkeeping: its
//! connection's write stays in flight inside the kernel until the client
//! makes room, and meanwhile that task submits no read, so the client's
//! own sends stall on a full window.
//!
//! The server stops when another thread writes to an `eventfd`; a task
//! waits on it with an ordinary owned read. Stopping drops every task, so
//! the operations still in flight are cancelled with their buffers parked
//! until the kernel lets them go.
//!
//! Book: Chapter 10, "Owned buffers and cancellation".

use std::future::Future;
use std::io;
use std::net::{SocketAddr, TcpListener as StdListener};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::pin::pin;
use std::rc::Rc;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::task::Poll;
use std::thread::{self, JoinHandle};

use super::executor::{Runtime, spawn};
use super::net::{TcpListener, TcpStream};
use super::op;

/// Bytes a connection reads at a time; each connection owns one buffer.
pub const BUFFER_BYTES: usize = 16 * 1024;

/// What the server has done, readable while it runs.
#[derive(Debug, Default)]
pub struct EchoStats {
    /// Connections accepted.
    pub accepted: AtomicU64,
    /// Connections open now.
    pub open: AtomicU64,
    /// Connections ended by an error (a reset, a broken pipe).
    pub failed: AtomicU64,
    /// Failed accepts.
    pub accept_errors: AtomicU64,
}

/// Stops a running server from any thread.
#[derive(Debug, Clone)]
pub struct StopHandle {
    eventfd: Arc<OwnedFd>,
}

impl StopHandle {
    /// Asks the server to stop; returns at once.
    pub fn stop(&self) {
        let one = 1u64.to_ne_bytes();
        // SAFETY: writes 8 bytes from a live array to our own eventfd.
        // Failure (a full counter) still leaves the eventfd readable.
        unsafe { libc::write(self.eventfd.as_raw_fd(), one.as_ptr().cast(), one.len()) };
    }
}

/// An echo server on [`Runtime`], bound and ready to run.
#[derive(Debug)]
pub struct EchoServer {
    listener: StdListener,
    stats: Arc<EchoStats>,
}

impl EchoServer {
    /// A server on `listener`.
    pub fn new(listener: StdListener) -> EchoServer {
        EchoServer {
            listener,
            stats: Arc::default(),
        }
    }

    /// The listening address.
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.listener.local_addr()
    }

    /// Counters shared with the running server.
    pub fn stats(&self) -> Arc<EchoStats> {
        self.stats.clone()
    }

    /// Runs the server on a new thread with its own runtime.
    pub fn spawn(self) -> io::Result<(StopHandle, JoinHandle<io::Result<()>>)> {
        // SAFETY: eventfd takes no pointers; we check its result.
        let fd = unsafe { libc::eventfd(0, libc::EFD_CLOEXEC) };
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: a fresh descriptor that nothing else owns.
        let eventfd = Arc::new(unsafe { OwnedFd::from_raw_fd(fd) });
        let stop = StopHandle {
            eventfd: eventfd.clone(),
        };
        let thread = thread::Builder::new()
            .name("owned-echo".into())
            .spawn(move || self.run(&eventfd))?;
        Ok((stop, thread))
    }

    /// Runs the server on this thread until `stop` becomes readable.
    pub fn run(self, stop: &OwnedFd) -> io::Result<()> {
        let runtime = Runtime::new()?;
        let stop_fd = stop.as_raw_fd();
        let stats = self.stats;
        let listener = TcpListener::from_std(self.listener);
        runtime.block_on(async move {
            let stopped = async move {
                let (result, _) = op::read(stop_fd, Vec::with_capacity(8)).await;
                result.map(drop)
            };
            first_of(stopped, accept_loop(listener, stats)).await
        })
    }
}

// ANCHOR: accept_loop
async fn accept_loop(listener: TcpListener, stats: Arc<EchoStats>) -> io::Result<()> {
    let listener = Rc::new(listener);
    loop {
        match listener.accept().await {
            Ok(stream) => {
                stats.accepted.fetch_add(1, Ordering::Relaxed);
                stats.open.fetch_add(1, Ordering::Relaxed);
                spawn(connection(stream, stats.clone()));
            }
            Err(_) => {
                stats.accept_errors.fetch_add(1, Ordering::Relaxed);
            }
        }
    }
}

/// One connection: the buffer goes into the read, comes back with the
/// bytes, goes into the write, comes back empty-handed, and round again.
async fn connection(stream: TcpStream, stats: Arc<EchoStats>) {
    let _open = Open(stats.clone());
    let mut buf = Vec::with_capacity(BUFFER_BYTES);
    loop {
        let (result, back) = stream.read(buf).await;
        buf = back;
        match result {
            Ok(0) => return, // the peer is done sending: close
            Ok(_) => {}
            Err(_) => break,
        }
        let (result, back) = stream.write_all(buf).await;
        buf = back;
        if result.is_err() {
            break;
        }
    }
    stats.failed.fetch_add(1, Ordering::Relaxed);
}
// ANCHOR_END: accept_loop

/// Counts a connection as closed when its task ends or is dropped.
struct Open(Arc<EchoStats>);

impl Drop for Open {
    fn drop(&mut self) {
        self.0.open.fetch_sub(1, Ordering::Relaxed);
    }
}

/// Polls both futures; resolves with whichever finishes first.
async fn first_of<T>(a: impl Future<Output = T>, b: impl Future<Output = T>) -> T {
    let mut a = pin!(a);
    let mut b = pin!(b);
    std::future::poll_fn(|cx| {
        if let Poll::Ready(out) = a.as_mut().poll(cx) {
            return Poll::Ready(out);
        }
        b.as_mut().poll(cx)
    })
    .await
}
