//! The blocking pool: results, panics, the thread cap, keep-alive, and
//! shutdown with jobs still queued.
#![cfg(not(loom))]
#![cfg(not(miri))]

use rt::Builder;
use rt::task;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

#[test]
fn spawn_blocking_runs_on_a_pool_thread_and_returns_its_value() {
    let rt = Builder::new_multi_thread()
        .worker_threads(1)
        .thread_name("w")
        .build()
        .unwrap();
    let (value, name) = rt
        .block_on(rt.spawn(async {
            task::spawn_blocking(|| (6 * 7, std::thread::current().name().map(str::to_string)))
                .await
                .unwrap()
        }))
        .unwrap();
    assert_eq!(value, 42);
    assert_eq!(name.as_deref(), Some("w"));
}

#[test]
fn a_panicking_job_is_a_join_error() {
    let rt = Builder::new_multi_thread()
        .worker_threads(1)
        .build()
        .unwrap();
    let error = rt
        .block_on(rt.spawn_blocking(|| panic!("blocking job failed")))
        .unwrap_err();
    assert!(error.is_panic());
    // The pool still works.
    assert_eq!(rt.block_on(rt.spawn_blocking(|| 1)).unwrap(), 1);
}

#[test]
fn the_pool_never_exceeds_its_cap_and_runs_every_job() {
    let rt = Builder::new_multi_thread()
        .worker_threads(1)
        .max_blocking_threads(4)
        .build()
        .unwrap();
    let running = Arc::new(AtomicUsize::new(0));
    let most = Arc::new(AtomicUsize::new(0));
    let jobs: Vec<_> = (0..40)
        .map(|_| {
            let (running, most) = (running.clone(), most.clone());
            rt.spawn_blocking(move || {
                let now = running.fetch_add(1, Ordering::SeqCst) + 1;
                most.fetch_max(now, Ordering::SeqCst);
                std::thread::sleep(Duration::from_millis(2));
                running.fetch_sub(1, Ordering::SeqCst);
            })
        })
        .collect();
    for job in jobs {
        rt.block_on(job).unwrap();
    }
    assert!(most.load(Ordering::SeqCst) <= 4);
    assert!(rt.metrics().num_blocking_threads() <= 4);
    // A pool thread counts a job as completed after running it, and running
    // it is what wakes the JoinHandle: the last job's count may land a moment
    // after `block_on` returns. Wait for it (bounded: a lost count fails).
    let deadline = Instant::now() + Duration::from_secs(10);
    while rt.metrics().blocking_completed_count() < 40 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(1));
    }
    assert_eq!(rt.metrics().blocking_completed_count(), 40);
}

#[test]
fn idle_threads_leave_after_the_keep_alive() {
    let rt = Builder::new_multi_thread()
        .worker_threads(1)
        .thread_keep_alive(Duration::from_millis(20))
        .build()
        .unwrap();
    rt.block_on(rt.spawn_blocking(|| ())).unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    while rt.metrics().num_blocking_threads() > 0 {
        assert!(Instant::now() < deadline, "the idle thread never left");
        std::thread::sleep(Duration::from_millis(5));
    }
    // And a new job starts a new thread.
    assert_eq!(rt.block_on(rt.spawn_blocking(|| 3)).unwrap(), 3);
}

#[test]
fn shutdown_cancels_queued_jobs_and_waits_for_running_ones() {
    struct Token(Arc<AtomicUsize>);
    impl Drop for Token {
        fn drop(&mut self) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }
    let started = Arc::new(AtomicUsize::new(0));
    let ran = Arc::new(AtomicUsize::new(0));
    let dropped = Arc::new(AtomicUsize::new(0));
    {
        let rt = Builder::new_multi_thread()
            .worker_threads(1)
            .max_blocking_threads(1)
            .build()
            .unwrap();
        for _ in 0..10 {
            let (started, ran, token) = (started.clone(), ran.clone(), Token(dropped.clone()));
            drop(rt.spawn_blocking(move || {
                let _token = token;
                started.fetch_add(1, Ordering::SeqCst);
                std::thread::sleep(Duration::from_millis(100));
                ran.fetch_add(1, Ordering::SeqCst);
            }));
        }
        // Shut down while the first job runs: wait (bounded) until it has
        // started, not a fixed 5 ms that a loaded machine may not give the
        // pool's new thread.
        let deadline = Instant::now() + Duration::from_secs(10);
        while started.load(Ordering::SeqCst) == 0 {
            assert!(Instant::now() < deadline, "no blocking job ever started");
            std::thread::sleep(Duration::from_millis(1));
        }
    }
    // One thread: the first job (at least) ran to the end; the queued rest
    // were cancelled; every closure was dropped exactly once.
    let ran = ran.load(Ordering::SeqCst);
    assert!((1..10).contains(&ran), "ran {ran}");
    assert_eq!(dropped.load(Ordering::SeqCst), 10);
}

/// A worker parked in the driver wakes its own tasks there (timers) while a
/// remote wake-up (a spawn from another thread, a blocking job finishing)
/// takes it off the sleepers list. A bug once let the idle bookkeeping count
/// the worker as searching for ever when both happened at once; after that
/// no parked worker was woken again and the runtime hung. This is the
/// `blocking` experiment's shape, which hung every time under that bug.
#[test]
fn remote_wakes_and_timer_wakes_together_lose_nothing() {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for round in 0..3 {
            let rt = Builder::new_multi_thread()
                .worker_threads(1)
                .build()
                .unwrap();
            let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
            let stopper = stop.clone();
            let blocker = rt.spawn(async move {
                while !stopper.load(Ordering::Relaxed) {
                    if round == 1 {
                        task::spawn_blocking(|| std::thread::sleep(Duration::from_millis(20)))
                            .await
                            .unwrap();
                    } else {
                        std::thread::sleep(Duration::from_millis(20));
                    }
                    rt::time::sleep(Duration::from_millis(10)).await;
                }
            });
            let ticks = rt
                .block_on(rt.spawn(async {
                    let start = Instant::now();
                    let mut ticks = 0;
                    while start.elapsed() < Duration::from_millis(300) {
                        rt::time::sleep(Duration::from_millis(1)).await;
                        ticks += 1;
                    }
                    ticks
                }))
                .unwrap();
            stop.store(true, Ordering::Relaxed);
            rt.block_on(blocker).unwrap();
            assert!(ticks > 0);
        }
        let _ = tx.send(());
    });
    rx.recv_timeout(Duration::from_secs(120))
        .expect("a wake-up was lost: the runtime hung");
}
