//! The race: four echo servers, one load, one run.
//!
//! Chapter 4's epoll loop (one thread), Chapter 7's runtime (a task per
//! connection on every core), this chapter's io_uring server (one thread),
//! and compio (a production completion runtime, one thread, as an example
//! binary of this package) each serve Chapter 3's load generator, every
//! echoed byte checked. Each runs as its own process; the generator is this
//! process.
//!
//! **Rounds alternate the order**: round r starts with server r (mod 4), so
//! none always meets the machine warmer or busier. Within a round each
//! server's throughput, p99 latency and system calls per message are divided
//! by the epoll server's; the report gives the median of those ratios over
//! the rounds and their range.
//!
//! **System calls per message** are counted with `perf stat -e
//! raw_syscalls:sys_enter -p PID` on the server process, from the moment
//! every connection is open to the end of the load, divided by the messages
//! echoed in that window. No ptrace: the tracepoint counts in the kernel and
//! does not slow the server the way `strace` would. `io_uring_enter` is
//! counted separately (`syscalls:sys_enter_io_uring_enter`). Where `perf` is
//! missing or not allowed, the counts are `null`.
//!
//! Book: Chapter 10, "The race".

use std::error::Error;
use std::io::Read;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use chapter_01::console::{Console, Report, group_thousands, human_duration_ns};
use chapter_01::proc_status::ProcStatus;
use chapter_03::experiments as ch03;
use chapter_03::harness::{C10kReport, Samples, ServerProcess, ServerSpec};
use chapter_03::load::{self, Hooks, LoadConfig};
use serde_json::{Value, json};

use crate::experiments::{epoll_spec, rt_spec, uring_spec};
use crate::server::Step;

/// What to race.
#[derive(Debug, Clone)]
pub struct RaceConfig {
    /// Connection counts, each raced separately.
    pub connections: Vec<usize>,
    /// Load per server per round.
    pub duration: Duration,
    /// Rounds per connection count.
    pub rounds: usize,
    /// Which step of our server.
    pub step: Step,
    /// compio's echo server binary, if built.
    pub compio: Option<PathBuf>,
    /// Where to write the plots.
    pub plot_dir: Option<PathBuf>,
}

/// The compio example beside this binary, if it has been built
/// (`cargo build --release -p chapter-10 --example compio-echo`).
pub fn default_compio_path() -> Option<PathBuf> {
    let exe = std::env::current_exe().ok()?;
    let path = exe.parent()?.join("examples").join("compio-echo");
    path.exists().then_some(path)
}

/// System calls the server made during the load phase.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Syscalls {
    /// Every system call.
    pub total: u64,
    /// `io_uring_enter` calls among them.
    pub io_uring_enter: u64,
    /// Operations that found their socket not ready and armed a poll
    /// (to be finished when it becomes ready).
    pub poll_arms: u64,
    /// Operations handed to the kernel's worker threads (io-wq).
    pub async_work: u64,
}

/// `perf stat` attached to the server for the load phase.
struct Counter {
    child: Child,
}

impl Counter {
    fn attach(pid: u32) -> Option<Counter> {
        let child = Command::new("perf")
            .args([
                "stat",
                "-x,",
                "-e",
                "raw_syscalls:sys_enter,syscalls:sys_enter_io_uring_enter,\
                 io_uring:io_uring_poll_arm,io_uring:io_uring_queue_async_work",
                "-p",
                &pid.to_string(),
            ])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .ok()?;
        // perf needs a moment to attach to every thread of the server.
        std::thread::sleep(Duration::from_millis(300));
        Some(Counter { child })
    }

    fn finish(mut self) -> Option<Syscalls> {
        // SAFETY: signalling our own child, not yet reaped.
        unsafe { libc::kill(self.child.id() as libc::pid_t, libc::SIGINT) };
        let mut text = String::new();
        self.child.stderr.take()?.read_to_string(&mut text).ok()?;
        let _ = self.child.wait();
        let count = |event: &str| -> Option<u64> {
            text.lines()
                .find(|line| line.split(',').nth(2) == Some(event))
                .and_then(|line| line.split(',').next()?.parse().ok())
        };
        Some(Syscalls {
            total: count("raw_syscalls:sys_enter")?,
            io_uring_enter: count("syscalls:sys_enter_io_uring_enter").unwrap_or(0),
            poll_arms: count("io_uring:io_uring_poll_arm").unwrap_or(0),
            async_work: count("io_uring:io_uring_queue_async_work").unwrap_or(0),
        })
    }
}

