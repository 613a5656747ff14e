//! `sleep`, `timeout`, `interval`.

use super::limit;
use crate::{rt, shim};
use std::time::{Duration, Instant};

const PATIENCE: Duration = Duration::from_secs(5);

#[test]
fn sleep_zero_completes() {
    limit("sleep(0)", || {
        let runtime = shim::runtime();
        runtime.block_on(async { rt::time::sleep(Duration::ZERO).await });
    });
}

#[test]
fn sleep_waits_at_least_its_duration() {
    limit("sleep duration", || {
        let runtime = shim::runtime();
        let start = Instant::now();
        runtime.block_on(async { rt::time::sleep(Duration::from_millis(30)).await });
        assert!(start.elapsed() >= Duration::from_millis(30));
    });
}

#[test]
fn sleep_in_a_spawned_task_completes() {
    limit("sleep in task", || {
        let runtime = shim::runtime();
        let start = Instant::now();
        runtime
            .block_on(async { rt::spawn(rt::time::sleep(Duration::from_millis(20))).await })
            .unwrap();
        assert!(start.elapsed() >= Duration::from_millis(20));
    });
}

#[test]
fn many_sleeps_all_complete() {
    limit("many sleeps", || {
        let runtime = shim::runtime();
        runtime.block_on(async {
            let handles: Vec<_> = (0..200u64)
                .map(|i| rt::spawn(rt::time::sleep(Duration::from_millis(i % 20))))
                .collect();
            for h in handles {
                h.await.unwrap();
            }
        });
    });
}

#[test]
fn timeout_of_a_slower_future_is_elapsed() {
    limit("timeout elapsed", || {
        let runtime = shim::runtime();
        let r = runtime.block_on(async {
            rt::time::timeout(
                Duration::from_millis(10),
                rt::time::sleep(Duration::from_secs(3600)),
            )
            .await
        });
        assert!(r.is_err());
        assert_eq!(r.unwrap_err().to_string(), "deadline has elapsed");
    });
}

#[test]
fn timeout_of_a_faster_future_is_its_output() {
    limit("timeout ok", || {
        let runtime = shim::runtime();
        let r = runtime.block_on(async {
            rt::time::timeout(PATIENCE, async {
                rt::time::sleep(Duration::from_millis(5)).await;
                "fast"
            })
            .await
        });
        assert_eq!(r.ok(), Some("fast"));
    });
}

#[test]
fn timeout_zero_of_a_ready_future_is_ok() {
    limit("timeout(0, ready)", || {
        let runtime = shim::runtime();
        let r = runtime.block_on(async { rt::time::timeout(Duration::ZERO, async { 1 }).await });
        assert_eq!(r.ok(), Some(1));
    });
}

#[test]
fn timeout_zero_of_a_pending_future_is_elapsed() {
    limit("timeout(0, pending)", || {
        let runtime = shim::runtime();
        let r = runtime.block_on(async {
            rt::time::timeout(Duration::ZERO, std::future::pending::<()>()).await
        });
        assert!(r.is_err());
    });
}

#[test]
fn interval_first_tick_is_immediate_then_ticks_are_spaced() {
    limit("interval spacing", || {
        let runtime = shim::runtime();
        runtime.block_on(async {
            let period = Duration::from_millis(20);
            let mut interval = rt::time::interval(period);
            let start = Instant::now();
            let first = interval.tick().await;
            // The first tick's instant is the interval's start.
            assert!(first <= rt::time::Instant::now());
            let second = interval.tick().await;
            let third = interval.tick().await;
            assert!(second.duration_since(first) >= period);
            assert!(third.duration_since(second) >= period);
            assert!(start.elapsed() >= 2 * period);
        });
    });
}

#[test]
fn interval_tick_returns_the_scheduled_instants() {
    limit("interval instants", || {
        let runtime = shim::runtime();
        runtime.block_on(async {
            let period = Duration::from_millis(10);
            let mut interval = rt::time::interval(period);
            let first = interval.tick().await;
            let second = interval.tick().await;
            // Scheduled, not observed: exactly one period apart.
            assert_eq!(second - first, period);
        });
    });
}

#[test]
#[should_panic]
fn interval_of_zero_panics() {
    let _ = rt::time::interval(Duration::ZERO);
}

#[test]
fn a_sleep_dropped_before_it_fires_does_not_disturb_others() {
    limit("dropped sleep", || {
        let runtime = shim::runtime();
        runtime.block_on(async {
            let r = rt::time::timeout(
                Duration::from_millis(5),
                rt::time::sleep(Duration::from_secs(60)),
            )
            .await;
            assert!(r.is_err());
            rt::time::sleep(Duration::from_millis(5)).await;
        });
    });
}

/// Tokio's default `MissedTickBehavior` is `Burst`: ticks missed during a
/// stall all come at once, each reporting its scheduled instant.
#[test]
fn interval_bursts_after_a_stall_by_default() {
    limit("interval burst", || {
        let runtime = shim::runtime();
        runtime.block_on(async {
            let period = Duration::from_millis(10);
            let mut interval = rt::time::interval(period);
            let first = interval.tick().await;
            std::thread::sleep(period * 5);
            // Burst: the missed ticks come at once, at their scheduled instants.
            let second = interval.tick().await;
            let third = interval.tick().await;
            assert_eq!(second - first, period);
            assert_eq!(third - second, period);
        });
    });
}

#[test]
fn sleep_reset_to_a_sooner_deadline_fires_then() {
    limit("sleep reset", || {
        let runtime = shim::runtime();
        runtime.block_on(async {
            let mut sleep = Box::pin(rt::time::sleep(Duration::from_secs(3600)));
            assert!(!sleep.is_elapsed());
            // Register the far deadline first, then move it.
            let r = rt::time::timeout(Duration::from_millis(5), sleep.as_mut()).await;
            assert!(r.is_err());
            let deadline = rt::time::Instant::now() + Duration::from_millis(10);
            sleep.as_mut().reset(deadline);
            assert_eq!(sleep.deadline(), deadline);
            rt::time::timeout(PATIENCE, sleep.as_mut())
                .await
                .expect("a sleep reset to 10 ms from now did not fire");
            assert!(sleep.is_elapsed());
        });
    });
}

#[test]
fn runtime_new_builds_a_working_runtime() {
    limit("Runtime::new", || {
        let runtime = rt::runtime::Runtime::new().unwrap();
        let v = runtime.block_on(async {
            rt::time::sleep(Duration::from_millis(1)).await;
            rt::spawn(async { 2 }).await.unwrap()
        });
        assert_eq!(v, 2);
    });
}
