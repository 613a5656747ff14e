//! `rt::io` under Tokio's names: each test checks one behaviour Tokio
//! documents for `AsyncReadExt`, `AsyncWriteExt`, `AsyncBufReadExt`,
//! `BufWriter`, `copy`, `copy_bidirectional`, `split`, `duplex`, the
//! devices and the standard streams. In-memory pipes where the behaviour is
//! the runtime's own, loopback TCP where it is the socket's. Every wait has
//! a deadline, so a bug fails a test instead of hanging it; nothing is
//! asserted on elapsed time.
#![cfg(not(loom))]
#![cfg(not(miri))]

use futures::FutureExt;
use rt::io::{
    AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader, BufStream, BufWriter, duplex,
};
use rt::net::{TcpListener, TcpStream};
use rt::time::timeout;
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

/// A waker that counts its wake-ups.
struct Count(AtomicUsize);

impl Wake for Count {
    fn wake(self: Arc<Self>) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

fn counting_waker() -> (Waker, Arc<Count>) {
    let count = Arc::new(Count(AtomicUsize::new(0)));
    (Waker::from(count.clone()), count)
}

/// 1 MiB with a pattern that a shifted or dropped chunk would break.
fn pattern(len: usize) -> Vec<u8> {
    (0..len).map(|i| (i % 251) as u8).collect()
}

#[rt::test]
async fn read_exact_returns_the_count_and_short_input_is_unexpected_eof() {
    let (mut a, mut b) = duplex(64);
    a.write_all(b"abcdef").await.unwrap();
    drop(a);
    let mut four = [0u8; 4];
    assert_eq!(b.read_exact(&mut four).await.unwrap(), 4);
    assert_eq!(&four, b"abcd");
    // Two bytes left, four asked for: end of file part-way.
    let err = b.read_exact(&mut four).await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::UnexpectedEof);
}

#[rt::test(flavor = "multi_thread", worker_threads = 2)]
async fn read_to_end_on_tcp_stops_at_the_peers_shutdown() {
    let (mut client, mut server) = tcp_pair().await;
    let body = pattern(200_000);
    let sent = body.clone();
    let writer = rt::spawn(async move {
        server.write_all(&sent).await.unwrap();
        server.shutdown().await.unwrap();
        server // kept open: end of file comes from the shutdown, not a close
    });
    let mut got = Vec::new();
    let n = timeout(PATIENCE, client.read_to_end(&mut got))
        .await
        .expect("read_to_end did not see end of file")
        .unwrap();
    assert_eq!(n, body.len());
    assert!(got == body, "bytes differ");
    drop(writer.await.unwrap());
}

#[rt::test]
async fn lines_strip_crlf_and_return_a_last_line_without_newline() {
    let (mut a, b) = duplex(64);
    a.write_all(b"first\r\nsecond\n\nlast").await.unwrap();
    drop(a);
    let mut lines = BufReader::new(b).lines();
    let mut got = Vec::new();
    while let Some(line) = lines.next_line().await.unwrap() {
        got.push(line);
    }
    assert_eq!(got, ["first", "second", "", "last"]);
    // Past the end it stays at the end.
    assert_eq!(lines.next_line().await.unwrap(), None);
}

#[rt::test]
async fn lines_reject_invalid_utf8() {
    let (mut a, b) = duplex(64);
    a.write_all(b"ok\n\xff\xfe\n").await.unwrap();
    drop(a);
    let mut lines = BufReader::new(b).lines();
    assert_eq!(lines.next_line().await.unwrap().as_deref(), Some("ok"));
    let err = lines.next_line().await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidData);
}

#[rt::test]
async fn next_line_is_cancel_safe() {
    let (mut a, b) = duplex(64);
    let mut lines = BufReader::new(b).lines();
    a.write_all(b"hel").await.unwrap();
    // Polled once and dropped: half a line was read into `lines`.
    assert!(lines.next_line().now_or_never().is_none());
    a.write_all(b"lo\n").await.unwrap();
    assert_eq!(lines.next_line().await.unwrap().as_deref(), Some("hello"));
}

