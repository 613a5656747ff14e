//! The soak: every server, for minutes, against every kind of client, with
//! every byte checked and its memory watched.
//!
//! A benchmark asks how fast; a soak asks whether a server is still right
//! after minutes of abuse: it never loses or corrupts a byte, it survives
//! resets, half-closes, idle and slow clients and running out of
//! descriptors, and its memory goes back to where it started when the
//! clients are gone.
//!
//! One server's soak is a loop of **rounds** until the duration is spent.
//! Each round:
//!
//! 1. opens the idle clients, which send nothing;
//! 2. runs the clean load (the [load generator](crate::load) for an echo
//!    server, keep-alive clients for the HTTP server) at a fixed rate, and
//!    beside it two misbehaving clients in a loop: one resets connections
//!    mid-request and half-closes others (or pipelines, for HTTP), one
//!    writes a byte at a time and reads a few bytes at a time
//!    ([`cases`]);
//! 3. uses every idle client once: each must still be served;
//! 4. opens more connections at once than the server has descriptors
//!    ([`cases::exhaustion`]): every one must get its reply, the last ones
//!    once the first have closed;
//! 5. checks the server still answers a fresh client, and still runs.
//!
//! The server runs as a child process with a small open-file limit
//! ([`child`]). Its resident memory is read before the first round (cold
//! idle), after the first round once its clients are gone and it has been
//! left [`QUIET`] (warm idle), as a high-water mark at the end (peak), and
//! after the last round, after [`QUIET`] and up to [`SETTLE`] more (after).
//! "Back to idle" means after ≤ warm idle + the larger of
//! [`MEMORY_SLACK_KIB`] and [`MEMORY_SLACK_PERCENT`] % of it.
//!
//! Book: "Appendix: the soak" (appendix-soak.md).

pub mod cases;
pub mod child;
pub mod exchange;
pub mod presets;

use std::io;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;
use std::time::{Duration, Instant};

use chapter_01::console::Report;
use indicatif::ProgressBar;

use crate::load::{self, LoadConfig, NoHooks};
use cases::IO_TIMEOUT;
use child::{ServerChild, ServerCommand};
use exchange::{Conn, Pace, Protocol, Tally};

// ANCHOR: tolerance
/// Memory the server may hold after the soak over its warm idle figure
/// (after the first round, every client gone), in KiB.
///
/// Idle is measured warm because the first round brings a server to its
/// working size, which it keeps by design: glibc's malloc gives each thread
/// that allocates an arena of its own and keeps freed blocks there for
/// reuse (it returns to the kernel only free space at the top of a heap),
/// and a runtime keeps the capacity its slabs and queues grew to. What
/// must not happen is growth from round to round: a leak of 40 bytes per
/// connection exceeds this slack in a ten-minute soak, which opens over
/// 100,000 connections.
pub const MEMORY_SLACK_KIB: u64 = 4 * 1024;

/// The same slack as a share of the warm idle figure, for servers whose
/// idle memory is large.
pub const MEMORY_SLACK_PERCENT: u64 = 10;
// ANCHOR_END: tolerance

/// How long the server is left alone, after the last client is gone,
/// before its memory is read: time for connection threads to end and
/// buffers to be freed.
pub const QUIET: Duration = Duration::from_secs(3);

/// How long past [`QUIET`] the server has to return to its idle memory
/// (it is read every quarter second meanwhile).
pub const SETTLE: Duration = Duration::from_secs(10);

/// Bytes per message of the clean echo load.
pub const MESSAGE_BYTES: usize = 512;

/// What to do to each server.
#[derive(Debug, Clone)]
pub struct SoakConfig {
    /// How long each server is soaked (rounds are started until it is spent).
    pub duration: Duration,
    /// How long the clean load of one round lasts.
    pub round: Duration,
    /// Connections of the clean load.
    pub connections: usize,
    /// Messages (echo) or requests (HTTP) per second of the clean load, in all.
    pub rate: f64,
    /// Idle connections held through each round.
    pub idle: usize,
    /// The server's open-file limit.
    pub fd_limit: u64,
    /// Connections opened at once by the exhaustion case, beyond `fd_limit`.
    pub over_limit: usize,
}

