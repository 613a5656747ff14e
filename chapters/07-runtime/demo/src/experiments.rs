//! The chapter's experiments as the binary runs them: what the workers did
//! under a burst of spawns, what the LIFO slot is worth, and what the inject
//! queue's interval costs and buys.
//!
//! The comparison against Tokio and async-executor needs those crates, which
//! are dev-dependencies only, so it lives in `examples/compare/`.

use chapter_01::console::{Console, Report, group_thousands, human_duration_ns};
use chapter_01::experiments::add_machine;
use chapter_01::machine::Machine;
use chapter_01::measure::Samples;
use rt::runtime::{Builder, Runtime};
use rt::sync::oneshot;
use rt::task::JoinHandle;
use std::error::Error;
use std::future::Future;
use std::hint::black_box;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

/// What an experiment returns: its report, or one error for the binary to print.
pub type Outcome = Result<Report, Box<dyn Error>>;

fn runtime(workers: usize) -> Result<Runtime, Box<dyn Error>> {
    Ok(Builder::new_multi_thread()
        .worker_threads(workers)
        .build()?)
}

/// A little CPU work, the same on every run: about a microsecond in a
/// release build.
fn work(rounds: u64) -> u64 {
    let mut x = 0x9E37_79B9u64;
    for i in 0..rounds {
        x = black_box(x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(i));
    }
    x
}

/// Busy-waits for `duration` (a CPU-bound poll).
fn spin_for(duration: Duration) {
    let start = Instant::now();
    while start.elapsed() < duration {
        std::hint::spin_loop();
    }
}

/// A tree of tasks: a node spawns `fanout` children and awaits them; a leaf
/// does about a microsecond of arithmetic.
fn node(depth: u32, fanout: u32) -> Pin<Box<dyn Future<Output = u64> + Send>> {
    Box::pin(async move {
        if depth == 0 {
            return work(1_000);
        }
        let children: Vec<JoinHandle<u64>> = (0..fanout)
            .map(|_| rt::spawn(node(depth - 1, fanout)))
            .collect();
        let mut sum = 0u64;
        for child in children {
            sum = sum.wrapping_add(child.await.expect("the child completes"));
        }
        sum
    })
}

/// Tasks in a tree of `depth` levels below the root with `fanout` children each.
pub fn tree_size(depth: u32, fanout: u32) -> u64 {
    (1..=depth).map(|level| u64::from(fanout).pow(level)).sum()
}

/// The same tree as [`workers`], on a runtime that records what each
/// worker did ([`rt::runtime::Builder::enable_trace`]): the timeline the
/// book draws. Returns the trace and the wall time.
pub fn workers_trace(
    workers: usize,
    depth: u32,
    fanout: u32,
) -> Result<(rt::runtime::Trace, Duration), Box<dyn Error>> {
    let rt = Builder::new_multi_thread()
        .worker_threads(workers)
        .enable_trace(1 << 20)
        .build()?;
    let start = Instant::now();
    black_box(rt.block_on(rt.spawn(node(depth, fanout)))?);
    let elapsed = start.elapsed();
    std::thread::sleep(Duration::from_millis(20));
    Ok((rt.trace().ok_or("the runtime recorded no trace")?, elapsed))
}

