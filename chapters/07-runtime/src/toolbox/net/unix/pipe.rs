//! Unix pipes as async streams, at Tokio's path `net::unix::pipe`: an
//! anonymous pipe from [`pipe`], or a FIFO opened with [`OpenOptions`].
//!
//! A pipe end is one more descriptor the driver watches, so each is a
//! `RegisteredSource` of `mio`'s pipe end, as a socket is: the [`Sender`]
//! registered for writing, the [`Receiver`] for reading, and every
//! operation the ready/try/clear loop. A pipe has no socket options, so
//! the readiness methods are written here rather than taken from
//! `net/shared.rs` (whose `try_io` takes an `Interest`; a pipe end has one
//! direction, and Tokio's takes none).
//!
//! Book: Chapter 8, "Sockets".

use crate::io::{Interest, Ready};
use crate::io_driver::registered_source::RegisteredSource;
use crate::io_driver::scheduled_io::Direction::{Read as R, Write as W};
use mio::unix::pipe as mio_pipe;
use std::fs::File;
use std::io::{self, IoSlice, IoSliceMut, Read, Write};
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, OwnedFd, RawFd};
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::Path;
use std::pin::Pin;
use std::task::{Context, Poll};

/// A new anonymous pipe, both ends registered with the current runtime's
/// driver (an error outside one): what the [`Sender`] writes, the
/// [`Receiver`] reads.
pub fn pipe() -> io::Result<(Sender, Receiver)> {
    let (tx, rx) = mio_pipe::new()?;
    Ok((Sender::from_mio(tx)?, Receiver::from_mio(rx)?))
}

/// How to open a FIFO as a pipe end. Every option starts `false`.
#[derive(Clone, Debug, Default)]
pub struct OpenOptions {
    read_write: bool,
    unchecked: bool,
}

impl OpenOptions {
    /// The options with every one `false`.
    pub fn new() -> OpenOptions {
        OpenOptions::default()
    }

    /// Opens the FIFO for reading and writing (Linux): a sender then opens
    /// with no reader there, and a receiver does not see end of file when
    /// the last other writer closes.
    pub fn read_write(&mut self, value: bool) -> &mut Self {
        self.read_write = value;
        self
    }

    /// Skips the check that the opened file is a FIFO.
    pub fn unchecked(&mut self, value: bool) -> &mut Self {
        self.unchecked = value;
        self
    }

    /// Opens the FIFO at `path` as a [`Receiver`]. `InvalidInput` if the
    /// file is not a FIFO (unless [`unchecked`](Self::unchecked)).
    pub fn open_receiver<P: AsRef<Path>>(&self, path: P) -> io::Result<Receiver> {
        Receiver::from_file_unchecked(self.open(path.as_ref(), false)?)
    }

    /// Opens the FIFO at `path` as a [`Sender`]. Without
    /// [`read_write`](Self::read_write), fails with `ENXIO` if no reader
    /// has it open; `InvalidInput` if the file is not a FIFO.
    pub fn open_sender<P: AsRef<Path>>(&self, path: P) -> io::Result<Sender> {
        Sender::from_file_unchecked(self.open(path.as_ref(), true)?)
    }

    fn open(&self, path: &Path, write: bool) -> io::Result<File> {
        let file = std::fs::OpenOptions::new()
            .read(!write || self.read_write)
            .write(write || self.read_write)
            .custom_flags(libc::O_NONBLOCK)
            .open(path)?;
        if !self.unchecked && !file.metadata()?.file_type().is_fifo() {
            return Err(not_a_pipe());
        }
        Ok(file)
    }
}

fn not_a_pipe() -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, "not a pipe")
}