#[rt::test]
async fn split_cuts_at_the_byte_and_read_until_keeps_it() {
    let (mut a, b) = duplex(64);
    a.write_all(b"k1=v1;k2=v2;tail").await.unwrap();
    drop(a);
    let mut reader = BufReader::new(b);
    let mut first = Vec::new();
    reader.read_until(b';', &mut first).await.unwrap();
    assert_eq!(first, b"k1=v1;");
    let mut segments = reader.split(b';');
    assert_eq!(
        segments.next_segment().await.unwrap(),
        Some(b"k2=v2".to_vec())
    );
    assert_eq!(
        segments.next_segment().await.unwrap(),
        Some(b"tail".to_vec())
    );
    assert_eq!(segments.next_segment().await.unwrap(), None);
}

#[rt::test(flavor = "multi_thread", worker_threads = 2)]
async fn copy_moves_one_mebibyte_over_loopback_intact() {
    let (client, server) = tcp_pair().await;
    // The server echoes with `copy` between the two halves of `io::split`.
    let echo = rt::spawn(async move {
        let (mut reader, mut writer) = rt::io::split(server);
        let n = rt::io::copy(&mut reader, &mut writer).await.unwrap();
        writer.shutdown().await.unwrap();
        n
    });
    let body = pattern(1 << 20);
    let (mut client_read, mut client_write) = client.into_split();
    let sent = body.clone();
    let sender = rt::spawn(async move {
        client_write.write_all(&sent).await.unwrap();
        client_write.shutdown().await.unwrap();
        client_write
    });
    let mut got = Vec::new();
    timeout(PATIENCE, client_read.read_to_end(&mut got))
        .await
        .expect("the echo did not end")
        .unwrap();
    assert_eq!(got.len(), body.len());
    assert!(got == body, "bytes differ");
    assert_eq!(echo.await.unwrap(), 1 << 20);
    drop(sender.await.unwrap());
}

#[rt::test(flavor = "multi_thread", worker_threads = 2)]
async fn copy_bidirectional_returns_both_counts() {
    // client <-> [proxy_a  copy_bidirectional  proxy_b] <-> server
    let (mut client, mut proxy_a) = duplex(64);
    let (mut proxy_b, mut server) = duplex(64);
    let proxy =
        rt::spawn(async move { rt::io::copy_bidirectional(&mut proxy_a, &mut proxy_b).await });
    let server = rt::spawn(async move {
        let mut request = Vec::new();
        server.read_to_end(&mut request).await.unwrap();
        server.write_all(&vec![b'r'; 300]).await.unwrap();
        server.shutdown().await.unwrap();
        request.len()
    });
    client.write_all(&[b'q'; 1000]).await.unwrap();
    client.shutdown().await.unwrap();
    let mut response = Vec::new();
    timeout(PATIENCE, client.read_to_end(&mut response))
        .await
        .expect("the proxy did not pass end of file on")
        .unwrap();
    assert_eq!(response, vec![b'r'; 300]);
    assert_eq!(server.await.unwrap(), 1000);
    let counts = timeout(PATIENCE, proxy).await.unwrap().unwrap().unwrap();
    assert_eq!(counts, (1000, 300));
}

#[rt::test(flavor = "multi_thread", worker_threads = 2)]
async fn split_halves_work_from_two_tasks_and_unsplit() {
    let (client, mut server) = tcp_pair().await;
    let (mut reader, mut writer) = rt::io::split(client);
    let writing = rt::spawn(async move {
        writer.write_all(b"from the write half").await.unwrap();
        writer
    });
    let reading = rt::spawn(async move {
        let mut buf = [0u8; 9];
        reader.read_exact(&mut buf).await.unwrap();
        (reader, buf)
    });
    // The server answers only after it has read, so the two halves are in
    // use from their two tasks at the same time.
    let mut request = [0u8; 19];
    server.read_exact(&mut request).await.unwrap();
    assert_eq!(&request, b"from the write half");
    server.write_all(b"to reader").await.unwrap();
    let writer = writing.await.unwrap();
    let (reader, buf) = timeout(PATIENCE, reading).await.unwrap().unwrap();
    assert_eq!(&buf, b"to reader");
    assert!(reader.is_pair_of(&writer));
    let mut stream: TcpStream = reader.unsplit(writer);
    stream.write_all(b"!").await.unwrap();
    let mut bang = [0u8; 1];
    server.read_exact(&mut bang).await.unwrap();
    assert_eq!(&bang, b"!");
}

