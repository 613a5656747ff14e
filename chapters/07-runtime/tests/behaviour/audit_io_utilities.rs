//! The `tokio::io` utilities where an implementation built on another
//! library's futures is most likely to part from Tokio's documentation:
//! which helpers retry a read or a write that fails with `Interrupted`
//! (`read_exact`, the integer readers and writers, `read_to_end`,
//! `read_to_string`, `read_until`, `read_line`, `lines`, `split`,
//! `write_all`, `write_all_buf`), what the reading helpers leave in the
//! caller's buffer when the stream fails part-way, how much one
//! `read_buf` reads (the buffer's current chunk), `ReadBuf` itself (its
//! cursors and the words of its panics), the pipes' panic words, where
//! `next_line` strips a carriage return and where it does not, and the
//! order in which a `BufWriter` lets bytes out. Every test passes on
//! Tokio 1.54, which compiles this same file in `behaviour_tokio.rs`.
//!
//! The differences they found are fixed in rt: the Tokio-named
//! `rt::io::ReadBuf` was the future of `read_buf`, not Tokio's buffer
//! type; `read_buf` read up to 8 KiB whatever room the buffer had; the
//! helpers above (all but `read_to_string`) ended on `Interrupted`; and
//! the pipes' panics did not say Tokio's words.

use crate::behaviour::{expect_panic, limit};
use crate::{rt, shim};
use rt::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader, BufWriter, ReadBuf};
use std::io::ErrorKind;
use std::mem::MaybeUninit;

/// A directory opened as a file: reading it fails (`EISDIR`), which gives
/// a stream that yields some bytes and then an error, `(&bytes[..])
/// .chain(directory)`, without a hand-written reader (the two runtimes'
/// reading traits differ).
async fn a_directory() -> rt::fs::File {
    rt::fs::File::open(std::env::temp_dir())
        .await
        .expect("open the temporary directory as a file")
}

/// Tokio, `read_exact`: "Errors of kind `std::io::ErrorKind::Interrupted`
/// are retried"; the integer readers (`read_u8`, `read_u16`,
/// `read_u32_le`...) read through the same loop. End of file part-way is
/// still `UnexpectedEof`.
#[test]
fn read_exact_and_the_integer_readers_retry_interrupted_reads() {
    limit("read_exact and Interrupted", || {
        shim::runtime().block_on(async {
            let bytes = b"abcd\x07\x00\x01\x02\x03\x04\x05\x06\x07\x08";
            let mut reader = shim::interrupting(&bytes[..]);
            let mut four = [0u8; 4];
            assert_eq!(reader.read_exact(&mut four).await.unwrap(), 4);
            assert_eq!(&four, b"abcd");
            assert_eq!(reader.read_u8().await.unwrap(), 7);
            assert_eq!(reader.read_u16().await.unwrap(), 1);
            assert_eq!(reader.read_u32_le().await.unwrap(), 0x0504_0302);
            let err = reader.read_u32().await.unwrap_err();
            assert_eq!(err.kind(), ErrorKind::UnexpectedEof);
        });
    });
}

/// Tokio, `read_to_end`: "Errors of kind `Interrupted` are retried";
/// `read_to_string` is `read_to_end` plus a UTF-8 check. Both append to
/// what the buffer held and return only the count they added.
#[test]
fn read_to_end_and_read_to_string_retry_interrupted_reads() {
    limit("read_to_end and Interrupted", || {
        shim::runtime().block_on(async {
            let mut reader = shim::interrupting(&b"hello"[..]);
            let mut bytes = b">".to_vec();
            assert_eq!(reader.read_to_end(&mut bytes).await.unwrap(), 5);
            assert_eq!(bytes, b">hello");

            let mut reader = shim::interrupting(&b"world"[..]);
            let mut text = String::from("hello ");
            assert_eq!(reader.read_to_string(&mut text).await.unwrap(), 5);
            assert_eq!(text, "hello world");
        });
    });
}