/// Checks that `fd` is a pipe open for `access` (`O_WRONLY` or
/// `O_RDONLY`; `O_RDWR` fits both) and sets it non-blocking.
fn checked(fd: OwnedFd, access: libc::c_int) -> io::Result<OwnedFd> {
    let file = File::from(fd);
    if !file.metadata()?.file_type().is_fifo() {
        return Err(not_a_pipe());
    }
    // SAFETY: `fcntl(F_GETFL)` reads the flags of `file`'s descriptor,
    // open for the whole call.
    let flags = unsafe { libc::fcntl(file.as_raw_fd(), libc::F_GETFL) };
    if flags < 0 {
        return Err(io::Error::last_os_error());
    }
    let mode = flags & libc::O_ACCMODE;
    if mode != access && mode != libc::O_RDWR {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "the pipe is not open in the needed access mode",
        ));
    }
    set_nonblocking(file.as_fd(), true)?;
    Ok(file.into())
}

/// Sets or clears `O_NONBLOCK` on `fd`.
fn set_nonblocking(fd: BorrowedFd<'_>, on: bool) -> io::Result<()> {
    let on = libc::c_int::from(on);
    // SAFETY: `FIONBIO` reads one `c_int` from the pointer, which points at
    // `on` for the call, on a descriptor `fd` keeps open for the call.
    let r = unsafe { libc::ioctl(fd.as_raw_fd(), libc::FIONBIO, &raw const on) };
    if r < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// The methods both ends have, given the end's direction and access mode.
macro_rules! pipe_end {
    ($ty:ident, $mio:ty, $interest:expr, $dir:expr, $access:expr) => {
        impl $ty {
            fn from_mio(io: $mio) -> io::Result<$ty> {
                Ok($ty {
                    io: RegisteredSource::new(io, $interest)?,
                })
            }

            /// Takes over `file`, which must be a pipe open in this end's
            /// direction (`InvalidInput` otherwise); sets it non-blocking.
            pub fn from_file(file: File) -> io::Result<$ty> {
                $ty::from_owned_fd(file.into())
            }

            /// [`from_file`](Self::from_file) for a descriptor.
            pub fn from_owned_fd(owned_fd: OwnedFd) -> io::Result<$ty> {
                $ty::from_owned_fd_unchecked(checked(owned_fd, $access)?)
            }

            /// Takes over `file` with no check: the caller vouches that it
            /// is a non-blocking pipe open in this end's direction.
            pub fn from_file_unchecked(file: File) -> io::Result<$ty> {
                $ty::from_owned_fd_unchecked(file.into())
            }

            /// [`from_file_unchecked`](Self::from_file_unchecked) for a
            /// descriptor.
            pub fn from_owned_fd_unchecked(owned_fd: OwnedFd) -> io::Result<$ty> {
                $ty::from_mio(<$mio>::from(owned_fd))
            }

            /// Waits until any readiness of `interest` is set; returns what
            /// is set (possibly nothing: check, and wait again).
            pub async fn ready(&self, interest: Interest) -> io::Result<Ready> {
                self.io.ready(interest).await
            }

            /// Runs `f`, a non-blocking operation on the descriptor, if the
            /// end looks ready; a `WouldBlock` from `f` clears that.
            pub fn try_io<R>(&self, f: impl FnOnce() -> io::Result<R>) -> io::Result<R> {
                self.io.try_io($dir, |_| f())
            }

            /// Takes the end off the driver and hands back its descriptor,
            /// set blocking.
            pub fn into_blocking_fd(self) -> io::Result<OwnedFd> {
                let fd = self.into_nonblocking_fd()?;
                set_nonblocking(fd.as_fd(), false)?;
                Ok(fd)
            }

            /// Takes the end off the driver and hands back its descriptor,
            /// still non-blocking.
            pub fn into_nonblocking_fd(self) -> io::Result<OwnedFd> {
                Ok(OwnedFd::from(self.io.into_inner()?))
            }
        }

        impl AsRawFd for $ty {
            fn as_raw_fd(&self) -> RawFd {
                self.io.as_raw_fd()
            }
        }

        impl AsFd for $ty {
            fn as_fd(&self) -> BorrowedFd<'_> {
                self.io.as_fd()
            }
        }
    };
}

