//! Behaviour of `rt` features Tokio does not have, in the style of the
//! shared suite (tests/behaviour/): each test runs on its own thread under
//! a time limit, so a hang fails the test instead of the run.
#![cfg(not(loom))]
#![cfg(not(miri))]
#![allow(missing_docs)]

use std::sync::mpsc;
use std::time::{Duration, Instant};

/// How long any test may take before it counts as hung.
const LIMIT: Duration = Duration::from_secs(20);

fn limit<R: Send + 'static>(what: &str, body: impl FnOnce() -> R + Send + 'static) -> R {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(body));
        let _ = tx.send(result);
    });
    match rx.recv_timeout(LIMIT) {
        Ok(Ok(value)) => value,
        Ok(Err(payload)) => std::panic::resume_unwind(payload),
        Err(_) => panic!("HANG: {what} did not finish within {LIMIT:?}"),
    }
}

fn builder() -> rt::Builder {
    let mut builder = rt::Builder::new_multi_thread();
    builder.worker_threads(2);
    builder
}

/// The long-poll watchdog sleeps between checks (half the threshold);
/// dropping the runtime must wake it rather than wait out its sleep. A hang
/// check, not a speed test: with a one-hour threshold the watchdog sleeps
/// half an hour, so a drop that waits for it hits [`LIMIT`], and the bound
/// below (10 s, 180 times shorter than that sleep) leaves a loaded machine
/// all the time it needs.
#[test]
fn dropping_a_runtime_with_a_long_poll_threshold_does_not_wait_for_the_threshold() {
    limit("drop with a one-hour long-poll threshold", || {
        let runtime = builder()
            .long_poll_threshold(Some(Duration::from_secs(3600)))
            .build()
            .unwrap();
        runtime.block_on(async { rt::spawn(async { 1 }).await.unwrap() });
        let start = Instant::now();
        drop(runtime);
        let took = start.elapsed();
        assert!(
            took < Duration::from_secs(10),
            "dropping the runtime took {took:?}: it waited for the watchdog's half-hour sleep"
        );
    });
}

/// The same right after build, before any task ran.
#[test]
fn dropping_a_fresh_runtime_with_a_long_poll_threshold_does_not_wait_for_the_threshold() {
    limit(
        "drop a fresh runtime with a one-hour long-poll threshold",
        || {
            let runtime = builder()
                .long_poll_threshold(Some(Duration::from_secs(3600)))
                .build()
                .unwrap();
            let start = Instant::now();
            drop(runtime);
            let took = start.elapsed();
            assert!(
                took < Duration::from_secs(10),
                "dropping the runtime took {took:?}"
            );
        },
    );
}

/// A long poll is still reported with the hook (the fix must not turn the
/// watchdog off).
#[test]
fn the_long_poll_hook_still_fires() {
    limit("long poll hook", || {
        let (tx, rx) = mpsc::channel();
        let tx = std::sync::Mutex::new(tx);
        let runtime = builder()
            .long_poll_threshold(Some(Duration::from_millis(20)))
            .on_long_poll(move |report| {
                let _ = tx.lock().unwrap().send(report.duration);
            })
            .build()
            .unwrap();
        runtime
            .block_on(async {
                rt::spawn(async { std::thread::sleep(Duration::from_millis(300)) }).await
            })
            .unwrap();
        rx.recv_timeout(Duration::from_secs(10))
            .expect("a 300 ms poll with a 20 ms threshold was not reported");
        drop(runtime);
    });
}
