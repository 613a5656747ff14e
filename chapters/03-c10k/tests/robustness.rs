//! The thread-per-connection server as a separate process, against clients
//! that misbehave, and the harness against a server that dies.

use std::io::{Read, Write};
use std::net::{Shutdown, TcpStream};
use std::process::{Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use chapter_03::harness::{ServerProcess, ServerSpec};
use chapter_03::load::stats::ErrorKind;
use chapter_03::load::{self, Hooks, LoadConfig, NoHooks};
use indicatif::ProgressBar;

const BINARY: &str = env!("CARGO_BIN_EXE_chapter-03");

fn threads_server() -> ServerProcess {
    ServerProcess::start(&ServerSpec {
        name: "threads".into(),
        program: BINARY.into(),
        args: vec!["serve".into(), "--addr".into(), "127.0.0.1:0".into()],
    })
    .unwrap()
}

fn clean_run(server: &ServerProcess, connections: usize) -> load::LoadReport {
    let mut config = LoadConfig::new(server.addr(), connections);
    config.duration = Duration::from_millis(300);
    load::run(&config, &mut NoHooks, &ProgressBar::hidden()).unwrap()
}

/// Waits until the server runs `threads` threads or fewer (connection
/// threads end shortly after their clients go).
fn wait_for_threads(server: &ServerProcess, at_most: u64) {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let threads = server.status().unwrap().threads;
        if threads <= at_most {
            return;
        }
        assert!(Instant::now() < deadline, "still {threads} threads");
        thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn misbehaving_clients_leave_the_server_serving() {
    let mut server = threads_server();
    let addr = server.addr();
    // Resets mid-message: write half a message, close with unread echo in
    // the receive buffer (the kernel answers with RST).
    for _ in 0..20 {
        let mut stream = TcpStream::connect(addr).unwrap();
        stream.write_all(&[7u8; 50_000]).unwrap();
        thread::sleep(Duration::from_millis(2));
        drop(stream);
    }
    // Half-closes: send, shut down writing, read everything back.
    for _ in 0..10 {
        let mut stream = TcpStream::connect(addr).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(10)))
            .unwrap();
        stream.write_all(b"half a conversation").unwrap();
        stream.shutdown(Shutdown::Write).unwrap();
        let mut echoed = Vec::new();
        stream.read_to_end(&mut echoed).unwrap();
        assert_eq!(echoed, b"half a conversation");
    }
    // Never sends: these stay open, idle, during the clean run.
    let idle: Vec<TcpStream> = (0..50).map(|_| TcpStream::connect(addr).unwrap()).collect();
    let report = clean_run(&server, 100);
    assert_eq!(report.stats.errors.first(), None);
    assert_eq!(report.stats.mismatches, 0);
    assert_eq!(report.connections_held, 100);
    drop(idle);
    assert!(server.exited().is_none());
    server.stop();
}

#[test]
fn a_client_killed_with_thousands_of_connections_leaves_the_server_healthy() {
    let mut server = threads_server();
    let before = server.status().unwrap().threads;
    // A load generator in its own process holds 2,000 connections...
    let mut client = Command::new(BINARY)
        .args(["load", "--addr", &server.addr().to_string()])
        .args(["--connections", "2000", "--duration", "600"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    while server.status().unwrap().threads < before + 2000 {
        assert!(Instant::now() < deadline, "the client never connected");
        assert!(
            client.try_wait().unwrap().is_none(),
            "the client died early"
        );
        thread::sleep(Duration::from_millis(20));
    }
    // ...and is killed without closing anything: the kernel closes its
    // sockets for it.
    client.kill().unwrap();
    client.wait().unwrap();
    wait_for_threads(&server, before);
    let report = clean_run(&server, 200);
    assert_eq!(report.stats.errors.first(), None);
    assert_eq!(report.stats.mismatches, 0);
    assert!(server.exited().is_none());
    server.stop();
}

/// Kills the server process the moment every connection is held.
struct KillServer(u32);

impl Hooks for KillServer {
    fn at_full_count(&mut self, _held: usize) {
        // SAFETY: signalling our own child, which is still alive (the load
        // has just used it), so its pid cannot have been reused.
        unsafe { libc::kill(self.0 as libc::pid_t, libc::SIGKILL) };
    }
}

#[test]
fn a_server_crash_is_reported_as_errors_not_a_hang() {
    let mut server = threads_server();
    let mut config = LoadConfig::new(server.addr(), 50);
    config.duration = Duration::from_millis(500);
    let report = load::run(
        &config,
        &mut KillServer(server.pid()),
        &ProgressBar::hidden(),
    )
    .unwrap();
    let errors = &report.stats.errors;
    assert_eq!(report.connections_held, 50);
    assert_eq!(
        errors.count(ErrorKind::Reset) + errors.count(ErrorKind::Closed),
        50,
        "{errors:?}"
    );
    assert!(server.exited().is_some());
}

#[test]
fn past_its_cap_the_server_refuses_instead_of_dying() {
    let mut server = ServerProcess::start(&ServerSpec {
        name: "threads".into(),
        program: BINARY.into(),
        args: ["serve", "--addr", "127.0.0.1:0", "--max-connections", "50"]
            .map(String::from)
            .to_vec(),
    })
    .unwrap();
    let idle_threads = server.status().unwrap().threads;
    let report = clean_run(&server, 80);
    assert_eq!(report.connections_held, 50);
    assert_eq!(report.stats.errors.total(), 30);
    assert_eq!(report.stats.mismatches, 0);
    assert!(server.exited().is_none());
    // Once those connections are gone, a full set fits again.
    wait_for_threads(&server, idle_threads);
    let report = clean_run(&server, 50);
    assert_eq!(report.stats.errors.first(), None);
    server.stop();
}
