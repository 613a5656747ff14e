//! `TcpStream`'s readiness API, as Tokio documents it: `readable`,
//! `writable`, `ready(Interest)`, `try_read`, `try_write`, `peek`. Loopback
//! sockets only; every wait has a deadline, so each test ends by itself.
#![cfg(not(loom))]
#![cfg(not(miri))]

use futures::io::{AsyncReadExt, AsyncWriteExt};
use rt::io::{Interest, Ready};
use rt::net::{TcpListener, TcpStream};
use rt::time::timeout;
use rt::{Builder, Runtime};
use std::io;
use std::sync::Arc;
use std::time::Duration;

/// How long any wait in these tests may take before it counts as a hang.
const PATIENCE: Duration = Duration::from_secs(5);

fn runtime() -> Runtime {
    Builder::new_multi_thread()
        .worker_threads(2)
        .build()
        .unwrap()
}

/// A connected pair: (client, server side).
async fn pair() -> (TcpStream, TcpStream) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let client = TcpStream::connect(listener.local_addr().unwrap())
        .await
        .unwrap();
    let (server, _) = listener.accept().await.unwrap();
    (client, server)
}

#[test]
fn try_read_says_would_block_until_readable_then_reads() {
    runtime().block_on(async {
        let (client, mut server) = pair().await;
        let mut buf = [0u8; 16];
        let error = client.try_read(&mut buf).unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::WouldBlock);
        server.write_all(b"hello").await.unwrap();
        // The documented loop: wait, try, and wait again on WouldBlock.
        let n = timeout(PATIENCE, async {
            loop {
                client.readable().await.unwrap();
                match client.try_read(&mut buf) {
                    Err(e) if e.kind() == io::ErrorKind::WouldBlock => continue,
                    other => break other.unwrap(),
                }
            }
        })
        .await
        .expect("readable after the peer wrote");
        assert_eq!(&buf[..n], b"hello");
        // Drained: the next attempt blocks again (and clears readiness).
        let error = client.try_read(&mut buf).unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::WouldBlock);
        // A closed peer: readable, and try_read returns 0.
        drop(server);
        timeout(PATIENCE, client.readable()).await.unwrap().unwrap();
        assert_eq!(client.try_read(&mut buf).unwrap(), 0);
    });
}

#[test]
fn two_tasks_waiting_readable_on_a_shared_stream_both_wake() {
    runtime().block_on(async {
        let (client, mut server) = pair().await;
        let client = Arc::new(client);
        let waiters: Vec<_> = (0..2)
            .map(|_| {
                let client = client.clone();
                rt::spawn(async move { client.readable().await })
            })
            .collect();
        rt::time::sleep(Duration::from_millis(30)).await;
        server.write_all(b"x").await.unwrap();
        for waiter in waiters {
            timeout(PATIENCE, waiter)
                .await
                .expect("every waiter is woken")
                .unwrap()
                .unwrap();
        }
    });
}

#[test]
fn ready_reports_what_is_set_for_the_interest() {
    runtime().block_on(async {
        let (client, mut server) = pair().await;
        // A fresh connection can be written to at once.
        let ready = timeout(PATIENCE, client.ready(Interest::WRITABLE))
            .await
            .unwrap()
            .unwrap();
        assert!(ready.is_writable() && !ready.is_readable());
        assert_eq!(client.try_write(b"ping").unwrap(), 4);
        // Both interests at once: completes when either is ready.
        server.write_all(b"pong").await.unwrap();
        let ready = timeout(
            PATIENCE,
            client.ready(Interest::READABLE | Interest::WRITABLE),
        )
        .await
        .unwrap()
        .unwrap();
        assert!(ready.is_writable(), "{ready:?}");
        // Readability arrives with the data.
        let ready = timeout(PATIENCE, client.ready(Interest::READABLE))
            .await
            .unwrap()
            .unwrap();
        assert!(ready.is_readable());
        assert_eq!(
            ready & Ready::WRITABLE,
            Ready::EMPTY,
            "only the interest's direction"
        );
        let mut buf = [0u8; 4];
        server.read_exact(&mut buf).await.unwrap();
        assert_eq!(&buf, b"ping");
    });
}