/// Tokio, `read_until`: "This function will ignore all instances of
/// `ErrorKind::Interrupted`"; `read_line`, `Lines::next_line` and
/// `Split::next_segment` read through the same loop.
#[test]
fn the_delimiter_readers_retry_interrupted_fills() {
    limit("read_until and Interrupted", || {
        shim::runtime().block_on(async {
            let mut reader = shim::interrupting(&b"one\ntwo\nthree"[..]);
            let mut bytes = Vec::new();
            assert_eq!(reader.read_until(b'\n', &mut bytes).await.unwrap(), 4);
            assert_eq!(bytes, b"one\n");
            let mut line = String::from("> ");
            assert_eq!(reader.read_line(&mut line).await.unwrap(), 4);
            assert_eq!(line, "> two\n");
            line.clear();
            assert_eq!(reader.read_line(&mut line).await.unwrap(), 5);
            assert_eq!(line, "three");

            let mut lines = shim::interrupting(&b"a\r\nb"[..]).lines();
            assert_eq!(lines.next_line().await.unwrap().as_deref(), Some("a"));
            assert_eq!(lines.next_line().await.unwrap().as_deref(), Some("b"));
            assert_eq!(lines.next_line().await.unwrap(), None);

            let mut segments = shim::interrupting(&b"x;y"[..]).split(b';');
            assert_eq!(segments.next_segment().await.unwrap(), Some(b"x".to_vec()));
            assert_eq!(segments.next_segment().await.unwrap(), Some(b"y".to_vec()));
            assert_eq!(segments.next_segment().await.unwrap(), None);
        });
    });
}

/// Tokio, `write_all` and `write_all_buf`: "Errors of kind
/// `ErrorKind::Interrupted` are ignored and the write is retried. The
/// first other error generated will be returned." The integer writers
/// write through the same loop.
#[test]
fn the_whole_buffer_writers_retry_interrupted_writes() {
    limit("write_all and Interrupted", || {
        shim::runtime().block_on(async {
            let mut writer = shim::interrupting(Vec::new());
            writer.write_all(b"ab").await.unwrap();
            writer.write_u16(0x0102).await.unwrap();
            let mut rest: &[u8] = b"cd";
            writer.write_all_buf(&mut rest).await.unwrap();
            assert!(rest.is_empty());
            writer.write_i32_le(-2).await.unwrap();
            writer.write_u8(9).await.unwrap();
            assert_eq!(writer.inner, b"ab\x01\x02cd\xfe\xff\xff\xff\x09");
        });
    });
}

/// `write_all` and `write_all_buf` of nothing are done before they call
/// the writer: even one that accepts no byte does not make them fail with
/// `WriteZero` (Tokio: they write "until the entire buffer has been
/// successfully written", and an empty buffer already has).
#[test]
fn writing_nothing_to_a_writer_that_takes_nothing_succeeds() {
    limit("write_all of nothing", || {
        shim::runtime().block_on(async {
            let mut full = shim::ZeroWriter;
            full.write_all(b"").await.unwrap();
            let mut nothing: &[u8] = b"";
            full.write_all_buf(&mut nothing).await.unwrap();
            let err = full.write_u8(1).await.unwrap_err();
            assert_eq!(err.kind(), ErrorKind::WriteZero);
        });
    });
}

/// Tokio, `read_to_end`: "If another read error is encountered then the
/// `read_to_end` operation immediately completes. Any bytes which have
/// already been read will be appended to `buf`." `read_to_string`, on the
/// other hand, leaves its string as it was (Tokio: "`buf` is unchanged").
#[test]
fn read_to_end_keeps_what_it_read_before_an_error_and_read_to_string_does_not() {
    limit("read_to_end then an error", || {
        shim::runtime().block_on(async {
            let mut reader = (&b"abc"[..]).chain(a_directory().await);
            let mut bytes = b">".to_vec();
            let err = reader.read_to_end(&mut bytes).await.unwrap_err();
            assert_ne!(err.kind(), ErrorKind::UnexpectedEof);
            assert_eq!(bytes, b">abc");

            let mut reader = (&b"abc"[..]).chain(a_directory().await);
            let mut text = String::from(">");
            reader.read_to_string(&mut text).await.unwrap_err();
            assert_eq!(text, ">");
        });
    });
}

