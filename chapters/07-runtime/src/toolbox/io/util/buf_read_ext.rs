//! `AsyncBufReadExt`: Tokio's methods for readers with a buffer inside.
//!
//! A buffered reader (a [`BufReader`](crate::io::BufReader) around a
//! socket) can show the caller its buffer (`poll_fill_buf`) and be told how
//! much of it was used (`consume`). That is what reading *up to a
//! delimiter* needs: look for `\n` in what is buffered, take up to it, and
//! read more only if it is not there. `read_until`, `read_line` and
//! `fill_buf` reuse `futures::io`'s futures, which have Tokio's outputs;
//! `lines` and `split` return Tokio's [`Lines`] and [`Split`], whose
//! `next_line`/`next_segment` are written in `lines.rs`.
//!
//! Book: Chapter 8, "Sockets", section "Tokio's names: the extension traits".

use super::lines::{Lines, Split};
use futures::io::{AsyncBufRead, FillBuf, ReadLine, ReadUntil};
use std::pin::Pin;

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
    futures_io_methods! {
        AsyncBufReadExt;

        /// Reads up to and including `byte` (or to end of file), appending to
        /// `buf`; returns the number of bytes appended, 0 at end of file.
        ///
        /// # Cancel safety
        ///
        /// Bytes read before the future was dropped are already appended to
        /// `buf`; calling again with the same `buf` carries on to `byte`.
        fn read_until<'a>(&'a mut self, byte: u8, buf: &'a mut Vec<u8>) -> ReadUntil<'a, Self>;

        /// Reads up to and including `\n` (or to end of file), appending to
        /// `buf`; returns the number of bytes appended, 0 at end of file. Bytes
        /// that are not UTF-8 are an error of kind
        /// [`InvalidData`](std::io::ErrorKind::InvalidData).
        ///
        /// # Cancel safety
        ///
        /// Not cancel safe: dropped part-way, the bytes read so far are lost.
        /// Use [`lines`](Self::lines) in a `select!` loop.
        fn read_line<'a>(&'a mut self, buf: &'a mut String) -> ReadLine<'a, Self>;

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
