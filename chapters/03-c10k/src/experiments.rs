//! The chapter's experiments as the binaries run them, shared with the
//! later chapters.
//!
//! [`LoadArgs`] are the load options every chapter's `c10k`, `load`,
//! `compare` and `sweep` subcommands take (clap `flatten`s them), and
//! [`c10k`] / [`compare`] narrate a harness run and return the report whose
//! keys are the same in every chapter.

use std::error::Error;
use std::net::SocketAddr;
use std::path::Path;
use std::time::Duration;

use chapter_01::console::{Console, Report, group_thousands, human_duration_ns, human_kib};
use chapter_01::machine::Machine;
use serde_json::Value;

use crate::harness::{self, C10kReport, ServerSpec};
use crate::limits::SystemLimits;
use crate::load::{self, LoadConfig, NoHooks};
use crate::sweep;

/// What an experiment returns.
pub type Outcome = Result<Report, Box<dyn Error>>;

/// The load options shared by every chapter's load-driving subcommands.
#[derive(Debug, Clone, clap::Args)]
pub struct LoadArgs {
    /// Connections to open and hold for the whole run.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub connections: Option<u32>,
    /// Seconds of load after every connection is open.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=3600))]
    pub duration: Option<u32>,
    /// Bytes per message.
    #[arg(long, default_value_t = 64, value_parser = clap::value_parser!(u32).range(1..=1_048_576))]
    pub message_bytes: u32,
    /// Total messages per second (open loop); without it, each connection
    /// sends its next message when the echo of the last has come back.
    #[arg(long, value_parser = parse_rate)]
    pub rate: Option<f64>,
    /// Load-generator threads [default: one per CPU].
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=256))]
    pub workers: Option<u32>,
}

fn parse_rate(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(rate) if rate.is_finite() && rate > 0.0 && rate <= 1e9 => Ok(rate),
        _ => Err(format!(
            "{text} is not a rate between 0 and 1e9 messages per second"
        )),
    }
}

impl LoadArgs {
    /// The load configuration, with `connections` and `duration` defaults
    /// for when the reader gave none.
    pub fn config(&self, connections: usize, duration_secs: u64) -> LoadConfig {
        let mut config = LoadConfig::new(
            SocketAddr::from(([127, 0, 0, 1], 0)),
            self.connections.map_or(connections, |n| n as usize),
        );
        config.duration = Duration::from_secs(self.duration.map_or(duration_secs, u64::from));
        config.message_bytes = self.message_bytes as usize;
        config.rate = self.rate;
        if let Some(workers) = self.workers {
            config.workers = workers as usize;
        }
        config
    }
}

/// Adds the machine's description to a report.
pub fn add_machine(report: &mut Report) {
    chapter_01::experiments::add_machine(report, &Machine::current());
}

/// `limits`: what bounds a thread-per-connection server here.
pub fn limits(console: &Console) -> Outcome {
    let limits = SystemLimits::current();
    let show = |v: Option<u64>| v.map_or("unlimited".into(), |v| group_thousands(v as f64));
    console.say("The limits ten thousand connections meet before memory runs out:");
    console.say(format!(
        "  open files per process      {} (hard {})",
        show(limits.nofile_soft),
        show(limits.nofile_hard)
    ));
    console.say(format!(
        "  threads per user (ulimit -u) {}",
        show(limits.nproc_soft)
    ));
    console.say(format!(
        "  kernel.threads-max          {}",
        show(limits.threads_max)
    ));
    console.say(format!(
        "  kernel.pid_max              {}",
        show(limits.pid_max)
    ));
    console.say(format!(
        "  vm.max_map_count            {}",
        show(limits.max_map_count)
    ));
    console.say(format!(
        "  ephemeral ports             {}",
        show(limits.ephemeral_ports)
    ));
    console.say(format!(
        "  accept backlog cap          {}",
        show(limits.somaxconn)
    ));
    if let Some((ceiling, name)) = limits.thread_ceiling() {
        console.say(format!(
            "  => at most about {} threads per process, set by {name}",
            group_thousands(ceiling as f64)
        ));
    }
    let value = |v: Option<u64>| v.map_or(Value::Null, Value::from);
    let mut report = Report::new("limits");
    report
        .add(
            "nofile_soft",
            "open files (soft)",
            value(limits.nofile_soft),
        )
        .add(
            "nofile_hard",
            "open files (hard)",
            value(limits.nofile_hard),
        )
        .add("nproc_soft", "threads per user", value(limits.nproc_soft))
        .add(
            "threads_max",
            "kernel.threads-max",
            value(limits.threads_max),
        )
        .add("pid_max", "kernel.pid_max", value(limits.pid_max))
        .add(
            "max_map_count",
            "vm.max_map_count",
            value(limits.max_map_count),
        )
        .add(
            "ephemeral_ports",
            "ephemeral ports",
            value(limits.ephemeral_ports),
        )
        .add("somaxconn", "accept backlog cap", value(limits.somaxconn))
        .add(
            "thread_ceiling",
            "thread ceiling",
            value(limits.thread_ceiling().map(|c| c.0)),
        );
    Ok(report)
}

