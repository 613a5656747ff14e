//! The chapter's experiments as the binary runs them.

use std::net::SocketAddr;
use std::time::Duration;

use chapter_01::console::{Console, Report, group_thousands, human_duration_ns};
use chapter_01::machine::Machine;
use chapter_03::experiments::{self as ch03, Outcome};
use chapter_03::harness::{ServerProcess, ServerSpec};
use chapter_03::load::LoadConfig;
use serde_json::{Value, json};

use crate::relay_client::{self, RelayLoad};
use crate::starvation;
use crate::timer_bench;

/// Timer counts of the full `timers` run.
pub const FULL_TIMER_COUNTS: [usize; 4] = [1_000, 10_000, 100_000, 1_000_000];

/// Timer counts of a quick run.
pub const QUICK_TIMER_COUNTS: [usize; 3] = [1_000, 10_000, 100_000];

/// This binary's echo server, as the harness starts it.
pub fn echo_spec() -> std::io::Result<ServerSpec> {
    ServerSpec::this_binary("event-loop", &["serve", "--addr", "127.0.0.1:0"])
}

/// `starvation`: ticker lateness without and with a CPU hog.
pub fn starvation(
    console: &Console,
    duration: Duration,
    hog: Duration,
    every: Duration,
) -> Outcome {
    console.say(format!(
        "A timer that fires every {} ms, for {} s: alone, then beside a callback that computes for {} ms every {} ms",
        starvation::TICK.as_millis(),
        duration.as_secs_f64(),
        hog.as_millis(),
        every.as_millis()
    ));
    let idle = starvation::measure(duration, None)?;
    let hogged = starvation::measure(duration, Some((every, hog)))?;
    for (name, l) in [("alone", idle), ("beside the hog", hogged)] {
        console.say(format!(
            "  {name:<15} {} ticks; lateness p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms",
            l.ticks, l.p50_ms, l.p99_ms, l.max_ms
        ));
    }
    let mut report = Report::new("starvation");
    report
        .add("hog_ms", "hog length", hog.as_secs_f64() * 1e3)
        .add("hog_every_ms", "hog period", every.as_secs_f64() * 1e3)
        .add(
            "timer_lateness_p50_ms_idle",
            "lateness p50, alone",
            idle.p50_ms,
        )
        .add(
            "timer_lateness_p99_ms_idle",
            "lateness p99, alone",
            idle.p99_ms,
        )
        .add(
            "timer_lateness_max_ms_idle",
            "lateness max, alone",
            idle.max_ms,
        )
        .add(
            "timer_lateness_p50_ms_hog",
            "lateness p50, beside the hog",
            hogged.p50_ms,
        )
        .add(
            "timer_lateness_p99_ms_hog",
            "lateness p99, beside the hog",
            hogged.p99_ms,
        )
        .add(
            "timer_lateness_max_ms_hog",
            "lateness max, beside the hog",
            hogged.max_ms,
        )
        .add("ticks_idle", "ticks, alone", idle.ticks)
        .add("ticks_hog", "ticks, beside the hog", hogged.ticks);
    ch03::add_machine(&mut report);
    Ok(report)
}

/// `timers`: the heap's cost per operation at growing sizes.
pub fn timers(console: &Console, counts: &[usize], batches: usize) -> Outcome {
    console
        .say("Cancel one pending timer and insert another, with N pending (median per operation)");
    let bar = console.progress(counts.len() as u64, "timers");
    let mut rows = Vec::new();
    for &n in counts {
        let cost = timer_bench::heap_cost(n, 10_000, batches);
        bar.inc(1);
        bar.suspend(|| {
            console.say(format!(
                "  {:>10} timers   {:>9} per operation",
                group_thousands(n as f64),
                human_duration_ns(cost.ns_per_op)
            ))
        });
        rows.push(json!({"timers": n, "heap_ns_per_op": cost.ns_per_op}));
    }
    bar.finish_and_clear();
    let mut report = Report::new("timers");
    report.add("series", "sizes", Value::Array(rows));
    ch03::add_machine(&mut report);
    Ok(report)
}