/// CPU time (user + system) the process `pid` has used, all its threads, in µs.
pub fn cpu_time_us(pid: u32) -> Option<f64> {
    // Fields 14 and 15 of /proc/<pid>/stat: user and system time, in ticks.
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let fields: Vec<&str> = stat[stat.rfind(')')? + 2..].split_whitespace().collect();
    let ticks = fields.get(11)?.parse::<f64>().ok()? + fields.get(12)?.parse::<f64>().ok()?;
    // SAFETY: sysconf has no preconditions.
    let per_second = unsafe { libc::sysconf(libc::_SC_CLK_TCK) } as f64;
    Some(ticks / per_second * 1e6)
}

struct RaceHooks<'a> {
    server: &'a ServerProcess,
    cpu_at_full: Option<f64>,
    cpu_used_us: Option<f64>,
    samples: Samples,
    counter: Option<Counter>,
    syscalls: Option<Syscalls>,
}

impl RaceHooks<'_> {
    fn status(&mut self) -> ProcStatus {
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

impl Hooks for RaceHooks<'_> {
    fn at_full_count(&mut self, _held: usize) {
        self.samples.at_full_count = self.status();
        self.counter = Counter::attach(self.server.pid());
        self.cpu_at_full = cpu_time_us(self.server.pid());
    }
    fn at_end(&mut self) {
        self.cpu_used_us = cpu_time_us(self.server.pid())
            .zip(self.cpu_at_full)
            .map(|(end, start)| end - start);
        self.syscalls = self.counter.take().and_then(Counter::finish);
        self.samples.at_end = self.status();
    }
}

/// What [`run_one`] measured.
#[derive(Debug)]
pub struct Measured {
    /// Chapter 3's figures.
    pub report: C10kReport,
    /// The server's system calls during the load, if `perf` could count them.
    pub syscalls: Option<Syscalls>,
    /// The server's CPU time during the load, in µs.
    pub cpu_us: Option<f64>,
}

// ANCHOR: run_one
/// One server, one load: Chapter 3's harness, plus the system-call count.
pub fn run_one(
    spec: &ServerSpec,
    config: &LoadConfig,
    progress: &indicatif::ProgressBar,
) -> Result<Measured, Box<dyn Error>> {
    let mut server = ServerProcess::start(spec)?;
    let mut config = config.clone();
    config.target = server.addr();
    let (load, samples, syscalls, cpu_us) = {
        let mut hooks = RaceHooks {
            server: &server,
            cpu_at_full: None,
            cpu_used_us: None,
            samples: Samples::default(),
            counter: None,
            syscalls: None,
        };
        hooks.samples.before = hooks.status();
        let load = load::run(&config, &mut hooks, progress)?;
        (load, hooks.samples, hooks.syscalls, hooks.cpu_used_us)
    };
    let server_exit = server.exited();
    server.stop();
    Ok(Measured {
        report: C10kReport {
            server: spec.name.clone(),
            load,
            samples,
            server_exit,
        },
        syscalls,
        cpu_us,
    })
}
// ANCHOR_END: run_one

/// One server's figures in one round.
#[derive(Debug, Clone)]
struct RoundResult {
    throughput: f64,
    p99_us: f64,
    syscalls_per_message: Option<f64>,
    enters_per_message: Option<f64>,
    poll_arms_per_message: Option<f64>,
    async_work_per_message: Option<f64>,
    cpu_us_per_message: Option<f64>,
    errors: u64,
    mismatches: u64,
    messages: u64,
    held: usize,
    rss_per_connection_kib: f64,
}

fn median(mut values: Vec<f64>) -> f64 {
    if values.is_empty() {
        return f64::NAN;
    }
    values.sort_by(f64::total_cmp);
    let mid = values.len() / 2;
    if values.len() % 2 == 1 {
        values[mid]
    } else {
        (values[mid - 1] + values[mid]) / 2.0
    }
}

fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

