//! Stress tests: many tasks, many wakes, shutdown under load. Each checks
//! that nothing is lost and nothing is dropped twice; none checks speed.
#![cfg(not(loom))]

use rt::sync::oneshot;
use rt::{Builder, Runtime};
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::task::{Context, Poll, Waker};
use std::thread;
use std::time::Duration;

// ANCHOR: runtime
fn runtime() -> Runtime {
    Builder::new_multi_thread()
        .worker_threads(2)
        .build()
        .unwrap()
}
// ANCHOR_END: runtime

struct Token(Arc<AtomicUsize>);

impl Drop for Token {
    fn drop(&mut self) {
        self.0.fetch_add(1, Ordering::Relaxed);
    }
}

/// Runs `f` on a thread and fails if it has not finished in a few minutes:
/// a hang here is a lost wake-up, and a test should say so, not hang CI.
fn with_deadline<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = mpsc::channel();
    thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(Duration::from_secs(300))
        .expect("the runtime hung: a wake-up was lost")
}

#[test]
fn a_million_tasks_each_run_and_dropped_once() {
    const TASKS: usize = 1_000_000;
    let (ran, drops) = with_deadline(|| {
        let rt = runtime();
        let ran = Arc::new(AtomicUsize::new(0));
        let drops = Arc::new(AtomicUsize::new(0));
        let (ran2, drops2) = (ran.clone(), drops.clone());
        rt.block_on(async move {
            // Spawned from a task, in waves, so the local queues overflow
            // into the inject queue and the other worker steals.
            let spawner = rt::spawn(async move {
                let mut handles = Vec::with_capacity(10_000);
                for _ in 0..TASKS / 10_000 {
                    for _ in 0..10_000 {
                        let token = Token(drops2.clone());
                        let ran = ran2.clone();
                        handles.push(rt::spawn(async move {
                            let _token = token;
                            ran.fetch_add(1, Ordering::Relaxed);
                        }));
                    }
                    for handle in handles.drain(..) {
                        handle.await.unwrap();
                    }
                }
            });
            spawner.await.unwrap();
        });
        let ran = ran.load(Ordering::Relaxed);
        drop(rt);
        (ran, drops.load(Ordering::Relaxed))
    });
    assert_eq!(ran, TASKS);
    assert_eq!(drops, TASKS);
}

#[test]
fn a_million_detached_tasks_spawned_from_outside() {
    const TASKS: usize = 1_000_000;
    let ran = with_deadline(|| {
        let rt = runtime();
        let ran = Arc::new(AtomicUsize::new(0));
        for _ in 0..TASKS {
            let ran = ran.clone();
            // Dropping the JoinHandle at once: the fast-path detach.
            drop(rt.spawn(async move {
                ran.fetch_add(1, Ordering::Relaxed);
            }));
        }
        while rt.metrics().num_alive_tasks() > 0 {
            thread::sleep(Duration::from_millis(1));
        }
        ran.load(Ordering::Relaxed)
    });
    assert_eq!(ran, TASKS);
}

/// Pending until the shared counter reaches `target`; remembers its waker in
/// `slot` for the threads that wake it.
struct CountTo {
    counter: Arc<AtomicU64>,
    target: u64,
    slot: Arc<Mutex<Option<Waker>>>,
    polls: u64,
}

impl Future for CountTo {
    type Output = u64;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<u64> {
        self.polls += 1;
        let mut slot = self.slot.lock().unwrap();
        if slot.is_none() {
            *slot = Some(cx.waker().clone());
        }
        drop(slot);
        if self.counter.load(Ordering::SeqCst) >= self.target {
            Poll::Ready(self.polls)
        } else {
            Poll::Pending
        }
    }
}

#[test]
fn a_million_cross_thread_wakes_lose_none() {
    // Two plain threads each add 500,000 to a counter and wake the task
    // after every add. The task finishes only when it sees the total, so a
    // wake lost after the last add would hang it (and fail the deadline).
    const WAKES: u64 = 1_000_000;
    let polls = with_deadline(|| {
        let rt = runtime();
        let counter = Arc::new(AtomicU64::new(0));
        let slot = Arc::new(Mutex::new(None));
        let task = rt.spawn(CountTo {
            counter: counter.clone(),
            target: WAKES,
            slot: slot.clone(),
            polls: 0,
        });
        let waker: Waker = loop {
            if let Some(waker) = slot.lock().unwrap().clone() {
                break waker;
            }
            thread::yield_now();
        };
        let wakers: Vec<_> = (0..2)
            .map(|_| {
                let (counter, waker) = (counter.clone(), waker.clone());
                thread::spawn(move || {
                    for _ in 0..WAKES / 2 {
                        counter.fetch_add(1, Ordering::SeqCst);
                        waker.wake_by_ref();
                    }
                })
            })
            .collect();
        for waker in wakers {
            waker.join().unwrap();
        }
        rt.block_on(task).unwrap()
    });
    // Wakes that arrive while the task is queued or running coalesce.
    assert!((2..=WAKES + 1).contains(&polls), "polled {polls} times");
}

#[test]
fn shutdown_with_a_hundred_thousand_pending_tasks() {
    const TASKS: usize = 100_000;
    let drops = Arc::new(AtomicUsize::new(0));
    let drops2 = drops.clone();
    with_deadline(move || {
        let rt = runtime();
        let mut senders = Vec::with_capacity(TASKS);
        for i in 0..TASKS {
            let (tx, rx) = oneshot::channel::<()>();
            senders.push(tx);
            let token = Token(drops2.clone());
            let task = async move {
                let _token = token;
                let _ = rx.await;
            };
            // Half from outside (the inject queue), half from a task.
            if i % 2 == 0 {
                rt.spawn(task);
            } else {
                let spawned = rt.spawn(async move { drop(rt::spawn(task)) });
                rt.block_on(spawned).unwrap();
            }
        }
        // Some polled and waiting, some still queued: drop them all.
        drop(rt);
        drop(senders);
    });
    assert_eq!(drops.load(Ordering::Relaxed), TASKS);
}
