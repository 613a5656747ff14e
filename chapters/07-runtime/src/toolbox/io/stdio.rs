//! [`stdin`], [`stdout`] and [`stderr`] as async streams, on the blocking
//! pool.
//!
//! A terminal or a pipe cannot be registered with epoll in a way that works
//! everywhere (a regular file redirected to stdin is always "ready"), so,
//! like Tokio, rt does each operation as a blocking call on the blocking
//! pool (`task::spawn_blocking`) and keeps the handle of the call in the
//! stream. The stream owns a buffer that travels to the pool thread and
//! back with each call:
//!
//! * a read asks the pool for at most the caller's buffer size (capped at
//!   [`MAX_BUF`]), returns `Pending` until the pool answers, then hands out
//!   the bytes; bytes the caller had no room for stay for the next read,
//!   and a read dropped mid-way leaves its bytes in the stream too;
//! * a write copies the caller's bytes into the buffer, starts the pool
//!   call and says "written" at once; the next write, or `flush`, waits for
//!   that call and reports its error if it failed. So `flush().await` (or
//!   `shutdown().await`) is how a program knows its output is out.
//!
//! Book: Chapter 8, "Sockets", section "Tokio's names: the extension traits".

use crate::task::{JoinHandle, spawn_blocking};
use futures::io::{AsyncRead, AsyncWrite};
use std::fmt;
use std::future::Future;
use std::io::{self, Read, Write};
use std::pin::Pin;
use std::task::{Context, Poll, ready};

/// The most one pool call reads or writes (Tokio's figure): a 1 GiB write
/// is cut into calls of this size rather than copied whole.
pub const MAX_BUF: usize = 2 * 1024 * 1024;

/// The result of a pool call, its buffer back, as an `io::Result`.
fn joined<T>(
    result: Result<(io::Result<T>, Vec<u8>), crate::task::JoinError>,
) -> (io::Result<T>, Vec<u8>) {
    match result {
        Ok(done) => done,
        Err(e) => (Err(io::Error::other(e.to_string())), Vec::new()),
    }
}

/// The process's standard input; made by [`stdin`].
pub struct Stdin {
    /// Bytes the pool read that no caller has taken yet: `buf[pos..]`.
    buf: Vec<u8>,
    pos: usize,
    /// The read under way on the pool, if any.
    busy: Option<JoinHandle<(io::Result<usize>, Vec<u8>)>>,
    /// The standard library's handle, whose descriptor `AsFd` lends.
    std: io::Stdin,
}

/// The process's standard input, read on the blocking pool.
///
/// # Panics
///
/// Reading panics outside a runtime (the pool belongs to the runtime).
pub fn stdin() -> Stdin {
    Stdin {
        buf: Vec::new(),
        pos: 0,
        busy: None,
        std: io::stdin(),
    }
}

impl AsyncRead for Stdin {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        out: &mut [u8],
    ) -> Poll<io::Result<usize>> {
        let this = &mut *self;
        loop {
            if this.pos < this.buf.len() {
                let n = out.len().min(this.buf.len() - this.pos);
                out[..n].copy_from_slice(&this.buf[this.pos..this.pos + n]);
                this.pos += n;
                return Poll::Ready(Ok(n));
            }
            if out.is_empty() {
                return Poll::Ready(Ok(0));
            }
            match &mut this.busy {
                Some(handle) => {
                    let (result, buf) = joined(ready!(Pin::new(handle).poll(cx)));
                    this.busy = None;
                    this.buf = buf;
                    this.pos = 0;
                    if result? == 0 {
                        return Poll::Ready(Ok(0)); // end of file
                    }
                }
                None => {
                    let mut buf = std::mem::take(&mut this.buf);
                    let want = out.len().min(MAX_BUF);
                    this.busy = Some(spawn_blocking(move || {
                        buf.resize(want, 0);
                        let result = io::stdin().read(&mut buf);
                        buf.truncate(*result.as_ref().unwrap_or(&0));
                        (result, buf)
                    }));
                }
            }
        }
    }
}

impl fmt::Debug for Stdin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Stdin").finish_non_exhaustive()
    }
}

