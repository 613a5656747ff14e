//! The forced fallback: with io_uring switched off, the same clients are
//! served by Chapter 4's epoll loop, and the binary says so in one line.

#![cfg(target_os = "linux")]

use std::io::{Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::thread;
use std::time::{Duration, Instant};

use chapter_01::echo_client::{self, ClientConfig};
use chapter_01::pattern::PatternStream;
use chapter_03::harness::{ServerProcess, ServerSpec};
use chapter_10::fallback::{self, Echo};
use chapter_10::server::Options;

const TIMEOUT: Duration = Duration::from_secs(20);

#[test]
fn the_forced_fallback_serves_the_same_torture() {
    let echo = fallback::start(
        TcpListener::bind("127.0.0.1:0").unwrap(),
        Options::default(),
        true,
    )
    .unwrap();
    assert!(matches!(echo, Echo::Epoll(..)), "{echo:?}");
    assert!(echo.fallback_reason().unwrap().contains("switched off"));
    let addr = echo.local_addr().unwrap();
    let open = echo.open_connections();
    let (handle, thread) = echo.spawn().unwrap();

    for message_bytes in [1, 1000, 65_536] {
        let report = echo_client::run(
            addr,
            ClientConfig {
                connections: 32,
                messages: 20,
                message_bytes,
                timeout: TIMEOUT,
                seed: 3,
            },
        );
        assert_eq!(report.first_error, None);
        assert_eq!(report.mismatches, 0);
        assert_eq!(report.bytes_verified, 32 * 20 * message_bytes as u64);
    }
    for _ in 0..20 {
        let mut stream = TcpStream::connect(addr).unwrap();
        stream.write_all(&[3u8; 100_000]).unwrap();
        drop(stream); // a reset
    }
    let mut half = TcpStream::connect(addr).unwrap();
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
    assert_eq!(echoed.len(), 300_000);
    assert_eq!(PatternStream::new(11).verify(&echoed), 0);

    let deadline = Instant::now() + TIMEOUT;
    while open() > 0 {
        assert!(Instant::now() < deadline, "connections never closed");
        thread::sleep(Duration::from_millis(5));
    }
    handle.stop();
    thread.join().unwrap().unwrap();
}

#[test]
fn without_the_switch_the_ring_serves() {
    let echo = fallback::start(
        TcpListener::bind("127.0.0.1:0").unwrap(),
        Options::default(),
        false,
    )
    .unwrap();
    // This machine allows io_uring (the book's host does); where it does
    // not, the fallback is right too, and says why.
    match &echo {
        Echo::Uring(_) => {}
        Echo::Epoll(_, why) => assert!(why.contains("io_uring"), "{why}"),
    }
}

fn serve_spec(extra: &[&str]) -> ServerSpec {
    ServerSpec {
        name: "fallback".into(),
        program: env!("CARGO_BIN_EXE_chapter-10").into(),
        args: ["serve", "--addr", "127.0.0.1:0"]
            .iter()
            .chain(extra)
            .map(|s| s.to_string())
            .collect(),
    }
}

fn stderr_of_forced(env: bool) -> String {
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_chapter-10"));
    command.args(["serve", "--addr", "127.0.0.1:0"]);
    if env {
        command.env(fallback::NO_URING_ENV, "1");
    } else {
        command.arg("--force-fallback");
    }
    let mut child = command
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Wait for `listening on`, then stop it and read its stderr.
    let mut stdout = child.stdout.take().unwrap();
    let mut first = [0u8; 13];
    stdout.read_exact(&mut first).unwrap();
    assert_eq!(&first, b"listening on ");
    child.kill().unwrap();
    let output = child.wait_with_output().unwrap();
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[test]
fn the_binary_says_once_why_it_fell_back() {
    for env in [false, true] {
        let err = stderr_of_forced(env);
        let lines: Vec<&str> = err.lines().collect();
        assert_eq!(lines.len(), 1, "{err}");
        assert!(
            lines[0].contains("falling back to Chapter 4's epoll server"),
            "{err}"
        );
    }
    // And the forced server echoes, as a child process.
    let server = ServerProcess::start(&serve_spec(&["--force-fallback"])).unwrap();
    let mut stream = TcpStream::connect(server.addr()).unwrap();
    stream.set_read_timeout(Some(TIMEOUT)).unwrap();
    stream.write_all(b"still served").unwrap();
    let mut back = [0u8; 12];
    stream.read_exact(&mut back).unwrap();
    assert_eq!(&back, b"still served");
    server.stop();
}
