//! Small complete programs written the way a Tokio user writes them, with
//! `tokio::` spelled `rt::`: a worker pool answering on oneshot channels, a
//! broadcast shutdown ending `select!` loops, a semaphore-limited fan-out
//! collected by a `JoinSet`, a `watch` configuration reload with a
//! `OnceCell` global and a `Barrier` start line, and a retry loop tested in
//! paused time. If `rt` lacks a name or a behaviour one of these relies on,
//! this file stops compiling or fails.
//!
//! Nothing here asserts on wall-clock time: the timed parts run in paused
//! time or only bound how long a test may hang.

#![cfg(not(loom))]
#![cfg(not(miri))]

use rt::sync::{Barrier, Mutex, OnceCell, Semaphore, broadcast, mpsc, oneshot, watch};
use rt::task::JoinSet;
use rt::time::{self, Duration, Instant};
use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

// --- 1. A worker pool: jobs on an mpsc channel, replies on oneshots. ----

/// A request to the pool, with where to send the answer.
enum Command {
    Get {
        key: String,
        reply: oneshot::Sender<Option<u64>>,
    },
    Set {
        key: String,
        value: u64,
        reply: oneshot::Sender<Option<u64>>,
    },
}

/// Starts `workers` tasks sharing one receiver and one store; returns the
/// sender clients use.
fn start_store(workers: usize) -> mpsc::Sender<Command> {
    let (tx, rx) = mpsc::channel::<Command>(32);
    let rx = Arc::new(Mutex::new(rx));
    let store = Arc::new(Mutex::new(HashMap::<String, u64>::new()));
    for _ in 0..workers {
        let (rx, store) = (rx.clone(), store.clone());
        rt::spawn(async move {
            loop {
                // Hold the receiver only to take one command.
                let command = rx.lock().await.recv().await;
                let Some(command) = command else { break };
                match command {
                    Command::Get { key, reply } => {
                        let _ = reply.send(store.lock().await.get(&key).copied());
                    }
                    Command::Set { key, value, reply } => {
                        let _ = reply.send(store.lock().await.insert(key, value));
                    }
                }
            }
        });
    }
    tx
}

#[rt::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_worker_pool_answers_every_client_on_its_oneshot() {
    let store = start_store(3);
    let mut clients = JoinSet::new();
    for client in 0..10u64 {
        let store = store.clone();
        clients.spawn(async move {
            let (reply, answer) = oneshot::channel();
            let key = format!("k{}", client % 5);
            store
                .send(Command::Set {
                    key: key.clone(),
                    value: client,
                    reply,
                })
                .await
                .expect("the pool is running");
            let _previous = answer.await.expect("the pool answers");
            let (reply, answer) = oneshot::channel();
            store
                .send(Command::Get { key, reply })
                .await
                .expect("the pool is running");
            answer.await.expect("the pool answers")
        });
    }
    let mut answered = 0;
    while let Some(result) = clients.join_next().await {
        // Some client set this key (maybe another one, later).
        assert!(result.unwrap().is_some());
        answered += 1;
    }
    assert_eq!(answered, 10);
}

// --- 2. A broadcast shutdown signal ending select! loops. ---------------

/// A task that counts the jobs it receives until told to stop, ticking
/// meanwhile; returns what it counted.
async fn worker(
    mut jobs: mpsc::UnboundedReceiver<u32>,
    mut shutdown: broadcast::Receiver<()>,
) -> (u32, u32) {
    let mut sum = 0;
    let mut ticks = 0;
    let mut tick = time::interval(Duration::from_millis(5));
    tick.set_missed_tick_behavior(time::MissedTickBehavior::Skip);
    loop {
        rt::select! {
            _ = shutdown.recv() => break,
            Some(job) = jobs.recv() => sum += job,
            _ = tick.tick() => ticks += 1,
        }
    }
    // Drain what was sent before the signal.
    while let Ok(job) = jobs.try_recv() {
        sum += job;
    }
    (sum, ticks)
}

#[rt::test(flavor = "multi_thread")]
async fn a_broadcast_signal_stops_every_select_loop() {
    let (stop, _) = broadcast::channel::<()>(1);
    let mut workers = Vec::new();
    let mut senders = Vec::new();
    for _ in 0..3 {
        let (tx, rx) = mpsc::unbounded_channel();
        senders.push(tx);
        workers.push(rt::spawn(worker(rx, stop.subscribe())));
    }
    for (i, tx) in senders.iter().enumerate() {
        for job in 1..=4 {
            tx.send(job * (i as u32 + 1)).unwrap();
        }
    }
    assert_eq!(stop.receiver_count(), 3);
    stop.send(()).unwrap();
    let mut total = 0;
    for handle in workers {
        let (sum, _ticks) = time::timeout(Duration::from_secs(10), handle)
            .await
            .expect("a worker ignored the shutdown signal")
            .unwrap();
        total += sum;
    }
    // 10 + 20 + 30: every job sent before the signal was counted.
    assert_eq!(total, 60);
}