#[test]
#[should_panic(expected = "Unrelated `split::Write` passed to `split::Read::unsplit`.")]
fn unsplit_of_halves_from_two_splits_panics() {
    let (one, _) = duplex(8);
    let (two, _) = duplex(8);
    let (reader, _) = rt::io::split(one);
    let (_, writer) = rt::io::split(two);
    reader.unsplit(writer);
}

#[test]
fn a_duplex_writer_waits_until_the_reader_makes_room() {
    let (mut a, mut b) = duplex(8);
    let (waker, wakes) = counting_waker();
    let mut cx = Context::from_waker(&waker);
    let sixteen = [7u8; 16];
    // Room for 8 of the 16 bytes: a partial write, as a socket's.
    let mut first = pin!(a.write(&sixteen));
    assert!(matches!(first.as_mut().poll(&mut cx), Poll::Ready(Ok(8))));
    // Full: the next write waits.
    let mut second = pin!(a.write(&sixteen[8..]));
    assert!(second.as_mut().poll(&mut cx).is_pending());
    assert_eq!(wakes.0.load(Ordering::SeqCst), 0);
    // A read makes room and wakes the writer.
    let mut buf = [0u8; 5];
    let mut read = pin!(b.read(&mut buf));
    assert!(matches!(read.as_mut().poll(&mut cx), Poll::Ready(Ok(5))));
    assert_eq!(wakes.0.load(Ordering::SeqCst), 1);
    assert!(matches!(second.as_mut().poll(&mut cx), Poll::Ready(Ok(5))));
}

#[test]
fn dropping_a_duplex_end_gives_its_peer_eof_after_the_data_and_broken_pipe() {
    let (mut a, mut b) = duplex(4);
    let (waker, wakes) = counting_waker();
    let mut cx = Context::from_waker(&waker);
    // `b` fills its way to `a` and waits for room.
    assert!(matches!(
        pin!(b.write(b"wxyz")).poll(&mut cx),
        Poll::Ready(Ok(4))
    ));
    let mut waiting = pin!(b.write(b"more"));
    assert!(waiting.as_mut().poll(&mut cx).is_pending());
    assert!(matches!(
        pin!(a.write(b"abc")).poll(&mut cx),
        Poll::Ready(Ok(3))
    ));
    drop(a);
    // The waiting writer was woken, and fails.
    assert_eq!(wakes.0.load(Ordering::SeqCst), 1);
    match waiting.as_mut().poll(&mut cx) {
        Poll::Ready(Err(e)) => assert_eq!(e.kind(), ErrorKind::BrokenPipe),
        other => panic!("expected BrokenPipe, got {other:?}"),
    }
    // What `a` wrote is still readable, then end of file.
    let mut got = Vec::new();
    let mut read_all = pin!(b.read_to_end(&mut got));
    assert!(matches!(
        read_all.as_mut().poll(&mut cx),
        Poll::Ready(Ok(3))
    ));
    assert_eq!(got, b"abc");
}

#[rt::test]
async fn shutdown_of_one_duplex_direction_leaves_the_other_open() {
    let (mut a, mut b) = duplex(16);
    a.write_all(b"bye").await.unwrap();
    a.shutdown().await.unwrap();
    let mut got = Vec::new();
    b.read_to_end(&mut got).await.unwrap();
    assert_eq!(got, b"bye");
    // `a` can no longer write, but still reads what `b` sends.
    assert_eq!(
        a.write_all(b"x").await.unwrap_err().kind(),
        ErrorKind::BrokenPipe
    );
    b.write_all(b"ok").await.unwrap();
    let mut two = [0u8; 2];
    a.read_exact(&mut two).await.unwrap();
    assert_eq!(&two, b"ok");
}

