//! `tokio::io`'s user-facing API: the extension traits, `BufReader`'s
//! `lines`, `BufWriter`, `copy`, `copy_bidirectional`, `split` and
//! `duplex`. Written against the names alone (`rt::io::…` is `tokio::io::…`
//! in the Tokio build), with no shim: that the same source compiles and
//! passes against both runtimes is the point.

use crate::behaviour::{limit, tcp_pair};
use crate::{rt, shim};
use futures::FutureExt;
use rt::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader, BufWriter};
use rt::net::TcpStream;
use std::future::Future;
use std::io::ErrorKind;
use std::pin::pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::{Context, Poll, Wake, Waker};
use std::time::Duration;

const PATIENCE: Duration = Duration::from_secs(10);

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

// ---------------------------------------------------------------------
// The documented edges of the extension traits, the buffered types, the
// copies and the in-memory pipes.

/// `read_to_end` and `read_to_string` append to what the buffer holds and
/// return the number of bytes they added (`read_to_string`'s errors are in
/// `regressions.rs`, section 15).
#[test]
fn read_to_end_and_read_to_string_append_and_count_only_new_bytes() {
    limit("read_to_end appends", || {
        shim::runtime().block_on(async {
            let mut out = b"head:".to_vec();
            let n = (&b"tail"[..]).read_to_end(&mut out).await.unwrap();
            assert_eq!(n, 4);
            assert_eq!(out, b"head:tail");

            let mut text = String::from("a");
            let n = (&b"bc"[..]).read_to_string(&mut text).await.unwrap();
            assert_eq!(n, 2);
            assert_eq!(text, "abc");
        });
    });
}

/// `read_line`: the bytes "up to, and including, the delimiter" are
/// appended, and "If this function returns `Ok(0)`, the stream has reached
/// EOF"; a last line without `\n` is returned as it is.
#[test]
fn read_line_keeps_the_newline_appends_and_returns_zero_at_eof() {
    limit("read_line", || {
        shim::runtime().block_on(async {
            let mut reader = BufReader::new(&b"one\r\ntwo\nend"[..]);
            let mut line = String::from(">");
            assert_eq!(reader.read_line(&mut line).await.unwrap(), 5);
            assert_eq!(line, ">one\r\n");
            line.clear();
            assert_eq!(reader.read_line(&mut line).await.unwrap(), 4);
            assert_eq!(line, "two\n");
            line.clear();
            assert_eq!(reader.read_line(&mut line).await.unwrap(), 3);
            assert_eq!(line, "end");
            line.clear();
            assert_eq!(reader.read_line(&mut line).await.unwrap(), 0);
            assert_eq!(line, "");
        });
    });
}

/// `read_until` keeps the delimiter; `split(b)`'s segments do not, and a
/// last segment without one is returned; `lines()` strips `\n` and `\r\n`
/// but keeps a lone `\r` inside a line; a line that is not UTF-8 is an
/// `InvalidData` error.
#[test]
fn read_until_split_and_lines_treat_delimiters_as_documented() {
    limit("delimiters", || {
        shim::runtime().block_on(async {
            let mut reader = BufReader::new(&b"a,b,"[..]);
            let mut buf = Vec::new();
            assert_eq!(reader.read_until(b',', &mut buf).await.unwrap(), 2);
            assert_eq!(buf, b"a,");

            let mut segments = BufReader::new(&b"x,,yz"[..]).split(b',');
            assert_eq!(segments.next_segment().await.unwrap(), Some(b"x".to_vec()));
            assert_eq!(segments.next_segment().await.unwrap(), Some(Vec::new()));
            assert_eq!(segments.next_segment().await.unwrap(), Some(b"yz".to_vec()));
            assert_eq!(segments.next_segment().await.unwrap(), None);

            let mut lines = BufReader::new(&b"a\rb\r\nc\n\n"[..]).lines();
            assert_eq!(lines.next_line().await.unwrap().as_deref(), Some("a\rb"));
            assert_eq!(lines.next_line().await.unwrap().as_deref(), Some("c"));
            assert_eq!(lines.next_line().await.unwrap().as_deref(), Some(""));
            assert_eq!(lines.next_line().await.unwrap(), None);

            let mut bad = BufReader::new(&b"\xff\n"[..]).lines();
            let err = bad.next_line().await.unwrap_err();
            assert_eq!(err.kind(), ErrorKind::InvalidData);
        });
    });
}

