//! The thread-per-connection echo server under honest and dishonest clients.
//!
//! Every test runs a real server on a loopback port chosen by the kernel, and
//! ends by itself: clients have timeouts, and the server is stopped at the
//! end.

use std::io::{Read, Write};
use std::net::{Shutdown, SocketAddr, TcpStream};
use std::thread;
use std::time::{Duration, Instant};

use chapter_01::echo_client::{self, ClientConfig};
use chapter_01::echo_server::{EchoServer, RunningServer};
use chapter_01::pattern::PatternStream;

const TIMEOUT: Duration = Duration::from_secs(20);

fn start_server() -> RunningServer {
    EchoServer::bind("127.0.0.1:0").unwrap().spawn().unwrap()
}

fn honest_clients(addr: SocketAddr, connections: usize, seed: u64) -> echo_client::ClientReport {
    echo_client::run(
        addr,
        ClientConfig {
            connections,
            messages: 20,
            message_bytes: 3000,
            timeout: TIMEOUT,
            seed,
        },
    )
}

/// Waits until the server has no connection threads left (they end shortly
/// after their clients go away).
fn wait_until_idle(server: &RunningServer) {
    let deadline = Instant::now() + TIMEOUT;
    while server.stats().active() > 0 {
        assert!(Instant::now() < deadline, "connections never ended");
        thread::sleep(Duration::from_millis(5));
    }
}

#[test]
fn every_byte_comes_back_under_concurrent_clients() {
    let server = start_server();
    let report = honest_clients(server.addr(), 64, 1000);
    assert_eq!(report.first_error, None);
    assert_eq!(report.connections, 64);
    assert_eq!(report.messages, 64 * 20);
    assert_eq!(report.mismatches, 0);
    assert_eq!(report.bytes_verified, 64 * 20 * 3000);
    // All 64 were connected at once, each on its own server thread.
    assert_eq!(server.stats().peak_active(), 64);
    server.stop().unwrap();
}

#[test]
fn odd_sizes_and_single_bytes_are_echoed_exactly() {
    let server = start_server();
    for message_bytes in [1, 7, 8191, 8193, 65536] {
        let report = echo_client::run(
            server.addr(),
            ClientConfig {
                connections: 4,
                messages: 5,
                message_bytes,
                timeout: TIMEOUT,
                seed: message_bytes as u64,
            },
        );
        assert_eq!(report.first_error, None, "message of {message_bytes} bytes");
        assert_eq!(report.mismatches, 0);
        assert_eq!(report.bytes_verified, 4 * 5 * message_bytes as u64);
    }
    server.stop().unwrap();
}

#[test]
fn a_client_that_vanishes_mid_message_does_not_take_the_server_down() {
    let server = start_server();
    for _ in 0..20 {
        // Send half a message and close without reading: the server's echo
        // of it meets a closed socket (a reset or a broken pipe).
        let mut stream = TcpStream::connect(server.addr()).unwrap();
        let mut half = vec![0u8; 100_000];
        PatternStream::new(5).fill(&mut half);
        stream.write_all(&half[..50_000]).unwrap();
        drop(stream);
    }
    wait_until_idle(&server);
    let report = honest_clients(server.addr(), 16, 2000);
    assert_eq!(report.first_error, None);
    assert_eq!(report.mismatches, 0);
    assert_eq!(report.messages, 16 * 20);
    server.stop().unwrap();
}

#[test]
fn a_reset_connection_ends_only_its_own_thread() {
    let server = start_server();
    // Closing a socket with unread data in its receive buffer makes the
    // kernel send RST instead of FIN.
    let mut resetter = TcpStream::connect(server.addr()).unwrap();
    resetter.write_all(&[1u8; 1000]).unwrap();
    let mut first = [0u8; 1];
    resetter.set_read_timeout(Some(TIMEOUT)).unwrap();
    resetter.read_exact(&mut first).unwrap(); // the echo has started
    drop(resetter);

    let report = honest_clients(server.addr(), 8, 3000);
    assert_eq!(report.first_error, None);
    assert_eq!(report.mismatches, 0);
    wait_until_idle(&server);
    assert!(server.stats().connection_errors() <= 1);
    server.stop().unwrap();
}

#[test]
fn a_half_closed_client_still_gets_every_byte() {
    let server = start_server();
    let mut stream = TcpStream::connect(server.addr()).unwrap();
    stream.set_read_timeout(Some(TIMEOUT)).unwrap();
    let mut sent = vec![0u8; 50_000];
    PatternStream::new(9).fill(&mut sent);
    stream.write_all(&sent).unwrap();
    stream.shutdown(Shutdown::Write).unwrap();
    let mut echoed = Vec::new();
    stream.read_to_end(&mut echoed).unwrap(); // ends when the server closes
    assert_eq!(echoed.len(), sent.len());
    assert_eq!(PatternStream::new(9).verify(&echoed), 0);
    server.stop().unwrap();
}

#[test]
fn idle_clients_do_not_block_the_others() {
    let server = start_server();
    let idle: Vec<TcpStream> = (0..10)
        .map(|_| TcpStream::connect(server.addr()).unwrap())
        .collect();
    let report = honest_clients(server.addr(), 8, 4000);
    assert_eq!(report.first_error, None);
    assert_eq!(report.mismatches, 0);
    // The idle ones each still hold a thread.
    assert!(server.stats().active() >= 10);
    drop(idle);
    wait_until_idle(&server);
    server.stop().unwrap();
}

#[test]
fn a_server_that_is_gone_is_an_error_not_a_hang() {
    let server = start_server();
    let addr = server.addr();
    server.stop().unwrap();
    // Nothing listens any more: every connection is refused.
    let report = echo_client::run(
        addr,
        ClientConfig {
            connections: 3,
            timeout: Duration::from_secs(2),
            ..ClientConfig::default()
        },
    );
    assert_eq!(report.connections, 0);
    assert_eq!(report.errors, 3);
    assert!(report.first_error.is_some());
}
