//! The shim of the behaviour suite for Tokio: what differs between the
//! two runtimes' APIs, behind one set of names. Included as `crate::shim` by
//! behaviour_tokio.rs (multi-thread) and behaviour_tokio_current_thread.rs,
//! which set `MULTI_THREAD` at their root.

use crate::rt;
use std::io;
use std::net::SocketAddr;
use std::task::{Context, Poll, ready};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

pub const NAME: &str = "tokio";

pub use tokio::sync::mpsc::error::{
    SendError as MpscSendError, TryRecvError as MpscTryRecvError, TrySendError as MpscTrySendError,
};
pub use tokio::sync::oneshot::error::{
    RecvError as OneshotRecvError, TryRecvError as OneshotTryRecvError,
};

/// Which runtime the entry file asked for: multi-threaded with two
/// workers, or current-thread. A test that needs worker threads (one that
/// fails on Tokio's current-thread runtime) starts with
/// `if !shim::MULTI_THREAD { return; }` and a line saying why.
pub const MULTI_THREAD: bool = super::MULTI_THREAD;

/// The runtime every test uses.
pub fn runtime() -> rt::runtime::Runtime {
    builder().build().expect("build a runtime")
}

/// The builder behind [`runtime`], for tests that change one knob. On the
/// current-thread flavour `worker_threads` has no effect (as in Tokio).
pub fn builder() -> rt::runtime::Builder {
    let mut builder = if MULTI_THREAD {
        let mut builder = rt::runtime::Builder::new_multi_thread();
        builder.worker_threads(2);
        builder
    } else {
        rt::runtime::Builder::new_current_thread()
    };
    builder.enable_all();
    builder
}

/// `max_blocking_threads(n)` on top of [`builder`].
pub fn runtime_with_blocking_threads(n: usize) -> rt::runtime::Runtime {
    builder()
        .max_blocking_threads(n)
        .build()
        .expect("build a runtime")
}

/// `Handle::try_current()` succeeded.
pub fn in_runtime_context() -> bool {
    rt::runtime::Handle::try_current().is_ok()
}

pub async fn read(stream: &mut rt::net::TcpStream, buf: &mut [u8]) -> io::Result<usize> {
    stream.read(buf).await
}

pub async fn write(stream: &mut rt::net::TcpStream, buf: &[u8]) -> io::Result<usize> {
    stream.write(buf).await
}

pub async fn write_all(stream: &mut rt::net::TcpStream, buf: &[u8]) -> io::Result<()> {
    stream.write_all(buf).await
}

pub async fn read_exact(stream: &mut rt::net::TcpStream, buf: &mut [u8]) -> io::Result<()> {
    stream.read_exact(buf).await.map(|_| ())
}

pub async fn read_to_end(stream: &mut rt::net::TcpStream) -> io::Result<Vec<u8>> {
    let mut out = Vec::new();
    stream.read_to_end(&mut out).await?;
    Ok(out)
}

/// Half-closes the stream: the peer reads end of file.
pub async fn shutdown_write(stream: &mut rt::net::TcpStream) -> io::Result<()> {
    stream.shutdown().await
}

pub fn num_workers(runtime: &rt::runtime::Runtime) -> usize {
    runtime.metrics().num_workers()
}

pub fn num_alive_tasks(runtime: &rt::runtime::Runtime) -> usize {
    runtime.metrics().num_alive_tasks()
}

/// A stream whose every other read or write fails with `Interrupted`
/// before doing anything (flush and shutdown are passed through): for the
/// copies, which retry such errors. A shim because the two runtimes' I/O
/// traits have different signatures.
pub struct Interrupting<T> {
    pub inner: T,
    interrupt_next: bool,
}

/// Wraps `inner`; its first read or write is interrupted.
pub fn interrupting<T>(inner: T) -> Interrupting<T> {
    Interrupting {
        inner,
        interrupt_next: true,
    }
}

impl<T> Interrupting<T> {
    /// True on every other call.
    fn interrupted(&mut self) -> bool {
        self.interrupt_next = !self.interrupt_next;
        !self.interrupt_next
    }
}

fn interrupted<T>() -> std::task::Poll<io::Result<T>> {
    std::task::Poll::Ready(Err(io::ErrorKind::Interrupted.into()))
}

impl<T: rt::io::AsyncRead + Unpin> rt::io::AsyncRead for Interrupting<T> {
    fn poll_read(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &mut rt::io::ReadBuf<'_>,
    ) -> std::task::Poll<io::Result<()>> {
        let this = self.get_mut();
        if this.interrupted() {
            return interrupted();
        }
        std::pin::Pin::new(&mut this.inner).poll_read(cx, buf)
    }
}

