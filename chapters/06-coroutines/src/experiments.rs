//! The chapter's experiments as the binary runs them.

use std::io;
use std::net::SocketAddr;
use std::time::Duration;

use chapter_01::console::{Console, Report, group_thousands, human_duration_ns};
use chapter_01::machine::Machine;
use chapter_01::measure::Samples;
use chapter_03::experiments::{self as ch03, Outcome};
use chapter_03::harness::ServerSpec;
use chapter_03::load::LoadConfig;
use chapter_05::relay_client::RelayLoad;
use serde_json::{Value, json};

use crate::colouring::{self, Hog};
use crate::executor::Executor;
use crate::net::TcpListener;
use crate::sizes;

/// The three ways the relay is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Implementation {
    /// Chapter 5's nested callbacks on the event loop.
    Callbacks,
    /// A hand-written `Future` state machine on this chapter's executor.
    Future,
    /// `async fn` on this chapter's executor.
    Async,
}

impl Implementation {
    /// All three, in the chapter's order.
    pub const ALL: [Implementation; 3] = [
        Implementation::Callbacks,
        Implementation::Future,
        Implementation::Async,
    ];

    /// The name used on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            Implementation::Callbacks => "callbacks",
            Implementation::Future => "future",
            Implementation::Async => "async",
        }
    }
}

/// This binary's async echo server, as the harness starts it.
pub fn echo_spec() -> io::Result<ServerSpec> {
    ServerSpec::this_binary("async", &["serve", "--addr", "127.0.0.1:0"])
}

/// Runs one relay implementation (with its directory) on `addr` until the
/// process is killed, printing `listening on ADDR`.
pub fn run_relay(addr: SocketAddr, implementation: Implementation) -> io::Result<()> {
    if implementation == Implementation::Callbacks {
        return chapter_05::relay::run(addr, None);
    }
    chapter_03::limits::raise_fd_limit()?;
    let listener = chapter_03::server::listener(addr)
        .map_err(|err| io::Error::new(err.kind(), format!("cannot bind {addr}: {err}")))?;
    let executor = Executor::new()?;
    // The directory is Chapter 5's, on the same event loop the executor
    // sleeps in: callbacks and futures share one reactor.
    let directory = executor
        .reactor(|ev| {
            let id = chapter_05::relay::serve_directory(
                ev,
                std::net::TcpListener::bind("127.0.0.1:0")?,
                None,
            )?;
            ev.local_addr(id)
        })
        .expect("Executor::new has a reactor")?;
    executor.block_on(async move {
        let listener = TcpListener::from_std(listener)?;
        chapter_03::server::announce(listener.local_addr()?)?;
        match implementation {
            Implementation::Future => crate::relay_future::serve(listener, directory).await,
            _ => crate::relay_async::serve(listener, directory).await,
        }
    })
}

/// `compare`: the three relays under the same verifying load, alternating
/// A B C for `rounds` rounds; medians per implementation.
pub fn compare(console: &Console, load: RelayLoad, rounds: usize) -> Outcome {
    console.say(format!(
        "The relay three ways, {} client connections, {} s each, {rounds} round{} (A B C A B C ...)",
        load.connections,
        load.duration.as_secs_f64(),
        if rounds == 1 { "" } else { "s" }
    ));
    let mut runs: Vec<Vec<Report>> = vec![Vec::new(); 3];
    for _ in 0..rounds {
        for (i, implementation) in Implementation::ALL.into_iter().enumerate() {
            let spec = ServerSpec::this_binary(
                implementation.name(),
                &[
                    "serve-relay",
                    "--impl",
                    implementation.name(),
                    "--addr",
                    "127.0.0.1:0",
                ],
            )?;
            runs[i].push(chapter_05::experiments::relay_run(console, &spec, load)?);
        }
    }
    let number = |r: &Report, key: &str| r.get(key).and_then(Value::as_f64).unwrap_or(0.0);
    let median = |reports: &[Report], key: &str| {
        Samples::from_ns(reports.iter().map(|r| number(r, key)).collect()).median_ns()
    };
    let total =
        |reports: &[Report], key: &str| reports.iter().map(|r| number(r, key) as u64).sum::<u64>();
    let mut results = Vec::new();
    console.say("  implementation   requests/s (median)   p50        p99");
    for (i, implementation) in Implementation::ALL.into_iter().enumerate() {
        let reports = &runs[i];
        let throughput = median(reports, "throughput_per_sec");
        console.say(format!(
            "  {:<16} {:>19}   {:<10} {}",
            implementation.name(),
            group_thousands(throughput.round()),
            human_duration_ns(median(reports, "latency_p50_us") * 1e3),
            human_duration_ns(median(reports, "latency_p99_us") * 1e3),
        ));
        results.push(json!({
            "implementation": implementation.name(),
            "throughput_per_sec": throughput,
            "latency_p50_us": median(reports, "latency_p50_us"),
            "latency_p99_us": median(reports, "latency_p99_us"),
            "requests": total(reports, "requests"),
            "correct": total(reports, "correct"),
            "wrong": total(reports, "wrong"),
            "errors": total(reports, "errors"),
            "rounds": reports.len(),
        }));
    }
    let mut report = Report::new("compare");
    report.add("results", "implementations", Value::Array(results));
    ch03::add_machine(&mut report);
    Ok(report)
}

