//! The lookup relay of Chapter 5, written with `async`/`await`.
//!
//! Same protocol, same replies, same time limits, same directory: a client
//! sends keys, one per line; for each, the relay asks the directory over a
//! connection it opens on the first request and keeps, and answers `OK
//! value`, `NOTFOUND` or `ERR ...`. Compare [`session`] with Chapter 5's
//! `relay.rs`: the steps read in order, a time limit is one `timeout(..)`
//! around the step it limits, the state lives in local variables, and an
//! error at any step is a `match` arm next to the step. The compiler turns
//! this into a state machine much like [`crate::relay_future`], which is the
//! same relay written as that state machine by hand.
//!
//! Book: Chapter 6, "The relay, top to bottom".

use std::io;
use std::net::SocketAddr;

use chapter_05::relay::{BACKEND_TIMEOUT, CLIENT_IDLE, CONNECT_TIMEOUT, LineTooLong, Lines};
use futures::io::{AsyncReadExt, AsyncWriteExt};

use crate::executor::spawn;
use crate::net::{TcpListener, TcpStream};
use crate::time::timeout;

/// The directory connection, once open, and its answers so far.
pub struct Backend {
    stream: TcpStream,
    answers: Lines,
}

/// Reads until `lines` holds a complete line; `None` at end of stream.
pub async fn next_line(
    stream: &mut TcpStream,
    lines: &mut Lines,
) -> io::Result<Option<Result<String, LineTooLong>>> {
    loop {
        if let Some(line) = lines.next_line() {
            return Ok(Some(line));
        }
        let mut buf = [0u8; 1024];
        let n = stream.read(&mut buf).await?;
        if n == 0 {
            return Ok(None);
        }
        lines.push(&buf[..n]);
    }
}

// ANCHOR: session
/// Serves one client until it leaves.
pub async fn session(mut client: TcpStream, directory: SocketAddr) -> io::Result<()> {
    let mut requests = Lines::default();
    let mut backend: Option<Backend> = None;
    loop {
        let key = match timeout(CLIENT_IDLE, next_line(&mut client, &mut requests)).await {
            Ok(Ok(Some(Ok(key)))) => key,
            Ok(Ok(None)) => return Ok(()), // the client is done
            Ok(Ok(Some(Err(LineTooLong)))) => {
                return client.write_all(b"ERR line too long\n").await;
            }
            Err(_elapsed) => return client.write_all(b"ERR idle\n").await,
            Ok(Err(err)) => return Err(err),
        };
        let reply = lookup(&mut backend, directory, &key).await;
        client.write_all(reply.as_bytes()).await?;
    }
}

/// Asks the directory for `key`, connecting first if needed. Any failure
/// becomes an `ERR` reply, and drops the directory connection.
async fn lookup(backend: &mut Option<Backend>, directory: SocketAddr, key: &str) -> String {
    if backend.is_none() {
        match timeout(CONNECT_TIMEOUT, TcpStream::connect(directory)).await {
            Ok(Ok(stream)) => {
                *backend = Some(Backend {
                    stream,
                    answers: Lines::default(),
                })
            }
            _ => return "ERR directory unreachable\n".into(),
        }
    }
    let b = backend.as_mut().expect("connected just above");
    let request = format!("GET {key}\n");
    if b.stream.write_all(request.as_bytes()).await.is_err() {
        *backend = None;
        return "ERR directory connection lost\n".into();
    }
    let answer = timeout(BACKEND_TIMEOUT, next_line(&mut b.stream, &mut b.answers)).await;
    let reply = match answer {
        Err(_elapsed) => Err("ERR directory timed out\n"),
        Ok(Ok(Some(Ok(answer)))) => match answer.split_once(' ').unwrap_or((&answer, "")) {
            ("VALUE", value) => Ok(format!("OK {value}\n")),
            ("MISSING", _) => Ok("NOTFOUND\n".into()),
            _ => Err("ERR directory said something malformed\n"),
        },
        Ok(_) => Err("ERR directory connection lost\n"),
    };
    reply.unwrap_or_else(|error| {
        *backend = None;
        error.into()
    })
}
// ANCHOR_END: session

/// Accepts clients forever, a task each.
pub async fn serve(listener: TcpListener, directory: SocketAddr) -> io::Result<()> {
    loop {
        let (client, _) = listener.accept().await?;
        spawn(async move {
            let _ = session(client, directory).await;
        });
    }
}
