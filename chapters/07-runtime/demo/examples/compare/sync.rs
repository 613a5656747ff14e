//! `compare -- sync`: this chapter's locks against Tokio's, in one process
//! and one run. Each primitive is measured in rounds; in every round both
//! runtimes run the same workload, and which goes first alternates from one
//! round to the next. A ratio is the median of the per-round ratios (ours /
//! Tokio), each taken between samples measured moments apart, as in
//! `compare -- scheduler`, so that a slow drift of a shared machine cancels
//! out.
//!
//! The workloads (every one runs inside a spawned task, so the cooperative
//! budget is in force as in real code):
//!
//! * `mutex_uncontended`: one task locks, increments, unlocks, in a loop;
//! * `mutex_contended`: [`CONTENDERS`] tasks do the same on one mutex;
//! * `mutex_await_held`: [`CONTENDERS`] tasks lock, yield to the runtime
//!   once *while holding the guard* (a critical section that awaits, the
//!   case only an async mutex allows), then unlock;
//! * `semaphore_uncontended`: one task acquires and drops a permit;
//! * `semaphore_contended`: [`CONTENDERS`] tasks share [`PERMITS`] permits;
//! * `std_mutex_*`: the two mutex workloads with `std::sync::Mutex` (never
//!   held across an `.await`), on each runtime, for the page's question
//!   "when an async mutex, when a std one".
//!
//! * `joinset_spawn_join`: spawn [`Config::joinset_tasks`] tasks (100,000
//!   by default) into a `JoinSet` and join them all, one sample each;
//! * `mpsc_*`: one or eight senders through a bounded or unbounded channel.

use super::runtimes::{Ours, Runtime, Spawner, Tokio};
use super::scheduler::{median, round3};
use chapter_01::console::{Console, human_duration_ns};
use chapter_01::machine::Machine;
use serde_json::{Value, json};
use std::future::Future;
use std::hint::black_box;
use std::time::{Duration, Instant};

/// Tasks in the contended workloads: several per worker, so that the
/// mutex's line is never empty and the hand-off path is what is measured.
const CONTENDERS: usize = 16;

/// Permits in the contended semaphore workload: fewer than the contenders.
const PERMITS: usize = 4;

/// How long the comparison runs.
pub struct Config {
    /// Worker threads in each runtime.
    pub workers: usize,
    /// Rounds per primitive.
    pub rounds: usize,
    /// Each sample repeats its workload until it lasts about this long.
    pub sample: Duration,
    /// Tasks spawned and joined in each `JoinSet` sample (a fixed count,
    /// not sized by `sample`: the issue asks for a set of 100,000).
    pub joinset_tasks: usize,
}

/// One benchmarked workload.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Primitive {
    MutexUncontended,
    MutexContended,
    /// [`CONTENDERS`] tasks that yield once while holding the lock.
    MutexAwaitHeld,
    SemaphoreUncontended,
    SemaphoreContended,
    StdMutexUncontended,
    StdMutexContended,
    /// Spawn `ops` tasks into a `JoinSet` and join them all.
    JoinSet,
    /// One sender, a bounded channel of 256.
    MpscBounded1,
    /// Eight senders, a bounded channel of 256.
    MpscBounded8,
    /// One sender, an unbounded channel.
    MpscUnbounded1,
    /// Eight senders, an unbounded channel.
    MpscUnbounded8,
}

const ALL: [Primitive; 12] = [
    Primitive::MutexUncontended,
    Primitive::MutexContended,
    Primitive::MutexAwaitHeld,
    Primitive::SemaphoreUncontended,
    Primitive::SemaphoreContended,
    Primitive::StdMutexUncontended,
    Primitive::StdMutexContended,
    Primitive::JoinSet,
    Primitive::MpscBounded1,
    Primitive::MpscBounded8,
    Primitive::MpscUnbounded1,
    Primitive::MpscUnbounded8,
];

impl Primitive {
    /// A row that runs `std::sync::Mutex` on both runtimes: a reference
    /// beside the races, not one of them.
    fn is_reference(self) -> bool {
        matches!(
            self,
            Primitive::StdMutexUncontended | Primitive::StdMutexContended
        )
    }

