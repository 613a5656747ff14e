//! A client for the lookup relay that checks every reply.
//!
//! Chapter 6 compares three implementations of the relay (this chapter's
//! callbacks, a hand-written future, `async`/`await`) under the same load,
//! so the load must be simple and trustworthy. Each connection is a plain
//! blocking thread (a few hundred are plenty for this comparison): it sends
//! one key per line, reads the reply, and checks it against
//! [`expected_reply`], which it can compute itself. One key in ten is a
//! missing one, so the `NOTFOUND` path is exercised too. Latency goes into
//! an HDR histogram, as in Chapter 3's generator.

use std::io::{self, BufRead, BufReader, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use chapter_01::gate::Gate;
use hdrhistogram::Histogram;

use crate::relay::expected_reply;

/// What the client does.
#[derive(Debug, Clone, Copy)]
pub struct RelayLoad {
    /// Connections, one thread each.
    pub connections: usize,
    /// How long they keep asking.
    pub duration: Duration,
    /// Limit on connecting and on each reply.
    pub timeout: Duration,
}

/// What it saw.
#[derive(Debug, Clone)]
pub struct RelayReport {
    /// Requests answered.
    pub requests: u64,
    /// Answers that matched the expected reply.
    pub correct: u64,
    /// Answers that did not.
    pub wrong: u64,
    /// Connections that failed.
    pub errors: u64,
    /// The first failure or wrong answer, described.
    pub first_problem: Option<String>,
    /// Round-trip latency, in ns.
    pub latency_ns: Histogram<u64>,
    /// Time from the start signal to the last connection finishing.
    pub elapsed: Duration,
}

impl RelayReport {
    /// Requests answered per second.
    pub fn throughput_per_sec(&self) -> f64 {
        self.requests as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }

    /// A latency percentile in µs.
    pub fn latency_percentile_us(&self, p: f64) -> f64 {
        if self.latency_ns.is_empty() {
            0.0
        } else {
            self.latency_ns.value_at_percentile(p) as f64 / 1e3
        }
    }
}

fn histogram() -> Histogram<u64> {
    Histogram::new_with_bounds(1, 60_000_000_000, 3).expect("valid bounds")
}

struct ConnectionResult {
    requests: u64,
    correct: u64,
    wrong: u64,
    problem: Option<String>,
    failed: bool,
    latency: Histogram<u64>,
}

/// Runs the load against the relay at `addr`.
pub fn run(addr: SocketAddr, load: RelayLoad) -> RelayReport {
    let gate = Arc::new(Gate::new());
    let handles: Vec<_> = (0..load.connections)
        .filter_map(|index| {
            let gate = Arc::clone(&gate);
            thread::Builder::new()
                .stack_size(256 * 1024)
                .spawn(move || connection(addr, index, load, &gate))
                .ok()
        })
        .collect();
    gate.wait_for_arrivals(handles.len());
    let start = Instant::now();
    gate.open();
    let mut report = RelayReport {
        requests: 0,
        correct: 0,
        wrong: 0,
        errors: (load.connections - handles.len()) as u64,
        first_problem: None,
        latency_ns: histogram(),
        elapsed: Duration::ZERO,
    };
    for handle in handles {
        let result = handle.join().expect("a relay client thread does not panic");
        report.requests += result.requests;
        report.correct += result.correct;
        report.wrong += result.wrong;
        report.errors += u64::from(result.failed);
        if report.first_problem.is_none() {
            report.first_problem = result.problem;
        }
        report
            .latency_ns
            .add(&result.latency)
            .expect("histograms with the same bounds merge");
    }
    report.elapsed = start.elapsed();
    report
}

// ANCHOR: ask
fn connection(addr: SocketAddr, index: usize, load: RelayLoad, gate: &Gate) -> ConnectionResult {
    let mut result = ConnectionResult {
        requests: 0,
        correct: 0,
        wrong: 0,
        problem: None,
        failed: false,
        latency: histogram(),
    };
    let stream = TcpStream::connect_timeout(&addr, load.timeout).and_then(|s| {
        s.set_read_timeout(Some(load.timeout))?;
        s.set_nodelay(true)?;
        Ok(s)
    });
    gate.arrive_and_wait();
    let outcome = stream.and_then(|stream| {
        let mut writer = stream.try_clone()?;
        let mut reader = BufReader::new(stream);
        let deadline = Instant::now() + load.duration;
        let mut reply = String::new();
        let mut i = 0u64;
        while Instant::now() < deadline {
            let key = if i % 10 == 9 {
                format!("missing-{index}-{i}")
            } else {
                format!("key-{index}-{i}")
            };
            let sent = Instant::now();
            writer.write_all(format!("{key}\n").as_bytes())?;
            reply.clear();
            if reader.read_line(&mut reply)? == 0 {
                return Err(io::ErrorKind::UnexpectedEof.into());
            }
            result
                .latency
                .saturating_record(sent.elapsed().as_nanos() as u64);
            result.requests += 1;
            if reply == expected_reply(&key) {
                result.correct += 1;
            } else {
                result.wrong += 1;
                result
                    .problem
                    .get_or_insert(format!("{key}: got {:?}", reply.trim_end()));
            }
            i += 1;
        }
        Ok(())
    });
    if let Err(err) = outcome {
        result.failed = true;
        result.problem.get_or_insert(err.to_string());
    }
    result
}
// ANCHOR_END: ask
