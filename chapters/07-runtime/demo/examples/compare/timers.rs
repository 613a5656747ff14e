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
        // Creating and polling a million sleeps is one long poll on
        // purpose; the detector would report it.
        .on_long_poll(|_| {})
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
    console.say(format!(
        "  {:>10} {:>14} {:>14} {:>14} {:>14}",
        "pending", "wheel ns/op", "heap ns/op", "wheel fire", "heap fire"
    ));
    let round1 = |x: f64| (x * 10.0).round() / 10.0;
    let series: Vec<Value> = chapter_07::experiments::timer_ops(sizes, ops, rounds)
        .into_iter()
        .map(|row| {
            console.say(format!(
                "  {:>10} {:>14.1} {:>14.1} {:>14.1} {:>14.1}",
                group_thousands(row.pending as f64),
                row.wheel_ns,
                row.heap_ns,
                row.wheel_fire_ns,
                row.heap_fire_ns
            ));
            json!({
                "timers": row.pending,
                "wheel_ns_per_op": round1(row.wheel_ns),
                "heap_ns_per_op": round1(row.heap_ns),
                "wheel_fire_ns_per_timer": round1(row.wheel_fire_ns),
                "heap_fire_ns_per_timer": round1(row.heap_fire_ns),
            })
        })
        .collect();

    let n = if quick { 100_000 } else { 1_000_000 };
    let sleep_rounds = if quick { 1 } else { 3 };
    console.say(format!(
        "\n{} sleeps created, each polled once, then all dropped; 2 workers; medians of {sleep_rounds} rounds, alternating",
        group_thousands(n as f64)
    ));
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for _ in 0..sleep_rounds {
        a.push(ours(n).as_nanos() as f64);
        b.push(tokio(n).as_nanos() as f64);
    }
    let (ours_ns, tokio_ns) = (median(a), median(b));
    console.say(format!(
        "  ours {}   tokio {}   ours/tokio {:.2}",
        human_duration_ns(ours_ns),
        human_duration_ns(tokio_ns),
        ours_ns / tokio_ns
    ));
    json!({
        "experiment": "timers",
        "machine": chapter_01::machine::Machine::current().describe(),
        "ops_per_size": ops,
        "series": series,
        "sleeps": n,
        "sleeps_1m_ours_ns": ours_ns.round(),
        "sleeps_1m_tokio_ns": tokio_ns.round(),
        "sleeps_1m_ratio_vs_tokio": ((ours_ns / tokio_ns) * 1000.0).round() / 1000.0,
    })
}
