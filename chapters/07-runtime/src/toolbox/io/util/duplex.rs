//! [`duplex`]: a pair of connected in-memory streams, for tests and for
//! joining two pieces of a program that expect sockets.
//!
//! Each direction is a [`Pipe`]: a byte queue with a capacity, a closed
//! flag, and the waker of the one reader and of the one writer that may be
//! waiting. The two ends share the two pipes crosswise: what end A writes
//! into one pipe, end B reads out of it, and the other pipe carries the
//! other way. The rules, which are Tokio's documented ones:
//!
//! * a write takes as much as fits; with the queue full it returns
//!   `Pending`, and the next read wakes it (this is *backpressure*: a fast
//!   writer cannot run ahead of a slow reader by more than the capacity).
//!   A vectored write takes as much of its slices, in order, as fits;
//! * a read takes what is queued; with the queue empty it returns
//!   `Pending`, and the next write wakes it;
//! * a read into an empty buffer, or a write of nothing, returns 0 at once;
//! * when an end is dropped, its peer reads what is left and then end of
//!   file (0), and its peer's writes fail with `BrokenPipe`, including one
//!   already waiting for room; `shutdown` closes one direction only.
//!
//! A waker is taken out under the lock and woken after it is released, so
//! the woken task never finds the lock held by the one that woke it. Reads
//! and writes spend the task's cooperative budget like a socket's, so a
//! task that loops on a pipe that is always ready still yields.
//!
//! A [`SimplexStream`] is one pipe that its owner both writes and reads; a
//! `DuplexStream` reads one pipe and writes the other. Past that choice the
//! two are the same code (`pipe_end!`).
//!
//! Book: Chapter 8, "Sockets", section "Tokio's names: the extension traits".

use crate::task::coop;
use futures::io::{AsyncRead, AsyncWrite};
use std::collections::VecDeque;
use std::fmt;
use std::io::{self, IoSlice};
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll, Waker, ready};

/// One end of a [`duplex`] pair: reads what the other end writes, writes
/// what the other end reads.
pub struct DuplexStream {
    /// The pipe this end reads from (the peer writes into it).
    read: Arc<Mutex<Pipe>>,
    /// The pipe this end writes into (the peer reads from it).
    write: Arc<Mutex<Pipe>>,
}

/// Makes a pair of connected in-memory streams. Each direction buffers at
/// most `max_buf_size` bytes; a write beyond that waits for the peer to
/// read.
///
/// # Panics
///
/// If `max_buf_size` is 0 (no write could ever complete), at the caller's
/// line, as Tokio's does.
#[track_caller]
// ANCHOR: duplex
pub fn duplex(max_buf_size: usize) -> (DuplexStream, DuplexStream) {
    assert!(max_buf_size > 0, "`max_buf_size` must be greater than 0");
    let one_way = Arc::new(Mutex::new(Pipe::new(max_buf_size)));
    let other_way = Arc::new(Mutex::new(Pipe::new(max_buf_size)));
    let a = DuplexStream {
        read: one_way.clone(),
        write: other_way.clone(),
    };
    let b = DuplexStream {
        read: other_way,
        write: one_way,
    };
    (a, b)
}

/// One direction: bytes written and not yet read, and who waits.
struct Pipe {
    buffer: VecDeque<u8>,
    max_buf_size: usize,
    /// An end was dropped or shut down: no more bytes will come.
    is_closed: bool,
    /// The reader that found the buffer empty.
    read_waker: Option<Waker>,
    /// The writer that found the buffer full.
    write_waker: Option<Waker>,
}

impl Pipe {
    fn poll_read(
        &mut self,
        cx: &mut Context<'_>,
        buf: &mut [u8],
    ) -> (Poll<io::Result<usize>>, Option<Waker>) {
        if buf.is_empty() {
            (Poll::Ready(Ok(0)), None) // nothing asked: nothing to wait for
        } else if !self.buffer.is_empty() {
            let n = buf.len().min(self.buffer.len());
            for (dst, src) in buf.iter_mut().zip(self.buffer.drain(..n)) {
                *dst = src;
            }
            // Room was made: the writer waiting for it may go on.
            (Poll::Ready(Ok(n)), self.write_waker.take())
        } else if self.is_closed {
            (Poll::Ready(Ok(0)), None) // drained and closed: end of file
        } else {
            self.read_waker = Some(cx.waker().clone());
            (Poll::Pending, None)
        }
    }

    /// Writes as much of `bufs`, in order, as fits (a plain write is one
    /// slice).
    fn poll_write(
        &mut self,
        cx: &mut Context<'_>,
        bufs: &[IoSlice<'_>],
    ) -> (Poll<io::Result<usize>>, Option<Waker>) {
        if self.is_closed {
            return (Poll::Ready(Err(io::ErrorKind::BrokenPipe.into())), None);
        }
        if bufs.iter().all(|buf| buf.is_empty()) {
            return (Poll::Ready(Ok(0)), None);
        }
        let mut room = self.max_buf_size - self.buffer.len();
        if room == 0 {
            // Full: wait for the reader (backpressure).
            self.write_waker = Some(cx.waker().clone());
            return (Poll::Pending, None);
        }
        let mut written = 0;
        for buf in bufs {
            let n = buf.len().min(room);
            self.buffer.extend(&buf[..n]);
            room -= n;
            written += n;
        }
        // Bytes arrived: the reader waiting for them may go on.
        (Poll::Ready(Ok(written)), self.read_waker.take())
    }
}
// ANCHOR_END: duplex

impl Pipe {
    fn new(max_buf_size: usize) -> Self {
        Pipe {
            buffer: VecDeque::new(),
            max_buf_size,
            is_closed: false,
            read_waker: None,
            write_waker: None,
        }
    }

