//! `coop`: what the cooperative budget buys a task's neighbours.
//!
//! Two tasks share one worker. A **reader** reads 4 KiB at a time from
//! [`rt::io::repeat`], a reader that is always ready: every read completes
//! at once, so the reader never returns `Pending` by itself, however long
//! it runs. A **ticker** sleeps until each next millisecond and records how
//! late it woke. Each read spends a unit of the task's budget, as a socket
//! read does. With the budget, the reader is made to yield every 128 reads
//! and the ticker keeps ticking. With the budget switched off
//! ([`rt::runtime::Builder::disable_coop_budget`]) the reader's first poll
//! lasts the whole run: the ticker does not tick while the reader reads,
//! and its next tick is late by nearly the whole run. A source that never
//! runs dry makes that happen on every run (a flooded socket sometimes
//! does run dry, and then the reader yields anyway).
//!
//! The ticker ticks once before the reader starts, so a sleep of the
//! ticker is always waiting when the reader's first poll begins.
//!
//! Book: Chapter 7, "The budget and the blocking pool".

use crate::experiments::{Outcome, add_lateness};
use chapter_01::console::{Console, Report};
use chapter_01::experiments::add_machine;
use chapter_01::machine::Machine;
use rt::runtime::Builder;
use std::error::Error;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// How long the caller waits for the ticker's first tick, and for each task
/// beyond the run's own length, before it gives up with an error.
const GRACE: Duration = Duration::from_secs(10);

/// Bytes per read: a socket reader's usual buffer.
const READ_SIZE: usize = 4096;

/// One run of the experiment.
#[derive(Debug, Clone)]
pub struct Config {
    /// The cooperative budget on (the runtime's default) or switched off.
    pub budget: bool,
    /// How long the reader reads at most.
    pub duration: Duration,
    /// Stop the reader as soon as the ticker has ticked this many times
    /// while it read (a test's way to keep a budgeted run short).
    pub stop_after_ticks: Option<u64>,
    /// Ask the long-poll detector to print what it finds.
    pub print_long_polls: bool,
}

/// What one run saw.
#[derive(Debug, Clone)]
pub struct Run {
    /// How late each tick of the ticker woke, in order.
    pub lateness: Vec<Duration>,
    /// Ticks that happened while the reader was reading.
    pub ticks_while_reading: u64,
    /// How long the reader read.
    pub reading: Duration,
    /// Bytes the reader read.
    pub bytes: u64,
    /// Polls of the worker that ended with the task's budget spent.
    pub forced_yields: u64,
}

/// What the reader and the ticker share.
#[derive(Default)]
struct Shared {
    ticks: AtomicU64,
    reading_done: AtomicBool,
}

/// The ticker: sleeps until each next millisecond and records how late it
/// woke, until the reader is done (or `limit` has passed). Signals its
/// first tick on `first`.
async fn ticker(
    shared: Arc<Shared>,
    first: std::sync::mpsc::Sender<()>,
    limit: Instant,
) -> Vec<Duration> {
    let mut next = Instant::now();
    let mut lateness = Vec::new();
    loop {
        next += Duration::from_millis(1);
        rt::time::sleep_until(next.into()).await;
        let now = Instant::now();
        lateness.push(now.saturating_duration_since(next));
        if shared.ticks.fetch_add(1, Ordering::SeqCst) == 0 {
            let _ = first.send(());
        }
        if now > next {
            // Late: the next tick is a millisecond from now, not a burst.
            next = now;
        }
        if shared.reading_done.load(Ordering::SeqCst) || now >= limit {
            return lateness;
        }
    }
}