/// Tokio, `read_until`: "If an I/O error is encountered then all bytes
/// read so far will be present in `buf`"; `read_line`: "If an I/O error is
/// encountered then `buf` may contain some bytes already read in the event
/// that all data read so far was valid UTF-8" (Tokio's does append them).
#[test]
fn read_until_and_read_line_keep_what_they_read_before_an_error() {
    limit("read_until then an error", || {
        shim::runtime().block_on(async {
            let mut reader = BufReader::new((&b"ab"[..]).chain(a_directory().await));
            let mut bytes = b">".to_vec();
            reader.read_until(b'\n', &mut bytes).await.unwrap_err();
            assert_eq!(bytes, b">ab");

            let mut reader = BufReader::new((&b"cd"[..]).chain(a_directory().await));
            let mut line = String::from(">");
            reader.read_line(&mut line).await.unwrap_err();
            assert_eq!(line, ">cd");
        });
    });
}

/// `read_to_end` and `read_line` over a pipe whose writer sends in
/// pieces: the bytes gather across polls that wait, and come out whole
/// and in order, appended to what the buffer held.
#[test]
fn read_to_end_and_read_line_gather_a_stream_that_arrives_in_pieces() {
    limit("read_to_end in pieces", || {
        shim::runtime().block_on(async {
            let data: Vec<u8> = (0..100_000u32).map(|i| (i % 251) as u8).collect();
            let (mut tx, mut rx) = rt::io::duplex(1000);
            let sent = data.clone();
            let writer = rt::spawn(async move {
                tx.write_all(&sent).await.unwrap();
            });
            let mut got = b"head".to_vec();
            assert_eq!(rx.read_to_end(&mut got).await.unwrap(), data.len());
            assert_eq!(&got[..4], b"head");
            assert!(got[4..] == data[..], "read_to_end lost or reordered bytes");
            writer.await.unwrap();

            let (mut tx, rx) = rt::io::duplex(4);
            let writer = rt::spawn(async move {
                tx.write_all("a line of more than four bytes\nrest".as_bytes())
                    .await
                    .unwrap();
            });
            let mut reader = BufReader::with_capacity(3, rx);
            let mut line = String::from("> ");
            assert_eq!(reader.read_line(&mut line).await.unwrap(), 31);
            assert_eq!(line, "> a line of more than four bytes\n");
            writer.await.unwrap();
            line.clear();
            assert_eq!(reader.read_line(&mut line).await.unwrap(), 4);
            assert_eq!(line, "rest");
        });
    });
}

/// Tokio, `read_buf`: one read ("Usually, only a single `read` syscall is
/// issued, even if there is more space in the supplied buffer") into the
/// buffer's current chunk (`BufMut::chunk_mut`): the room a `Vec` or
/// `BytesMut` already has, not as much as the source holds. A full `Vec`
/// grows by its chunk and takes some more.
#[test]
fn read_buf_reads_at_most_the_room_the_buffer_already_has() {
    limit("read_buf and spare capacity", || {
        shim::runtime().block_on(async {
            let source = [7u8; 100];
            let mut reader = &source[..];
            let mut into = Vec::with_capacity(8);
            let room = into.capacity();
            assert!(room < 100);
            assert_eq!(reader.read_buf(&mut into).await.unwrap(), room);
            assert_eq!(into.len(), room);
            assert_eq!(reader.len(), 100 - room);
            let n = reader.read_buf(&mut into).await.unwrap();
            assert!(n > 0 && n <= 100 - room);
            assert_eq!(into.len(), room + n);

            let mut reader = &source[..];
            let mut into = bytes::BytesMut::with_capacity(16);
            let room = into.capacity();
            assert!(room < 100);
            assert_eq!(reader.read_buf(&mut into).await.unwrap(), room);
            assert_eq!(into.len(), room);
        });
    });
}

