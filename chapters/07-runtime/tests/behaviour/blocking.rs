//! `spawn_blocking`: value, panic, thread, and what runtime drop does to it.

use super::limit;
use crate::{rt, shim};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

#[test]
fn spawn_blocking_returns_the_closure_value() {
    limit("spawn_blocking value", || {
        let runtime = shim::runtime();
        let v = runtime
            .block_on(async { rt::task::spawn_blocking(|| 6 * 7).await })
            .unwrap();
        assert_eq!(v, 42);
    });
}

#[test]
fn runtime_spawn_blocking_returns_the_closure_value() {
    limit("Runtime::spawn_blocking", || {
        let runtime = shim::runtime();
        let job = runtime.spawn_blocking(|| "v");
        assert_eq!(runtime.block_on(job).unwrap(), "v");
    });
}

#[test]
fn a_panicking_blocking_job_is_a_join_error() {
    limit("spawn_blocking panic", || {
        let runtime = shim::runtime();
        let err = runtime
            .block_on(async {
                rt::task::spawn_blocking(|| -> u8 { panic!("blocking boom") }).await
            })
            .unwrap_err();
        assert!(err.is_panic());
        assert_eq!(super::panic_message(&*err.into_panic()), "blocking boom");
    });
}

#[test]
fn spawn_blocking_runs_on_another_thread() {
    limit("spawn_blocking thread", || {
        let runtime = shim::runtime();
        let (caller, job) = runtime.block_on(async {
            let caller = std::thread::current().id();
            let job = rt::task::spawn_blocking(|| std::thread::current().id())
                .await
                .unwrap();
            (caller, job)
        });
        assert_ne!(caller, job);
        let worker = runtime.block_on(async {
            rt::spawn(async {
                let worker = std::thread::current().id();
                let job = rt::task::spawn_blocking(|| std::thread::current().id())
                    .await
                    .unwrap();
                (worker, job)
            })
            .await
        });
        let (worker, job) = worker.unwrap();
        assert_ne!(
            worker, job,
            "a blocking job ran on the worker that spawned it"
        );
    });
}

#[test]
fn many_blocking_jobs_all_run_with_one_thread() {
    limit("blocking queue", || {
        let runtime = shim::runtime_with_blocking_threads(1);
        let sum: u32 = runtime.block_on(async {
            let jobs: Vec<_> = (0..20u32)
                .map(|i| rt::task::spawn_blocking(move || i))
                .collect();
            let mut sum = 0;
            for job in jobs {
                sum += job.await.unwrap();
            }
            sum
        });
        assert_eq!(sum, 190);
    });
}

#[test]
fn runtime_drop_waits_for_a_running_blocking_job() {
    limit("drop waits for running blocking job", || {
        let runtime = shim::runtime();
        let finished = Arc::new(AtomicBool::new(false));
        let f2 = finished.clone();
        let (started_tx, started_rx) = std::sync::mpsc::channel();
        runtime.spawn_blocking(move || {
            started_tx.send(()).unwrap();
            std::thread::sleep(Duration::from_millis(200));
            f2.store(true, Ordering::SeqCst);
        });
        started_rx.recv().unwrap();
        drop(runtime);
        assert!(
            finished.load(Ordering::SeqCst),
            "runtime drop returned before the running job ended"
        );
    });
}

/// Tokio's docs: a blocking job not yet started at shutdown may be
/// cancelled, "but this is not guaranteed" (Tokio 1.54 in fact runs it when
/// the pool's thread frees up). What holds either way: the drop returns,
/// and the JoinHandle tells the truth about whether the job ran.
#[test]
fn a_blocking_job_queued_at_drop_either_runs_or_reports_cancelled() {
    limit("queued blocking job at drop", || {
        let runtime = shim::runtime_with_blocking_threads(1);
        let ran = Arc::new(AtomicBool::new(false));
        let r2 = ran.clone();
        let (started_tx, started_rx) = std::sync::mpsc::channel();
        let first = runtime.spawn_blocking(move || {
            started_tx.send(()).unwrap();
            std::thread::sleep(Duration::from_millis(200));
        });
        started_rx.recv().unwrap();
        let queued = runtime.spawn_blocking(move || r2.store(true, Ordering::SeqCst));
        drop(runtime);
        assert!(futures::executor::block_on(first).is_ok());
        match futures::executor::block_on(queued) {
            Ok(()) => assert!(ran.load(Ordering::SeqCst), "Ok, but the job never ran"),
            Err(e) => {
                assert!(e.is_cancelled(), "{e:?}");
                assert!(!ran.load(Ordering::SeqCst), "cancelled, but the job ran");
            }
        }
    });
}
