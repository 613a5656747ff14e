//! A blocking echo client that opens many connections and checks every byte.
//!
//! Each connection runs on its own thread, written as plainly as the server:
//! connect, then for each message write it all, read the echo back in full,
//! and compare it with the [pattern](crate::pattern) this connection sent.
//! Each connection first connects and echoes one message, which proves the
//! server has accepted it and serves it, then waits at a [`Gate`]; so the
//! server really holds `connections` clients at the same moment before the
//! rest of the bytes flow.
//!
//! Two rules keep a blocking client from hanging or deadlocking:
//!
//! * every connect, read and write has a timeout, so a server that stops
//!   answering ends the run with an error instead of a hang;
//! * a message is at most [`MAX_MESSAGE_BYTES`]. The client writes a whole
//!   message before it reads: if the message were larger than the socket
//!   buffers on both sides could hold, the client would block in `write`
//!   while the server blocks writing the echo nobody reads. Chapter 3's
//!   event-driven load generator does not have this limit.
//!
//! At the end each connection half-closes and waits for the server to close
//! too, which checks that the server finishes its side properly.
//!
//! Book: Chapter 1, "One thread per connection".

use std::io::{self, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpStream};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use crate::gate::Gate;
use crate::pattern::PatternStream;

// ANCHOR: max_message
/// The largest message the blocking client sends (see the module docs).
pub const MAX_MESSAGE_BYTES: usize = 64 * 1024;
// ANCHOR_END: max_message

/// What the client does.
#[derive(Debug, Clone, Copy)]
pub struct ClientConfig {
    /// Connections open at the same time.
    pub connections: usize,
    /// Messages each connection sends, one after the other.
    pub messages: usize,
    /// Bytes per message, 1 to [`MAX_MESSAGE_BYTES`].
    pub message_bytes: usize,
    /// Limit on each connect, read and write.
    pub timeout: Duration,
    /// Added to each connection's index to make its pattern seed, so runs
    /// against one server can use distinct streams.
    pub seed: u64,
}

impl Default for ClientConfig {
    fn default() -> ClientConfig {
        ClientConfig {
            connections: 8,
            messages: 10,
            message_bytes: 1024,
            timeout: Duration::from_secs(10),
            seed: 0,
        }
    }
}

/// What the client saw.
#[derive(Debug, Clone, Default)]
pub struct ClientReport {
    /// Connections that were established.
    pub connections: u64,
    /// Messages sent and fully echoed back.
    pub messages: u64,
    /// Echoed bytes that matched what was sent.
    pub bytes_verified: u64,
    /// Echoed bytes that did not.
    pub mismatches: u64,
    /// Connections that ended in an error (refused, reset, timeout, early
    /// close).
    pub errors: u64,
    /// The first error, to show the reader.
    pub first_error: Option<String>,
    /// From opening the gate to the last connection finishing.
    pub elapsed: Duration,
    /// Messages sent after the gate opened, in `elapsed`.
    pub timed_messages: u64,
}

/// What one connection did.
#[derive(Debug, Default)]
struct ConnectionResult {
    connected: bool,
    messages: u64,
    verified: u64,
    mismatches: u64,
    error: Option<io::Error>,
}

/// Runs the client against `addr` and gathers what every connection saw.
pub fn run(addr: SocketAddr, config: ClientConfig) -> ClientReport {
    assert!(
        (1..=MAX_MESSAGE_BYTES).contains(&config.message_bytes),
        "message size out of range"
    );
    let gate = Arc::new(Gate::new());
    let mut handles = Vec::with_capacity(config.connections);
    let mut report = ClientReport::default();
    for index in 0..config.connections {
        let gate = Arc::clone(&gate);
        let seed = config.seed.wrapping_add(index as u64);
        let spawned = thread::Builder::new()
            .name(format!("echo-client-{index}"))
            .stack_size(256 * 1024)
            .spawn(move || connection(addr, seed, config, &gate));
        match spawned {
            Ok(handle) => handles.push(handle),
            Err(err) => {
                report.errors += 1;
                report.first_error.get_or_insert(format!("spawn: {err}"));
            }
        }
    }
    gate.wait_for_arrivals(handles.len());
    let start = Instant::now();
    gate.open();
    for handle in handles {
        let result = handle.join().expect("a client thread does not panic");
        report.connections += u64::from(result.connected);
        report.messages += result.messages;
        report.timed_messages += result.messages.saturating_sub(1);
        report.bytes_verified += result.verified;
        report.mismatches += result.mismatches;
        if let Some(err) = result.error {
            report.errors += 1;
            report.first_error.get_or_insert(err.to_string());
        }
    }
    report.elapsed = start.elapsed();
    report
}

/// One connection's life: connect, first echo, wait at the gate, the rest of
/// the exchange, close.
fn connection(addr: SocketAddr, seed: u64, config: ClientConfig, gate: &Gate) -> ConnectionResult {
    let mut result = ConnectionResult::default();
    let mut arrived = false;
    let outcome = TcpStream::connect_timeout(&addr, config.timeout).and_then(|stream| {
        stream.set_read_timeout(Some(config.timeout))?;
        stream.set_write_timeout(Some(config.timeout))?;
        stream.set_nodelay(true)?;
        result.connected = true;
        exchange(stream, seed, config, &mut result, || {
            gate.arrive_and_wait();
            arrived = true;
        })
    });
    // Arrive even after a failure, so the spawner's count adds up.
    if !arrived {
        gate.arrive_and_wait();
    }
    if let Err(err) = outcome {
        result.error = Some(err);
    }
    result
}

// ANCHOR: exchange
fn exchange(
    mut stream: TcpStream,
    seed: u64,
    config: ClientConfig,
    result: &mut ConnectionResult,
    mut all_connected: impl FnMut(),
) -> io::Result<()> {
    let mut sent = PatternStream::new(seed);
    let mut expected = PatternStream::new(seed);
    let mut message = vec![0u8; config.message_bytes];
    let mut echo = vec![0u8; config.message_bytes];
    for i in 0..config.messages {
        sent.fill(&mut message);
        stream.write_all(&message)?;
        stream.read_exact(&mut echo)?;
        let wrong = expected.verify(&echo);
        result.mismatches += wrong;
        result.verified += echo.len() as u64 - wrong;
        result.messages += 1;
        if i == 0 {
            // One echo proves the server has accepted us and serves us. Now
            // wait until every other connection can say the same.
            all_connected();
        }
    }
    // Half-close: no more requests. The server must answer with its own
    // close, and must not send anything we did not ask for.
    stream.shutdown(Shutdown::Write)?;
    let mut extra = [0u8; 1];
    match stream.read(&mut extra)? {
        0 => Ok(()),
        _ => Err(io::Error::new(
            io::ErrorKind::InvalidData,
            "the server sent bytes after the last echo",
        )),
    }
}
// ANCHOR_END: exchange