/// `ReadBuf::new`: "Creates a new `ReadBuf` from a fully initialized
/// buffer": nothing filled, everything initialized. `put_slice` appends
/// to the filled part; `advance` and `set_filled` move its end within
/// what is initialized ("can be used to *shrink* the filled region");
/// `clear` empties it ("The number of initialized bytes is not changed,
/// and the contents of the buffer are not modified").
#[test]
fn a_read_buf_over_initialized_bytes_moves_its_filled_cursor() {
    limit("ReadBuf::new", || {
        let mut storage = [b'.'; 8];
        {
            let mut buf = ReadBuf::new(&mut storage);
            assert_eq!(buf.capacity(), 8);
            assert_eq!(buf.remaining(), 8);
            assert!(buf.filled().is_empty());
            assert_eq!(buf.initialized(), b"........");

            buf.put_slice(b"abc");
            assert_eq!(buf.filled(), b"abc");
            assert_eq!(buf.remaining(), 5);
            buf.advance(2);
            assert_eq!(buf.filled(), b"abc..");
            buf.set_filled(1);
            assert_eq!(buf.filled(), b"a");
            assert_eq!(buf.initialized().len(), 8);
            buf.filled_mut()[0] = b'A';

            assert_eq!(buf.initialize_unfilled().len(), 7);
            buf.initialize_unfilled_to(2).copy_from_slice(b"BC");
            buf.advance(2);
            assert_eq!(buf.filled(), b"ABC");

            let part = buf.take(100);
            assert_eq!(part.capacity(), 5, "take is bounded by what remains");
            assert!(part.filled().is_empty());

            buf.clear();
            assert!(buf.filled().is_empty());
            assert_eq!(buf.remaining(), 8);
            assert_eq!(&buf.initialized()[..3], b"ABC");
        }
        assert_eq!(&storage, b"ABC.....");
    });
}

/// `ReadBuf::uninit`: "The internal cursor will mark the entire buffer as
/// uninitialized"; `initialize_unfilled_to(n)` initializes the first `n`
/// unfilled bytes (and counts them), `put_slice` moves the initialized
/// cursor along with the filled one where it passes it.
#[test]
fn a_read_buf_over_uninitialized_bytes_initializes_as_it_goes() {
    limit("ReadBuf::uninit", || {
        let mut raw = [MaybeUninit::<u8>::uninit(); 6];
        let mut buf = ReadBuf::uninit(&mut raw);
        assert_eq!(buf.capacity(), 6);
        assert_eq!(buf.remaining(), 6);
        assert!(buf.initialized().is_empty());

        buf.initialize_unfilled_to(2).copy_from_slice(b"xy");
        assert_eq!(buf.initialized(), b"xy");
        assert!(buf.filled().is_empty());
        buf.advance(1);
        assert_eq!(buf.filled(), b"x");

        buf.put_slice(b"123");
        assert_eq!(buf.filled(), b"x123");
        assert_eq!(buf.initialized(), b"x123");
        assert_eq!(buf.remaining(), 2);
    });
}

/// `ReadBuf`'s documented panics, in Tokio's words: `put_slice` "Panics
/// if `self.remaining()` is less than `buf.len()`"; `advance` and
/// `set_filled` "Panics if the filled region of the buffer would become
/// larger than the initialized region"; `initialize_unfilled_to` "Panics
/// if `self.remaining()` is less than `n`".
#[test]
fn read_buf_misuse_panics_with_tokios_words() {
    limit("ReadBuf panics", || {
        let caught = expect_panic("put_slice past the end", || {
            let mut storage = [0u8; 2];
            ReadBuf::new(&mut storage).put_slice(b"abc");
        });
        caught.assert_says("buf.len() must fit in remaining()");

        let caught = expect_panic("advance past the initialized", || {
            let mut raw = [MaybeUninit::<u8>::uninit(); 4];
            ReadBuf::uninit(&mut raw).advance(1);
        });
        caught.assert_says("filled must not become larger than initialized");

        let caught = expect_panic("set_filled past the end", || {
            let mut storage = [0u8; 4];
            ReadBuf::new(&mut storage).set_filled(5);
        });
        caught.assert_says("filled must not become larger than initialized");

        let caught = expect_panic("initialize_unfilled_to past the end", || {
            let mut storage = [0u8; 4];
            let mut buf = ReadBuf::new(&mut storage);
            buf.put_slice(b"a");
            buf.initialize_unfilled_to(4).len()
        });
        caught.assert_says("n overflows remaining");
    });
}

