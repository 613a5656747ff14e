//! `compare -- scheduler`: Tokio's scheduler workloads on the three runtimes,
//! interleaved round by round (A B C, B C A, C A B, ...) so that a noisy
//! moment hurts all three alike and none always runs first; times are medians
//! over the rounds, and a ratio is the median of the per-round ratios, each
//! taken between samples measured moments apart, so that a slow drift of the
//! machine's speed cancels out.
//!
//! `--flavor current-thread` runs the same workloads on the current-thread
//! runtimes (ours and Tokio's), with our multi-thread runtime on one worker
//! and async-executor run by the thread in `block_on` beside them.

use super::runtimes::{
    Floor, Ours, OursCurrentThread, OursWithoutMetrics, Runtime, Smol, SmolBlockOn, Tokio,
    TokioCurrentThread,
};
use super::workloads::{self, ALL, Workload};
use chapter_01::console::{Console, human_duration_ns};
use chapter_01::machine::Machine;
use serde_json::{Value, json};
use std::time::{Duration, Instant};

/// How long the scheduler comparison runs.
pub struct Config {
    /// Worker threads in every runtime.
    pub workers: usize,
    /// Rounds (samples per runtime per workload).
    pub rounds: usize,
    /// Each sample repeats the workload until it lasts about this long.
    pub sample: Duration,
    /// Only these workloads (all if empty).
    pub only: Vec<Workload>,
}

/// Medians of one workload.
struct Row {
    workload: Workload,
    iterations: usize,
    ours_ns: f64,
    tokio_ns: f64,
    smol_ns: f64,
    floor_ns: f64,
    /// Median of the per-round ratios ours / Tokio.
    vs_tokio: f64,
    /// Median of the per-round ratios ours / async-executor.
    vs_smol: f64,
    /// The per-round ratios' quartiles (25th and 75th percentiles): how
    /// far a single round strays.
    vs_tokio_iqr: (f64, f64),
    vs_smol_iqr: (f64, f64),
    /// Medians of the per-round ratios ours / floor and Tokio / floor.
    ours_vs_floor: f64,
    tokio_vs_floor: f64,
}

