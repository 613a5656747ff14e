//! Tests for exercise ch04_accept_all (`exercises/ch04/accept_all.rs`).

#[cfg_attr(not(feature = "solutions"), path = "../ch04/accept_all.rs")]
#[cfg_attr(feature = "solutions", path = "../solutions/ch04/accept_all.rs")]
#[allow(dead_code, unused_variables, unused_imports)]
mod accept_all;

mod ch04_accept_all {
    use super::accept_all::{Accept, Stop, accept_all};
    use std::cell::RefCell;
    use std::collections::VecDeque;
    use std::io::{self, Read, Write};
    use std::net::{TcpListener, TcpStream};
    use std::time::{Duration, Instant};

    /// A listener as a script: each `accept` returns the next step. Asking
    /// past the end is a bug in the code under test (it went on after a
    /// result that should have stopped it), and panics.
    struct Script {
        steps: RefCell<VecDeque<io::Result<u32>>>,
    }

    impl Script {
        fn new(steps: Vec<io::Result<u32>>) -> Script {
            Script {
                steps: RefCell::new(steps.into()),
            }
        }

        fn left(&self) -> usize {
            self.steps.borrow().len()
        }
    }

    impl Accept for Script {
        type Conn = u32;
        fn accept(&self) -> io::Result<u32> {
            self.steps
                .borrow_mut()
                .pop_front()
                .expect("accept was called again after a result that should have stopped the loop")
        }
    }

    fn os(code: i32) -> io::Result<u32> {
        Err(io::Error::from_raw_os_error(code))
    }

    fn run(script: &Script) -> (io::Result<Stop>, Vec<u32>) {
        let mut got = Vec::new();
        let stop = accept_all(script, |conn| got.push(conn));
        (stop, got)
    }

    #[test]
    fn accepts_every_pending_connection_until_it_would_block() {
        let script = Script::new(vec![Ok(1), Ok(2), Ok(3), os(libc::EAGAIN)]);
        let (stop, got) = run(&script);
        assert_eq!(stop.unwrap(), Stop::Drained);
        assert_eq!(got, [1, 2, 3]);
        assert_eq!(script.left(), 0);

        let empty = Script::new(vec![os(libc::EAGAIN)]);
        let (stop, got) = run(&empty);
        assert_eq!(stop.unwrap(), Stop::Drained);
        assert!(got.is_empty());
    }

    #[test]
    fn out_of_descriptors_or_memory_stops_without_retrying() {
        for code in [libc::EMFILE, libc::ENFILE, libc::ENOBUFS, libc::ENOMEM] {
            let script = Script::new(vec![Ok(1), Ok(2), os(code)]);
            let (stop, got) = run(&script);
            assert_eq!(stop.unwrap(), Stop::OutOfResources, "errno {code}");
            assert_eq!(got, [1, 2], "errno {code}");
        }
    }

    #[test]
    fn a_failure_of_one_pending_connection_is_skipped() {
        let script = Script::new(vec![
            Ok(1),
            os(libc::ECONNABORTED),
            Ok(2),
            os(libc::EINTR),
            os(libc::EPROTO),
            Ok(3),
            os(libc::EPERM),
            Ok(4),
            os(libc::EAGAIN),
        ]);
        let (stop, got) = run(&script);
        assert_eq!(stop.unwrap(), Stop::Drained);
        assert_eq!(got, [1, 2, 3, 4]);
    }

    #[test]
    fn the_listeners_own_failure_is_returned() {
        for code in [libc::EBADF, libc::EINVAL, libc::ENOTSOCK] {
            let script = Script::new(vec![Ok(1), os(code)]);
            let (stop, got) = run(&script);
            assert_eq!(stop.unwrap_err().raw_os_error(), Some(code));
            assert_eq!(got, [1], "errno {code}");
        }
    }

    #[test]
    fn a_real_listener_hands_over_every_connection() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let (stop, got) = {
            let mut got = Vec::new();
            (accept_all(&listener, |s: TcpStream| got.push(s)), got)
        };
        assert_eq!(stop.unwrap(), Stop::Drained);
        assert!(got.is_empty());

        let addr = listener.local_addr().unwrap();
        let mut clients: Vec<TcpStream> =
            (0..3).map(|_| TcpStream::connect(addr).unwrap()).collect();
        // The kernel finishes handshakes on its own schedule: call again
        // until all three are in, as an event loop would on its next event.
        let mut accepted = Vec::new();
        let deadline = Instant::now() + Duration::from_secs(10);
        while accepted.len() < 3 {
            assert!(
                Instant::now() < deadline,
                "only {} of 3 accepted",
                accepted.len()
            );
            let stop = accept_all(&listener, |s| accepted.push(s)).unwrap();
            assert_eq!(stop, Stop::Drained);
            std::thread::sleep(Duration::from_millis(1));
        }
        for mut server_side in accepted {
            server_side.write_all(b"hello").unwrap();
        }
        for client in &mut clients {
            client
                .set_read_timeout(Some(Duration::from_secs(10)))
                .unwrap();
            let mut hello = [0u8; 5];
            client.read_exact(&mut hello).unwrap();
            assert_eq!(&hello, b"hello");
        }
    }
}
