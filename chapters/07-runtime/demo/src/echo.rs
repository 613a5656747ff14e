//! The echo server on this runtime: Chapter 6's async echo, unchanged in
//! shape, now with a task per connection spread over every core.
//!
//! The accept loop backs off for 100 ms when the process is out of
//! descriptors (`EMFILE`) instead of spinning on an accept that cannot
//! succeed: the listening socket stays readable while connections wait in
//! the backlog, and with edge triggering it would not be reported again, so
//! the loop retries after the sleep without waiting for readiness.
//!
//! Book: Chapter 7, "The I/O driver".

use futures::io::{AsyncReadExt, AsyncWriteExt};
use rt::net::{TcpListener, TcpStream};
use rt::runtime::Builder;
use rt::time;
use std::io;
use std::net::SocketAddr;
use std::time::Duration;

/// Bytes read at a time; each connection's task holds its own buffer.
pub const BUFFER_BYTES: usize = 4096;

/// How long the accept loop waits when out of descriptors.
pub const EMFILE_BACKOFF: Duration = Duration::from_millis(100);

// ANCHOR: echo
/// Echoes one connection until the client closes its side.
pub async fn echo(mut stream: TcpStream) -> io::Result<u64> {
    let mut buf = [0u8; BUFFER_BYTES];
    let mut total = 0;
    loop {
        let n = stream.read(&mut buf).await?;
        if n == 0 {
            stream.close().await?; // the client half-closed: so do we
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
                rt::spawn(async move {
                    let _ = echo(stream).await; // one failed connection is not the server's
                });
            }
            Err(err) if chapter_01::echo_server::is_out_of_resources(&err) => {
                time::sleep(EMFILE_BACKOFF).await;
            }
            Err(err) if chapter_01::echo_server::is_transient(&err) => {}
            Err(err) => return Err(err),
        }
    }
}
// ANCHOR_END: echo

/// Runs the echo server on `addr` until the process is killed, printing
/// `listening on ADDR` for Chapter 3's harness.
pub fn run(addr: SocketAddr, workers: Option<usize>) -> io::Result<()> {
    chapter_03::limits::raise_fd_limit()?;
    let listener = chapter_03::server::listener(addr)
        .map_err(|err| io::Error::new(err.kind(), format!("cannot bind {addr}: {err}")))?;
    let mut builder = Builder::new_multi_thread();
    if let Some(workers) = workers {
        builder.worker_threads(workers);
    }
    let rt = builder.build()?;
    rt.block_on(async {
        let listener = TcpListener::from_std(listener)?;
        chapter_03::server::announce(listener.local_addr()?)?;
        // On a worker, not on the block_on thread: accepting is work too.
        rt::spawn(serve(listener)).await.map_err(io::Error::other)?
    })
}
