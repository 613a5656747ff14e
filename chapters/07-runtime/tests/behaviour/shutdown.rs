//! `Runtime::shutdown_timeout` and `Runtime::shutdown_background`.

use super::limit;
use crate::shim;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

#[test]
fn shutdown_timeout_returns_while_a_blocking_job_still_runs() {
    limit("shutdown_timeout", || {
        let runtime = shim::runtime();
        let (release_tx, release_rx) = std::sync::mpsc::channel::<()>();
        let (started_tx, started_rx) = std::sync::mpsc::channel();
        runtime.spawn_blocking(move || {
            started_tx.send(()).unwrap();
            let _ = release_rx.recv();
        });
        started_rx.recv().unwrap();
        let start = Instant::now();
        runtime.shutdown_timeout(Duration::from_millis(100));
        // It gave up on the job: well before the job could have ended.
        assert!(start.elapsed() < Duration::from_secs(10));
        drop(release_tx);
    });
}

#[test]
fn shutdown_timeout_cancels_pending_tasks() {
    limit("shutdown_timeout cancels", || {
        let runtime = shim::runtime();
        let handle = runtime.spawn(std::future::pending::<()>());
        runtime.shutdown_timeout(Duration::from_secs(1));
        assert!(
            futures::executor::block_on(handle)
                .unwrap_err()
                .is_cancelled()
        );
    });
}

#[test]
fn shutdown_background_returns_without_waiting_for_a_blocking_job() {
    limit("shutdown_background", || {
        let runtime = shim::runtime();
        let (release_tx, release_rx) = std::sync::mpsc::channel::<()>();
        let (started_tx, started_rx) = std::sync::mpsc::channel();
        let done = Arc::new(AtomicBool::new(false));
        let d2 = done.clone();
        runtime.spawn_blocking(move || {
            started_tx.send(()).unwrap();
            let _ = release_rx.recv();
            d2.store(true, Ordering::SeqCst);
        });
        started_rx.recv().unwrap();
        runtime.shutdown_background();
        assert!(!done.load(Ordering::SeqCst));
        drop(release_tx);
    });
}

/// Tokio's docs: unlike a drop, `shutdown_background` may be called from
/// async code.
#[test]
fn shutdown_background_inside_block_on_does_not_panic() {
    limit("shutdown_background in async", || {
        let outer = shim::runtime();
        let inner = shim::runtime();
        let pending = inner.spawn(std::future::pending::<()>());
        outer.block_on(async move {
            inner.shutdown_background();
        });
        assert!(
            futures::executor::block_on(pending)
                .unwrap_err()
                .is_cancelled()
        );
    });
}

/// `shutdown_timeout` waits for a blocking job that ends within the limit.
#[test]
fn shutdown_timeout_waits_for_a_job_that_ends_in_time() {
    limit("shutdown_timeout waits", || {
        let runtime = shim::runtime();
        let done = Arc::new(AtomicBool::new(false));
        let d2 = done.clone();
        let (started_tx, started_rx) = std::sync::mpsc::channel();
        runtime.spawn_blocking(move || {
            started_tx.send(()).unwrap();
            std::thread::sleep(Duration::from_millis(50));
            d2.store(true, Ordering::SeqCst);
        });
        started_rx.recv().unwrap();
        runtime.shutdown_timeout(Duration::from_secs(10));
        assert!(done.load(Ordering::SeqCst));
    });
}
