//! Tests for exercise ch03_conn_cap (`exercises/ch03/conn_cap.rs`).

#[cfg_attr(not(feature = "solutions"), path = "../ch03/conn_cap.rs")]
#[cfg_attr(feature = "solutions", path = "../solutions/ch03/conn_cap.rs")]
#[allow(dead_code, unused_variables, unused_imports)]
mod conn_cap;

mod ch03_conn_cap {
    use super::conn_cap::{Cap, serve_or_refuse};
    use std::io::{self, Read, Write};
    use std::net::{Shutdown, TcpListener, TcpStream};
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::{Arc, Barrier};
    use std::thread;
    use std::time::{Duration, Instant};

    /// Every wait in these tests gives up after this long.
    const PATIENCE: Duration = Duration::from_secs(10);

    /// Polls `condition` until it holds, or panics after [`PATIENCE`].
    fn wait_until(what: &str, mut condition: impl FnMut() -> bool) {
        let deadline = Instant::now() + PATIENCE;
        while !condition() {
            assert!(Instant::now() < deadline, "gave up waiting: {what}");
            thread::sleep(Duration::from_millis(5));
        }
    }

    /// A listener on loopback and a connected pair (client, server side).
    fn pair(listener: &TcpListener) -> (TcpStream, TcpStream) {
        let client = TcpStream::connect(listener.local_addr().unwrap()).unwrap();
        client.set_read_timeout(Some(PATIENCE)).unwrap();
        let (server, _) = listener.accept().unwrap();
        (client, server)
    }

    fn echo(stream: TcpStream) {
        let _ = io::copy(&mut &stream, &mut &stream);
    }

    fn round_trip(client: &mut TcpStream, message: &[u8]) {
        client.write_all(message).unwrap();
        let mut back = vec![0; message.len()];
        client.read_exact(&mut back).unwrap();
        assert_eq!(back, message);
    }

    #[test]
    fn seats_run_out_at_max_and_come_back_when_dropped() {
        let cap = Cap::new(2);
        assert_eq!(cap.active(), 0);
        let a = cap.try_admit().expect("first seat");
        let b = cap.try_admit().expect("second seat");
        assert_eq!(cap.active(), 2);
        assert!(cap.try_admit().is_none());
        assert_eq!(cap.active(), 2, "a refusal changed the count");
        drop(a);
        assert_eq!(cap.active(), 1);
        let c = cap.try_admit().expect("a seat given back");
        assert_eq!(cap.active(), 2);
        drop(b);
        drop(c);
        assert_eq!(cap.active(), 0);
    }

    #[test]
    fn refusals_do_not_use_up_seats() {
        let cap = Cap::new(1);
        let only = cap.try_admit().unwrap();
        for _ in 0..100 {
            assert!(cap.try_admit().is_none());
        }
        drop(only);
        assert_eq!(cap.active(), 0);
        assert!(cap.try_admit().is_some());
        assert_eq!(Cap::new(0).try_admit().map(|_| ()), None);
    }

    #[test]
    fn a_seat_comes_back_when_its_owner_panics() {
        let cap = Cap::new(1);
        let seat = cap.try_admit().unwrap();
        let owner = thread::spawn(move || {
            let _seat = seat;
            panic!("the connection's code panicked (on purpose)");
        });
        assert!(owner.join().is_err());
        assert_eq!(cap.active(), 0);
    }

    #[test]
    fn racing_threads_never_pass_the_cap() {
        // Four threads ask for the one seat as fast as they can. A check
        // followed by a separate increment lets two in when two threads
        // check at the same moment; a run catches that only if it happens,
        // so this test can pass such a solution by luck, never fail a
        // right one.
        let cap = Arc::new(Cap::new(1));
        let inside = Arc::new(AtomicUsize::new(0));
        let most = Arc::new(AtomicUsize::new(0));
        let start = Arc::new(Barrier::new(4));
        let threads: Vec<_> = (0..4)
            .map(|_| {
                let (cap, inside, most) = (cap.clone(), inside.clone(), most.clone());
                let start = start.clone();
                thread::spawn(move || {
                    start.wait();
                    for _ in 0..200_000 {
                        if let Some(seat) = cap.try_admit() {
                            let now = inside.fetch_add(1, Ordering::SeqCst) + 1;
                            most.fetch_max(now.max(cap.active()), Ordering::SeqCst);
                            for _ in 0..20 {
                                std::hint::spin_loop();
                            }
                            inside.fetch_sub(1, Ordering::SeqCst);
                            drop(seat);
                        }
                    }
                })
            })
            .collect();
        for thread in threads {
            thread.join().unwrap();
        }
        let most = most.load(Ordering::SeqCst);
        assert_eq!(most, 1, "{most} seats of 1 were taken at once");
        assert_eq!(cap.active(), 0);
    }

    #[test]
    fn a_client_beyond_the_cap_is_closed_at_once_and_the_others_served() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let cap = Cap::new(1);

        let (mut first, server_side) = pair(&listener);
        assert!(serve_or_refuse(&cap, server_side, echo).unwrap());
        round_trip(&mut first, b"served");
        assert_eq!(
            cap.active(),
            1,
            "the seat must be held while the client is served"
        );

        let (mut second, server_side) = pair(&listener);
        assert!(!serve_or_refuse(&cap, server_side, echo).unwrap());
        let mut byte = [0u8; 1];
        // End of stream, at once: the server closed its side.
        assert_eq!(second.read(&mut byte).unwrap(), 0);

        round_trip(&mut first, b"still served");
        first.shutdown(Shutdown::Write).unwrap();
        assert_eq!(first.read(&mut byte).unwrap(), 0);
        wait_until("the seat to come back when the echo ends", || {
            cap.active() == 0
        });

        let (mut third, server_side) = pair(&listener);
        assert!(serve_or_refuse(&cap, server_side, echo).unwrap());
        round_trip(&mut third, b"a seat again");
    }

    #[test]
    fn a_connection_whose_code_panics_gives_its_seat_back() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let cap = Cap::new(1);
        let (mut client, server_side) = pair(&listener);
        let served = serve_or_refuse(&cap, server_side, |_stream| {
            panic!("the connection's code panicked (on purpose)")
        });
        assert!(served.unwrap());
        let mut byte = [0u8; 1];
        // The panic unwound the thread and dropped the stream.
        assert_eq!(client.read(&mut byte).unwrap(), 0);
        wait_until("the seat to come back after the panic", || {
            cap.active() == 0
        });
        assert!(cap.try_admit().is_some());
    }
}