#[rt::test]
async fn integers_read_big_endian_and_little_endian() {
    let (mut a, mut b) = duplex(64);
    a.write_all(&[0x01, 0x02, 0x03, 0x04, 0x01, 0x02, 0x03, 0x04])
        .await
        .unwrap();
    assert_eq!(b.read_u32().await.unwrap(), 0x0102_0304);
    assert_eq!(b.read_u32_le().await.unwrap(), 0x0403_0201);
    // Every writer has its reader.
    a.write_u8(250).await.unwrap();
    a.write_i16(-2).await.unwrap();
    a.write_u64_le(u64::MAX - 1).await.unwrap();
    a.write_i128(-3).await.unwrap();
    a.write_f64(1.5).await.unwrap();
    a.write_f32_le(-0.25).await.unwrap();
    assert_eq!(b.read_u8().await.unwrap(), 250);
    assert_eq!(b.read_i16().await.unwrap(), -2);
    assert_eq!(b.read_u64_le().await.unwrap(), u64::MAX - 1);
    assert_eq!(b.read_i128().await.unwrap(), -3);
    assert_eq!(b.read_f64().await.unwrap(), 1.5);
    assert_eq!(b.read_f32_le().await.unwrap(), -0.25);
    // Three bytes of a four-byte integer, then end of file.
    a.write_all(&[9, 9, 9]).await.unwrap();
    drop(a);
    assert_eq!(
        b.read_i32().await.unwrap_err().kind(),
        ErrorKind::UnexpectedEof
    );
}

#[rt::test]
async fn a_buf_writer_sends_nothing_until_flushed() {
    let (a, mut b) = duplex(64);
    let mut writer = BufWriter::new(a);
    writer.write_all(b"held").await.unwrap();
    let mut buf = [0u8; 4];
    assert!(
        b.read(&mut buf).now_or_never().is_none(),
        "bytes arrived before flush"
    );
    writer.flush().await.unwrap();
    b.read_exact(&mut buf).await.unwrap();
    assert_eq!(&buf, b"held");
}

#[rt::test]
async fn a_buf_stream_reads_lines_and_buffers_writes() {
    let (a, mut b) = duplex(64);
    let mut stream = BufStream::new(a);
    b.write_all(b"ping\n").await.unwrap();
    let mut line = String::new();
    stream.read_line(&mut line).await.unwrap();
    assert_eq!(line, "ping\n");
    stream.write_all(b"pong\n").await.unwrap();
    let mut buf = [0u8; 5];
    assert!(b.read(&mut buf).now_or_never().is_none());
    stream.flush().await.unwrap();
    b.read_exact(&mut buf).await.unwrap();
    assert_eq!(&buf, b"pong\n");
}

#[rt::test(flavor = "multi_thread", worker_threads = 2)]
async fn shutdown_makes_the_peer_read_zero_and_keeps_reading_open() {
    let (mut client, mut server) = tcp_pair().await;
    client.shutdown().await.unwrap();
    let mut buf = [0u8; 8];
    let n = timeout(PATIENCE, server.read(&mut buf))
        .await
        .expect("the peer did not see end of file")
        .unwrap();
    assert_eq!(n, 0);
    // Only the client's sending side is closed.
    server.write_all(b"still").await.unwrap();
    let mut five = [0u8; 5];
    client.read_exact(&mut five).await.unwrap();
    assert_eq!(&five, b"still");
}

#[rt::test]
async fn take_chain_and_copy_buf() {
    let first: &[u8] = b"hello ";
    let second: &[u8] = b"world, and more";
    let mut reader = first.chain(second).take(11);
    let mut out = String::new();
    reader.read_to_string(&mut out).await.unwrap();
    assert_eq!(out, "hello world");

    let source: &[u8] = b"through a buffer";
    let mut reader = BufReader::with_capacity(4, source);
    let mut sink = futures::io::Cursor::new(Vec::new());
    let n = rt::io::copy_buf(&mut reader, &mut sink).await.unwrap();
    assert_eq!(n, 16);
    assert_eq!(sink.into_inner(), b"through a buffer");
}

#[rt::test]
async fn empty_sink_and_repeat() {
    let mut got = Vec::new();
    assert_eq!(rt::io::empty().read_to_end(&mut got).await.unwrap(), 0);
    let mut sevens = rt::io::repeat(7).take(5);
    sevens.read_to_end(&mut got).await.unwrap();
    assert_eq!(got, [7; 5]);
    let mut many = rt::io::repeat(1).take(100_000);
    let n = rt::io::copy(&mut many, &mut rt::io::sink()).await.unwrap();
    assert_eq!(n, 100_000);
}

/// Set in the environment of the child process that
/// `stdin_and_stdout_run_on_the_blocking_pool` starts.
const CHILD: &str = "RT_IO_EXT_STDIO_CHILD";