/// Runs the comparison; prints progress and a table (or JSON).
pub fn run(console: &Console, config: &Config) -> Value {
    let machine = Machine::current();
    workloads::set_workers(config.workers);
    console.say(format!(
        "Tokio's scheduler workloads on {}, {} and {}, {} worker threads each",
        Ours::NAME,
        Tokio::NAME,
        Smol::NAME,
        config.workers
    ));
    console.say(format!("Measured on: {}", machine.describe()));
    console.say(format!(
        "{} rounds per workload, runtimes interleaved in turn; each sample repeats the workload for about {} ms; a ratio is the median of per-round ratios\n",
        config.rounds,
        config.sample.as_millis()
    ));

    workloads::set_current_thread(false);
    let ours = Ours::start(config.workers);
    let tokio = Tokio::start(config.workers);
    let smol = Smol::start(config.workers);
    let contestants = [
        Contestant::new(&ours),
        Contestant::new(&tokio),
        Contestant::new(&smol),
        Contestant::floor(),
    ];

    let mut rows = Vec::new();
    for workload in ALL {
        if !config.only.is_empty() && !config.only.contains(&workload) {
            continue;
        }
        let (iterations, samples) = measure(&contestants, workload, config);
        let [a, b, c, f] =
            <[Vec<f64>; 4]>::try_from(samples).expect("three runtimes and the floor");
        let vs_tokio = median_ratio(&a, &b);
        let ours_vs_floor = median_ratio(&a, &f);
        let tokio_vs_floor = median_ratio(&b, &f);
        let vs_smol = median_ratio(&a, &c);
        let vs_tokio_iqr = ratio_quartiles(&a, &b);
        let vs_smol_iqr = ratio_quartiles(&a, &c);
        let row = Row {
            workload,
            iterations,
            ours_ns: median(a),
            tokio_ns: median(b),
            smol_ns: median(c),
            floor_ns: median(f),
            vs_tokio,
            vs_smol,
            vs_tokio_iqr,
            vs_smol_iqr,
            ours_vs_floor,
            tokio_vs_floor,
        };
        console.say(format!(
            "  {:<24} ours {:>9}   tokio {:>9}   async-executor {:>9}   floor {:>9}   ours/tokio {:>5.2} ({:.2}-{:.2})   ours/async-executor {:>5.2} ({:.2}-{:.2})   ours/floor {:>5.1}   tokio/floor {:>5.1}",
            workload.name(),
            human_duration_ns(row.ours_ns),
            human_duration_ns(row.tokio_ns),
            human_duration_ns(row.smol_ns),
            human_duration_ns(row.floor_ns),
            row.vs_tokio,
            row.vs_tokio_iqr.0,
            row.vs_tokio_iqr.1,
            row.vs_smol,
            row.vs_smol_iqr.0,
            row.vs_smol_iqr.1,
            row.ours_vs_floor,
            row.tokio_vs_floor,
        ));
        rows.push(row);
    }

    let worst = rows.iter().map(|row| row.vs_tokio).fold(0.0, f64::max);
    let worst_smol = rows.iter().map(|row| row.vs_smol).fold(0.0, f64::max);
    console.say(format!(
        "\nWorst median ratio against Tokio: {worst:.2}, against async-executor: {worst_smol:.2} (lower is better; in brackets the per-round ratios' 25th to 75th percentile)"
    ));
    console.say(FLOOR_NOTE);

    json!({
        "experiment": "scheduler",
        "flavor": "multi-thread",
        "workers": config.workers,
        "rounds": config.rounds,
        "machine": machine.describe(),
        "floor": FLOOR_IS,
        "results": rows.iter().map(|row| json!({
            "workload": row.workload.name(),
            "ours_ns": row.ours_ns.round(),
            "tokio_ns": row.tokio_ns.round(),
            "async_executor_ns": row.smol_ns.round(),
            "floor_ns": row.floor_ns.round(),
            "ratio_vs_tokio": round3(row.vs_tokio),
            "ratio_vs_tokio_iqr": [round3(row.vs_tokio_iqr.0), round3(row.vs_tokio_iqr.1)],
            "ratio_vs_async_executor": round3(row.vs_smol),
            "ratio_vs_async_executor_iqr": [round3(row.vs_smol_iqr.0), round3(row.vs_smol_iqr.1)],
            "ours_over_floor": round3(row.ours_vs_floor),
            "tokio_over_floor": round3(row.tokio_vs_floor),
            "iterations_per_sample": row.iterations,
        })).collect::<Vec<_>>(),
    })
}

/// Medians of one workload on the current-thread runtimes.
struct CurrentThreadRow {
    workload: Workload,
    iterations: usize,
    ours_ns: f64,
    tokio_ns: f64,
    ours_one_worker_ns: f64,
    smol_ns: f64,
    floor_ns: f64,
    /// Median of the per-round ratios ours / Tokio (both current-thread).
    vs_tokio: f64,
    /// Median of the per-round ratios ours on one worker / ours
    /// current-thread.
    one_worker_vs_current_thread: f64,
    /// Median of the per-round ratios ours / async-executor.
    vs_smol: f64,
    /// Medians of the per-round ratios ours / floor and Tokio / floor.
    ours_vs_floor: f64,
    tokio_vs_floor: f64,
}