// ANCHOR: reader
/// The reader: 4 KiB at a time from a source that is always ready, until
/// `duration` has passed (or the ticker has ticked `stop_after_ticks` times
/// meanwhile). Returns the bytes read, the time spent reading and the ticks
/// the ticker made in that time.
async fn reader(
    shared: Arc<Shared>,
    duration: Duration,
    stop_after_ticks: Option<u64>,
) -> (u64, Duration, u64) {
    use futures::io::AsyncReadExt;
    let mut source = rt::io::repeat(0x5a); // every read completes at once
    let mut buf = vec![0u8; READ_SIZE];
    let mut bytes = 0u64;
    let start = Instant::now();
    let ticks_before = shared.ticks.load(Ordering::SeqCst);
    let enough = stop_after_ticks.map_or(u64::MAX, |n| ticks_before + n);
    while start.elapsed() < duration && shared.ticks.load(Ordering::SeqCst) < enough {
        // Spends one unit of the budget; at zero, returns Pending.
        let n = source.read(&mut buf).await.expect("repeat never fails");
        bytes += n as u64;
    }
    let reading = start.elapsed();
    let ticks = shared.ticks.load(Ordering::SeqCst) - ticks_before;
    shared.reading_done.store(true, Ordering::SeqCst);
    (bytes, reading, ticks)
}
// ANCHOR_END: reader

/// Runs the reader beside the ticker on a runtime of one worker. Every wait
/// is bounded: an error, not a hang, if a task does not finish in time.
pub fn run(config: &Config) -> Result<Run, Box<dyn Error>> {
    let mut builder = Builder::new_multi_thread();
    builder.worker_threads(1);
    if config.print_long_polls {
        // The detector names the hog.
        builder.print_long_polls();
    }
    if !config.budget {
        builder.disable_coop_budget();
    }
    let rt = builder.build()?;
    let shared = Arc::new(Shared::default());
    let (first_tx, first_rx) = std::sync::mpsc::channel();
    let limit = Instant::now() + config.duration + GRACE;
    let ticker = rt.spawn(ticker(shared.clone(), first_tx, limit));
    first_rx
        .recv_timeout(GRACE)
        .map_err(|_| "the ticker did not tick within 10 s")?;
    let reader = rt.spawn(reader(
        shared.clone(),
        config.duration,
        config.stop_after_ticks,
    ));
    let wait = config.duration + GRACE;
    let (bytes, reading, ticks_while_reading) = rt
        .block_on(async { rt::time::timeout(wait, reader).await })
        .map_err(|_| "the reader did not finish in time")??;
    let lateness = rt
        .block_on(async { rt::time::timeout(GRACE, ticker).await })
        .map_err(|_| "the ticker did not finish in time")??;
    let forced_yields = rt.metrics().worker_budget_forced_yield_count(0);
    Ok(Run {
        lateness,
        ticks_while_reading,
        reading,
        bytes,
        forced_yields,
    })
}

/// `coop`: the run with the budget and without, `duration` each, reported.
pub fn coop(console: &Console, duration: Duration) -> Outcome {
    console.say(format!(
        "One worker: a task reads rt::io::repeat (always ready), beside a task that ticks every ms; {} s each way",
        duration.as_secs_f64()
    ));
    let mut report = Report::new("coop");
    for (key, label, budget) in [
        (
            "budget_on",
            "with the budget (128 operations per poll)",
            true,
        ),
        ("budget_off", "budget switched off", false),
    ] {
        let run = run(&Config {
            budget,
            duration,
            stop_after_ticks: None,
            print_long_polls: true,
        })?;
        add_lateness(&mut report, console, key, label, &run.lateness);
        let mib_per_s = run.bytes as f64 / (1024.0 * 1024.0) / run.reading.as_secs_f64();
        console.say(format!(
            "  {:<44} ticks while reading {:>6}   forced yields {:>8}   reader {mib_per_s:>8.0} MiB/s",
            "",
            run.ticks_while_reading,
            run.forced_yields,
        ));
        report
            .add(
                &format!("ticks_while_reading_{key}"),
                &format!("ticks while the reader read, {label}"),
                run.ticks_while_reading,
            )
            .add(
                &format!("forced_yields_{key}"),
                &format!("polls ended by the budget, {label}"),
                run.forced_yields,
            )
            .add(
                &format!("reader_mib_per_s_{key}"),
                &format!("reader throughput (MiB/s), {label}"),
                mib_per_s,
            );
    }
    add_machine(&mut report, &Machine::current());
    Ok(report)
}
