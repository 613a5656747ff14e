//! The thread-per-connection echo server: the simplest server that works.
//!
//! One thread accepts connections. For every connection it starts a new
//! thread that reads and writes back until the client is done, with plain
//! blocking calls: `read` puts the thread to sleep until bytes arrive, and the
//! kernel wakes it when they do. The code reads top to bottom, like the
//! protocol it implements. This is the model the rest of the book questions
//! (Chapter 3 puts 10,000 connections on it) and then replaces.
//!
//! Even the simplest server must be robust, because a server never loses or
//! corrupts a byte and never dies because one client misbehaved:
//!
//! * a client that closes its sending side (half-close) still receives every
//!   echoed byte; then we close ours;
//! * a client that resets or vanishes ends only its own thread;
//! * when the process runs out of file descriptors (`EMFILE`) or threads,
//!   the server keeps serving the connections it has and retries later
//!   instead of crashing or spinning.
//!
//! Book: Chapter 1, "One thread per connection".

use std::io::{self, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream, ToSocketAddrs};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::thread::{self, JoinHandle};
use std::time::Duration;

// ANCHOR: constants
/// Bytes each connection thread reads at a time. The buffer lives on the
/// thread's stack, so it is part of what each connection costs in memory.
pub const READ_BUFFER_BYTES: usize = 8 * 1024;

/// How long the accept loop waits before retrying after running out of file
/// descriptors or threads: long enough not to spin, short enough to resume
/// quickly when connections close.
const ACCEPT_BACKOFF: Duration = Duration::from_millis(20);
// ANCHOR_END: constants

/// Counters the server keeps, readable while it runs.
#[derive(Debug, Default)]
pub struct ServerStats {
    accepted: AtomicU64,
    active: AtomicU64,
    peak_active: AtomicU64,
    bytes_echoed: AtomicU64,
    connection_errors: AtomicU64,
    refused: AtomicU64,
}

impl ServerStats {
    /// Connections accepted so far.
    pub fn accepted(&self) -> u64 {
        self.accepted.load(Ordering::Relaxed)
    }
    /// Connections being served right now (one thread each).
    pub fn active(&self) -> u64 {
        self.active.load(Ordering::Relaxed)
    }
    /// The most connections served at the same time.
    pub fn peak_active(&self) -> u64 {
        self.peak_active.load(Ordering::Relaxed)
    }
    /// Bytes written back to clients.
    pub fn bytes_echoed(&self) -> u64 {
        self.bytes_echoed.load(Ordering::Relaxed)
    }
    /// Connections that ended with an error (reset, broken pipe, ...).
    pub fn connection_errors(&self) -> u64 {
        self.connection_errors.load(Ordering::Relaxed)
    }
    /// Connections closed at once because no thread could be started, and
    /// accepts that failed for lack of descriptors.
    pub fn refused(&self) -> u64 {
        self.refused.load(Ordering::Relaxed)
    }
}

/// A bound, not yet running, thread-per-connection echo server.
#[derive(Debug)]
pub struct EchoServer {
    listener: TcpListener,
    stack_bytes: Option<usize>,
    max_connections: Option<u64>,
    stats: Arc<ServerStats>,
}

impl EchoServer {
    /// Binds the listening socket.
    pub fn bind(addr: impl ToSocketAddrs) -> io::Result<EchoServer> {
        Ok(EchoServer::from_listener(TcpListener::bind(addr)?))
    }

    /// Serves on a listener made elsewhere (Chapter 3 makes one with a larger
    /// accept backlog than `TcpListener::bind` asks for).
    pub fn from_listener(listener: TcpListener) -> EchoServer {
        EchoServer {
            listener,
            stack_bytes: None,
            max_connections: None,
            stats: Arc::default(),
        }
    }

    /// Gives each connection thread a stack of `bytes` instead of Rust's
    /// default (Chapter 3 measures what that changes).
    pub fn stack_size(mut self, bytes: usize) -> EchoServer {
        self.stack_bytes = Some(bytes);
        self
    }

    /// Serves at most `n` connections at once; the next ones are accepted
    /// and closed at once. Chapter 3 sets it below the number of threads the
    /// process can start: past that, thread creation fails inside the
    /// standard library in a way that aborts the whole process.
    pub fn max_connections(mut self, n: u64) -> EchoServer {
        self.max_connections = Some(n);
        self
    }