    fn name(self) -> &'static str {
        match self {
            Primitive::MutexUncontended => "mutex_uncontended",
            Primitive::MutexContended => "mutex_contended",
            Primitive::MutexAwaitHeld => "mutex_await_held",
            Primitive::SemaphoreUncontended => "semaphore_uncontended",
            Primitive::SemaphoreContended => "semaphore_contended",
            Primitive::StdMutexUncontended => "std_mutex_uncontended",
            Primitive::StdMutexContended => "std_mutex_contended",
            Primitive::JoinSet => "joinset_spawn_join",
            Primitive::MpscBounded1 => "mpsc_bounded_1_sender",
            Primitive::MpscBounded8 => "mpsc_bounded_8_senders",
            Primitive::MpscUnbounded1 => "mpsc_unbounded_1_sender",
            Primitive::MpscUnbounded8 => "mpsc_unbounded_8_senders",
        }
    }
}

/// The same workload code for both runtimes; only the lock types differ.
macro_rules! workloads {
    ($module:ident, $($sync:ident)::+, $($task:ident)::+) => {
        mod $module {
            use super::*;
            use $($sync)::+::{Mutex, Semaphore, mpsc};
            use $($task)::+::JoinSet;
            use std::sync::Arc;

            /// Runs `ops` operations of `primitive` in tasks on `spawner`.
            pub async fn run<S: Spawner>(spawner: S, primitive: Primitive, ops: usize) {
                match primitive {
                    Primitive::MutexUncontended => {
                        spawner.spawn(async move {
                            let mutex = Mutex::new(0u64);
                            for _ in 0..ops {
                                *mutex.lock().await += 1;
                            }
                            black_box(mutex.into_inner());
                        }).await
                    }
                    Primitive::MutexContended => {
                        let mutex = Arc::new(Mutex::new(0u64));
                        let each = ops / CONTENDERS;
                        contend(&spawner, |_| {
                            let mutex = mutex.clone();
                            async move {
                                for _ in 0..each {
                                    *mutex.lock().await += 1;
                                }
                            }
                        }).await;
                        assert_eq!(*mutex.lock().await, (each * CONTENDERS) as u64);
                    }
                    Primitive::MutexAwaitHeld => {
                        let mutex = Arc::new(Mutex::new(0u64));
                        let each = ops / CONTENDERS;
                        contend(&spawner, |_| {
                            let mutex = mutex.clone();
                            async move {
                                for _ in 0..each {
                                    let mut guard = mutex.lock().await;
                                    // The section awaits: the guard is held
                                    // across a trip through the run queue,
                                    // and every other contender queues up
                                    // behind it in the mutex's line.
                                    $($task)::+::yield_now().await;
                                    *guard += 1;
                                }
                            }
                        }).await;
                        assert_eq!(*mutex.lock().await, (each * CONTENDERS) as u64);
                    }
                    Primitive::SemaphoreUncontended => {
                        spawner.spawn(async move {
                            let sem = Semaphore::new(1);
                            for _ in 0..ops {
                                drop(black_box(sem.acquire().await.unwrap()));
                            }
                        }).await
                    }
                    Primitive::SemaphoreContended => {
                        let sem = Arc::new(Semaphore::new(PERMITS));
                        let each = ops / CONTENDERS;
                        contend(&spawner, |_| {
                            let sem = sem.clone();
                            async move {
                                for _ in 0..each {
                                    drop(black_box(sem.acquire().await.unwrap()));
                                }
                            }
                        }).await;
                        assert_eq!(sem.available_permits(), PERMITS);
                    }
                    Primitive::StdMutexUncontended => {
                        spawner.spawn(async move {
                            let mutex = std::sync::Mutex::new(0u64);
                            for _ in 0..ops {
                                *mutex.lock().unwrap() += 1;
                            }
                            black_box(mutex.into_inner().unwrap());
                        }).await
                    }
                    Primitive::StdMutexContended => {
                        let mutex = Arc::new(std::sync::Mutex::new(0u64));
                        let each = ops / CONTENDERS;
                        let yielder = spawner.clone();
                        contend(&spawner, |_| {
                            let mutex = mutex.clone();
                            let yielder = yielder.clone();
                            async move {
                                for i in 0..each {
                                    *mutex.lock().unwrap() += 1;
                                    // An async lock yields when it waits;
                                    // give the std one a comparable chance
                                    // to interleave the tasks.
                                    if i % 128 == 127 {
                                        yielder.yield_now().await;
                                    }
                                }
                            }
                        }).await;
                        assert_eq!(*mutex.lock().unwrap(), (each * CONTENDERS) as u64);
                    }
                    Primitive::JoinSet => {
                        spawner.spawn(async move {
                            let mut set = JoinSet::new();
                            for i in 0..ops as u64 {
                                set.spawn(async move { black_box(i) });
                            }
                            let mut total = 0;
                            while let Some(output) = set.join_next().await {
                                total += output.unwrap();
                            }
                            assert_eq!(total, (ops as u64) * (ops as u64 - 1) / 2);
                        }).await
                    }
                    Primitive::MpscBounded1 | Primitive::MpscBounded8 => {
                        let senders = if primitive == Primitive::MpscBounded1 { 1 } else { 8 };
                        let (tx, mut rx) = mpsc::channel::<u64>(256);
                        let each = ops / senders;
                        for _ in 0..senders {
                            let tx = tx.clone();
                            spawner.spawn_detached(async move {
                                for i in 0..each as u64 {
                                    tx.send(i).await.unwrap();
                                }
                            });
                        }
                        drop(tx);
                        spawner.spawn(async move {
                            let mut received = 0;
                            while rx.recv().await.is_some() {
                                received += 1;
                            }
                            assert_eq!(received, each * senders);
                        }).await
                    }
                    Primitive::MpscUnbounded1 | Primitive::MpscUnbounded8 => {
                        let senders = if primitive == Primitive::MpscUnbounded1 { 1 } else { 8 };
                        let (tx, mut rx) = mpsc::unbounded_channel::<u64>();
                        let each = ops / senders;
                        for _ in 0..senders {
                            let tx = tx.clone();
                            spawner.spawn_detached(async move {
                                for i in 0..each as u64 {
                                    tx.send(i).unwrap();
                                }
                            });
                        }
                        drop(tx);
                        spawner.spawn(async move {
                            let mut received = 0;
                            while rx.recv().await.is_some() {
                                received += 1;
                            }
                            assert_eq!(received, each * senders);
                        }).await
                    }
                }
            }
        }
    };
}