/// `duplex`, `simplex` and `SimplexStream::new_unsplit`: "This function
/// panics if `max_buf_size` is 0", with the words of Tokio's assertion.
#[test]
fn pipes_of_no_room_panic_with_tokios_words() {
    limit("pipes of no room", || {
        let words = "`max_buf_size` must be greater than 0";
        expect_panic("duplex(0)", || rt::io::duplex(0)).assert_says(words);
        expect_panic("simplex(0)", || rt::io::simplex(0)).assert_says(words);
        expect_panic("new_unsplit(0)", || rt::io::SimplexStream::new_unsplit(0)).assert_says(words);
    });
}

/// `Lines::next_line`: each line is returned "without the newline", and
/// a line that ended in "\r\n" loses the "\r" too; a "\r" anywhere else
/// (inside a line, or ending the last line, which has no "\n") is part of
/// the line. Empty lines are lines.
#[test]
fn next_line_strips_a_carriage_return_only_before_a_newline() {
    limit("next_line and \\r", || {
        shim::runtime().block_on(async {
            let text = b"a\r\n\r\nb\rc\n\nlast\r";
            let mut lines = BufReader::new(&text[..]).lines();
            let mut got = Vec::new();
            while let Some(line) = lines.next_line().await.unwrap() {
                got.push(line);
            }
            assert_eq!(got, ["a", "", "b\rc", "", "last\r"]);
        });
    });
}

/// `BufWriter`: a write that does not fit beside what is buffered writes
/// the buffer out first, then is buffered itself when it is smaller than
/// the capacity; one at least as large as the capacity goes straight to
/// the writer underneath after the buffer. The bytes arrive in order.
#[test]
fn a_buf_writer_writes_its_buffer_out_before_a_write_that_does_not_fit() {
    limit("BufWriter overflow", || {
        shim::runtime().block_on(async {
            let mut writer = BufWriter::with_capacity(4, Vec::new());
            assert_eq!(writer.write(b"ab").await.unwrap(), 2);
            assert!(writer.get_ref().is_empty());
            assert_eq!(writer.buffer(), b"ab");

            assert_eq!(writer.write(b"cde").await.unwrap(), 3);
            assert_eq!(writer.get_ref(), b"ab");
            assert_eq!(writer.buffer(), b"cde");

            assert_eq!(writer.write(b"fghij").await.unwrap(), 5);
            assert_eq!(writer.get_ref(), b"abcdefghij");
            assert!(writer.buffer().is_empty());

            writer.write_all(b"k").await.unwrap();
            assert_eq!(writer.get_ref(), b"abcdefghij");
            writer.shutdown().await.unwrap();
            assert_eq!(writer.into_inner(), b"abcdefghijk");
        });
    });
}

/// `stdin`, `stdout` and `stderr` have Tokio's names and types
/// (`Stdin`, `Stdout`, `Stderr`), made inside a runtime.
#[test]
fn the_standard_streams_have_tokios_names() {
    limit("stdio names", || {
        shim::runtime().block_on(async {
            let _: rt::io::Stdin = rt::io::stdin();
            let _: rt::io::Stdout = rt::io::stdout();
            let _: rt::io::Stderr = rt::io::stderr();
        });
    });
}