/// `write_all` on a writer that accepts zero bytes fails with `WriteZero`
/// instead of looping; an empty `write_all` succeeds without writing.
#[test]
fn write_all_to_a_writer_that_takes_nothing_is_write_zero() {
    limit("write zero", || {
        shim::runtime().block_on(async {
            let mut writer = shim::ZeroWriter;
            let err = writer.write_all(b"data").await.unwrap_err();
            assert_eq!(err.kind(), ErrorKind::WriteZero);
            writer.write_all(b"").await.unwrap();
        });
    });
}

/// `read` into an empty buffer returns 0 at once, even on a pipe with
/// nothing to read (it does not wait).
#[test]
fn read_into_an_empty_buffer_returns_zero_at_once() {
    limit("empty read", || {
        shim::runtime().block_on(async {
            let (_a, mut b) = rt::io::duplex(8);
            let mut nothing = [0u8; 0];
            let n = b.read(&mut nothing).now_or_never();
            assert!(matches!(n, Some(Ok(0))));
        });
    });
}

/// `BufWriter::shutdown` flushes what it holds before shutting the inner
/// writer down: the reader gets every byte, then end of file.
#[test]
fn a_buf_writer_shutdown_flushes_then_closes() {
    limit("BufWriter shutdown", || {
        shim::runtime().block_on(async {
            let (a, mut b) = rt::io::duplex(64);
            let mut writer = BufWriter::new(a);
            writer.write_all(b"buffered").await.unwrap();
            writer.shutdown().await.unwrap();
            let mut got = Vec::new();
            rt::time::timeout(PATIENCE, b.read_to_end(&mut got))
                .await
                .unwrap()
                .unwrap();
            assert_eq!(got, b"buffered");
        });
    });
}

/// A `BufWriter` passes a write larger than its buffer straight through
/// when its buffer is empty; a small one waits in the buffer.
#[test]
fn a_buf_writer_with_capacity_holds_small_writes_and_passes_large_ones() {
    limit("BufWriter capacity", || {
        shim::runtime().block_on(async {
            let (a, mut b) = rt::io::duplex(64);
            let mut writer = BufWriter::with_capacity(4, a);
            writer.write_all(b"0123456789").await.unwrap();
            let mut ten = [0u8; 10];
            rt::time::timeout(PATIENCE, b.read_exact(&mut ten))
                .await
                .unwrap()
                .unwrap();
            assert_eq!(&ten, b"0123456789");
            writer.write_all(b"ab").await.unwrap();
            assert_eq!(writer.buffer(), b"ab");
            let mut two = [0u8; 2];
            assert!(b.read(&mut two).now_or_never().is_none());
        });
    });
}

/// `copy` returns the number of bytes copied, and the writer has them on
/// return: it flushes a `BufWriter` at the end of the reader.
#[test]
fn copy_returns_the_count_and_flushes_the_writer() {
    limit("copy flushes", || {
        shim::runtime().block_on(async {
            let (a, mut b) = rt::io::duplex(1024);
            let mut writer = BufWriter::new(a);
            let mut source = &b"hello, copy"[..];
            let n = rt::io::copy(&mut source, &mut writer).await.unwrap();
            assert_eq!(n, 11);
            let mut got = [0u8; 11];
            let read = b.read_exact(&mut got).now_or_never();
            assert!(
                matches!(read, Some(Ok(_))),
                "copy returned before the writer was flushed"
            );
            assert_eq!(&got, b"hello, copy");

            let (c, mut d) = rt::io::duplex(1024);
            let mut writer = BufWriter::new(c);
            let mut source = BufReader::new(&b"by copy_buf"[..]);
            let n = rt::io::copy_buf(&mut source, &mut writer).await.unwrap();
            assert_eq!(n, 11);
            let mut got = [0u8; 11];
            assert!(matches!(d.read_exact(&mut got).now_or_never(), Some(Ok(_))));
            assert_eq!(&got, b"by copy_buf");
        });
    });
}

