//! The echo server once more, now as `async` code: a loop that reads and
//! writes, one task per connection, on the single-threaded executor.
//!
//! Compare it with Chapter 1's thread-per-connection handler: the shape is
//! the same (read, write back, until end of stream), the `.await`s mark
//! where a thread would have blocked. Each connection costs a task (a boxed
//! state machine of a few hundred bytes) instead of a thread.
//!
//! Book: Chapter 6, "The echo server, again".

use std::io;
use std::net::SocketAddr;

use futures::io::{AsyncReadExt, AsyncWriteExt};

use crate::executor::{Executor, spawn};
use crate::net::{TcpListener, TcpStream};

/// Bytes read at a time. Each connection's task holds its own buffer (it
/// lives in the task's state machine across the `.await`), so this is part
/// of what a connection costs.
pub const BUFFER_BYTES: usize = 4096;

// ANCHOR: echo
/// Echoes one connection until the client closes its side.
pub async fn echo(mut stream: TcpStream) -> io::Result<u64> {
    let mut buf = [0u8; BUFFER_BYTES];
    let mut total = 0;
    loop {
        let n = stream.read(&mut buf).await?;
        if n == 0 {
            stream.close().await?; // half-close handled: our side done too
            return Ok(total);
        }
        stream.write_all(&buf[..n]).await?;
        total += n as u64;
    }
}

/// Accepts forever, one task per connection.
pub async fn serve(listener: TcpListener) -> io::Result<()> {
    loop {
        match listener.accept().await {
            Ok((stream, _)) => {
                spawn(async move {
                    let _ = echo(stream).await; // one failed connection is not the server's
                });
            }
            Err(err) if chapter_01::echo_server::is_out_of_resources(&err) => {
                // Out of descriptors: back off a little, as Chapter 4 does.
                crate::time::sleep(std::time::Duration::from_millis(50)).await;
            }
            Err(err) if chapter_01::echo_server::is_transient(&err) => {}
            Err(err) => return Err(err),
        }
    }
}
// ANCHOR_END: echo

/// Runs the async echo server on `addr` until the process is killed,
/// printing `listening on ADDR` for Chapter 3's harness.
pub fn run(addr: SocketAddr) -> io::Result<()> {
    chapter_03::limits::raise_fd_limit()?;
    let listener = chapter_03::server::listener(addr)
        .map_err(|err| io::Error::new(err.kind(), format!("cannot bind {addr}: {err}")))?;
    Executor::new()?.block_on(async {
        let listener = TcpListener::from_std(listener)?;
        chapter_03::server::announce(listener.local_addr()?)?;
        serve(listener).await
    })
}
