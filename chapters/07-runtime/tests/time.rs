//! Timers on the runtime: sleep, timeout, interval, cancellation, and how
//! close to its deadline a timer fires on an idle runtime.
#![cfg(not(loom))]
#![cfg(not(miri))]

use rt::time::{self, Instant};
use rt::{Builder, Runtime};
use std::time::Duration;

fn runtime() -> Runtime {
    Builder::new_multi_thread()
        .worker_threads(2)
        .build()
        .unwrap()
}

#[test]
fn a_sleep_never_ends_early() {
    let rt = runtime();
    for ms in [1, 5, 20, 70] {
        let start = Instant::now();
        rt.block_on(async { time::sleep(Duration::from_millis(ms)).await });
        assert!(
            start.elapsed() >= Duration::from_millis(ms),
            "{ms} ms ended early"
        );
    }
}

#[test]
fn timers_fire_on_their_own_on_an_idle_runtime_and_never_early() {
    // Nothing else happens on this runtime: a sleep that waited for some
    // unrelated wake-up would never end, and the bound below (a hang check,
    // fifty times the 180 ms the sleeps ask for) would fail it. How late a
    // timer fires is the machine's business and is not asserted; that it
    // is never early is the wheel's (deadlines round up, never down).
    let rt = runtime();
    let started = Instant::now();
    let elapsed: Vec<(Duration, Duration)> = rt
        .block_on(rt.spawn(async {
            let mut elapsed = Vec::new();
            for i in 0..30u64 {
                let wanted = Duration::from_millis(3 + i % 7);
                let start = Instant::now();
                time::sleep(wanted).await;
                elapsed.push((wanted, start.elapsed()));
            }
            elapsed
        }))
        .unwrap();
    for (wanted, took) in &elapsed {
        assert!(took >= wanted, "a {wanted:?} sleep ended after {took:?}");
    }
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "30 short sleeps took {:?}: {elapsed:?}",
        started.elapsed()
    );
}

#[test]
fn an_earlier_timer_wakes_the_worker_sleeping_until_a_later_one() {
    let rt = runtime();
    // A long timer first, so the worker parks in epoll_wait until it.
    let long = rt.spawn(async { time::sleep(Duration::from_secs(3600)).await });
    std::thread::sleep(Duration::from_millis(20));
    let start = Instant::now();
    rt.block_on(async { time::sleep(Duration::from_millis(10)).await });
    assert!(
        start.elapsed() < Duration::from_secs(60),
        "the short timer waited for the long one"
    );
    long.abort();
}

#[test]
fn timeout_returns_the_output_or_elapsed() {
    let rt = runtime();
    let fast = rt.block_on(async { time::timeout(Duration::from_secs(60), async { 5 }).await });
    assert_eq!(fast, Ok(5));
    let slow = rt.block_on(async {
        time::timeout(
            Duration::from_millis(10),
            time::sleep(Duration::from_secs(3600)),
        )
        .await
    });
    assert_eq!(slow, Err(time::Elapsed));
    assert_eq!(slow.unwrap_err().to_string(), "deadline has elapsed");
}

#[test]
fn a_dropped_sleep_leaves_the_wheel() {
    let rt = runtime();
    rt.block_on(async {
        let sleeps: Vec<_> = (0..1000)
            .map(|i| Box::pin(time::sleep(Duration::from_secs(100 + i))))
            .collect();
        // Register them all: poll each once.
        for mut sleep in sleeps {
            assert!(futures::poll!(sleep.as_mut()).is_pending());
            // ...and drop it here.
        }
    });
    assert_eq!(rt.metrics().pending_timers(), 0);
}

#[test]
fn ten_thousand_sleeps_all_complete() {
    let rt = runtime();
    let done = rt.block_on(async {
        let tasks: Vec<_> = (0..10_000u64)
            .map(|i| rt::spawn(async move { time::sleep(Duration::from_millis(1 + i % 50)).await }))
            .collect();
        let mut done = 0;
        for task in tasks {
            task.await.unwrap();
            done += 1;
        }
        done
    });
    assert_eq!(done, 10_000);
    assert_eq!(rt.metrics().pending_timers(), 0);
}

#[test]
fn an_interval_ticks_at_multiples_of_its_period() {
    let rt = runtime();
    let ticks = rt.block_on(async {
        let start = Instant::now();
        let mut interval = time::interval(Duration::from_millis(10));
        let mut ticks = Vec::new();
        for _ in 0..5 {
            ticks.push(interval.tick().await.duration_since(start));
        }
        ticks
    });
    for (i, tick) in ticks.iter().enumerate() {
        // Scheduled instants: 0, 10, 20, 30, 40 ms after the start (within
        // the microseconds between `start` and `interval`).
        let expected = Duration::from_millis(10 * i as u64);
        assert!(
            *tick >= expected && *tick < expected + Duration::from_millis(5),
            "{ticks:?}"
        );
    }
}

#[test]
fn sleeping_outside_a_runtime_panics_with_a_clear_message() {
    let result = std::panic::catch_unwind(|| {
        futures::executor::block_on(time::sleep(Duration::from_millis(1)))
    });
    let payload = result.unwrap_err();
    let message = payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_default();
    assert!(message.contains("outside of a runtime"), "{message}");
}