workloads!(ours_locks, rt::sync, rt::task);
workloads!(tokio_locks, tokio::sync, tokio::task);

/// Spawns [`CONTENDERS`] tasks made by `task` and waits for all.
async fn contend<S, F, Fut>(spawner: &S, task: F)
where
    S: Spawner,
    F: Fn(usize) -> Fut,
    Fut: Future<Output = ()> + Send + 'static,
{
    let handles: Vec<_> = (0..CONTENDERS).map(|i| spawner.spawn(task(i))).collect();
    for handle in handles {
        handle.await;
    }
}

/// A runtime with its own lock types.
trait WithLocks: Runtime {
    fn run(&self, primitive: Primitive, ops: usize);
}

impl WithLocks for Ours {
    fn run(&self, primitive: Primitive, ops: usize) {
        self.block_on(ours_locks::run(self.spawner(), primitive, ops));
    }
}

impl WithLocks for Tokio {
    fn run(&self, primitive: Primitive, ops: usize) {
        self.block_on(tokio_locks::run(self.spawner(), primitive, ops));
    }
}

/// Nanoseconds per operation of one sample of `ops` operations.
fn sample<R: WithLocks>(rt: &R, primitive: Primitive, ops: usize) -> f64 {
    let start = Instant::now();
    rt.run(primitive, ops);
    start.elapsed().as_nanos() as f64 / ops as f64
}

struct Row {
    primitive: Primitive,
    ops: usize,
    ours_ns: f64,
    tokio_ns: f64,
    vs_tokio: f64,
    /// Smallest and largest per-round ratio.
    range: (f64, f64),
}

