//! Two programs written the way a Tokio user writes them, with `tokio`
//! replaced by `rt` in their paths and nothing else changed:
//!
//! 1. a counter service speaking a length-prefixed binary protocol over
//!    TCP: each frame is a big-endian `u32` length and that many bytes,
//!    read with `read_u32`/`read_exact` through a `BufReader` and written
//!    with `write_u32`/`write_all` into a `BufWriter` that is flushed once
//!    per reply; the accept loop is a `select!` with `biased;` that stops on
//!    a shutdown signal;
//! 2. a TCP proxy in front of an upper-casing backend, one
//!    `copy_bidirectional` per connection, whose accept loop is a `select!`
//!    with `biased;`, a precondition (stop accepting after a quota) and an
//!    `else` branch, and whose clients bound every exchange with `timeout`
//!    and `?` (an `Elapsed` becomes an `io::Error`).
//!
//! If `rt` lacks a name or a behaviour these rely on, this file stops
//! compiling or fails. Nothing asserts on wall-clock time: timeouts only
//! bound how long a broken run may hang.
#![cfg(not(loom))]
#![cfg(not(miri))]

use rt::io::{AsyncReadExt, AsyncWriteExt, BufReader, BufWriter};
use rt::net::{TcpListener, TcpStream};
use rt::sync::{Mutex, broadcast, oneshot};
use rt::time::{Duration, timeout};
use std::collections::HashMap;
use std::sync::Arc;

// --- 1. A counter service with length-prefixed frames. -----------------

/// Reads one frame: `None` at a clean end of stream (before a length).
async fn read_frame<R: AsyncReadExt + Unpin>(reader: &mut R) -> rt::io::Result<Option<Vec<u8>>> {
    let len = match reader.read_u32().await {
        Ok(len) => len as usize,
        Err(e) if e.kind() == rt::io::ErrorKind::UnexpectedEof => return Ok(None),
        Err(e) => return Err(e),
    };
    if len > 1 << 20 {
        return Err(rt::io::Error::new(
            rt::io::ErrorKind::InvalidData,
            "frame too long",
        ));
    }
    let mut body = vec![0; len];
    reader.read_exact(&mut body).await?;
    Ok(Some(body))
}

/// Writes one frame into the buffer; the caller flushes.
async fn write_frame<W: AsyncWriteExt + Unpin>(writer: &mut W, body: &[u8]) -> rt::io::Result<()> {
    writer.write_u32(body.len() as u32).await?;
    writer.write_all(body).await
}

type Counters = Arc<Mutex<HashMap<Vec<u8>, u64>>>;

/// Each frame names a counter; the reply is the counter's new value as a
/// big-endian `u64`, in a frame of its own.
async fn serve_counters(stream: TcpStream, counters: Counters) -> rt::io::Result<()> {
    stream.set_nodelay(true)?;
    let (reader, writer) = stream.into_split();
    let mut reader = BufReader::new(reader);
    let mut writer = BufWriter::new(writer);
    while let Some(name) = read_frame(&mut reader).await? {
        let value = {
            let mut counters = counters.lock().await;
            let value = counters.entry(name).or_insert(0);
            *value += 1;
            *value
        };
        write_frame(&mut writer, &value.to_be_bytes()).await?;
        writer.flush().await?;
    }
    writer.shutdown().await
}

/// Accepts until told to stop; the shutdown branch is polled first.
async fn run_counter_server(
    listener: TcpListener,
    mut shutdown: broadcast::Receiver<()>,
    stopped: oneshot::Sender<usize>,
) {
    let counters = Counters::default();
    let mut served = 0;
    loop {
        rt::select! {
            biased;
            _ = shutdown.recv() => break,
            accepted = listener.accept() => {
                let (stream, _) = accepted.expect("accept");
                served += 1;
                rt::spawn(serve_counters(stream, counters.clone()));
            }
        }
    }
    let _ = stopped.send(served);
}

/// Bumps `name` `times` times over one connection, checking each reply.
async fn bump(addr: std::net::SocketAddr, name: &'static str, times: u64) -> rt::io::Result<u64> {
    let stream = TcpStream::connect(addr).await?;
    let (reader, writer) = stream.into_split();
    let mut reader = BufReader::new(reader);
    let mut writer = BufWriter::new(writer);
    let mut last = 0;
    for _ in 0..times {
        write_frame(&mut writer, name.as_bytes()).await?;
        writer.flush().await?;
        let reply = read_frame(&mut reader).await?.expect("a reply");
        let value = u64::from_be_bytes(reply.try_into().expect("eight bytes"));
        assert!(value > last, "a counter went backwards");
        last = value;
    }
    writer.shutdown().await?;
    // The server answers the end of stream with its own.
    assert!(read_frame(&mut reader).await?.is_none());
    Ok(last)
}