impl SoakConfig {
    /// Defaults for a soak of `duration` per server.
    pub fn new(duration: Duration) -> SoakConfig {
        SoakConfig {
            duration,
            round: Duration::from_secs(20),
            connections: 50,
            rate: 1_000.0,
            idle: 20,
            fd_limit: 256,
            over_limit: 64,
        }
    }

    /// The check of the settings: one clear sentence when they cannot work.
    pub fn validate(&self) -> Result<(), String> {
        let fixed = self.connections + self.idle + 16;
        if self.fd_limit < fixed as u64 {
            return Err(format!(
                "--fd-limit {} cannot hold the {} load and idle connections and the server's own \
                 descriptors; give at least {fixed}",
                self.fd_limit,
                self.connections + self.idle
            ));
        }
        if self.connections == 0 || !(self.rate.is_finite() && self.rate > 0.0) {
            return Err("the soak needs at least one connection and a positive rate".into());
        }
        Ok(())
    }
}

/// What one server's soak measured.
#[derive(Debug, Clone)]
pub struct SoakReport {
    /// The server's name.
    pub server: String,
    /// Its command line.
    pub command: String,
    /// How long the soak ran.
    pub elapsed: Duration,
    /// Rounds completed.
    pub rounds: u64,
    /// Client connections opened in all, by every case.
    pub connections: u64,
    /// Clean-load messages or requests answered.
    pub messages: u64,
    /// Bytes sent that had to come back.
    pub bytes_sent: u64,
    /// Bytes that came back right.
    pub bytes_verified: u64,
    /// Bytes that came back wrong.
    pub bytes_wrong: u64,
    /// Bytes sent whose reply never came back whole.
    pub bytes_lost: u64,
    /// Resets mid-request.
    pub resets: u64,
    /// Half-closes answered in full.
    pub half_closes: u64,
    /// Pipelined batches answered in full (HTTP).
    pub pipelined: u64,
    /// Slow writers and readers answered in full.
    pub slow: u64,
    /// Idle connections that worked after idling.
    pub idle: u64,
    /// The most bytes a bulk writer was ahead of its slow reader.
    pub most_ahead: u64,
    /// Connections of the exhaustion case, opened / answered, in all rounds.
    pub exhaustion_opened: u64,
    /// See `exhaustion_opened`.
    pub exhaustion_answered: u64,
    /// The most sockets the server had open, read while the exhaustion case
    /// held every connection.
    pub most_descriptors: u64,
    /// Failures, and the first described.
    pub errors: u64,
    /// The first failure.
    pub first_error: Option<String>,
    /// Resident memory before the first round, in KiB.
    pub rss_idle_kib: u64,
    /// Resident memory after the first round, every client gone and the
    /// server left [`QUIET`], in KiB (warm idle).
    pub rss_first_round_kib: u64,
    /// The high-water mark of resident memory, in KiB.
    pub rss_peak_kib: u64,
    /// Resident memory after the soak, in KiB.
    pub rss_after_kib: u64,
    /// The server ended on its own (it crashed).
    pub server_exit: Option<String>,
}

impl SoakReport {
    /// The most memory "back to idle" allows, in KiB.
    pub fn rss_allowed_kib(&self) -> u64 {
        allowed_kib(self.rss_first_round_kib)
    }

