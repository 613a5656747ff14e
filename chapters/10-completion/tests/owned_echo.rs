//! The owned-buffer echo server under the torture cases every chapter's
//! server passes (Chapter 4's `tests/server.rs`): every byte back at three
//! message sizes, resets, half-closes and idle clients, a client that never
//! reads, and a stop from another thread.

use std::io::{Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::thread;
use std::time::{Duration, Instant};

use chapter_01::echo_client::{self, ClientConfig};
use chapter_01::pattern::PatternStream;
use chapter_10::owned::Runtime;
use chapter_10::owned::echo::{EchoServer, EchoStats, StopHandle};

const TIMEOUT: Duration = Duration::from_secs(20);

struct Running {
    addr: SocketAddr,
    stop: StopHandle,
    thread: Option<thread::JoinHandle<std::io::Result<()>>>,
    stats: Arc<EchoStats>,
}

impl Drop for Running {
    fn drop(&mut self) {
        self.stop.stop();
        if let Some(thread) = self.thread.take() {
            thread.join().unwrap().unwrap();
        }
    }
}

/// The server on its own thread, or `None` where io_uring is refused.
fn start() -> Option<Running> {
    if let Err(err) = Runtime::new() {
        eprintln!("skipped: io_uring refused here ({err})");
        return None;
    }
    let server = EchoServer::new(TcpListener::bind("127.0.0.1:0").unwrap());
    let addr = server.local_addr().unwrap();
    let stats = server.stats();
    let (stop, thread) = server.spawn().unwrap();
    Some(Running {
        addr,
        stop,
        thread: Some(thread),
        stats,
    })
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
fn every_byte_comes_back() {
    let Some(server) = start() else { return };
    for message_bytes in [1, 1000, 65_536] {
        let report = clients(server.addr, 32, message_bytes);
        assert_eq!(report.first_error, None, "{message_bytes}");
        assert_eq!(report.mismatches, 0);
        assert_eq!(report.bytes_verified, 32 * 20 * message_bytes as u64);
    }
    wait_until_closed(&server);
    assert_eq!(server.stats.failed.load(Ordering::Relaxed), 0);
}

#[test]
fn resets_half_closes_and_idle_clients_leave_the_others_served() {
    let Some(server) = start() else { return };
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
    half.write_all(&sent).unwrap();
    half.shutdown(Shutdown::Write).unwrap();
    let mut echoed = Vec::new();
    half.read_to_end(&mut echoed).unwrap();
    assert_eq!(echoed.len(), sent.len());
    assert_eq!(PatternStream::new(11).verify(&echoed), 0);
    // Idle clients hold connections open meanwhile.
    let idle: Vec<TcpStream> = (0..100)
        .map(|_| TcpStream::connect(server.addr).unwrap())
        .collect();
    let report = clients(server.addr, 16, 4096);
    assert_eq!(report.first_error, None);
    assert_eq!(report.mismatches, 0);
    drop(idle);
    wait_until_closed(&server);
    assert!(server.stats.failed.load(Ordering::Relaxed) <= 20);
}

#[test]
fn a_client_that_never_reads_is_throttled_not_buffered_forever() {
    let Some(server) = start() else { return };
    // Sends 64 MiB without reading a byte. The connection's write stays in
    // flight in the kernel and no read is submitted meanwhile, so the
    // client's writes block; it gives up after a while.
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
    assert!(sent < 64 << 20, "the server swallowed all 64 MiB");
    // Meanwhile everybody else is served.
    let report = clients(server.addr, 8, 1000);
    assert_eq!(report.first_error, None);
    assert_eq!(report.mismatches, 0);
    drop(greedy);
    wait_until_closed(&server);
}

#[test]
fn stopping_from_another_thread_ends_the_loop() {
    let Some(server) = start() else { return };
    let report = clients(server.addr, 4, 10);
    assert_eq!(report.first_error, None);
    // Leave one connection mid-read: stopping must cancel it cleanly.
    let _open = TcpStream::connect(server.addr).unwrap();
    let deadline = Instant::now() + TIMEOUT;
    while server.stats.open.load(Ordering::Relaxed) == 0 {
        assert!(Instant::now() < deadline, "never accepted");
        thread::sleep(Duration::from_millis(5));
    }
    drop(server); // stop + join; would hang if the eventfd read never completed
}
