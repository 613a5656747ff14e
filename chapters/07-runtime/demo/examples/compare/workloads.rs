//! Tokio's scheduler benchmarks (`benches/rt_multi_threaded.rs` in the Tokio
//! repository), with Tokio's parameters, written once against the
//! [`Runtime`] trait so the same code runs on every runtime.
//!
//! | workload | what it stresses |
//! |---|---|
//! | `spawn_many_local` | 10,000 spawns from `block_on`, each task a counter decrement |
//! | `spawn_many_remote_idle` | 10,000 spawns from a plain thread into an idle runtime, then join all |
//! | `spawn_many_remote_busy1` | the same while 2 tasks per worker yield and stall 10 µs in a loop (Tokio: 8 tasks on its 4 workers) |
//! | `yield_many` | 200 tasks x 1,000 `yield_now` |
//! | `ping_pong` | 1,000 pings, each 2 tasks and 2 oneshot channels |
//! | `chained_spawn` | a chain of 1,000 tasks, each spawning the next |

use super::runtimes::{Runtime, Spawner};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, mpsc};
use std::time::{Duration, Instant};

/// The workloads, in the order they are reported.
pub const ALL: [Workload; 6] = [
    Workload::SpawnManyLocal,
    Workload::SpawnManyRemoteIdle,
    Workload::SpawnManyRemoteBusy1,
    Workload::YieldMany,
    Workload::PingPong,
    Workload::ChainedSpawn,
];

const NUM_SPAWN: usize = 10_000;
const YIELD_TASKS: usize = 200;
const NUM_YIELD: usize = 1_000;
const NUM_PINGS: usize = 1_000;
const CHAIN: usize = 1_000;
const STALL: Duration = Duration::from_micros(10);

/// One of Tokio's scheduler workloads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Workload {
    /// 10,000 spawns from `block_on`.
    SpawnManyLocal,
    /// 10,000 spawns from outside into an idle runtime.
    SpawnManyRemoteIdle,
    /// 10,000 spawns from outside into a busy runtime.
    SpawnManyRemoteBusy1,
    /// 200 tasks x 1,000 yields.
    YieldMany,
    /// 1,000 request/response pairs of tasks.
    PingPong,
    /// A chain of 1,000 spawns.
    ChainedSpawn,
}

impl Workload {
    /// The name Tokio's benchmark uses.
    pub fn name(self) -> &'static str {
        match self {
            Workload::SpawnManyLocal => "spawn_many_local",
            Workload::SpawnManyRemoteIdle => "spawn_many_remote_idle",
            Workload::SpawnManyRemoteBusy1 => "spawn_many_remote_busy1",
            Workload::YieldMany => "yield_many",
            Workload::PingPong => "ping_pong",
            Workload::ChainedSpawn => "chained_spawn",
        }
    }

    /// Starts what runs beside the timed part (the busy tasks of busy1);
    /// stopped when the returned value is dropped.
    pub fn background<R: Runtime>(self, rt: &R) -> Option<Background> {
        match self {
            Workload::SpawnManyRemoteBusy1 => Some(Background::busy(rt)),
            _ => None,
        }
    }

    /// Runs the workload once (the timed part).
    pub fn run<R: Runtime>(self, rt: &R) {
        match self {
            Workload::SpawnManyLocal => spawn_many_local(rt),
            Workload::SpawnManyRemoteIdle | Workload::SpawnManyRemoteBusy1 => spawn_many_remote(rt),
            Workload::YieldMany => yield_many(rt),
            Workload::PingPong => ping_pong(rt),
            Workload::ChainedSpawn => chained_spawn(rt),
        }
    }
}

fn spawn_many_local<R: Runtime>(rt: &R) {
    let (tx, rx) = mpsc::sync_channel(1000);
    let remaining = Arc::new(AtomicUsize::new(NUM_SPAWN));
    let spawner = rt.spawner();
    rt.block_on(async move {
        for _ in 0..NUM_SPAWN {
            let tx = tx.clone();
            let remaining = remaining.clone();
            spawner.spawn_detached(async move {
                if remaining.fetch_sub(1, Ordering::Relaxed) == 1 {
                    tx.send(()).unwrap();
                }
            });
        }
        rx.recv().unwrap();
    });
}

fn spawn_many_remote<R: Runtime>(rt: &R) {
    let spawner = rt.spawner();
    let handles: Vec<_> = (0..NUM_SPAWN).map(|_| spawner.spawn(async {})).collect();
    rt.block_on(async move {
        for handle in handles {
            handle.await;
        }
    });
}

