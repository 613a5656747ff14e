//! The runtime's behaviour as a user sees it: spawning, joining, panics,
//! abort, the LIFO slot, stealing past a blocked worker, the inject queue's
//! fairness interval, shutdown, and the channels.
//!
//! No test asserts on time. Where a test waits for something that must
//! happen (a steal, a fair turn), it waits with a generous deadline and fails
//! only if the thing never happens, which is a bug, not a slow machine.
#![cfg(not(loom))]

use rt::sync::{mpsc, oneshot};
use rt::task::{self, JoinError};
use rt::{Builder, Handle, Runtime};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::thread;
use std::time::{Duration, Instant};

fn runtime(workers: usize) -> Runtime {
    Builder::new_multi_thread()
        .worker_threads(workers)
        .build()
        .unwrap()
}

/// Spins (yielding the thread, not the task) until `done` or a deadline far
/// beyond anything a healthy runtime needs; returns whether `done` came true.
fn wait_until(done: impl Fn() -> bool) -> bool {
    let deadline = Instant::now() + Duration::from_secs(30);
    while !done() {
        if Instant::now() > deadline {
            return false;
        }
        thread::yield_now();
    }
    true
}

/// Counts drops of the futures it is moved into.
#[derive(Clone, Default)]
struct Drops(Arc<AtomicUsize>);

struct Token(Arc<AtomicUsize>);

impl Drop for Token {
    fn drop(&mut self) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

impl Drops {
    fn token(&self) -> Token {
        Token(self.0.clone())
    }
    fn count(&self) -> usize {
        self.0.load(Ordering::SeqCst)
    }
}

#[test]
fn block_on_runs_a_future_and_spawned_tasks_return_their_output() {
    let rt = runtime(2);
    let sum = rt.block_on(async {
        let handles: Vec<_> = (0..100u64)
            .map(|i| rt::spawn(async move { i * i }))
            .collect();
        let mut sum = 0;
        for handle in handles {
            sum += handle.await.unwrap();
        }
        sum
    });
    assert_eq!(sum, (0..100u64).map(|i| i * i).sum::<u64>());
    assert!(wait_until(|| rt.metrics().num_alive_tasks() == 0));
    assert_eq!(rt.metrics().spawned_tasks_count(), 100);
}

#[test]
fn tasks_run_on_the_worker_threads() {
    let rt = Builder::new_multi_thread()
        .worker_threads(2)
        .thread_name("tw")
        .build()
        .unwrap();
    let name = rt.block_on(rt.spawn(async { thread::current().name().map(str::to_string) }));
    let name = name.unwrap().unwrap();
    // As in Tokio, an explicit name is every thread's name.
    assert_eq!(name, "tw");
}

#[test]
fn a_panicking_task_becomes_a_join_error_and_the_runtime_carries_on() {
    let rt = runtime(2);
    let error: JoinError = rt
        .block_on(rt.spawn(async { panic!("task failed on purpose") }))
        .unwrap_err();
    assert!(error.is_panic());
    assert!(error.to_string().contains("task failed on purpose"));
    // Still serving.
    assert_eq!(rt.block_on(rt.spawn(async { 1 })).unwrap(), 1);
}

#[test]
fn abort_cancels_a_waiting_task_and_drops_its_future() {
    let rt = runtime(2);
    let drops = Drops::default();
    let token = drops.token();
    let (_tx, rx) = oneshot::channel::<()>();
    let handle = rt.spawn(async move {
        let _token = token;
        let _ = rx.await;
    });
    handle.abort();
    let error = rt.block_on(handle).unwrap_err();
    assert!(error.is_cancelled());
    assert_eq!(drops.count(), 1);
}

#[test]
fn a_task_spawned_by_a_running_task_runs_next_on_the_same_worker() {
    // The LIFO slot: the child is not stealable and runs right after the
    // parent's poll, on the parent's thread.
    let rt = runtime(2);
    let (parent, child) = rt
        .block_on(rt.spawn(async {
            let parent = thread::current().id();
            let child = rt::spawn(async { thread::current().id() }).await.unwrap();
            (parent, child)
        }))
        .unwrap();
    assert_eq!(parent, child);
}

#[test]
fn an_idle_worker_steals_what_a_blocked_worker_has_queued() {
    // Task A blocks its worker (a spin, as a bad task would) until B has run.
    // A spawned B, then C: C took the LIFO slot and pushed B to A's ring,
    // where the other worker can steal it. C, in the LIFO slot, cannot be
    // stolen and runs only after A returns.
    let rt = runtime(2);
    let b_ran = Arc::new(AtomicBool::new(false));
    let c_ran = Arc::new(AtomicBool::new(false));
    let (b, c) = (b_ran.clone(), c_ran.clone());
    let result = rt.block_on(rt.spawn(async move {
        let c_seen_by_b = {
            let c = c.clone();
            let b = b.clone();
            rt::spawn(async move {
                b.store(true, Ordering::SeqCst);
                c.load(Ordering::SeqCst)
            })
        };
        let c_task = {
            let c = c.clone();
            rt::spawn(async move { c.store(true, Ordering::SeqCst) })
        };
        let stolen = wait_until(|| b.load(Ordering::SeqCst));
        let c_ran_while_blocked = c.load(Ordering::SeqCst);
        (stolen, c_ran_while_blocked, c_seen_by_b, c_task)
    }));
    let (stolen, c_ran_while_blocked, c_seen_by_b, c_task) = result.unwrap();
    assert!(stolen, "the idle worker never ran the queued task");
    assert!(!c_ran_while_blocked, "the LIFO slot was stolen");
    assert!(!rt.block_on(c_seen_by_b).unwrap());
    rt.block_on(c_task).unwrap();
    assert!(c_ran.load(Ordering::SeqCst));
    let steals: u64 = (0..2).map(|w| rt.metrics().worker_steal_count(w)).sum();
    assert!(steals >= 1);
}

/// Wakes its own task during every poll and returns `Pending`: the worker
/// requeues it at the back of its ring at once, so the ring is never empty.
/// (`yield_now` is gentler: it defers the wake until the worker runs dry.)
struct SelfWaking {
    stop: Arc<AtomicBool>,
    polls: u64,
}

impl std::future::Future for SelfWaking {
    type Output = u64;