/// `workers`: a tree of tasks, each node spawning `fanout` children and
/// awaiting them; the per-worker counters show the LIFO slot, the overflow,
/// the steals and the parking.
pub fn workers(console: &Console, workers: usize, depth: u32, fanout: u32) -> Outcome {
    // The root is a task too: it is spawned like every node below it.
    let tasks = tree_size(depth, fanout) + 1;
    console.say(format!(
        "A tree of {} tasks, the root included ({depth} levels below it, {fanout} children per node; a leaf is about a microsecond of arithmetic), on {workers} workers",
        group_thousands(tasks as f64)
    ));
    let rt = runtime(workers)?;
    let start = Instant::now();
    let checksum = rt.block_on(rt.spawn(node(depth, fanout)))?;
    let elapsed = start.elapsed();
    black_box(checksum);
    // Let the workers finish parking so the counters are final.
    std::thread::sleep(Duration::from_millis(20));
    let metrics = rt.metrics();

    let mut report = Report::new("workers");
    report
        .add("workers", "worker threads", workers)
        .add("tasks", "tasks spawned", tasks)
        .add("depth", "tree depth", depth)
        .add("fanout", "children per node", fanout)
        .add("elapsed_ms", "elapsed (ms)", elapsed.as_secs_f64() * 1e3)
        .add(
            "remote_schedules",
            "scheduled from outside",
            metrics.remote_schedule_count(),
        );
    console.say(format!(
        "  took {}; {} came through the inject queue from outside",
        human_duration_ns(elapsed.as_nanos() as f64),
        chapter_01::console::count(metrics.remote_schedule_count(), "task")
    ));
    console.say(format!(
        "  {:<8} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>7}",
        "worker", "polls", "LIFO", "local", "stolen", "steals", "overflow", "inject", "parks"
    ));
    for w in 0..workers {
        let row = [
            metrics.worker_poll_count(w),
            metrics.worker_lifo_poll_count(w),
            metrics.worker_local_schedule_count(w),
            metrics.worker_steal_count(w),
            metrics.worker_steal_operations(w),
            metrics.worker_overflow_count(w),
            metrics.worker_inject_pull_count(w),
            metrics.worker_park_count(w),
        ];
        console.say(format!(
            "  {:<8} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>7}",
            w, row[0], row[1], row[2], row[3], row[4], row[5], row[6], row[7]
        ));
        for (key, label, value) in [
            ("polls", "tasks polled", row[0]),
            ("lifo_polls", "of which from the LIFO slot", row[1]),
            ("local_schedules", "tasks scheduled onto itself", row[2]),
            ("stolen", "tasks stolen from others", row[3]),
            ("steal_operations", "steal operations", row[4]),
            ("overflows", "ring overflows to the inject queue", row[5]),
            ("inject_pulls", "tasks taken from the inject queue", row[6]),
            ("parks", "times parked", row[7]),
        ] {
            report.add(
                &format!("worker{w}_{key}"),
                &format!("worker {w}: {label}"),
                value,
            );
        }
    }
    console.say(
        "  (local: spawned or woken onto its own queue; stolen/steals: tasks and operations; \
         overflow: times its ring was full and sent half to the inject queue)",
    );
    add_machine(&mut report, &Machine::current());
    Ok(report)
}

/// Which scheduler workload `lifo` measures.
#[derive(Clone, Copy)]
enum LifoWorkload {
    /// A chain of spawns, each task spawning the next.
    Chain,
    /// Request/response between two tasks over oneshot channels.
    PingPong,
}

impl LifoWorkload {
    fn run(self, rt: &Runtime) {
        match self {
            LifoWorkload::Chain => {
                fn link(n: usize, done: oneshot::Sender<()>) {
                    if n == 0 {
                        let _ = done.send(());
                    } else {
                        drop(rt::spawn(async move { link(n - 1, done) }));
                    }
                }
                let (tx, rx) = oneshot::channel();
                rt.block_on(async move {
                    drop(rt::spawn(async move { link(1_000, tx) }));
                    rx.await.expect("the chain completes");
                });
            }
            LifoWorkload::PingPong => {
                rt.block_on(rt.spawn(async {
                    for _ in 0..1_000 {
                        let (ping_tx, ping_rx) = oneshot::channel::<()>();
                        let (pong_tx, pong_rx) = oneshot::channel::<()>();
                        drop(rt::spawn(async move {
                            ping_rx.await.expect("ping");
                            let _ = pong_tx.send(());
                        }));
                        let _ = ping_tx.send(());
                        pong_rx.await.expect("pong");
                    }
                }))
                .expect("ping-pong completes");
            }
        }
    }
}

/// Runs per sample of `lifo` (each run is under a millisecond; a sample of
/// 20 is long enough to smooth over one preemption).
const LIFO_REPS: u32 = 20;

/// `lifo`: chained spawns and ping-pong with the LIFO slot on and off.
pub fn lifo(console: &Console, workers: usize, rounds: usize) -> Outcome {
    console.say(format!(
        "The LIFO slot on and off, {workers} workers, {rounds} rounds alternating, each the mean of {LIFO_REPS} runs; medians"
    ));
    let with = runtime(workers)?;
    let without = Builder::new_multi_thread()
        .worker_threads(workers)
        .disable_lifo_slot()
        .build()?;
    let mut report = Report::new("lifo");
    for (name, label, workload) in [
        (
            "chained_spawn",
            "a chain of 1,000 spawns",
            LifoWorkload::Chain,
        ),
        (
            "ping_pong",
            "1,000 ping-pongs over oneshot channels",
            LifoWorkload::PingPong,
        ),
    ] {
        // Warm both up, then alternate.
        workload.run(&with);
        workload.run(&without);
        let (mut on, mut off) = (Vec::new(), Vec::new());
        for _ in 0..rounds {
            let start = Instant::now();
            for _ in 0..LIFO_REPS {
                workload.run(&with);
            }
            on.push(start.elapsed() / LIFO_REPS);
            let start = Instant::now();
            for _ in 0..LIFO_REPS {
                workload.run(&without);
            }
            off.push(start.elapsed() / LIFO_REPS);
        }
        let on = Samples::from_durations(&on).median_ns();
        let off = Samples::from_durations(&off).median_ns();
        console.say(format!(
            "  {label:<40} with the slot {:>9}   without {:>9}   without/with {:.2}",
            human_duration_ns(on),
            human_duration_ns(off),
            off / on
        ));
        report
            .add(
                &format!("{name}_lifo_on_ns"),
                &format!("{label}, LIFO slot on"),
                on.round(),
            )
            .add(
                &format!("{name}_lifo_off_ns"),
                &format!("{label}, LIFO slot off"),
                off.round(),
            )
            .add(
                &format!("{name}_off_over_on"),
                &format!("{label}, off / on"),
                off / on,
            );
    }
    add_machine(&mut report, &Machine::current());
    Ok(report)
}