    /// Why the soak failed, or `None` when it passed.
    pub fn failure(&self) -> Option<String> {
        if let Some(how) = &self.server_exit {
            return Some(format!("the server died ({how})"));
        }
        if self.bytes_lost > 0 || self.bytes_wrong > 0 {
            return Some(format!(
                "{} bytes lost and {} wrong",
                self.bytes_lost, self.bytes_wrong
            ));
        }
        if self.errors > 0 {
            return Some(format!(
                "{} errors, the first: {}",
                self.errors,
                self.first_error.as_deref().unwrap_or("?")
            ));
        }
        if self.rss_after_kib > self.rss_allowed_kib() {
            return Some(format!(
                "memory did not return: {} KiB after, {} KiB warm idle (at most {} KiB allowed)",
                self.rss_after_kib,
                self.rss_first_round_kib,
                self.rss_allowed_kib()
            ));
        }
        None
    }

    /// The figures as a report (one table per server, or one JSON object).
    pub fn to_report(&self) -> Report {
        let mut report = Report::new("soak");
        report
            .add("server", "server", self.server.clone())
            .add("command", "command", self.command.clone())
            .add("duration_s", "duration (s)", self.elapsed.as_secs_f64())
            .add("rounds", "rounds", self.rounds)
            .add("connections", "client connections opened", self.connections)
            .add("messages", "clean-load messages answered", self.messages)
            .add("bytes_sent", "bytes sent", self.bytes_sent)
            .add("bytes_verified", "bytes verified", self.bytes_verified)
            .add("bytes_wrong", "bytes wrong", self.bytes_wrong)
            .add("bytes_lost", "bytes lost", self.bytes_lost)
            .add("resets", "resets mid-request", self.resets)
            .add("half_closes", "half-closes", self.half_closes)
            .add("pipelined", "pipelined batches", self.pipelined)
            .add("slow", "slow writers and readers", self.slow)
            .add("idle", "idle connections used after idling", self.idle)
            .add(
                "bulk_most_ahead_bytes",
                "bulk writer, most bytes ahead of its reader",
                self.most_ahead,
            )
            .add(
                "exhaustion_opened",
                "connections past the descriptor limit: opened",
                self.exhaustion_opened,
            )
            .add(
                "exhaustion_answered",
                "  of which answered",
                self.exhaustion_answered,
            )
            .add(
                "server_sockets_at_limit",
                "server sockets open at the limit",
                self.most_descriptors,
            )
            .add("errors", "errors", self.errors)
            .add("rss_idle_kib", "server RSS idle, cold", self.rss_idle_kib)
            .add(
                "rss_first_round_kib",
                "server RSS idle, warm (after round 1)",
                self.rss_first_round_kib,
            )
            .add("rss_peak_kib", "server RSS peak", self.rss_peak_kib)
            .add("rss_after_kib", "server RSS after", self.rss_after_kib)
            .add(
                "rss_allowed_kib",
                "server RSS allowed after",
                self.rss_allowed_kib(),
            )
            .add(
                "first_error",
                "first error",
                self.first_error
                    .clone()
                    .map_or(serde_json::Value::Null, serde_json::Value::from),
            )
            .add(
                "verdict",
                "verdict",
                self.failure()
                    .map_or_else(|| "pass".to_string(), |why| format!("FAIL: {why}")),
            );
        report
    }
}

/// Warm idle memory plus the slack.
pub fn allowed_kib(idle_kib: u64) -> u64 {
    idle_kib + MEMORY_SLACK_KIB.max(idle_kib * MEMORY_SLACK_PERCENT / 100)
}

