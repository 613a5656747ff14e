//! The current-thread runtime: `block_on` runs the tasks, the I/O driver and
//! the timers on the calling thread, and a test clock that can be paused.
#![cfg(not(loom))]
#![cfg(not(miri))]

use futures::io::{AsyncReadExt, AsyncWriteExt};
use rt::net::{TcpListener, TcpStream};
use rt::runtime::{Builder, Runtime};
use rt::sync::{mpsc, oneshot};
use rt::time::{self, Duration, Instant};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

fn current_thread() -> Runtime {
    Builder::new_current_thread().enable_all().build().unwrap()
}

fn paused() -> Runtime {
    Builder::new_current_thread()
        .enable_all()
        .start_paused(true)
        .build()
        .unwrap()
}

/// Runs `body` on its own thread and fails if it has not finished in 20 s,
/// so a hang is a failure, not a stuck test run.
fn limit(body: impl FnOnce() + Send + 'static) {
    let (done, finished) = std::sync::mpsc::channel();
    let thread = std::thread::spawn(move || {
        body();
        let _ = done.send(());
    });
    match finished.recv_timeout(std::time::Duration::from_secs(20)) {
        Ok(()) => thread.join().unwrap(),
        Err(_) if thread.is_finished() => {
            // It panicked: report its panic.
            if let Err(panic) = thread.join() {
                std::panic::resume_unwind(panic);
            }
        }
        Err(_) => panic!("the test hung"),
    }
}

#[test]
fn tasks_run_on_the_thread_in_block_on() {
    limit(|| {
        let rt = current_thread();
        let me = std::thread::current().id();
        let on = rt.block_on(async {
            rt::spawn(async { std::thread::current().id() })
                .await
                .unwrap()
        });
        assert_eq!(on, me, "a task ran on another thread");
        assert_eq!(rt.metrics().num_workers(), 1);
    });
}

#[test]
fn tasks_spawned_outside_block_on_wait_for_it() {
    limit(|| {
        let rt = current_thread();
        let count = Arc::new(AtomicUsize::new(0));
        let handles: Vec<_> = (0..100)
            .map(|_| {
                let count = count.clone();
                rt.spawn(async move {
                    count.fetch_add(1, Ordering::SeqCst);
                })
            })
            .collect();
        std::thread::sleep(std::time::Duration::from_millis(20));
        assert_eq!(
            count.load(Ordering::SeqCst),
            0,
            "nothing runs without block_on"
        );
        rt.block_on(async {
            for handle in handles {
                handle.await.unwrap();
            }
        });
        assert_eq!(count.load(Ordering::SeqCst), 100);
    });
}

#[test]
fn a_wake_from_another_thread_reaches_the_sleeping_driver() {
    limit(|| {
        let rt = current_thread();
        let (tx, rx) = oneshot::channel();
        let sender = std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(30));
            tx.send(7).unwrap();
        });
        let task = rt.spawn(async move { rx.await.unwrap() });
        assert_eq!(rt.block_on(task).unwrap(), 7);
        sender.join().unwrap();
    });
}

#[test]
fn sockets_and_timers_work_on_one_thread() {
    limit(|| {
        let rt = current_thread();
        rt.block_on(async {
            let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
            let addr = listener.local_addr().unwrap();
            let server = rt::spawn(async move {
                let (mut stream, _) = listener.accept().await.unwrap();
                let mut buf = [0u8; 5];
                stream.read_exact(&mut buf).await.unwrap();
                time::sleep(Duration::from_millis(5)).await;
                stream.write_all(&buf).await.unwrap();
            });
            let mut client = TcpStream::connect(addr).await.unwrap();
            client.write_all(b"hello").await.unwrap();
            let mut buf = [0u8; 5];
            client.read_exact(&mut buf).await.unwrap();
            assert_eq!(&buf, b"hello");
            server.await.unwrap();
        });
    });
}

#[test]
fn many_tasks_ping_pong_through_channels() {
    limit(|| {
        let rt = current_thread();
        let total = rt.block_on(async {
            let (tx, mut rx) = mpsc::channel(8);
            for i in 0..1_000u64 {
                let tx = tx.clone();
                rt::spawn(async move {
                    rt::task::yield_now().await;
                    tx.send(i).await.unwrap();
                });
            }
            drop(tx);
            let mut total = 0;
            while let Some(i) = rx.recv().await {
                total += i;
            }
            total
        });
        assert_eq!(total, 999 * 1_000 / 2);
    });
}