/// A CPU-bound task that never waits: each poll computes for `poll_time`,
/// then wakes itself, so its worker's ring is never empty.
struct Busy {
    poll_time: Duration,
    stop: Arc<AtomicBool>,
    polls: u64,
}

impl Future for Busy {
    type Output = u64;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<u64> {
        if self.stop.load(Ordering::Relaxed) {
            return Poll::Ready(self.polls);
        }
        spin_for(self.poll_time);
        self.polls += 1;
        cx.waker().wake_by_ref();
        Poll::Pending
    }
}

/// `interval`: how long a task from outside waits behind busy local work,
/// and what the busy work loses, for several global-queue intervals.
pub fn interval(console: &Console, probes: usize, intervals: &[u32]) -> Outcome {
    const BUSY_TASKS: usize = 8;
    const POLL_TIME: Duration = Duration::from_micros(5);
    const PROBE_EVERY: Duration = Duration::from_millis(2);
    console.say(format!(
        "One worker, {BUSY_TASKS} tasks that compute {} µs per poll and wake themselves; a plain thread \
         spawns a probe every {} ms ({probes} probes); the probe's wait is spawn to first poll",
        POLL_TIME.as_micros(),
        PROBE_EVERY.as_millis()
    ));
    let mut report = Report::new("interval");
    report
        .add("busy_tasks", "busy tasks", BUSY_TASKS)
        .add(
            "busy_poll_us",
            "busy poll (µs)",
            POLL_TIME.as_micros() as u64,
        )
        .add("probes", "probes per interval", probes);
    console.say(format!(
        "  {:>8} {:>12} {:>12} {:>12} {:>16}",
        "interval", "wait p50", "wait p99", "wait max", "busy polls/s"
    ));
    for &interval in intervals {
        let rt = Builder::new_multi_thread()
            .worker_threads(1)
            .global_queue_interval(interval)
            .build()?;
        let stop = Arc::new(AtomicBool::new(false));
        let busy: Vec<_> = (0..BUSY_TASKS)
            .map(|_| {
                rt.spawn(Busy {
                    poll_time: POLL_TIME,
                    stop: stop.clone(),
                    polls: 0,
                })
            })
            .collect();
        // Let the busy tasks fill the worker's ring.
        std::thread::sleep(Duration::from_millis(20));
        let polls_before = rt.metrics().worker_poll_count(0);
        let started = Instant::now();
        let mut waits = Vec::with_capacity(probes);
        let mut pending = Vec::with_capacity(probes);
        for _ in 0..probes {
            let spawned = Instant::now();
            pending.push(rt.spawn(async move { spawned.elapsed() }));
            std::thread::sleep(PROBE_EVERY);
        }
        for probe in pending {
            waits.push(rt.block_on(probe)?);
        }
        let elapsed = started.elapsed();
        let polls = rt.metrics().worker_poll_count(0) - polls_before;
        stop.store(true, Ordering::Relaxed);
        for task in busy {
            rt.block_on(task)?;
        }
        let waits = Samples::from_durations(&waits);
        let polls_per_s = polls as f64 / elapsed.as_secs_f64();
        console.say(format!(
            "  {:>8} {:>12} {:>12} {:>12} {:>16}",
            interval,
            human_duration_ns(waits.median_ns()),
            human_duration_ns(waits.percentile_ns(99.0)),
            human_duration_ns(waits.max_ns()),
            group_thousands(polls_per_s)
        ));
        report
            .add(
                &format!("interval_{interval}_wait_p50_us"),
                &format!("interval {interval}: wait p50 (µs)"),
                waits.median_ns() / 1e3,
            )
            .add(
                &format!("interval_{interval}_wait_p99_us"),
                &format!("interval {interval}: wait p99 (µs)"),
                waits.percentile_ns(99.0) / 1e3,
            )
            .add(
                &format!("interval_{interval}_busy_polls_per_s"),
                &format!("interval {interval}: busy polls/s"),
                polls_per_s.round(),
            );
    }
    add_machine(&mut report, &Machine::current());
    Ok(report)
}