    /// The address the server listens on (useful after binding port 0).
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.listener.local_addr()
    }

    /// The server's counters.
    pub fn stats(&self) -> Arc<ServerStats> {
        Arc::clone(&self.stats)
    }

    /// Serves forever on the calling thread.
    pub fn run(self) -> io::Result<()> {
        self.accept_loop(&AtomicBool::new(false))
    }

    /// Serves on a background thread until [`RunningServer::stop`].
    pub fn spawn(self) -> io::Result<RunningServer> {
        let addr = self.local_addr()?;
        let stats = self.stats();
        let stop = Arc::new(AtomicBool::new(false));
        let thread = {
            let stop = Arc::clone(&stop);
            thread::Builder::new()
                .name("echo-accept".into())
                .spawn(move || self.accept_loop(&stop))?
        };
        Ok(RunningServer {
            addr,
            stats,
            stop,
            thread: Some(thread),
        })
    }

    // ANCHOR: accept_loop
    // ANCHOR: accept
    fn accept_loop(self, stop: &AtomicBool) -> io::Result<()> {
        while !stop.load(Ordering::Acquire) {
            let stream = match self.listener.accept() {
                Ok((stream, _peer)) => stream,
                Err(err) if is_out_of_resources(&err) => {
                    // EMFILE/ENFILE/ENOMEM: the pending connection stays in the
                    // kernel's backlog. Keep serving the ones we have and try
                    // again shortly, instead of failing in a tight loop.
                    self.stats.refused.fetch_add(1, Ordering::Relaxed);
                    thread::sleep(ACCEPT_BACKOFF);
                    continue;
                }
                // The peer gave up before we accepted, or a signal: harmless.
                Err(err) if is_transient(&err) => continue,
                Err(err) => return Err(err),
            };
            if stop.load(Ordering::Acquire) {
                break; // the wake-up connection from `RunningServer::stop`
            }
            self.serve_on_new_thread(stream);
        }
        Ok(())
    }
    // ANCHOR_END: accept

    // ANCHOR: spawn_thread
    fn serve_on_new_thread(&self, stream: TcpStream) {
        let stats = Arc::clone(&self.stats);
        if self
            .max_connections
            .is_some_and(|max| stats.active.load(Ordering::Relaxed) >= max)
        {
            // Full: closing the stream tells the client at once.
            stats.refused.fetch_add(1, Ordering::Relaxed);
            return;
        }
        let mut builder = thread::Builder::new();
        if let Some(bytes) = self.stack_bytes {
            builder = builder.stack_size(bytes);
        }
        let active = stats.active.fetch_add(1, Ordering::Relaxed) + 1;
        stats.peak_active.fetch_max(active, Ordering::Relaxed);
        stats.accepted.fetch_add(1, Ordering::Relaxed);
        let spawned = builder.spawn({
            let stats = Arc::clone(&stats);
            move || {
                match echo(stream, &stats.bytes_echoed) {
                    Ok(_) => {}
                    Err(_) => {
                        stats.connection_errors.fetch_add(1, Ordering::Relaxed);
                    }
                }
                stats.active.fetch_sub(1, Ordering::Relaxed);
            }
        });
        if spawned.is_err() {
            // No thread for this client (thread limit, memory): the closure,
            // and with it the stream, is dropped, which closes the connection.
            // The server itself carries on.
            stats.active.fetch_sub(1, Ordering::Relaxed);
            stats.refused.fetch_add(1, Ordering::Relaxed);
            thread::sleep(ACCEPT_BACKOFF);
        }
    }
    // ANCHOR_END: spawn_thread
    // ANCHOR_END: accept_loop
}

// ANCHOR: echo
/// Echoes everything `stream` sends until it closes its side, then closes
/// ours. Counts echoed bytes in `echoed` as it goes.
pub fn echo(mut stream: TcpStream, echoed: &AtomicU64) -> io::Result<u64> {
    let mut buf = [0u8; READ_BUFFER_BYTES];
    let mut total = 0;
    loop {
        let n = match stream.read(&mut buf) {
            Ok(0) => break, // the client closed its sending side
            Ok(n) => n,
            Err(err) if err.kind() == io::ErrorKind::Interrupted => continue,
            Err(err) => return Err(err),
        };
        stream.write_all(&buf[..n])?;
        echoed.fetch_add(n as u64, Ordering::Relaxed);
        total += n as u64;
    }
    // Half-close handled: everything read has been written back; now tell
    // the client we are done too.
    match stream.shutdown(Shutdown::Write) {
        Ok(()) => Ok(total),
        // The client may already have closed completely.
        Err(err) if err.kind() == io::ErrorKind::NotConnected => Ok(total),
        Err(err) => Err(err),
    }
}
// ANCHOR_END: echo

/// Errors after which accepting can resume once resources free up.
pub fn is_out_of_resources(err: &io::Error) -> bool {
    matches!(
        err.raw_os_error(),
        Some(libc::EMFILE | libc::ENFILE | libc::ENOBUFS | libc::ENOMEM)
    )
}

/// Errors that concern one pending connection only.
pub fn is_transient(err: &io::Error) -> bool {
    matches!(
        err.kind(),
        io::ErrorKind::ConnectionAborted | io::ErrorKind::Interrupted | io::ErrorKind::WouldBlock
    ) || matches!(err.raw_os_error(), Some(libc::EPROTO | libc::EPERM))
}

/// An echo server running on a background thread.
#[derive(Debug)]
pub struct RunningServer {
    addr: SocketAddr,
    stats: Arc<ServerStats>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<io::Result<()>>>,
}

impl RunningServer {
    /// The address it listens on.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Its counters.
    pub fn stats(&self) -> &ServerStats {
        &self.stats
    }

    /// Stops accepting and waits for the accept thread to end. Connections
    /// already being served finish on their own threads.
    pub fn stop(mut self) -> io::Result<()> {
        self.stop_and_join()
    }

    fn stop_and_join(&mut self) -> io::Result<()> {
        let Some(thread) = self.thread.take() else {
            return Ok(());
        };
        self.stop.store(true, Ordering::Release);
        // The accept thread is asleep in accept(); a connection wakes it, and
        // it sees the flag. If the connect fails the loop has already ended.
        let _ = TcpStream::connect_timeout(&self.addr, Duration::from_secs(1));
        thread
            .join()
            .map_err(|_| io::Error::other("the accept thread panicked"))?
    }
}

impl Drop for RunningServer {
    fn drop(&mut self) {
        let _ = self.stop_and_join();
    }
}
