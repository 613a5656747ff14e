//! Exercise ch09_hyper_write: hyper's `Write`, given a stream's `AsyncWrite`.
//!
//! hyper writes a connection's bytes through its own trait,
//! `hyper::rt::Write` (the capstone, "Serving HTTP on the runtime we
//! built", "The adapter, whole"). Our runtime's sockets speak
//! `futures::io::AsyncWrite`. [`HyperWrite`] sits between the two: write
//! its `impl Write`, five methods.
//!
//! Four of them pass a call through to the stream, and one of those has a
//! name that differs: hyper's `poll_shutdown` is `futures::io`'s
//! `poll_close`. `Pending` stays `Pending` (the stream has kept `cx`'s
//! waker, so pass `cx` through), errors pass unchanged, and a write that
//! took fewer bytes than it was offered says so (`Ready(Ok(n))` with the
//! stream's `n`): hyper writes the rest itself.
//!
//! The fifth, `is_write_vectored`, is a promise, and hyper acts on it.
//! hyper keeps a response's head and its body as separate buffers. If the
//! connection says it writes vectored, hyper queues them as they are and
//! hands all of them to one `poll_write_vectored`. If it says it does not,
//! hyper first copies them into one flat buffer and calls `poll_write`.
//! Both give one system call per response, when the promise is true. An
//! `AsyncWrite` does not say whether its `poll_write_vectored` is real:
//! `rt`'s sockets override it with writev(2), but the trait's default
//! writes only the first non-empty buffer. So the caller tells
//! [`HyperWrite`], in its `vectored` field, and `is_write_vectored` must
//! say exactly that. (Promise it falsely and every response takes two
//! writes, head then body: two system calls, two TCP segments. The page's
//! "One write per response" measures the difference.)
//!
//! The rules the tests check:
//!
//! * **`poll_write`** hands `buf` to the stream's `poll_write` and returns
//!   what the stream returned.
//! * **`poll_write_vectored`** hands *all* of `bufs` to the stream's
//!   `poll_write_vectored` (hyper's own default for this method writes the
//!   first buffer only, which is not what a writev-capable stream wants).
//! * **`is_write_vectored`** returns `self.vectored`.
//! * **`poll_flush`** is the stream's `poll_flush`; **`poll_shutdown`** is
//!   its `poll_close`, and nothing else (not a flush first: `poll_close`
//!   flushes what it must).
//! * **A stream that claims too much.** `AsyncWrite` is a safe trait, and
//!   a buggy stream could report more bytes written than it was offered.
//!   hyper would then advance its buffer past its end and panic, taking the
//!   connection's task down. If a write (plain or vectored) reports more
//!   than the total length it was given, return an error of kind
//!   `io::ErrorKind::InvalidData` instead.
//!
//! The tests drive each method by hand with a scripted stream, then serve
//! real HTTP/1.1 with hyper's server over `rt`'s TCP sockets and count the
//! stream writes each response took, with `vectored` true (a real writev)
//! and false (a stream with the default `poll_write_vectored`), and echo a
//! 1 MiB body, whose response a socket takes in several partial writes.
//!
//! Check: `cargo run -p exercises -- check ch09_hyper_write`. Hint:
//! `cargo run -p exercises -- hint ch09_hyper_write`.

use futures::io::AsyncWrite;
use hyper::rt::Write;
use std::io::{self, IoSlice};
use std::pin::Pin;
use std::task::{Context, Poll};

/// A stream with `futures::io`'s `AsyncWrite`, seen through hyper's
/// `Write`.
#[derive(Debug)]
pub struct HyperWrite<S> {
    /// The stream written to.
    pub stream: S,
    /// True if the stream's `poll_write_vectored` writes from every buffer
    /// it is given (as `rt`'s sockets do, with writev(2)); false if it is
    /// `AsyncWrite`'s default, which writes only the first non-empty one.
    pub vectored: bool,
}

impl<S: AsyncWrite + Unpin> Write for HyperWrite<S> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        todo!("the stream's poll_write; more than buf.len() is InvalidData")
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        todo!(
            "the stream's poll_write_vectored with every buffer; more than their total is InvalidData"
        )
    }

    fn is_write_vectored(&self) -> bool {
        todo!("what the caller said about the stream")
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        todo!("the stream's poll_flush")
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        todo!("the stream's poll_close")
    }
}