/// Narrates one harness result.
pub fn narrate(console: &Console, r: &C10kReport) {
    let stats = &r.load.stats;
    let (vol, invol) = r.load_switches();
    console.say(format!(
        "  {}: {} of {} connections held; {} messages, {} bytes verified, {} wrong, {} errors",
        r.server,
        group_thousands(r.load.connections_held as f64),
        group_thousands(r.load.connections_requested as f64),
        group_thousands(r.load.load_messages as f64),
        group_thousands(stats.bytes_verified as f64),
        stats.mismatches,
        r.errors()
    ));
    console.say(format!(
        "    {} msgs/s; latency p50 {} p99 {} p99.9 {} max {}{}",
        group_thousands(r.load.throughput_msgs_per_sec().round()),
        human_duration_ns(stats.latency_percentile_us(50.0) * 1e3),
        human_duration_ns(stats.latency_percentile_us(99.0) * 1e3),
        human_duration_ns(stats.latency_percentile_us(99.9) * 1e3),
        human_duration_ns(stats.latency_max_us() * 1e3),
        if r.load.open_loop {
            format!(
                " (generator send lag p50 {}, p99 {})",
                human_duration_ns(stats.send_lag_percentile_us(50.0) * 1e3),
                human_duration_ns(stats.send_lag_percentile_us(99.0) * 1e3)
            )
        } else {
            String::new()
        },
    ));
    let full = &r.samples.at_full_count;
    console.say(format!(
        "    server: {}, {} resident ({} per connection), {} virtual; {:.2} switches per message ({} voluntary, {} involuntary)",
        chapter_01::console::count(full.threads, "thread"),
        human_kib(full.vm_rss_kib as f64),
        human_kib(r.rss_per_connection_kib()),
        human_kib(full.vm_size_kib as f64),
        r.switches_per_message(),
        group_thousands(vol as f64),
        group_thousands(invol as f64),
    ));
    if let Some(first) = stats.errors.first() {
        console.say(format!("    first error: {first}"));
    }
    if let Some(exit) = &r.server_exit {
        console.say(format!("    the server died during the run: {exit}"));
    }
}

// ANCHOR: c10k
/// `c10k`: the harness against one server.
pub fn c10k(console: &Console, spec: &ServerSpec, config: &LoadConfig) -> Outcome {
    console.say(format!(
        "C10K: the {} server, {} connections, {}-byte messages, {} s of {}",
        spec.name,
        group_thousands(config.connections as f64),
        config.message_bytes,
        config.duration.as_secs(),
        match config.rate {
            Some(rate) => format!("{} msgs/s", group_thousands(rate)),
            None => "closed-loop echo".into(),
        }
    ));
    let bar = console.progress(config.connections as u64, "c10k");
    let result = harness::run_c10k(spec, config, &bar);
    bar.finish_and_clear();
    let result = result?;
    narrate(console, &result);
    let mut report = result.to_report("c10k");
    add_machine(&mut report);
    Ok(report)
}
// ANCHOR_END: c10k

