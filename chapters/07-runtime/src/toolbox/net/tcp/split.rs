//! The halves of a split [`TcpStream`]: [`ReadHalf`] and [`WriteHalf`]
//! borrow the stream, [`OwnedReadHalf`] and [`OwnedWriteHalf`] share it in
//! an `Arc`. They are the halves every byte stream has (`net/halves.rs`
//! tells how they work without a lock), plus TCP's `peek`.
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
}

impl OwnedReadHalf {
    /// [`TcpStream::peek`].
    pub async fn peek(&self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.stream.peek(buf).await
    }
}