/// `sizes`: every future's weight.
pub fn sizes(console: &Console) -> Outcome {
    let s = sizes::measure()?;
    console.say("What each future weighs (bytes, known at compile time):");
    for (name, bytes) in [
        ("relay session, hand-written future", s.future_relay),
        ("relay session, async fn", s.async_relay),
        ("echo handler, async fn (4 KiB buffer inside)", s.async_echo),
        ("sleep", s.sleep),
        ("connect", s.connect),
        ("a Chapter 2 fiber's stack", s.green_thread_stack),
    ] {
        console.say(format!("  {name:<46} {:>8}", group_thousands(bytes as f64)));
    }
    let mut report = Report::new("sizes");
    report
        .add(
            "future_relay_bytes",
            "relay, hand-written future",
            s.future_relay,
        )
        .add("async_relay_bytes", "relay, async fn", s.async_relay)
        .add("async_echo_bytes", "echo, async fn", s.async_echo)
        .add("sleep_bytes", "sleep", s.sleep)
        .add("connect_bytes", "connect", s.connect)
        .add(
            "green_thread_stack_bytes",
            "fiber stack (Chapter 2)",
            s.green_thread_stack,
        );
    ch03::add_machine(&mut report);
    Ok(report)
}

/// `starvation`: a ticker beside no hog, a greedy hog, a polite hog.
pub fn starvation(
    console: &Console,
    duration: Duration,
    work: Duration,
    rest: Duration,
) -> Outcome {
    console.say(format!(
        "A task sleeping 1 ms at a time beside a task computing {} ms at a stretch (then resting {} ms)",
        work.as_millis(),
        rest.as_millis()
    ));
    let mut report = Report::new("starvation");
    report.add(
        "work_ms",
        "computation per stretch",
        work.as_secs_f64() * 1e3,
    );
    for (style, key, label) in [
        (Hog::Absent, "alone", "alone"),
        (Hog::Greedy, "greedy", "beside it, no await while computing"),
        (Hog::Polite, "yielding", "beside it, yield_now every ms"),
    ] {
        let l = colouring::measure(style, duration, work, rest)?;
        console.say(format!(
            "  {label:<38} lateness p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms",
            l.p50_ms, l.p99_ms, l.max_ms
        ));
        report
            .add(
                &format!("ticker_lateness_p50_ms_{key}"),
                &format!("p50, {label}"),
                l.p50_ms,
            )
            .add(
                &format!("ticker_lateness_p99_ms_{key}"),
                &format!("p99, {label}"),
                l.p99_ms,
            )
            .add(
                &format!("ticker_lateness_max_ms_{key}"),
                &format!("max, {label}"),
                l.max_ms,
            );
    }
    ch03::add_machine(&mut report);
    Ok(report)
}

/// The guided demo.
pub fn demo(console: &Console, quick: bool) -> Outcome {
    let machine = Machine::current();
    console.say("Chapter 6: coroutines, futures, wakers and a first executor");
    console.say(format!("Measured on: {}", machine.describe()));
    console.say("");
    console.say("1/4 What a future weighs");
    let mut weights = sizes(console)?;
    console.say("");
    console.say("2/4 The relay three ways: callbacks, a future by hand, async/await");
    let mut relays = compare(
        console,
        RelayLoad {
            connections: if quick { 20 } else { 100 },
            duration: Duration::from_secs(if quick { 1 } else { 3 }),
            timeout: Duration::from_secs(10),
        },
        1,
    )?;
    console.say("");
    let connections = if quick { 500 } else { 10_000 };
    console.say(format!(
        "3/4 {} connections, a task each",
        chapter_01::console::group_thousands(connections as f64)
    ));
    let mut config = LoadConfig::new(SocketAddr::from(([127, 0, 0, 1], 0)), connections);
    config.duration = Duration::from_secs(if quick { 1 } else { 3 });
    let mut c10k = ch03::c10k(console, &echo_spec()?, &config)?;
    console.say("");
    console.say("4/4 One task that never awaits");
    let mut starved = starvation(
        console,
        Duration::from_millis(if quick { 300 } else { 1_500 }),
        Duration::from_millis(20),
        Duration::from_millis(10),
    )?;
    console.say("");
    console.say("Summary");
    for part in [&mut weights, &mut relays, &mut c10k, &mut starved] {
        part.remove_prefixed("machine_");
    }
    let mut report = Report::new("demo");
    report.add("quick", "quick mode", quick);
    report
        .extend(weights)
        .extend(relays)
        .extend(c10k)
        .extend(starved);
    ch03::add_machine(&mut report);
    Ok(report)
}