/// The guided demo.
pub fn demo(console: &Console, quick: bool) -> Outcome {
    let machine = Machine::current();
    let workers_n = machine.logical_cpus.max(2);
    console
        .say("Chapter 7: a work-stealing runtime with an I/O driver, a timing wheel and a budget");
    console.say(format!("Measured on: {}", machine.describe()));
    console.say("");
    let mut report = Report::new("demo");
    let steps = 7;
    console.say(format!("1/{steps} What the workers did"));
    report.extend(workers(console, workers_n, 3, if quick { 20 } else { 50 })?);
    console.say("");
    console.say(format!("2/{steps} What the LIFO slot is worth"));
    report.extend(lifo(console, workers_n, if quick { 5 } else { 15 })?);
    console.say("");
    console.say(format!(
        "3/{steps} The inject queue's interval: fairness against throughput"
    ));
    report.extend(interval(
        console,
        if quick { 50 } else { 250 },
        &[1, 7, 31, 61, 127, 255],
    )?);
    console.say("");
    console.say(format!("4/{steps} The timing wheel against a binary heap"));
    report.extend(timers(console, true)?);
    console.say("");
    let each = Duration::from_millis(if quick { 500 } else { 2_000 });
    console.say(format!(
        "5/{steps} The budget: a reader that is always ready"
    ));
    report.extend(crate::coop::coop(console, each)?);
    console.say("");
    console.say(format!(
        "6/{steps} Blocking inside a task, spawn_blocking, and the long-poll detector"
    ));
    report.extend(blocking(console, each)?);
    console.say("");
    let connections = if quick { 500 } else { 10_000 };
    console.say(format!(
        "7/{steps} {} connections on every core, and what the metrics saw",
        chapter_01::console::group_thousands(connections as f64)
    ));
    report.extend(echo_under_load(
        console,
        connections,
        Duration::from_secs(if quick { 1 } else { 5 }),
    )?);
    console.say("");
    console.say("Against Tokio and async-executor, same workloads, same threads:");
    console.say("  cargo run --release -p chapter-07 --example compare -- scheduler");
    console.say("  cargo run --release -p chapter-07 --example compare -- echo");
    console.say("  cargo run --release -p chapter-07 --example compare -- timers");
    report.remove_prefixed("machine_");
    add_machine(&mut report, &machine);
    Ok(report)
}

/// The ticker of `blocking`: sleeps until each next millisecond
/// and records how late it woke.
async fn ticker(duration: Duration) -> Vec<Duration> {
    let start = Instant::now();
    let mut next = start;
    let mut lateness = Vec::new();
    while start.elapsed() < duration {
        next += Duration::from_millis(1);
        rt::time::sleep_until(next.into()).await;
        let now = Instant::now();
        lateness.push(now.saturating_duration_since(next));
        if now > next {
            // Late: the next tick is a millisecond from now, not a burst.
            next = now;
        }
    }
    lateness
}

/// Lateness figures in milliseconds: p50, p99, max.
fn lateness_ms(lateness: &[Duration]) -> (f64, f64, f64) {
    let samples = Samples::from_durations(lateness);
    (
        samples.median_ns() / 1e6,
        samples.percentile_ns(99.0) / 1e6,
        samples.max_ns() / 1e6,
    )
}

/// Prints one row of ticker lateness and adds it to `report` under `key`.
pub(crate) fn add_lateness(
    report: &mut Report,
    console: &Console,
    key: &str,
    label: &str,
    lateness: &[Duration],
) {
    let (p50, p99, max) = lateness_ms(lateness);
    console.say(format!(
        "  {label:<44} ticks {:>6}   lateness p50 {p50:>7.3} ms   p99 {p99:>8.3} ms   max {max:>8.3} ms",
        lateness.len()
    ));
    report
        .add(
            &format!("ticker_lateness_p50_ms_{key}"),
            &format!("p50, {label}"),
            p50,
        )
        .add(
            &format!("ticker_lateness_p99_ms_{key}"),
            &format!("p99, {label}"),
            p99,
        )
        .add(
            &format!("ticker_lateness_max_ms_{key}"),
            &format!("max, {label}"),
            max,
        )
        .add(
            &format!("ticker_ticks_{key}"),
            &format!("ticks, {label}"),
            lateness.len(),
        );
}

