//! `compare -- channels`: mpsc throughput on our runtime and on Tokio, with
//! each runtime's own channel (`rt::sync::mpsc` against `tokio::sync::mpsc`),
//! bounded and unbounded, with one sender and with eight.
//!
//! One sample: `senders` tasks send `messages` values in all (split evenly)
//! into one channel, and a receiver task takes them all; the sample's time
//! runs from the first spawn to the receiver's last value. The workload is
//! one macro expanded twice, once per runtime's names, so the two runs are
//! the same code: the channels have the same API.
//!
//! The runtimes alternate which goes first from round to round, and a
//! ratio is the median of the per-round ratios ours / Tokio (the method of
//! `compare -- scheduler`), so that a slow moment of a shared machine falls
//! on both.

use super::runtimes::{Ours, Runtime, Tokio};
use super::scheduler::{median, round3};
use chapter_01::console::{Console, human_duration_ns};
use chapter_01::machine::Machine;
use serde_json::{Value, json};
use std::time::Instant;

/// Capacity of the bounded channel: small enough that senders do wait for
/// room (the back-pressure path is measured), large enough that they do not
/// wait after every value.
pub const CAPACITY: usize = 256;

/// How the comparison runs.
pub struct Config {
    /// Worker threads in each runtime.
    pub workers: usize,
    /// Rounds (one sample per runtime per case per round).
    pub rounds: usize,
    /// Values sent per sample.
    pub messages: usize,
}

/// One case: bounded or not, and how many senders.
#[derive(Clone, Copy)]
struct Case {
    bounded: bool,
    senders: usize,
}

const CASES: [Case; 4] = [
    Case {
        bounded: true,
        senders: 1,
    },
    Case {
        bounded: true,
        senders: 8,
    },
    Case {
        bounded: false,
        senders: 1,
    },
    Case {
        bounded: false,
        senders: 8,
    },
];

impl Case {
    fn name(self) -> String {
        format!(
            "{}, {} sender{}",
            if self.bounded { "bounded" } else { "unbounded" },
            self.senders,
            if self.senders == 1 { "" } else { "s" }
        )
    }
}

/// The workload, written once for both runtimes' names.
macro_rules! throughput {
    ($name:ident, $mpsc:path, $spawn:path) => {
        async fn $name(case: Case, messages: usize) {
            use $mpsc as mpsc;
            let per_sender = messages / case.senders;
            let expected = per_sender * case.senders;
            let receiver = if case.bounded {
                let (tx, mut rx) = mpsc::channel::<usize>(CAPACITY);
                for _ in 0..case.senders {
                    let tx = tx.clone();
                    $spawn(async move {
                        for i in 0..per_sender {
                            tx.send(i).await.expect("the receiver lives");
                        }
                    });
                }
                $spawn(async move {
                    let mut received = 0;
                    while rx.recv().await.is_some() {
                        received += 1;
                    }
                    received
                })
            } else {
                let (tx, mut rx) = mpsc::unbounded_channel::<usize>();
                for _ in 0..case.senders {
                    let tx = tx.clone();
                    $spawn(async move {
                        for i in 0..per_sender {
                            tx.send(i).expect("the receiver lives");
                        }
                    });
                }
                $spawn(async move {
                    let mut received = 0;
                    while rx.recv().await.is_some() {
                        received += 1;
                    }
                    received
                })
            };
            let received = receiver.await.expect("the receiver task");
            assert_eq!(received, expected);
        }
    };
}

throughput!(on_ours, rt::sync::mpsc, rt::spawn);
throughput!(on_tokio, tokio::sync::mpsc, tokio::spawn);

fn sample_ours(runtime: &Ours, case: Case, messages: usize) -> f64 {
    let start = Instant::now();
    runtime.block_on(on_ours(case, messages));
    start.elapsed().as_nanos() as f64
}

fn sample_tokio(runtime: &Tokio, case: Case, messages: usize) -> f64 {
    let start = Instant::now();
    runtime.block_on(on_tokio(case, messages));
    start.elapsed().as_nanos() as f64
}

/// Runs the comparison; prints a table as it goes, returns the JSON report.
pub fn compare(console: &Console, config: &Config) -> Value {
    let machine = Machine::current();
    console.say(format!(
        "mpsc throughput, {} values per sample, bounded capacity {CAPACITY}: ours (rt::sync::mpsc) and tokio (tokio::sync::mpsc), {} worker threads each",
        config.messages, config.workers
    ));
    console.say(format!("Measured on: {}", machine.describe()));
    console.say(format!(
        "{} rounds; the runtime that goes first alternates; a ratio is the median of per-round ratios\n",
        config.rounds
    ));
    let ours = Ours::start(config.workers);
    let tokio = Tokio::start(config.workers);
    let mut results = Vec::new();
    let mut worst: f64 = 0.0;
    for case in CASES {
        // Warm up both.
        sample_ours(&ours, case, config.messages);
        sample_tokio(&tokio, case, config.messages);
        let (mut a, mut b, mut ratios) = (Vec::new(), Vec::new(), Vec::new());
        for round in 0..config.rounds {
            let (x, y) = if round % 2 == 0 {
                let x = sample_ours(&ours, case, config.messages);
                (x, sample_tokio(&tokio, case, config.messages))
            } else {
                let y = sample_tokio(&tokio, case, config.messages);
                (sample_ours(&ours, case, config.messages), y)
            };
            a.push(x);
            b.push(y);
            ratios.push(x / y);
        }
        let (ours_ns, tokio_ns) = (median(a), median(b));
        let ratio = median(ratios);
        worst = worst.max(ratio);
        let per_second = |ns: f64| config.messages as f64 / (ns / 1e9);
        console.say(format!(
            "  {:<22} ours {:>9} ({:>5.1} M/s)   tokio {:>9} ({:>5.1} M/s)   ours/tokio {:>5.2}",
            case.name(),
            human_duration_ns(ours_ns),
            per_second(ours_ns) / 1e6,
            human_duration_ns(tokio_ns),
            per_second(tokio_ns) / 1e6,
            ratio
        ));
        results.push(json!({
            "case": case.name(),
            "bounded": case.bounded,
            "senders": case.senders,
            "ours_ns": ours_ns.round(),
            "tokio_ns": tokio_ns.round(),
            "ours_messages_per_sec": per_second(ours_ns).round(),
            "tokio_messages_per_sec": per_second(tokio_ns).round(),
            "ratio_vs_tokio": round3(ratio),
        }));
    }
    console.say(format!(
        "\nWorst ratio against Tokio: {worst:.2} (time; lower is better; goal at most 1.0, bar 1.5)"
    ));
    json!({
        "experiment": "channels",
        "workers": config.workers,
        "rounds": config.rounds,
        "messages_per_sample": config.messages,
        "bounded_capacity": CAPACITY,
        "machine": machine.describe(),
        "worst_ratio_vs_tokio": round3(worst),
        "results": results,
    })
}