/// `relay`: the callback relay (and its directory) as a child process,
/// under the verifying relay client.
pub fn relay(console: &Console, load: RelayLoad) -> Outcome {
    let spec = ServerSpec::this_binary("callbacks", &["serve-relay", "--addr", "127.0.0.1:0"])?;
    let report = relay_run(console, &spec, load)?;
    let mut report = report;
    ch03::add_machine(&mut report);
    Ok(report)
}

/// Runs one relay implementation (started from `spec`) under the client
/// and reports; Chapter 6 calls this for its own implementations.
pub fn relay_run(console: &Console, spec: &ServerSpec, load: RelayLoad) -> Outcome {
    let server = ServerProcess::start(spec)?;
    console.say(format!(
        "The {} relay: {} connections asking for {} s, every reply checked",
        spec.name,
        load.connections,
        load.duration.as_secs_f64()
    ));
    let result = relay_client::run(server.addr(), load);
    let mut server = server;
    let exit = server.exited();
    server.stop();
    console.say(format!(
        "  {} requests ({}/s), {} correct, {} wrong, {} failed connections; latency p50 {} p99 {}",
        group_thousands(result.requests as f64),
        group_thousands(result.throughput_per_sec().round()),
        group_thousands(result.correct as f64),
        result.wrong,
        result.errors,
        human_duration_ns(result.latency_percentile_us(50.0) * 1e3),
        human_duration_ns(result.latency_percentile_us(99.0) * 1e3),
    ));
    if let Some(problem) = &result.first_problem {
        console.say(format!("  first problem: {problem}"));
    }
    let mut report = Report::new("relay");
    report
        .add("implementation", "implementation", spec.name.clone())
        .add("connections", "connections", load.connections)
        .add("requests", "requests answered", result.requests)
        .add("correct", "correct replies", result.correct)
        .add("wrong", "wrong replies", result.wrong)
        .add(
            "errors",
            "failed connections",
            result.errors + u64::from(exit.is_some()),
        )
        .add(
            "throughput_per_sec",
            "requests per second",
            result.throughput_per_sec(),
        )
        .add(
            "latency_p50_us",
            "latency p50",
            result.latency_percentile_us(50.0),
        )
        .add(
            "latency_p99_us",
            "latency p99",
            result.latency_percentile_us(99.0),
        );
    Ok(report)
}

/// The guided demo.
pub fn demo(console: &Console, quick: bool) -> Outcome {
    let machine = Machine::current();
    console.say("Chapter 5: the event loop");
    console.say(format!("Measured on: {}", machine.describe()));
    console.say("");
    let connections = if quick { 500 } else { 10_000 };
    console.say(format!(
        "1/4 {} connections on the event loop",
        chapter_01::console::group_thousands(connections as f64)
    ));
    let mut config = LoadConfig::new(SocketAddr::from(([127, 0, 0, 1], 0)), connections);
    config.duration = Duration::from_secs(if quick { 1 } else { 3 });
    let mut c10k = ch03::c10k(console, &echo_spec()?, &config)?;
    console.say("");
    console.say("2/4 The relay, written as callbacks");
    let mut relay = relay(
        console,
        RelayLoad {
            connections: if quick { 20 } else { 100 },
            duration: Duration::from_secs(if quick { 1 } else { 3 }),
            timeout: Duration::from_secs(10),
        },
    )?;
    console.say("");
    console.say("3/4 One slow callback stops the world");
    let mut starved = starvation(
        console,
        Duration::from_millis(if quick { 500 } else { 2_000 }),
        Duration::from_millis(20),
        Duration::from_millis(10),
    )?;
    console.say("");
    console.say("4/4 What timers cost in a heap");
    let counts: &[usize] = if quick {
        &QUICK_TIMER_COUNTS
    } else {
        &FULL_TIMER_COUNTS
    };
    let mut heap = timers(console, counts, if quick { 3 } else { 9 })?;
    console.say("");
    console.say("Summary");
    let mut report = Report::new("demo");
    report.add("quick", "quick mode", quick);
    for part in [&mut c10k, &mut relay, &mut starved, &mut heap] {
        part.remove_prefixed("machine_");
    }
    report
        .extend(c10k)
        .extend(relay)
        .extend(starved)
        .extend(heap);
    ch03::add_machine(&mut report);
    Ok(report)
}