// ANCHOR: soak_server
/// Soaks one server as `config` says. `say` receives a line per round.
pub fn soak_server(
    command: &ServerCommand,
    config: &SoakConfig,
    say: &(dyn Fn(String) + Sync),
) -> io::Result<SoakReport> {
    let mut server = ServerChild::start(command, config.fd_limit)
        .map_err(|err| io::Error::new(err.kind(), format!("{}: {err}", command.name)))?;
    let addr = server.addr();
    thread::sleep(Duration::from_millis(500));
    let rss_idle_kib = server.status()?.vm_rss_kib;
    let tally = Tally::default();
    let mut messages = 0;
    let mut rounds = 0;
    let mut exhaustion_answered = 0;
    let start = Instant::now();
    let mut server_exit = None;
    let mut rss_first_round_kib = 0;
    let mut most_descriptors = 0;
    while start.elapsed() < config.duration {
        let left = config.duration.saturating_sub(start.elapsed());
        let this = config.round.min(left).max(Duration::from_secs(1));
        messages += round(addr, command.protocol, config, this, &tally);
        let pid = server.pid();
        let mut at_limit = || {
            most_descriptors = most_descriptors.max(open_sockets(pid));
        };
        exhaustion_answered += exhaust(addr, command.protocol, config, &tally, &mut at_limit);
        rounds += 1;
        if let Some(how) = server.exited() {
            server_exit = Some(how);
            break;
        }
        if rounds == 1 {
            thread::sleep(QUIET);
            rss_first_round_kib = server.status().map_or(0, |s| s.vm_rss_kib);
        }
        say(format!(
            "{}: round {rounds} done at {:.0} s: {} bytes verified, {} lost, {} errors",
            command.name,
            start.elapsed().as_secs_f64(),
            Tally::get(&tally.verified),
            Tally::get(&tally.lost),
            Tally::get(&tally.errors),
        ));
    }
    let elapsed = start.elapsed();
    // Every client is closed; the server has QUIET, then up to SETTLE, to
    // give memory back.
    let (mut rss_after_kib, mut rss_peak_kib) = (0, 0);
    thread::sleep(QUIET);
    let settle_until = Instant::now() + SETTLE;
    while server_exit.is_none() {
        match server.status() {
            Ok(status) => {
                rss_after_kib = status.vm_rss_kib;
                // The kernel updates the high-water mark lazily; a sample
                // taken earlier may exceed it.
                rss_peak_kib = status.vm_hwm_kib.max(rss_first_round_kib);
            }
            Err(err) => tally.error(format!("reading the server's memory: {err}")),
        }
        if rss_after_kib <= allowed_kib(rss_first_round_kib) || Instant::now() > settle_until {
            break;
        }
        thread::sleep(Duration::from_millis(250));
    }
    Ok(SoakReport {
        server: command.name.clone(),
        command: command.display(),
        elapsed,
        rounds,
        connections: Tally::get(&tally.connections) + rounds * config.connections as u64,
        messages,
        bytes_sent: Tally::get(&tally.sent),
        bytes_verified: Tally::get(&tally.verified),
        bytes_wrong: Tally::get(&tally.wrong),
        bytes_lost: Tally::get(&tally.lost),
        resets: Tally::get(&tally.resets),
        half_closes: Tally::get(&tally.half_closes),
        pipelined: Tally::get(&tally.pipelined),
        slow: Tally::get(&tally.slow),
        idle: Tally::get(&tally.idle),
        most_ahead: Tally::get(&tally.most_ahead),
        exhaustion_opened: Tally::get(&tally.exhaustion),
        exhaustion_answered,
        most_descriptors,
        errors: Tally::get(&tally.errors),
        first_error: tally.first_error(),
        rss_idle_kib,
        rss_first_round_kib,
        rss_peak_kib,
        rss_after_kib,
        server_exit,
    })
}
// ANCHOR_END: soak_server

/// Steps 1 to 3 of a round; returns the clean-load messages answered.
fn round(
    addr: SocketAddr,
    protocol: Protocol,
    config: &SoakConfig,
    this: Duration,
    tally: &Tally,
) -> u64 {
    let idle = cases::open_idle(addr, protocol, config.idle, tally);
    let stop = AtomicBool::new(false);
    let messages = thread::scope(|scope| {
        scope.spawn(|| cases::fast_misbehaver(addr, protocol, tally, &stop));
        scope.spawn(|| cases::slow_misbehaver(addr, protocol, tally, &stop));
        let messages = match protocol {
            Protocol::Echo => clean_echo_load(addr, config, this, tally),
            Protocol::Http => {
                let before = Tally::get(&tally.clean);
                let keep_alive = scope.spawn(|| {
                    cases::keep_alive(addr, config.connections, config.rate, tally, &stop)
                });
                thread::sleep(this);
                stop.store(true, Ordering::Relaxed);
                let _ = keep_alive.join();
                Tally::get(&tally.clean) - before
            }
        };
        stop.store(true, Ordering::Relaxed);
        messages
    });
    cases::use_idle(idle, tally);
    messages
}