/// `compare`: several servers through the same harness, one after the
/// other, in one run: `{"experiment": "compare", "results": [...]}`.
pub fn compare(console: &Console, specs: &[ServerSpec], config: &LoadConfig) -> Outcome {
    let mut results = Vec::new();
    for spec in specs {
        let bar = console.progress(config.connections as u64, &spec.name);
        let result = harness::run_c10k(spec, config, &bar);
        bar.finish_and_clear();
        let result = result?;
        narrate(console, &result);
        results.push(result);
    }
    if let [first, second, ..] = results.as_slice() {
        console.say(format!(
            "  {} vs {}: {:.1}x the memory per connection, {:.1}x the switches per message",
            first.server,
            second.server,
            first.rss_per_connection_kib() / second.rss_per_connection_kib().max(1e-9),
            first.switches_per_message() / second.switches_per_message().max(1e-9),
        ));
    }
    let mut report = Report::new("compare");
    report.add(
        "results",
        "servers compared",
        Value::Array(
            results
                .iter()
                .map(|r| {
                    let mut json = r.to_report("compare").to_json();
                    if let Some(map) = json.as_object_mut() {
                        map.shift_remove("experiment");
                    }
                    json
                })
                .collect(),
        ),
    );
    add_machine(&mut report);
    Ok(report)
}

/// `load`: the generator alone, against a server that is already running.
pub fn load(console: &Console, config: &LoadConfig) -> Outcome {
    console.say(format!(
        "Load on {}: {} connections, {}-byte messages, {} s",
        config.target,
        group_thousands(config.connections as f64),
        config.message_bytes,
        config.duration.as_secs()
    ));
    let bar = console.progress(config.connections as u64, "load");
    let result = load::run(config, &mut NoHooks, &bar);
    bar.finish_and_clear();
    let result = result?;
    let stats = &result.stats;
    console.say(format!(
        "  {} held; {} msgs/s; p99 {}; {} wrong bytes; {} errors",
        result.connections_held,
        group_thousands(result.throughput_msgs_per_sec().round()),
        human_duration_ns(stats.latency_percentile_us(99.0) * 1e3),
        stats.mismatches,
        stats.errors.total()
    ));
    if let Some(first) = stats.errors.first() {
        console.say(format!("  first error: {first}"));
    }
    let mut report = Report::new("load");
    report
        .add(
            "connections_requested",
            "connections requested",
            result.connections_requested,
        )
        .add(
            "connections_held",
            "connections held",
            result.connections_held,
        )
        .add(
            "messages",
            "messages echoed (load phase)",
            result.load_messages,
        )
        .add(
            "bytes_verified",
            "echoed bytes verified",
            stats.bytes_verified,
        )
        .add("mismatches", "echoed bytes wrong", stats.mismatches)
        .add("errors", "failed connections", stats.errors.total())
        .add(
            "throughput_msgs_per_sec",
            "throughput",
            result.throughput_msgs_per_sec(),
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
            "send_lag_p99_us",
            "generator send lag p99",
            stats.send_lag_percentile_us(99.0),
        );
    add_machine(&mut report);
    Ok(report)
}

/// `sweep`: the series, with plots when `plot_dir` is given.
pub fn sweep(
    console: &Console,
    spec: &ServerSpec,
    points: &[usize],
    config: &LoadConfig,
    plot_dir: Option<&Path>,
) -> Outcome {
    sweep_servers(
        console,
        std::slice::from_ref(spec),
        points,
        config,
        plot_dir,
    )
}

/// `sweep` over several servers, alternating at each size; the plots draw
/// one line per server.
pub fn sweep_servers(
    console: &Console,
    specs: &[ServerSpec],
    points: &[usize],
    config: &LoadConfig,
    plot_dir: Option<&Path>,
) -> Outcome {
    console.say(format!(
        "The {} server{} at {} connections, {} s each{}",
        specs
            .iter()
            .map(|s| s.name.as_str())
            .collect::<Vec<_>>()
            .join(" and "),
        if specs.len() > 1 { "s" } else { "" },
        points
            .iter()
            .map(|&n| group_thousands(n as f64))
            .collect::<Vec<_>>()
            .join(", "),
        config.duration.as_secs(),
        match config.rate {
            Some(rate) => format!(", {} msgs/s in all", group_thousands(rate)),
            None => String::new(),
        }
    ));
    let bar = console.progress(0, "sweep");
    let results = sweep::run(specs, points, config, config.duration, &bar, |r| {
        bar.suspend(|| narrate(console, r))
    });
    bar.finish_and_clear();
    let results = results?;
    let mut report = Report::new("sweep");
    report.add(
        "series",
        "runs",
        Value::Array(
            results
                .iter()
                .map(|r| {
                    let mut json = r.to_report("sweep").to_json();
                    if let Some(map) = json.as_object_mut() {
                        map.shift_remove("experiment");
                    }
                    json
                })
                .collect(),
        ),
    );
    if let Some(dir) = plot_dir {
        let machine = Machine::current();
        let label = format!("{}, {} CPUs", machine.cpu, machine.logical_cpus);
        for path in sweep::plot(dir, &results, &label)? {
            console.say(format!("  plot written to {}", path.display()));
        }
    }
    add_machine(&mut report);
    Ok(report)
}