/// `blocking`: `std::thread::sleep` inside a task stalls its worker's other
/// tasks; the same wait through `spawn_blocking` does not. Then the
/// long-poll detector, asked for its reports, on a poll that blocks and on
/// one that is only preempted (see [`crate::long_poll`]).
pub fn blocking(console: &Console, duration: Duration) -> Outcome {
    const STALL: Duration = Duration::from_millis(20);
    const EVERY: Duration = Duration::from_millis(30);
    console.say(format!(
        "One worker, a task ticking every ms; beside it a task that blocks for {} ms every {} ms; {} s each way",
        STALL.as_millis(),
        EVERY.as_millis(),
        duration.as_secs_f64()
    ));
    let mut report = Report::new("blocking");
    for (key, label) in [
        ("alone", "the ticker alone"),
        ("blocking_in_task", "beside thread::sleep inside a task"),
        ("spawn_blocking", "beside the same sleep in spawn_blocking"),
    ] {
        let rt = Builder::new_multi_thread().worker_threads(1).build()?;
        let stop = Arc::new(AtomicBool::new(false));
        let stopper = stop.clone();
        let key_owned = key.to_string();
        let blocker = rt.spawn(async move {
            while !stopper.load(Ordering::Relaxed) && key_owned != "alone" {
                if key_owned == "blocking_in_task" {
                    // The anti-pattern: the worker thread itself sleeps.
                    std::thread::sleep(STALL);
                } else {
                    rt::task::spawn_blocking(move || std::thread::sleep(STALL))
                        .await
                        .expect("the blocking job completes");
                }
                rt::time::sleep(EVERY - STALL).await;
            }
        });
        let lateness = rt.block_on(rt.spawn(ticker(duration)))?;
        stop.store(true, Ordering::Relaxed);
        rt.block_on(blocker)?;
        add_lateness(&mut report, console, key, label, &lateness);
        // The detector prints nothing unless asked; it counts every long
        // poll that was the task's doing.
        report.add(
            &format!("long_polls_{key}"),
            &format!("long polls counted, {label}"),
            rt.metrics().long_poll_count(),
        );
    }
    console.say(
        "The long-poll detector, asked for its reports: a poll that sleeps 50 ms, \
         and a poll of 2 ms of work on a CPU shared with a busier thread",
    );
    let polls = crate::long_poll::two_polls()?;
    for (key, label, poll) in [
        ("blocked", "the poll that sleeps", &polls.blocked),
        ("preempted", "the poll that is preempted", &polls.preempted),
    ] {
        console.say(format!("  {poll}"));
        report.add(
            &format!("detector_{key}_poll_cause"),
            &format!("{label}: the detector's verdict"),
            poll.cause.to_string(),
        );
        report.add(
            &format!("detector_{key}_poll_ms"),
            &format!("{label}: its own time"),
            poll.duration.as_secs_f64() * 1e3,
        );
        report.add(
            &format!("detector_{key}_poll_cpu_wait_ms"),
            &format!("{label}: waiting for a CPU"),
            poll.cpu_wait.as_secs_f64() * 1e3,
        );
    }
    report.add(
        "detector_long_polls_counted",
        "long polls counted (blamed on their task)",
        polls.counted,
    );
    add_machine(&mut report, &Machine::current());
    Ok(report)
}

/// Per-operation cost of one insert and one cancel with `pending` timers
/// already waiting, for the timing wheel and for Chapter 5's binary heap,
/// in the thread's CPU time (see `thread_cpu_ns`).
#[derive(Debug, Clone)]
pub struct TimerOps {
    /// Timers pending during the measurement.
    pub pending: usize,
    /// Nanoseconds per insert+cancel pair, wheel (median of rounds).
    pub wheel_ns: f64,
    /// The same, one figure per round, in the order of the rounds (round
    /// `r` of every size was measured in the same pass, moments apart).
    pub wheel_rounds: Vec<f64>,
    /// Nanoseconds per insert+cancel pair, heap (median of rounds).
    pub heap_ns: f64,
    /// Nanoseconds per timer inserted and then fired, wheel.
    pub wheel_fire_ns: f64,
    /// Nanoseconds per timer inserted and then fired, heap.
    pub heap_fire_ns: f64,
    /// Nanoseconds per operation of the floor: the same loop storing each
    /// deadline with one plain array write and clearing the oldest with
    /// another (median of rounds).
    pub floor_ns: f64,
}

/// CPU time the calling thread has used, in nanoseconds. The timer
/// operations are single-threaded loops, timed by this rather than by the
/// wall clock: on a shared machine with more runnable threads than CPUs, the
/// wall clock also counts the time the thread waited for a CPU, which has
/// nothing to do with the data structure and moves from sample to sample.
/// (The cache misses caused by the other tenants remain.)
fn thread_cpu_ns() -> f64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec; CLOCK_THREAD_CPUTIME_ID
    // is supported by every Linux this book runs on.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    assert_eq!(rc, 0, "clock_gettime(CLOCK_THREAD_CPUTIME_ID) failed");
    ts.tv_sec as f64 * 1e9 + ts.tv_nsec as f64
}

/// A deterministic spread of deadlines over the next minute (levels 0 to
/// 2 of the wheel), the same for both structures.
fn deadline_ms(i: u64) -> u64 {
    1 + (i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 40) % 60_000
}

