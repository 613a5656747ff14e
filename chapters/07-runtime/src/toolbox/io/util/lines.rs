//! [`Lines`] and [`Split`]: a buffered reader cut at a delimiter, one
//! `next_line().await` (or `next_segment().await`) at a time.
//!
//! Tokio's `Lines` is not a `Stream`: it has an async method,
//! `next_line`, returning `io::Result<Option<String>>`, so a loop reads
//! `while let Some(line) = lines.next_line().await? { … }`. The bytes of a
//! line that has not fully arrived are kept *in the `Lines`*, not in the
//! future, which is what makes `next_line` cancel safe: a `select!` that
//! drops the future loses nothing, and the next call carries on.
//!
//! Both types need their reader to be `Unpin` (Tokio's `poll_next_line`
//! works on any reader through a pin projection; rt avoids the `unsafe`
//! that would take and asks for `Unpin`, which every rt stream and
//! `BufReader` of one is).
//!
//! Book: Chapter 8, "Sockets", section "Tokio's names: the extension traits".

use futures::io::AsyncBufRead;
use std::future::poll_fn;
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll, ready};

/// Moves bytes from `reader` into `out` up to and including `delimiter`.
/// `Ready(Ok(true))`: the delimiter was found; `Ready(Ok(false))`: end of
/// file came first. What was moved before a `Pending` or an error stays
/// in `out`. A fill that fails with `Interrupted` is tried again, as in
/// Tokio ("This function will ignore all instances of
/// `ErrorKind::Interrupted`"). The loop of `read_until`, `read_line`,
/// `next_line` and `next_segment`.
pub(super) fn poll_read_until<R: AsyncBufRead + Unpin + ?Sized>(
    reader: &mut R,
    cx: &mut Context<'_>,
    delimiter: u8,
    out: &mut Vec<u8>,
) -> Poll<io::Result<bool>> {
    loop {
        let available = match ready!(Pin::new(&mut *reader).poll_fill_buf(cx)) {
            Err(err) if err.kind() == io::ErrorKind::Interrupted => continue,
            filled => filled?,
        };
        if available.is_empty() {
            return Poll::Ready(Ok(false));
        }
        let (used, found) = match available.iter().position(|&b| b == delimiter) {
            Some(i) => (i + 1, true),
            None => (available.len(), false),
        };
        out.extend_from_slice(&available[..used]);
        Pin::new(&mut *reader).consume(used);
        if found {
            return Poll::Ready(Ok(true));
        }
    }
}

/// The lines of a buffered reader; made by
/// [`AsyncBufReadExt::lines`](crate::io::AsyncBufReadExt::lines).
#[derive(Debug)]
#[must_use = "Lines does nothing unless `next_line` is awaited"]
pub struct Lines<R> {
    reader: R,
    /// The line read so far, kept across cancelled calls.
    pending: Vec<u8>,
}

impl<R> Lines<R> {
    pub(crate) fn new(reader: R) -> Self {
        Lines {
            reader,
            pending: Vec::new(),
        }
    }

    /// The reader underneath.
    pub fn get_ref(&self) -> &R {
        &self.reader
    }

    /// The reader underneath, mutably.
    pub fn get_mut(&mut self) -> &mut R {
        &mut self.reader
    }

    /// The reader; a line read in part is lost.
    pub fn into_inner(self) -> R {
        self.reader
    }
}

impl<R: AsyncBufRead + Unpin> Lines<R> {
    /// The next line without its `\n` or `\r\n`; `None` at end of file. A
    /// last line with no `\n` is returned as it is. A line that is not
    /// UTF-8 is an error of kind [`InvalidData`](io::ErrorKind::InvalidData).
    ///
    /// # Cancel safety
    ///
    /// Cancel safe: bytes of a line read before the future was dropped stay
    /// in the `Lines`, and the next call returns the whole line.
    pub async fn next_line(&mut self) -> io::Result<Option<String>> {
        poll_fn(|cx| Pin::new(&mut *self).poll_next_line(cx)).await
    }

    /// [`next_line`](Self::next_line) as a poll method, for hand-written
    /// futures.
    pub fn poll_next_line(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<io::Result<Option<String>>> {
        let this = self.get_mut();
        let found = ready!(poll_read_until(
            &mut this.reader,
            cx,
            b'\n',
            &mut this.pending
        ))?;
        if !found && this.pending.is_empty() {
            return Poll::Ready(Ok(None));
        }
        let mut line = std::mem::take(&mut this.pending);
        if line.last() == Some(&b'\n') {
            line.pop();
            if line.last() == Some(&b'\r') {
                line.pop();
            }
        }
        Poll::Ready(
            String::from_utf8(line)
                .map(Some)
                .map_err(|_| io::Error::new(io::ErrorKind::InvalidData, "line is not valid UTF-8")),
        )
    }
}

/// The segments of a buffered reader between one delimiter byte; made by
/// [`AsyncBufReadExt::split`](crate::io::AsyncBufReadExt::split).
#[derive(Debug)]
#[must_use = "Split does nothing unless `next_segment` is awaited"]
pub struct Split<R> {
    reader: R,
    delimiter: u8,
    /// The segment read so far, kept across cancelled calls.
    pending: Vec<u8>,
}

impl<R> Split<R> {
    pub(crate) fn new(reader: R, delimiter: u8) -> Self {
        Split {
            reader,
            delimiter,
            pending: Vec::new(),
        }
    }
}

impl<R: AsyncBufRead + Unpin> Split<R> {
    /// The next segment without its delimiter; `None` at end of file. A
    /// last segment with no delimiter is returned as it is.
    ///
    /// # Cancel safety
    ///
    /// Cancel safe, as [`Lines::next_line`].
    pub async fn next_segment(&mut self) -> io::Result<Option<Vec<u8>>> {
        poll_fn(|cx| Pin::new(&mut *self).poll_next_segment(cx)).await
    }

    /// [`next_segment`](Self::next_segment) as a poll method.
    pub fn poll_next_segment(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<io::Result<Option<Vec<u8>>>> {
        let this = self.get_mut();
        let found = ready!(poll_read_until(
            &mut this.reader,
            cx,
            this.delimiter,
            &mut this.pending
        ))?;
        if !found && this.pending.is_empty() {
            return Poll::Ready(Ok(None));
        }
        let mut segment = std::mem::take(&mut this.pending);
        if found {
            segment.pop();
        }
        Poll::Ready(Ok(Some(segment)))
    }
}
