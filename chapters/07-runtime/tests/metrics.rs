//! Metrics and the long-poll detector: counters that reflect what happened,
//! a snapshot, and a report that names the blocking task.
#![cfg(not(loom))]
#![cfg(not(miri))]

use rt::{Builder, LongPoll, LongPollCause};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

fn wait_until(done: impl Fn() -> bool) -> bool {
    let deadline = Instant::now() + Duration::from_secs(30);
    while !done() {
        if Instant::now() > deadline {
            return false;
        }
        std::thread::yield_now();
    }
    true
}

#[test]
fn steals_are_counted_when_work_is_skewed_onto_one_worker() {
    // Task A keeps worker X busy until B has run; B sits in X's ring (C took
    // the LIFO slot), so only a steal by the other worker can run it.
    let rt = Builder::new_multi_thread()
        .worker_threads(2)
        .build()
        .unwrap();
    let b_ran = Arc::new(AtomicBool::new(false));
    let b = b_ran.clone();
    let stolen = rt
        .block_on(rt.spawn(async move {
            let b2 = b.clone();
            let child_b = rt::spawn(async move { b2.store(true, Ordering::SeqCst) });
            let child_c = rt::spawn(async {});
            let stolen = wait_until(|| b.load(Ordering::SeqCst));
            (stolen, child_b, child_c)
        }))
        .unwrap();
    assert!(stolen.0);
    rt.block_on(stolen.1).unwrap();
    rt.block_on(stolen.2).unwrap();
    let snapshot = rt.metrics().snapshot();
    let steals: u64 = snapshot.workers.iter().map(|w| w.steals).sum();
    let operations: u64 = snapshot.workers.iter().map(|w| w.steal_operations).sum();
    assert!(steals >= 1 && operations >= 1, "{snapshot:?}");
    assert!(snapshot.workers.iter().map(|w| w.polls).sum::<u64>() >= 3);
    assert_eq!(snapshot.spawned_tasks, 3);
    assert_eq!(snapshot.workers.len(), 2);
}

// ANCHOR: detector
#[test]
fn the_detector_names_a_task_that_blocks_its_worker() {
    let reports: Arc<Mutex<Vec<LongPoll>>> = Arc::default();
    let sink = reports.clone();
    let rt = Builder::new_multi_thread()
        .worker_threads(2)
        .long_poll_threshold(Some(Duration::from_millis(10)))
        .on_long_poll(move |report| sink.lock().unwrap().push(*report))
        .build()
        .unwrap();
    // The watchdog reports only what its looks saw, and its own thread can
    // wait for a CPU too: on a loaded machine it may see a 50 ms poll once,
    // or not at all, or see it stretched by preemption. So block the worker
    // again until a report blames the task.
    let blamed = |reports: &[LongPoll]| -> Vec<LongPoll> {
        reports
            .iter()
            .filter(|r| r.cause != LongPollCause::Preempted)
            .copied()
            .collect()
    };
    let deadline = Instant::now() + Duration::from_secs(30);
    let (mut line, mut blocked, mut polls) = (0, Duration::ZERO, 0);
    while blamed(&reports.lock().unwrap()).is_empty() {
        assert!(Instant::now() < deadline, "no report");
        line = line!() + 1;
        let task = rt.spawn(async {
            let start = Instant::now();
            std::thread::sleep(Duration::from_millis(50));
            start.elapsed()
        });
        blocked = blocked.max(rt.block_on(task).unwrap());
        polls += 1;
        let settle = Instant::now() + Duration::from_millis(500);
        while blamed(&reports.lock().unwrap()).is_empty() && Instant::now() < settle {
            std::thread::sleep(Duration::from_millis(1));
        }
    }
    let metrics = rt.metrics();
    drop(rt); // joins the watchdog: no report is still on its way
    let reports = reports.lock().unwrap();
    let report = blamed(&reports)[0];
    assert_eq!(report.cause, LongPollCause::Blocked, "{report}");
    assert!(report.location.file().ends_with("metrics.rs"), "{report}");
    assert_eq!(report.location.line(), line);
    // Past the threshold, and never longer than the poll took plus the
    // watchdog's half-threshold interval (a margin of one more).
    assert!(
        report.duration >= Duration::from_millis(10)
            && report.duration <= blocked + Duration::from_millis(10)
            && !report.still_running,
        "{report}"
    );
    assert!(report.to_string().contains("spawn_blocking"), "{report}");
    // Each poll is reported at most once, and each report that blames the
    // task is counted (a preempted poll is not).
    assert!(
        reports.len() <= polls,
        "{} reports of {polls} polls",
        reports.len()
    );
    assert_eq!(metrics.long_poll_count(), blamed(&reports).len() as u64);
}
// ANCHOR_END: detector