/// Steps 4 and 5 of a round; returns the exhaustion connections answered.
fn exhaust(
    addr: SocketAddr,
    protocol: Protocol,
    config: &SoakConfig,
    tally: &Tally,
    at_limit: &mut dyn FnMut(),
) -> u64 {
    let n = config.fd_limit as usize + config.over_limit;
    let seen = cases::exhaustion(addr, protocol, n, tally, at_limit);
    let again = Conn::open(addr, protocol, IO_TIMEOUT, tally)
        .and_then(|mut conn| conn.round_trip(1_000, Pace::FAST, tally));
    if let Err(err) = again {
        tally.error(format!("no answer after the exhaustion case: {err}"));
    }
    seen.answered as u64
}

/// How many sockets process `pid` has open: the entries of /proc/PID/fd
/// that link to `socket:[...]` (0 if they cannot be read). Sockets only:
/// a server may inherit other descriptors from the shell that started us.
fn open_sockets(pid: u32) -> u64 {
    let Ok(dir) = std::fs::read_dir(format!("/proc/{pid}/fd")) else {
        return 0;
    };
    dir.filter_map(Result::ok)
        .filter(|entry| {
            std::fs::read_link(entry.path())
                .is_ok_and(|target| target.to_string_lossy().starts_with("socket:"))
        })
        .count() as u64
}

/// The clean echo load: the load generator, open loop, every byte checked.
fn clean_echo_load(addr: SocketAddr, config: &SoakConfig, this: Duration, tally: &Tally) -> u64 {
    let mut load = LoadConfig::new(addr, config.connections);
    load.duration = this;
    load.rate = Some(config.rate);
    load.message_bytes = MESSAGE_BYTES;
    load.workers = 1;
    load.io_timeout = IO_TIMEOUT;
    load.connect_timeout = IO_TIMEOUT;
    load.seed = exchange::next_seed() << 20;
    match load::run(&load, &mut NoHooks, &ProgressBar::hidden()) {
        Ok(report) => {
            let stats = &report.stats;
            // Each message is verified or wrong; a connection that fails is
            // an error (the generator does not count its bytes in flight).
            Tally::add(&tally.sent, stats.bytes_verified + stats.mismatches);
            Tally::add(&tally.verified, stats.bytes_verified);
            Tally::add(&tally.wrong, stats.mismatches);
            for _ in 0..stats.errors.total() {
                tally.error(format!(
                    "clean load: {}",
                    stats.errors.first().unwrap_or("a connection failed")
                ));
            }
            stats.messages
        }
        Err(err) => {
            tally.error(format!("clean load: {err}"));
            0
        }
    }
}

/// Soaks each server in turn, or all at once with `parallel`. Returns each
/// server's report or the reason it could not be soaked.
pub fn soak_all(
    commands: &[ServerCommand],
    config: &SoakConfig,
    parallel: bool,
    say: &(dyn Fn(String) + Sync),
) -> Vec<Result<SoakReport, String>> {
    if parallel {
        thread::scope(|scope| {
            let handles: Vec<_> = commands
                .iter()
                .map(|command| scope.spawn(move || soak_server(command, config, say)))
                .collect();
            handles
                .into_iter()
                .map(|h| match h.join() {
                    Ok(result) => result.map_err(|err| err.to_string()),
                    Err(_) => Err("the soak thread panicked".to_string()),
                })
                .collect()
        })
    } else {
        commands
            .iter()
            .map(|command| soak_server(command, config, say).map_err(|err| err.to_string()))
            .collect()
    }
}

