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
//! * [`RtIo`] wraps a stream (here `rt::net::TcpStream`). hyper hands
//!   `poll_read` a cursor into a buffer that may be uninitialized; the
//!   stream reads into it as it is ([`ReadUninit`]: recv(2) writes only
//!   what arrives), and we tell the cursor how many bytes arrived. Zeroing
//!   the buffer first, as a `futures::io::AsyncRead` would need, touches
//!   pages the kernel may never write: 6 KiB of resident memory per idle
//!   keep-alive connection (the book's page measures it). Writes go
//!   through `futures::io::AsyncWrite`.
//! * [`RtExecutor`] is `rt::spawn`.
//! * [`RtTimer`] makes [`RtSleep`]s, which wrap `rt::time::Sleep`: a timer in
//!   our wheel. `Sleep` is `Sync`, which hyper requires, and `Unpin`, which
//!   `RtSleep::poll` relies on.
//!
//! Book: "Serving HTTP on the runtime we built" (ch09-http.md), which lists
//! this file whole.

// ANCHOR: adapter
use futures::io::AsyncWrite;
use hyper::rt::{Executor, Read, ReadBufCursor, Sleep, Timer, Write};
use std::future::Future;
use std::io;
use std::mem::MaybeUninit;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

/// A stream that reads into memory nobody initialized, as hyper's read
/// buffer is.
///
/// # Safety
///
/// `poll_read_uninit` must write only initialized bytes into `buf` (never
/// `MaybeUninit::uninit()`), and `Ready(Ok(n))` must mean that the first
/// `n` bytes of `buf`, with `n <= buf.len()`, were written. [`RtIo`] hands
/// hyper those `n` bytes as data on the strength of this promise.
pub unsafe trait ReadUninit {
    /// Reads what has arrived into `buf`; registers `cx` if nothing has.
    fn poll_read_uninit(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut [MaybeUninit<u8>],
    ) -> Poll<io::Result<usize>>;
}

// SAFETY: `TcpStream::poll_read_uninit` hands `buf` to recv(2), which
// writes only the bytes that arrived, and returns recv's count.
unsafe impl ReadUninit for rt::net::TcpStream {
    fn poll_read_uninit(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut [MaybeUninit<u8>],
    ) -> Poll<io::Result<usize>> {
        rt::net::TcpStream::poll_read_uninit(self.get_mut(), cx, buf)
    }
}

/// A stream with `futures::io` traits, seen through hyper's `Read`/`Write`.
#[derive(Debug)]
pub struct RtIo<S>(pub S);

impl<S: ReadUninit + Unpin> Read for RtIo<S> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        mut buf: ReadBufCursor<'_>,
    ) -> Poll<io::Result<()>> {
        // SAFETY: `ReadUninit`'s contract: the stream writes only
        // initialized bytes, so nothing hyper initialized is undone.
        let dst = unsafe { buf.as_mut() };
        let len = dst.len();
        let n = futures::ready!(Pin::new(&mut self.0).poll_read_uninit(cx, dst))?;
        // The contract says `n <= len`; a cheap check keeps a broken
        // implementation from making hyper read past the buffer.
        if n > len {
            return Poll::Ready(Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!("the stream reported {n} bytes read into a {len}-byte buffer"),
            )));
        }
        // SAFETY: the stream wrote the first `n` bytes of the cursor's
        // unfilled part (`ReadUninit`'s contract), and `n <= len`.
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
            Some(mut ours) => Pin::new(&mut ours.0).reset(new_deadline.into()),
            None => *sleep = self.sleep_until(new_deadline),
        }
    }
}
// ANCHOR_END: adapter

#[cfg(test)]
mod tests {
    use super::*;
    use hyper::rt::ReadBuf;
    use std::task::Waker;

    /// Hands out its bytes a few at a time, and `Pending` when it has none.
    struct Trickle {
        data: Vec<u8>,
        per_read: usize,
        claim_extra: usize,
    }

    // SAFETY: writes only bytes of `data` (initialized) into `buf`, and
    // reports how many, unless `claim_extra` is set: that breaks the
    // contract on purpose, to check that `RtIo` refuses the claim.
    unsafe impl ReadUninit for Trickle {
        fn poll_read_uninit(
            mut self: Pin<&mut Self>,
            _cx: &mut Context<'_>,
            buf: &mut [MaybeUninit<u8>],
        ) -> Poll<io::Result<usize>> {
            if self.data.is_empty() {
                return Poll::Pending;
            }
            let n = self.per_read.min(buf.len()).min(self.data.len());
            for (slot, byte) in buf.iter_mut().zip(self.data.drain(..n)) {
                slot.write(byte);
            }
            Poll::Ready(Ok(n + self.claim_extra))
        }
    }

    fn read_once(io: &mut RtIo<Trickle>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        let mut cx = Context::from_waker(Waker::noop());
        Pin::new(io).poll_read(&mut cx, buf.unfilled())
    }

    #[test]
    fn bytes_land_in_uninitialized_memory_and_fill_the_cursor() {
        let mut io = RtIo(Trickle {
            data: b"GET / HTTP/1.1\r\n".to_vec(),
            per_read: 5,
            claim_extra: 0,
        });
        let mut memory = [MaybeUninit::<u8>::uninit(); 32];
        let mut buf = ReadBuf::uninit(&mut memory);
        assert!(matches!(read_once(&mut io, &mut buf), Poll::Ready(Ok(()))));
        assert_eq!(buf.filled(), b"GET /");
        while let Poll::Ready(result) = read_once(&mut io, &mut buf) {
            result.unwrap();
        }
        assert_eq!(buf.filled(), b"GET / HTTP/1.1\r\n");
    }

    #[test]
    fn a_stream_that_claims_more_than_the_buffer_is_an_error() {
        let mut io = RtIo(Trickle {
            data: b"abc".to_vec(),
            per_read: 3,
            claim_extra: 100,
        });
        let mut memory = [MaybeUninit::<u8>::uninit(); 8];
        let mut buf = ReadBuf::uninit(&mut memory);
        match read_once(&mut io, &mut buf) {
            Poll::Ready(Err(error)) => assert_eq!(error.kind(), io::ErrorKind::InvalidData),
            other => panic!("expected an error, got {other:?}"),
        }
        assert!(buf.filled().is_empty());
    }
}