fn yield_many<R: Runtime>(rt: &R) {
    let (tx, rx) = mpsc::sync_channel(YIELD_TASKS);
    let spawner = rt.spawner();
    for _ in 0..YIELD_TASKS {
        let tx = tx.clone();
        let yielder = spawner.clone();
        spawner.spawn_detached(async move {
            for _ in 0..NUM_YIELD {
                yielder.yield_now().await;
            }
            tx.send(()).unwrap();
        });
    }
    for _ in 0..YIELD_TASKS {
        rx.recv().unwrap();
    }
}

fn ping_pong<R: Runtime>(rt: &R) {
    let (done_tx, done_rx) = mpsc::sync_channel(1000);
    let remaining = Arc::new(AtomicUsize::new(NUM_PINGS));
    let spawner = rt.spawner();
    rt.block_on(async move {
        let outer = spawner.clone();
        spawner.spawn_detached(async move {
            for _ in 0..NUM_PINGS {
                let remaining = remaining.clone();
                let done_tx = done_tx.clone();
                let inner = outer.clone();
                outer.spawn_detached(async move {
                    let (tx1, rx1) = futures::channel::oneshot::channel::<()>();
                    let (tx2, rx2) = futures::channel::oneshot::channel::<()>();
                    inner.spawn_detached(async move {
                        rx1.await.unwrap();
                        tx2.send(()).unwrap();
                    });
                    tx1.send(()).unwrap();
                    rx2.await.unwrap();
                    if remaining.fetch_sub(1, Ordering::Relaxed) == 1 {
                        done_tx.send(()).unwrap();
                    }
                });
            }
        });
        done_rx.recv().unwrap();
    });
}

fn chained_spawn<R: Runtime>(rt: &R) {
    fn iter<S: Spawner>(spawner: S, done: mpsc::SyncSender<()>, n: usize) {
        if n == 0 {
            done.send(()).unwrap();
        } else {
            let next = spawner.clone();
            spawner.spawn_detached(async move { iter(next, done, n - 1) });
        }
    }
    let (done_tx, done_rx) = mpsc::sync_channel(1000);
    let spawner = rt.spawner();
    rt.block_on(async move {
        let first = spawner.clone();
        spawner.spawn_detached(async move { iter(first, done_tx, CHAIN) });
        done_rx.recv().unwrap();
    });
}

/// Tasks that keep a runtime busy: each yields, then stalls its worker
/// for 10 µs (Tokio's `stall`: spin on `thread::yield_now`), until stopped.
pub struct Background {
    running: Arc<AtomicBool>,
    alive: Arc<AtomicUsize>,
}

impl Background {
    fn busy<R: Runtime>(rt: &R) -> Background {
        let running = Arc::new(AtomicBool::new(true));
        let alive = Arc::new(AtomicUsize::new(0));
        let spawner = rt.spawner();
        // Tokio's benchmark runs 2 per worker; the runtimes all have the
        // same worker count, which the spawner does not expose, so the
        // caller's worker count is read from the environment of the run.
        for _ in 0..2 * workers() {
            let running = running.clone();
            let alive = alive.clone();
            let yielder = spawner.clone();
            alive.fetch_add(1, Ordering::SeqCst);
            spawner.spawn_detached(async move {
                while running.load(Ordering::Relaxed) {
                    yielder.yield_now().await;
                    stall();
                }
                alive.fetch_sub(1, Ordering::SeqCst);
            });
        }
        Background { running, alive }
    }
}

impl Drop for Background {
    fn drop(&mut self) {
        self.running.store(false, Ordering::Relaxed);
        let deadline = Instant::now() + Duration::from_secs(30);
        while self.alive.load(Ordering::SeqCst) > 0 && Instant::now() < deadline {
            std::thread::sleep(Duration::from_micros(100));
        }
    }
}

fn stall() {
    let start = Instant::now();
    while start.elapsed() < STALL {
        std::thread::yield_now();
    }
}

static WORKERS: AtomicUsize = AtomicUsize::new(2);

/// Sets the worker count the background tasks are sized for.
pub fn set_workers(workers: usize) {
    WORKERS.store(workers, Ordering::Relaxed);
}

fn workers() -> usize {
    WORKERS.load(Ordering::Relaxed)
}
