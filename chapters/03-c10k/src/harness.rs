//! The C10K harness: one server process, N connections, the kernel's view of
//! the server at three moments.
//!
//! Every chapter from here on puts its server through this same harness, so
//! their figures line up key by key:
//!
//! 1. start the server as a **child process** (the chapter binary's own
//!    `serve` subcommand), so server and load generator each have their own
//!    open-file limit and their own memory, and wait for its
//!    `listening on ADDR` line;
//! 2. sample `/proc/<pid>/status` (resident and virtual memory, threads,
//!    context switches summed over its threads) **before connecting**;
//! 3. open and prime all N connections with the [load generator](crate::load),
//!    then sample **at full count**;
//! 4. run the load, then sample **at the end**, with the connections still
//!    open;
//! 5. stop the server, and report a server that died on the way as an
//!    error, not a mystery.
//!
//! Memory per connection is (RSS at full count - RSS before) / connections
//! held. Switches are counted over the load phase (end - full count), the
//! part where messages flow.

use std::error::Error;
use std::fmt;
use std::io::{self, BufRead, BufReader};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use chapter_01::console::Report;
use chapter_01::proc_status::ProcStatus;
use indicatif::ProgressBar;

use crate::load::stats::ErrorKind;
use crate::load::{self, Hooks, LoadConfig, LoadReport};
use crate::server::READY_PREFIX;

/// How long a server may take to print its `listening on` line.
pub const READY_TIMEOUT: Duration = Duration::from_secs(20);

/// How to start a server: a program and its arguments. The server must
/// print `listening on ADDR` on stdout when it is ready.
#[derive(Debug, Clone)]
pub struct ServerSpec {
    /// A short name for reports ("threads", "epoll", ...).
    pub name: String,
    /// The program.
    pub program: PathBuf,
    /// Its arguments.
    pub args: Vec<String>,
}

impl ServerSpec {
    /// This very binary with `args` (for example `serve --addr 127.0.0.1:0`).
    pub fn this_binary(name: &str, args: &[&str]) -> io::Result<ServerSpec> {
        Ok(ServerSpec {
            name: name.to_string(),
            program: std::env::current_exe()?,
            args: args.iter().map(|a| a.to_string()).collect(),
        })
    }
}

/// A server running as a child process.
#[derive(Debug)]
pub struct ServerProcess {
    child: Child,
    addr: SocketAddr,
}

impl ServerProcess {
    /// Starts the server and waits until it listens.
    pub fn start(spec: &ServerSpec) -> io::Result<ServerProcess> {
        let mut child = Command::new(&spec.program)
            .args(&spec.args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .map_err(|err| {
                io::Error::new(
                    err.kind(),
                    format!("cannot start {}: {err}", spec.program.display()),
                )
            })?;
        let stdout = child.stdout.take().expect("stdout is piped");
        let (ready_tx, ready_rx) = mpsc::channel();
        // Reads the first line, then keeps draining so the server never
        // blocks on a full pipe.
        thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            let mut line = String::new();
            let first = reader.read_line(&mut line).map(|_| line);
            let _ = ready_tx.send(first);
            let _ = io::copy(&mut reader, &mut io::sink());
        });
        let line = match ready_rx.recv_timeout(READY_TIMEOUT) {
            Ok(Ok(line)) => line,
            Ok(Err(err)) => return Err(kill_with(child, err.to_string())),
            Err(_) => {
                return Err(kill_with(
                    child,
                    format!(
                        "the server did not print `{READY_PREFIX}ADDR` within {READY_TIMEOUT:?}"
                    ),
                ));
            }
        };
        let addr = line
            .trim()
            .strip_prefix(READY_PREFIX)
            .and_then(|addr| addr.parse().ok());
        match addr {
            Some(addr) => Ok(ServerProcess { child, addr }),
            None if line.is_empty() => Err(kill_with(
                child,
                "the server exited before it listened".to_string(),
            )),
            None => Err(kill_with(
                child,
                format!(
                    "the server printed {:?} instead of `{READY_PREFIX}ADDR`",
                    line.trim()
                ),
            )),
        }
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

    /// Stops it: SIGTERM, then SIGKILL if it has not ended within a second.
    pub fn stop(mut self) {
        self.terminate();
    }