#[test]
fn short_polls_are_never_blamed() {
    let reports: Arc<Mutex<Vec<LongPoll>>> = Arc::default();
    let sink = reports.clone();
    let rt = Builder::new_multi_thread()
        .worker_threads(2)
        .on_long_poll(move |report| sink.lock().unwrap().push(*report))
        .build()
        .unwrap();
    rt.block_on(async {
        for _ in 0..200 {
            rt::spawn(async { rt::time::sleep(Duration::from_micros(100)).await })
                .await
                .unwrap();
        }
    });
    std::thread::sleep(Duration::from_millis(20));
    // On a loaded machine one of them may be preempted long enough to be
    // reported, as preempted; none may be blamed.
    assert!(
        reports
            .lock()
            .unwrap()
            .iter()
            .all(|r| r.cause == LongPollCause::Preempted),
        "{:?}",
        reports.lock().unwrap()
    );
}

#[test]
fn metrics_can_be_switched_off() {
    let rt = Builder::new_multi_thread()
        .worker_threads(1)
        .disable_metrics()
        .build()
        .unwrap();
    rt.block_on(rt.spawn(async {})).unwrap();
    let snapshot = rt.metrics().snapshot();
    assert_eq!(snapshot.workers[0].polls, 0);
    assert_eq!(
        snapshot.spawned_tasks, 1,
        "spawns are counted by the handle, not the workers"
    );
}

#[test]
fn the_poll_time_histogram_counts_every_poll() {
    let rt = Builder::new_multi_thread()
        .worker_threads(1)
        .enable_poll_time_histogram()
        .build()
        .unwrap();
    rt.block_on(async {
        for _ in 0..100 {
            rt::spawn(async {}).await.unwrap();
        }
    });
    let metrics = rt.metrics();
    assert!(wait_until(|| metrics
        .worker_poll_time_histogram(0)
        .iter()
        .sum::<u64>()
        == metrics.worker_poll_count(0)));
    assert!(metrics.worker_poll_count(0) >= 100);
    assert_eq!(
        metrics.poll_time_bucket_upper(0),
        Some(Duration::from_nanos(128))
    );
}

#[test]
fn busy_time_and_the_busiest_tasks() {
    let rt = Builder::new_multi_thread()
        .worker_threads(1)
        .build()
        .unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let stop2 = stop.clone();
    let spinner = rt.spawn(async move {
        while !stop2.load(Ordering::Relaxed) {
            rt::task::yield_now().await;
        }
    });
    assert!(wait_until(|| rt.metrics().worker_poll_count(0) > 1000));
    let busiest = rt.metrics().busiest_tasks(3);
    assert_eq!(busiest.len(), 1);
    assert!(busiest[0].polls > 100);
    assert!(busiest[0].location.file().ends_with("metrics.rs"));
    stop.store(true, Ordering::Relaxed);
    rt.block_on(spinner).unwrap();
    assert!(wait_until(
        || rt.metrics().worker_total_busy_duration(0) > Duration::ZERO
    ));
}

#[test]
fn join_errors_cross_threads() {
    fn send_sync<T: Send + Sync>() {}
    send_sync::<rt::task::JoinError>();
}
