//! What the load generator counts: latencies, messages, bytes and errors.
//!
//! Each worker thread keeps its own [`WorkerStats`], with no sharing and no
//! locks, and the coordinator merges them at the end. Latencies go into an
//! HDR histogram (`hdrhistogram`): it records values from a nanosecond to a
//! minute with three significant digits in a fixed few tens of KiB, so a
//! run of millions of messages costs no more memory than a run of ten, and
//! percentiles (p50, p99, p99.9) come out exact to that precision.

use std::fmt;
use std::io;
use std::time::Duration;

use hdrhistogram::Histogram;

/// The largest latency the histogram records, in ns: a minute.
const MAX_LATENCY_NS: u64 = 60_000_000_000;

/// Why a connection failed. Each connection fails at most once.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    /// Nobody listened (`ECONNREFUSED`).
    Refused,
    /// The server reset the connection or the pipe broke.
    Reset,
    /// No progress within the time limit: connect, or an echo that never came.
    Timeout,
    /// The server closed the connection while we still expected bytes.
    Closed,
    /// Out of ports or descriptors on our side.
    Resources,
    /// Anything else.
    Other,
}

impl ErrorKind {
    /// Every kind, in report order.
    pub const ALL: [ErrorKind; 6] = [
        ErrorKind::Refused,
        ErrorKind::Reset,
        ErrorKind::Timeout,
        ErrorKind::Closed,
        ErrorKind::Resources,
        ErrorKind::Other,
    ];

    /// Classifies an I/O error.
    pub fn of(err: &io::Error) -> ErrorKind {
        use io::ErrorKind as K;
        match err.kind() {
            K::ConnectionRefused => ErrorKind::Refused,
            K::ConnectionReset | K::ConnectionAborted | K::BrokenPipe => ErrorKind::Reset,
            K::TimedOut => ErrorKind::Timeout,
            K::UnexpectedEof => ErrorKind::Closed,
            K::AddrNotAvailable | K::AddrInUse | K::OutOfMemory => ErrorKind::Resources,
            _ if matches!(
                err.raw_os_error(),
                Some(libc::EMFILE | libc::ENFILE | libc::ENOBUFS)
            ) =>
            {
                ErrorKind::Resources
            }
            _ => ErrorKind::Other,
        }
    }

    /// The snake_case name used in JSON keys (`errors_refused`, ...).
    pub fn name(self) -> &'static str {
        match self {
            ErrorKind::Refused => "refused",
            ErrorKind::Reset => "reset",
            ErrorKind::Timeout => "timeout",
            ErrorKind::Closed => "closed",
            ErrorKind::Resources => "resources",
            ErrorKind::Other => "other",
        }
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Counts per error kind, plus the first error seen, to show the reader.
#[derive(Debug, Clone, Default)]
pub struct Errors {
    counts: [u64; 6],
    first: Option<String>,
}

impl Errors {
    /// Records one failed connection.
    pub fn record(&mut self, kind: ErrorKind, detail: impl fmt::Display) {
        self.counts[kind as usize] += 1;
        if self.first.is_none() {
            self.first = Some(format!("{kind}: {detail}"));
        }
    }

    /// Failures of one kind.
    pub fn count(&self, kind: ErrorKind) -> u64 {
        self.counts[kind as usize]
    }

    /// All failures.
    pub fn total(&self) -> u64 {
        self.counts.iter().sum()
    }

    /// The first failure, described.
    pub fn first(&self) -> Option<&str> {
        self.first.as_deref()
    }