    fn poll(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<u64> {
        if self.stop.load(Ordering::SeqCst) {
            return std::task::Poll::Ready(self.polls);
        }
        self.polls += 1;
        cx.waker().wake_by_ref();
        std::task::Poll::Pending
    }
}

#[test]
fn the_inject_queue_is_not_starved_by_a_task_that_keeps_its_worker_busy() {
    // One worker, one task that requeues itself forever: its local queue is
    // never empty, so only the global-queue interval lets the remote task in.
    let rt = Builder::new_multi_thread()
        .worker_threads(1)
        .global_queue_interval(31)
        .build()
        .unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let spinner = rt.spawn(SelfWaking {
        stop: stop.clone(),
        polls: 0,
    });
    // Make sure the spinner is running before the remote task arrives.
    assert!(wait_until(|| rt.metrics().worker_poll_count(0) > 100));
    let stop2 = stop.clone();
    let remote = rt.spawn(async move { stop2.store(true, Ordering::SeqCst) });
    assert!(
        wait_until(|| stop.load(Ordering::SeqCst)),
        "the remote task never ran"
    );
    rt.block_on(remote).unwrap();
    assert!(rt.block_on(spinner).unwrap() > 0);
}

#[test]
fn a_yielding_task_lets_every_queued_task_run_first() {
    // One worker. The yielder first holds the worker until 100 tasks wait
    // in the inject queue, then yields in a loop until all 100 have run.
    // Each yield is deferred until the worker has nothing else to do, so
    // the 100 run before the yielder's second turn.
    let rt = runtime(1);
    let done = Arc::new(AtomicUsize::new(0));
    let started = Arc::new(AtomicBool::new(false));
    let go = Arc::new(AtomicBool::new(false));
    let (done2, started2, go2) = (done.clone(), started.clone(), go.clone());
    let yielder = rt.spawn(async move {
        started2.store(true, Ordering::SeqCst);
        assert!(wait_until(|| go2.load(Ordering::SeqCst)));
        let mut yields = 0;
        while done2.load(Ordering::SeqCst) < 100 {
            task::yield_now().await;
            yields += 1;
        }
        yields
    });
    assert!(wait_until(|| started.load(Ordering::SeqCst)));
    let handles: Vec<_> = (0..100)
        .map(|_| {
            let done = done.clone();
            rt.spawn(async move {
                done.fetch_add(1, Ordering::SeqCst);
            })
        })
        .collect();
    go.store(true, Ordering::SeqCst);
    let yields = rt.block_on(yielder).unwrap();
    for handle in handles {
        rt.block_on(handle).unwrap();
    }
    assert_eq!(yields, 1, "the yielder ran again before the queued tasks");
}

#[test]
fn spawning_from_a_plain_thread_through_a_handle() {
    let rt = runtime(2);
    let handle: Handle = rt.handle().clone();
    let value = thread::spawn(move || {
        let join = handle.spawn(async { 7 });
        let _guard = handle.enter();
        let join2 = rt::spawn(async { 8 });
        (join, join2)
    })
    .join()
    .unwrap();
    assert_eq!(
        rt.block_on(value.0).unwrap() + rt.block_on(value.1).unwrap(),
        15
    );
}

#[test]
fn spawn_outside_a_runtime_panics_with_a_clear_message() {
    let result = std::panic::catch_unwind(|| rt::spawn(async {}));
    let message = result.unwrap_err();
    let message = message
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| message.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_default();
    assert!(message.contains("outside of a runtime"), "{message}");
}

#[test]
fn block_on_inside_a_task_is_refused() {
    let rt = runtime(1);
    let inner = rt.handle().clone();
    let error = rt
        .block_on(rt.spawn(async move { inner.block_on(async { 1 }) }))
        .unwrap_err();
    assert!(error.is_panic());
    assert!(
        error
            .to_string()
            .contains("Cannot start a runtime from within a runtime")
    );
}

#[test]
fn dropping_the_runtime_drops_every_pending_future_once() {
    let drops = Drops::default();
    let mut senders = Vec::new();
    {
        let rt = runtime(2);
        for _ in 0..1000 {
            let (tx, rx) = oneshot::channel::<()>();
            senders.push(tx);
            let token = drops.token();
            rt.spawn(async move {
                let _token = token;
                let _ = rx.await;
            });
        }
        // Some are polled and waiting, some may still be queued.
    }
    assert_eq!(drops.count(), 1000);
    // The receivers are gone with their tasks.
    assert!(senders.iter().all(oneshot::Sender::is_closed));
}

#[test]
fn dropping_the_runtime_while_tasks_run_drops_each_once() {
    let drops = Drops::default();
    {
        let rt = runtime(2);
        for _ in 0..64 {
            let token = drops.token();
            rt.spawn(async move {
                let _token = token;
                loop {
                    task::yield_now().await;
                }
            });
        }
        assert!(wait_until(|| rt.metrics().worker_poll_count(0)
            + rt.metrics().worker_poll_count(1)
            > 1000));
    }
    assert_eq!(drops.count(), 64);
}

#[test]
fn a_task_that_spawns_while_shutdown_drops_it_does_not_leak() {
    struct SpawnOnDrop(Drops);
    impl Drop for SpawnOnDrop {
        fn drop(&mut self) {
            if let Ok(handle) = Handle::try_current() {
                let token = self.0.token();
                handle.spawn(async move {
                    let _token = token;
                });
            }
        }
    }
    let drops = Drops::default();
    {
        let rt = runtime(2);
        let guard = SpawnOnDrop(drops.clone());
        rt.spawn(async move {
            let _guard = guard;
            std::future::pending::<()>().await;
        });
        assert!(wait_until(|| rt.metrics().worker_poll_count(0)
            + rt.metrics().worker_poll_count(1)
            >= 1));
    }
    // The child spawned during shutdown was cancelled (dropped) at once.
    assert_eq!(drops.count(), 1);
}

#[test]
fn oneshot_ping_pong_between_tasks() {
    let rt = runtime(2);
    let rounds = rt.block_on(async {
        let mut rounds = 0;
        for _ in 0..1000 {
            let (tx1, rx1) = oneshot::channel();
            let (tx2, rx2) = oneshot::channel();
            let pong = rt::spawn(async move {
                rx1.await.unwrap();
                tx2.send(()).unwrap();
            });
            tx1.send(()).unwrap();
            rx2.await.unwrap();
            pong.await.unwrap();
            rounds += 1;
        }
        rounds
    });
    assert_eq!(rounds, 1000);
}

#[test]
fn bounded_mpsc_delivers_everything_under_back_pressure() {
    let rt = runtime(2);
    let total = rt.block_on(async {
        let (tx, mut rx) = mpsc::channel::<u64>(8);
        for producer in 0..4u64 {
            let tx = tx.clone();
            rt::spawn(async move {
                for i in 0..2500 {
                    tx.send(producer * 10_000 + i).await.unwrap();
                }
            });
        }
        drop(tx);
        let mut seen = Vec::new();
        while let Some(value) = rx.recv().await {
            seen.push(value);
        }
        seen.sort_unstable();
        seen.dedup();
        seen.len()
    });
    assert_eq!(total, 10_000);
}

#[test]
fn is_finished_and_join_after_completion() {
    let rt = runtime(1);
    let handle = rt.spawn(async { "done" });
    assert!(wait_until(|| handle.is_finished()));
    assert_eq!(rt.block_on(handle).unwrap(), "done");
}

#[test]
fn the_lifo_slot_can_be_switched_off() {
    let rt = Builder::new_multi_thread()
        .worker_threads(1)
        .disable_lifo_slot()
        .build()
        .unwrap();
    rt.block_on(rt.spawn(async {
        for _ in 0..100 {
            rt::spawn(async {}).await.unwrap();
        }
    }))
    .unwrap();
    assert_eq!(rt.metrics().worker_lifo_poll_count(0), 0);

    let rt = runtime(1);
    rt.block_on(rt.spawn(async {
        for _ in 0..100 {
            rt::spawn(async {}).await.unwrap();
        }
    }))
    .unwrap();
    assert!(rt.metrics().worker_lifo_poll_count(0) >= 100);
}
