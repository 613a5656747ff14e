//! The load generator against honest and dishonest servers. Every test ends
//! by itself: connects and echoes have time limits, and each server is
//! stopped at the end.

use std::io::{Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::mpsc;
use std::thread;
use std::time::Duration;

use chapter_01::echo_server::{EchoServer, RunningServer};
use chapter_03::load::stats::ErrorKind;
use chapter_03::load::{self, Hooks, LoadConfig, LoadError, NoHooks};
use chapter_03::server;
use indicatif::ProgressBar;

fn threads_server() -> RunningServer {
    let listener = server::listener("127.0.0.1:0".parse().unwrap()).unwrap();
    EchoServer::from_listener(listener).spawn().unwrap()
}

fn config(target: SocketAddr, connections: usize) -> LoadConfig {
    let mut config = LoadConfig::new(target, connections);
    config.duration = Duration::from_millis(500);
    config.connect_timeout = Duration::from_secs(5);
    config.io_timeout = Duration::from_secs(5);
    config
}

fn run(config: &LoadConfig) -> load::LoadReport {
    load::run(config, &mut NoHooks, &ProgressBar::hidden()).unwrap()
}

#[test]
fn a_closed_loop_checks_every_byte() {
    let server = threads_server();
    let mut config = config(server.addr(), 50);
    config.message_bytes = 1000;
    let report = run(&config);
    let stats = &report.stats;
    assert_eq!(stats.errors.first(), None);
    assert_eq!(report.connections_held, 50);
    assert_eq!(stats.mismatches, 0);
    assert!(report.load_messages > 0);
    // Every echo verified: priming plus load, 1000 bytes each.
    assert_eq!(stats.bytes_verified, stats.messages * 1000);
    // Latency is recorded for the load phase only, not for priming.
    assert_eq!(stats.latency_ns.len(), report.load_messages);
    assert_eq!(stats.messages, report.load_messages + 50);
    assert_eq!(stats.open_at_end, 50);
    server.stop().unwrap();
}

#[test]
fn an_open_loop_sends_at_a_rate_and_checks_every_byte() {
    let server = threads_server();
    let mut config = config(server.addr(), 20);
    config.rate = Some(2_000.0);
    config.message_bytes = 100;
    let report = run(&config);
    assert_eq!(report.stats.errors.first(), None);
    assert_eq!(report.stats.mismatches, 0);
    assert!(report.load_messages > 0);
    // Send lag is recorded for every message of the load phase.
    assert_eq!(report.stats.send_lag_ns.len(), report.load_messages);
    server.stop().unwrap();
}

#[test]
fn messages_larger_than_the_socket_buffers_flow() {
    // An event-driven client reads while it writes, so a 1 MiB message
    // cannot deadlock it the way it would Chapter 1's blocking client.
    let server = threads_server();
    let mut config = config(server.addr(), 4);
    config.message_bytes = 1 << 20;
    let report = run(&config);
    assert_eq!(report.stats.errors.first(), None);
    assert_eq!(report.stats.mismatches, 0);
    assert!(report.stats.messages >= 4);
    server.stop().unwrap();
}

/// A server that echoes, but flips one bit in every 1,000th byte.
fn corrupting_server() -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { return };
            thread::spawn(move || {
                let mut buf = [0u8; 4096];
                let mut offset = 0u64;
                while let Ok(n) = stream.read(&mut buf) {
                    if n == 0 {
                        return;
                    }
                    for (i, byte) in buf[..n].iter_mut().enumerate() {
                        if (offset + i as u64) % 1000 == 999 {
                            *byte ^= 1;
                        }
                    }
                    offset += n as u64;
                    if stream.write_all(&buf[..n]).is_err() {
                        return;
                    }
                }
            });
        }
    });
    addr
}

#[test]
fn a_corrupted_echo_is_counted_byte_by_byte() {
    let addr = corrupting_server();
    let mut config = config(addr, 3);
    config.message_bytes = 2000;
    let report = run(&config);
    let stats = &report.stats;
    assert!(stats.messages > 0);
    // Exactly one byte in a thousand is wrong.
    let total = stats.bytes_verified + stats.mismatches;
    assert_eq!(stats.mismatches, total / 1000);
    assert_eq!(report.stats.errors.total(), 0);
}

#[test]
fn nobody_listening_is_refused_not_a_hang() {
    let addr = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap();
    let report = run(&config(addr, 10));
    assert_eq!(report.connections_held, 0);
    assert_eq!(report.stats.errors.count(ErrorKind::Refused), 10);
}

#[test]
fn a_server_that_never_answers_times_out() {
    // Accepts (the kernel completes handshakes into the backlog) but never
    // reads or writes a byte.
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let mut config = config(listener.local_addr().unwrap(), 5);
    config.io_timeout = Duration::from_millis(300);
    let report = run(&config);
    assert_eq!(report.connections_held, 0);
    assert_eq!(report.stats.errors.count(ErrorKind::Timeout), 5);
    drop(listener);
}

/// Cuts every server-side connection the moment all of them are held.
struct CutAtFullCount {
    accepted: mpsc::Receiver<TcpStream>,
}

impl Hooks for CutAtFullCount {
    fn at_full_count(&mut self, held: usize) {
        assert_eq!(held, 8);
        for _ in 0..held {
            let stream = self.accepted.recv_timeout(Duration::from_secs(10)).unwrap();
            stream.shutdown(Shutdown::Both).unwrap();
        }
    }
}

#[test]
fn a_server_that_goes_away_mid_run_is_reported_not_a_hang() {
    // A server that echoes on 8 connections and hands each accepted socket
    // to the hook, which cuts them all just before the load starts.
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let (tx, rx) = mpsc::channel();
    thread::spawn(move || {
        for _ in 0..8 {
            let (mut stream, _) = listener.accept().unwrap();
            tx.send(stream.try_clone().unwrap()).unwrap();
            thread::spawn(move || {
                let mut buf = [0u8; 1024];
                while let Ok(n) = stream.read(&mut buf) {
                    if n == 0 || stream.write_all(&buf[..n]).is_err() {
                        return;
                    }
                }
            });
        }
    });
    let mut config = config(addr, 8);
    config.duration = Duration::from_millis(300);
    let mut hooks = CutAtFullCount { accepted: rx };
    let report = load::run(&config, &mut hooks, &ProgressBar::hidden()).unwrap();
    let errors = &report.stats.errors;
    assert_eq!(report.connections_held, 8);
    assert_eq!(
        errors.count(ErrorKind::Closed) + errors.count(ErrorKind::Reset),
        8,
        "{errors:?}"
    );
    assert_eq!(report.stats.mismatches, 0);
    assert_eq!(report.stats.open_at_end, 0);
}

#[test]
fn too_many_connections_is_one_clear_error() {
    let err = load::run(
        &config("127.0.0.1:1".parse().unwrap(), 100_000_000),
        &mut NoHooks,
        &ProgressBar::hidden(),
    )
    .unwrap_err();
    assert!(matches!(err, LoadError::TooManyConnections { .. }));
    let text = err.to_string();
    assert!(text.contains("cannot open 100000000 connections"), "{text}");
    assert!(!text.contains('\n'));
}