#[test]
fn stdin_and_stdout_run_on_the_blocking_pool() {
    use std::io::Write;
    use std::process::{Command, Stdio};
    // This test binary runs itself with a pipe on stdin, and only the
    // child half (below) selected.
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "stdio_child", "--nocapture", "--test-threads=1"])
        .env(CHILD, "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(b"alpha\nbeta\n").unwrap();
    drop(stdin);
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success(), "child failed: {output:?}");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("<ALPHA>\n<BETA>\n"), "stdout: {stdout}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("2 lines"), "stderr: {stderr}");
}

/// The child half: upper-cases stdin's lines onto stdout, counts them on
/// stderr. Does nothing when run as an ordinary test.
#[rt::test]
async fn stdio_child() {
    if std::env::var_os(CHILD).is_none() {
        return;
    }
    let mut lines = BufReader::new(rt::io::stdin()).lines();
    let mut out = rt::io::stdout();
    let mut count = 0;
    while let Some(line) = lines.next_line().await.unwrap() {
        out.write_all(format!("<{}>\n", line.to_uppercase()).as_bytes())
            .await
            .unwrap();
        count += 1;
    }
    out.flush().await.unwrap();
    let mut err = rt::io::stderr();
    err.write_all(format!("{count} lines\n").as_bytes())
        .await
        .unwrap();
    err.flush().await.unwrap();
}

/// `read_buf` fills a `BytesMut`'s spare capacity and advances it, and
/// `write_all_buf` writes a `Buf` out and advances it to empty: the pair a
/// framed protocol (a length-prefixed frame here) is written with.
#[rt::test]
async fn read_buf_and_write_all_buf_move_frames_through_bytes() {
    use bytes::{Buf, BufMut, BytesMut};
    let (mut client, mut server) = tcp_pair().await;
    let writer = rt::spawn(async move {
        let mut out = BytesMut::new();
        for i in 0..100u32 {
            let body = vec![i as u8; (i as usize) * 37 % 1000];
            out.put_u32(body.len() as u32);
            out.put_slice(&body);
        }
        let total = out.len();
        client.write_all_buf(&mut out).await.unwrap();
        assert!(!out.has_remaining());
        client.shutdown().await.unwrap();
        total
    });
    let mut buf = BytesMut::with_capacity(64);
    let mut frames = Vec::new();
    loop {
        // Parse whole frames out of what has arrived.
        while buf.len() >= 4 {
            let len = u32::from_be_bytes(buf[..4].try_into().unwrap()) as usize;
            if buf.len() < 4 + len {
                break;
            }
            buf.advance(4);
            frames.push(buf.split_to(len));
        }
        buf.reserve(1024);
        let n = timeout(Duration::from_secs(10), server.read_buf(&mut buf))
            .await
            .unwrap()
            .unwrap();
        if n == 0 {
            break;
        }
    }
    let total = writer.await.unwrap();
    assert_eq!(frames.len(), 100);
    for (i, frame) in frames.iter().enumerate() {
        assert_eq!(frame.len(), i * 37 % 1000);
        assert!(frame.iter().all(|&b| b == i as u8));
    }
    assert_eq!(frames.iter().map(|f| 4 + f.len()).sum::<usize>(), total);
    assert!(buf.is_empty());
}

/// `write_buf` writes part of a buffer at most once and advances it by
/// exactly what was written; a buffer with no room makes `read_buf`
/// return 0 at once.
#[rt::test]
async fn write_buf_advances_by_what_was_written_and_a_full_read_buf_reads_nothing() {
    use bytes::Buf;
    let (mut a, mut b) = duplex(8);
    let mut data = std::io::Cursor::new(b"0123456789abcdef".to_vec());
    let n = a.write_buf(&mut data).await.unwrap();
    assert_eq!(n, 8, "the duplex holds 8 bytes");
    assert_eq!(data.remaining(), 8);
    let mut full: &mut [u8] = &mut [];
    assert_eq!(b.read_buf(&mut full).await.unwrap(), 0);
    let mut got = Vec::new();
    assert_eq!(b.read_buf(&mut got).await.unwrap(), 8);
    assert_eq!(got, b"01234567");
}