/// `--flavor current-thread`: the workloads on our current-thread runtime,
/// Tokio's, our multi-thread runtime with one worker (for reference: the
/// same work with a hand-off between the thread in `block_on` and a worker)
/// and async-executor run by the thread in `block_on`. `config.workers` is
/// not used. Every runtime waits for its tasks inside `block_on` (see
/// [`workloads::set_current_thread`]).
pub fn run_current_thread(console: &Console, config: &Config) -> Value {
    let machine = Machine::current();
    workloads::set_workers(1);
    workloads::set_current_thread(true);
    console.say(format!(
        "Tokio's scheduler workloads on current-thread runtimes: {}, {}; for reference {} (multi-thread, 1 worker) and {}",
        OursCurrentThread::NAME,
        TokioCurrentThread::NAME,
        Ours::NAME,
        SmolBlockOn::NAME,
    ));
    console.say(format!("Measured on: {}", machine.describe()));
    console.say(format!(
        "{} rounds per workload, runtimes interleaved in turn; each sample repeats the workload for about {} ms; a ratio is the median of per-round ratios\n",
        config.rounds,
        config.sample.as_millis()
    ));

    let ours = OursCurrentThread::start(1);
    let tokio = TokioCurrentThread::start(1);
    let one_worker = Ours::start(1);
    let smol = SmolBlockOn::start(1);
    let contestants = [
        Contestant::new(&ours),
        Contestant::new(&tokio),
        Contestant::new(&one_worker),
        Contestant::new(&smol),
        Contestant::floor(),
    ];

    let mut rows = Vec::new();
    for workload in ALL {
        if !config.only.is_empty() && !config.only.contains(&workload) {
            continue;
        }
        let (iterations, samples) = measure(&contestants, workload, config);
        let [a, b, c, d, f] =
            <[Vec<f64>; 5]>::try_from(samples).expect("four runtimes and the floor");
        let row = CurrentThreadRow {
            workload,
            iterations,
            vs_tokio: median_ratio(&a, &b),
            one_worker_vs_current_thread: median_ratio(&c, &a),
            vs_smol: median_ratio(&a, &d),
            ours_vs_floor: median_ratio(&a, &f),
            tokio_vs_floor: median_ratio(&b, &f),
            ours_ns: median(a),
            tokio_ns: median(b),
            ours_one_worker_ns: median(c),
            smol_ns: median(d),
            floor_ns: median(f),
        };
        console.say(format!(
            "  {:<24} ours {:>9}   tokio {:>9}   ours/tokio {:>5.2}   ours 1 worker {:>9} ({:.2}x)   async-executor {:>9}   ours/async-executor {:>5.2}   floor {:>9}   ours/floor {:>5.1}   tokio/floor {:>5.1}",
            workload.name(),
            human_duration_ns(row.ours_ns),
            human_duration_ns(row.tokio_ns),
            row.vs_tokio,
            human_duration_ns(row.ours_one_worker_ns),
            row.one_worker_vs_current_thread,
            human_duration_ns(row.smol_ns),
            row.vs_smol,
            human_duration_ns(row.floor_ns),
            row.ours_vs_floor,
            row.tokio_vs_floor,
        ));
        rows.push(row);
    }
    workloads::set_current_thread(false);

    let worst = rows.iter().map(|row| row.vs_tokio).fold(0.0, f64::max);
    let worst_smol = rows.iter().map(|row| row.vs_smol).fold(0.0, f64::max);
    console.say(format!(
        "\nWorst ratio against Tokio's current-thread runtime: {worst:.2}, against async-executor: {worst_smol:.2} (lower is better); (Nx): ours on one worker / ours current-thread"
    ));
    console.say(FLOOR_NOTE);

    json!({
        "experiment": "scheduler",
        "flavor": "current-thread",
        "rounds": config.rounds,
        "machine": machine.describe(),
        "runtimes": {
            "ours": OursCurrentThread::NAME,
            "tokio": TokioCurrentThread::NAME,
            "ours_multi_thread_1": "ours, multi-thread, 1 worker",
            "async_executor": SmolBlockOn::NAME,
        },
        "floor": FLOOR_IS,
        "results": rows.iter().map(|row| json!({
            "workload": row.workload.name(),
            "ours_ns": row.ours_ns.round(),
            "tokio_ns": row.tokio_ns.round(),
            "ours_multi_thread_1_ns": row.ours_one_worker_ns.round(),
            "async_executor_ns": row.smol_ns.round(),
            "ratio_vs_tokio": round3(row.vs_tokio),
            "ratio_multi_thread_1_vs_current_thread": round3(row.one_worker_vs_current_thread),
            "ratio_vs_async_executor": round3(row.vs_smol),
            "floor_ns": row.floor_ns.round(),
            "ours_over_floor": round3(row.ours_vs_floor),
            "tokio_over_floor": round3(row.tokio_vs_floor),
            "iterations_per_sample": row.iterations,
        })).collect::<Vec<_>>(),
    })
}

/// What the floor is, for the JSON.
const FLOOR_IS: &str = "one thread, each spawn one allocation and one push onto a queue of its own, every queued task polled once per pass; no atomics, locks, wakers or other threads; no background tasks";

/// What the floor is, under the table.
const FLOOR_NOTE: &str = "floor: the same futures on one thread with nothing of a scheduler but an allocation and a queue push per spawn (no atomics, locks, wake-ups or background tasks); ours/floor and tokio/floor: medians of per-round ratios";

