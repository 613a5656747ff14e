//! The three devices that need no device: [`empty`] (a reader at end of
//! file, like reading `/dev/null`), [`sink`] (a writer that accepts and
//! drops everything, like writing `/dev/null`) and [`repeat`] (a reader
//! that never ends, like `/dev/zero` with any byte). Each is always ready,
//! so each spends the task's cooperative budget on every call, as Tokio's
//! do: a loop over `repeat` still yields to the task's neighbours.
//!
//! As in Tokio, a vectored write to `sink` or `empty` accepts every slice
//! at once, and `empty` is also a seekable stream whose every seek lands at
//! 0.
//!
//! Book: Chapter 8, "Sockets", section "Tokio's names: the extension traits".

use crate::task::coop;
use futures::io::{AsyncBufRead, AsyncRead, AsyncSeek, AsyncWrite};
use std::io::{self, IoSlice, SeekFrom};
use std::pin::Pin;
use std::task::{Context, Poll, ready};

/// A reader at end of file; made by [`empty`]. Also an
/// [`AsyncBufRead`] with an empty buffer, a writer that accepts
/// everything, and an [`AsyncSeek`] whose position is always 0 (as Tokio's
/// `Empty` is).
#[derive(Debug, Clone, Copy, Default)]
pub struct Empty {
    _private: (),
}

/// A reader that is always at end of file.
pub fn empty() -> Empty {
    Empty { _private: () }
}

/// A writer that accepts every byte and keeps none; made by [`sink`].
#[derive(Debug, Clone, Copy, Default)]
pub struct Sink {
    _private: (),
}

/// A writer that accepts every byte and keeps none.
pub fn sink() -> Sink {
    Sink { _private: () }
}

/// A reader that yields one byte forever; made by [`repeat`].
#[derive(Debug, Clone, Copy)]
pub struct Repeat {
    byte: u8,
}

/// A reader that fills every buffer with `byte`, forever.
pub fn repeat(byte: u8) -> Repeat {
    Repeat { byte }
}

/// Spends one unit of budget and reports progress: every call here
/// completes.
fn spend(cx: &mut Context<'_>) -> Poll<()> {
    ready!(coop::poll_proceed(cx)).made_progress();
    Poll::Ready(())
}

impl AsyncRead for Empty {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        _buf: &mut [u8],
    ) -> Poll<io::Result<usize>> {
        ready!(spend(cx));
        Poll::Ready(Ok(0))
    }
}

impl AsyncBufRead for Empty {
    fn poll_fill_buf(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<&[u8]>> {
        ready!(spend(cx));
        Poll::Ready(Ok(&[]))
    }

    fn consume(self: Pin<&mut Self>, _amt: usize) {}
}

/// Writing to `Empty` and `Sink` is the same: everything is accepted.
macro_rules! accept_all {
    ($ty:ty) => {
        impl AsyncWrite for $ty {
            fn poll_write(
                self: Pin<&mut Self>,
                cx: &mut Context<'_>,
                buf: &[u8],
            ) -> Poll<io::Result<usize>> {
                ready!(spend(cx));
                Poll::Ready(Ok(buf.len()))
            }

            /// Every slice, at once.
            fn poll_write_vectored(
                self: Pin<&mut Self>,
                cx: &mut Context<'_>,
                bufs: &[IoSlice<'_>],
            ) -> Poll<io::Result<usize>> {
                ready!(spend(cx));
                Poll::Ready(Ok(bufs.iter().map(|buf| buf.len()).sum()))
            }

            fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
                ready!(spend(cx));
                Poll::Ready(Ok(()))
            }

            fn poll_close(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
                ready!(spend(cx));
                Poll::Ready(Ok(()))
            }
        }
    };
}

accept_all!(Empty);
accept_all!(Sink);

impl AsyncSeek for Empty {
    fn poll_seek(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        _pos: SeekFrom,
    ) -> Poll<io::Result<u64>> {
        ready!(spend(cx));
        Poll::Ready(Ok(0))
    }
}

impl AsyncRead for Repeat {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut [u8],
    ) -> Poll<io::Result<usize>> {
        ready!(spend(cx));
        buf.fill(self.byte);
        Poll::Ready(Ok(buf.len()))
    }
}
