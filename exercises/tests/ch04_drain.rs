//! Tests for exercise ch04_drain (`exercises/ch04/drain.rs`).

#[cfg_attr(not(feature = "solutions"), path = "../ch04/drain.rs")]
#[cfg_attr(feature = "solutions", path = "../solutions/ch04/drain.rs")]
#[allow(dead_code, unused_variables, unused_imports)]
mod drain;

mod ch04_drain {
    use super::drain::{CHUNK, Stop, drain};
    use std::collections::VecDeque;
    use std::io::{self, Read};

    /// A non-blocking socket as a script: data, then `WouldBlock` (or end
    /// of stream), with `Interrupted` thrown in.
    struct Socket {
        steps: VecDeque<Result<Vec<u8>, io::ErrorKind>>,
        largest_ask: usize,
    }

    impl Socket {
        fn new(steps: Vec<Result<Vec<u8>, io::ErrorKind>>) -> Socket {
            Socket {
                steps: steps.into(),
                largest_ask: 0,
            }
        }
    }

    impl Read for Socket {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            self.largest_ask = self.largest_ask.max(buf.len());
            match self.steps.pop_front() {
                None => Err(io::ErrorKind::WouldBlock.into()),
                Some(Err(kind)) => Err(kind.into()),
                Some(Ok(data)) if data.is_empty() => Ok(0),
                Some(Ok(mut data)) => {
                    let n = data.len().min(buf.len());
                    buf[..n].copy_from_slice(&data[..n]);
                    if n < data.len() {
                        self.steps.push_front(Ok(data.split_off(n)));
                    }
                    Ok(n)
                }
            }
        }
    }

    #[test]
    fn reads_everything_until_it_would_block() {
        let mut socket = Socket::new(vec![Ok(vec![1; 10_000]), Ok(vec![2; 500])]);
        let mut into = Vec::new();
        assert_eq!(
            drain(&mut socket, &mut into, 1 << 20).unwrap(),
            Stop::Drained
        );
        assert_eq!(into.len(), 10_500);
        assert_eq!(into[9_999], 1);
        assert_eq!(into[10_000], 2);
        assert!(socket.largest_ask <= CHUNK);
    }

    #[test]
    fn end_of_stream_is_reported_after_the_data() {
        let mut socket = Socket::new(vec![Ok(b"last words".to_vec()), Ok(Vec::new())]);
        let mut into = Vec::new();
        assert_eq!(drain(&mut socket, &mut into, 1 << 20).unwrap(), Stop::Eof);
        assert_eq!(into, b"last words");
    }

    #[test]
    fn it_stops_exactly_at_the_limit() {
        let mut socket = Socket::new(vec![Ok(vec![7; 50_000])]);
        let mut into = vec![0; 100];
        assert_eq!(drain(&mut socket, &mut into, 10_000).unwrap(), Stop::Full);
        assert_eq!(into.len(), 10_000);
        // The rest is still in the socket for later.
        let mut rest = Vec::new();
        assert_eq!(
            drain(&mut socket, &mut rest, 1 << 20).unwrap(),
            Stop::Drained
        );
        assert_eq!(rest.len(), 50_000 - 9_900);
    }

    #[test]
    fn interrupted_is_retried_and_other_errors_returned() {
        let mut socket = Socket::new(vec![
            Err(io::ErrorKind::Interrupted),
            Ok(b"ok".to_vec()),
            Err(io::ErrorKind::Interrupted),
        ]);
        let mut into = Vec::new();
        assert_eq!(drain(&mut socket, &mut into, 100).unwrap(), Stop::Drained);
        assert_eq!(into, b"ok");
        let mut reset = Socket::new(vec![Ok(b"x".to_vec()), Err(io::ErrorKind::ConnectionReset)]);
        let err = drain(&mut reset, &mut Vec::new(), 100).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::ConnectionReset);
    }

    #[test]
    fn a_full_buffer_reads_nothing() {
        let mut socket = Socket::new(vec![Ok(vec![1; 10])]);
        let mut into = vec![0; 64];
        assert_eq!(drain(&mut socket, &mut into, 64).unwrap(), Stop::Full);
        assert_eq!(socket.steps.len(), 1, "read although there was no room");
    }
}