/// `take(n)` yields at most n bytes then end of file, and its limit counts
/// down; `chain` reads the first reader to its end, then the second.
#[test]
fn take_limits_and_chain_concatenates() {
    limit("take and chain", || {
        shim::runtime().block_on(async {
            let mut taken = (&b"abcdef"[..]).take(4);
            let mut two = [0u8; 2];
            taken.read_exact(&mut two).await.unwrap();
            assert_eq!(taken.limit(), 2);
            let mut rest = Vec::new();
            assert_eq!(taken.read_to_end(&mut rest).await.unwrap(), 2);
            assert_eq!(rest, b"cd");
            assert_eq!(taken.read(&mut two).await.unwrap(), 0);
            taken.set_limit(10);
            rest.clear();
            taken.read_to_end(&mut rest).await.unwrap();
            assert_eq!(rest, b"ef");

            let mut both = (&b"ab"[..]).chain(&b"cd"[..]);
            let mut all = String::new();
            both.read_to_string(&mut all).await.unwrap();
            assert_eq!(all, "abcd");
        });
    });
}

/// The integer readers and writers round-trip every width, big-endian
/// unless `_le`, and a short stream is `UnexpectedEof`.
#[test]
fn integers_round_trip_in_both_byte_orders() {
    limit("integers", || {
        shim::runtime().block_on(async {
            let mut out = Vec::new();
            out.write_u8(1).await.unwrap();
            out.write_i16(-2).await.unwrap();
            out.write_u32(0x0102_0304).await.unwrap();
            out.write_u32_le(0x0102_0304).await.unwrap();
            out.write_i64_le(-3).await.unwrap();
            out.write_f64(1.5).await.unwrap();
            out.write_u128(u128::MAX - 1).await.unwrap();
            assert_eq!(&out[3..7], &[1, 2, 3, 4]);
            assert_eq!(&out[7..11], &[4, 3, 2, 1]);
            let mut input = &out[..];
            assert_eq!(input.read_u8().await.unwrap(), 1);
            assert_eq!(input.read_i16().await.unwrap(), -2);
            assert_eq!(input.read_u32().await.unwrap(), 0x0102_0304);
            assert_eq!(input.read_u32_le().await.unwrap(), 0x0102_0304);
            assert_eq!(input.read_i64_le().await.unwrap(), -3);
            assert_eq!(input.read_f64().await.unwrap(), 1.5);
            assert_eq!(input.read_u128().await.unwrap(), u128::MAX - 1);
            let err = input.read_u8().await.unwrap_err();
            assert_eq!(err.kind(), ErrorKind::UnexpectedEof);
        });
    });
}

/// `split` gives a read half and a write half of one stream that work
/// from two tasks at once; `unsplit` of a matching pair gives the stream
/// back, and `is_pair_of` tells the halves of one stream.
#[test]
fn split_halves_work_apart_and_unsplit_back() {
    limit("split", || {
        shim::runtime().block_on(async {
            let (a, mut b) = rt::io::duplex(64);
            let (mut read_half, mut write_half) = rt::io::split(a);
            assert!(read_half.is_pair_of(&write_half));
            let writer = rt::spawn(async move {
                write_half.write_all(b"ping").await.unwrap();
                write_half
            });
            let mut four = [0u8; 4];
            b.read_exact(&mut four).await.unwrap();
            assert_eq!(&four, b"ping");
            b.write_all(b"pong").await.unwrap();
            read_half.read_exact(&mut four).await.unwrap();
            assert_eq!(&four, b"pong");
            let write_half = writer.await.unwrap();
            let mut whole = read_half.unsplit(write_half);
            whole.write_all(b"!").await.unwrap();
            let mut one = [0u8; 1];
            b.read_exact(&mut one).await.unwrap();
            assert_eq!(&one, b"!");
        });
    });
}