fn wheel_ops(pending: usize, ops: usize) -> f64 {
    use rt::time::internals::TimingWheel;
    let mut wheel = TimingWheel::new();
    let waker = std::task::Waker::noop();
    let mut keys: std::collections::VecDeque<_> = (0..pending as u64)
        .map(|i| {
            wheel
                .insert(deadline_ms(i), waker.clone())
                .expect("in the future")
        })
        .collect();
    let start = thread_cpu_ns();
    for i in 0..ops as u64 {
        // Replace the oldest timer by a new one: the count stays `pending`,
        // as on a server where each request resets its connection's timeout.
        let key = wheel
            .insert(deadline_ms(pending as u64 + i), waker.clone())
            .expect("in the future");
        keys.push_back(key);
        let old = keys.pop_front().expect("not empty");
        wheel.remove(old);
    }
    let elapsed = thread_cpu_ns() - start;
    black_box(wheel.pending());
    elapsed / ops as f64
}

/// The floor of the insert-and-cancel loop: what the machine allows for
/// storing a timer and forgetting one. The same loop as [`wheel_ops`] (the
/// same deadlines, the same queue of keys, a waker cloned and dropped), but
/// the timers live in a plain array, and the new timer is written into the
/// slot the cancelled one frees: a cancel is one write that clears a slot,
/// an insert one write that fills it. The wheel's free list reuses entries
/// the same way (last freed, first reused), so the floor's writes walk the
/// array in the order the wheel's do; what the wheel adds is its lists and
/// levels.
fn floor_ops(pending: usize, ops: usize) -> f64 {
    let waker = std::task::Waker::noop();
    let mut slots: Vec<(u64, Option<std::task::Waker>)> = (0..pending as u64)
        .map(|i| (deadline_ms(i), Some(waker.clone())))
        .collect();
    let mut keys: std::collections::VecDeque<usize> = (0..pending).collect();
    let start = thread_cpu_ns();
    for i in 0..ops as u64 {
        let old = keys.pop_front().expect("not empty");
        slots[old] = (0, None);
        black_box(&slots[old]);
        slots[old] = (deadline_ms(pending as u64 + i), Some(waker.clone()));
        keys.push_back(old);
    }
    let elapsed = thread_cpu_ns() - start;
    black_box(&slots);
    elapsed / ops as f64
}

fn heap_ops(pending: usize, ops: usize) -> f64 {
    use chapter_05::timers::TimerHeap;
    let base = Instant::now();
    let mut heap = TimerHeap::new();
    let mut ids: std::collections::VecDeque<_> = (0..pending as u64)
        .map(|i| heap.insert(base + Duration::from_millis(deadline_ms(i)), i))
        .collect();
    let start = thread_cpu_ns();
    for i in 0..ops as u64 {
        let id = heap.insert(
            base + Duration::from_millis(deadline_ms(pending as u64 + i)),
            i,
        );
        ids.push_back(id);
        let old = ids.pop_front().expect("not empty");
        black_box(heap.cancel(old));
    }
    let elapsed = thread_cpu_ns() - start;
    black_box(heap.len());
    elapsed / ops as f64
}

/// Inserts `pending` timers, then moves time forward a millisecond at a
/// time until all have fired; nanoseconds per timer (insert and fire).
fn wheel_fire(pending: usize) -> f64 {
    use rt::time::internals::TimingWheel;
    let mut wheel = TimingWheel::new();
    let waker = std::task::Waker::noop();
    let mut fired = Vec::with_capacity(1024);
    let start = thread_cpu_ns();
    for i in 0..pending as u64 {
        wheel
            .insert(deadline_ms(i), waker.clone())
            .expect("in the future");
    }
    let mut now = 0;
    while wheel.pending() > 0 {
        now += 1;
        wheel.advance(now, &mut fired);
        fired.clear();
    }
    (thread_cpu_ns() - start) / pending as f64
}

fn heap_fire(pending: usize) -> f64 {
    use chapter_05::timers::TimerHeap;
    let base = Instant::now();
    let mut heap = TimerHeap::new();
    let start = thread_cpu_ns();
    for i in 0..pending as u64 {
        heap.insert(base + Duration::from_millis(deadline_ms(i)), i);
    }
    let mut now = 0;
    while !heap.is_empty() {
        now += 1;
        let at = base + Duration::from_millis(now);
        while let Some(value) = heap.pop_expired(at) {
            black_box(value);
        }
    }
    (thread_cpu_ns() - start) / pending as f64
}

