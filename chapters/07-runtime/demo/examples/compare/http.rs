//! `compare -- http`: the capstone's HTTP server (`examples/http.rs`) on our
//! runtime and on Tokio, each in its own process, under a real load
//! generator, `wrk`.
//!
//! For each round and each connection count, the two runtimes run back to
//! back (which goes first alternates, so neither always runs on a warmer
//! machine): a fresh server is started with `--exit-on-stdin-eof`, `wrk
//! --latency` drives `GET /` for the duration, and the server is stopped by
//! closing its stdin. We keep wrk's requests per second, its p50 and p99
//! latency, and its socket errors and non-2xx answers; the table gives the
//! median over rounds and the range. Both runtimes drift together from round
//! to round (the machine's load, the CPU's clock), so the comparison is the
//! ratio within each round's pair, summarised by its median and range over
//! the rounds, as the other races do (`ratios`, `ratio_vs_tokio_1000`).
//!
//! Memory per idle keep-alive connection: `--idle N` connections each send
//! one request and then stay open, silent; the server's VmRSS (from
//! `/proc/PID/status`) after, minus before, over N. The connections come
//! from this process and the server is another, so 10,000 of them need
//! 10,000 descriptors on each side (under a limit of 20,000) and 10,000 of
//! loopback's 28,232 ephemeral ports (32768 to 60999).
//!
//! Book: "Serving HTTP on the runtime we built" (ch09-http.md).

