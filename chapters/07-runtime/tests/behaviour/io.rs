//! `tokio::io`'s user-facing API: the extension traits, `BufReader`'s
//! `lines`, `BufWriter`, `copy`, `copy_bidirectional`, `split` and
//! `duplex`. Written against the names alone (`rt::io::…` is `tokio::io::…`
//! in the Tokio build), with no shim: that the same source compiles and
//! passes against both runtimes is the point.

use crate::behaviour::limit;
use crate::{rt, shim};
use futures::FutureExt;
use rt::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader, BufWriter};
use rt::net::{TcpListener, TcpStream};
use std::future::Future;
use std::io::ErrorKind;
use std::pin::pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::{Context, Poll, Wake, Waker};
use std::time::Duration;

const PATIENCE: Duration = Duration::from_secs(10);

async fn tcp_pair() -> (TcpStream, TcpStream) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let client = TcpStream::connect(listener.local_addr().unwrap())
        .await
        .unwrap();
    let (server, _) = listener.accept().await.unwrap();
    (client, server)
}

struct Count(AtomicUsize);

impl Wake for Count {
    fn wake(self: Arc<Self>) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

#[test]
fn read_exact_returns_the_count_and_fails_with_unexpected_eof_when_short() {
    limit("read_exact", || {
        shim::runtime().block_on(async {
            let (mut a, mut b) = rt::io::duplex(64);
            a.write_all(b"abcdef").await.unwrap();
            drop(a);
            let mut four = [0u8; 4];
            assert_eq!(b.read_exact(&mut four).await.unwrap(), 4);
            let err = b.read_exact(&mut four).await.unwrap_err();
            assert_eq!(err.kind(), ErrorKind::UnexpectedEof);
        });
    });
}

#[test]
fn next_line_strips_crlf_and_returns_a_last_line_without_newline() {
    limit("lines", || {
        shim::runtime().block_on(async {
            let (mut a, b) = rt::io::duplex(64);
            a.write_all(b"first\r\nsecond\n\nlast").await.unwrap();
            drop(a);
            let mut lines = BufReader::new(b).lines();
            let mut got = Vec::new();
            while let Some(line) = lines.next_line().await.unwrap() {
                got.push(line);
            }
            assert_eq!(got, ["first", "second", "", "last"]);
        });
    });
}

#[test]
fn next_line_keeps_a_partial_line_when_cancelled() {
    limit("next_line cancel", || {
        shim::runtime().block_on(async {
            let (mut a, b) = rt::io::duplex(64);
            let mut lines = BufReader::new(b).lines();
            a.write_all(b"hel").await.unwrap();
            assert!(lines.next_line().now_or_never().is_none());
            a.write_all(b"lo\n").await.unwrap();
            assert_eq!(lines.next_line().await.unwrap().as_deref(), Some("hello"));
        });
    });
}

#[test]
fn integers_are_big_endian_unless_le() {
    limit("read_u32", || {
        shim::runtime().block_on(async {
            let (mut a, mut b) = rt::io::duplex(64);
            a.write_all(&[1, 2, 3, 4, 1, 2, 3, 4]).await.unwrap();
            assert_eq!(b.read_u32().await.unwrap(), 0x0102_0304);
            assert_eq!(b.read_u32_le().await.unwrap(), 0x0403_0201);
            a.write_i64(-5).await.unwrap();
            a.write_u16_le(0xBEEF).await.unwrap();
            assert_eq!(b.read_i64().await.unwrap(), -5);
            assert_eq!(b.read_u16_le().await.unwrap(), 0xBEEF);
        });
    });
}

#[test]
fn a_buf_writer_holds_bytes_until_flush() {
    limit("BufWriter", || {
        shim::runtime().block_on(async {
            let (a, mut b) = rt::io::duplex(64);
            let mut writer = BufWriter::new(a);
            writer.write_all(b"held").await.unwrap();
            let mut buf = [0u8; 4];
            assert!(b.read(&mut buf).now_or_never().is_none());
            writer.flush().await.unwrap();
            b.read_exact(&mut buf).await.unwrap();
            assert_eq!(&buf, b"held");
        });
    });
}

#[test]
fn a_full_duplex_makes_the_writer_wait_for_the_reader() {
    limit("duplex backpressure", || {
        shim::runtime().block_on(async {
            let (mut a, mut b) = rt::io::duplex(8);
            let wakes = Arc::new(Count(AtomicUsize::new(0)));
            let waker = Waker::from(wakes.clone());
            let mut cx = Context::from_waker(&waker);
            let sixteen = [7u8; 16];
            let mut first = pin!(a.write(&sixteen));
            assert!(matches!(first.as_mut().poll(&mut cx), Poll::Ready(Ok(8))));
            let mut second = pin!(a.write(&sixteen[8..]));
            assert!(second.as_mut().poll(&mut cx).is_pending());
            let mut buf = [0u8; 5];
            assert_eq!(b.read(&mut buf).await.unwrap(), 5);
            assert_eq!(
                wakes.0.load(Ordering::SeqCst),
                1,
                "the writer was not woken"
            );
            assert!(matches!(second.as_mut().poll(&mut cx), Poll::Ready(Ok(5))));
        });
    });
}

#[test]
fn dropping_a_duplex_end_gives_eof_after_the_data_and_broken_pipe() {
    limit("duplex drop", || {
        shim::runtime().block_on(async {
            let (mut a, mut b) = rt::io::duplex(64);
            a.write_all(b"abc").await.unwrap();
            drop(a);
            let mut got = Vec::new();
            b.read_to_end(&mut got).await.unwrap();
            assert_eq!(got, b"abc");
            let err = b.write_all(b"x").await.unwrap_err();
            assert_eq!(err.kind(), ErrorKind::BrokenPipe);
        });
    });
}

#[test]
fn copy_bidirectional_shuts_each_side_down_and_returns_both_counts() {
    limit("copy_bidirectional", || {
        shim::runtime().block_on(async {
            let (mut client, mut proxy_a) = rt::io::duplex(64);
            let (mut proxy_b, mut server) = rt::io::duplex(64);
            let proxy =
                rt::spawn(
                    async move { rt::io::copy_bidirectional(&mut proxy_a, &mut proxy_b).await },
                );
            let server = rt::spawn(async move {
                let mut request = Vec::new();
                server.read_to_end(&mut request).await.unwrap();
                server.write_all(&[b'r'; 300]).await.unwrap();
                server.shutdown().await.unwrap();
                request.len()
            });
            client.write_all(&[b'q'; 1000]).await.unwrap();
            client.shutdown().await.unwrap();
            let mut response = Vec::new();
            rt::time::timeout(PATIENCE, client.read_to_end(&mut response))
                .await
                .expect("end of file was not passed on")
                .unwrap();
            assert_eq!(response.len(), 300);
            assert_eq!(server.await.unwrap(), 1000);
            assert_eq!(proxy.await.unwrap().unwrap(), (1000, 300));
        });
    });
}

#[test]
fn copy_between_split_halves_echoes_a_mebibyte_over_tcp() {
    limit("copy + split over TCP", || {
        shim::runtime().block_on(async {
            let (client, server) = tcp_pair().await;
            let echo = rt::spawn(async move {
                let (mut reader, mut writer) = rt::io::split(server);
                let n = rt::io::copy(&mut reader, &mut writer).await.unwrap();
                writer.shutdown().await.unwrap();
                n
            });
            let body: Vec<u8> = (0..1usize << 20).map(|i| (i % 251) as u8).collect();
            let (mut reader, mut writer) = rt::io::split(client);
            let sent = body.clone();
            let sender = rt::spawn(async move {
                writer.write_all(&sent).await.unwrap();
                writer.shutdown().await.unwrap();
                writer
            });
            let mut got = Vec::new();
            rt::time::timeout(PATIENCE, reader.read_to_end(&mut got))
                .await
                .expect("the echo did not end")
                .unwrap();
            assert!(got == body, "bytes differ");
            assert_eq!(echo.await.unwrap(), 1 << 20);
            let writer = sender.await.unwrap();
            let _stream: TcpStream = reader.unsplit(writer);
        });
    });
}

#[test]
fn shutdown_makes_the_peer_read_zero() {
    limit("shutdown", || {
        shim::runtime().block_on(async {
            let (mut client, mut server) = tcp_pair().await;
            client.shutdown().await.unwrap();
            let mut buf = [0u8; 8];
            let n = rt::time::timeout(PATIENCE, server.read(&mut buf))
                .await
                .expect("no end of file")
                .unwrap();
            assert_eq!(n, 0);
            server.write_all(b"still").await.unwrap();
            let mut five = [0u8; 5];
            client.read_exact(&mut five).await.unwrap();
            assert_eq!(&five, b"still");
        });
    });
}
