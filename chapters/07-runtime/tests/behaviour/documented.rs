//! Documented edges of the newest layers that the other files leave out,
//! sixty tests (the seven differences from Tokio they found are fixed: a
//! `BufReader` or `BufStream` of no capacity, a pipe of no room panicking
//! in the pipe's file, `write_buf` of a buffer in pieces, `BufStream`
//! seeking, `EnterGuard`'s `Debug`, and task ids unique per runtime only).
//!
//! * `io`: how the copies end (`WriteZero`, the reader's error, the first
//!   error of either direction) and that `copy` flushes while its reader
//!   waits; the devices `empty`, `sink` and `repeat`; the pipes after
//!   `shutdown` (`duplex`, `SimplexStream::new_unsplit`) and with one byte
//!   of room; `split` halves apart and of two streams; `BufReader`,
//!   `BufWriter` and `BufStream`: what `into_inner` and drop lose, seeking
//!   (from the consumed position, writing the buffer out first), order,
//!   the other direction passed through, and no capacity refused;
//!   `read_buf`/`write_buf` with no room, nothing to write, or a buffer in
//!   pieces; `take` and `chain` as buffered readers; the delimiter readers
//!   at end of file and cancelled; a TCP write after `shutdown`; misuse
//!   panics at the caller's line.
//! * `time`, under a paused clock: `Interval::reset_at`, `tick` in a
//!   `select!`, late first ticks, the 5 ms rule for missed ticks, `advance`
//!   (it yields; a timer fires at its deadline, not a nanosecond before),
//!   `timeout`/`timeout_at` with a ready future, a past deadline or a tie,
//!   `Elapsed`, `Sleep::reset` before the first poll and to later,
//!   `sleep_until`, `Instant` arithmetic, `start_paused` under `enter`;
//!   the timing wheel (far timers, timers cancelled or moved, a thousand
//!   short sleeps), the budget, timers moved between tasks, a detached
//!   blocking job, `Handle::block_on` on another thread.
//! * `task`: `AbortHandle` (also of a detached task, from another
//!   thread), a task that aborts itself, `JoinError::into_panic` and
//!   `try_into_panic`, blocking jobs (their id, aborted before they start),
//!   `yield_now`'s order, a `JoinHandle` moved between tasks, ids unique
//!   across runtimes, `block_in_place`.
//! * `runtime`: a panic in `block_on`, `Handle::current` and `pause`
//!   outside a runtime, the blocking pool without `block_on` and its
//!   bound, `Handle::block_on` beside a driving thread, across a drop and
//!   after it, a current-thread runtime moved to another thread, a spawn
//!   during shutdown, a runtime inside a blocking job, timers and handles
//!   across runtimes, auto traits and `Debug`, the test attribute's
//!   flavours.
//!
//! Written from Tokio's documentation; every test passes on Tokio 1.54.

use crate::behaviour::{assert_points_here, expect_panic, limit, paused_runtime, tcp_pair};
use crate::{rt, shim};
use futures::FutureExt;
use rt::io::{AsyncBufReadExt, AsyncReadExt, AsyncSeekExt, AsyncWriteExt, BufReader, BufWriter};
use std::io::{ErrorKind, SeekFrom};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// How long a step that should be quick may take before the test fails.
const PATIENCE: Duration = Duration::from_secs(10);

/// Sets its flag when dropped.
struct DropFlag(Arc<AtomicBool>);