use chapter_01::console::Console;
use serde_json::{Value, json};
use std::error::Error;
use std::io::{BufRead, BufReader, ErrorKind, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::time::{Duration, Instant};

/// The runtimes, as `examples/http.rs --runtime` names them.
const RUNTIMES: [&str; 2] = ["rt", "tokio"];

/// wrk's threads: the machine's logical CPUs (wrk shares them with the
/// server, as a load generator on the same host does).
fn wrk_threads() -> usize {
    std::thread::available_parallelism().map_or(1, usize::from)
}

/// The settings of one comparison.
pub struct Config {
    /// wrk's connection counts.
    pub connections: Vec<u32>,
    /// How long each wrk run lasts.
    pub duration: Duration,
    /// Rounds, alternating which runtime goes first.
    pub rounds: usize,
    /// Idle keep-alive connections for the memory measurement (0: skip it).
    pub idle: usize,
}

/// One wrk run's figures.
#[derive(Clone, Copy, Debug, Default)]
struct Run {
    requests_per_sec: f64,
    p50_us: f64,
    p99_us: f64,
    errors: u64,
}

/// Runs the comparison and returns the JSON report.
pub fn compare(console: &Console, config: &Config) -> Result<Value, Box<dyn Error>> {
    check_wrk()?;
    let server = server_binary()?;
    let mut runs: Vec<(&str, u32, Vec<Run>)> = Vec::new();
    for runtime in RUNTIMES {
        for &connections in &config.connections {
            runs.push((runtime, connections, Vec::new()));
        }
    }
    // Per round and connection count, both runtimes back to back, the
    // order alternating (by round and by connection count), so that both
    // see the same machine: the ratio is taken within the pair.
    for round in 0..config.rounds {
        for (index, &connections) in config.connections.iter().enumerate() {
            let order: Vec<&str> = if (round + index) % 2 == 0 {
                RUNTIMES.to_vec()
            } else {
                RUNTIMES.iter().rev().copied().collect()
            };
            for runtime in order {
                let mut child = Server::start(&server, runtime)?;
                let run = wrk(child.addr, connections, config.duration)?;
                child.stop();
                console.say(format!(
                    "round {}: {runtime:>5}, {connections:>5} connections: {:>9.0} req/s, p50 {:>8.0} us, p99 {:>8.0} us, {} errors",
                    round + 1,
                    run.requests_per_sec,
                    run.p50_us,
                    run.p99_us,
                    run.errors
                ));
                let slot = runs
                    .iter_mut()
                    .find(|(r, c, _)| *r == runtime && *c == connections)
                    .unwrap();
                slot.2.push(run);
            }
        }
    }
    let mut results = Vec::new();
    console.say(format!(
        "\nmedian over {} rounds of {} s (range in brackets)",
        config.rounds,
        config.duration.as_secs()
    ));
    console.say(format!(
        "{:>7} {:>6} {:>24} {:>9} {:>9} {:>7}",
        "runtime", "conns", "requests/s", "p50 us", "p99 us", "errors"
    ));
    for (runtime, connections, runs) in &runs {
        let rps = median(runs.iter().map(|r| r.requests_per_sec));
        let (lo, hi) = range(runs.iter().map(|r| r.requests_per_sec));
        let p50 = median(runs.iter().map(|r| r.p50_us));
        let p99 = median(runs.iter().map(|r| r.p99_us));
        let errors: u64 = runs.iter().map(|r| r.errors).sum();
        console.say(format!(
            "{runtime:>7} {connections:>6} {rps:>9.0} [{lo:>6.0}-{hi:>6.0}] {p50:>9.0} {p99:>9.0} {errors:>7}"
        ));
        results.push(json!({
            "runtime": runtime,
            "connections": connections,
            "requests_per_sec": rps,
            "requests_per_sec_range": [lo, hi],
            "latency_p50_us": p50,
            "latency_p99_us": p99,
            "errors": errors,
        }));
    }
    // Ours over Tokio's, round by round: requests per second and p99.
    let runs_of = |runtime: &str, connections: u32| -> &[Run] {
        runs.iter()
            .find(|(r, c, _)| *r == runtime && *c == connections)
            .map_or(&[], |(_, _, runs)| runs.as_slice())
    };
    let mut ratios = Vec::new();
    console.say(format!(
        "\nrt over Tokio, per round (the pair ran back to back), median and range over {} rounds:",
        config.rounds
    ));
    for &connections in &config.connections {
        let pairs = || {
            runs_of("rt", connections)
                .iter()
                .zip(runs_of("tokio", connections))
        };
        let throughput: Vec<f64> = pairs()
            .filter(|(_, tokio)| tokio.requests_per_sec > 0.0)
            .map(|(ours, tokio)| ours.requests_per_sec / tokio.requests_per_sec)
            .collect();
        let p99: Vec<f64> = pairs()
            .filter(|(_, tokio)| tokio.p99_us > 0.0)
            .map(|(ours, tokio)| ours.p99_us / tokio.p99_us)
            .collect();
        let (t, p) = (summary(&throughput), summary(&p99));
        console.say(format!(
            "  {connections:>5} connections: requests/s {:.2} ({:.2} to {:.2}), p99 {:.2} ({:.2} to {:.2})",
            t.0, t.1, t.2, p.0, p.1, p.2
        ));
        ratios.push(json!({
            "connections": connections,
            "requests_ratio_vs_tokio": t.0,
            "requests_ratio_vs_tokio_range": [t.1, t.2],
            "p99_ratio_vs_tokio": p.0,
            "p99_ratio_vs_tokio_range": [p.1, p.2],
        }));
    }
    let ratio_at = |connections: u32| {
        ratios
            .iter()
            .find(|r| r["connections"] == connections)
            .and_then(|r| r["requests_ratio_vs_tokio"].as_f64())
            .filter(|r| r.is_finite())
    };
    let ratio = ratio_at(1000);
    let mut idle = serde_json::Map::new();
    if config.idle > 0 {
        for runtime in RUNTIMES {
            let kib = idle_memory(&server, runtime, config.idle)?;
            console.say(format!(
                "{runtime:>7}: {kib:.1} KiB of RSS per idle keep-alive connection ({} connections)",
                config.idle
            ));
            idle.insert(runtime.to_string(), json!(kib));
        }
    }
    Ok(json!({
        "experiment": "http",
        "duration_s": config.duration.as_secs(),
        "rounds": config.rounds,
        "wrk_threads": wrk_threads(),
        "results": results,
        "ratios": ratios,
        "ratio_vs_tokio_1000": ratio,
        "ratio_vs_tokio_50": ratio_at(50),
        "idle_connections": config.idle,
        "rss_per_idle_connection_kib": idle,
    }))
}

/// Fails with one clear line when wrk is missing.
fn check_wrk() -> Result<(), Box<dyn Error>> {
    match Command::new("wrk").arg("--version").output() {
        Ok(_) => Ok(()),
        Err(error) if error.kind() == ErrorKind::NotFound => {
            Err("wrk is not installed (on Debian or Ubuntu: apt-get install -y wrk)".into())
        }
        Err(error) => Err(format!("cannot run wrk: {error}").into()),
    }
}

/// The `http` example's binary, beside this one; built if it is missing.
fn server_binary() -> Result<PathBuf, Box<dyn Error>> {
    let path = std::env::current_exe()?.with_file_name("http");
    if !path.exists() {
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let profile = if cfg!(debug_assertions) {
            "dev"
        } else {
            "release"
        };
        let status = Command::new(cargo)
            .args([
                "build",
                "--profile",
                profile,
                "-p",
                "chapter-07",
                "--example",
                "http",
            ])
            .status()?;
        if !status.success() || !path.exists() {
            return Err(format!("cannot build the http example ({})", path.display()).into());
        }
    }
    Ok(path)
}

/// A server process; its stdin is the stop button.
struct Server {
    child: Child,
    stdin: Option<ChildStdin>,
    addr: SocketAddr,
}

impl Server {
    fn start(binary: &PathBuf, runtime: &str) -> Result<Server, Box<dyn Error>> {
        let mut child = Command::new(binary)
            .args([
                "serve",
                "--runtime",
                runtime,
                "--addr",
                "127.0.0.1:0",
                "--exit-on-stdin-eof",
            ])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()?;
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap()).read_line(&mut line)?;
        let addr = line
            .split("http://")
            .nth(1)
            .and_then(|rest| rest.split_whitespace().next())
            .and_then(|addr| addr.parse().ok());
        let Some(addr) = addr else {
            let _ = child.kill();
            return Err(format!("the {runtime} server did not start: {line:?}").into());
        };
        let stdin = child.stdin.take();
        Ok(Server { child, stdin, addr })
    }

    /// Closes stdin (a graceful stop); kills the process if it lingers.
    fn stop(&mut self) {
        drop(self.stdin.take());
        let deadline = Instant::now() + Duration::from_secs(15);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop();
    }
}

