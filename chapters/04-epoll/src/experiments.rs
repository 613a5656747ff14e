//! The chapter's experiments as the binary runs them.
//!
//! `c10k`, `compare` and `sweep` hand this chapter's server (and Chapter 3's
//! threads server, started from this same binary) to Chapter 3's harness,
//! so the keys match Chapter 3's line by line. `et-bug` and
//! `poll-vs-epoll` measure what the chapter explains.

use std::path::Path;

use chapter_01::console::{Console, Report, group_thousands, human_duration_ns};
use chapter_01::machine::Machine;
use chapter_03::experiments::{self as ch03, Outcome};
use chapter_03::harness::ServerSpec;
use chapter_03::load::LoadConfig;
use chapter_03::plots::{self, Series, YScale};
use serde_json::{Value, json};

use crate::connection::Mode;
use crate::et_bug::{self, Variant};
use crate::poll_vs_epoll;

/// The idle-descriptor counts of the full `poll-vs-epoll` run.
pub const FULL_COUNTS: [usize; 7] = [10, 30, 100, 300, 1_000, 3_000, 10_000];

/// The counts of a quick run.
pub const QUICK_COUNTS: [usize; 4] = [10, 100, 1_000, 3_000];

/// The mode's name on the command line.
pub fn mode_name(mode: Mode) -> &'static str {
    match mode {
        Mode::Level => "lt",
        Mode::Edge => "et",
    }
}

/// This binary's epoll server, as the harness starts it.
pub fn epoll_spec(mode: Mode) -> std::io::Result<ServerSpec> {
    ServerSpec::this_binary(
        "epoll",
        &["serve", "--addr", "127.0.0.1:0", "--mode", mode_name(mode)],
    )
}

/// Chapter 3's thread-per-connection server, started from this binary.
pub fn threads_spec() -> std::io::Result<ServerSpec> {
    ServerSpec::this_binary(
        "threads",
        &["serve", "--server", "threads", "--addr", "127.0.0.1:0"],
    )
}

/// `et-bug`: the three ways to handle a 64 KiB burst.
pub fn et_bug(console: &Console, message_bytes: usize) -> Outcome {
    console.say(format!(
        "One client sends {} bytes in one write and waits for the echo; the server reads {} bytes at a time",
        group_thousands(message_bytes as f64),
        et_bug::READ_BYTES
    ));
    let outcomes = et_bug::run(message_bytes)?;
    let mut report = Report::new("et-bug");
    for outcome in outcomes {
        let (key, label) = match outcome.variant {
            Variant::EdgeReadOnce => ("et_read_once", "edge-triggered, one read per event"),
            Variant::EdgeDrain => ("et_drain", "edge-triggered, read until WouldBlock"),
            Variant::LevelReadOnce => ("lt_read_once", "level-triggered, one read per event"),
        };
        console.say(format!(
            "  {label:<38} {:>7} of {} bytes echoed, {} wake-up{}, {}{}",
            group_thousands(outcome.echoed as f64),
            group_thousands(outcome.sent as f64),
            outcome.wakeups,
            if outcome.wakeups == 1 { "" } else { "s" },
            human_duration_ns(outcome.elapsed.as_nanos() as f64),
            if outcome.stalled {
                format!(
                    ", then STALLED: no event for {} ms with the rest unread",
                    et_bug::STALL.as_millis()
                )
            } else {
                String::new()
            }
        ));
        report
            .add(&format!("{key}_bytes_echoed"), label, outcome.echoed)
            .add(&format!("{key}_stalled"), "  stalled", outcome.stalled)
            .add(&format!("{key}_wakeups"), "  wake-ups", outcome.wakeups)
            .add(
                &format!("{key}_elapsed_us"),
                "  time",
                outcome.elapsed.as_secs_f64() * 1e6,
            );
    }
    report.add("bytes_sent", "bytes sent", message_bytes);
    ch03::add_machine(&mut report);
    Ok(report)
}