    fn terminate(&mut self) {
        if self.child.try_wait().ok().flatten().is_some() {
            return;
        }
        // SAFETY: sending a signal to our own child, which has not been
        // reaped yet (try_wait said so), so the pid is still its own.
        unsafe { libc::kill(self.child.id() as libc::pid_t, libc::SIGTERM) };
        let deadline = Instant::now() + Duration::from_secs(1);
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

impl Drop for ServerProcess {
    fn drop(&mut self) {
        self.terminate();
    }
}

fn kill_with(mut child: Child, why: String) -> io::Error {
    let _ = child.kill();
    let _ = child.wait();
    io::Error::other(why)
}

/// The server's status at the harness's three moments.
#[derive(Debug, Clone, Default)]
pub struct Samples {
    /// Before any connection.
    pub before: ProcStatus,
    /// With every connection open, before the load.
    pub at_full_count: ProcStatus,
    /// After the load, connections still open.
    pub at_end: ProcStatus,
    /// A sample that failed (the server was gone), described.
    pub failure: Option<String>,
}

struct Sampler<'a> {
    server: &'a ServerProcess,
    samples: &'a mut Samples,
}

impl Sampler<'_> {
    fn take(&mut self) -> ProcStatus {
        match self.server.status() {
            Ok(status) => status,
            Err(err) => {
                self.samples
                    .failure
                    .get_or_insert_with(|| format!("cannot read the server's status: {err}"));
                ProcStatus::default()
            }
        }
    }
}

impl Hooks for Sampler<'_> {
    fn at_full_count(&mut self, _held: usize) {
        self.samples.at_full_count = self.take();
    }
    fn at_end(&mut self) {
        self.samples.at_end = self.take();
    }
}

/// Everything one C10K run measured.
#[derive(Debug, Clone)]
pub struct C10kReport {
    /// Which server.
    pub server: String,
    /// The load generator's side.
    pub load: LoadReport,
    /// The server's side.
    pub samples: Samples,
    /// How the server ended, if it ended before we stopped it.
    pub server_exit: Option<String>,
}

/// Why a C10K run failed to produce figures.
#[derive(Debug)]
pub struct HarnessError(String);

impl fmt::Display for HarnessError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl Error for HarnessError {}

// ANCHOR: run_c10k
/// Starts the server of `spec`, loads it as `config` says (its `target` is
/// replaced by the server's address), samples it, stops it.
pub fn run_c10k(
    spec: &ServerSpec,
    config: &LoadConfig,
    progress: &ProgressBar,
) -> Result<C10kReport, Box<dyn Error>> {
    let mut server = ServerProcess::start(spec)?;
    let mut config = config.clone();
    config.target = server.addr();
    let mut samples = Samples::default();
    let load = {
        let mut sampler = Sampler {
            server: &server,
            samples: &mut samples,
        };
        sampler.samples.before = sampler.take();
        load::run(&config, &mut sampler, progress)?
    };
    let server_exit = server.exited();
    server.stop();
    if samples.before == ProcStatus::default() {
        return Err(Box::new(HarnessError(
            samples
                .failure
                .unwrap_or_else(|| "the server vanished".into()),
        )));
    }
    Ok(C10kReport {
        server: spec.name.clone(),
        load,
        samples,
        server_exit,
    })
}
// ANCHOR_END: run_c10k

/// A send-lag percentile in µs, or null in a closed loop, where each message
/// is sent the moment it is due by construction.
pub fn send_lag(load: &LoadReport, percentile: f64) -> serde_json::Value {
    if load.open_loop {
        serde_json::Value::from(load.stats.send_lag_percentile_us(percentile))
    } else {
        serde_json::Value::Null
    }
}

impl C10kReport {
    /// Errors of every kind, plus one if the server died on its own.
    pub fn errors(&self) -> u64 {
        self.load.stats.errors.total() + u64::from(self.server_exit.is_some())
    }

    /// Resident memory per held connection, in KiB.
    pub fn rss_per_connection_kib(&self) -> f64 {
        let grown = self
            .samples
            .at_full_count
            .vm_rss_kib
            .saturating_sub(self.samples.before.vm_rss_kib);
        grown as f64 / self.load.connections_held.max(1) as f64
    }

