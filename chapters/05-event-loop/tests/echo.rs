//! The event-loop echo server: every byte, and the idle timeout.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::thread;
use std::time::{Duration, Instant};

use chapter_01::echo_client::{self, ClientConfig};
use chapter_05::echo;
use chapter_05::event_loop::{EventLoop, Remote};

struct Server {
    addr: SocketAddr,
    remote: Remote,
    thread: Option<thread::JoinHandle<()>>,
}

impl Drop for Server {
    fn drop(&mut self) {
        self.remote.stop();
        if let Some(thread) = self.thread.take() {
            thread.join().unwrap();
        }
    }
}

fn start(idle: Option<Duration>) -> Server {
    let (tx, rx) = std::sync::mpsc::channel();
    let thread = thread::spawn(move || {
        let mut ev = EventLoop::new().unwrap();
        let id = echo::serve(&mut ev, TcpListener::bind("127.0.0.1:0").unwrap(), idle).unwrap();
        tx.send((ev.local_addr(id).unwrap(), ev.remote())).unwrap();
        ev.run().unwrap();
    });
    let (addr, remote) = rx.recv().unwrap();
    Server {
        addr,
        remote,
        thread: Some(thread),
    }
}

#[test]
fn every_byte_comes_back_under_concurrent_clients() {
    let server = start(None);
    for message_bytes in [1, 5000, 65_536] {
        let report = echo_client::run(
            server.addr,
            ClientConfig {
                connections: 50,
                messages: 20,
                message_bytes,
                timeout: Duration::from_secs(20),
                seed: 3,
            },
        );
        assert_eq!(report.first_error, None);
        assert_eq!(report.mismatches, 0);
        assert_eq!(report.bytes_verified, 50 * 20 * message_bytes as u64);
    }
}

#[test]
fn a_silent_connection_is_closed_after_the_idle_timeout_and_a_chatty_one_is_not() {
    let idle = Duration::from_millis(300);
    let server = start(Some(idle));
    let mut silent = TcpStream::connect(server.addr).unwrap();
    let mut chatty = TcpStream::connect(server.addr).unwrap();
    silent
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    chatty
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    // The chatty one talks every 100 ms for a second: three idle periods.
    let start = Instant::now();
    let mut byte = [0u8; 1];
    while start.elapsed() < Duration::from_secs(1) {
        chatty.write_all(b"x").unwrap();
        chatty.read_exact(&mut byte).unwrap();
        thread::sleep(Duration::from_millis(100));
    }
    // The silent one was closed by the server: end of stream.
    assert_eq!(silent.read(&mut byte).unwrap(), 0);
    // The chatty one still echoes.
    chatty.write_all(b"y").unwrap();
    chatty.read_exact(&mut byte).unwrap();
    assert_eq!(&byte, b"y");
}

#[test]
fn a_client_that_never_reads_is_throttled_not_buffered_forever() {
    let server = start(None);
    // 64 MiB sent, nothing read: once the loop's unsent output for this
    // client passes the high-water mark it stops reading, the kernel
    // buffers fill, and the client's writes block.
    let mut greedy = TcpStream::connect(server.addr).unwrap();
    greedy
        .set_write_timeout(Some(Duration::from_millis(500)))
        .unwrap();
    let chunk = vec![9u8; 1 << 20];
    let mut sent = 0usize;
    for _ in 0..64 {
        match greedy.write(&chunk) {
            Ok(n) => sent += n,
            Err(_) => break,
        }
    }
    assert!(sent < 64 << 20, "the loop swallowed all 64 MiB");
    // Everybody else is still served.
    let report = echo_client::run(
        server.addr,
        ClientConfig {
            connections: 8,
            messages: 10,
            message_bytes: 1000,
            timeout: Duration::from_secs(20),
            seed: 9,
        },
    );
    assert_eq!(report.first_error, None);
    assert_eq!(report.mismatches, 0);
}