/// Measures [`TimerOps`] at each size, alternating the two structures. The
/// rounds are the outer loop: each round measures every size, one after
/// another, so that a ratio between two sizes can be taken within a round,
/// before any median, and a slow change in the machine's speed cancels out.
pub fn timer_ops(sizes: &[usize], ops: usize, rounds: usize) -> Vec<TimerOps> {
    let mut samples = vec![[const { Vec::new() }; 5]; sizes.len()];
    for _ in 0..rounds {
        for (&pending, [wheel, heap, wheel_fired, heap_fired, floor]) in
            sizes.iter().zip(&mut samples)
        {
            // At least two full turnovers of the pending set, so that work
            // done once per turnover (the heap's compaction of cancelled
            // entries) is counted at every size.
            let ops = ops.max(2 * pending);
            wheel.push(wheel_ops(pending, ops));
            heap.push(heap_ops(pending, ops));
            floor.push(floor_ops(pending, ops));
            wheel_fired.push(wheel_fire(pending));
            heap_fired.push(heap_fire(pending));
        }
    }
    sizes
        .iter()
        .zip(samples)
        .map(
            |(&pending, [wheel, heap, wheel_fired, heap_fired, floor])| TimerOps {
                pending,
                wheel_ns: Samples::from_ns(wheel.clone()).median_ns(),
                wheel_rounds: wheel,
                heap_ns: Samples::from_ns(heap).median_ns(),
                wheel_fire_ns: Samples::from_ns(wheel_fired).median_ns(),
                heap_fire_ns: Samples::from_ns(heap_fired).median_ns(),
                floor_ns: Samples::from_ns(floor).median_ns(),
            },
        )
        .collect()
}

/// `timers`: the wheel against Chapter 5's heap, insert+cancel per
/// operation, at growing numbers of pending timers.
pub fn timers(console: &Console, quick: bool) -> Outcome {
    let sizes: &[usize] = if quick {
        &[1_000, 10_000, 100_000]
    } else {
        &[1_000, 10_000, 100_000, 1_000_000]
    };
    let ops = if quick { 50_000 } else { 200_000 };
    let rounds = if quick { 3 } else { 5 };
    console.say(format!(
        "Insert one timer and cancel the oldest, {} times (or twice N, if more), with N timers pending (deadlines over the next minute); medians of {rounds} rounds",
        group_thousands(ops as f64)
    ));
    console.say("And: insert N timers, then advance time 1 ms at a time until all have fired (ns per timer)");
    console.say(format!(
        "  {:>10} {:>14} {:>14} {:>14} {:>14}",
        "pending", "wheel ns/op", "heap ns/op", "wheel fire", "heap fire"
    ));
    let mut report = Report::new("timers");
    for row in timer_ops(sizes, ops, rounds) {
        console.say(format!(
            "  {:>10} {:>14.1} {:>14.1} {:>14.1} {:>14.1}",
            group_thousands(row.pending as f64),
            row.wheel_ns,
            row.heap_ns,
            row.wheel_fire_ns,
            row.heap_fire_ns
        ));
        report
            .add(
                &format!("wheel_fire_ns_{}", row.pending),
                &format!("wheel, insert and fire, {} timers (ns each)", row.pending),
                row.wheel_fire_ns,
            )
            .add(
                &format!("heap_fire_ns_{}", row.pending),
                &format!("heap, insert and fire, {} timers (ns each)", row.pending),
                row.heap_fire_ns,
            );
        report
            .add(
                &format!("wheel_ns_per_op_{}", row.pending),
                &format!("wheel, {} pending (ns/op)", row.pending),
                row.wheel_ns,
            )
            .add(
                &format!("heap_ns_per_op_{}", row.pending),
                &format!("heap, {} pending (ns/op)", row.pending),
                row.heap_ns,
            );
    }
    add_machine(&mut report, &Machine::current());
    Ok(report)
}

/// The echo server as Chapter 3's harness starts it: this binary, `serve`.
pub fn echo_spec() -> std::io::Result<chapter_03::harness::ServerSpec> {
    chapter_03::harness::ServerSpec::this_binary("rt", &["serve", "--addr", "127.0.0.1:0"])
}

/// The echo server on a runtime in this process, Chapter 3's load generator
/// in a child process (ten thousand connections need more descriptors than
/// one process may have on each side), then the runtime's metrics over the
/// load, explained line by line.
pub fn echo_under_load(console: &Console, connections: usize, duration: Duration) -> Outcome {
    echo_under_load_with_busy(console, connections, duration).map(|(report, _)| report)
}

