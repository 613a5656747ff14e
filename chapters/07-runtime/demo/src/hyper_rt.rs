//! # hyper on our runtime: the whole adapter
//!
//! hyper 1.x owns no runtime. It reaches one through four small traits in
//! `hyper::rt`: [`Read`] and [`Write`] for the connection's bytes, an
//! [`Executor`] to spawn the tasks HTTP/2 needs (one per stream), and a
//! [`Timer`] whose [`Sleep`] futures drive its timeouts (the header-read
//! timeout of HTTP/1, the keep-alive pings of HTTP/2). Tokio's side of the
//! bridge is `hyper-util`'s `TokioIo`, `TokioExecutor` and `TokioTimer`; this
//! file is ours, written from the trait documentation, and it is all that
//! stands between hyper and `rt`:
//!
//! * [`RtIo`] wraps any stream with `futures::io::{AsyncRead, AsyncWrite}`
//!   (here `rt::net::TcpStream`). hyper hands `poll_read` a cursor into a
//!   buffer that may be uninitialized; we zero the part we read into (safe
//!   code does that for us) and then tell the cursor how many bytes arrived,
//!   the one `unsafe` call in the file.
//! * [`RtExecutor`] is `rt::spawn`.
//! * [`RtTimer`] makes [`RtSleep`]s, which wrap `rt::time::Sleep`: a timer in
//!   our wheel. `Sleep` is `Unpin` and `Sync`, which hyper requires.
//!
//! Book: "Serving HTTP on the runtime we built" (ch08-http.md), which lists
//! this file whole.

// ANCHOR: adapter
use futures::io::{AsyncRead, AsyncWrite};
use hyper::rt::{Executor, Read, ReadBufCursor, Sleep, Timer, Write};
use std::future::Future;
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

/// The most bytes one `poll_read` zeroes and reads. hyper's first read buffer
/// is 8 KiB and grows on demand; reading more per call than the kernel's
/// socket buffer holds (a few hundred KiB) gains nothing, and zeroing a huge
/// cursor would cost more than the read.
const READ_CHUNK: usize = 64 * 1024;

/// A stream with `futures::io` traits, seen through hyper's `Read`/`Write`.
#[derive(Debug)]
pub struct RtIo<S>(pub S);

impl<S: AsyncRead + Unpin> Read for RtIo<S> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        mut buf: ReadBufCursor<'_>,
    ) -> Poll<io::Result<()>> {
        let len = buf.remaining().min(READ_CHUNK);
        // Safe: hyper zeroes whatever of these `len` bytes was uninitialized.
        let dst = buf.initialize_unfilled_to(len);
        let n = futures::ready!(Pin::new(&mut self.0).poll_read(cx, dst))?;
        // `AsyncRead` is a safe trait: a faulty implementation may claim
        // more bytes than it was lent, and `advance` does not check. Refuse
        // rather than let hyper read bytes nobody wrote.
        if n > len {
            return Poll::Ready(Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!("the stream reported {n} bytes read into a {len}-byte buffer"),
            )));
        }
        // SAFETY: the first `len` bytes of the cursor were initialized by
        // `initialize_unfilled_to(len)` above, and `n <= len` (just checked).
        unsafe { buf.advance(n) };
        Poll::Ready(Ok(()))
    }
}

impl<S: AsyncWrite + Unpin> Write for RtIo<S> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.0).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.0).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        true
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.0).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.0).poll_close(cx)
    }
}

/// hyper's executor: every future it hands over becomes an `rt` task.
#[derive(Clone, Copy, Debug, Default)]
pub struct RtExecutor;

impl<F> Executor<F> for RtExecutor
where
    F: Future + Send + 'static,
    F::Output: Send + 'static,
{
    fn execute(&self, future: F) {
        // Detached: hyper watches the stream's completion itself.
        drop(rt::spawn(future));
    }
}

/// hyper's timer: sleeps in `rt`'s timing wheel.
#[derive(Clone, Copy, Debug, Default)]
pub struct RtTimer;

/// One of `rt`'s sleeps, as hyper's `Sleep`.
#[derive(Debug)]
pub struct RtSleep(rt::time::Sleep);

impl Future for RtSleep {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        Pin::new(&mut self.0).poll(cx)
    }
}

impl Sleep for RtSleep {}

impl Timer for RtTimer {
    fn sleep(&self, duration: Duration) -> Pin<Box<dyn Sleep>> {
        Box::pin(RtSleep(rt::time::sleep(duration)))
    }

    fn sleep_until(&self, deadline: Instant) -> Pin<Box<dyn Sleep>> {
        Box::pin(RtSleep(rt::time::sleep_until(deadline.into())))
    }

    fn reset(&self, sleep: &mut Pin<Box<dyn Sleep>>, new_deadline: Instant) {
        // Move the timer we already have when it is ours; otherwise replace it.
        match sleep.as_mut().downcast_mut_pin::<RtSleep>() {
            Some(mut ours) => ours.0.reset(new_deadline.into()),
            None => *sleep = self.sleep_until(new_deadline),
        }
    }
}
// ANCHOR_END: adapter
