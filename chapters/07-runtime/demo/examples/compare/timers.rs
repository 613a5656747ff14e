//! `compare -- timers`: the timing wheel against Chapter 5's binary heap
//! (insert and cancel at growing numbers of pending timers), and Tokio's
//! "a million sleeps, each polled once and dropped" on both runtimes.

use chapter_01::console::{Console, group_thousands, human_duration_ns};
use serde_json::{Value, json};
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

/// Polls a future exactly once.
struct PollOnce<'a, F>(Pin<&'a mut F>);

impl<F: Future> Future for PollOnce<'_, F> {
    type Output = ();
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let _ = self.0.as_mut().poll(cx);
        Poll::Ready(())
    }
}

/// Creates `n` sleeps (deadlines spread over the next 10 to 20 minutes),
/// polls each once (which registers it with the timer), then drops them all
/// (which cancels them). The same code for both runtimes.
async fn sleeps<F, S>(n: usize, make: F) -> Duration
where
    F: Fn(Duration) -> S,
    S: Future,
{
    let start = Instant::now();
    let mut all: Vec<Pin<Box<S>>> = (0..n)
        .map(|i| {
            Box::pin(make(Duration::from_millis(
                600_000 + (i as u64 * 7919) % 600_000,
            )))
        })
        .collect();
    for sleep in &mut all {
        PollOnce(sleep.as_mut()).await;
    }
    drop(all);
    start.elapsed()
}

fn ours(n: usize) -> Duration {
    let rt = rt::Builder::new_multi_thread()
        .worker_threads(2)
        .build()
        .expect("start rt");
    rt.block_on(rt.spawn(sleeps(n, rt::time::sleep)))
        .expect("the task completes")
}

fn tokio(n: usize) -> Duration {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("start tokio");
    rt.block_on(rt.spawn(sleeps(n, tokio::time::sleep)))
        .expect("the task completes")
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

/// The lowest and the highest of some figures.
fn range(values: &[f64]) -> (f64, f64) {
    values
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(low, high), &x| {
            (low.min(x), high.max(x))
        })
}

/// Runs both parts.
pub fn compare(console: &Console, quick: bool) -> Value {
    let sizes: &[usize] = if quick {
        &[1_000, 10_000, 100_000]
    } else {
        &[1_000, 10_000, 100_000, 1_000_000]
    };
    let ops = if quick { 50_000 } else { 200_000 };
    let rounds = if quick { 3 } else { 5 };
    console.say(format!(
        "Insert one timer and cancel the oldest, {} times, with N pending; medians of {rounds} rounds",
        group_thousands(ops as f64)
    ));
    console.say("(and, in the last two columns, N timers inserted then all fired, ns per timer)");
    console.say("(the thread's CPU time, not the wall clock: a shared machine's waits for a CPU are left out)");
    console.say("(floor: the same loop on a plain array, each cancel one write clearing a slot, each insert one write filling it)");
    console.say(format!(
        "  {:>10} {:>14} {:>14} {:>14} {:>14} {:>14}",
        "pending", "wheel ns/op", "heap ns/op", "floor ns/op", "wheel fire", "heap fire"
    ));
    let round1 = |x: f64| (x * 10.0).round() / 10.0;
    let round3 = |x: f64| (x * 1000.0).round() / 1000.0;
    let rows = chapter_07::experiments::timer_ops(sizes, ops, rounds);
    let series: Vec<Value> = rows
        .iter()
        .map(|row| {
            let (low, high) = range(&row.wheel_rounds);
            console.say(format!(
                "  {:>10} {:>14.1} {:>14.1} {:>14.1} {:>14.1} {:>14.1}   (wheel {:.1} to {:.1})",
                group_thousands(row.pending as f64),
                row.wheel_ns,
                row.heap_ns,
                row.floor_ns,
                row.wheel_fire_ns,
                row.heap_fire_ns,
                low,
                high
            ));
            json!({
                "timers": row.pending,
                "wheel_ns_per_op": round1(row.wheel_ns),
                "wheel_ns_per_op_low": round1(low),
                "wheel_ns_per_op_high": round1(high),
                "heap_ns_per_op": round1(row.heap_ns),
                "floor_ns_per_op": round1(row.floor_ns),
                "wheel_fire_ns_per_timer": round1(row.wheel_fire_ns),
                "heap_fire_ns_per_timer": round1(row.heap_fire_ns),
            })
        })
        .collect();
    // The wheel's growth from 1,000 to 1,000,000 pending: in each round the
    // two sizes were measured moments apart; the median of those ratios.
    let at = |n: usize| rows.iter().find(|row| row.pending == n);
    let growth = match (at(1_000), at(1_000_000)) {
        (Some(small), Some(large)) => {
            let ratios: Vec<f64> = small
                .wheel_rounds
                .iter()
                .zip(&large.wheel_rounds)
                .map(|(s, l)| l / s)
                .collect();
            let (low, high) = range(&ratios);
            let growth = median(ratios);
            console.say(format!(
                "  wheel, 1,000,000 pending over 1,000: {growth:.2} (median of per-round ratios; {low:.2} to {high:.2})"
            ));
            json!({ "median": round3(growth), "low": round3(low), "high": round3(high) })
        }
        _ => Value::Null,
    };

    let n = if quick { 100_000 } else { 1_000_000 };
    let sleep_rounds = if quick { 1 } else { 5 };
    console.say(format!(
        "\n{} sleeps created, each polled once, then all dropped; 2 workers; medians of {sleep_rounds} rounds, the runtimes taking turns to go first",
        group_thousands(n as f64)
    ));
    let (mut a, mut b, mut ratios) = (Vec::new(), Vec::new(), Vec::new());
    for round in 0..sleep_rounds {
        // The runtimes take turns to go first.
        let (ours_ns, tokio_ns) = if round % 2 == 0 {
            let ours_ns = ours(n).as_nanos() as f64;
            (ours_ns, tokio(n).as_nanos() as f64)
        } else {
            let tokio_ns = tokio(n).as_nanos() as f64;
            (ours(n).as_nanos() as f64, tokio_ns)
        };
        a.push(ours_ns);
        b.push(tokio_ns);
        ratios.push(ours_ns / tokio_ns);
    }
    let (low, high) = range(&ratios);
    let (ours_ns, tokio_ns, ratio) = (median(a), median(b), median(ratios));
    console.say(format!(
        "  ours {}   tokio {}   ours/tokio {:.2} (median of per-round ratios; {low:.2} to {high:.2})",
        human_duration_ns(ours_ns),
        human_duration_ns(tokio_ns),
        ratio
    ));
    json!({
        "experiment": "timers",
        "machine": chapter_01::machine::Machine::current().describe(),
        "ops_per_size": ops,
        "clock": "thread CPU time (the sleeps: wall clock)",
        "floor": "the same loop on a plain array: each cancel one write clearing the oldest timer's slot, each insert one write of its deadline and waker into the slot so freed",
        "rounds": rounds,
        "series": series,
        "growth_1m_vs_1k": growth,
        "sleeps": n,
        "sleep_rounds": sleep_rounds,
        "sleeps_1m_ours_ns": ours_ns.round(),
        "sleeps_1m_tokio_ns": tokio_ns.round(),
        "sleeps_1m_ratio_vs_tokio": round3(ratio),
        "sleeps_1m_ratio_low": round3(low),
        "sleeps_1m_ratio_high": round3(high),
    })
}