#[test]
fn dropping_the_runtime_cancels_its_tasks() {
    limit(|| {
        struct Flag(Arc<AtomicUsize>);
        impl Drop for Flag {
            fn drop(&mut self) {
                self.0.fetch_add(1, Ordering::SeqCst);
            }
        }
        let drops = Arc::new(AtomicUsize::new(0));
        let rt = current_thread();
        for _ in 0..10 {
            let flag = Flag(drops.clone());
            rt.spawn(async move {
                let _flag = flag;
                std::future::pending::<()>().await;
            });
        }
        rt.block_on(rt::task::yield_now());
        drop(rt);
        assert_eq!(drops.load(Ordering::SeqCst), 10);
    });
}

// ANCHOR: one_hour
#[test]
fn a_one_hour_timeout_takes_no_time_with_the_clock_paused() {
    limit(|| {
        let rt = paused();
        let wall = std::time::Instant::now();
        let result = rt.block_on(async {
            let start = Instant::now();
            let never = std::future::pending::<()>();
            let result = time::timeout(Duration::from_secs(3600), never).await;
            (result, start.elapsed())
        });
        assert!(result.0.is_err(), "the timeout fired");
        assert_eq!(
            result.1,
            Duration::from_secs(3600),
            "the runtime's clock moved an hour"
        );
        // A hang check, not a speed test: an hour that really passed would
        // take 360 times this bound, and a loaded CI machine may well take
        // more than a second to get here.
        assert!(
            wall.elapsed() < std::time::Duration::from_secs(10),
            "the paused clock's hour took {:?} of real time",
            wall.elapsed()
        );
    });
}
// ANCHOR_END: one_hour

#[test]
fn advance_fires_what_is_due_and_nothing_else() {
    limit(|| {
        let rt = current_thread();
        rt.block_on(async {
            time::pause();
            let fired = Arc::new(AtomicUsize::new(0));
            for secs in [10, 20, 30] {
                let fired = fired.clone();
                rt::spawn(async move {
                    time::sleep(Duration::from_secs(secs)).await;
                    fired.fetch_add(1, Ordering::SeqCst);
                });
            }
            rt::task::yield_now().await;
            time::advance(Duration::from_secs(15)).await;
            rt::task::yield_now().await;
            assert_eq!(fired.load(Ordering::SeqCst), 1);
            time::advance(Duration::from_secs(10)).await;
            rt::task::yield_now().await;
            assert_eq!(fired.load(Ordering::SeqCst), 2);
            time::resume();
        });
    });
}

#[test]
fn an_interval_ticks_on_the_paused_clock() {
    limit(|| {
        let rt = paused();
        let ticks = rt.block_on(async {
            let start = Instant::now();
            let mut interval = time::interval(Duration::from_secs(60));
            let mut ticks = Vec::new();
            for _ in 0..4 {
                ticks.push(interval.tick().await - start);
            }
            ticks
        });
        let expected: Vec<Duration> = (0..4).map(|i| Duration::from_secs(60 * i)).collect();
        assert_eq!(ticks, expected);
    });
}

#[test]
fn pausing_a_multi_thread_runtime_panics() {
    let rt = Builder::new_multi_thread()
        .worker_threads(1)
        .build()
        .unwrap();
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        rt.block_on(async { time::pause() })
    }));
    assert!(result.is_err());
    // As in Tokio, asking a multi-thread runtime to start paused is a
    // programming error: `build` panics rather than returning an error.
    let built = std::panic::catch_unwind(|| Builder::new_multi_thread().start_paused(true).build());
    assert!(built.is_err());
}

/// Tasks that wake and spawn each other on the driving thread stay on its
/// own queue: none of them is counted as a remote schedule (the inject
/// queue's count). One spawned from another thread is.
#[test]
fn wakes_on_the_driving_thread_bypass_the_inject_queue() {
    limit(|| {
        let rt = current_thread();
        let metrics = rt.metrics();
        rt.block_on(async {
            let (tx, mut rx) = mpsc::channel::<u32>(1);
            let producer = rt::spawn(async move {
                for i in 0..100 {
                    tx.send(i).await.unwrap();
                }
            });
            let mut sum = 0;
            while let Some(i) = rx.recv().await {
                sum += i;
                rt::task::yield_now().await;
            }
            producer.await.unwrap();
            assert_eq!(sum, 4950);
        });
        assert_eq!(metrics.remote_schedule_count(), 0);
        let handle = rt.handle().clone();
        let remote = std::thread::spawn(move || handle.spawn(async { 7 }))
            .join()
            .unwrap();
        assert_eq!(rt.block_on(remote).unwrap(), 7);
        assert_eq!(metrics.remote_schedule_count(), 1);
    });
}