/// One runtime of a comparison, as a way to take a sample on it.
struct Contestant<'a> {
    sample: Box<dyn Fn(Workload, usize) -> f64 + 'a>,
}

impl<'a> Contestant<'a> {
    fn new<R: Runtime>(rt: &'a R) -> Contestant<'a> {
        Contestant {
            sample: Box::new(move |workload, iterations| sample(rt, workload, iterations)),
        }
    }

    /// The floor: the workload in its current-thread form (the done signal
    /// awaited inside `block_on`, whose thread runs the tasks), and without
    /// busy1's background tasks, which would only add their stalls.
    fn floor() -> Contestant<'a> {
        Contestant {
            sample: Box::new(|workload, iterations| {
                let flavor = workloads::current_thread();
                workloads::set_current_thread(true);
                let ns = time_runs(&Floor, workload, iterations);
                workloads::set_current_thread(flavor);
                ns
            }),
        }
    }
}

/// Warms every runtime up, sizes the samples on the slowest, then takes
/// `config.rounds` samples on each, interleaved (A B C, B C A, C A B, ...).
/// Returns the iterations per sample and each runtime's samples in round
/// order.
fn measure(
    contestants: &[Contestant<'_>],
    workload: Workload,
    config: &Config,
) -> (usize, Vec<Vec<f64>>) {
    let slowest = contestants
        .iter()
        .map(|c| (c.sample)(workload, 2))
        .fold(0.0, f64::max);
    let iterations = ((config.sample.as_nanos() as f64 / slowest) as usize).clamp(1, 1000);
    let n = contestants.len();
    let mut samples = vec![Vec::with_capacity(config.rounds); n];
    for round in 0..config.rounds {
        for turn in 0..n {
            let i = (round + turn) % n;
            samples[i].push((contestants[i].sample)(workload, iterations));
        }
    }
    (iterations, samples)
}

/// The median of the per-round ratios `a[i] / b[i]`.
fn median_ratio(a: &[f64], b: &[f64]) -> f64 {
    median(a.iter().zip(b).map(|(x, y)| x / y).collect())
}

/// The 25th and 75th percentiles of the per-round ratios a / b (nearest
/// rank).
fn ratio_quartiles(a: &[f64], b: &[f64]) -> (f64, f64) {
    let mut ratios: Vec<f64> = a.iter().zip(b).map(|(x, y)| x / y).collect();
    if ratios.is_empty() {
        return (f64::NAN, f64::NAN);
    }
    ratios.sort_by(f64::total_cmp);
    let at = |q: f64| ratios[((ratios.len() - 1) as f64 * q).round() as usize];
    (at(0.25), at(0.75))
}

/// Mean time of one run of `workload`, over `iterations` runs, with its
/// background (if any) running.
fn sample<R: Runtime>(rt: &R, workload: Workload, iterations: usize) -> f64 {
    let background = workload.background(rt);
    let ns = time_runs(rt, workload, iterations);
    if let Some(background) = background {
        background.stop(rt);
    }
    ns
}

/// Mean time of one run of `workload`, over `iterations` runs.
fn time_runs<R: Runtime>(rt: &R, workload: Workload, iterations: usize) -> f64 {
    let start = Instant::now();
    for _ in 0..iterations {
        workload.run(rt);
    }
    start.elapsed().as_nanos() as f64 / iterations as f64
}

pub fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    let n = values.len();
    if n % 2 == 1 {
        values[n / 2]
    } else {
        (values[n / 2 - 1] + values[n / 2]) / 2.0
    }
}

pub fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