/// The writing end of a pipe.
#[derive(Debug)]
pub struct Sender {
    io: RegisteredSource<mio_pipe::Sender>,
}

pipe_end!(
    Sender,
    mio_pipe::Sender,
    mio::Interest::WRITABLE,
    W,
    libc::O_WRONLY
);

impl Sender {
    /// Waits until the pipe has room (or its reader has gone).
    pub async fn writable(&self) -> io::Result<()> {
        self.io.readiness(W).await
    }

    /// Polls for room, with the waker of the writer's slot.
    pub fn poll_write_ready(&self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.io.poll_ready(cx, W)
    }

    /// Writes what the pipe takes now, or `WouldBlock` if it is full.
    pub fn try_write(&self, buf: &[u8]) -> io::Result<usize> {
        self.io.try_io(W, |mut pipe| pipe.write(buf))
    }

    /// `try_write` from several buffers (one `writev`).
    pub fn try_write_vectored(&self, bufs: &[IoSlice<'_>]) -> io::Result<usize> {
        self.io.try_io(W, |mut pipe| pipe.write_vectored(bufs))
    }
}

impl futures::io::AsyncWrite for Sender {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        self.io.poll_io(cx, W, |mut pipe| pipe.write(buf))
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        self.io.poll_io(cx, W, |mut pipe| pipe.write_vectored(bufs))
    }

    fn poll_flush(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    /// Does nothing, as Tokio's `poll_shutdown`: the reader sees end of
    /// file when the `Sender` is dropped.
    fn poll_close(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }
}

/// The reading end of a pipe.
#[derive(Debug)]
pub struct Receiver {
    io: RegisteredSource<mio_pipe::Receiver>,
}

pipe_end!(
    Receiver,
    mio_pipe::Receiver,
    mio::Interest::READABLE,
    R,
    libc::O_RDONLY
);

impl Receiver {
    /// Waits until the pipe holds bytes (or every writer has gone).
    pub async fn readable(&self) -> io::Result<()> {
        self.io.readiness(R).await
    }

    /// Polls for bytes, with the waker of the reader's slot.
    pub fn poll_read_ready(&self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.io.poll_ready(cx, R)
    }

    /// Reads what the pipe holds now: `Ok(0)` once every writer has gone,
    /// `WouldBlock` if it is empty.
    pub fn try_read(&self, buf: &mut [u8]) -> io::Result<usize> {
        self.io.try_io(R, |mut pipe| pipe.read(buf))
    }

    /// `try_read` into several buffers (one `readv`).
    pub fn try_read_vectored(&self, bufs: &mut [IoSliceMut<'_>]) -> io::Result<usize> {
        self.io.try_io(R, |mut pipe| pipe.read_vectored(bufs))
    }

    /// `try_read` into the spare capacity of `buf`, advancing it.
    pub fn try_read_buf<B: bytes::BufMut>(&self, buf: &mut B) -> io::Result<usize> {
        self.io.try_io(R, |pipe| {
            let spare = buf.chunk_mut();
            // SAFETY: `read(2)` writes at most `spare.len()` bytes to the
            // pointer, which is valid for that many (uninitialized memory
            // is fine to write); the descriptor is open for the call.
            let n = unsafe { libc::read(pipe.as_raw_fd(), spare.as_mut_ptr().cast(), spare.len()) };
            let n = usize::try_from(n).map_err(|_| io::Error::last_os_error())?;
            // SAFETY: the kernel initialized the first `n` bytes.
            unsafe { buf.advance_mut(n) };
            Ok(n)
        })
    }
}

impl futures::io::AsyncRead for Receiver {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut [u8],
    ) -> Poll<io::Result<usize>> {
        self.io.poll_io(cx, R, |mut pipe| pipe.read(buf))
    }

    fn poll_read_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &mut [IoSliceMut<'_>],
    ) -> Poll<io::Result<usize>> {
        self.io.poll_io(cx, R, |mut pipe| pipe.read_vectored(bufs))
    }
}