impl<T: rt::io::AsyncBufRead + Unpin> rt::io::AsyncBufRead for Interrupting<T> {
    fn poll_fill_buf(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<io::Result<&[u8]>> {
        let this = self.get_mut();
        if this.interrupted() {
            return interrupted();
        }
        std::pin::Pin::new(&mut this.inner).poll_fill_buf(cx)
    }

    fn consume(self: std::pin::Pin<&mut Self>, amt: usize) {
        std::pin::Pin::new(&mut self.get_mut().inner).consume(amt)
    }
}

impl<T: rt::io::AsyncWrite + Unpin> rt::io::AsyncWrite for Interrupting<T> {
    fn poll_write(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &[u8],
    ) -> std::task::Poll<io::Result<usize>> {
        let this = self.get_mut();
        if this.interrupted() {
            return interrupted();
        }
        std::pin::Pin::new(&mut this.inner).poll_write(cx, buf)
    }

    fn poll_flush(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<io::Result<()>> {
        std::pin::Pin::new(&mut self.get_mut().inner).poll_flush(cx)
    }

    fn poll_shutdown(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<io::Result<()>> {
        std::pin::Pin::new(&mut self.get_mut().inner).poll_shutdown(cx)
    }
}

// UDP's poll methods that take a `ReadBuf` here (the bytes, in rt): both
// shims return the length.

/// Runs a `ReadBuf`-taking poll method on `buf`; returns the length filled
/// and what the method returned.
fn with_read_buf<T>(
    buf: &mut [u8],
    poll: impl FnOnce(&mut tokio::io::ReadBuf<'_>) -> Poll<io::Result<T>>,
) -> Poll<io::Result<(usize, T)>> {
    let mut read_buf = tokio::io::ReadBuf::new(buf);
    let value = ready!(poll(&mut read_buf))?;
    Poll::Ready(Ok((read_buf.filled().len(), value)))
}

pub fn udp_poll_recv(
    socket: &rt::net::UdpSocket,
    cx: &mut Context<'_>,
    buf: &mut [u8],
) -> Poll<io::Result<usize>> {
    with_read_buf(buf, |buf| socket.poll_recv(cx, buf)).map_ok(|(n, ())| n)
}

pub fn udp_poll_peek(
    socket: &rt::net::UdpSocket,
    cx: &mut Context<'_>,
    buf: &mut [u8],
) -> Poll<io::Result<usize>> {
    with_read_buf(buf, |buf| socket.poll_peek(cx, buf)).map_ok(|(n, ())| n)
}

pub fn udp_poll_recv_from(
    socket: &rt::net::UdpSocket,
    cx: &mut Context<'_>,
    buf: &mut [u8],
) -> Poll<io::Result<(usize, SocketAddr)>> {
    with_read_buf(buf, |buf| socket.poll_recv_from(cx, buf))
}

pub fn udp_poll_peek_from(
    socket: &rt::net::UdpSocket,
    cx: &mut Context<'_>,
    buf: &mut [u8],
) -> Poll<io::Result<(usize, SocketAddr)>> {
    with_read_buf(buf, |buf| socket.poll_peek_from(cx, buf))
}

// `UnixDatagram`'s `poll_recv` and `poll_recv_from`, likewise; the sender
// as its path, since the two runtimes' Unix `SocketAddr` types differ.

pub fn unix_poll_recv(
    socket: &rt::net::UnixDatagram,
    cx: &mut Context<'_>,
    buf: &mut [u8],
) -> Poll<io::Result<usize>> {
    with_read_buf(buf, |buf| socket.poll_recv(cx, buf)).map_ok(|(n, ())| n)
}

pub fn unix_poll_recv_from(
    socket: &rt::net::UnixDatagram,
    cx: &mut Context<'_>,
    buf: &mut [u8],
) -> Poll<io::Result<(usize, Option<std::path::PathBuf>)>> {
    with_read_buf(buf, |buf| socket.poll_recv_from(cx, buf))
        .map_ok(|(n, from)| (n, from.as_pathname().map(Into::into)))
}

/// A writer that accepts nothing: every `poll_write` of a non-empty buffer
/// returns `Ok(0)` (a full device), for `write_all`'s `WriteZero` error.
pub struct ZeroWriter;

impl rt::io::AsyncWrite for ZeroWriter {
    fn poll_write(
        self: std::pin::Pin<&mut Self>,
        _cx: &mut Context<'_>,
        _buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Poll::Ready(Ok(0))
    }

    fn poll_flush(self: std::pin::Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn poll_shutdown(
        self: std::pin::Pin<&mut Self>,
        _cx: &mut Context<'_>,
    ) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }
}
