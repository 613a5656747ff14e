//! Tests for exercise ch01_echo_loop (`exercises/ch01/echo_loop.rs`).

#[cfg_attr(not(feature = "solutions"), path = "../ch01/echo_loop.rs")]
#[cfg_attr(feature = "solutions", path = "../solutions/ch01/echo_loop.rs")]
#[allow(dead_code, unused_variables, unused_imports)]
mod echo_loop;

mod ch01_echo_loop {
    use super::echo_loop::echo_until_eof;
    use std::collections::VecDeque;
    use std::io::{self, Read, Write};

    /// One scripted answer to a `read` call.
    enum Step {
        Data(&'static [u8]),
        Fail(io::ErrorKind),
    }

    /// A stream that replays a script of reads (end of file after the last
    /// step) and accepts at most `write_limit` bytes per `write` call, failing
    /// every other write with `Interrupted` when `interrupt_writes` is set.
    struct Scripted {
        reads: VecDeque<Step>,
        written: Vec<u8>,
        write_limit: usize,
        interrupt_writes: bool,
        writes: usize,
    }

    impl Scripted {
        fn new(reads: Vec<Step>, write_limit: usize, interrupt_writes: bool) -> Scripted {
            Scripted {
                reads: reads.into(),
                written: Vec::new(),
                write_limit,
                interrupt_writes,
                writes: 0,
            }
        }
    }

    impl Read for Scripted {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            match self.reads.pop_front() {
                None => Ok(0),
                Some(Step::Fail(kind)) => Err(io::Error::from(kind)),
                Some(Step::Data(data)) => {
                    let n = data.len().min(buf.len());
                    buf[..n].copy_from_slice(&data[..n]);
                    if n < data.len() {
                        // The rest stays for the next read.
                        self.reads.push_front(Step::Data(&data[n..]));
                    }
                    Ok(n)
                }
            }
        }
    }

    impl Write for Scripted {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.writes += 1;
            if self.interrupt_writes && self.writes % 2 == 1 {
                return Err(io::ErrorKind::Interrupted.into());
            }
            let n = buf.len().min(self.write_limit);
            self.written.extend_from_slice(&buf[..n]);
            Ok(n)
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn echoes_everything_until_end_of_file() {
        let mut stream = Scripted::new(
            vec![Step::Data(b"hello, "), Step::Data(b"world")],
            usize::MAX,
            false,
        );
        assert_eq!(echo_until_eof(&mut stream, 64).unwrap(), 12);
        assert_eq!(stream.written, b"hello, world");
    }

    #[test]
    fn a_small_buffer_takes_several_reads() {
        let mut stream = Scripted::new(vec![Step::Data(b"0123456789abcdef")], usize::MAX, false);
        assert_eq!(echo_until_eof(&mut stream, 3).unwrap(), 16);
        assert_eq!(stream.written, b"0123456789abcdef");
    }

    #[test]
    fn partial_writes_are_completed() {
        let mut stream = Scripted::new(vec![Step::Data(b"a partial write")], 2, false);
        assert_eq!(echo_until_eof(&mut stream, 64).unwrap(), 15);
        assert_eq!(stream.written, b"a partial write");
    }

    #[test]
    fn interrupted_calls_are_retried() {
        let mut stream = Scripted::new(
            vec![
                Step::Fail(io::ErrorKind::Interrupted),
                Step::Data(b"signals "),
                Step::Fail(io::ErrorKind::Interrupted),
                Step::Data(b"happen"),
            ],
            3,
            true,
        );
        assert_eq!(echo_until_eof(&mut stream, 64).unwrap(), 14);
        assert_eq!(stream.written, b"signals happen");
    }

    #[test]
    fn a_reset_is_an_error_after_what_came_before() {
        let mut stream = Scripted::new(
            vec![
                Step::Data(b"before"),
                Step::Fail(io::ErrorKind::ConnectionReset),
                Step::Data(b"after"),
            ],
            usize::MAX,
            false,
        );
        let err = echo_until_eof(&mut stream, 64).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::ConnectionReset);
        assert_eq!(stream.written, b"before");
    }

    #[test]
    fn an_empty_stream_echoes_nothing() {
        let mut stream = Scripted::new(vec![], usize::MAX, false);
        assert_eq!(echo_until_eof(&mut stream, 64).unwrap(), 0);
        assert!(stream.written.is_empty());
    }
}
