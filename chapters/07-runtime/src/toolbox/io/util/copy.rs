//! [`copy`], [`copy_buf`] and [`copy_bidirectional`]: a reader into a
//! writer until end of file, in one direction or both.
//!
//! `copy` owns an 8 KiB buffer (Tokio's size) and alternates: fill the
//! buffer from the reader when it is empty, drain it into the writer when
//! it is not. Three details come from Tokio's documented behaviour: while
//! the reader has nothing (it returned `Pending`), the writer is flushed, so
//! a buffered writer does not sit on bytes the peer is waiting for; at end
//! of file the writer is flushed once more before the count is returned;
//! and a read or write interrupted by a signal (`Interrupted`) is tried
//! again, where any other error ends the copy.
//!
//! `copy_bidirectional` runs two such copies inside one future. When one
//! direction reaches end of file it shuts the opposite writer down (so the
//! peer sees end of file too) and the other direction carries on; the
//! future returns both counts when both directions are done.
//!
//! Every copy spends the task's cooperative budget (`task/coop.rs`): one
//! unit a poll, kept once a read, a write or a flush has completed. Between
//! two in-memory streams that are always ready (a byte slice into a `Vec`)
//! nothing else in the loop would ever return `Pending`, so without it a
//! task copying in a loop would never yield. Tokio's copies spend the same
//! way.
//!
//! Book: Chapter 8, "Sockets", section "Tokio's names: the extension traits".

use crate::task::coop;
use futures::io::{AsyncBufRead, AsyncRead, AsyncWrite};
use std::future::poll_fn;
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll, ready};

/// The buffer of one copy (Tokio's default too): large enough that a
/// system call moves a useful amount, small enough to keep per connection.
const COPY_BUF_SIZE: usize = 8 * 1024;

/// One direction of a copy: a buffer, what part of it is still to be
/// written, and the running count.
struct CopyBuffer {
    buf: Box<[u8]>,
    /// `buf[pos..cap]` was read and is not yet written.
    pos: usize,
    cap: usize,
    /// Bytes written so far.
    amount: u64,
    /// The reader returned end of file.
    read_done: bool,
    /// Something was written since the last flush.
    need_flush: bool,
}

impl CopyBuffer {
    fn new() -> Self {
        CopyBuffer::with_size(COPY_BUF_SIZE)
    }

    fn with_size(size: usize) -> Self {
        CopyBuffer {
            buf: vec![0; size].into_boxed_slice(),
            pos: 0,
            cap: 0,
            amount: 0,
            read_done: false,
            need_flush: false,
        }
    }

    /// Copies until the reader's end of file and a final flush; returns the
    /// number of bytes copied.
    fn poll_copy<R, W>(
        &mut self,
        cx: &mut Context<'_>,
        mut reader: Pin<&mut R>,
        mut writer: Pin<&mut W>,
    ) -> Poll<io::Result<u64>>
    where
        R: AsyncRead + ?Sized,
        W: AsyncWrite + ?Sized,
    {
        // One unit for this poll, kept once anything below completes.
        let budget = ready!(coop::poll_proceed(cx));
        loop {
            if self.pos == self.cap && !self.read_done {
                let read = loop {
                    match reader.as_mut().poll_read(cx, &mut self.buf) {
                        Poll::Ready(Err(e)) if e.kind() == io::ErrorKind::Interrupted => {}
                        read => break read,
                    }
                };
                if read.is_ready() {
                    budget.made_progress();
                }
                match read {
                    Poll::Ready(Ok(0)) => self.read_done = true,
                    Poll::Ready(Ok(n)) => {
                        self.pos = 0;
                        self.cap = n;
                    }
                    Poll::Ready(Err(e)) => return Poll::Ready(Err(e)),
                    Poll::Pending => {
                        // Nothing to read for now: push out what a buffered
                        // writer holds before going to sleep.
                        if self.need_flush {
                            ready!(writer.as_mut().poll_flush(cx))?;
                            budget.made_progress();
                            self.need_flush = false;
                        }
                        return Poll::Pending;
                    }
                }
            }

            while self.pos < self.cap {
                let n = ready!(poll_write_some(
                    cx,
                    writer.as_mut(),
                    &self.buf[self.pos..self.cap]
                ))?;
                budget.made_progress();
                self.pos += n;
                self.amount += n as u64;
                self.need_flush = true;
            }

            if self.pos == self.cap && self.read_done {
                ready!(writer.as_mut().poll_flush(cx))?;
                budget.made_progress();
                self.need_flush = false;
                return Poll::Ready(Ok(self.amount));
            }
        }
    }
}

/// Writes some of `buf` (not empty), trying again if interrupted; a
/// writer that accepts none of it would make the copy spin, so that is an
/// error.
fn poll_write_some<W: AsyncWrite + ?Sized>(
    cx: &mut Context<'_>,
    mut writer: Pin<&mut W>,
    buf: &[u8],
) -> Poll<io::Result<usize>> {
    loop {
        match ready!(writer.as_mut().poll_write(cx, buf)) {
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Ok(0) => {
                return Poll::Ready(Err(io::Error::new(
                    io::ErrorKind::WriteZero,
                    "write zero byte into writer",
                )));
            }
            written => return Poll::Ready(written),
        }
    }
}