/// The servers named on the command line: presets (`all` for every one,
/// and every one when none is named) and command lines.
pub fn commands(
    presets: &[String],
    command_lines: &[String],
    http: bool,
    bin_dir: Option<std::path::PathBuf>,
) -> io::Result<Vec<ServerCommand>> {
    let bin_dir = match bin_dir {
        Some(dir) => dir,
        None => presets::default_bin_dir()?,
    };
    let mut names: Vec<&str> = Vec::new();
    for name in presets {
        if name == "all" {
            names.extend(presets::names());
        } else {
            names.push(name);
        }
    }
    if names.is_empty() && command_lines.is_empty() {
        names = presets::names();
    }
    let mut commands = names
        .iter()
        .map(|name| presets::resolve(name, &bin_dir))
        .collect::<io::Result<Vec<_>>>()?;
    for line in command_lines {
        let mut words = line.split_whitespace();
        let Some(program) = words.next() else {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "--server-cmd is empty",
            ));
        };
        let program = std::path::PathBuf::from(program);
        commands.push(ServerCommand {
            name: program
                .file_name()
                .map_or("server".into(), |n| n.to_string_lossy().into_owned()),
            program,
            args: words.map(str::to_string).collect(),
            protocol: if http { Protocol::Http } else { Protocol::Echo },
        });
    }
    Ok(commands)
}

/// `chapter-03 soak`: soaks the servers, prints a table per server (or one
/// JSON object), and fails if any server failed.
pub fn run(
    console: &chapter_01::console::Console,
    commands: &[ServerCommand],
    config: &SoakConfig,
    parallel: bool,
    say: &(dyn Fn(String) + Sync),
) -> Result<(), Box<dyn std::error::Error>> {
    say(format!(
        "Soaking {} server(s) for {:.0} s each{}: {} connections at {} messages/s, {} idle, \
         open-file limit {} (+{} connections past it each round).",
        commands.len(),
        config.duration.as_secs_f64(),
        if parallel { ", all at once" } else { "" },
        config.connections,
        config.rate,
        config.idle,
        config.fd_limit,
        config.over_limit,
    ));
    // Each server soaked at once needs its exhaustion case, the clean load,
    // the idle and misbehaving clients in this process's descriptors.
    let at_once = if parallel { commands.len() } else { 1 } as u64;
    let needed = at_once
        * (config.fd_limit + (config.over_limit + config.connections + config.idle) as u64 + 8)
        + crate::load::FD_RESERVE;
    let limit = crate::limits::raise_fd_limit()?;
    if needed > limit {
        return Err(format!(
            "this soak needs {needed} open files at once and this process may open {limit} \
             (ulimit -Hn); soak fewer servers at once or lower --fd-limit"
        )
        .into());
    }
    let results = soak_all(commands, config, parallel, say);
    let mut failures = Vec::new();
    let mut json = Vec::new();
    for (command, result) in commands.iter().zip(results) {
        match result {
            Ok(report) => {
                if let Some(why) = report.failure() {
                    failures.push(format!("{}: {why}", command.name));
                }
                let report = report.to_report();
                if console.is_json() {
                    json.push(report.to_json());
                } else {
                    println!("\n{}", report.to_table());
                }
            }
            Err(why) => {
                failures.push(format!("{}: {why}", command.name));
                json.push(serde_json::json!({ "server": command.name, "error": why }));
            }
        }
    }
    if console.is_json() {
        let all = serde_json::json!({ "experiment": "soak", "servers": json });
        println!("{all}");
    }
    if failures.is_empty() {
        Ok(())
    } else {
        Err(format!("soak failed: {}", failures.join("; ")).into())
    }
}
