//! A child's piped standard streams on the I/O driver.
//!
//! `std` gives the parent's end of each pipe as a blocking descriptor. Each
//! is made non-blocking and registered with the driver through
//! [`RegisteredSource`], the layer the sockets stand on, in the one
//! direction it can go: the child's stdin is written, its stdout and stderr
//! are read. A read or write is then the driver's ready/try/clear loop
//! around one `read(2)` or `write(2)` (`mio::unix::pipe` names the calls),
//! and dropping a stream deregisters and closes it: the child reads end of
//! file on its stdin, or gets `EPIPE` writing to a stdout nobody reads.
//!
//! As in Tokio, `flush` and `shutdown` (`poll_close` here) of a
//! [`ChildStdin`] do nothing: the pipe closes only when the `ChildStdin` is
//! dropped (or [`Child::wait`](super::Child::wait) drops it).

use crate::io::{AsyncRead, AsyncWrite};
use crate::io_driver::registered_source::RegisteredSource;
use crate::io_driver::scheduled_io::Direction;
use mio::unix::pipe::{Receiver, Sender};
use std::io::{self, IoSlice, IoSliceMut, Read, Write};
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, OwnedFd, RawFd};
use std::pin::Pin;
use std::process::Stdio;
use std::task::{Context, Poll};

/// The parent's end of a child's piped stdin: an [`AsyncWrite`]. The child
/// reads end of file once this is dropped (`shutdown` does not close it,
/// as in Tokio).
#[derive(Debug)]
pub struct ChildStdin {
    io: RegisteredSource<Sender>,
}

/// The parent's end of a child's piped stdout: an [`AsyncRead`], which
/// reads end of file once the child (and any process it shared the pipe
/// with) has closed it, usually by exiting.
#[derive(Debug)]
pub struct ChildStdout {
    io: RegisteredSource<Receiver>,
}

/// The parent's end of a child's piped stderr: an [`AsyncRead`], as
/// [`ChildStdout`].
#[derive(Debug)]
pub struct ChildStderr {
    io: RegisteredSource<Receiver>,
}

/// Takes a pipe off the driver and gives its descriptor back in blocking
/// mode, as a program given it as a standard stream expects.
fn into_blocking_fd<S>(
    io: RegisteredSource<S>,
    set_blocking: impl FnOnce(&S) -> io::Result<()>,
) -> io::Result<OwnedFd>
where
    S: mio::event::Source,
    OwnedFd: From<S>,
{
    let pipe = io.into_inner()?;
    set_blocking(&pipe)?;
    Ok(OwnedFd::from(pipe))
}

impl ChildStdin {
    /// Takes over a `std` child's stdin: made non-blocking and registered
    /// with the current runtime's I/O driver.
    ///
    /// # Panics
    ///
    /// Outside a runtime, as Tokio's.
    #[track_caller]
    pub fn from_std(inner: std::process::ChildStdin) -> io::Result<ChildStdin> {
        super::require_runtime("rt::process::ChildStdin::from_std");
        let pipe = Sender::from(inner);
        pipe.set_nonblocking(true)?;
        Ok(ChildStdin {
            io: RegisteredSource::new(pipe, mio::Interest::WRITABLE)?,
        })
    }

    /// Takes the pipe off the driver and returns its descriptor, set back
    /// to blocking mode.
    pub fn into_owned_fd(self) -> io::Result<OwnedFd> {
        into_blocking_fd(self.io, |pipe| pipe.set_nonblocking(false))
    }
}

/// The two read ends are the same code with two names.
macro_rules! reader {
    ($type:ident, $std:ty, $name:literal) => {
        impl $type {
            #[doc = concat!("Takes over a `std` child's ", $name, ": made non-blocking and")]
            /// registered with the current runtime's I/O driver.
            ///
            /// # Panics
            ///
            /// Outside a runtime, as Tokio's.
            #[track_caller]
            pub fn from_std(inner: $std) -> io::Result<$type> {
                super::require_runtime(concat!("rt::process::", stringify!($type), "::from_std"));
                let pipe = Receiver::from(inner);
                pipe.set_nonblocking(true)?;
                Ok($type {
                    io: RegisteredSource::new(pipe, mio::Interest::READABLE)?,
                })
            }

            /// Takes the pipe off the driver and returns its descriptor,
            /// set back to blocking mode.
            pub fn into_owned_fd(self) -> io::Result<OwnedFd> {
                into_blocking_fd(self.io, |pipe| pipe.set_nonblocking(false))
            }
        }

        impl AsyncRead for $type {
            fn poll_read(
                self: Pin<&mut Self>,
                cx: &mut Context<'_>,
                buf: &mut [u8],
            ) -> Poll<io::Result<usize>> {
                self.io
                    .poll_io(cx, Direction::Read, |mut pipe| pipe.read(buf))
            }

            fn poll_read_vectored(
                self: Pin<&mut Self>,
                cx: &mut Context<'_>,
                bufs: &mut [IoSliceMut<'_>],
            ) -> Poll<io::Result<usize>> {
                self.io
                    .poll_io(cx, Direction::Read, |mut pipe| pipe.read_vectored(bufs))
            }
        }

        impl TryFrom<$type> for Stdio {
            type Error = io::Error;

            /// The pipe as another child's standard stream (blocking again,
            /// off the driver): `a`'s stdout as `b`'s stdin.
            fn try_from(stream: $type) -> io::Result<Stdio> {
                Ok(Stdio::from(stream.into_owned_fd()?))
            }
        }

        impl AsRawFd for $type {
            fn as_raw_fd(&self) -> RawFd {
                self.io.as_raw_fd()
            }
        }

        impl AsFd for $type {
            fn as_fd(&self) -> BorrowedFd<'_> {
                self.io.as_fd()
            }
        }
    };
}

reader!(ChildStdout, std::process::ChildStdout, "stdout");
reader!(ChildStderr, std::process::ChildStderr, "stderr");

impl AsyncWrite for ChildStdin {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        self.io
            .poll_io(cx, Direction::Write, |mut pipe| pipe.write(buf))
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        self.io
            .poll_io(cx, Direction::Write, |mut pipe| pipe.write_vectored(bufs))
    }

    /// Nothing is buffered here.
    fn poll_flush(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    /// Does nothing, as Tokio's `poll_shutdown`: the pipe closes when the
    /// `ChildStdin` is dropped.
    fn poll_close(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }
}

impl TryFrom<ChildStdin> for Stdio {
    type Error = io::Error;

    /// The pipe as another child's standard stream (blocking again, off the
    /// driver).
    fn try_from(stream: ChildStdin) -> io::Result<Stdio> {
        Ok(Stdio::from(stream.into_owned_fd()?))
    }
}

impl AsRawFd for ChildStdin {
    fn as_raw_fd(&self) -> RawFd {
        self.io.as_raw_fd()
    }
}

impl AsFd for ChildStdin {
    fn as_fd(&self) -> BorrowedFd<'_> {
        self.io.as_fd()
    }
}