/// A duplex end shut down with `shutdown`: the peer reads what was sent,
/// then end of file, and the peer can still write back to it.
#[test]
fn a_duplex_shutdown_gives_the_peer_eof_but_keeps_the_other_direction() {
    limit("duplex shutdown", || {
        shim::runtime().block_on(async {
            let (mut a, mut b) = rt::io::duplex(64);
            a.write_all(b"last").await.unwrap();
            a.shutdown().await.unwrap();
            let mut got = Vec::new();
            rt::time::timeout(PATIENCE, b.read_to_end(&mut got))
                .await
                .unwrap()
                .unwrap();
            assert_eq!(got, b"last");
            b.write_all(b"reply").await.unwrap();
            let mut reply = [0u8; 5];
            a.read_exact(&mut reply).await.unwrap();
            assert_eq!(&reply, b"reply");
        });
    });
}

/// A duplex writer blocked on a full buffer is woken with `BrokenPipe`
/// when the reading end is dropped, instead of waiting for ever.
#[test]
fn a_writer_waiting_on_a_full_duplex_fails_when_the_reader_goes() {
    limit("duplex blocked writer", || {
        shim::runtime().block_on(async {
            let (mut a, b) = rt::io::duplex(4);
            let writer = rt::spawn(async move { a.write_all(b"more than four").await });
            rt::time::sleep(Duration::from_millis(10)).await;
            assert!(!writer.is_finished(), "the write did not wait for room");
            drop(b);
            let err = rt::time::timeout(PATIENCE, writer)
                .await
                .expect("the blocked writer was not woken")
                .unwrap()
                .unwrap_err();
            assert_eq!(err.kind(), ErrorKind::BrokenPipe);
        });
    });
}

/// `BufStream` buffers both ways: lines are read through its reader, and
/// writes wait in its writer until `flush`.
#[test]
fn a_buf_stream_reads_lines_and_holds_writes_until_flush() {
    limit("BufStream", || {
        shim::runtime().block_on(async {
            let (a, mut b) = rt::io::duplex(64);
            let mut stream = rt::io::BufStream::new(a);
            b.write_all(b"hello\n").await.unwrap();
            let mut line = String::new();
            stream.read_line(&mut line).await.unwrap();
            assert_eq!(line, "hello\n");
            stream.write_all(b"back").await.unwrap();
            let mut four = [0u8; 4];
            assert!(b.read(&mut four).now_or_never().is_none());
            stream.flush().await.unwrap();
            b.read_exact(&mut four).await.unwrap();
            assert_eq!(&four, b"back");
        });
    });
}

/// `fill_buf` shows buffered bytes without consuming them; `consume(n)`
/// marks n used; at end of file `fill_buf` is empty.
#[test]
fn fill_buf_and_consume_walk_a_buffered_reader() {
    limit("fill_buf", || {
        shim::runtime().block_on(async {
            let mut reader = BufReader::with_capacity(4, &b"abcdef"[..]);
            assert_eq!(reader.fill_buf().await.unwrap(), b"abcd");
            assert_eq!(reader.fill_buf().await.unwrap(), b"abcd");
            reader.consume(3);
            assert_eq!(reader.fill_buf().await.unwrap(), b"d");
            reader.consume(1);
            assert_eq!(reader.fill_buf().await.unwrap(), b"ef");
            reader.consume(2);
            assert!(reader.fill_buf().await.unwrap().is_empty());
        });
    });
}

