//! Non-blocking I/O on the runtime's driver, and the Tokio-shaped API a
//! program uses on top of it.
//!
//! The driver:
//!
//! * `scheduled_io`: one socket's readiness word (with its tick) and wakers;
//! * `driver`: the `mio::Poll`, the token table, one turn of the event loop;
//! * `registration`: a socket's handle on the driver, and the
//!   ready/try/clear loop every operation runs;
//! * [`Interest`] and [`Ready`]: the public names for what `ready()` waits
//!   for and what it saw (Tokio's `tokio::io::{Interest, Ready}`);
//! * [`unix::AsyncFd`] (`async_fd.rs`): the same readiness for any
//!   non-blocking descriptor the caller owns (a pipe, an eventfd).
//!
//! What a program calls, under Tokio's names (`tokio::io::…` becomes
//! `rt::io::…`):
//!
//! * the extension traits [`AsyncReadExt`], [`AsyncWriteExt`] and
//!   [`AsyncBufReadExt`]: `read`, `read_exact`, `read_to_end`, `read_u32`,
//!   `write_all`, `flush`, `shutdown`, `read_line`, `lines().next_line()`…,
//!   each an `async`-style method that returns a small future
//!   (`read_ext.rs`, `write_ext.rs`, `buf_read_ext.rs`, `lines.rs`);
//! * buffering: [`BufReader`], [`BufWriter`], [`BufStream`];
//! * plumbing: [`copy`], [`copy_buf`], [`copy_bidirectional`] and
//!   [`copy_bidirectional_with_sizes`] (`copy.rs`), [`split`] into
//!   [`ReadHalf`]/[`WriteHalf`] (`split.rs`) and its inverse [`join`]
//!   (`join.rs`), the in-memory pipes [`duplex`] and [`simplex`]
//!   (`duplex.rs`), the devices [`empty`], [`sink`],
//!   [`repeat`] (`devices.rs`), and [`stdin`], [`stdout`], [`stderr`] on the
//!   blocking pool (`stdio.rs`).
//!
//! # The one place rt differs from Tokio
//!
//! The traits underneath, [`AsyncRead`], [`AsyncWrite`] and
//! [`AsyncBufRead`], are the `futures::io` traits, re-exported. Every rt
//! stream implements them, and so do the adapters that let hyper run on rt,
//! so the runtime keeps them. Tokio defines its own three traits, which
//! differ in two signatures:
//!
//! * `poll_read` takes `&mut [u8]` and returns the count read, where
//!   Tokio's takes a `ReadBuf` (a buffer that tracks how much of itself is
//!   initialised and filled) and returns `()`;
//! * the write side's last method is `poll_close` where Tokio's is
//!   `poll_shutdown`; [`AsyncWriteExt::shutdown`] calls `poll_close`.
//!
//! A program that only *uses* streams (calls the ext methods, `copy`,
//! `split`) does not see the difference; a program that *implements*
//! `AsyncRead` by hand writes the `futures` signature. One caution: do not
//! import `futures::io::AsyncReadExt` and `rt::io::AsyncReadExt` in the same
//! scope, since both name a `read` method on the same types and the call is
//! then ambiguous.
//!
//! Book: Chapter 7, "The I/O driver" and "Sockets" (the extension traits).

pub(crate) mod driver;
mod interest;
mod ready;
pub(crate) mod registration;
pub(crate) mod scheduled_io;
pub(crate) mod timerfd;

mod async_fd;
mod buf_read_ext;
mod buf_stream;
mod copy;
mod devices;
mod duplex;
mod join;
mod lines;
mod read_ext;
mod seek_ext;
mod split;
mod stdio;
mod write_ext;

pub use interest::Interest;
pub use ready::Ready;

/// Any non-blocking file descriptor on the driver, at Tokio's path
/// (`tokio::io::unix::AsyncFd`): see `async_fd.rs`.
pub mod unix {
    #[allow(deprecated)]
    pub use super::async_fd::AsyncFdTryNewError;
    pub use super::async_fd::{
        AsyncFd, AsyncFdReadyGuard, AsyncFdReadyMutGuard, AsyncFdRegisterError, TryIoError,
    };
}

pub use futures::io::{AsyncBufRead, AsyncRead, AsyncSeek, AsyncWrite};
/// std's error types, at Tokio's paths (`rt::io::Result<()>`, as a Tokio
/// program writes `tokio::io::Result<()>`).
pub use std::io::{Error, ErrorKind, Result, SeekFrom};
// Tokio's `BufReader`, `BufWriter`, `Take` and `Chain` have the same
// constructors and accessors as these; they are reused from `futures::io`.
pub use futures::io::{BufReader, BufWriter, Chain, Take};

pub use buf_read_ext::AsyncBufReadExt;
pub use buf_stream::BufStream;
pub use copy::{copy, copy_bidirectional, copy_bidirectional_with_sizes, copy_buf};
pub use devices::{Empty, Repeat, Sink, empty, repeat, sink};
pub use duplex::{DuplexStream, SimplexStream, duplex, simplex};
pub use join::{Join, join};
pub use lines::{Lines, Split};
pub use read_ext::{AsyncReadExt, ReadBuf, ReadExact, ReadInt};
pub use seek_ext::AsyncSeekExt;
pub use split::{ReadHalf, WriteHalf, split};
pub use stdio::{Stderr, Stdin, Stdout, stderr, stdin, stdout};
pub use write_ext::{AsyncWriteExt, Shutdown, WriteAllBuf, WriteBuf, WriteInt};