impl Drop for DropFlag {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

fn millis(list: &[u64]) -> Vec<Duration> {
    list.iter().copied().map(Duration::from_millis).collect()
}

// ---------------------------------------------------------------------
// io: the copies.

/// `copy` and `copy_buf`: a writer that accepts zero bytes of a non-empty
/// buffer ends the copy with `WriteZero` ("write zero byte into writer")
/// instead of spinning; `copy_bidirectional`: an error on either side
/// ends the whole copy with that error (here a write into a pipe whose
/// reader is gone).
#[test]
fn copies_end_with_write_zero_or_their_first_error() {
    limit("copy errors", || {
        shim::runtime().block_on(async {
            let mut reader = &b"data"[..];
            let err = rt::io::copy(&mut reader, &mut shim::ZeroWriter)
                .await
                .unwrap_err();
            assert_eq!(err.kind(), ErrorKind::WriteZero);
            let mut reader = BufReader::new(&b"data"[..]);
            let err = rt::io::copy_buf(&mut reader, &mut shim::ZeroWriter)
                .await
                .unwrap_err();
            assert_eq!(err.kind(), ErrorKind::WriteZero);

            let (mut a, mut a_peer) = rt::io::duplex(64);
            let (mut b, b_peer) = rt::io::duplex(64);
            a_peer.write_all(b"data").await.unwrap();
            drop(b_peer);
            let err = rt::time::timeout(PATIENCE, rt::io::copy_bidirectional(&mut a, &mut b))
                .await
                .expect("the copy did not end")
                .unwrap_err();
            assert_eq!(err.kind(), ErrorKind::BrokenPipe);
        });
    });
}

/// `copy`: "an error other than `Interrupted`" from the reader ends the
/// copy with that error: here a TCP peer that resets the connection.
#[test]
fn copy_ends_with_the_readers_error() {
    limit("copy read error", || {
        shim::runtime().block_on(async {
            let listener = rt::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            let mut peer = std::net::TcpStream::connect(listener.local_addr().unwrap()).unwrap();
            let (mut server, _) = listener.accept().await.unwrap();
            std::io::Write::write_all(&mut peer, b"abc").unwrap();
            crate::behaviour::set_linger_zero(&peer);
            drop(peer);
            let mut out = Vec::new();
            let err = rt::time::timeout(PATIENCE, rt::io::copy(&mut server, &mut out))
                .await
                .expect("the copy did not end")
                .unwrap_err();
            assert_eq!(err.kind(), ErrorKind::ConnectionReset, "{err:?}");
        });
    });
}

/// `copy` flushes its writer whenever the reader has nothing for the
/// moment, so a buffered writer does not sit on bytes the far end waits
/// for while the source stays open.
#[test]
fn copy_flushes_the_writer_while_the_reader_waits() {
    limit("copy flush on pending", || {
        shim::runtime().block_on(async {
            let (mut source, mut source_end) = rt::io::duplex(64);
            let (sink_end, mut far) = rt::io::duplex(64);
            let copier = rt::spawn(async move {
                let mut writer = BufWriter::new(sink_end);
                rt::io::copy(&mut source_end, &mut writer).await
            });
            source.write_all(b"first").await.unwrap();
            let mut got = [0u8; 5];
            rt::time::timeout(PATIENCE, far.read_exact(&mut got))
                .await
                .expect("copy held the bytes in its writer's buffer")
                .unwrap();
            assert_eq!(&got, b"first");
            drop(source);
            assert_eq!(copier.await.unwrap().unwrap(), 5);
        });
    });
}

// ---------------------------------------------------------------------
// io: the devices.

/// `repeat(byte)` fills every buffer it is given with `byte` (with
/// `take(n)` it ends after n bytes); `sink()` takes every byte of every
/// write, before and after `shutdown`, and its `flush` and `shutdown`
/// succeed; a read into an empty buffer is 0.
#[test]
fn repeat_fills_every_buffer_and_sink_takes_every_write() {
    limit("repeat and sink", || {
        shim::runtime().block_on(async {
            let mut source = rt::io::repeat(0xAB);
            let mut seven = [0u8; 7];
            assert_eq!(source.read(&mut seven).await.unwrap(), 7);
            assert_eq!(seven, [0xAB; 7]);
            assert_eq!(source.read(&mut []).await.unwrap(), 0);
            let mut limited = rt::io::repeat(1).take(5);
            let mut all = Vec::new();
            assert_eq!(limited.read_to_end(&mut all).await.unwrap(), 5);
            assert_eq!(all, [1; 5]);

            let mut sink = rt::io::sink();
            assert_eq!(sink.write(b"abc").await.unwrap(), 3);
            sink.write_all(&[9; 10_000]).await.unwrap();
            sink.flush().await.unwrap();
            sink.shutdown().await.unwrap();
            assert_eq!(sink.write(b"late").await.unwrap(), 4);
            let mut source = &b"12345"[..];
            let n = rt::io::copy(&mut source, &mut rt::io::sink())
                .await
                .unwrap();
            assert_eq!(n, 5);
        });
    });
}

/// `empty()` is at end of file for every reading method: `read` and
/// `read_to_end` give 0, `read_line` gives 0 and leaves the string,
/// `fill_buf` is empty, `lines()` has no line, and `read_u8` is
/// `UnexpectedEof`.
#[test]
fn empty_is_at_end_of_file_for_every_read_method() {
    limit("empty reads", || {
        shim::runtime().block_on(async {
            let mut empty = rt::io::empty();
            assert_eq!(empty.read(&mut [0u8; 4]).await.unwrap(), 0);
            let mut all = b"kept".to_vec();
            assert_eq!(empty.read_to_end(&mut all).await.unwrap(), 0);
            assert_eq!(all, b"kept");
            let mut line = String::from("kept");
            assert_eq!(empty.read_line(&mut line).await.unwrap(), 0);
            assert_eq!(line, "kept");
            assert!(empty.fill_buf().await.unwrap().is_empty());
            let err = empty.read_u8().await.unwrap_err();
            assert_eq!(err.kind(), ErrorKind::UnexpectedEof);
            let mut lines = rt::io::empty().lines();
            assert_eq!(lines.next_line().await.unwrap(), None);
        });
    });
}

// ---------------------------------------------------------------------
// io: the in-memory pipes.

/// A duplex read returns what is queued, not a full buffer, and a write
/// takes what fits in the room left; an end that called `shutdown`
/// refuses later writes with `BrokenPipe`, a peer already waiting to read
/// is woken with end of file, and the other direction still works.
#[test]
fn duplex_reads_what_is_queued_and_refuses_writes_after_shutdown() {
    limit("duplex", || {
        shim::runtime().block_on(async {
            let (mut a, mut b) = rt::io::duplex(4);
            assert_eq!(a.write(b"abcdef").await.unwrap(), 4);
            let mut ten = [0u8; 10];
            assert_eq!(b.read(&mut ten).await.unwrap(), 4);
            assert_eq!(&ten[..4], b"abcd");
            assert_eq!(a.write(b"xy").await.unwrap(), 2);
            assert_eq!(a.write(b"1234").await.unwrap(), 2);
            let mut one = [0u8; 1];
            assert_eq!(b.read(&mut one).await.unwrap(), 1);
            assert_eq!(&one, b"x");
            assert_eq!(b.read(&mut ten).await.unwrap(), 3);
            assert_eq!(&ten[..3], b"y12");

            let reader = rt::spawn(async move {
                let mut buf = [0u8; 8];
                let n = b.read(&mut buf).await.unwrap();
                (n, b)
            });
            rt::time::sleep(Duration::from_millis(10)).await;
            a.shutdown().await.unwrap();
            let (n, mut b) = rt::time::timeout(PATIENCE, reader)
                .await
                .expect("the waiting reader was not woken")
                .unwrap();
            assert_eq!(n, 0);
            let err = a.write(b"x").await.unwrap_err();
            assert_eq!(err.kind(), ErrorKind::BrokenPipe);
            b.write_all(b"ok").await.unwrap();
            let mut two = [0u8; 2];
            a.read_exact(&mut two).await.unwrap();
            assert_eq!(&two, b"ok");
        });
    });
}

/// `SimplexStream::new_unsplit`: one object that reads back what it
/// wrote, at most `max_buf_size` at a time; after `shutdown` it reads what
/// is left, then end of file, and refuses writes with `BrokenPipe`.
#[test]
fn an_unsplit_simplex_reads_back_its_writes_then_ends_after_shutdown() {
    limit("SimplexStream::new_unsplit", || {
        shim::runtime().block_on(async {
            let mut pipe = rt::io::SimplexStream::new_unsplit(8);
            pipe.write_all(b"loop").await.unwrap();
            let mut four = [0u8; 4];
            pipe.read_exact(&mut four).await.unwrap();
            assert_eq!(&four, b"loop");
            assert_eq!(pipe.write(b"0123456789").await.unwrap(), 8);
            pipe.shutdown().await.unwrap();
            let mut rest = Vec::new();
            pipe.read_to_end(&mut rest).await.unwrap();
            assert_eq!(rest, b"01234567");
            let err = pipe.write(b"x").await.unwrap_err();
            assert_eq!(err.kind(), ErrorKind::BrokenPipe);
        });
    });
}

/// The halves of `io::split` work apart: a write through the write half
/// goes through while the read half waits in another task. Halves of two
/// different `split` calls are not a pair (`is_pair_of` says so both
/// ways), and `unsplit` of such halves panics.
#[test]
fn split_halves_work_apart_and_unsplit_only_their_pair() {
    limit("split halves", || {
        shim::runtime().block_on(async {
            let (near, mut far) = rt::io::duplex(64);
            let (mut read_half, mut write_half) = rt::io::split(near);
            let reader = rt::spawn(async move {
                let mut buf = [0u8; 5];
                read_half.read_exact(&mut buf).await.unwrap();
                buf
            });
            rt::time::sleep(Duration::from_millis(10)).await;
            rt::time::timeout(PATIENCE, write_half.write_all(b"first"))
                .await
                .expect("the write waited for the read half")
                .unwrap();
            let mut got = [0u8; 5];
            far.read_exact(&mut got).await.unwrap();
            assert_eq!(&got, b"first");
            far.write_all(b"reply").await.unwrap();
            let read = rt::time::timeout(PATIENCE, reader)
                .await
                .expect("the read half was not woken")
                .unwrap();
            assert_eq!(&read, b"reply");

            let (one, _one_peer) = rt::io::duplex(8);
            let (two, _two_peer) = rt::io::duplex(8);
            let (read_one, write_one) = rt::io::split(one);
            let (_read_two, write_two) = rt::io::split(two);
            assert!(read_one.is_pair_of(&write_one));
            assert!(write_one.is_pair_of(&read_one));
            assert!(!read_one.is_pair_of(&write_two));
            assert!(!write_two.is_pair_of(&read_one));
            expect_panic("unsplit of two streams' halves", move || {
                read_one.unsplit(write_two)
            });
        });
    });
}

/// The integer writers and readers work through a pipe that holds one
/// byte at a time: each is written and read across many polls.
#[test]
fn integers_cross_a_one_byte_pipe_whole() {
    limit("integers through duplex(1)", || {
        shim::runtime().block_on(async {
            let (mut a, mut b) = rt::io::duplex(1);
            let writer = rt::spawn(async move {
                a.write_u64(0x0102_0304_0506_0708).await.unwrap();
                a.write_i32_le(-2).await.unwrap();
                a.write_f32(0.5).await.unwrap();
                a
            });
            assert_eq!(b.read_u64().await.unwrap(), 0x0102_0304_0506_0708);
            assert_eq!(b.read_i32_le().await.unwrap(), -2);
            assert_eq!(b.read_f32().await.unwrap(), 0.5);
            drop(writer.await.unwrap());
            let err = b.read_u16().await.unwrap_err();
            assert_eq!(err.kind(), ErrorKind::UnexpectedEof);
        });
    });
}

// ---------------------------------------------------------------------
// io: BufReader, BufWriter, BufStream.

/// A `BufReader` around a stream that also writes passes writes straight
/// through (they are not buffered); `BufReader::into_inner`: "any
/// leftover data in the internal buffer is lost", the reader comes back
/// past what was read ahead.
#[test]
fn a_buf_reader_passes_writes_through_and_into_inner_drops_its_read_ahead() {
    limit("BufReader", || {
        shim::runtime().block_on(async {
            let (a, mut a_peer) = rt::io::duplex(64);
            let mut reader = BufReader::new(a);
            reader.write_all(b"through").await.unwrap();
            let mut got = [0u8; 7];
            let read = a_peer.read_exact(&mut got).now_or_never();
            assert!(matches!(read, Some(Ok(_))), "BufReader held a write back");
            assert_eq!(&got, b"through");

            let mut reader = BufReader::with_capacity(4, &b"abcdef"[..]);
            let mut one = [0u8; 1];
            reader.read_exact(&mut one).await.unwrap();
            assert_eq!(&one, b"a");
            assert_eq!(reader.buffer(), b"bcd");
            let inner: &[u8] = reader.into_inner();
            assert_eq!(inner, b"ef");
        });
    });
}

/// `BufReader` as `AsyncSeek`: "Seeking always discards the internal
/// buffer", and `SeekFrom::Current` counts from where the reader would be
/// without its buffer (what the caller consumed); right after a seek,
/// `into_inner` gives the file at the same position.
#[test]
fn a_buf_reader_seeks_from_the_logical_position_and_discards_its_buffer() {
    limit("BufReader seek Current", || {
        let dir = crate::behaviour::SocketDir::new("documented-bufreader-seek");
        let path = dir.join("digits");
        std::fs::write(&path, b"0123456789").unwrap();
        shim::runtime().block_on(async move {
            let file = rt::fs::File::open(&path).await.unwrap();
            let mut reader = BufReader::with_capacity(4, file);
            let mut one = [0u8; 1];
            reader.read_exact(&mut one).await.unwrap();
            assert_eq!(&one, b"0");
            assert_eq!(reader.buffer(), b"123");
            assert_eq!(reader.seek(SeekFrom::Current(2)).await.unwrap(), 3);
            assert!(reader.buffer().is_empty());
            reader.read_exact(&mut one).await.unwrap();
            assert_eq!(&one, b"3");
            assert_eq!(reader.seek(SeekFrom::End(-2)).await.unwrap(), 8);
            let mut file = reader.into_inner();
            assert_eq!(file.stream_position().await.unwrap(), 8);
            let mut rest = String::new();
            file.read_to_string(&mut rest).await.unwrap();
            assert_eq!(rest, "89");
        });
    });
}

/// A `BufWriter` keeps the order of the bytes: a write too large for its
/// buffer, after a small one still buffered, first pushes the buffered
/// bytes out, and the writer underneath sees only what was flushed. Bytes
/// still in its buffer are lost by `into_inner` ("any leftover data in the
/// internal buffer is lost") and by drop ("the contents of its buffer
/// will be discarded"). Around a stream that also reads, it passes reads
/// through.
#[test]
fn a_buf_writer_keeps_the_order_and_loses_what_it_never_flushed() {
    limit("BufWriter", || {
        shim::runtime().block_on(async {
            let mut writer = BufWriter::with_capacity(4, Vec::new());
            writer.write_all(b"ab").await.unwrap();
            assert!(writer.get_ref().is_empty());
            writer.write_all(b"cdefgh").await.unwrap();
            assert_eq!(writer.get_ref(), b"abcdefgh");
            assert!(writer.buffer().is_empty());
            writer.write_all(b"ij").await.unwrap();
            assert_eq!(writer.buffer(), b"ij");
            assert_eq!(writer.get_ref(), b"abcdefgh");
            writer.flush().await.unwrap();
            assert_eq!(writer.get_ref(), b"abcdefghij");
            assert!(writer.buffer().is_empty());

            let mut target = Vec::new();
            {
                let mut writer = BufWriter::new(&mut target);
                writer.write_all(b"dropped").await.unwrap();
            }
            assert!(target.is_empty(), "drop flushed {target:?}");
            let mut writer = BufWriter::new(Vec::new());
            writer.write_all(b"held").await.unwrap();
            assert_eq!(writer.buffer(), b"held");
            let inner = writer.into_inner();
            assert!(inner.is_empty(), "into_inner flushed {inner:?}");

            let (b, mut b_peer) = rt::io::duplex(64);
            let mut writer = BufWriter::new(b);
            b_peer.write_all(b"back").await.unwrap();
            let mut four = [0u8; 4];
            writer.read_exact(&mut four).await.unwrap();
            assert_eq!(&four, b"back");
        });
    });
}

/// `BufWriter` as `AsyncSeek`: "Seeking always writes out the internal
/// buffer before seeking": bytes written before the seek land where the
/// file was, and the next write lands at the new position.
#[test]
fn a_buf_writer_writes_its_buffer_out_before_seeking() {
    limit("BufWriter seek", || {
        let dir = crate::behaviour::SocketDir::new("documented-bufwriter-seek");
        let path = dir.join("file");
        shim::runtime().block_on(async move {
            let file = rt::fs::File::create(&path).await.unwrap();
            let mut writer = BufWriter::new(file);
            writer.write_all(b"abc").await.unwrap();
            assert_eq!(writer.seek(SeekFrom::Start(1)).await.unwrap(), 1);
            assert!(writer.buffer().is_empty());
            writer.write_all(b"Z").await.unwrap();
            writer.flush().await.unwrap();
            drop(writer);
            assert_eq!(rt::fs::read(&path).await.unwrap(), b"aZc");
        });
    });
}

/// `BufStream` is seekable when its stream is, as a `BufReader` is:
/// "Seeking always discards the internal buffer", the written bytes are
/// written out first, and `SeekFrom::Current` counts from what the caller
/// consumed.
#[test]
fn a_buf_stream_seeks_after_writing_out_and_from_the_logical_position() {
    limit("BufStream seek", || {
        let dir = crate::behaviour::SocketDir::new("documented-bufstream-seek");
        let path = dir.join("file");
        shim::runtime().block_on(async move {
            let file = rt::fs::OpenOptions::new()
                .read(true)
                .write(true)
                .create(true)
                .truncate(true)
                .open(&path)
                .await
                .unwrap();
            let mut stream = rt::io::BufStream::with_capacity(4, 16, file);
            stream.write_all(b"0123456789").await.unwrap();
            assert_eq!(stream.seek(SeekFrom::Start(2)).await.unwrap(), 2);
            let mut one = [0u8; 1];
            stream.read_exact(&mut one).await.unwrap();
            assert_eq!(&one, b"2");
            assert_eq!(stream.seek(SeekFrom::Current(0)).await.unwrap(), 3);
            assert_eq!(stream.stream_position().await.unwrap(), 3);
            let mut line = String::new();
            stream.read_line(&mut line).await.unwrap();
            assert_eq!(line, "3456789");
            stream.rewind().await.unwrap();
            stream.write_all(b"AB").await.unwrap();
            stream.flush().await.unwrap();
            drop(stream);
            assert_eq!(rt::fs::read(&path).await.unwrap(), b"AB23456789");
        });
    });
}

/// `BufReader::with_capacity`: "Panics if `capacity` is zero" (a reader
/// with no room would read nothing, and `lines` would end at once), and
/// `BufStream::with_capacity` "if `reader_capacity` is zero"; at the
/// caller's line.
#[test]
fn buffered_readers_of_no_capacity_panic_at_the_caller() {
    limit("BufReader::with_capacity(0)", || {
        let after = line!();
        let caught = expect_panic("BufReader::with_capacity(0)", || {
            BufReader::with_capacity(0, &b"data"[..])
        });
        let before = line!();
        assert_points_here(&caught, after, before);
        let (stream, _peer) = rt::io::duplex(8);
        let after = line!();
        let caught = expect_panic("BufStream::with_capacity(0, ..)", move || {
            rt::io::BufStream::with_capacity(0, 8, stream)
        });
        let before = line!();
        assert_points_here(&caught, after, before);
    });
}

/// `duplex`, `simplex` and `SimplexStream::new_unsplit`: "This function
/// panics if `max_buf_size` is 0", at the caller's line
/// (`#[track_caller]`).
#[test]
fn pipes_of_no_capacity_panic_at_the_caller() {
    limit("pipes of capacity 0", || {
        let after = line!();
        let caught = expect_panic("duplex(0)", || rt::io::duplex(0));
        let before = line!();
        assert_points_here(&caught, after, before);
        let after = line!();
        let caught = expect_panic("simplex(0)", || rt::io::simplex(0));
        let before = line!();
        assert_points_here(&caught, after, before);
        let after = line!();
        let caught = expect_panic("new_unsplit(0)", || rt::io::SimplexStream::new_unsplit(0));
        let before = line!();
        assert_points_here(&caught, after, before);
    });
}

// ---------------------------------------------------------------------
// io: the extension traits' edges.

/// `read_buf` into a buffer with no room left returns 0 and reads
/// nothing; `write_buf` of an empty buffer returns 0; both advance their
/// buffer by what moved.
#[test]
fn read_buf_with_no_room_and_write_buf_of_nothing_return_zero() {
    limit("read_buf, write_buf", || {
        shim::runtime().block_on(async {
            let mut source = &b"abcdef"[..];
            let mut storage = [0u8; 4];
            {
                let mut window: &mut [u8] = &mut storage;
                assert_eq!(source.read_buf(&mut window).await.unwrap(), 4);
                assert!(window.is_empty());
                assert_eq!(source.read_buf(&mut window).await.unwrap(), 0);
            }
            assert_eq!(&storage, b"abcd");
            assert_eq!(source, b"ef", "a read_buf with no room consumed bytes");

            let mut out = Vec::new();
            let mut nothing = std::io::Cursor::new(Vec::<u8>::new());
            assert_eq!(out.write_buf(&mut nothing).await.unwrap(), 0);
            let mut some = std::io::Cursor::new(b"xyz".to_vec());
            assert_eq!(out.write_buf(&mut some).await.unwrap(), 3);
            assert_eq!(some.position(), 3);
            assert_eq!(out, b"xyz");
        });
    });
}

/// `write_buf` writes what it can of the whole buffer in one write: a
/// buffer in two pieces (`Buf::chain`) goes into a `Vec` whole, where a
/// write of its first chunk alone would stop at the seam.
#[test]
fn write_buf_writes_a_chained_buffer_whole_into_a_vec() {
    limit("write_buf of a chain", || {
        shim::runtime().block_on(async {
            let mut out = Vec::new();
            let mut pieces = bytes::Buf::chain(&b"ab"[..], &b"cd"[..]);
            assert_eq!(out.write_buf(&mut pieces).await.unwrap(), 4);
            assert_eq!(out, b"abcd");
            assert!(!bytes::Buf::has_remaining(&pieces));
        });
    });
}

/// `take(n)` over a buffered reader is a buffered reader too: `read_line`
/// stops at the limit; `read_exact` past the limit is `UnexpectedEof`;
/// `get_ref` and `into_inner` give the reader where the take left it.
/// `chain` of two buffered readers is one: a line that starts in the
/// first and ends in the second comes out whole; `get_ref` and
/// `into_inner` give both readers.
#[test]
fn take_and_chain_are_buffered_readers_too() {
    limit("take and chain as AsyncBufRead", || {
        shim::runtime().block_on(async {
            let mut limited = BufReader::new(&b"hello\nworld"[..]).take(3);
            let mut line = String::new();
            assert_eq!(limited.read_line(&mut line).await.unwrap(), 3);
            assert_eq!(line, "hel");
            assert_eq!(limited.read_line(&mut line).await.unwrap(), 0);
            assert_eq!(limited.limit(), 0);

            let mut short = (&b"abcdef"[..]).take(3);
            let err = short.read_exact(&mut [0u8; 4]).await.unwrap_err();
            assert_eq!(err.kind(), ErrorKind::UnexpectedEof);

            let mut two = (&b"abcdef"[..]).take(2);
            two.read_exact(&mut [0u8; 2]).await.unwrap();
            assert_eq!(*two.get_ref(), b"cdef");
            let inner: &[u8] = two.into_inner();
            assert_eq!(inner, b"cdef");

            let mut both = (&b"ab"[..]).chain(&b"c\nd"[..]);
            let mut line = String::new();
            assert_eq!(both.read_line(&mut line).await.unwrap(), 4);
            assert_eq!(line, "abc\n");
            line.clear();
            assert_eq!(both.read_line(&mut line).await.unwrap(), 1);
            assert_eq!(line, "d");
            assert_eq!(both.read_line(&mut line).await.unwrap(), 0);

            let chain = (&b"x"[..]).chain(&b"y"[..]);
            let (first, second) = chain.get_ref();
            assert_eq!((*first, *second), (&b"x"[..], &b"y"[..]));
            let (first, second) = chain.into_inner();
            assert_eq!((first, second), (&b"x"[..], &b"y"[..]));
        });
    });
}

/// `split(b)` after a trailing delimiter ends without an empty last
/// segment; `read_until` at end of file returns 0 and leaves the buffer.
/// Both are cancel safe: bytes read before the future was dropped are
/// kept (in the caller's buffer for `read_until`, whose next call returns
/// only its own count; in the `Split` for `next_segment`), and the next
/// call carries on to the delimiter.
#[test]
fn delimiter_readers_at_end_of_file_and_when_cancelled() {
    limit("read_until and split", || {
        shim::runtime().block_on(async {
            let mut segments = BufReader::new(&b"a,b,"[..]).split(b',');
            assert_eq!(segments.next_segment().await.unwrap(), Some(b"a".to_vec()));
            assert_eq!(segments.next_segment().await.unwrap(), Some(b"b".to_vec()));
            assert_eq!(segments.next_segment().await.unwrap(), None);
            let mut reader = BufReader::new(&b"tail"[..]);
            let mut buf = b">".to_vec();
            assert_eq!(reader.read_until(b'\n', &mut buf).await.unwrap(), 4);
            assert_eq!(buf, b">tail");
            assert_eq!(reader.read_until(b'\n', &mut buf).await.unwrap(), 0);
            assert_eq!(buf, b">tail");

            let (mut a, b) = rt::io::duplex(64);
            let mut reader = BufReader::new(b);
            a.write_all(b"ab").await.unwrap();
            let mut buf = Vec::new();
            assert!(reader.read_until(b'\n', &mut buf).now_or_never().is_none());
            assert_eq!(buf, b"ab");
            a.write_all(b"c\nrest").await.unwrap();
            assert_eq!(reader.read_until(b'\n', &mut buf).await.unwrap(), 2);
            assert_eq!(buf, b"abc\n");
            let mut segments = reader.split(b';');
            assert!(segments.next_segment().now_or_never().is_none());
            a.write_all(b"!;").await.unwrap();
            assert_eq!(
                segments.next_segment().await.unwrap(),
                Some(b"rest!".to_vec())
            );
        });
    });
}

/// `shutdown` on a `TcpStream` closes its write direction: a later write
/// fails with `BrokenPipe`, the peer reads end of file, and reading from
/// the peer still works.
#[test]
fn a_tcp_write_after_shutdown_is_broken_pipe() {
    limit("TCP write after shutdown", || {
        shim::runtime().block_on(async {
            let (mut client, mut server) = tcp_pair().await;
            client.shutdown().await.unwrap();
            let err = client.write(b"late").await.unwrap_err();
            assert_eq!(err.kind(), ErrorKind::BrokenPipe);
            let mut buf = [0u8; 4];
            let n = rt::time::timeout(PATIENCE, server.read(&mut buf))
                .await
                .expect("no end of file")
                .unwrap();
            assert_eq!(n, 0);
            server.write_all(b"back").await.unwrap();
            client.read_exact(&mut buf).await.unwrap();
            assert_eq!(&buf, b"back");
        });
    });
}

// ---------------------------------------------------------------------
// time, under a paused clock (current-thread only, on both runtimes).

/// `Interval::reset_at(deadline)`: the next tick is at `deadline`, and the
/// ones after it a period apart; `period()` is the period given.
#[test]
fn interval_reset_at_moves_the_next_tick_to_that_instant() {
    if shim::MULTI_THREAD {
        return; // time can be paused on the current-thread runtime only
    }
    limit("Interval::reset_at", || {
        paused_runtime().block_on(async {
            let start = rt::time::Instant::now();
            let mut interval = rt::time::interval(Duration::from_millis(100));
            assert_eq!(interval.period(), Duration::from_millis(100));
            assert_eq!(interval.tick().await, start);
            interval.reset_at(start + Duration::from_millis(35));
            assert_eq!(interval.tick().await, start + Duration::from_millis(35));
            assert_eq!(rt::time::Instant::now(), start + Duration::from_millis(35));
            assert_eq!(interval.tick().await, start + Duration::from_millis(135));
        });
    });
}

/// `Interval::tick` is cancel safe ("no tick has been consumed" when
/// another branch of `select!` wins): the tick comes later at its time.
#[test]
fn interval_tick_lost_to_another_select_branch_is_not_consumed() {
    if shim::MULTI_THREAD {
        return; // time can be paused on the current-thread runtime only
    }
    limit("tick cancel safety", || {
        paused_runtime().block_on(async {
            let start = rt::time::Instant::now();
            let mut interval = rt::time::interval(Duration::from_millis(100));
            interval.tick().await;
            rt::select! {
                _ = interval.tick() => panic!("the tick came before its time"),
                _ = rt::time::sleep(Duration::from_millis(30)) => {}
            }
            assert_eq!(start.elapsed(), Duration::from_millis(30));
            assert_eq!(interval.tick().await, start + Duration::from_millis(100));
            assert_eq!(start.elapsed(), Duration::from_millis(100));
        });
    });
}

/// An interval's first tick is the instant it was made, even when it is
/// first polled later, and `interval_at` with a start in the past first
/// ticks at that start; either way (Burst) the ticks missed since come at
/// once, each with its scheduled time, until the schedule reaches now.
#[test]
fn late_first_ticks_burst_until_the_schedule_reaches_now() {
    if shim::MULTI_THREAD {
        return; // time can be paused on the current-thread runtime only
    }
    limit("late first ticks", || {
        paused_runtime().block_on(async {
            let start = rt::time::Instant::now();
            let mut interval = rt::time::interval(Duration::from_millis(10));
            rt::time::advance(Duration::from_millis(25)).await;
            let mut ticks = Vec::new();
            for _ in 0..4 {
                ticks.push(interval.tick().await - start);
            }
            assert_eq!(ticks, millis(&[0, 10, 20, 30]));

            rt::time::advance(Duration::from_secs(1)).await;
            let now = rt::time::Instant::now();
            let period = Duration::from_millis(10);
            let mut interval = rt::time::interval_at(now - period * 3, period);
            for back in (0..=3u32).rev() {
                assert_eq!(interval.tick().await, now - period * back);
                assert_eq!(rt::time::Instant::now(), now, "a caught-up tick waited");
            }
            assert_eq!(interval.tick().await, now + period);
            assert_eq!(rt::time::Instant::now(), now + period);
        });
    });
}

/// Ticks an interval of 10 ms with `behavior` once, advances the paused
/// clock by `stall`, and returns the next two ticks as offsets from the
/// start.
async fn two_ticks_after(behavior: rt::time::MissedTickBehavior, stall: Duration) -> Vec<Duration> {
    let start = rt::time::Instant::now();
    let mut interval = rt::time::interval(Duration::from_millis(10));
    interval.set_missed_tick_behavior(behavior);
    interval.tick().await;
    rt::time::advance(stall).await;
    let mut ticks = Vec::new();
    for _ in 0..2 {
        ticks.push(interval.tick().await - start);
    }
    ticks
}

/// A tick at most 5 ms late is not a missed tick: `Delay` and `Skip` keep
/// the schedule; 6 ms late it is, and `Delay` restarts from the late tick
/// while `Skip` goes on with the schedule. `Skip` after a stall that ends
/// exactly on a tick of the schedule fires the late tick now and the next
/// a whole period later.
#[test]
fn missed_ticks_follow_the_five_millisecond_rule() {
    if shim::MULTI_THREAD {
        return; // time can be paused on the current-thread runtime only
    }
    use rt::time::MissedTickBehavior::{Delay, Skip};
    limit("missed-tick threshold", || {
        let runtime = paused_runtime();
        let ms = Duration::from_millis;
        let cases = [
            (Delay, 13, [10, 20]),
            (Skip, 15, [10, 20]),
            (Delay, 16, [10, 26]),
            (Skip, 16, [10, 20]),
            (Skip, 30, [10, 40]),
        ];
        for (behavior, stall, expected) in cases {
            assert_eq!(
                runtime.block_on(two_ticks_after(behavior, ms(stall))),
                millis(&expected),
                "{behavior:?} after a stall of {stall} ms"
            );
        }
    });
}

/// `advance` ends with a yield: a task spawned just before it has run when
/// it returns, even when the clock did not move. A timer fires when
/// `advance` reaches its deadline, and not before: one nanosecond short of
/// a 10 ms sleep, the sleeper still waits; the last nanosecond wakes it.
#[test]
fn advance_yields_and_fires_a_timer_at_its_deadline_not_before() {
    if shim::MULTI_THREAD {
        return; // time can be paused on the current-thread runtime only
    }
    limit("advance", || {
        paused_runtime().block_on(async {
            let ran = Arc::new(AtomicBool::new(false));
            let flag = ran.clone();
            let task = rt::spawn(async move { flag.store(true, Ordering::SeqCst) });
            rt::time::advance(Duration::ZERO).await;
            assert!(ran.load(Ordering::SeqCst), "advance did not yield");
            task.await.unwrap();

            let start = rt::time::Instant::now();
            let sleeper = rt::spawn(rt::time::sleep(Duration::from_millis(10)));
            rt::task::yield_now().await;
            rt::time::advance(Duration::from_millis(10) - Duration::from_nanos(1)).await;
            for _ in 0..20 {
                rt::task::yield_now().await;
            }
            assert!(
                !sleeper.is_finished(),
                "the sleep ended before its deadline"
            );
            rt::time::advance(Duration::from_nanos(1)).await;
            for _ in 0..100 {
                if sleeper.is_finished() {
                    break;
                }
                rt::task::yield_now().await;
            }
            assert!(
                sleeper.is_finished(),
                "the sleep did not end at its deadline"
            );
            assert_eq!(start.elapsed(), Duration::from_millis(10));
        });
    });
}

/// `timeout` polls its future first: a ready one is `Ok` without the
/// paused clock moving, even with a deadline already past (`timeout_at`)
/// or a zero duration; a pending one with a past deadline is `Err` at
/// once, the clock still where it was; and one that becomes ready at the
/// very deadline (a sleep as long as the timeout) gives its output.
#[test]
fn timeouts_poll_their_future_before_their_deadline() {
    if shim::MULTI_THREAD {
        return; // time can be paused on the current-thread runtime only
    }
    limit("timeout paused edges", || {
        paused_runtime().block_on(async {
            let start = rt::time::Instant::now();
            assert_eq!(
                rt::time::timeout(Duration::from_secs(3600), async { 5 }).await,
                Ok(5)
            );
            assert_eq!(rt::time::Instant::now(), start);
            rt::time::advance(Duration::from_secs(10)).await;
            let now = rt::time::Instant::now();
            let past = start + Duration::from_secs(1);
            assert_eq!(rt::time::timeout_at(past, async { 6 }).await, Ok(6));
            assert_eq!(
                rt::time::timeout(Duration::ZERO, std::future::ready(7)).await,
                Ok(7)
            );
            assert!(
                rt::time::timeout_at(past, std::future::pending::<()>())
                    .await
                    .is_err()
            );
            assert!(
                rt::time::timeout(Duration::ZERO, std::future::pending::<()>())
                    .await
                    .is_err()
            );
            assert_eq!(rt::time::Instant::now(), now);

            let out = rt::time::timeout(Duration::from_millis(10), async {
                rt::time::sleep(Duration::from_millis(10)).await;
                "done"
            })
            .await;
            assert_eq!(out, Ok("done"));
        });
    });
}

/// `timeout`: "If the future does not complete in time, then it is
/// cancelled": by the time the awaited `timeout` has returned `Elapsed`,
/// the future it wrapped has been dropped. `Elapsed` says "deadline has
/// elapsed", is a `std::error::Error`, and equals another `Elapsed`.
#[test]
fn an_elapsed_timeout_has_dropped_its_future_and_says_so() {
    limit("Elapsed", || {
        shim::runtime().block_on(async {
            let dropped = Arc::new(AtomicBool::new(false));
            let flag = DropFlag(dropped.clone());
            let first = rt::time::timeout(Duration::from_millis(5), async move {
                let _flag = flag;
                std::future::pending::<()>().await;
            })
            .await
            .unwrap_err();
            assert!(
                dropped.load(Ordering::SeqCst),
                "the future outlived its timeout"
            );
            let second = rt::time::timeout(Duration::ZERO, std::future::pending::<()>())
                .await
                .unwrap_err();
            assert_eq!(first, second);
            assert_eq!(first.to_string(), "deadline has elapsed");
            let boxed: Box<dyn std::error::Error + Send + Sync> = Box::new(first);
            assert_eq!(boxed.to_string(), "deadline has elapsed");
        });
    });
}

/// `Sleep::reset` "can be called both before and after the future has
/// completed": reset before the first poll, the sleep ends at the new
/// deadline; a sleep registered for 1 s and reset to 3 s does not end at
/// 1 s; `deadline()` is `now + duration`, exactly, under a paused clock;
/// and `sleep_until(deadline)` ends with the clock at the deadline.
#[test]
fn a_sleep_reset_before_its_first_poll_or_to_later_ends_at_the_new_deadline() {
    if shim::MULTI_THREAD {
        return; // time can be paused on the current-thread runtime only
    }
    limit("Sleep::reset paused", || {
        paused_runtime().block_on(async {
            let start = rt::time::Instant::now();
            let mut early = Box::pin(rt::time::sleep(Duration::from_secs(5)));
            assert_eq!(early.deadline(), start + Duration::from_secs(5));
            early.as_mut().reset(start + Duration::from_secs(2));
            early.as_mut().await;
            assert_eq!(start.elapsed(), Duration::from_secs(2));
            assert!(early.is_elapsed());

            let start = rt::time::Instant::now();
            let mut late = Box::pin(rt::time::sleep(Duration::from_secs(1)));
            assert!(futures::poll!(late.as_mut()).is_pending());
            late.as_mut().reset(start + Duration::from_secs(3));
            rt::select! {
                _ = late.as_mut() => panic!("the sleep ended at its old deadline"),
                _ = rt::time::sleep(Duration::from_secs(2)) => {}
            }
            late.as_mut().await;
            assert_eq!(start.elapsed(), Duration::from_secs(3));

            let deadline = rt::time::Instant::now() + Duration::from_millis(1234);
            rt::time::sleep_until(deadline).await;
            assert_eq!(rt::time::Instant::now(), deadline);
        });
    });
}

/// `Instant` arithmetic follows the paused clock: `elapsed`, `-`,
/// `duration_since`, `checked_duration_since` and
/// `saturating_duration_since` see exactly the time advanced.
#[test]
fn instant_arithmetic_follows_the_paused_clock() {
    if shim::MULTI_THREAD {
        return; // time can be paused on the current-thread runtime only
    }
    limit("Instant paused arithmetic", || {
        paused_runtime().block_on(async {
            let start = rt::time::Instant::now();
            rt::time::advance(Duration::from_millis(1500)).await;
            let now = rt::time::Instant::now();
            assert_eq!(start.elapsed(), Duration::from_millis(1500));
            assert_eq!(now - start, Duration::from_millis(1500));
            assert_eq!(start + Duration::from_millis(1500), now);
            assert_eq!(now - Duration::from_millis(1500), start);
            assert_eq!(now.duration_since(start), Duration::from_millis(1500));
            let later = start + Duration::from_secs(2);
            assert_eq!(now.checked_duration_since(later), None);
            assert_eq!(
                later.saturating_duration_since(now),
                Duration::from_millis(500)
            );
            assert_eq!(later.checked_sub(Duration::from_millis(500)), Some(now));
        });
    });
}

/// `Builder::start_paused`: the clock is paused from the start, not from
/// the first `block_on`: under `Runtime::enter`, `Instant::now()` stands
/// still while real time passes, and a sleep made there has its deadline
/// on the paused clock and ends there in `block_on`.
#[test]
fn a_start_paused_runtime_is_paused_under_enter_before_any_block_on() {
    if shim::MULTI_THREAD {
        return; // time can be paused on the current-thread runtime only
    }
    limit("start_paused under enter", || {
        let runtime = paused_runtime();
        let guard = runtime.enter();
        let first = rt::time::Instant::now();
        std::thread::sleep(Duration::from_millis(5));
        assert_eq!(rt::time::Instant::now(), first, "the clock ran");
        let sleep = rt::time::sleep(Duration::from_secs(60));
        assert_eq!(sleep.deadline(), first + Duration::from_secs(60));
        drop(guard);
        runtime.block_on(async move {
            sleep.await;
            assert_eq!(rt::time::Instant::now(), first + Duration::from_secs(60));
        });
    });
}

/// Auto-advance fires timers at every distance at their deadline exactly,
/// in order: a few milliseconds, each side of the wheel's level
/// boundaries (64, 4,096, 262,144 and 16,777,216 ms), days, and past the
/// wheel's span (2^36 ms, about two years); twenty tasks sharing one
/// deadline all wake at it.
#[test]
fn auto_advance_fires_far_timers_at_their_exact_deadlines() {
    if shim::MULTI_THREAD {
        return; // time can be paused on the current-thread runtime only
    }
    limit("far timers", || {
        let runtime = paused_runtime();
        let seen = runtime.block_on(async {
            let start = rt::time::Instant::now();
            let seen = Arc::new(Mutex::new(Vec::new()));
            let mut all: Vec<u64> = vec![
                3,
                63,
                64,
                65,
                4_095,
                4_096,
                4_097,
                262_143,
                262_144,
                262_145,
                16_777_215,
                16_777_217,
                86_400_000 * 3 + 7,
                (1 << 36) - 1,
                (1 << 36) + 5,
            ];
            // Spawned in a scrambled order, and a crowd at one deadline.
            all.reverse();
            all.swap(2, 9);
            all.extend([777; 20]);
            let mut handles = Vec::new();
            for ms in all {
                let seen = seen.clone();
                handles.push(rt::spawn(async move {
                    rt::time::sleep(Duration::from_millis(ms)).await;
                    seen.lock().unwrap().push((ms, start.elapsed()));
                }));
            }
            for handle in handles {
                handle.await.unwrap();
            }
            seen.lock().unwrap().clone()
        });
        let mut expected: Vec<(u64, Duration)> = seen
            .iter()
            .map(|&(ms, _)| (ms, Duration::from_millis(ms)))
            .collect();
        expected.sort();
        assert_eq!(seen, expected);
    });
}

/// A timer that no longer waits (a sleep dropped, a timeout whose future
/// finished, a sleep reset to later and then dropped) does not move a
/// paused clock: with nothing but a plain thread to wait for, the runtime
/// has no timer to jump to, and the clock stays where it was.
#[test]
fn timers_cancelled_or_moved_do_not_move_the_paused_clock() {
    if shim::MULTI_THREAD {
        return; // time can be paused on the current-thread runtime only
    }
    limit("cancelled timers and the clock", || {
        paused_runtime().block_on(async {
            let start = rt::time::Instant::now();
            let done = rt::time::timeout(Duration::from_secs(10), async {
                rt::task::yield_now().await;
                7
            })
            .await;
            assert_eq!(done, Ok(7));
            let mut moved = Box::pin(rt::time::sleep(Duration::from_secs(1)));
            assert!(futures::poll!(moved.as_mut()).is_pending());
            moved.as_mut().reset(start + Duration::from_secs(100));
            assert!(futures::poll!(moved.as_mut()).is_pending());
            drop(moved);
            let mut dropped = Box::pin(rt::time::sleep(Duration::from_secs(5)));
            assert!(futures::poll!(dropped.as_mut()).is_pending());
            drop(dropped);
            let interval = rt::time::interval(Duration::from_secs(3));
            drop(interval);

            let (tx, rx) = rt::sync::oneshot::channel();
            let thread = std::thread::spawn(move || {
                std::thread::sleep(Duration::from_millis(30));
                tx.send(()).unwrap();
            });
            rx.await.unwrap();
            thread.join().unwrap();
            assert_eq!(
                rt::time::Instant::now(),
                start,
                "the clock jumped to a timer that was gone"
            );
        });
    });
}

/// A thousand one-millisecond sleeps in a row take exactly one second of
/// paused time: every auto-advance lands on the next timer, no further.
#[test]
fn a_thousand_one_millisecond_sleeps_take_one_second_of_paused_time() {
    if shim::MULTI_THREAD {
        return; // time can be paused on the current-thread runtime only
    }
    limit("1000 x 1 ms", || {
        paused_runtime().block_on(async {
            let start = rt::time::Instant::now();
            for _ in 0..1000 {
                rt::time::sleep(Duration::from_millis(1)).await;
            }
            assert_eq!(start.elapsed(), Duration::from_secs(1));
        });
    });
}

/// `Sleep` and `task::consume_budget` spend the task's cooperative
/// budget: a loop of sleeps that are ready at once (`Duration::ZERO`), or
/// of `consume_budget`, still returns `Pending` once the budget is spent,
/// so a `yield_now` branch beside it wins.
#[test]
fn loops_of_zero_sleeps_or_consume_budget_yield_when_the_budget_is_spent() {
    limit("zero sleeps, consume_budget", || {
        shim::runtime().block_on(async {
            rt::spawn(async {
                rt::select! {
                    _ = async {
                        for _ in 0..10_000 {
                            rt::time::sleep(Duration::ZERO).await;
                        }
                    } => panic!("10,000 zero sleeps in one poll, never yielded"),
                    _ = rt::task::yield_now() => {}
                }
                rt::select! {
                    _ = async {
                        for _ in 0..10_000 {
                            rt::task::consume_budget().await;
                        }
                    } => panic!("10,000 units of budget in one poll"),
                    _ = rt::task::yield_now() => {}
                }
            })
            .await
            .unwrap();
        });
    });
}

/// A `Sleep` and an `Interval` polled by one task and then awaited by
/// another wake the second ("only the `Waker` from the `Context` passed to
/// the most recent call is scheduled to receive a wakeup").
#[test]
fn a_sleep_or_an_interval_moved_to_another_task_wakes_that_task() {
    if shim::MULTI_THREAD {
        return; // time can be paused on the current-thread runtime only
    }
    limit("timers moved", || {
        paused_runtime().block_on(async {
            let start = rt::time::Instant::now();
            let mut sleep = Box::pin(rt::time::sleep(Duration::from_secs(1)));
            assert!(futures::poll!(sleep.as_mut()).is_pending());
            let sleeper = rt::spawn(async move {
                sleep.await;
                rt::time::Instant::now()
            });
            assert_eq!(sleeper.await.unwrap(), start + Duration::from_secs(1));

            let mut interval = rt::time::interval(Duration::from_secs(1));
            interval.tick().await;
            let polled = std::future::poll_fn(|cx| {
                std::task::Poll::Ready(interval.poll_tick(cx).is_pending())
            })
            .await;
            assert!(polled);
            let ticker = rt::spawn(async move { interval.tick().await });
            assert_eq!(ticker.await.unwrap(), start + Duration::from_secs(2));
        });
    });
}

/// A blocking job holds the paused clock until the job itself is done,
/// even when its `JoinHandle` was dropped at once: a timeout that elapses
/// meanwhile elapses only after the job has finished.
#[test]
fn a_detached_blocking_job_still_holds_the_paused_clock() {
    if shim::MULTI_THREAD {
        return; // time can be paused on the current-thread runtime only
    }
    limit("detached blocking job and the clock", || {
        paused_runtime().block_on(async {
            let finished = Arc::new(AtomicBool::new(false));
            let flag = finished.clone();
            drop(rt::task::spawn_blocking(move || {
                std::thread::sleep(Duration::from_millis(50));
                flag.store(true, Ordering::SeqCst);
            }));
            let out = rt::time::timeout(Duration::from_secs(1), std::future::pending::<()>()).await;
            assert!(out.is_err());
            assert!(
                finished.load(Ordering::SeqCst),
                "the clock jumped while the detached job ran"
            );
        });
    });
}

/// With time paused, a `Handle::block_on` on another thread that sleeps is
/// woken when the thread in `Runtime::block_on`, idle, moves the clock to
/// that sleep's deadline.
#[test]
fn auto_advance_wakes_a_sleep_in_handle_block_on_on_another_thread() {
    if shim::MULTI_THREAD {
        return; // time can be paused on the current-thread runtime only
    }
    limit("auto-advance and Handle::block_on", || {
        let runtime = paused_runtime();
        let handle = runtime.handle().clone();
        let (stop, stopped) = rt::sync::oneshot::channel::<()>();
        std::thread::scope(|scope| {
            let driver = scope.spawn(|| {
                runtime.block_on(async {
                    let _ = stopped.await;
                })
            });
            let start = handle.block_on(async { rt::time::Instant::now() });
            let end = handle.block_on(async {
                rt::time::sleep(Duration::from_secs(30)).await;
                rt::time::Instant::now()
            });
            assert_eq!(end - start, Duration::from_secs(30));
            stop.send(()).unwrap();
            driver.join().unwrap();
        });
    });
}

// ---------------------------------------------------------------------
// task.

/// `AbortHandle`: `abort` through it cancels the task (its `JoinHandle`
/// gives a cancelled `JoinError`), `is_finished` turns true, and its `id`
/// is the task's; it still cancels a task whose `JoinHandle` was dropped
/// (detached), whose future is then dropped.
#[test]
fn an_abort_handle_cancels_its_task_even_detached() {
    limit("AbortHandle", || {
        shim::runtime().block_on(async {
            let handle = rt::spawn(std::future::pending::<()>());
            let abort = handle.abort_handle();
            assert_eq!(abort.id(), handle.id());
            assert!(!abort.is_finished());
            abort.abort();
            let err = rt::time::timeout(PATIENCE, handle)
                .await
                .expect("the aborted task did not end")
                .unwrap_err();
            assert!(err.is_cancelled());
            assert_eq!(err.id(), abort.id());
            assert!(abort.is_finished());
            // Aborting a finished task does nothing.
            abort.abort();

            let dropped = Arc::new(AtomicBool::new(false));
            let flag = DropFlag(dropped.clone());
            let handle = rt::spawn(async move {
                let _flag = flag;
                std::future::pending::<()>().await;
            });
            let abort = handle.abort_handle();
            drop(handle);
            rt::task::yield_now().await;
            assert!(!dropped.load(Ordering::SeqCst));
            abort.abort();
            for _ in 0..1000 {
                if dropped.load(Ordering::SeqCst) {
                    break;
                }
                rt::time::sleep(Duration::from_millis(1)).await;
            }
            assert!(
                dropped.load(Ordering::SeqCst),
                "the detached task was not cancelled"
            );
            assert!(abort.is_finished());
        });
    });
}

/// A task that aborts itself runs on until its next `.await` that
/// yields, and stops there: the code after it never runs, and its
/// `JoinHandle` reports cancellation.
#[test]
fn a_task_that_aborts_itself_stops_at_its_next_await() {
    limit("self abort", || {
        shim::runtime().block_on(async {
            let (tx, rx) = rt::sync::oneshot::channel::<rt::task::AbortHandle>();
            let before = Arc::new(AtomicBool::new(false));
            let after = Arc::new(AtomicBool::new(false));
            let (b, a) = (before.clone(), after.clone());
            let handle = rt::spawn(async move {
                let me = rx.await.unwrap();
                me.abort();
                b.store(true, Ordering::SeqCst);
                rt::task::yield_now().await;
                a.store(true, Ordering::SeqCst);
            });
            tx.send(handle.abort_handle()).unwrap();
            let err = rt::time::timeout(PATIENCE, handle)
                .await
                .expect("the task did not end")
                .unwrap_err();
            assert!(err.is_cancelled());
            assert!(
                before.load(Ordering::SeqCst),
                "abort stopped the task at once"
            );
            assert!(!after.load(Ordering::SeqCst), "the task ran past its await");
        });
    });
}

/// An abort from a plain thread reaches a task of a runtime whose thread
/// sleeps in `block_on`: the task's future is dropped and its handle says
/// cancelled.
#[test]
fn an_abort_from_another_thread_wakes_the_runtime_to_drop_the_task() {
    limit("remote abort", || {
        shim::runtime().block_on(async {
            let (dropped_tx, dropped_rx) = rt::sync::oneshot::channel::<()>();
            struct SendOnDrop(Option<rt::sync::oneshot::Sender<()>>);
            impl Drop for SendOnDrop {
                fn drop(&mut self) {
                    if let Some(tx) = self.0.take() {
                        let _ = tx.send(());
                    }
                }
            }
            let guard = SendOnDrop(Some(dropped_tx));
            let handle = rt::spawn(async move {
                let _guard = guard;
                std::future::pending::<()>().await;
            });
            let abort = handle.abort_handle();
            let thread = std::thread::spawn(move || {
                std::thread::sleep(Duration::from_millis(20));
                abort.abort();
            });
            rt::time::timeout(PATIENCE, dropped_rx)
                .await
                .expect("the aborted task's future was not dropped")
                .unwrap();
            assert!(handle.await.unwrap_err().is_cancelled());
            thread.join().unwrap();
        });
    });
}

/// `JoinError::into_panic` "panics if the error does not represent the
/// underlying task terminating with a panic"; `try_into_panic` gives a
/// cancelled error back unchanged; a panic's error, as an `io::Error`, is
/// of kind `Other`.
#[test]
fn into_panic_of_a_cancelled_error_panics_and_try_into_panic_gives_it_back() {
    limit("JoinError into_panic", || {
        let runtime = shim::runtime();
        let cancelled = || {
            runtime.block_on(async {
                let handle = rt::spawn(std::future::pending::<()>());
                handle.abort();
                handle.await.unwrap_err()
            })
        };
        let error = cancelled();
        let id = error.id();
        let back = error.try_into_panic().unwrap_err();
        assert!(back.is_cancelled());
        assert_eq!(back.id(), id);
        expect_panic("into_panic of a cancelled error", || {
            cancelled().into_panic()
        });

        let panicked = runtime.block_on(async {
            rt::spawn(async { std::panic::panic_any(42u32) })
                .await
                .unwrap_err()
        });
        assert!(panicked.is_panic());
        let io: std::io::Error = panicked.into();
        assert_eq!(io.kind(), ErrorKind::Other);
        assert_eq!(io.to_string(), "task panicked");
        let payload = runtime
            .block_on(async { rt::spawn(async { std::panic::panic_any(42u32) }).await })
            .unwrap_err()
            .try_into_panic()
            .unwrap();
        assert_eq!(payload.downcast_ref::<u32>(), Some(&42));
    });
}

/// A blocking job is a task: `task::try_id()` inside its closure is the
/// id its `JoinHandle` reports. And `spawn_blocking`'s `abort`: "if the
/// task has not started running yet [...] calling `abort` may prevent the
/// task from starting": a job queued behind a busy thread and aborted
/// does not run, and its handle says cancelled.
#[test]
fn a_blocking_job_knows_its_id_and_one_aborted_before_it_starts_never_runs() {
    limit("blocking jobs as tasks", || {
        let runtime = shim::runtime_with_blocking_threads(1);
        runtime.block_on(async {
            let handle = rt::task::spawn_blocking(rt::task::try_id);
            let id = handle.id();
            assert_eq!(handle.await.unwrap(), Some(id));

            let (release, wait) = std::sync::mpsc::channel::<()>();
            let busy = rt::task::spawn_blocking(move || wait.recv_timeout(PATIENCE).is_ok());
            let ran = Arc::new(AtomicBool::new(false));
            let flag = ran.clone();
            let queued = rt::task::spawn_blocking(move || flag.store(true, Ordering::SeqCst));
            queued.abort();
            release.send(()).unwrap();
            assert!(busy.await.unwrap(), "the busy job was not released");
            let err = rt::time::timeout(PATIENCE, queued)
                .await
                .expect("the aborted job's handle did not resolve")
                .unwrap_err();
            assert!(err.is_cancelled());
            assert!(!ran.load(Ordering::SeqCst), "the aborted job ran");
        });
    });
}

/// `yield_now`: "The current task will be re-added as a pending task at
/// the back of the pending queue. Any other pending tasks will be
/// scheduled": on the current-thread runtime a task spawned just before
/// the yield runs before the yielding task goes on.
#[test]
fn yield_now_lets_a_task_spawned_before_it_run_first() {
    if shim::MULTI_THREAD {
        // A second worker may run the new task at any time.
        return;
    }
    limit("yield_now order", || {
        shim::runtime().block_on(async {
            let log = Arc::new(Mutex::new(Vec::new()));
            let outer_log = log.clone();
            let outer = rt::spawn(async move {
                let inner_log = outer_log.clone();
                let inner = rt::spawn(async move { inner_log.lock().unwrap().push("inner") });
                outer_log.lock().unwrap().push("before yield");
                rt::task::yield_now().await;
                outer_log.lock().unwrap().push("after yield");
                inner.await.unwrap();
            });
            outer.await.unwrap();
            assert_eq!(
                *log.lock().unwrap(),
                ["before yield", "inner", "after yield"]
            );
        });
    });
}

/// A `JoinHandle` polled once by one task and then awaited by another
/// wakes the second when the task ends (only the last waker counts).
#[test]
fn a_join_handle_moved_to_another_task_wakes_that_task() {
    limit("JoinHandle moved", || {
        shim::runtime().block_on(async {
            let (tx, rx) = rt::sync::oneshot::channel::<u8>();
            let mut target = rt::spawn(async move { rx.await.unwrap() + 1 });
            assert!(futures::poll!(&mut target).is_pending());
            let waiter = rt::spawn(async move { target.await.unwrap() });
            rt::task::yield_now().await;
            tx.send(41).unwrap();
            let got = rt::time::timeout(PATIENCE, waiter)
                .await
                .expect("the second awaiter was not woken")
                .unwrap();
            assert_eq!(got, 42);
        });
    });
}

/// A task's `Id` "uniquely identifies a task relative to all other
/// currently running tasks", and says nothing of "what runtime a task is
/// spawned on": tasks alive at once on two runtimes have different ids,
/// so ids from both can key one map.
#[test]
fn task_ids_are_unique_across_runtimes() {
    limit("ids across runtimes", || {
        let first = shim::runtime();
        let second = shim::runtime();
        let mut ids = std::collections::HashSet::new();
        let mut handles = Vec::new();
        for _ in 0..3 {
            for runtime in [&first, &second] {
                let handle = runtime.spawn(std::future::pending::<()>());
                assert!(
                    ids.insert(handle.id()),
                    "two live tasks share {}",
                    handle.id()
                );
                handles.push(handle);
            }
        }
        let blocking = first.spawn_blocking(|| ());
        assert!(ids.insert(blocking.id()));
        first.block_on(blocking).unwrap();
    });
}

/// `block_in_place`: in the `block_on` of a multi-thread runtime (not a
/// worker) it runs the closure where it is; on the current-thread runtime
/// it panics ("Panics if called from a `current_thread` runtime").
/// `block_on` itself runs its future on the calling thread.
#[test]
fn block_in_place_runs_in_block_on_or_panics_on_a_current_thread_runtime() {
    limit("block_in_place", || {
        let runtime = shim::runtime();
        let caller = std::thread::current().id();
        runtime.block_on(async move {
            assert_eq!(std::thread::current().id(), caller);
            if shim::MULTI_THREAD {
                let ran_on = rt::task::block_in_place(|| std::thread::current().id());
                assert_eq!(ran_on, caller);
            } else {
                expect_panic("block_in_place on current-thread", || {
                    rt::task::block_in_place(|| ())
                });
            }
        });
    });
}

/// `block_in_place` inside a `LocalSet` panics on either flavour, as Tokio's
/// `LocalSet::block_on` documents ("this will panic"): in a local task
/// (the panic becomes the task's `JoinError`) and in the `run_until`
/// future itself. The same call outside the set, in the same `block_on`
/// of a multi-thread runtime, still runs its closure.
#[test]
fn block_in_place_panics_inside_a_local_set() {
    const ONLY_MULTI_THREAD: &str =
        "can call blocking only when running on the multi-threaded runtime";
    limit("block_in_place in a LocalSet", || {
        let runtime = shim::runtime();
        let local = rt::task::LocalSet::new();
        let error = local.block_on(&runtime, async {
            rt::task::spawn_local(async { rt::task::block_in_place(|| ()) })
                .await
                .unwrap_err()
        });
        assert!(error.is_panic(), "{error:?}");
        let message = crate::behaviour::panic_message(&*error.into_panic());
        crate::behaviour::says(&message, ONLY_MULTI_THREAD);
        let caught = expect_panic("block_in_place in run_until", || {
            local.block_on(&runtime, async { rt::task::block_in_place(|| ()) })
        });
        caught.assert_says(ONLY_MULTI_THREAD);
        if shim::MULTI_THREAD {
            let ran = runtime.block_on(async {
                let ran = rt::task::block_in_place(|| true);
                local.run_until(async {}).await;
                ran && rt::task::block_in_place(|| true)
            });
            assert!(ran);
        }
    });
}

// ---------------------------------------------------------------------
// runtime.

/// A panic in `block_on`'s future reaches its caller with its payload, and
/// the runtime is still usable: a task spawned before it finishes in the
/// next `block_on`, and new tasks run.
#[test]
fn a_panic_in_block_on_reaches_the_caller_and_the_runtime_goes_on() {
    limit("block_on panic", || {
        let runtime = shim::runtime();
        let (tx, rx) = rt::sync::oneshot::channel::<u32>();
        let waiting = runtime.spawn(async move { rx.await.unwrap() * 2 });
        let caught = expect_panic("panic in block_on", || {
            runtime.block_on(async {
                rt::task::yield_now().await;
                panic!("boom in block_on")
            })
        });
        assert_eq!(caught.message, "boom in block_on");
        tx.send(21).unwrap();
        assert_eq!(runtime.block_on(waiting).unwrap(), 42);
        let one = runtime.block_on(async { rt::spawn(async { 1 }).await.unwrap() });
        assert_eq!(one, 1);
    });
}

/// Outside a runtime, `Handle::current` panics with the words of the
/// error `Handle::try_current` returns there, and `time::pause` and
/// `time::resume` panic at the caller's line. (Through closures: passed
/// as function items, the location would be core's `FnOnce` shim.)
#[test]
#[allow(clippy::redundant_closure)]
fn outside_a_runtime_handle_current_and_pause_panic_as_documented() {
    limit("outside a runtime", || {
        let expected = rt::runtime::Handle::try_current().unwrap_err().to_string();
        let caught = expect_panic("Handle::current outside", || rt::runtime::Handle::current());
        assert_eq!(caught.message, expected);

        let after = line!();
        let caught = expect_panic("pause outside", || rt::time::pause());
        let before = line!();
        assert_points_here(&caught, after, before);
        let after = line!();
        let caught = expect_panic("resume outside", || rt::time::resume());
        let before = line!();
        assert_points_here(&caught, after, before);
    });
}

/// `Runtime::spawn_blocking` runs the job on the blocking pool at once,
/// with no thread in `block_on` (the current-thread runtime included), on
/// a thread that is not the caller's; and `max_blocking_threads(n)` runs
/// at most n jobs at once, the others waiting their turn.
#[test]
fn the_blocking_pool_runs_without_block_on_and_keeps_to_its_bound() {
    limit("blocking pool", || {
        let runtime = shim::runtime_with_blocking_threads(2);
        let (tx, rx) = std::sync::mpsc::channel();
        let job = runtime.spawn_blocking(move || {
            tx.send(std::thread::current().id()).unwrap();
            7
        });
        let thread = rx
            .recv_timeout(PATIENCE)
            .expect("the job did not run without block_on");
        assert_ne!(thread, std::thread::current().id());
        assert_eq!(runtime.block_on(job).unwrap(), 7);

        let running = Arc::new(AtomicUsize::new(0));
        let most = Arc::new(AtomicUsize::new(0));
        let jobs: Vec<_> = (0..6)
            .map(|i| {
                let (running, most) = (running.clone(), most.clone());
                runtime.spawn_blocking(move || {
                    let now = running.fetch_add(1, Ordering::SeqCst) + 1;
                    most.fetch_max(now, Ordering::SeqCst);
                    std::thread::sleep(Duration::from_millis(15));
                    running.fetch_sub(1, Ordering::SeqCst);
                    i
                })
            })
            .collect();
        let done: Vec<u32> = runtime.block_on(async {
            let mut done = Vec::new();
            for job in jobs {
                done.push(job.await.unwrap());
            }
            done
        });
        assert_eq!(done, [0, 1, 2, 3, 4, 5]);
        let most = most.load(Ordering::SeqCst);
        assert!(most <= 2, "{most} blocking jobs ran at once");
    });
}

/// `Handle::block_on` on a thread of its own, while another thread is in
/// `Runtime::block_on` (Tokio: on the current-thread runtime the timers
/// work "if there is another thread currently calling
/// `Runtime::block_on` on the same runtime"): a sleep ends, and a task
/// spawned from there runs.
#[test]
fn handle_block_on_beside_a_driving_thread_sleeps_and_spawns() {
    limit("Handle::block_on beside block_on", || {
        let runtime = shim::runtime();
        let handle = runtime.handle().clone();
        let (stop, stopped) = rt::sync::oneshot::channel::<()>();
        std::thread::scope(|scope| {
            let driver = scope.spawn(|| {
                runtime.block_on(async {
                    let _ = rt::time::timeout(PATIENCE, stopped).await;
                })
            });
            let got = handle.block_on(async {
                rt::time::sleep(Duration::from_millis(10)).await;
                rt::spawn(async { 5 }).await.unwrap()
            });
            assert_eq!(got, 5);
            stop.send(()).unwrap();
            driver.join().unwrap();
        });
    });
}

/// A `Handle::block_on` on another thread goes on while the runtime is
/// dropped under it, and returns when its future completes: the drop does
/// not strand a thread that is only waiting on a plain channel.
#[test]
fn handle_block_on_outlives_the_runtime_dropped_under_it() {
    limit("Handle::block_on across a drop", || {
        let runtime = shim::runtime();
        let handle = runtime.handle().clone();
        let (tx, rx) = rt::sync::oneshot::channel::<u8>();
        let (ready_tx, ready_rx) = std::sync::mpsc::channel();
        let waiter = std::thread::spawn(move || {
            handle.block_on(async move {
                ready_tx.send(()).unwrap();
                rx.await.unwrap()
            })
        });
        ready_rx.recv_timeout(PATIENCE).unwrap();
        drop(runtime);
        std::thread::sleep(Duration::from_millis(10));
        tx.send(5).unwrap();
        assert_eq!(waiter.join().unwrap(), 5);
    });
}

/// Through the handle of a runtime that is gone: `Handle::block_on` still
/// runs a future that needs no driver, a task spawned there is cancelled,
/// and a `spawn_blocking` job never runs, its handle saying cancelled.
#[test]
fn through_a_dropped_runtimes_handle_futures_run_and_work_is_cancelled() {
    limit("after the runtime is gone", || {
        let runtime = shim::runtime();
        let handle = runtime.handle().clone();
        drop(runtime);
        assert_eq!(handle.block_on(async { 5 }), 5);
        let err = handle
            .block_on(async { rt::spawn(async { 1 }).await })
            .unwrap_err();
        assert!(err.is_cancelled());
        let ran = Arc::new(AtomicBool::new(false));
        let flag = ran.clone();
        let job = handle.spawn_blocking(move || flag.store(true, Ordering::SeqCst));
        let err = futures::executor::block_on(job).unwrap_err();
        assert!(err.is_cancelled());
        std::thread::sleep(Duration::from_millis(20));
        assert!(!ran.load(Ordering::SeqCst), "a job ran after shutdown");
    });
}

/// A current-thread runtime can move to another thread: "all tasks will be
/// created and executed on the current thread", the one in `block_on`,
/// including a task spawned before the move.
#[test]
fn a_current_thread_runtime_runs_its_tasks_on_the_thread_in_block_on() {
    if shim::MULTI_THREAD {
        // The workers run the tasks.
        return;
    }
    limit("current-thread runtime moved", || {
        let runtime = shim::runtime();
        let early = runtime.spawn(async { std::thread::current().id() });
        let (there, early, later) = std::thread::spawn(move || {
            let (early, later) = runtime.block_on(async {
                let later = rt::spawn(async { std::thread::current().id() });
                (early.await.unwrap(), later.await.unwrap())
            });
            (std::thread::current().id(), early, later)
        })
        .join()
        .unwrap();
        assert_eq!(early, there);
        assert_eq!(later, there);
        assert_ne!(there, std::thread::current().id());
    });
}

/// A task spawned while the runtime shuts down (from the drop of a task's
/// future) is cancelled at once: its handle says so.
#[test]
fn a_task_spawned_from_a_drop_during_shutdown_is_cancelled() {
    limit("spawn during shutdown", || {
        let runtime = shim::runtime();
        let (tx, rx) = std::sync::mpsc::channel();
        struct SpawnOnDrop(std::sync::mpsc::Sender<rt::task::JoinHandle<u8>>);
        impl Drop for SpawnOnDrop {
            fn drop(&mut self) {
                let _ = self.0.send(rt::spawn(async { 1 }));
            }
        }
        let guard = SpawnOnDrop(tx);
        let started = runtime.block_on(async {
            let (started_tx, started_rx) = rt::sync::oneshot::channel();
            rt::spawn(async move {
                let _guard = guard;
                started_tx.send(()).unwrap();
                std::future::pending::<()>().await;
            });
            started_rx.await
        });
        started.unwrap();
        drop(runtime);
        let late = rx
            .recv_timeout(PATIENCE)
            .expect("the task's future was not dropped");
        let err = futures::executor::block_on(late).unwrap_err();
        assert!(err.is_cancelled());
    });
}

/// A blocking job is outside the runtime's own threads, so it may build
/// and `block_on` a second runtime of its own.
#[test]
fn a_blocking_job_may_block_on_a_runtime_of_its_own() {
    limit("runtime in spawn_blocking", || {
        shim::runtime().block_on(async {
            let out = rt::task::spawn_blocking(|| {
                let inner = shim::runtime();
                let out = inner.block_on(async {
                    rt::time::sleep(Duration::from_millis(1)).await;
                    rt::spawn(async { 9 }).await.unwrap()
                });
                drop(inner);
                out
            })
            .await
            .unwrap();
            assert_eq!(out, 9);
        });
    });
}

/// A sleep belongs to the runtime it was made on: made under a
/// multi-thread runtime's `enter` and awaited in another runtime's
/// `block_on`, it fires on its own runtime's timers; and a task's
/// `JoinHandle` can be awaited from another runtime.
#[test]
fn a_sleep_or_a_join_handle_of_one_runtime_completes_in_another() {
    limit("across runtimes", || {
        let home = rt::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .unwrap();
        let (sleep, task) = {
            let _guard = home.enter();
            (
                rt::time::sleep(Duration::from_millis(10)),
                rt::spawn(async {
                    rt::time::sleep(Duration::from_millis(5)).await;
                    3
                }),
            )
        };
        let other = shim::runtime();
        let out = other.block_on(async move {
            rt::time::timeout(PATIENCE, sleep)
                .await
                .expect("the sleep of the other runtime did not fire");
            rt::time::timeout(PATIENCE, task)
                .await
                .expect("the other runtime's task did not end")
                .unwrap()
        });
        assert_eq!(out, 3);
    });
}

/// The handles and streams of these layers cross threads as Tokio's do:
/// each is `Send` and `Sync` (so it can move into a task or a thread, or
/// be shared by reference), `JoinHandle` and the pipes are `Unpin` (so
/// `&mut handle` can be awaited in a `select!` loop), and each prints
/// with `{:?}`.
#[test]
fn handles_and_streams_are_send_sync_and_debug() {
    fn send_sync<T: Send + Sync>() {}
    fn unpin<T: Unpin>() {}
    type Duplex = rt::io::DuplexStream;
    send_sync::<rt::task::JoinHandle<u8>>();
    send_sync::<rt::task::AbortHandle>();
    send_sync::<rt::task::JoinError>();
    send_sync::<rt::runtime::Runtime>();
    send_sync::<rt::runtime::Handle>();
    send_sync::<rt::time::Sleep>();
    send_sync::<rt::time::Interval>();
    send_sync::<rt::time::Timeout<std::future::Ready<u8>>>();
    send_sync::<rt::time::error::Elapsed>();
    send_sync::<Duplex>();
    send_sync::<rt::io::SimplexStream>();
    send_sync::<rt::io::ReadHalf<Duplex>>();
    send_sync::<rt::io::WriteHalf<Duplex>>();
    send_sync::<BufReader<Duplex>>();
    send_sync::<BufWriter<Duplex>>();
    send_sync::<rt::io::BufStream<Duplex>>();
    send_sync::<rt::io::Lines<BufReader<Duplex>>>();
    send_sync::<rt::io::Split<BufReader<Duplex>>>();
    send_sync::<rt::io::Take<Duplex>>();
    send_sync::<rt::io::Chain<Duplex, Duplex>>();
    send_sync::<rt::io::Empty>();
    send_sync::<rt::io::Sink>();
    send_sync::<rt::io::Repeat>();
    unpin::<rt::task::JoinHandle<u8>>();
    unpin::<Duplex>();
    unpin::<rt::io::ReadHalf<Duplex>>();
    unpin::<BufReader<Duplex>>();
    limit("Debug", || {
        let runtime = shim::runtime();
        let guard = runtime.enter();
        assert!(!format!("{guard:?}").is_empty());
        drop(guard);
        runtime.block_on(async {
            let handle = rt::spawn(async { 1u8 });
            assert!(!format!("{handle:?}").is_empty());
            assert!(!format!("{:?}", handle.abort_handle()).is_empty());
            handle.await.unwrap();
            let (a, _b) = rt::io::duplex(8);
            assert!(!format!("{:?}", BufReader::new(a)).is_empty());
            assert!(!format!("{:?}", rt::time::sleep(Duration::ZERO)).is_empty());
            assert!(!format!("{:?}", rt::time::interval(Duration::from_secs(1))).is_empty());
            assert!(!format!("{:?}", rt::runtime::Handle::current()).is_empty());
        });
        assert!(!format!("{runtime:?}").is_empty());
    });
}

/// `#[test(flavor = "multi_thread", worker_threads = 2)]` builds a
/// multi-thread runtime of two workers for the test's body.
#[crate::rt::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_test_attribute_builds_the_multi_thread_flavour_asked_for() {
    let handle = rt::runtime::Handle::current();
    assert_eq!(
        handle.runtime_flavor(),
        rt::runtime::RuntimeFlavor::MultiThread
    );
    assert_eq!(handle.metrics().num_workers(), 2);
    let caller = std::thread::current().id();
    let elsewhere = rt::spawn(async { std::thread::current().id() })
        .await
        .unwrap();
    assert_ne!(elsewhere, caller, "a task ran on the test's own thread");
}

/// `#[test(flavor = "current_thread", start_paused = true)]`: one thread,
/// and the clock paused from the start.
#[crate::rt::test(flavor = "current_thread", start_paused = true)]
async fn the_test_attribute_builds_a_paused_current_thread_runtime() {
    let handle = rt::runtime::Handle::current();
    assert_eq!(
        handle.runtime_flavor(),
        rt::runtime::RuntimeFlavor::CurrentThread
    );
    let caller = std::thread::current().id();
    let there = rt::spawn(async { std::thread::current().id() })
        .await
        .unwrap();
    assert_eq!(there, caller);
    let start = rt::time::Instant::now();
    rt::time::sleep(Duration::from_secs(86_400)).await;
    assert_eq!(start.elapsed(), Duration::from_secs(86_400));
}
