//! The server under soak, as a child process with a small descriptor limit.
//!
//! The soak starts every server by command line, never by linking it: a
//! chapter depends only on earlier chapters, and Chapter 3's soak drives
//! Chapters 4 to 7 too. A server is ready when it prints `listening on ADDR`
//! (or `listening on http://ADDR ...`, as the HTTP server does); a server
//! that prints nothing of the kind gets a free port through `{port}` in its
//! command line, and is ready when that port accepts a connection.
//!
//! Before the server's program starts, the child lowers its own open-file
//! limit (`RLIMIT_NOFILE`, soft and hard) to the soak's `fd_limit`, so a
//! client opening a few hundred connections runs the server out of
//! descriptors. Servers raise their soft limit to the hard one at start;
//! lowering both keeps the limit where the soak set it.
//!
//! Memory is the kernel's count of the server's resident pages (`VmRSS`)
//! and their high-water mark (`VmHWM`) in `/proc/PID/status`.

use std::io::{self, BufRead, BufReader};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use chapter_01::proc_status::ProcStatus;

use super::exchange::Protocol;
use crate::harness::READY_TIMEOUT;
use crate::server::READY_PREFIX;

/// The placeholder for a free port in a server's command line.
pub const PORT_PLACEHOLDER: &str = "{port}";

/// How to start one server.
#[derive(Debug, Clone)]
pub struct ServerCommand {
    /// A short name for the report ("ch04-et", "http", ...).
    pub name: String,
    /// The program.
    pub program: PathBuf,
    /// Its arguments; `{port}` is replaced by a free port.
    pub args: Vec<String>,
    /// What it speaks.
    pub protocol: Protocol,
}

impl ServerCommand {
    /// The command line as a person would type it.
    pub fn display(&self) -> String {
        let mut line = self.program.display().to_string();
        for arg in &self.args {
            line.push(' ');
            line.push_str(arg);
        }
        line
    }
}

/// A running server.
#[derive(Debug)]
pub struct ServerChild {
    child: Child,
    addr: SocketAddr,
}

impl ServerChild {
    /// Starts `command` with at most `fd_limit` open files and waits until it
    /// listens.
    pub fn start(command: &ServerCommand, fd_limit: u64) -> io::Result<ServerChild> {
        let port_mode = command.args.iter().any(|a| a.contains(PORT_PLACEHOLDER));
        let port = if port_mode { free_port()? } else { 0 };
        let args: Vec<String> = command
            .args
            .iter()
            .map(|a| a.replace(PORT_PLACEHOLDER, &port.to_string()))
            .collect();
        let mut process = Command::new(&command.program);
        process
            .args(&args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        let limit = libc::rlimit {
            rlim_cur: fd_limit,
            rlim_max: fd_limit,
        };
        // SAFETY: the closure runs in the child between fork and exec, where
        // only async-signal-safe calls are allowed; it makes one system call
        // (setrlimit, which is) on a value captured by copy, and allocates
        // nothing.
        unsafe {
            process.pre_exec(move || {
                if libc::setrlimit(libc::RLIMIT_NOFILE, &limit) != 0 {
                    return Err(io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let mut child = process.spawn().map_err(|err| {
            io::Error::new(
                err.kind(),
                format!("cannot start {}: {err}", command.program.display()),
            )
        })?;
        let stdout = child.stdout.take().expect("stdout is piped");
        let (ready_tx, ready_rx) = mpsc::channel();
        // Reads lines until the ready line, then keeps draining so the server
        // never blocks on a full pipe.
        thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            let mut line = String::new();
            let mut sent = false;
            loop {
                line.clear();
                match reader.read_line(&mut line) {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {
                        if !sent && let Some(addr) = parse_ready_line(&line) {
                            let _ = ready_tx.send(addr);
                            sent = true;
                        }
                    }
                }
            }
        });
        let mut server = ServerChild {
            child,
            addr: SocketAddr::from(([127, 0, 0, 1], port)),
        };
        let deadline = Instant::now() + READY_TIMEOUT;
        if port_mode {
            while TcpStream::connect_timeout(&server.addr, Duration::from_secs(1)).is_err() {
                if let Some(how) = server.exited() {
                    return Err(io::Error::other(format!(
                        "the server exited before it listened ({how})"
                    )));
                }
                if Instant::now() > deadline {
                    return Err(io::Error::other(format!(
                        "the server did not accept on port {port} within {READY_TIMEOUT:?}"
                    )));
                }
                thread::sleep(Duration::from_millis(20));
            }
        } else {
            match ready_rx.recv_timeout(READY_TIMEOUT) {
                Ok(addr) => server.addr = addr,
                Err(_) => {
                    let why = match server.exited() {
                        Some(how) => format!("the server exited before it listened ({how})"),
                        None => format!(
                            "the server did not print `{READY_PREFIX}ADDR` within {READY_TIMEOUT:?}"
                        ),
                    };
                    return Err(io::Error::other(why));
                }
            }
        }
        Ok(server)
    }

    /// Where it listens.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Its process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// What the kernel says about it now.
    pub fn status(&self) -> io::Result<ProcStatus> {
        ProcStatus::of_pid(self.pid()).map_err(|err| io::Error::other(err.to_string()))
    }

    /// `None` while it runs; how it ended otherwise.
    pub fn exited(&mut self) -> Option<String> {
        match self.child.try_wait() {
            Ok(None) => None,
            Ok(Some(status)) => Some(status.to_string()),
            Err(err) => Some(err.to_string()),
        }
    }

    fn terminate(&mut self) {
        if self.child.try_wait().ok().flatten().is_some() {
            return;
        }
        // SAFETY: signalling our own child, not reaped yet (try_wait said
        // so), so the pid is still its own.
        unsafe { libc::kill(self.child.id() as libc::pid_t, libc::SIGTERM) };
        let deadline = Instant::now() + Duration::from_secs(2);
        while Instant::now() < deadline {
            if self.child.try_wait().ok().flatten().is_some() {
                return;
            }
            thread::sleep(Duration::from_millis(10));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for ServerChild {
    fn drop(&mut self) {
        self.terminate();
    }
}

/// The address in `listening on ADDR` or `listening on http://ADDR (...)`.
pub fn parse_ready_line(line: &str) -> Option<SocketAddr> {
    let rest = line.trim().strip_prefix(READY_PREFIX)?;
    let rest = rest.strip_prefix("http://").unwrap_or(rest);
    rest.split_whitespace().next()?.parse().ok()
}

/// A port nobody listens on now (the kernel picks it; we let it go).
fn free_port() -> io::Result<u16> {
    Ok(TcpListener::bind("127.0.0.1:0")?.local_addr()?.port())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ready_lines_of_both_kinds_parse() {
        let echo: SocketAddr = "127.0.0.1:4000".parse().unwrap();
        assert_eq!(
            parse_ready_line("listening on 127.0.0.1:4000\n"),
            Some(echo)
        );
        assert_eq!(
            parse_ready_line("listening on http://127.0.0.1:4000 (rt, HTTP/1.1)\n"),
            Some(echo)
        );
        assert_eq!(parse_ready_line("echo server on 127.0.0.1:4000"), None);
    }
}
