//! The halves of a split [`UnixStream`]: [`ReadHalf`] and [`WriteHalf`]
//! borrow the stream, [`OwnedReadHalf`] and [`OwnedWriteHalf`] share it in
//! an `Arc`. They are TCP's halves, from the same macro (`net/halves.rs`
//! tells how they work without a lock): dropping the owned write half shuts
//! down writing, `forget` drops it without that, and `reunite` puts two
//! halves of one stream back together.
//!
//! Book: Chapter 8, "Sockets".

use super::UnixStream;
use std::os::unix::net::SocketAddr;

crate::net::halves::stream_halves!(UnixStream, SocketAddr);