#[test]
fn try_write_fills_the_send_buffer_then_would_block_until_writable() {
    runtime().block_on(async {
        let (client, mut server) = pair().await;
        let chunk = vec![7u8; 64 * 1024];
        let mut sent = 0usize;
        // Nobody reads yet: the kernel's buffers fill and try_write blocks.
        loop {
            match client.try_write(&chunk) {
                Ok(n) => sent += n,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                Err(e) => panic!("{e}"),
            }
            assert!(sent < 512 * 1024 * 1024, "the buffer never filled");
        }
        // The reader drains it all; writable completes and writing resumes.
        let reader = rt::spawn(async move {
            let mut all = vec![0u8; sent];
            server.read_exact(&mut all).await.unwrap();
            server
        });
        timeout(PATIENCE, client.writable())
            .await
            .expect("writable once the peer reads")
            .unwrap();
        let _server = timeout(PATIENCE, reader).await.unwrap().unwrap();
        assert!(client.try_write(b"more").unwrap() > 0);
    });
}

#[test]
fn peek_leaves_the_data_for_the_next_read() {
    runtime().block_on(async {
        let (mut client, mut server) = pair().await;
        server.write_all(b"abc").await.unwrap();
        let mut peeked = [0u8; 8];
        let n = timeout(PATIENCE, client.peek(&mut peeked))
            .await
            .unwrap()
            .unwrap();
        assert_eq!(&peeked[..n], &b"abc"[..n]);
        let mut read = [0u8; 3];
        client.read_exact(&mut read).await.unwrap();
        assert_eq!(&read, b"abc", "peek consumed nothing");
    });
}

#[test]
fn vectored_try_calls_move_several_buffers() {
    runtime().block_on(async {
        let (client, server) = pair().await;
        timeout(PATIENCE, client.writable()).await.unwrap().unwrap();
        let n = client
            .try_write_vectored(&[io::IoSlice::new(b"ab"), io::IoSlice::new(b"cd")])
            .unwrap();
        assert_eq!(n, 4);
        timeout(PATIENCE, server.readable()).await.unwrap().unwrap();
        let (mut a, mut b) = ([0u8; 1], [0u8; 3]);
        let n = server
            .try_read_vectored(&mut [io::IoSliceMut::new(&mut a), io::IoSliceMut::new(&mut b)])
            .unwrap();
        assert_eq!((n, a, b), (4, *b"a", *b"bcd"));
    });
}

#[test]
fn readiness_calls_fail_after_the_runtime_shuts_down() {
    let rt = runtime();
    let (client, _server) = rt.block_on(pair());
    drop(rt);
    let other = runtime();
    other.block_on(async {
        let error = timeout(PATIENCE, client.readable())
            .await
            .expect("an error, not a hang")
            .unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::Other, "{error}");
        assert!(client.try_read(&mut [0u8; 4]).is_err());
    });
}

/// A short read clears the socket's readable state (the receive buffer was
/// emptied), and that loses nothing: bytes sent afterwards wake the next
/// read, as does the peer's end of stream after a short last read.
#[test]
fn a_short_read_waits_for_the_next_bytes_and_misses_none() {
    runtime().block_on(async {
        let (mut client, mut server) = pair().await;
        let mut buf = [0u8; 4096];
        for round in 0..200u32 {
            let message = round.to_le_bytes();
            client.write_all(&message).await.unwrap();
            let n = timeout(PATIENCE, server.read(&mut buf))
                .await
                .expect("a read after a short read hung")
                .unwrap();
            assert_eq!(&buf[..n], &message);
        }
        // The last bytes and the end of the stream together.
        client.write_all(b"bye").await.unwrap();
        client.close().await.unwrap();
        let mut got = Vec::new();
        loop {
            let n = timeout(PATIENCE, server.read(&mut buf))
                .await
                .expect("the end of the stream was missed after a short read")
                .unwrap();
            if n == 0 {
                break;
            }
            got.extend_from_slice(&buf[..n]);
        }
        assert_eq!(got, b"bye");
    });
}