/// `compare -- metrics`: the same workloads on our runtime with its metrics
/// and long-poll detector on (the default) and off. Every round builds a
/// fresh pair of runtimes (so where the kernel happens to place their
/// threads is averaged over the rounds) and alternates them run by run (so
/// a slow moment of the machine falls on both); the ratio reported is the
/// median of the rounds' ratios.
pub fn metrics(console: &Console, config: &Config) -> Value {
    let machine = Machine::current();
    workloads::set_workers(config.workers);
    console.say(format!(
        "Tokio's scheduler workloads on our runtime, metrics on and off, {} workers, {} rounds, fresh runtimes each round",
        config.workers, config.rounds
    ));
    console.say(format!("Measured on: {}\n", machine.describe()));
    let mut results = Vec::new();
    let mut worst: f64 = 0.0;
    let mut shown_over = Vec::new();
    for workload in ALL {
        if !config.only.is_empty() && !config.only.contains(&workload) {
            continue;
        }
        let (mut a, mut b, mut ratios) = (Vec::new(), Vec::new(), Vec::new());
        let mut iterations = 0;
        // ANCHOR: metrics_round
        for round in 0..config.rounds {
            // Which runtime starts its threads first alternates too.
            let (on, off) = if round % 2 == 0 {
                let on = Ours::start(config.workers);
                (on, OursWithoutMetrics::start(config.workers))
            } else {
                let off = OursWithoutMetrics::start(config.workers);
                (Ours::start(config.workers), off)
            };
            // Warm both up; size the round on the slower.
            let slowest = sample(&on, workload, 1).max(sample(&off, workload, 1));
            iterations = ((config.sample.as_nanos() as f64 / slowest) as usize).clamp(1, 1000);
            let (x, y) = if workload.background(&on).is_some() {
                // With background tasks, whole samples alternate (the two
                // runtimes' backgrounds must not run at once).
                if round % 2 == 0 {
                    let x = sample(&on, workload, iterations);
                    (x, sample(&off, workload, iterations))
                } else {
                    let y = sample(&off, workload, iterations);
                    (sample(&on, workload, iterations), y)
                }
            } else {
                let (mut x, mut y) = (Duration::ZERO, Duration::ZERO);
                for i in 0..iterations {
                    let first_on = (round + i) % 2 == 0;
                    for side in [first_on, !first_on] {
                        let start = Instant::now();
                        if side {
                            workload.run(&on);
                            x += start.elapsed();
                        } else {
                            workload.run(&off);
                            y += start.elapsed();
                        }
                    }
                }
                (
                    x.as_nanos() as f64 / iterations as f64,
                    y.as_nanos() as f64 / iterations as f64,
                )
            };
            a.push(x);
            b.push(y);
            ratios.push(x / y);
        }
        // ANCHOR_END: metrics_round
        let (on_ns, off_ns) = (median(a), median(b));
        let (low, high) = median_interval(&ratios);
        let ratio = median(ratios);
        worst = worst.max(ratio);
        if low > 1.05 {
            shown_over.push(workload.name());
        }
        console.say(format!(
            "  {:<24} on {:>9}   off {:>9}   on/off {:>5.3}  (95% interval {low:.3} to {high:.3})",
            workload.name(),
            human_duration_ns(on_ns),
            human_duration_ns(off_ns),
            ratio
        ));
        results.push(json!({
            "workload": workload.name(),
            "metrics_on_ns": on_ns.round(),
            "metrics_off_ns": off_ns.round(),
            "ratio_on_over_off": round3(ratio),
            "ratio_is": "median of per-round ratios",
            "ratio_interval_95": [round3(low), round3(high)],
            "iterations_per_round": iterations,
        }));
    }
    console.say(format!(
        "\nWorst on/off: {worst:.3} (the goal: within 5%, at most 1.05); workloads whose whole 95% interval is above 1.05: {}",
        if shown_over.is_empty() {
            "none".to_string()
        } else {
            shown_over.join(", ")
        }
    ));
    json!({
        "experiment": "metrics",
        "workers": config.workers,
        "rounds": config.rounds,
        "machine": machine.describe(),
        "worst_ratio": round3(worst),
        "shown_over_1_05": shown_over,
        "results": results,
    })
}

/// A distribution-free 95% confidence interval for the median of
/// `values`: the order statistics `n/2 - 0.98 sqrt(n)` and
/// `n/2 + 0.98 sqrt(n)` (ranks from 1, rounded outwards), as for a sign test.
fn median_interval(values: &[f64]) -> (f64, f64) {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let n = sorted.len();
    if n == 0 {
        return (f64::NAN, f64::NAN);
    }
    let half_width = 0.98 * (n as f64).sqrt();
    let low = ((n as f64 / 2.0 - half_width).floor() as usize).clamp(1, n);
    let high = ((n as f64 / 2.0 + 1.0 + half_width).ceil() as usize).clamp(1, n);
    (sorted[low - 1], sorted[high - 1])
}
