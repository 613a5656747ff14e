//! The cooperative budget: a task whose every operation is ready still
//! yields after its budget, unless the budget is switched off.
#![cfg(not(loom))]
#![cfg(not(miri))]

use rt::sync::mpsc;
use rt::{Builder, Runtime};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

/// One worker. Task A drains a channel holding 10,000 values, so every
/// `recv` is ready; task B, queued behind it, records how many A had taken
/// when B got to run. A gate task holds the worker until both are queued, so
/// they are queued in that order whatever the timing.
fn items_taken_before_the_other_task_ran(rt: Runtime) -> usize {
    use std::sync::atomic::AtomicBool;
    let (tx, mut rx) = mpsc::channel(10_000);
    for i in 0..10_000 {
        tx.try_send(i).unwrap();
    }
    drop(tx);
    let taken = Arc::new(AtomicUsize::new(0));
    let seen_by_b = Arc::new(AtomicUsize::new(usize::MAX));
    let (gate_up, go) = (
        Arc::new(AtomicBool::new(false)),
        Arc::new(AtomicBool::new(false)),
    );
    let gate = {
        let (gate_up, go) = (gate_up.clone(), go.clone());
        rt.spawn(async move {
            gate_up.store(true, Ordering::SeqCst);
            while !go.load(Ordering::SeqCst) {
                std::hint::spin_loop();
            }
        })
    };
    while !gate_up.load(Ordering::SeqCst) {
        std::thread::yield_now();
    }
    let (taken_a, taken_b, seen) = (taken.clone(), taken.clone(), seen_by_b.clone());
    let a = rt.spawn(async move {
        while rx.recv().await.is_some() {
            taken_a.fetch_add(1, Ordering::SeqCst);
        }
    });
    let b = rt.spawn(async move {
        seen.store(taken_b.load(Ordering::SeqCst), Ordering::SeqCst);
    });
    go.store(true, Ordering::SeqCst);
    rt.block_on(async move {
        gate.await.unwrap();
        a.await.unwrap();
        b.await.unwrap();
    });
    seen_by_b.load(Ordering::SeqCst)
}

#[test]
fn with_the_budget_a_ready_task_yields_after_128_operations() {
    let rt = Builder::new_multi_thread()
        .worker_threads(1)
        .build()
        .unwrap();
    let taken = items_taken_before_the_other_task_ran(rt);
    assert!(taken <= 128, "B waited for {taken} items");
}

#[test]
fn without_the_budget_it_runs_to_the_end_first() {
    let rt = Builder::new_multi_thread()
        .worker_threads(1)
        .disable_coop_budget()
        .build()
        .unwrap();
    assert_eq!(items_taken_before_the_other_task_ran(rt), 10_000);
}

#[test]
fn consume_budget_makes_a_cpu_loop_yield() {
    use std::sync::atomic::AtomicBool;
    let rt = Builder::new_multi_thread()
        .worker_threads(1)
        .build()
        .unwrap();
    let steps = Arc::new(AtomicUsize::new(0));
    let seen = Arc::new(AtomicUsize::new(usize::MAX));
    // As above: a gate holds the one worker until A and B are both queued.
    let (gate_up, go) = (
        Arc::new(AtomicBool::new(false)),
        Arc::new(AtomicBool::new(false)),
    );
    let gate = {
        let (gate_up, go) = (gate_up.clone(), go.clone());
        rt.spawn(async move {
            gate_up.store(true, Ordering::SeqCst);
            while !go.load(Ordering::SeqCst) {
                std::hint::spin_loop();
            }
        })
    };
    while !gate_up.load(Ordering::SeqCst) {
        std::thread::yield_now();
    }
    let (steps_a, steps_b, seen_b) = (steps.clone(), steps.clone(), seen.clone());
    let a = rt.spawn(async move {
        for _ in 0..100_000 {
            steps_a.fetch_add(1, Ordering::SeqCst);
            rt::task::consume_budget().await;
        }
    });
    let b = rt.spawn(async move { seen_b.store(steps_b.load(Ordering::SeqCst), Ordering::SeqCst) });
    go.store(true, Ordering::SeqCst);
    rt.block_on(async move {
        gate.await.unwrap();
        a.await.unwrap();
        b.await.unwrap();
    });
    assert!(
        seen.load(Ordering::SeqCst) <= 129,
        "B waited for {} steps",
        seen.load(Ordering::SeqCst)
    );
    assert!(rt.metrics().worker_budget_forced_yield_count(0) > 0);
}
