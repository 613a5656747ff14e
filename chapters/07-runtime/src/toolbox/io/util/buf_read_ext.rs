//! `AsyncBufReadExt`: Tokio's methods for readers with a buffer inside.
//!
//! A buffered reader (a [`BufReader`](crate::io::BufReader) around a
//! socket) can show the caller its buffer (`poll_fill_buf`) and be told how
//! much of it was used (`consume`). That is what reading *up to a
//! delimiter* needs: look for `\n` in what is buffered, take up to it, and
//! read more only if it is not there. `fill_buf` reuses `futures::io`'s
//! future, which has Tokio's output; `read_until` and `read_line` are our
//! own, on the loop in `lines.rs`, because Tokio's try a fill again when it
//! fails with `Interrupted` where `futures::io`'s end with the error;
//! `lines` and `split` return Tokio's [`Lines`] and [`Split`], whose
//! `next_line`/`next_segment` are written in `lines.rs`.
//!
//! Book: Chapter 8, "Sockets", section "Tokio's names: the extension traits".

use super::lines::{Lines, Split, poll_read_until};
use futures::io::{AsyncBufRead, FillBuf};
use std::future::Future;
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll, ready};

/// Methods for every [`AsyncBufRead`], with Tokio's names and signatures
/// (`tokio::io::AsyncBufReadExt`).
///
/// ```
/// use rt::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
///
/// # rt::Runtime::new().unwrap().block_on(async {
/// let (mut a, b) = rt::io::duplex(64);
/// a.write_all(b"one\r\ntwo").await?;
/// drop(a);
/// let mut lines = BufReader::new(b).lines();
/// assert_eq!(lines.next_line().await?.as_deref(), Some("one"));
/// assert_eq!(lines.next_line().await?.as_deref(), Some("two"));
/// assert_eq!(lines.next_line().await?, None);
/// # Ok::<(), std::io::Error>(())
/// # }).unwrap();
/// ```
pub trait AsyncBufReadExt: AsyncBufRead {
    /// Reads up to and including `byte` (or to end of file), appending to
    /// `buf`; returns the number of bytes appended, 0 at end of file. A
    /// fill that fails with `Interrupted` is tried again; on any other
    /// error the bytes read so far are in `buf`.
    ///
    /// # Cancel safety
    ///
    /// Bytes read before the future was dropped are already appended to
    /// `buf`; calling again with the same `buf` carries on to `byte`.
    fn read_until<'a>(&'a mut self, byte: u8, buf: &'a mut Vec<u8>) -> ReadUntil<'a, Self>
    where
        Self: Unpin,
    {
        let start_len = buf.len();
        ReadUntil {
            reader: self,
            byte,
            buf,
            start_len,
        }
    }

    /// Reads up to and including `\n` (or to end of file), appending to
    /// `buf`; returns the number of bytes appended, 0 at end of file. Bytes
    /// that are not UTF-8 are an error of kind
    /// [`InvalidData`](std::io::ErrorKind::InvalidData), and `buf` is left
    /// as it was. A fill that fails with `Interrupted` is tried again; on
    /// any other error the bytes read so far are appended to `buf` if they
    /// are UTF-8 (Tokio: "If an I/O error is encountered then `buf` may
    /// contain some bytes already read in the event that all data read so
    /// far was valid UTF-8").
    ///
    /// # Cancel safety
    ///
    /// Not cancel safe: dropped part-way, the bytes read so far are lost
    /// (`buf` is as it was). Use [`lines`](Self::lines) in a `select!`
    /// loop.
    fn read_line<'a>(&'a mut self, buf: &'a mut String) -> ReadLine<'a, Self>
    where
        Self: Unpin,
    {
        ReadLine {
            reader: self,
            buf,
            bytes: Vec::new(),
        }
    }

    futures_io_methods! {
        AsyncBufReadExt;

        /// The reader's buffer, filled from the source if it was empty; empty
        /// only at end of file. Pair with [`consume`](Self::consume).
        ///
        /// # Cancel safety
        ///
        /// Cancel safe: dropped, nothing was consumed.
        fn fill_buf(&mut self) -> FillBuf<'_, Self>;
    }

    /// Marks `amt` bytes of the buffer as used: the next read starts after
    /// them.
    fn consume(&mut self, amt: usize)
    where
        Self: Unpin,
    {
        Pin::new(self).consume(amt)
    }

    /// The reader's lines, one `next_line().await` at a time, each without
    /// its `\n` or `\r\n`.
    fn lines(self) -> Lines<Self>
    where
        Self: Sized,
    {
        Lines::new(self)
    }

    /// The reader's segments separated by `byte`, one `next_segment().await`
    /// at a time, each without the separator.
    fn split(self, byte: u8) -> Split<Self>
    where
        Self: Sized,
    {
        Split::new(self, byte)
    }
}

/// Every `AsyncBufRead`, sized or not, gets the methods.
impl<R: AsyncBufRead + ?Sized> AsyncBufReadExt for R {}

/// The future of [`AsyncBufReadExt::read_until`]: appends straight to the
/// caller's buffer, which is what makes it cancel safe.
#[must_use = "futures do nothing unless you `.await` or poll them"]
pub struct ReadUntil<'a, R: ?Sized> {
    reader: &'a mut R,
    byte: u8,
    buf: &'a mut Vec<u8>,
    /// The length of `buf` before the call: the count is what came after.
    start_len: usize,
}

impl<R: AsyncBufRead + Unpin + ?Sized> Future for ReadUntil<'_, R> {
    type Output = io::Result<usize>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<usize>> {
        let this = &mut *self;
        ready!(poll_read_until(&mut *this.reader, cx, this.byte, this.buf))?;
        Poll::Ready(Ok(this.buf.len() - this.start_len))
    }
}

/// The future of [`AsyncBufReadExt::read_line`]: gathers the line's bytes
/// apart, and appends them to the string only once they are known to be
/// UTF-8.
#[must_use = "futures do nothing unless you `.await` or poll them"]
pub struct ReadLine<'a, R: ?Sized> {
    reader: &'a mut R,
    buf: &'a mut String,
    /// The bytes of the line read so far.
    bytes: Vec<u8>,
}

impl<R: AsyncBufRead + Unpin + ?Sized> Future for ReadLine<'_, R> {
    type Output = io::Result<usize>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<usize>> {
        let this = &mut *self;
        let read = ready!(poll_read_until(
            &mut *this.reader,
            cx,
            b'\n',
            &mut this.bytes
        ));
        let bytes = std::mem::take(&mut this.bytes);
        let n = bytes.len();
        match (read, String::from_utf8(bytes)) {
            (Ok(_), Ok(line)) => {
                this.buf.push_str(&line);
                Poll::Ready(Ok(n))
            }
            (Err(err), Ok(line)) => {
                this.buf.push_str(&line);
                Poll::Ready(Err(err))
            }
            (Ok(_), Err(_)) => Poll::Ready(Err(io::Error::new(
                io::ErrorKind::InvalidData,
                "stream did not contain valid UTF-8",
            ))),
            (Err(err), Err(_)) => Poll::Ready(Err(err)),
        }
    }
}