/// One wrk run against `GET /`.
fn wrk(addr: SocketAddr, connections: u32, duration: Duration) -> Result<Run, Box<dyn Error>> {
    let threads = wrk_threads().min(connections as usize);
    let output = Command::new("wrk")
        .arg(format!("-t{threads}"))
        .arg(format!("-c{connections}"))
        .arg(format!("-d{}s", duration.as_secs().max(1)))
        .arg("--latency")
        .arg(format!("http://{addr}/"))
        .output()?;
    let text = String::from_utf8_lossy(&output.stdout);
    if !output.status.success() {
        return Err(format!("wrk failed: {}", String::from_utf8_lossy(&output.stderr)).into());
    }
    parse_wrk(&text).ok_or_else(|| format!("cannot read wrk's output:\n{text}").into())
}

/// Reads requests/s, the 50 % and 99 % latencies, socket errors and non-2xx
/// answers from `wrk --latency`'s report.
fn parse_wrk(text: &str) -> Option<Run> {
    let mut run = Run::default();
    for line in text.lines().map(str::trim) {
        let mut words = line.split_whitespace();
        match words.next() {
            Some("Requests/sec:") => run.requests_per_sec = words.next()?.parse().ok()?,
            Some("50%") => run.p50_us = micros(words.next()?)?,
            Some("99%") => run.p99_us = micros(words.next()?)?,
            Some("Socket") => {
                // "Socket errors: connect 0, read 0, write 0, timeout 0"
                run.errors += line
                    .split(|c: char| !c.is_ascii_digit())
                    .filter_map(|n| n.parse::<u64>().ok())
                    .sum::<u64>();
            }
            Some("Non-2xx") => run.errors += line.rsplit(' ').next()?.parse::<u64>().ok()?,
            _ => {}
        }
    }
    (run.requests_per_sec > 0.0).then_some(run)
}

