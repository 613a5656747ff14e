//! Tests for exercise ch04_outbox (`exercises/ch04/outbox.rs`).

#[cfg_attr(not(feature = "solutions"), path = "../ch04/outbox.rs")]
#[cfg_attr(feature = "solutions", path = "../solutions/ch04/outbox.rs")]
#[allow(dead_code, unused_variables, unused_imports)]
mod outbox;

mod ch04_outbox {
    use super::outbox::Outbox;
    use std::io::{self, Write};

    /// A socket with `room` bytes free; `drain(n)` makes room as the peer
    /// reads. Interrupts every third call.
    #[derive(Default)]
    struct Socket {
        written: Vec<u8>,
        room: usize,
        calls: usize,
        writes_while_full: usize,
        /// Writes of no bytes at all: system calls wasted.
        empty_writes: usize,
    }

    impl Socket {
        fn with_room(room: usize) -> Socket {
            Socket {
                room,
                ..Socket::default()
            }
        }
    }

    impl Write for Socket {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.calls += 1;
            if buf.is_empty() {
                self.empty_writes += 1;
            }
            if self.calls.is_multiple_of(3) {
                return Err(io::ErrorKind::Interrupted.into());
            }
            if self.room == 0 {
                self.writes_while_full += 1;
                // Fail now rather than spin forever.
                assert!(self.writes_while_full < 100, "spun on a full socket");
                return Err(io::ErrorKind::WouldBlock.into());
            }
            let n = buf.len().min(self.room).min(1000);
            self.written.extend_from_slice(&buf[..n]);
            self.room -= n;
            Ok(n)
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn what_fits_goes_now() {
        let mut socket = Socket::with_room(1 << 20);
        let mut outbox = Outbox::default();
        outbox.send(&mut socket, &[5; 5000]).unwrap();
        assert_eq!(socket.written.len(), 5000);
        assert!(outbox.is_empty());
        assert_eq!(
            socket.empty_writes, 0,
            "a write of nothing wastes a system call"
        );
    }

    #[test]
    fn the_rest_waits_and_goes_in_order() {
        let mut socket = Socket::with_room(3000);
        let mut outbox = Outbox::default();
        let first: Vec<u8> = (0..5000).map(|i| (i % 200) as u8).collect();
        outbox.send(&mut socket, &first).unwrap();
        assert_eq!(socket.written.len(), 3000);
        assert_eq!(outbox.len(), 2000);
        assert!(!outbox.is_empty());
        // Newer bytes queue behind, without touching the socket.
        let calls = socket.calls;
        outbox.send(&mut socket, b"newer").unwrap();
        assert_eq!(socket.calls, calls, "wrote while older bytes were queued");
        assert_eq!(outbox.len(), 2005);
        // The peer reads; the flush sends everything, in order.
        socket.room = 1 << 20;
        assert!(outbox.flush(&mut socket).unwrap());
        let mut expected = first.clone();
        expected.extend_from_slice(b"newer");
        assert_eq!(socket.written, expected);
    }

    #[test]
    fn flush_stops_when_the_socket_is_full() {
        let mut socket = Socket::with_room(0);
        let mut outbox = Outbox::default();
        outbox.send(&mut socket, &[1; 100]).unwrap();
        assert_eq!(outbox.len(), 100);
        assert!(!outbox.flush(&mut socket).unwrap());
        assert_eq!(outbox.len(), 100);
        assert!(socket.writes_while_full <= 3, "spun on a full socket");
        socket.room = 40;
        assert!(!outbox.flush(&mut socket).unwrap());
        assert_eq!(outbox.len(), 60);
    }

    #[test]
    fn real_errors_are_returned() {
        struct Broken(usize);
        impl Write for Broken {
            fn write(&mut self, _: &[u8]) -> io::Result<usize> {
                self.0 += 1;
                assert!(self.0 < 100, "retried a broken pipe over and over");
                Err(io::ErrorKind::BrokenPipe.into())
            }
            fn flush(&mut self) -> io::Result<()> {
                Ok(())
            }
        }
        let mut outbox = Outbox::default();
        let err = outbox.send(&mut Broken(0), b"x").unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::BrokenPipe);
    }
}