/// `poll-vs-epoll`: one wait's cost against the number of idle descriptors.
pub fn poll_vs_epoll(
    console: &Console,
    counts: &[usize],
    batches: usize,
    plot_dir: Option<&Path>,
) -> Outcome {
    console.say(format!(
        "One ready descriptor among N idle ones: one wait per round, median of {batches} batches"
    ));
    let bar = console.progress(counts.len() as u64, "poll-vs-epoll");
    let costs = poll_vs_epoll::measure(counts, batches, || bar.inc(1))?;
    bar.finish_and_clear();
    console.say("  idle descriptors       poll(2)    epoll_wait   poll / epoll");
    for c in &costs {
        console.say(format!(
            "  {:>16}   {:>10}   {:>10}   {:>10.1}x",
            group_thousands(c.idle as f64),
            human_duration_ns(c.poll_ns),
            human_duration_ns(c.epoll_ns),
            c.poll_ns / c.epoll_ns
        ));
    }
    let mut report = Report::new("poll-vs-epoll");
    report.add(
        "series",
        "rounds",
        Value::Array(
            costs
                .iter()
                .map(|c| json!({"idle_fds": c.idle, "poll_ns": c.poll_ns, "epoll_ns": c.epoll_ns}))
                .collect(),
        ),
    );
    if let (Some(first), Some(last)) = (costs.first(), costs.last()) {
        report
            .add(
                "poll_growth_ratio",
                "poll: cost at the most / at the fewest",
                last.poll_ns / first.poll_ns,
            )
            .add(
                "epoll_growth_ratio",
                "epoll: cost at the most / at the fewest",
                last.epoll_ns / first.epoll_ns,
            );
    }
    if let Some(dir) = plot_dir {
        let machine = Machine::current();
        let path = dir.join("poll-vs-epoll.svg");
        let series = [
            Series {
                name: "poll(2)".into(),
                points: costs
                    .iter()
                    .map(|c| (c.idle as f64, c.poll_ns / 1e3))
                    .collect(),
            },
            Series {
                name: "epoll_wait".into(),
                points: costs
                    .iter()
                    .map(|c| (c.idle as f64, c.epoll_ns / 1e3))
                    .collect(),
            },
        ];
        plots::against_count(
            &path,
            &format!(
                "One wait with one ready descriptor among N idle ({}, {} CPUs)",
                machine.cpu, machine.logical_cpus
            ),
            "idle descriptors (log scale)",
            "µs per round (log scale)",
            YScale::Log,
            &series,
        )?;
        console.say(format!("  plot written to {}", path.display()));
    }
    ch03::add_machine(&mut report);
    Ok(report)
}

/// `compare`: the threads server and the epoll server, one after the other.
pub fn compare(console: &Console, mode: Mode, config: &LoadConfig) -> Outcome {
    console.say(format!(
        "The same load on both servers: {} connections, {}-byte messages, {} s each",
        group_thousands(config.connections as f64),
        config.message_bytes,
        config.duration.as_secs()
    ));
    ch03::compare(console, &[threads_spec()?, epoll_spec(mode)?], config)
}

/// The guided demo.
pub fn demo(console: &Console, quick: bool) -> Outcome {
    let machine = Machine::current();
    console.say("Chapter 4: non-blocking I/O and a hand-written epoll loop");
    console.say(format!("Measured on: {}", machine.describe()));
    console.say("");
    console.say("1/3 Level or edge: the bug that stalls a connection forever");
    let mut bug = et_bug(console, 64 * 1024)?;
    console.say("");
    console.say("2/3 Why not poll(2)?");
    let counts: &[usize] = if quick { &QUICK_COUNTS } else { &FULL_COUNTS };
    let mut waits = poll_vs_epoll(console, counts, if quick { 5 } else { 15 }, None)?;
    console.say("");
    console.say("3/3 Ten thousand connections: threads against one thread");
    let mut config = LoadConfig::new(std::net::SocketAddr::from(([127, 0, 0, 1], 0)), 10_000);
    config.connections = if quick { 500 } else { 10_000 };
    config.duration = std::time::Duration::from_secs(if quick { 1 } else { 3 });
    let mut compared = compare(console, Mode::Edge, &config)?;
    console.say("");
    console.say("Summary");
    for part in [&mut bug, &mut waits, &mut compared] {
        part.remove_prefixed("machine_");
    }
    let mut report = Report::new("demo");
    report.add("quick", "quick mode", quick);
    report.extend(bug).extend(waits).extend(compared);
    ch03::add_machine(&mut report);
    Ok(report)
}
