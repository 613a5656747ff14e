//! Non-blocking I/O: the runtime's driver, and the Tokio-shaped toolbox a
//! program uses on top of it. The two live in two folders:
//!
//! * `driver/`, part of the runtime's core: the `mio::Poll` and its token
//!   table, each socket's readiness word (`scheduled_io.rs`), a socket's
//!   registration and the ready/try/clear loop every operation runs
//!   (`registration.rs`), and the public [`Interest`] and [`Ready`];
//! * `util/`, the toolbox, which never touches the driver: the extension
//!   traits [`AsyncReadExt`], [`AsyncWriteExt`], [`AsyncBufReadExt`] and
//!   [`AsyncSeekExt`] (`read`, `read_exact`, `write_all`, `read_line`,
//!   `lines().next_line()`…, each a method that returns a small future),
//!   [`BufStream`], [`copy`], [`copy_buf`], [`copy_bidirectional`],
//!   [`split`] and [`join`], the in-memory pipes [`duplex`] and
//!   [`simplex`], and the devices [`empty`], [`sink`], [`repeat`].
//!
//! Beside them: [`unix::AsyncFd`] (`async_fd.rs`), the driver's readiness
//! for any non-blocking descriptor the caller owns (a pipe, an eventfd),
//! and [`stdin`], [`stdout`], [`stderr`] on the blocking pool
//! (`stdio.rs`). [`BufWriter`] is `futures::io`'s; [`BufReader`] is
//! `futures::io`'s behind a wrapper that refuses a buffer of no bytes, as
//! Tokio's does (`util/buf_reader.rs`).
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

pub(crate) mod util;

mod async_fd;
mod stdio;

pub use crate::io_driver::interest::Interest;
pub use crate::io_driver::ready::Ready;

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
// Tokio's `BufWriter`, `Take` and `Chain` have the same constructors and
// accessors as these; they are reused from `futures::io`.
pub use futures::io::{BufWriter, Chain, Take};

pub use stdio::{Stderr, Stdin, Stdout, stderr, stdin, stdout};
pub use util::buf_read_ext::AsyncBufReadExt;
pub use util::buf_reader::BufReader;
pub use util::buf_stream::BufStream;
pub use util::copy::{copy, copy_bidirectional, copy_bidirectional_with_sizes, copy_buf};
pub use util::devices::{Empty, Repeat, Sink, empty, repeat, sink};
pub use util::duplex::{DuplexStream, SimplexStream, duplex, simplex};
pub use util::join::{Join, join};
pub use util::lines::{Lines, Split};
pub use util::read_buf::ReadBuf;
pub use util::read_ext::{AsyncReadExt, ReadExact, ReadInt};
pub use util::seek_ext::AsyncSeekExt;
pub use util::split::{ReadHalf, WriteHalf, split};
pub use util::write_ext::{AsyncWriteExt, Shutdown, WriteAllBuf, WriteBuf, WriteInt};