    /// Context switches of the server per message during the load.
    pub fn switches_per_message(&self) -> f64 {
        let (vol, invol) = self.load_switches();
        (vol + invol) as f64 / self.load.load_messages.max(1) as f64
    }

    /// (voluntary, involuntary) switches of the server during the load.
    pub fn load_switches(&self) -> (u64, u64) {
        let (end, full) = (&self.samples.at_end, &self.samples.at_full_count);
        (
            end.voluntary_switches
                .saturating_sub(full.voluntary_switches),
            end.involuntary_switches
                .saturating_sub(full.involuntary_switches),
        )
    }

    /// The figures as a flat report: the keys every chapter's `c10k`
    /// prints.
    pub fn to_report(&self, experiment: &str) -> Report {
        let stats = &self.load.stats;
        let (vol, invol) = self.load_switches();
        let full = &self.samples.at_full_count;
        let mut report = Report::new(experiment);
        report
            .add("server", "server", self.server.clone())
            .add(
                "connections_requested",
                "connections requested",
                self.load.connections_requested,
            )
            .add(
                "connections_held",
                "connections held at once",
                self.load.connections_held,
            )
            .add(
                "messages",
                "messages echoed (load phase)",
                self.load.load_messages,
            )
            .add(
                "bytes_verified",
                "echoed bytes verified",
                stats.bytes_verified,
            )
            .add("mismatches", "echoed bytes wrong", stats.mismatches)
            .add("errors", "failed connections", self.errors());
        for kind in ErrorKind::ALL {
            report.add(
                &format!("errors_{}", kind.name()),
                &format!("  of which {kind}"),
                stats.errors.count(kind),
            );
        }
        report
            .add(
                "throughput_msgs_per_sec",
                "throughput",
                self.load.throughput_msgs_per_sec(),
            )
            .add(
                "latency_p50_us",
                "latency p50",
                stats.latency_percentile_us(50.0),
            )
            .add(
                "latency_p99_us",
                "latency p99",
                stats.latency_percentile_us(99.0),
            )
            .add(
                "latency_p999_us",
                "latency p99.9",
                stats.latency_percentile_us(99.9),
            )
            .add("latency_max_us", "latency max", stats.latency_max_us())
            .add(
                "send_lag_p50_us",
                "generator send lag p50",
                send_lag(&self.load, 50.0),
            )
            .add(
                "send_lag_p99_us",
                "generator send lag p99",
                send_lag(&self.load, 99.0),
            )
            .add(
                "connect_time_ms",
                "time to open and prime all connections",
                self.load.connect_time.as_secs_f64() * 1e3,
            )
            .add(
                "load_time_ms",
                "load phase",
                self.load.load_time.as_secs_f64() * 1e3,
            )
            .add(
                "server_rss_before_kib",
                "server RSS before connecting",
                self.samples.before.vm_rss_kib,
            )
            .add(
                "server_rss_kib",
                "server RSS at full count",
                full.vm_rss_kib,
            )
            .add(
                "server_rss_per_connection_kib",
                "server RSS per connection",
                self.rss_per_connection_kib(),
            )
            .add(
                "server_vm_size_kib",
                "server virtual memory",
                full.vm_size_kib,
            )
            .add(
                "server_page_tables_kib",
                "server page tables (kernel memory)",
                full.vm_pte_kib,
            )
            .add("server_threads", "server threads", full.threads)
            .add(
                "server_voluntary_switches",
                "server voluntary switches (load)",
                vol,
            )
            .add(
                "server_involuntary_switches",
                "server involuntary switches (load)",
                invol,
            )
            .add(
                "server_switches_per_message",
                "server switches per message",
                self.switches_per_message(),
            )
            .add(
                "server_exit",
                "server ended on its own",
                self.server_exit
                    .clone()
                    .map_or(serde_json::Value::Null, serde_json::Value::from),
            )
            .add(
                "first_error",
                "first error",
                stats
                    .errors
                    .first()
                    .or(self.samples.failure.as_deref())
                    .map_or(serde_json::Value::Null, serde_json::Value::from),
            );
        report
    }
}