#[test]
fn poll_read_uninit_reads_into_spare_capacity_and_waits_when_empty() {
    runtime().block_on(async {
        let (mut client, server) = pair().await;
        // Spare capacity of a Vec: memory nobody initialized.
        let mut buf: Vec<u8> = Vec::with_capacity(64);
        // Nothing sent yet: the read waits (and the timeout ends it).
        let waiting = timeout(
            Duration::from_millis(50),
            std::future::poll_fn(|cx| server.poll_read_uninit(cx, buf.spare_capacity_mut())),
        )
        .await;
        assert!(waiting.is_err(), "read returned before any data was sent");
        client.write_all(b"hello").await.unwrap();
        let n = timeout(
            PATIENCE,
            std::future::poll_fn(|cx| server.poll_read_uninit(cx, buf.spare_capacity_mut())),
        )
        .await
        .unwrap()
        .unwrap();
        assert_eq!(n, 5);
        // SAFETY: poll_read_uninit says the first n spare bytes were written.
        unsafe { buf.set_len(n) };
        assert_eq!(buf, b"hello");
        // The peer closes: end of stream is Ok(0).
        drop(client);
        let n = timeout(
            PATIENCE,
            std::future::poll_fn(|cx| server.poll_read_uninit(cx, buf.spare_capacity_mut())),
        )
        .await
        .unwrap()
        .unwrap();
        assert_eq!(n, 0);
    });
}

/// One vectored write of a header and a body: the whole of both in one
/// call (one `writev`), as hyper's responses need; `futures`' default
/// would write only the header.
async fn one_write_for_both<W: futures::io::AsyncWrite + Unpin>(writer: &mut W) -> usize {
    let header = b"HTTP/1.1 200 OK\r\ncontent-length: 5\r\n\r\n";
    let body = b"hello";
    let n = writer
        .write_vectored(&[io::IoSlice::new(header), io::IoSlice::new(body)])
        .await
        .unwrap();
    assert_eq!(n, header.len() + body.len(), "a short vectored write");
    n
}

#[test]
fn a_vectored_write_sends_every_buffer_at_once_and_a_vectored_read_fills_several() {
    runtime().block_on(async {
        let (mut client, mut server) = pair().await;
        let n = one_write_for_both(&mut client).await;
        // The split halves, borrowed and owned, write vectored too.
        let (_, mut write_half) = TcpStream::split(&mut client);
        let m = one_write_for_both(&mut write_half).await;
        let (_read, mut owned_write) = client.into_split();
        let k = one_write_for_both(&mut owned_write).await;
        let mut received = vec![0u8; n + m + k];
        timeout(PATIENCE, server.read_exact(&mut received))
            .await
            .unwrap()
            .unwrap();
        assert!(received.ends_with(b"\r\n\r\nhello"));
        // A vectored read spreads what arrived over its buffers in order.
        owned_write.write_all(b"abcdefgh").await.unwrap();
        let (mut first, mut second) = ([0u8; 3], [0u8; 5]);
        let mut got = 0;
        while got < 8 {
            let mut bufs = [
                io::IoSliceMut::new(&mut first[got.min(3)..]),
                io::IoSliceMut::new(&mut second[got.saturating_sub(3)..]),
            ];
            got += timeout(PATIENCE, server.read_vectored(&mut bufs))
                .await
                .unwrap()
                .unwrap();
        }
        assert_eq!((&first, &second), (b"abc", b"defgh"));
    });
}