/// `stacks`: the thread-per-connection server at the same load with
/// Rust's default 2 MiB stacks and with small ones: virtual memory follows
/// the stack size, resident memory hardly moves.
pub fn stacks(console: &Console, config: &LoadConfig, small_stack_kib: u32) -> Outcome {
    let default =
        ServerSpec::this_binary("threads, 2 MiB stacks", &["serve", "--addr", "127.0.0.1:0"])?;
    let small_arg = small_stack_kib.to_string();
    let small = ServerSpec::this_binary(
        &format!("threads, {small_stack_kib} KiB stacks"),
        &["serve", "--addr", "127.0.0.1:0", "--stack-kib", &small_arg],
    )?;
    console.say(format!(
        "Virtual against resident memory at {} connections: default stacks, then {small_stack_kib} KiB stacks",
        group_thousands(config.connections as f64)
    ));
    let mut report = Report::new("stacks");
    for (key, spec) in [("default", &default), ("small", &small)] {
        let bar = console.progress(config.connections as u64, key);
        let result = harness::run_c10k(spec, config, &bar);
        bar.finish_and_clear();
        let result = result?;
        narrate(console, &result);
        let full = &result.samples.at_full_count;
        let grown = |after: u64, before: u64| after.saturating_sub(before);
        let per = |kib: u64| kib as f64 / result.load.connections_held.max(1) as f64;
        report
            .add(
                &format!("{key}_stack_connections"),
                "connections held",
                result.load.connections_held,
            )
            .add(
                &format!("{key}_stack_vm_size_kib"),
                &format!("{} virtual", spec.name),
                full.vm_size_kib,
            )
            .add(
                &format!("{key}_stack_rss_kib"),
                &format!("{} resident", spec.name),
                full.vm_rss_kib,
            )
            .add(
                &format!("{key}_stack_virtual_per_connection_kib"),
                "  virtual per connection",
                per(grown(full.vm_size_kib, result.samples.before.vm_size_kib)),
            )
            .add(
                &format!("{key}_stack_rss_per_connection_kib"),
                "  resident per connection",
                per(grown(full.vm_rss_kib, result.samples.before.vm_rss_kib)),
            )
            .add(
                &format!("{key}_stack_errors"),
                "  errors",
                result.errors() + result.load.stats.mismatches,
            );
    }
    report.add("small_stack_kib", "small stack size", small_stack_kib);
    add_machine(&mut report);
    Ok(report)
}

/// The guided demo: limits, C10K on threads, and what stacks really cost.
pub fn demo(console: &Console, quick: bool) -> Outcome {
    let machine = Machine::current();
    console.say("Chapter 3: C10K with one thread per connection");
    console.say(format!("Measured on: {}", machine.describe()));
    console.say("");
    console.say("1/3 Which limits come first?");
    let limits = limits(console)?;
    let (connections, secs) = if quick { (500, 1) } else { (10_000, 3) };
    let mut config = LoadConfig::new(SocketAddr::from(([127, 0, 0, 1], 0)), connections);
    config.duration = Duration::from_secs(secs);
    console.say("");
    console.say(format!(
        "2/3 {} connections, one thread each",
        group_thousands(connections as f64)
    ));
    let spec = ServerSpec::this_binary("threads", &["serve", "--addr", "127.0.0.1:0"])?;
    let c10k = c10k(console, &spec, &config)?;
    console.say("");
    console.say("3/3 Do the stacks really take gigabytes?");
    let stacks = stacks(console, &config, 64)?;
    console.say("");
    console.say("Summary");
    let mut report = Report::new("demo");
    report.add("quick", "quick mode", quick);
    let (mut c10k, mut stacks) = (c10k, stacks);
    c10k.remove_prefixed("machine_");
    stacks.remove_prefixed("machine_");
    report.extend(limits).extend(c10k).extend(stacks);
    add_machine(&mut report);
    Ok(report)
}
