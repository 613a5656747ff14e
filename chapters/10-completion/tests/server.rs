//! The io_uring server under honest and dishonest clients, at each of its
//! steps: the same cases as Chapter 4's server test.

#![cfg(target_os = "linux")]

use std::io::{Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::thread;
use std::time::{Duration, Instant};

use chapter_01::echo_client::{self, ClientConfig};
use chapter_01::pattern::PatternStream;
use chapter_10::server::{ServerHandle, ServerStats, Step, UringServer};

const TIMEOUT: Duration = Duration::from_secs(20);

struct Running {
    addr: SocketAddr,
    handle: ServerHandle,
    thread: Option<thread::JoinHandle<std::io::Result<()>>>,
    stats: Arc<ServerStats>,
}

impl Drop for Running {
    fn drop(&mut self) {
        self.handle.stop();
        if let Some(thread) = self.thread.take() {
            thread.join().unwrap().unwrap();
        }
    }
}

fn start(step: Step) -> Running {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let server = UringServer::new(listener, step.options()).unwrap();
    let addr = server.local_addr().unwrap();
    let stats = server.stats();
    let (handle, thread) = server.spawn().unwrap();
    Running {
        addr,
        handle,
        thread: Some(thread),
        stats,
    }
}

fn clients(
    addr: SocketAddr,
    connections: usize,
    message_bytes: usize,
) -> echo_client::ClientReport {
    echo_client::run(
        addr,
        ClientConfig {
            connections,
            messages: 20,
            message_bytes,
            timeout: TIMEOUT,
            seed: message_bytes as u64,
        },
    )
}

fn wait_until_closed(server: &Running) {
    let deadline = Instant::now() + TIMEOUT;
    while server.stats.open.load(Ordering::Relaxed) > 0 {
        assert!(Instant::now() < deadline, "connections never closed");
        thread::sleep(Duration::from_millis(5));
    }
}

#[test]
fn every_byte_comes_back_at_every_step() {
    if !chapter_10::uring::available() {
        eprintln!("skipped: io_uring is refused here (tests/fallback.rs covers this case)");
        return;
    }
    for step in Step::ALL {
        let server = start(step);
        for message_bytes in [1, 1000, 65_536] {
            let report = clients(server.addr, 32, message_bytes);
            assert_eq!(report.first_error, None, "{step:?}, {message_bytes}");
            assert_eq!(report.mismatches, 0);
            assert_eq!(report.bytes_verified, 32 * 20 * message_bytes as u64);
        }
        wait_until_closed(&server);
        assert_eq!(server.stats.accepted.load(Ordering::Relaxed), 96);
    }
}

#[test]
fn resets_half_closes_and_idle_clients_leave_the_others_served() {
    if !chapter_10::uring::available() {
        eprintln!("skipped: io_uring is refused here (tests/fallback.rs covers this case)");
        return;
    }
    for step in Step::ALL {
        let server = start(step);
        // Resets: write, close with the echo unread.
        for _ in 0..20 {
            let mut stream = TcpStream::connect(server.addr).unwrap();
            stream.write_all(&[3u8; 100_000]).unwrap();
            drop(stream);
        }
        // Half-close: everything comes back, then the server closes.
        let mut half = TcpStream::connect(server.addr).unwrap();
        half.set_read_timeout(Some(TIMEOUT)).unwrap();
        let mut sent = vec![0u8; 300_000];
        PatternStream::new(11).fill(&mut sent);
        let writer = {
            let mut half = half.try_clone().unwrap();
            thread::spawn(move || {
                half.write_all(&sent).unwrap();
                half.shutdown(Shutdown::Write).unwrap();
            })
        };
        let mut echoed = Vec::new();
        half.read_to_end(&mut echoed).unwrap();
        writer.join().unwrap();
        assert_eq!(echoed.len(), 300_000, "{step:?}");
        assert_eq!(PatternStream::new(11).verify(&echoed), 0);
        // Idle clients hold connections open meanwhile.
        let idle: Vec<TcpStream> = (0..100)
            .map(|_| TcpStream::connect(server.addr).unwrap())
            .collect();
        let report = clients(server.addr, 16, 4096);
        assert_eq!(report.first_error, None, "{step:?}");
        assert_eq!(report.mismatches, 0);
        drop(idle);
        wait_until_closed(&server);
        assert!(server.stats.failed.load(Ordering::Relaxed) <= 20);
    }
}

#[test]
fn a_client_that_never_reads_is_throttled_not_buffered_forever() {
    if !chapter_10::uring::available() {
        eprintln!("skipped: io_uring is refused here (tests/fallback.rs covers this case)");
        return;
    }
    for step in [Step::Basic, Step::Buffers, Step::Deferred] {
        let server = start(step);
        // Sends 64 MiB without reading a byte. The server submits the next
        // receive only when the last echo is sent, which it never is: the
        // client's writes block once the socket buffers are full.
        let mut greedy = TcpStream::connect(server.addr).unwrap();
        greedy
            .set_write_timeout(Some(Duration::from_millis(500)))
            .unwrap();
        let chunk = vec![9u8; 1 << 20];
        let mut sent = 0usize;
        for _ in 0..64 {
            match greedy.write(&chunk) {
                Ok(n) => sent += n,
                Err(_) => break, // blocked: the server stopped reading
            }
        }
        assert!(sent < 64 << 20, "{step:?}: the server swallowed all 64 MiB");
        // Meanwhile everybody else is served.
        let report = clients(server.addr, 8, 1000);
        assert_eq!(report.first_error, None);
        assert_eq!(report.mismatches, 0);
        drop(greedy);
        wait_until_closed(&server);
    }
}

#[test]
fn stopping_from_another_thread_ends_the_loop() {
    if !chapter_10::uring::available() {
        eprintln!("skipped: io_uring is refused here (tests/fallback.rs covers this case)");
        return;
    }
    for step in Step::ALL {
        let server = start(step);
        let report = clients(server.addr, 4, 10);
        assert_eq!(report.first_error, None);
        // Leave connections open with receives in flight: the stop must
        // cancel them and wait for their completions.
        let _open: Vec<TcpStream> = (0..10)
            .map(|_| TcpStream::connect(server.addr).unwrap())
            .collect();
        thread::sleep(Duration::from_millis(50));
        drop(server); // stop + join; would hang if the eventfd did not wake it
    }
}

#[test]
fn more_connections_than_buffers_in_the_pool_are_all_served() {
    if !chapter_10::uring::available() {
        eprintln!("skipped: io_uring is refused here (tests/fallback.rs covers this case)");
        return;
    }
    // 4,096 pool buffers; clients hold none while idle, so this many
    // connections share the pool without running it dry for long.
    let server = start(Step::Buffers);
    let report = clients(server.addr, 300, 3000);
    assert_eq!(report.first_error, None);
    assert_eq!(report.mismatches, 0);
    wait_until_closed(&server);
}