/// [`echo_under_load`], and the workers' busy time per poll in µs over the
/// window (the figure its text prints, for the book's report example).
pub fn echo_under_load_with_busy(
    console: &Console,
    connections: usize,
    duration: Duration,
) -> Result<(Report, f64), Box<dyn Error>> {
    use std::process::{Command, Stdio};
    chapter_03::limits::raise_fd_limit()?;
    // Ask the long-poll detector to print what it blames on a task.
    let rt = Builder::new_multi_thread().print_long_polls().build()?;
    let listener = chapter_03::server::listener(std::net::SocketAddr::from(([127, 0, 0, 1], 0)))?;
    let addr = listener.local_addr()?;
    rt.block_on(async {
        let listener = rt::net::TcpListener::from_std(listener)?;
        drop(rt::spawn(crate::echo::serve(listener)));
        Ok::<_, std::io::Error>(())
    })?;
    let metrics = rt.metrics();
    let before = metrics.snapshot();
    console.say(format!(
        "  The echo server runs here on {} workers; Chapter 3's generator opens {} connections from a child process",
        metrics.num_workers(),
        group_thousands(connections as f64)
    ));
    let output = Command::new(std::env::current_exe()?)
        .args([
            "load",
            "--addr",
            &addr.to_string(),
            "--connections",
            &connections.to_string(),
            "--duration",
            &duration.as_secs().max(1).to_string(),
            "--json",
        ])
        .stdin(Stdio::null())
        .stderr(Stdio::inherit())
        .output()?;
    if !output.status.success() {
        return Err(format!("the load generator failed ({})", output.status).into());
    }
    let load: serde_json::Value = serde_json::from_slice(&output.stdout)?;
    let during = metrics.snapshot();
    let seconds = during.taken.duration_since(before.taken).as_secs_f64();
    let messages = load["messages"].as_u64().unwrap_or(0);
    let mut report = Report::new("echo_under_load");
    for key in [
        "connections_held",
        "messages",
        "mismatches",
        "errors",
        "throughput_msgs_per_sec",
        "latency_p50_us",
        "latency_p99_us",
    ] {
        report.add(key, key, load[key].clone());
    }
    console.say(format!(
        "  {} connections held, {} messages echoed ({} msgs/s), {} wrong, {} errors",
        load["connections_held"],
        group_thousands(messages as f64),
        group_thousands(load["throughput_msgs_per_sec"].as_f64().unwrap_or(0.0)),
        load["mismatches"],
        load["errors"]
    ));
    console.say("  What the runtime's metrics saw over the load (their difference across it):");
    // ANCHOR: metrics_diff
    let pairs = || during.workers.iter().zip(&before.workers);
    let polls: u64 = pairs().map(|(a, b)| a.polls - b.polls).sum();
    let lifo: u64 = pairs().map(|(a, b)| a.lifo_polls - b.lifo_polls).sum();
    let steals: u64 = pairs().map(|(a, b)| a.steals - b.steals).sum();
    let parks: u64 = pairs().map(|(a, b)| a.parks - b.parks).sum();
    let busy: Duration = pairs().map(|(a, b)| a.busy.saturating_sub(b.busy)).sum();
    let forced: u64 = pairs()
        .map(|(a, b)| a.budget_forced_yields - b.budget_forced_yields)
        .sum();
    let events = during.io_ready_events - before.io_ready_events;
    // ANCHOR_END: metrics_diff
    let workers = during.workers.len() as f64;
    let per_message = |n: u64| n as f64 / messages.max(1) as f64;
    let lines = [
        format!(
            "sockets registered with the driver at the end: {} (connections still open, and the listener)",
            during.registered_sockets
        ),
        format!(
            "readiness events delivered: {} ({:.2} per message)",
            group_thousands(events as f64),
            per_message(events)
        ),
        format!(
            "task polls: {} ({:.2} per message: each wake-up of a connection's task is one poll)",
            group_thousands(polls as f64),
            per_message(polls)
        ),
        format!(
            "of which from the LIFO slot: {:.1}%",
            100.0 * lifo as f64 / polls.max(1) as f64
        ),
        format!("tasks stolen: {}", group_thousands(steals as f64)),
        format!(
            "parks: {} ({:.0} per second per worker)",
            group_thousands(parks as f64),
            parks as f64 / seconds / workers
        ),
        format!(
            "busy: {:.0}% of the workers' time; {:.2} µs per poll, scheduling included",
            100.0 * busy.as_secs_f64() / seconds / workers,
            busy.as_secs_f64() * 1e6 / polls.max(1) as f64
        ),
        format!("polls cut short by the budget: {forced}"),
        format!("long polls: {}", during.long_polls - before.long_polls),
        format!("tasks alive now: {}", during.alive_tasks),
    ];
    for line in &lines {
        console.say(format!("    {line}"));
    }
    report
        .add("io_ready_events", "readiness events", events)
        .add("task_polls", "task polls", polls)
        .add(
            "lifo_poll_share",
            "share of LIFO polls",
            lifo as f64 / polls.max(1) as f64,
        )
        .add("steals", "tasks stolen", steals)
        .add("parks", "parks", parks)
        .add(
            "busy_share",
            "busy share",
            busy.as_secs_f64() / seconds / workers,
        )
        .add("budget_forced_yields", "budget forced yields", forced)
        .add(
            "long_polls",
            "long polls",
            during.long_polls - before.long_polls,
        );
    add_machine(&mut report, &Machine::current());
    Ok((report, busy.as_secs_f64() * 1e6 / polls.max(1) as f64))
}
