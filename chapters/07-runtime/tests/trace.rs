//! The runtime's trace: what each worker did, as events and as Chrome
//! trace-event JSON.
#![cfg(not(loom))]
#![cfg(not(miri))]

use rt::runtime::{Builder, TraceKind};
use std::collections::HashSet;

#[test]
fn the_trace_records_every_poll_of_every_task_and_writes_chrome_json() {
    let rt = Builder::new_multi_thread()
        .worker_threads(2)
        .enable_trace(100_000)
        .build()
        .unwrap();
    let ids: HashSet<_> = rt.block_on(async {
        let handles: Vec<_> = (0..200)
            .map(|_| {
                rt::spawn(async {
                    rt::task::yield_now().await;
                })
            })
            .collect();
        let ids = handles.iter().map(|h| h.id()).collect();
        for handle in handles {
            handle.await.unwrap();
        }
        ids
    });
    // A poll is recorded when it returns, and the poll that finishes the last
    // task wakes `block_on` before it returns: its event may land a moment
    // after `block_on` does. Wait for it (bounded, so a lost event fails
    // rather than hangs).
    let polls_in = |trace: &rt::runtime::Trace| {
        trace
            .workers
            .iter()
            .flatten()
            .filter(|e| matches!(e.kind, TraceKind::Poll { .. }))
            .count()
    };
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    let mut trace = rt.trace().expect("tracing is on");
    while polls_in(&trace) < 2 * ids.len() && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(1));
        trace = rt.trace().unwrap();
    }
    assert_eq!(trace.workers.len(), 2);
    assert_eq!(trace.dropped, 0);
    let mut polls_per_task = std::collections::HashMap::new();
    for events in &trace.workers {
        // Events of one worker begin in order and do not overlap.
        for pair in events.windows(2) {
            assert!(
                pair[0].start + pair[0].duration
                    <= pair[1].start + std::time::Duration::from_micros(1)
            );
        }
        for event in events {
            if let TraceKind::Poll { task } = event.kind {
                *polls_per_task.entry(task).or_insert(0) += 1;
            }
        }
    }
    for id in &ids {
        // Each task is polled twice: once to yield, once to finish.
        assert_eq!(polls_per_task.get(id), Some(&2), "task {id}");
    }
    let json: serde_json::Value = serde_json::from_str(&trace.to_chrome_json()).unwrap();
    let events = json["traceEvents"].as_array().unwrap();
    let polls = events.iter().filter(|e| e["name"] == "poll").count();
    assert_eq!(polls, polls_per_task.values().sum::<usize>());
    assert!(
        events
            .iter()
            .all(|e| e["ph"].is_string() && e["tid"].is_number())
    );
}

#[test]
fn a_full_buffer_drops_and_counts_later_events() {
    let rt = Builder::new_multi_thread()
        .worker_threads(1)
        .enable_trace(10)
        .build()
        .unwrap();
    rt.block_on(async {
        for _ in 0..100 {
            rt::spawn(async {}).await.unwrap();
        }
    });
    let trace = rt.trace().unwrap();
    assert_eq!(trace.workers[0].len(), 10);
    assert!(trace.dropped > 0);
    let untraced = Builder::new_multi_thread()
        .worker_threads(1)
        .build()
        .unwrap();
    assert!(untraced.trace().is_none());
}
