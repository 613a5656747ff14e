//! Tests for exercise ch03_verify_echo (`exercises/ch03/verify_echo.rs`).

#[cfg_attr(not(feature = "solutions"), path = "../ch03/verify_echo.rs")]
#[cfg_attr(feature = "solutions", path = "../solutions/ch03/verify_echo.rs")]
#[allow(dead_code, unused_variables, unused_imports)]
mod verify_echo;

mod ch03_verify_echo {
    use super::verify_echo::{PatternStream, Verdict, verify_echo};
    use std::io::{self, Read};

    /// Hands out its bytes 1 to 7 at a time, with an `Interrupted` now and
    /// then, and remembers how much was taken.
    struct Trickle {
        data: Vec<u8>,
        at: usize,
        calls: usize,
    }

    impl Trickle {
        fn new(data: Vec<u8>) -> Trickle {
            Trickle {
                data,
                at: 0,
                calls: 0,
            }
        }
    }

    impl Read for Trickle {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            self.calls += 1;
            if self.calls.is_multiple_of(5) {
                return Err(io::ErrorKind::Interrupted.into());
            }
            let n = (1 + self.calls % 7)
                .min(buf.len())
                .min(self.data.len() - self.at);
            buf[..n].copy_from_slice(&self.data[self.at..self.at + n]);
            self.at += n;
            Ok(n)
        }
    }

    fn echo(seed: u64, len: usize) -> Vec<u8> {
        let mut data = vec![0; len];
        PatternStream::new(seed).fill(&mut data);
        data
    }

    #[test]
    fn a_faithful_echo_passes() {
        let mut reader = Trickle::new(echo(7, 10_000));
        let verdict = verify_echo(&mut reader, 7, 10_000).unwrap();
        assert_eq!(
            verdict,
            Verdict {
                bytes: 10_000,
                mismatches: 0,
                first_mismatch: None
            }
        );
    }

    #[test]
    fn a_flipped_byte_is_found_where_it_is() {
        let mut data = echo(7, 5_000);
        data[1234] ^= 0x40;
        data[4000] ^= 0x01;
        let verdict = verify_echo(&mut Trickle::new(data), 7, 5_000).unwrap();
        assert_eq!(verdict.mismatches, 2);
        assert_eq!(verdict.first_mismatch, Some(1234));
    }

    #[test]
    fn a_lost_byte_spoils_everything_after_it() {
        let mut data = echo(3, 2_001);
        data.remove(1000);
        let verdict = verify_echo(&mut Trickle::new(data), 3, 2_000).unwrap();
        assert_eq!(verdict.first_mismatch, Some(1000));
        assert!(verdict.mismatches > 900, "{verdict:?}");
    }

    #[test]
    fn another_connections_bytes_do_not_pass() {
        let verdict = verify_echo(&mut Trickle::new(echo(1, 500)), 2, 500).unwrap();
        assert!(verdict.mismatches > 450);
        assert!(verdict.first_mismatch.unwrap() < 8);
    }

    #[test]
    fn it_reads_exactly_what_it_checks() {
        let mut reader = Trickle::new(echo(9, 3_000));
        verify_echo(&mut reader, 9, 1_000).unwrap();
        assert_eq!(reader.at, 1_000, "read past the expected bytes");
    }

    #[test]
    fn an_echo_that_ends_early_is_an_error() {
        let err = verify_echo(&mut Trickle::new(echo(5, 100)), 5, 101).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::UnexpectedEof);
    }

    #[test]
    fn an_error_other_than_interrupted_is_returned_not_retried() {
        /// Fails its first read as a reset connection would, then echoes.
        struct ResetOnce(Trickle, bool);
        impl Read for ResetOnce {
            fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
                if !self.1 {
                    self.1 = true;
                    return Err(io::ErrorKind::ConnectionReset.into());
                }
                self.0.read(buf)
            }
        }
        let mut reader = ResetOnce(Trickle::new(echo(4, 100)), false);
        let err = verify_echo(&mut reader, 4, 100).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::ConnectionReset);
    }
}