// --- 3. A semaphore-limited fan-out, collected by a JoinSet. ------------

#[rt::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_semaphore_bounds_a_fan_out_and_join_set_collects_it() {
    const LIMIT: usize = 3;
    let permits = Arc::new(Semaphore::new(LIMIT));
    let running = Arc::new(AtomicUsize::new(0));
    let most = Arc::new(AtomicUsize::new(0));
    let mut set = JoinSet::new();
    for n in 0..20u64 {
        let permit = permits.clone().acquire_owned().await.unwrap();
        let (running, most) = (running.clone(), most.clone());
        set.spawn(async move {
            let now = running.fetch_add(1, Ordering::SeqCst) + 1;
            most.fetch_max(now, Ordering::SeqCst);
            rt::task::yield_now().await;
            time::sleep(Duration::from_millis(1)).await;
            running.fetch_sub(1, Ordering::SeqCst);
            drop(permit);
            n * n
        });
    }
    let mut squares = set.join_all().await;
    squares.sort_unstable();
    assert_eq!(squares, (0..20u64).map(|n| n * n).collect::<Vec<_>>());
    assert!(most.load(Ordering::SeqCst) <= LIMIT);
    assert_eq!(permits.available_permits(), LIMIT);
}

// --- 4. watch reload, a OnceCell global, a Barrier start line. ----------

#[derive(Clone, Debug, PartialEq)]
struct Config {
    version: u32,
    greeting: String,
}

/// Loaded once, by whichever task asks first.
static DEFAULTS: OnceCell<Config> = OnceCell::const_new();

async fn defaults() -> &'static Config {
    DEFAULTS
        .get_or_init(|| async {
            rt::task::yield_now().await;
            Config {
                version: 1,
                greeting: "hello".into(),
            }
        })
        .await
}

#[rt::test(flavor = "multi_thread", worker_threads = 2)]
async fn readers_start_together_and_follow_config_reloads() {
    let (config_tx, config_rx) = watch::channel(defaults().await.clone());
    let start = Arc::new(Barrier::new(4));
    let mut readers = JoinSet::new();
    for _ in 0..3 {
        let (mut config, start) = (config_rx.clone(), start.clone());
        readers.spawn(async move {
            assert_eq!(defaults().await.version, 1);
            start.wait().await;
            // Follow reloads until the one that says goodbye.
            let last = config
                .wait_for(|c| c.greeting == "goodbye")
                .await
                .expect("the sender outlives the readers")
                .clone();
            last.version
        });
    }
    // Everyone is at the start line before the first reload.
    start.wait().await;
    for version in 2..=4 {
        config_tx.send_modify(|c| {
            c.version = version;
            c.greeting = if version == 4 { "goodbye" } else { "hi" }.into();
        });
        rt::task::yield_now().await;
    }
    for version in readers.join_all().await {
        assert_eq!(version, 4);
    }
    assert!(!config_tx.is_closed());
}

// --- 5. A retry loop with a deadline, in paused time. -------------------

/// Calls `attempt` until it succeeds, sleeping `backoff` (doubling) between
/// tries, giving up at `deadline`.
async fn retry<F, Fut, T>(mut attempt: F, deadline: Instant) -> Result<T, time::error::Elapsed>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Option<T>>,
{
    time::timeout_at(deadline, async {
        let mut backoff = Duration::from_millis(100);
        loop {
            if let Some(value) = attempt().await {
                return value;
            }
            time::sleep(backoff).await;
            backoff *= 2;
        }
    })
    .await
}

#[rt::test(start_paused = true)]
async fn retries_back_off_and_give_up_at_the_deadline_in_paused_time() {
    let tries = Arc::new(AtomicUsize::new(0));
    let start = Instant::now();
    let counter = tries.clone();
    // Succeeds on the fourth try: after 100 + 200 + 400 ms of back-off.
    let value = retry(
        move || {
            let counter = counter.clone();
            async move { (counter.fetch_add(1, Ordering::SeqCst) == 3).then_some("up") }
        },
        start + Duration::from_secs(5),
    )
    .await
    .unwrap();
    assert_eq!(value, "up");
    assert_eq!(start.elapsed(), Duration::from_millis(700));
    // Never succeeds: the deadline ends it, at exactly the deadline.
    let start = Instant::now();
    let never = retry(|| async { None::<()> }, start + Duration::from_secs(1)).await;
    assert!(never.is_err());
    assert_eq!(start.elapsed(), Duration::from_secs(1));
    // time::advance moves the paused clock by hand.
    let before = Instant::now();
    time::advance(Duration::from_secs(60)).await;
    assert_eq!(before.elapsed(), Duration::from_secs(60));
}