/// Copies everything `reader` yields into `writer`, until end of file, and
/// returns the number of bytes copied. The writer is flushed when the
/// reader has nothing for the moment and at the end; it is not shut down.
///
/// A read or write that fails with `Interrupted` is tried again; any other
/// error from either side ends the copy, and bytes read but not yet written
/// are then lost.
///
/// ```
/// # rt::Runtime::new().unwrap().block_on(async {
/// let mut reader: &[u8] = b"hello";
/// let mut writer = futures::io::Cursor::new(Vec::new());
/// let n = rt::io::copy(&mut reader, &mut writer).await?;
/// assert_eq!(n, 5);
/// assert_eq!(writer.into_inner(), b"hello");
/// # Ok::<(), std::io::Error>(())
/// # }).unwrap();
/// ```
pub async fn copy<R, W>(reader: &mut R, writer: &mut W) -> io::Result<u64>
where
    R: AsyncRead + Unpin + ?Sized,
    W: AsyncWrite + Unpin + ?Sized,
{
    let mut buffer = CopyBuffer::new();
    poll_fn(|cx| buffer.poll_copy(cx, Pin::new(&mut *reader), Pin::new(&mut *writer))).await
}

/// [`copy`] from a reader that has its own buffer: its `fill_buf` is
/// written out directly, with no second buffer in between. Errors and the
/// budget as in `copy`.
pub async fn copy_buf<R, W>(reader: &mut R, writer: &mut W) -> io::Result<u64>
where
    R: AsyncBufRead + Unpin + ?Sized,
    W: AsyncWrite + Unpin + ?Sized,
{
    let mut amount = 0u64;
    poll_fn(|cx| {
        // The budget as in `CopyBuffer::poll_copy`.
        let budget = ready!(coop::poll_proceed(cx));
        loop {
            let available = match ready!(Pin::new(&mut *reader).poll_fill_buf(cx)) {
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                filled => filled?,
            };
            budget.made_progress();
            if available.is_empty() {
                ready!(Pin::new(&mut *writer).poll_flush(cx))?;
                return Poll::Ready(Ok(amount));
            }
            let n = ready!(poll_write_some(cx, Pin::new(&mut *writer), available))?;
            Pin::new(&mut *reader).consume(n);
            amount += n as u64;
        }
    })
    .await
}

/// Where one direction of [`copy_bidirectional`] stands.
enum Transfer {
    Running(CopyBuffer),
    /// End of file read and flushed; shutting the writer down.
    ShuttingDown(u64),
    Done(u64),
}

/// Drives one direction: copy, then shut the writer down.
fn poll_transfer<A, B>(
    cx: &mut Context<'_>,
    state: &mut Transfer,
    reader: &mut A,
    writer: &mut B,
) -> Poll<io::Result<u64>>
where
    A: AsyncRead + Unpin + ?Sized,
    B: AsyncWrite + Unpin + ?Sized,
{
    loop {
        match state {
            Transfer::Running(buffer) => {
                let n =
                    ready!(buffer.poll_copy(cx, Pin::new(&mut *reader), Pin::new(&mut *writer)))?;
                *state = Transfer::ShuttingDown(n);
            }
            Transfer::ShuttingDown(n) => {
                ready!(Pin::new(&mut *writer).poll_close(cx))?;
                *state = Transfer::Done(*n);
            }
            Transfer::Done(n) => return Poll::Ready(Ok(*n)),
        }
    }
}

/// Copies `a` into `b` and `b` into `a` at the same time, until both
/// directions reach end of file. When `a` ends, `b` is shut down (and vice
/// versa) while the other direction goes on. Returns the bytes copied
/// `(a to b, b to a)`.
///
/// Interrupted reads and writes are tried again; any other error on either
/// stream ends both directions at once, and bytes read but not yet written
/// are then lost.
pub async fn copy_bidirectional<A, B>(a: &mut A, b: &mut B) -> io::Result<(u64, u64)>
where
    A: AsyncRead + AsyncWrite + Unpin + ?Sized,
    B: AsyncRead + AsyncWrite + Unpin + ?Sized,
{
    copy_bidirectional_with_sizes(a, b, COPY_BUF_SIZE, COPY_BUF_SIZE).await
}

/// [`copy_bidirectional`] with a buffer of `a_to_b_buf_size` bytes for the
/// direction `a` to `b` and one of `b_to_a_buf_size` bytes for the other
/// (8 KiB each in `copy_bidirectional`).
///
/// # Panics
///
/// If a size is 0 (that direction could never move a byte), when first
/// polled.
pub async fn copy_bidirectional_with_sizes<A, B>(
    a: &mut A,
    b: &mut B,
    a_to_b_buf_size: usize,
    b_to_a_buf_size: usize,
) -> io::Result<(u64, u64)>
where
    A: AsyncRead + AsyncWrite + Unpin + ?Sized,
    B: AsyncRead + AsyncWrite + Unpin + ?Sized,
{
    assert!(
        a_to_b_buf_size > 0,
        "`a_to_b_buf_size` must be greater than 0"
    );
    assert!(
        b_to_a_buf_size > 0,
        "`b_to_a_buf_size` must be greater than 0"
    );
    let mut a_to_b = Transfer::Running(CopyBuffer::with_size(a_to_b_buf_size));
    let mut b_to_a = Transfer::Running(CopyBuffer::with_size(b_to_a_buf_size));
    poll_fn(|cx| {
        // Poll both every time: each registers its own wakers, and one
        // direction being `Pending` must not stall the other.
        let forward = poll_transfer(cx, &mut a_to_b, &mut *a, &mut *b)?;
        let backward = poll_transfer(cx, &mut b_to_a, &mut *b, &mut *a)?;
        match (forward, backward) {
            (Poll::Ready(ab), Poll::Ready(ba)) => Poll::Ready(Ok((ab, ba))),
            _ => Poll::Pending,
        }
    })
    .await
}
