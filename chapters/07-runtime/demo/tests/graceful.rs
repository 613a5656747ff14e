//! `chapter-07 echo --graceful` as a child process: it is sent SIGINT while
//! a connection is open; the connection still gets its echo, new ones are
//! refused, and the process exits 0 within the deadline. Loopback only;
//! every wait has a deadline, and the child is killed if a check fails.

// Real processes and signals: Miri runs the library's tests only.
#![cfg(not(miri))]
#![cfg(not(loom))]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};

/// How long any step may take before it counts as a hang.
const PATIENCE: Duration = Duration::from_secs(10);

/// The server as a child, its stdout lines arriving on a channel; killed
/// when dropped (if it is still running).
struct Server {
    child: Child,
    lines: Receiver<String>,
}

impl Server {
    fn start(extra: &[&str]) -> (Server, SocketAddr) {
        let mut child = Command::new(env!("CARGO_BIN_EXE_chapter-07"))
            .args([
                "echo",
                "--graceful",
                "--addr",
                "127.0.0.1:0",
                "--workers",
                "2",
            ])
            .args(extra)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("the binary starts");
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut server = Server { child, lines };
        let first = server.line_starting("listening on ");
        let addr = first["listening on ".len()..].trim().parse().unwrap();
        (server, addr)
    }

    fn line_starting(&mut self, prefix: &str) -> String {
        let end = Instant::now() + PATIENCE;
        loop {
            let left = end.saturating_duration_since(Instant::now());
            let line = self
                .lines
                .recv_timeout(left)
                .unwrap_or_else(|_| panic!("no line starting {prefix:?} in time"));
            if line.starts_with(prefix) {
                return line;
            }
        }
    }

    fn interrupt(&self) {
        let pid = libc::pid_t::try_from(self.child.id()).unwrap();
        // SAFETY: kill(2) on our own child's pid, which is still running
        // (we have not waited for it), has no memory effects.
        assert_eq!(unsafe { libc::kill(pid, libc::SIGINT) }, 0);
    }

    fn wait_for_exit(&mut self) -> ExitStatus {
        let end = Instant::now() + PATIENCE;
        while Instant::now() < end {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        panic!("the server did not exit in time");
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if self.child.try_wait().ok().flatten().is_none() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

fn connect(addr: SocketAddr) -> TcpStream {
    let stream = TcpStream::connect_timeout(&addr, PATIENCE).unwrap();
    stream.set_read_timeout(Some(PATIENCE)).unwrap();
    stream
}

fn echo(stream: &mut TcpStream, message: &[u8]) {
    stream.write_all(message).unwrap();
    let mut back = vec![0u8; message.len()];
    stream.read_exact(&mut back).unwrap();
    assert_eq!(back, message);
}

#[test]
fn an_open_connection_finishes_after_ctrl_c_and_the_server_exits_0() {
    let (mut server, addr) = Server::start(&[]);
    let mut stream = connect(addr);
    echo(&mut stream, b"before"); // accepted: it is the server's now
    server.interrupt();
    server.line_starting("Ctrl-C: stopped accepting");
    // The open connection is still served...
    echo(&mut stream, b"after the signal");
    // ...new ones are refused...
    let refused = TcpStream::connect_timeout(&addr, PATIENCE);
    assert!(refused.is_err(), "a connection accepted after Ctrl-C");
    // ...and when the client closes, the server is done.
    stream.shutdown(std::net::Shutdown::Write).unwrap();
    let mut rest = Vec::new();
    stream.read_to_end(&mut rest).unwrap();
    assert!(rest.is_empty());
    let summary = server.line_starting("shut down:");
    assert!(summary.contains("1 finished in time, 0 cut"), "{summary}");
    assert!(server.wait_for_exit().success());
}

#[test]
fn a_connection_still_open_at_the_deadline_is_cut_and_the_server_exits_0() {
    let (mut server, addr) = Server::start(&["--deadline-ms", "300"]);
    let mut stream = connect(addr);
    echo(&mut stream, b"idle from now on");
    let signalled = Instant::now();
    server.interrupt();
    let summary = server.line_starting("shut down:");
    assert!(summary.contains("0 finished in time, 1 cut"), "{summary}");
    assert!(server.wait_for_exit().success());
    assert!(
        signalled.elapsed() >= Duration::from_millis(300),
        "cut before the deadline"
    );
    // Our end sees the connection closed.
    let mut rest = Vec::new();
    let _ = stream.read_to_end(&mut rest);
    assert!(rest.is_empty());
}
