//! The halves of a split [`TcpStream`]: [`ReadHalf`] and [`WriteHalf`]
//! borrow the stream, [`OwnedReadHalf`] and [`OwnedWriteHalf`] share it in
//! an `Arc`. They are the halves every byte stream has (`net/halves.rs`
//! tells how they work without a lock), plus TCP's `peek` and `poll_peek`.
//!
//! Book: Chapter 8, "Sockets".

use super::TcpStream;
use std::net::SocketAddr;

crate::net::halves::stream_halves!(TcpStream, SocketAddr);

impl ReadHalf<'_> {
    /// [`TcpStream::peek`].
    pub async fn peek(&self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.0.peek(buf).await
    }

    /// [`TcpStream::poll_peek`]: the bytes stay queued for the next read;
    /// like the stream's, it takes the bytes and returns the length where
    /// Tokio's fills a `ReadBuf`.
    pub fn poll_peek(
        &mut self,
        cx: &mut std::task::Context<'_>,
        buf: &mut [u8],
    ) -> std::task::Poll<std::io::Result<usize>> {
        self.0.poll_peek(cx, buf)
    }
}

impl OwnedReadHalf {
    /// [`TcpStream::peek`].
    pub async fn peek(&self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.stream.peek(buf).await
    }

    /// [`TcpStream::poll_peek`], as [`ReadHalf::poll_peek`].
    pub fn poll_peek(
        &mut self,
        cx: &mut std::task::Context<'_>,
        buf: &mut [u8],
    ) -> std::task::Poll<std::io::Result<usize>> {
        self.stream.poll_peek(cx, buf)
    }
}