/// wrk's "1.23ms", "456.00us", "1.02s" in microseconds.
fn micros(value: &str) -> Option<f64> {
    let (number, scale) = if let Some(n) = value.strip_suffix("us") {
        (n, 1.0)
    } else if let Some(n) = value.strip_suffix("ms") {
        (n, 1e3)
    } else if let Some(n) = value.strip_suffix('m') {
        (n, 60e6)
    } else {
        (value.strip_suffix('s')?, 1e6)
    };
    Some(number.parse::<f64>().ok()? * scale)
}

/// The server's resident memory in KiB, from `/proc/PID/status`.
fn rss_kib(pid: u32) -> Result<f64, Box<dyn Error>> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status"))?;
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))
        .and_then(|rest| rest.split_whitespace().next()?.parse().ok())
        .ok_or_else(|| "no VmRSS in /proc/PID/status".into())
}

/// KiB of server RSS per idle keep-alive connection, over `n` connections
/// that have each made one request.
fn idle_memory(binary: &PathBuf, runtime: &str, n: usize) -> Result<f64, Box<dyn Error>> {
    let server = Server::start(binary, runtime)?;
    let pid = server.child.id();
    // One connection first, so the runtime's one-time allocations (buffers,
    // the first task) are in the baseline.
    let warm = keep_alive_request(server.addr)?;
    std::thread::sleep(Duration::from_millis(200));
    let before = rss_kib(pid)?;
    let mut connections = Vec::with_capacity(n);
    for _ in 0..n {
        connections.push(keep_alive_request(server.addr)?);
    }
    std::thread::sleep(Duration::from_millis(500));
    let after = rss_kib(pid)?;
    drop(connections);
    drop(warm);
    Ok((after - before) / n as f64)
}

/// A connection that has made one keep-alive request and read its answer.
fn keep_alive_request(addr: SocketAddr) -> Result<TcpStream, Box<dyn Error>> {
    let mut stream = TcpStream::connect(addr)?;
    stream.set_read_timeout(Some(Duration::from_secs(10)))?;
    stream.write_all(b"GET / HTTP/1.1\r\nHost: bench\r\n\r\n")?;
    let mut answer = Vec::new();
    let mut buf = [0u8; 512];
    while !answer.ends_with(b"Hello from hyper\n") {
        let n = stream.read(&mut buf)?;
        if n == 0 {
            return Err("the server closed an idle connection".into());
        }
        answer.extend_from_slice(&buf[..n]);
    }
    Ok(stream)
}

fn median(values: impl Iterator<Item = f64>) -> f64 {
    let mut values: Vec<f64> = values.collect();
    values.sort_by(f64::total_cmp);
    values.get(values.len() / 2).copied().unwrap_or(0.0)
}

/// Median, lowest and highest of `values` (NaN for none).
fn summary(values: &[f64]) -> (f64, f64, f64) {
    if values.is_empty() {
        return (f64::NAN, f64::NAN, f64::NAN);
    }
    let (lo, hi) = range(values.iter().copied());
    (median(values.iter().copied()), lo, hi)
}

fn range(values: impl Iterator<Item = f64>) -> (f64, f64) {
    values.fold((f64::INFINITY, 0.0f64), |(lo, hi), v| {
        (lo.min(v), hi.max(v))
    })
}

#[cfg(test)]
mod tests {
    use super::{micros, parse_wrk};

    #[test]
    fn reads_wrk_output() {
        let text = "Running 1s test @ http://127.0.0.1:1/\n  2 threads and 50 connections\n  Latency Distribution\n     50%  350.00us\n     75%    1.2ms\n     90%    2.00ms\n     99%    4.10ms\n  1000 requests in 1.00s, 100KB read\n  Socket errors: connect 0, read 2, write 0, timeout 3\n  Non-2xx or 3xx responses: 4\nRequests/sec:   1000.50\n";
        let run = parse_wrk(text).unwrap();
        assert_eq!(run.requests_per_sec, 1000.5);
        assert_eq!(run.p50_us, 350.0);
        assert_eq!(run.p99_us, 4100.0);
        assert_eq!(run.errors, 9);
        assert_eq!(micros("1.50s"), Some(1.5e6));
    }
}