/// A task still queued on the driving thread when `block_on` returns is
/// not lost: the next `block_on` runs it.
#[test]
// The block_on future returns the JoinHandle on purpose, unawaited.
#[allow(clippy::async_yields_async)]
fn tasks_queued_when_block_on_returns_run_in_the_next_one() {
    limit(|| {
        let rt = current_thread();
        let ran = Arc::new(AtomicUsize::new(0));
        let counter = ran.clone();
        let handle = rt.block_on(async move {
            // Spawned on the driving thread, and not yet run when the
            // future completes.
            rt::spawn(async move {
                counter.fetch_add(1, Ordering::SeqCst);
            })
        });
        assert_eq!(ran.load(Ordering::SeqCst), 0);
        rt.block_on(handle).unwrap();
        assert_eq!(ran.load(Ordering::SeqCst), 1);
    });
}

/// A task that yields for ever does not starve a task woken from another
/// thread (which goes through the inject queue): the inject queue goes
/// first every `global_queue_interval` tasks.
#[test]
fn a_yielding_loop_does_not_starve_remote_wakes() {
    limit(|| {
        let rt = current_thread();
        rt.block_on(async {
            let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
            let flag = stop.clone();
            let spinner = rt::spawn(async move {
                while !flag.load(Ordering::SeqCst) {
                    rt::task::yield_now().await;
                }
            });
            let (tx, rx) = oneshot::channel();
            // This task's wake-up comes from another thread.
            let stopper = rt::spawn(async move {
                rx.await.unwrap();
                stop.store(true, Ordering::SeqCst);
            });
            std::thread::spawn(move || {
                std::thread::sleep(std::time::Duration::from_millis(20));
                tx.send(()).unwrap();
            });
            spinner.await.unwrap();
            stopper.await.unwrap();
        });
    });
}

/// A task that yields goes behind every task that was ready, the ones
/// spawned from other threads included (`spawn_many_remote_busy1` of the
/// `compare` race is this workload, timed, with a 10 µs stall after each
/// yield). 2,000 tasks wait in the inject queue, spawned before
/// `block_on`; 8 tasks yield in a loop until all 2,000 have run. Each
/// yielding task yields once, and runs again only behind the 2,000: the 8
/// yield 8 times in all (the bound allows twice that). Waking the deferred
/// tasks before the inject queue's tasks are moved behind them, they
/// yielded once per batch of `event_interval` tasks (304 times); with no
/// defer list, 30 times per remote task (60,000). The bound counts polls,
/// not time, so a slow machine cannot change it.
#[test]
fn a_task_that_yields_goes_behind_the_remote_tasks() {
    limit(|| {
        const REMOTE: usize = 2_000;
        const BUSY: usize = 8;
        let rt = current_thread();
        let ran = Arc::new(AtomicUsize::new(0));
        let remote: Vec<_> = (0..REMOTE)
            .map(|_| {
                let ran = ran.clone();
                rt.spawn(async move {
                    ran.fetch_add(1, Ordering::SeqCst);
                })
            })
            .collect();
        let yields = Arc::new(AtomicUsize::new(0));
        rt.block_on(async {
            let busy: Vec<_> = (0..BUSY)
                .map(|_| {
                    let (ran, yields) = (ran.clone(), yields.clone());
                    rt::spawn(async move {
                        while ran.load(Ordering::SeqCst) < REMOTE {
                            yields.fetch_add(1, Ordering::SeqCst);
                            rt::task::yield_now().await;
                        }
                    })
                })
                .collect();
            for task in remote {
                task.await.unwrap();
            }
            for task in busy {
                task.await.unwrap();
            }
        });
        let yields = yields.load(Ordering::SeqCst);
        assert!(
            yields <= 2 * BUSY,
            "{BUSY} yielding tasks yielded {yields} times while {REMOTE} remote tasks ran"
        );
    });
}
