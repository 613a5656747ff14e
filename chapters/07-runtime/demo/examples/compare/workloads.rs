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
//!
//! Where a workload waits for its tasks, the thread that waits blocks on a
//! std channel, as Tokio's benchmark does. On a current-thread runtime that
//! thread is the one that runs the tasks, so for the current-thread
//! comparison ([`set_current_thread`]) every runtime awaits the same signal
//! inside `block_on` instead.

use super::runtimes::{Runtime, Spawner};
use futures::StreamExt;
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
    let (tx, mut rx) = done_channel(1000);
    let remaining = Arc::new(AtomicUsize::new(NUM_SPAWN));
    let spawner = rt.spawner();
    rt.block_on(async move {
        for _ in 0..NUM_SPAWN {
            let tx = tx.clone();
            let remaining = remaining.clone();
            spawner.spawn_detached(async move {
                if remaining.fetch_sub(1, Ordering::Relaxed) == 1 {
                    tx.send();
                }
            });
        }
        rx.recv(1).await;
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
    let (tx, rx) = done_channel(YIELD_TASKS);
    let spawner = rt.spawner();
    for _ in 0..YIELD_TASKS {
        let tx = tx.clone();
        let yielder = spawner.clone();
        spawner.spawn_detached(async move {
            for _ in 0..NUM_YIELD {
                yielder.yield_now().await;
            }
            tx.send();
        });
    }
    rx.wait_outside(rt, YIELD_TASKS);
}

fn ping_pong<R: Runtime>(rt: &R) {
    let (done_tx, mut done_rx) = done_channel(1000);
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
                        done_tx.send();
                    }
                });
            }
        });
        done_rx.recv(1).await;
    });
}

fn chained_spawn<R: Runtime>(rt: &R) {
    fn iter<S: Spawner>(spawner: S, done: DoneTx, n: usize) {
        if n == 0 {
            done.send();
        } else {
            let next = spawner.clone();
            spawner.spawn_detached(async move { iter(next, done, n - 1) });
        }
    }
    let (done_tx, mut done_rx) = done_channel(1000);
    let spawner = rt.spawner();
    rt.block_on(async move {
        let first = spawner.clone();
        spawner.spawn_detached(async move { iter(first, done_tx, CHAIN) });
        done_rx.recv(1).await;
    });
}

/// Where a workload's tasks say they are done.
#[derive(Clone)]
enum DoneTx {
    /// To a thread that blocks (workers run the tasks).
    Thread(mpsc::SyncSender<()>),
    /// To a future in `block_on` (the current-thread comparison).
    Task(futures::channel::mpsc::UnboundedSender<()>),
}

impl DoneTx {
    fn send(&self) {
        match self {
            DoneTx::Thread(tx) => tx.send(()).unwrap(),
            DoneTx::Task(tx) => tx.unbounded_send(()).unwrap(),
        }
    }
}

/// The waiting end of a [`DoneTx`].
enum DoneRx {
    Thread(mpsc::Receiver<()>),
    Task(futures::channel::mpsc::UnboundedReceiver<()>),
}

/// A done channel of the kind [`set_current_thread`] chose; `bound` is the
/// std channel's capacity.
fn done_channel(bound: usize) -> (DoneTx, DoneRx) {
    if current_thread() {
        let (tx, rx) = futures::channel::mpsc::unbounded();
        (DoneTx::Task(tx), DoneRx::Task(rx))
    } else {
        let (tx, rx) = mpsc::sync_channel(bound);
        (DoneTx::Thread(tx), DoneRx::Thread(rx))
    }
}

impl DoneRx {
    /// Waits for `n` signals, inside `block_on` (blocking its thread if the
    /// signal goes to a thread).
    async fn recv(&mut self, n: usize) {
        for _ in 0..n {
            match self {
                DoneRx::Thread(rx) => rx.recv().unwrap(),
                DoneRx::Task(rx) => rx.next().await.unwrap(),
            }
        }
    }

    /// Waits for `n` signals outside `block_on`: on this thread, or in
    /// `block_on` if the signal goes to a future.
    fn wait_outside<R: Runtime>(mut self, rt: &R, n: usize) {
        match self {
            DoneRx::Thread(ref rx) => {
                for _ in 0..n {
                    rx.recv().unwrap();
                }
            }
            DoneRx::Task(_) => rt.block_on(self.recv(n)),
        }
    }
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

impl Background {
    /// Stops the tasks. On a current-thread runtime they only see the stop
    /// while a thread is in `block_on`, so this waits for them in there.
    pub fn stop<R: Runtime>(self, rt: &R) {
        self.running.store(false, Ordering::Relaxed);
        if current_thread() {
            let alive = self.alive.clone();
            rt.block_on(std::future::poll_fn(move |cx| {
                if alive.load(Ordering::SeqCst) == 0 {
                    std::task::Poll::Ready(())
                } else {
                    cx.waker().wake_by_ref();
                    std::task::Poll::Pending
                }
            }));
        }
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

static CURRENT_THREAD: AtomicBool = AtomicBool::new(false);

/// Sets how the workloads wait for their tasks: `true` for the
/// current-thread comparison (await inside `block_on`, whose thread runs the
/// tasks), `false` for the multi-thread one (block the waiting thread).
pub fn set_current_thread(current_thread: bool) {
    CURRENT_THREAD.store(current_thread, Ordering::Relaxed);
}

/// Whether the workloads run in their current-thread form.
pub fn current_thread() -> bool {
    CURRENT_THREAD.load(Ordering::Relaxed)
}
