//! Out of descriptors: the io_uring server keeps serving what it has, does
//! not spin, and accepts again when descriptors free up (Chapter 4's test,
//! against this chapter's server at each step).
//!
//! The server runs as a child process with its open-file limit lowered to
//! 64, so the test process keeps its own limit.

#![cfg(target_os = "linux")]

use std::io::{Read, Write};
use std::net::TcpStream;
use std::thread;
use std::time::{Duration, Instant};

use chapter_03::harness::{ServerProcess, ServerSpec};

const FD_LIMIT: usize = 64;

fn cpu_seconds(pid: u32) -> f64 {
    // Fields 14 and 15 of /proc/<pid>/stat: user and system time, in ticks.
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    let after_name = &stat[stat.rfind(')').unwrap() + 2..];
    let fields: Vec<&str> = after_name.split_whitespace().collect();
    let ticks: f64 = fields[11].parse::<f64>().unwrap() + fields[12].parse::<f64>().unwrap();
    // SAFETY: sysconf has no preconditions.
    ticks / unsafe { libc::sysconf(libc::_SC_CLK_TCK) } as f64
}

fn echo_once(stream: &mut TcpStream, message: &[u8]) -> std::io::Result<()> {
    stream.set_read_timeout(Some(Duration::from_secs(2)))?;
    stream.write_all(message)?;
    let mut back = vec![0u8; message.len()];
    stream.read_exact(&mut back)?;
    assert_eq!(back, message);
    Ok(())
}

#[test]
fn emfile_pauses_accepting_without_spinning_and_resumes() {
    for mode in ["basic", "multishot", "buffers", "deferred"] {
        let server = ServerProcess::start(&ServerSpec {
            name: "io_uring".into(),
            program: env!("CARGO_BIN_EXE_chapter-10").into(),
            args: [
                "serve",
                "--addr",
                "127.0.0.1:0",
                "--mode",
                mode,
                "--fd-limit",
            ]
            .iter()
            .map(|s| s.to_string())
            .chain([FD_LIMIT.to_string()])
            .collect(),
        })
        .unwrap();
        // More clients than the server has descriptors for.
        let mut streams: Vec<TcpStream> = (0..FD_LIMIT + 40)
            .map(|_| TcpStream::connect(server.addr()).unwrap())
            .collect();
        for stream in streams.iter_mut().take(20) {
            echo_once(stream, b"served").unwrap();
        }
        let mut last = streams.pop().unwrap();
        assert!(
            echo_once(&mut last, b"waiting").is_err(),
            "{mode}: accepted past the limit"
        );
        // Paused, the server sleeps (a spinning loop burns a whole CPU).
        let before = cpu_seconds(server.pid());
        let start = Instant::now();
        thread::sleep(Duration::from_secs(1));
        let used = cpu_seconds(server.pid()) - before;
        let fraction = used / start.elapsed().as_secs_f64();
        assert!(
            fraction < 0.5,
            "{mode}: the server used {fraction:.2} of a CPU while paused"
        );
        // Free descriptors: the waiting ones are accepted and served.
        streams.drain(..50);
        let deadline = Instant::now() + Duration::from_secs(10);
        let mut echoed = Vec::new();
        while echoed.len() < 7 {
            let mut buf = [0u8; 7];
            last.set_read_timeout(Some(Duration::from_millis(200)))
                .unwrap();
            if let Ok(n) = last.read(&mut buf) {
                echoed.extend_from_slice(&buf[..n]);
            }
            assert!(
                Instant::now() < deadline,
                "{mode}: never accepted after descriptors freed"
            );
        }
        assert_eq!(echoed, b"waiting");
        for stream in streams.iter_mut().rev().take(10) {
            echo_once(stream, b"resumed").unwrap();
        }
        server.stop();
    }
}