#[rt::test(flavor = "multi_thread", worker_threads = 2)]
async fn framed_clients_share_counters_and_the_server_stops_on_signal() {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (stop_tx, stop_rx) = broadcast::channel(1);
    let (stopped_tx, stopped_rx) = oneshot::channel();
    rt::spawn(run_counter_server(listener, stop_rx, stopped_tx));

    let mut clients = rt::task::JoinSet::new();
    for i in 0..8 {
        let name = if i % 2 == 0 { "even" } else { "odd" };
        clients.spawn(bump(addr, name, 25));
    }
    let mut finals = std::collections::HashSet::new();
    while let Some(result) = clients.join_next().await {
        let last = result.unwrap().unwrap();
        assert!((25..=100).contains(&last));
        finals.insert(last);
    }
    // Four clients of 25 bumps each per counter: the last to finish on
    // each counter saw 100.
    assert!(finals.contains(&100));

    stop_tx.send(()).unwrap();
    let served = timeout(Duration::from_secs(10), stopped_rx)
        .await
        .expect("the server stops")
        .unwrap();
    assert_eq!(served, 8);
}

// --- 2. A proxy in front of a backend, one copy_bidirectional each. ----

/// Upper-cases what it reads until the client shuts its side down.
async fn run_backend(listener: TcpListener) {
    loop {
        let Ok((mut stream, _)) = listener.accept().await else {
            return;
        };
        rt::spawn(async move {
            let mut buf = [0u8; 1024];
            loop {
                let n = stream.read(&mut buf).await?;
                if n == 0 {
                    return stream.shutdown().await;
                }
                buf[..n].make_ascii_uppercase();
                stream.write_all(&buf[..n]).await?;
            }
        });
    }
}

/// What the proxy did: connections proxied and bytes each way.
#[derive(Debug, Default)]
struct ProxyReport {
    connections: usize,
    to_backend: u64,
    from_backend: u64,
}

/// Proxies up to `quota` connections to `backend`, then stops accepting
/// and returns once every proxied connection has finished.
async fn run_proxy(
    listener: TcpListener,
    backend: std::net::SocketAddr,
    quota: usize,
    mut shutdown: broadcast::Receiver<()>,
) -> ProxyReport {
    let mut report = ProxyReport::default();
    let mut sessions = rt::task::JoinSet::new();
    let mut open = true;
    loop {
        let accepting = open && report.connections < quota;
        rt::select! {
            biased;
            _ = shutdown.recv(), if accepting => open = false,
            Ok((mut inbound, _)) = listener.accept(), if accepting => {
                report.connections += 1;
                sessions.spawn(async move {
                    let mut outbound = TcpStream::connect(backend).await?;
                    rt::io::copy_bidirectional(&mut inbound, &mut outbound).await
                });
            }
            Some(done) = sessions.join_next() => {
                let (up, down) = done.unwrap().unwrap();
                report.to_backend += up;
                report.from_backend += down;
            }
            // Not accepting (quota reached or shut down) and no session
            // left: every branch is disabled.
            else => break,
        }
    }
    report
}

/// One client: sends `text` through the proxy and reads the answer.
async fn shout(proxy: std::net::SocketAddr, text: &str) -> rt::io::Result<String> {
    let mut stream = timeout(Duration::from_secs(10), TcpStream::connect(proxy)).await??;
    stream.write_all(text.as_bytes()).await?;
    stream.shutdown().await?;
    let mut answer = String::new();
    timeout(Duration::from_secs(10), stream.read_to_string(&mut answer)).await??;
    Ok(answer)
}

#[rt::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_proxy_relays_both_ways_and_stops_at_its_quota() {
    let backend = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let backend_addr = backend.local_addr().unwrap();
    rt::spawn(run_backend(backend));
    let front = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let proxy_addr = front.local_addr().unwrap();
    let (stop_tx, stop_rx) = broadcast::channel(1);
    let proxy = rt::spawn(run_proxy(front, backend_addr, 5, stop_rx));

    let words = ["alpha", "bravo", "charlie", "delta", "echo"];
    let mut sent = 0;
    let mut clients = Vec::new();
    for word in words {
        sent += word.len() as u64;
        clients.push(rt::spawn(shout(proxy_addr, word)));
    }
    for (client, word) in clients.into_iter().zip(words) {
        assert_eq!(client.await.unwrap().unwrap(), word.to_uppercase());
    }
    // The quota is reached: the proxy ends by its `else` branch once the
    // sessions are done, without being told to stop.
    let report = timeout(Duration::from_secs(10), proxy)
        .await
        .expect("the proxy stops at its quota")
        .unwrap();
    assert_eq!(report.connections, 5);
    assert_eq!(report.to_backend, sent);
    assert_eq!(report.from_backend, sent);
    drop(stop_tx);
}

#[rt::test(flavor = "current_thread")]
async fn a_proxy_told_to_stop_refuses_new_work_and_ends() {
    let backend = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let backend_addr = backend.local_addr().unwrap();
    rt::spawn(run_backend(backend));
    let front = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let proxy_addr = front.local_addr().unwrap();
    let (stop_tx, stop_rx) = broadcast::channel(1);
    let proxy = rt::spawn(run_proxy(front, backend_addr, 100, stop_rx));
    assert_eq!(shout(proxy_addr, "once").await.unwrap(), "ONCE");
    stop_tx.send(()).unwrap();
    let report = timeout(Duration::from_secs(10), proxy)
        .await
        .expect("the proxy stops when told")
        .unwrap();
    assert_eq!(report.connections, 1);
    assert_eq!((report.to_backend, report.from_backend), (4, 4));
}