fn summary(values: &[f64]) -> Value {
    let finite: Vec<f64> = values.iter().copied().filter(|v| v.is_finite()).collect();
    if finite.is_empty() {
        return json!({"median": null, "min": null, "max": null});
    }
    let min = finite.iter().copied().fold(f64::INFINITY, f64::min);
    let max = finite.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    json!({"median": round3(median(finite)), "min": round3(min), "max": round3(max)})
}

/// The servers, epoll first (the reference of every ratio).
fn contestants(config: &RaceConfig, console: &Console) -> Result<Vec<ServerSpec>, Box<dyn Error>> {
    let mut specs = vec![epoll_spec()?, rt_spec()?, uring_spec(config.step)?];
    specs[2].name = "io_uring".into();
    match &config.compio {
        Some(path) if path.exists() => specs.push(ServerSpec {
            name: "compio".into(),
            program: path.clone(),
            args: vec!["--addr".into(), "127.0.0.1:0".into()],
        }),
        _ => console.say(
            "  compio is not built: racing three (build it with `cargo build --release -p chapter-10 --example compio-echo`)",
        ),
    }
    Ok(specs)
}

// ANCHOR: race
/// `race`: every server at every connection count, rounds alternating the
/// order, ratios to epoll within each round.
pub fn race(console: &Console, config: &RaceConfig) -> Result<Report, Box<dyn Error>> {
    let specs = contestants(config, console)?;
    let names: Vec<String> = specs.iter().map(|s| s.name.clone()).collect();
    console.say(format!(
        "{} at {} connections, {} s each, {} round{}; servers and load generator are separate processes",
        names.join(", "),
        config
            .connections
            .iter()
            .map(|&n| group_thousands(n as f64))
            .collect::<Vec<_>>()
            .join(" and "),
        config.duration.as_secs(),
        config.rounds,
        if config.rounds == 1 { "" } else { "s" }
    ));
    let mut rows = Vec::new();
    let mut all_right = true;
    for &connections in &config.connections {
        let mut load =
            LoadConfig::new(std::net::SocketAddr::from(([127, 0, 0, 1], 0)), connections);
        load.duration = config.duration;
        // results[server][round]
        let mut results: Vec<Vec<RoundResult>> = vec![Vec::new(); specs.len()];
        for round in 0..config.rounds {
            let order: Vec<usize> = (0..specs.len())
                .map(|i| (i + round) % specs.len())
                .collect();
            console.say(format!(
                "  {} connections, round {} of {}: {} first",
                group_thousands(connections as f64),
                round + 1,
                config.rounds,
                specs[order[0]].name
            ));
            for &which in &order {
                let spec = &specs[which];
                let bar = console.progress(connections as u64, &spec.name);
                let outcome = run_one(spec, &load, &bar);
                bar.finish_and_clear();
                let Measured {
                    report,
                    syscalls,
                    cpu_us,
                } = outcome?;
                ch03::narrate(console, &report);
                let messages = report.load.load_messages;
                let per = |n: u64| n as f64 / messages.max(1) as f64;
                if let Some(s) = syscalls {
                    console.say(format!(
                        "    per message: {:.3} system calls ({:.3} io_uring_enter), {:.3} poll arms, {:.3} io-wq hand-offs, {:.1} µs of server CPU",
                        per(s.total),
                        per(s.io_uring_enter),
                        per(s.poll_arms),
                        per(s.async_work),
                        cpu_us.map_or(f64::NAN, |us| us / messages.max(1) as f64),
                    ));
                }
                let stats = &report.load.stats;
                results[which].push(RoundResult {
                    throughput: report.load.throughput_msgs_per_sec(),
                    p99_us: stats.latency_percentile_us(99.0),
                    syscalls_per_message: syscalls.map(|s| per(s.total)),
                    enters_per_message: syscalls.map(|s| per(s.io_uring_enter)),
                    poll_arms_per_message: syscalls.map(|s| per(s.poll_arms)),
                    async_work_per_message: syscalls.map(|s| per(s.async_work)),
                    cpu_us_per_message: cpu_us.map(|us| us / messages.max(1) as f64),
                    errors: report.errors(),
                    mismatches: stats.mismatches,
                    messages,
                    held: report.load.connections_held,
                    rss_per_connection_kib: report.rss_per_connection_kib(),
                });
            }
        }
        for (which, spec) in specs.iter().enumerate() {
            let mine = &results[which];
            let base = &results[0];
            let ratio = |f: &dyn Fn(&RoundResult) -> Option<f64>| -> Vec<f64> {
                mine.iter()
                    .zip(base)
                    .filter_map(|(m, b)| Some(f(m)? / f(b)?.max(1e-12)))
                    .collect()
            };
            let column = |f: &dyn Fn(&RoundResult) -> Option<f64>| -> Vec<f64> {
                mine.iter().filter_map(f).collect()
            };
            let right = mine
                .iter()
                .all(|r| r.errors == 0 && r.mismatches == 0 && r.held == connections);
            all_right &= right;
            rows.push(json!({
                "connections": connections,
                "server": spec.name,
                "throughput_msgs_per_sec": summary(&column(&|r| Some(r.throughput))),
                "latency_p99_us": summary(&column(&|r| Some(r.p99_us))),
                "syscalls_per_message": summary(&column(&|r| r.syscalls_per_message)),
                "io_uring_enter_per_message": summary(&column(&|r| r.enters_per_message)),
                "poll_arms_per_message": summary(&column(&|r| r.poll_arms_per_message)),
                "io_wq_per_message": summary(&column(&|r| r.async_work_per_message)),
                "server_cpu_us_per_message": summary(&column(&|r| r.cpu_us_per_message)),
                "cpu_ratio_vs_epoll": summary(&ratio(&|r| r.cpu_us_per_message)),
                "rss_per_connection_kib": summary(&column(&|r| Some(r.rss_per_connection_kib))),
                "throughput_ratio_vs_epoll": summary(&ratio(&|r| Some(r.throughput))),
                "p99_ratio_vs_epoll": summary(&ratio(&|r| Some(r.p99_us))),
                "syscalls_ratio_vs_epoll": summary(&ratio(&|r| r.syscalls_per_message)),
                "messages": mine.iter().map(|r| r.messages).sum::<u64>(),
                "errors": mine.iter().map(|r| r.errors).sum::<u64>(),
                "mismatches": mine.iter().map(|r| r.mismatches).sum::<u64>(),
                "every_connection_held": mine.iter().all(|r| r.held == connections),
            }));
        }
    }
    narrate_table(console, &rows);
    let mut report = Report::new("race");
    report
        .add(
            "connections",
            "connection counts",
            json!(config.connections),
        )
        .add("rounds", "rounds", config.rounds)
        .add(
            "duration_s",
            "seconds per server per round",
            config.duration.as_secs(),
        )
        .add("step", "our server's step", config.step.name())
        .add("servers", "servers", json!(names))
        .add("every_byte_right", "every byte right, no errors", all_right)
        .add(
            "results",
            "medians over the rounds",
            Value::Array(rows.clone()),
        );
    if let Some(dir) = &config.plot_dir {
        for path in crate::plots::race(dir, &rows)? {
            console.say(format!("  plot written to {}", path.display()));
        }
    }
    ch03::add_machine(&mut report);
    Ok(report)
}
// ANCHOR_END: race

fn narrate_table(console: &Console, rows: &[Value]) {
    let med = |row: &Value, key: &str| row[key]["median"].as_f64();
    console.say("\nMedians over the rounds (ratio: median of the per-round ratios to epoll):");
    console.say(
        "  conns   server       msgs/s   ratio    p99        ratio   syscalls/msg  CPU µs/msg",
    );
    for row in rows {
        let show =
            |x: Option<f64>, digits: usize| x.map_or("-".to_string(), |x| format!("{x:.digits$}"));
        console.say(format!(
            "  {:>6}  {:<10} {:>9}  {:>5}   {:>9}  {:>5}   {:>10}  {:>10}",
            group_thousands(row["connections"].as_f64().unwrap_or(0.0)),
            row["server"].as_str().unwrap_or("?"),
            group_thousands(med(row, "throughput_msgs_per_sec").unwrap_or(0.0).round()),
            show(med(row, "throughput_ratio_vs_epoll"), 2),
            human_duration_ns(med(row, "latency_p99_us").unwrap_or(0.0) * 1e3),
            show(med(row, "p99_ratio_vs_epoll"), 2),
            show(med(row, "syscalls_per_message"), 3),
            show(med(row, "server_cpu_us_per_message"), 2),
        ));
    }
}