    /// Closes the pipe and hands back every waiting waker: a waiting reader
    /// will see end of file, a waiting writer `BrokenPipe`.
    fn close(&mut self) -> [Option<Waker>; 2] {
        self.is_closed = true;
        [self.read_waker.take(), self.write_waker.take()]
    }
}

/// Closes `pipe` and wakes whoever waited on it, after the lock is released.
fn close_and_wake(pipe: &Mutex<Pipe>) {
    let wakers = lock(pipe).close();
    wakers.into_iter().flatten().for_each(Waker::wake);
}

/// Locks a pipe; its state is consistent after every statement, so a
/// poisoned lock (a panic elsewhere while it was held) is used as it is.
fn lock(pipe: &Mutex<Pipe>) -> MutexGuard<'_, Pipe> {
    pipe.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Runs one pipe operation: spends a unit of the task's budget, then calls
/// `op` under the lock, then wakes whoever `op` handed back.
fn with_pipe<T>(
    pipe: &Mutex<Pipe>,
    cx: &mut Context<'_>,
    op: impl FnOnce(&mut Pipe, &mut Context<'_>) -> (Poll<io::Result<T>>, Option<Waker>),
) -> Poll<io::Result<T>> {
    let budget = ready!(coop::poll_proceed(cx));
    let (result, waker) = op(&mut lock(pipe), cx);
    if let Some(waker) = waker {
        waker.wake();
    }
    if result.is_ready() {
        budget.made_progress();
    }
    result
}

/// The reading and writing impls of a pipe end: `$read` is the field of the
/// pipe it reads, `$write` of the pipe it writes (the same pipe for a
/// `SimplexStream`).
macro_rules! pipe_end {
    ($end:ty, read: $read:ident, write: $write:ident) => {
        impl AsyncRead for $end {
            fn poll_read(
                self: Pin<&mut Self>,
                cx: &mut Context<'_>,
                buf: &mut [u8],
            ) -> Poll<io::Result<usize>> {
                with_pipe(&self.$read, cx, |pipe, cx| pipe.poll_read(cx, buf))
            }
        }

        impl AsyncWrite for $end {
            fn poll_write(
                self: Pin<&mut Self>,
                cx: &mut Context<'_>,
                buf: &[u8],
            ) -> Poll<io::Result<usize>> {
                let bufs = [IoSlice::new(buf)];
                with_pipe(&self.$write, cx, |pipe, cx| pipe.poll_write(cx, &bufs))
            }

            /// As many of the slices as fit, in one call (Tokio's pipes do the
            /// same; the trait's default would write the first slice only).
            fn poll_write_vectored(
                self: Pin<&mut Self>,
                cx: &mut Context<'_>,
                bufs: &[IoSlice<'_>],
            ) -> Poll<io::Result<usize>> {
                with_pipe(&self.$write, cx, |pipe, cx| pipe.poll_write(cx, bufs))
            }

            /// Nothing is held back: written bytes are already readable.
            fn poll_flush(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
                Poll::Ready(Ok(()))
            }

            /// Closes the pipe this end writes: its reader reads what is
            /// left, then end of file, and writes fail with `BrokenPipe`. A
            /// `DuplexStream` can still read from its other pipe.
            fn poll_close(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
                close_and_wake(&self.$write);
                Poll::Ready(Ok(()))
            }
        }
    };
}

pipe_end!(DuplexStream, read: read, write: write);
pipe_end!(SimplexStream, read: pipe, write: pipe);

impl Drop for DuplexStream {
    /// Closes both directions: the peer reads end of file once it has
    /// drained what this end wrote, and its writes fail with `BrokenPipe`.
    fn drop(&mut self) {
        close_and_wake(&self.write);
        close_and_wake(&self.read);
    }
}

/// A one-way in-memory pipe: what is written into it is read out of it.
/// Made whole by [`SimplexStream::new_unsplit`], or as a reading and a
/// writing half by [`simplex`].
pub struct SimplexStream {
    pipe: Mutex<Pipe>,
}

impl SimplexStream {
    /// A one-way pipe that buffers at most `max_buf_size` bytes; a write
    /// beyond that waits for a read. [`shutdown`](crate::io::AsyncWriteExt::shutdown)
    /// closes it: reads then drain what is left and see end of file.
    ///
    /// # Panics
    ///
    /// If `max_buf_size` is 0, at the caller's line, as Tokio's does.
    #[track_caller]
    pub fn new_unsplit(max_buf_size: usize) -> SimplexStream {
        assert!(max_buf_size > 0, "`max_buf_size` must be greater than 0");
        SimplexStream {
            pipe: Mutex::new(Pipe::new(max_buf_size)),
        }
    }
}

/// A one-way in-memory pipe, as a reading half and a writing half (the
/// two halves of [`split`](crate::io::split) of a [`SimplexStream`]). The
/// reader sees end of file once the writer has called `shutdown` and
/// everything written has been read; dropping the writer alone does not
/// close the pipe (the halves share it), as in Tokio.
///
/// # Panics
///
/// If `max_buf_size` is 0, at the caller's line.
#[track_caller]
pub fn simplex(
    max_buf_size: usize,
) -> (
    crate::io::ReadHalf<SimplexStream>,
    crate::io::WriteHalf<SimplexStream>,
) {
    crate::io::split(SimplexStream::new_unsplit(max_buf_size))
}

impl fmt::Debug for SimplexStream {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SimplexStream").finish_non_exhaustive()
    }
}

impl fmt::Debug for DuplexStream {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DuplexStream").finish_non_exhaustive()
    }
}
