//! Exercise ch09_hyper_read: hyper's `Read`, given a stream's `AsyncRead`.
//!
//! hyper owns no runtime: it reads a connection's bytes through its own
//! trait, `hyper::rt::Read` (the capstone, "Serving HTTP on the runtime we
//! built"). Our runtime's sockets speak `futures::io::AsyncRead` instead, so
//! between the two sits an adapter. [`HyperIo`] is that adapter; its `Write`
//! half is written for you. Write its `Read` half: [`Read::poll_read`].
//!
//! The two traits disagree about the buffer. `AsyncRead::poll_read` takes a
//! `&mut [u8]`: initialized bytes, which a `&mut [u8]` must always be. hyper
//! hands over a [`ReadBufCursor`] instead: the free end of its read buffer,
//! which may be *uninitialized* memory (hyper does not pay to zero a buffer
//! that the read is about to overwrite). The cursor knows how many of its
//! bytes are initialized and how many are *filled* (hold data hyper will
//! parse); your `poll_read` moves the filled mark forward by exactly the
//! bytes the stream delivered. There are two ways to do it:
//!
//! * **Safe, one copy.** Read into a buffer of your own (a `[u8; 8192]` on
//!   the stack, no bigger than `buf.remaining()`), then
//!   `buf.put_slice(&mine[..n])`, which copies the `n` bytes in and moves
//!   the mark. No `unsafe`, and the copy is cheap next to the system call.
//! * **No copy.** `buf.initialize_unfilled_to(len)` zeroes whatever of the
//!   cursor's first `len` bytes is not yet initialized (safe code; hyper
//!   hands each read a fresh cursor, so that is usually all `len` of them:
//!   a reason not to ask for much more than a socket holds) and returns
//!   them as a `&mut [u8]`: read straight into hyper's buffer. Then mark
//!   the `n` bytes that arrived: `unsafe { buf.advance(n) }`. `advance` is
//!   `unsafe` because hyper will read those bytes as `u8`s, so it trusts
//!   you that they are initialized; the argument is "they lie within the
//!   `len` bytes just initialized". (`unsafe { buf.as_mut() }` gives the raw
//!   `&mut [MaybeUninit<u8>]` too, but `AsyncRead` cannot take it: a
//!   `&mut [u8]` over uninitialized bytes breaks `std`'s rules
//!   (`slice::from_raw_parts_mut` requires initialized values) even if
//!   nobody reads them. It is for readers that write through raw pointers,
//!   as the kernel's `read(2)` does.)
//!
//! Either way, the rules the tests check:
//!
//! * **Data.** When the stream returns `Ready(Ok(n))` with `n > 0`, the
//!   cursor is advanced by exactly `n`, holding those bytes in order, and
//!   `poll_read` returns `Ready(Ok(()))`.
//! * **How much to ask for.** Never more than `buf.remaining()`, and at
//!   least `buf.remaining().min(8192)`: a read should be able to take what
//!   a socket holds, not a few bytes per system call.
//! * **End of stream.** `Ready(Ok(0))` from the stream is `Ready(Ok(()))`
//!   with nothing filled: that is how hyper learns the peer has gone.
//! * **Not yet.** `Pending` from the stream is `Pending`, with nothing
//!   filled. The stream has registered `cx`'s waker: pass `cx` through.
//! * **Errors** pass through unchanged, with nothing filled.
//! * **A stream that claims too much.** `AsyncRead` is a safe trait, so its
//!   promise that `n` is at most the buffer's length is one that `unsafe`
//!   code may not rely on: a buggy stream could report more bytes than it
//!   was given room for. If it does, return an error of kind
//!   `io::ErrorKind::InvalidData` and fill nothing (never `advance` past
//!   what you initialized, and never panic).
//!
//! The tests drive `poll_read` by hand with streams that trickle bytes and
//! return `Pending` in between, then serve real HTTP/1.1 requests with
//! hyper's server over `rt`'s TCP sockets: a GET, a 1 MiB POST echoed back,
//! two requests on one kept-alive connection, and clients that hang up
//! halfway. (The chapter's own adapter, `RtIo` in
//! `chapters/07-runtime/demo/src/hyper_rt.rs`, no longer starts from
//! `AsyncRead`: its stream reads into the cursor's memory as it is, under an
//! `unsafe trait` that promises to write only what arrives, because zeroing
//! cost 6 KiB per idle connection. Try yours on your own first.)
//!
//! Check: `cargo run -p exercises -- check ch09_hyper_read`. Hint:
//! `cargo run -p exercises -- hint ch09_hyper_read`.

use futures::io::{AsyncRead, AsyncWrite};
use hyper::rt::{Read, ReadBufCursor, Write};
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};

/// A stream with `futures::io` traits, seen through hyper's `Read` and
/// `Write`.
#[derive(Debug)]
pub struct HyperIo<S>(pub S);

impl<S: AsyncRead + Unpin> Read for HyperIo<S> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        mut buf: ReadBufCursor<'_>,
    ) -> Poll<io::Result<()>> {
        todo!("read from self.0 into room in buf; mark exactly what arrived as filled")
    }
}

/// Written for you: each call goes straight to the stream (`poll_shutdown`
/// is `futures::io`'s `poll_close`).
impl<S: AsyncWrite + Unpin> Write for HyperIo<S> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.0).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.0).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.0).poll_close(cx)
    }
}