    fn merge(&mut self, other: &Errors) {
        for (a, b) in self.counts.iter_mut().zip(other.counts) {
            *a += b;
        }
        if self.first.is_none() {
            self.first.clone_from(&other.first);
        }
    }
}

/// One worker's tally.
#[derive(Debug, Clone)]
pub struct WorkerStats {
    /// Round-trip latency of every message echoed during the load phase, in
    /// ns (the priming echoes are not counted: see `reset_latencies`).
    pub latency_ns: Histogram<u64>,
    /// How late each message started to be written, against its intended
    /// time, in ns. Large values mean the generator itself fell behind
    /// (starved of CPU, say), not the server.
    pub send_lag_ns: Histogram<u64>,
    /// Messages whose echo came back complete, priming included.
    pub messages: u64,
    /// Echoed bytes that matched what was sent.
    pub bytes_verified: u64,
    /// Echoed bytes that did not.
    pub mismatches: u64,
    /// Failed connections.
    pub errors: Errors,
    /// Connections still open when the load ended.
    pub open_at_end: u64,
}

impl Default for WorkerStats {
    fn default() -> WorkerStats {
        WorkerStats {
            latency_ns: Histogram::new_with_bounds(1, MAX_LATENCY_NS, 3)
                .expect("the bounds are valid"),
            send_lag_ns: Histogram::new_with_bounds(1, MAX_LATENCY_NS, 3)
                .expect("the bounds are valid"),
            messages: 0,
            bytes_verified: 0,
            mismatches: 0,
            errors: Errors::default(),
            open_at_end: 0,
        }
    }
}

impl WorkerStats {
    /// Records one message's round trip.
    pub fn record_latency(&mut self, latency: Duration) {
        let ns = (latency.as_nanos() as u64).clamp(1, MAX_LATENCY_NS);
        self.latency_ns.saturating_record(ns);
        self.messages += 1;
    }

    // ANCHOR: reset_latencies
    /// Forgets the latencies recorded so far. Called when the load starts:
    /// the priming echoes of the connect phase queue up behind thousands of
    /// handshakes and would otherwise fill the tail of the distribution with
    /// connection setup, not with the server's service.
    pub fn reset_latencies(&mut self) {
        self.latency_ns.reset();
        self.send_lag_ns.reset();
    }
    // ANCHOR_END: reset_latencies

    /// Records how late a message started to be written.
    pub fn record_send_lag(&mut self, lag: Duration) {
        let ns = (lag.as_nanos() as u64).clamp(1, MAX_LATENCY_NS);
        self.send_lag_ns.saturating_record(ns);
    }

    /// Adds another worker's tally to this one.
    pub fn merge(&mut self, other: &WorkerStats) {
        self.latency_ns
            .add(&other.latency_ns)
            .expect("histograms with the same bounds merge");
        self.send_lag_ns
            .add(&other.send_lag_ns)
            .expect("histograms with the same bounds merge");
        self.messages += other.messages;
        self.bytes_verified += other.bytes_verified;
        self.mismatches += other.mismatches;
        self.errors.merge(&other.errors);
        self.open_at_end += other.open_at_end;
    }

    /// A latency percentile (0 to 100) in µs; 0 when nothing was recorded.
    pub fn latency_percentile_us(&self, percentile: f64) -> f64 {
        if self.latency_ns.is_empty() {
            return 0.0;
        }
        self.latency_ns.value_at_percentile(percentile) as f64 / 1e3
    }

    /// A send-lag percentile in µs.
    pub fn send_lag_percentile_us(&self, percentile: f64) -> f64 {
        if self.send_lag_ns.is_empty() {
            return 0.0;
        }
        self.send_lag_ns.value_at_percentile(percentile) as f64 / 1e3
    }

    /// The largest latency in µs.
    pub fn latency_max_us(&self) -> f64 {
        self.latency_ns.max() as f64 / 1e3
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_are_classified() {
        let refused = io::Error::from(io::ErrorKind::ConnectionRefused);
        assert_eq!(ErrorKind::of(&refused), ErrorKind::Refused);
        let reset = io::Error::from_raw_os_error(libc::ECONNRESET);
        assert_eq!(ErrorKind::of(&reset), ErrorKind::Reset);
        let fds = io::Error::from_raw_os_error(libc::EMFILE);
        assert_eq!(ErrorKind::of(&fds), ErrorKind::Resources);
    }

    #[test]
    fn merging_adds_everything_and_keeps_the_first_error() {
        let mut a = WorkerStats::default();
        a.record_latency(Duration::from_micros(10));
        a.errors.record(ErrorKind::Timeout, "slow");
        let mut b = WorkerStats::default();
        b.record_latency(Duration::from_micros(1000));
        b.errors.record(ErrorKind::Reset, "gone");
        b.mismatches = 3;
        a.merge(&b);
        assert_eq!(a.messages, 2);
        assert_eq!(a.mismatches, 3);
        assert_eq!(a.errors.total(), 2);
        assert_eq!(a.errors.first(), Some("timeout: slow"));
        assert!(a.latency_percentile_us(100.0) >= 999.0);
        assert!(a.latency_percentile_us(50.0) <= 10.1);
    }
}