/// Runs the comparison; prints a table (or returns JSON).
pub fn run(console: &Console, config: &Config) -> Value {
    let machine = Machine::current();
    console.say(format!(
        "Locks, channels and JoinSet on {} and {}, {} worker threads each; {CONTENDERS} tasks in the contended workloads; {} tasks per JoinSet sample",
        Ours::NAME,
        Tokio::NAME,
        config.workers,
        config.joinset_tasks
    ));
    console.say(format!("Measured on: {}", machine.describe()));
    console.say(format!(
        "{} rounds per primitive, which runtime goes first alternating; each sample about {} ms; a ratio is the median of per-round ratios\n",
        config.rounds,
        config.sample.as_millis()
    ));
    let ours = Ours::start(config.workers);
    let tokio = Tokio::start(config.workers);

    let mut rows = Vec::new();
    for primitive in ALL {
        // Warm up both; size the samples on the slower (the JoinSet's is a
        // fixed number of tasks).
        let probe = 4 * CONTENDERS * 64;
        let slowest = sample(&ours, primitive, probe).max(sample(&tokio, primitive, probe));
        let ops = if primitive == Primitive::JoinSet {
            config.joinset_tasks
        } else {
            ((config.sample.as_nanos() as f64 / slowest) as usize).clamp(CONTENDERS, 10_000_000)
                / CONTENDERS
                * CONTENDERS
        };
        let (mut a, mut b) = (Vec::new(), Vec::new());
        // ANCHOR: alternate
        for round in 0..config.rounds {
            let (x, y) = if round % 2 == 0 {
                let x = sample(&ours, primitive, ops);
                (x, sample(&tokio, primitive, ops))
            } else {
                let y = sample(&tokio, primitive, ops);
                (sample(&ours, primitive, ops), y)
            };
            a.push(x);
            b.push(y);
        }
        // ANCHOR_END: alternate
        let ratios: Vec<f64> = a.iter().zip(&b).map(|(x, y)| x / y).collect();
        let range = (
            ratios.iter().copied().fold(f64::INFINITY, f64::min),
            ratios.iter().copied().fold(0.0, f64::max),
        );
        let row = Row {
            primitive,
            ops,
            ours_ns: median(a),
            tokio_ns: median(b),
            vs_tokio: median(ratios),
            range,
        };
        console.say(format!(
            "  {:<24} ours {:>9}/op   tokio {:>9}/op   ours/tokio {:>5.2}  (rounds {:.2} to {:.2})",
            primitive.name(),
            human_duration_ns(row.ours_ns),
            human_duration_ns(row.tokio_ns),
            row.vs_tokio,
            row.range.0,
            row.range.1
        ));
        rows.push(row);
    }
    let worst = rows
        .iter()
        .filter(|row| !row.primitive.is_reference())
        .map(|row| row.vs_tokio)
        .fold(0.0, f64::max);
    console.say(format!(
        "\nWorst ratio of ours against Tokio's: {worst:.2} (lower is better; the goal is at most 1.0, the bar 1.5).\nThe std_mutex rows use std::sync::Mutex on both runtimes (a reference, not a race)."
    ));

    json!({
        "experiment": "sync",
        "workers": config.workers,
        "rounds": config.rounds,
        "contenders": CONTENDERS,
        "joinset_tasks": config.joinset_tasks,
        "machine": machine.describe(),
        "worst_ratio_vs_tokio": round3(worst),
        "results": rows.iter().map(|row| {
            let mut result = json!({
                "primitive": row.primitive.name(),
                "ours_ns_per_op": round3(row.ours_ns),
                "tokio_ns_per_op": round3(row.tokio_ns),
                "ratio_is": "median of per-round ratios",
                "ratio_range": [round3(row.range.0), round3(row.range.1)],
                "ops_per_sample": row.ops,
            });
            // The std rows run the same std::sync::Mutex on both runtimes:
            // a reference for the page's question, not a race of ours
            // against Tokio's, so their ratio goes by another name.
            let key = if row.primitive.is_reference() {
                "reference_ratio_vs_tokio"
            } else {
                "ratio_vs_tokio"
            };
            result[key] = json!(round3(row.vs_tokio));
            result["race"] = json!(!row.primitive.is_reference());
            result
        }).collect::<Vec<_>>(),
    })
}