/// `read_buf` appends to a `Vec` and returns the count, 0 at end of file;
/// `read_exact` of nothing succeeds even at end of file.
#[test]
fn read_buf_appends_and_read_exact_of_nothing_succeeds() {
    limit("read_buf", || {
        shim::runtime().block_on(async {
            let mut reader = &b"xyz"[..];
            let mut out = Vec::with_capacity(16);
            out.push(b'>');
            let n = reader.read_buf(&mut out).await.unwrap();
            assert_eq!(n, 3);
            assert_eq!(out, b">xyz");
            assert_eq!(reader.read_buf(&mut out).await.unwrap(), 0);
            let mut nothing = [0u8; 0];
            assert_eq!(reader.read_exact(&mut nothing).await.unwrap(), 0);
        });
    });
}

/// `write_all_buf` advances the buffer past what was written, and on a
/// writer that takes nothing fails with `WriteZero`.
#[test]
fn write_all_buf_advances_and_fails_with_write_zero() {
    limit("write_all_buf", || {
        shim::runtime().block_on(async {
            let mut out = Vec::new();
            let mut src = std::io::Cursor::new(b"abc".to_vec());
            out.write_all_buf(&mut src).await.unwrap();
            assert_eq!(out, b"abc");
            assert_eq!(src.position(), 3);
            let mut src = std::io::Cursor::new(b"abc".to_vec());
            let err = shim::ZeroWriter.write_all_buf(&mut src).await.unwrap_err();
            assert_eq!(err.kind(), ErrorKind::WriteZero);
        });
    });
}

/// `Lines` and `Split` give their reader back with `into_inner`, and a
/// `BufReader`'s `buffer` shows what it read ahead.
#[test]
fn lines_give_the_reader_back_with_what_it_read_ahead() {
    limit("lines into_inner", || {
        shim::runtime().block_on(async {
            let mut lines = BufReader::new(&b"one\ntwo\n"[..]).lines();
            assert_eq!(lines.next_line().await.unwrap().as_deref(), Some("one"));
            let reader = lines.into_inner();
            assert_eq!(reader.buffer(), b"two\n");
            let mut rest = String::new();
            let mut reader = reader;
            reader.read_to_string(&mut rest).await.unwrap();
            assert_eq!(rest, "two\n");
        });
    });
}

/// `copy` of an empty reader returns 0; from a pipe whose writer is gone
/// it copies what was left and returns at the end of file.
#[test]
fn copy_of_nothing_is_zero_and_copy_ends_at_the_peers_end_of_file() {
    limit("copy errors", || {
        shim::runtime().block_on(async {
            let mut out = Vec::new();
            assert_eq!(
                rt::io::copy(&mut rt::io::empty(), &mut out).await.unwrap(),
                0
            );
            let (mut a, mut b) = rt::io::duplex(64);
            a.write_all(b"part").await.unwrap();
            drop(a);
            // A reader whose peer is gone gives the bytes, then end of file.
            let n = rt::io::copy(&mut b, &mut out).await.unwrap();
            assert_eq!(n, 4);
            assert_eq!(out, b"part");
        });
    });
}

/// `AsyncSeekExt` through a `BufReader`: after a short read the reader
/// has read ahead, but `stream_position` is the logical position (what
/// the caller consumed), and `seek` lands where it is asked, the buffer
/// discarded.
#[test]
fn a_buf_readers_position_is_what_the_caller_consumed() {
    limit("BufReader seek", || {
        let dir = super::SocketDir::new("bufreader-seek");
        let path = dir.join("data");
        std::fs::write(&path, b"0123456789").unwrap();
        shim::runtime().block_on(async move {
            use rt::io::AsyncSeekExt;
            let file = rt::fs::File::open(&path).await.unwrap();
            let mut reader = BufReader::new(file);
            let mut three = [0u8; 3];
            reader.read_exact(&mut three).await.unwrap();
            assert_eq!(&three, b"012");
            assert_eq!(reader.stream_position().await.unwrap(), 3);
            assert_eq!(reader.seek(rt::io::SeekFrom::Start(7)).await.unwrap(), 7);
            let mut rest = String::new();
            reader.read_to_string(&mut rest).await.unwrap();
            assert_eq!(rest, "789");
            reader.rewind().await.unwrap();
            reader.read_exact(&mut three).await.unwrap();
            assert_eq!(&three, b"012");
        });
    });
}