/// Which standard stream a [`StdWriter`] writes to.
#[derive(Clone, Copy, Debug)]
enum Target {
    Out,
    Err,
}

/// Standard output or error: one write at a time on the pool.
struct StdWriter {
    target: Target,
    /// The buffer, when no write is under way.
    idle: Option<Vec<u8>>,
    /// The write under way on the pool, if any.
    busy: Option<JoinHandle<(io::Result<()>, Vec<u8>)>>,
}

impl StdWriter {
    fn new(target: Target) -> Self {
        StdWriter {
            target,
            idle: Some(Vec::new()),
            busy: None,
        }
    }

    /// Waits for the write under way and reports how it went.
    fn poll_idle(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        if let Some(handle) = &mut self.busy {
            let (result, buf) = joined(ready!(Pin::new(handle).poll(cx)));
            self.busy = None;
            self.idle = Some(buf);
            result?;
        }
        Poll::Ready(Ok(()))
    }

    fn poll_write(&mut self, cx: &mut Context<'_>, bytes: &[u8]) -> Poll<io::Result<usize>> {
        ready!(self.poll_idle(cx))?;
        if bytes.is_empty() {
            return Poll::Ready(Ok(0));
        }
        let mut buf = self.idle.take().unwrap_or_default();
        let n = bytes.len().min(MAX_BUF);
        buf.clear();
        buf.extend_from_slice(&bytes[..n]);
        let target = self.target;
        self.busy = Some(spawn_blocking(move || {
            let result = match target {
                Target::Out => {
                    let mut out = io::stdout().lock();
                    out.write_all(&buf).and_then(|()| out.flush())
                }
                Target::Err => io::stderr().lock().write_all(&buf),
            };
            (result, buf)
        }));
        Poll::Ready(Ok(n))
    }
}

/// The process's standard output; made by [`stdout`]. (The second field is
/// the standard library's handle, whose descriptor `AsFd` lends.)
pub struct Stdout(StdWriter, io::Stdout);

/// The process's standard error; made by [`stderr`].
pub struct Stderr(StdWriter, io::Stderr);

/// The process's standard output, written on the blocking pool. A write
/// returns once the bytes are handed to the pool; `flush().await` waits
/// until they are out.
///
/// # Panics
///
/// Writing panics outside a runtime (the pool belongs to the runtime).
pub fn stdout() -> Stdout {
    Stdout(StdWriter::new(Target::Out), io::stdout())
}

/// The process's standard error, as [`stdout`].
pub fn stderr() -> Stderr {
    Stderr(StdWriter::new(Target::Err), io::stderr())
}

/// The three `AsyncWrite` methods of a standard stream.
macro_rules! std_writer {
    ($ty:ident) => {
        impl AsyncWrite for $ty {
            fn poll_write(
                mut self: Pin<&mut Self>,
                cx: &mut Context<'_>,
                buf: &[u8],
            ) -> Poll<io::Result<usize>> {
                self.0.poll_write(cx, buf)
            }

            fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
                self.0.poll_idle(cx)
            }

            fn poll_close(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
                self.0.poll_idle(cx)
            }
        }

        impl fmt::Debug for $ty {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.debug_struct(stringify!($ty)).finish_non_exhaustive()
            }
        }
    };
}

std_writer!(Stdout);
std_writer!(Stderr);

/// The descriptors of the three streams (0, 1 and 2), as Tokio's give them,
/// for `isatty` and terminal modes: lent by the standard library's handle.
macro_rules! std_fd {
    ($ty:ident, $($std:tt)+) => {
        impl std::os::fd::AsRawFd for $ty {
            fn as_raw_fd(&self) -> std::os::fd::RawFd {
                self.$($std)+.as_raw_fd()
            }
        }

        impl std::os::fd::AsFd for $ty {
            fn as_fd(&self) -> std::os::fd::BorrowedFd<'_> {
                self.$($std)+.as_fd()
            }
        }
    };
}

std_fd!(Stdin, std);
std_fd!(Stdout, 1);
std_fd!(Stderr, 1);
