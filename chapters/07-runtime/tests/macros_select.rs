//! `rt::select!`: the first branch whose output matches its pattern wins;
//! `biased;` polls in order, otherwise the start is random; preconditions,
//! refutable patterns, `else`, and the panic when every branch is disabled
//! without one; the losers are dropped before the handler runs.

#![cfg(not(loom))]
#![cfg(not(miri))]

use rt::sync::oneshot;
use std::future::{pending, ready};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

#[rt::test]
async fn the_first_future_to_finish_wins() {
    let (tx, rx) = oneshot::channel();
    rt::spawn(async move {
        rt::time::sleep(Duration::from_millis(5)).await;
        tx.send(7).unwrap();
    });
    let got = rt::select! {
        value = rx => value.unwrap(),
        _ = rt::time::sleep(Duration::from_secs(3600)) => 0,
    };
    assert_eq!(got, 7);
}

#[rt::test]
async fn biased_takes_the_first_ready_branch_in_the_order_written() {
    for _ in 0..100 {
        let winner = rt::select! {
            biased;
            a = ready(1) => a,
            b = ready(2) => b,
        };
        assert_eq!(winner, 1);
    }
}

#[rt::test]
async fn without_biased_every_ready_branch_gets_its_turn() {
    // Both always ready: a fixed order would pick the first every time.
    let mut wins = [0u32; 2];
    for _ in 0..200 {
        let winner = rt::select! {
            a = ready(0) => a,
            b = ready(1) => b,
        };
        wins[winner] += 1;
    }
    assert!(wins[0] > 0 && wins[1] > 0, "{wins:?}");
}

#[rt::test]
async fn a_false_precondition_disables_its_branch_but_its_future_is_still_made() {
    let made = AtomicUsize::new(0);
    let make = |value: u32| {
        made.fetch_add(1, Ordering::SeqCst);
        ready(value)
    };
    let winner = rt::select! {
        biased;
        a = make(1), if false => a,
        b = make(2) => b,
    };
    assert_eq!(winner, 2);
    assert_eq!(
        made.load(Ordering::SeqCst),
        2,
        "both future expressions ran"
    );
}

#[rt::test]
async fn a_branch_whose_output_does_not_match_is_disabled_and_the_rest_go_on() {
    let later = async {
        rt::task::yield_now().await;
        Some(5)
    };
    let got = rt::select! {
        biased;
        Some(x) = ready(None::<u32>) => x,
        Some(mut y) = later => {
            y += 1;
            y
        }
    };
    assert_eq!(got, 6);
}

#[rt::test]
async fn else_runs_when_every_branch_is_disabled() {
    let by_precondition = rt::select! {
        _ = ready(()), if false => "branch",
        else => "else",
    };
    assert_eq!(by_precondition, "else");
    let by_pattern = rt::select! {
        Ok(v) = ready(Err::<u8, ()>(())) => v,
        Some(v) = ready(None) => v,
        else => 9,
    };
    assert_eq!(by_pattern, 9);
}

#[rt::test]
#[should_panic(expected = "all branches are disabled and there is no else branch")]
async fn every_branch_disabled_without_else_panics() {
    rt::select! {
        Some(v) = ready(None::<u8>) => { let _ = v; }
        _ = ready(()), if false => {}
    }
}

#[rt::test]
async fn the_losers_are_dropped_before_the_handler_runs() {
    struct SetOnDrop(Arc<AtomicBool>);
    impl Drop for SetOnDrop {
        fn drop(&mut self) {
            self.0.store(true, Ordering::SeqCst);
        }
    }
    let dropped = Arc::new(AtomicBool::new(false));
    let guard = SetOnDrop(dropped.clone());
    let loser = async move {
        let _guard = guard;
        pending::<()>().await
    };
    rt::select! {
        _ = loser => unreachable!(),
        _ = ready(()) => assert!(dropped.load(Ordering::SeqCst)),
    }
}

#[rt::test]
async fn handlers_may_await_break_and_continue_the_loop_around_them() {
    let (tx, mut rx) = rt::sync::mpsc::channel(8);
    for i in 0..5 {
        tx.send(i).await.unwrap();
    }
    drop(tx);
    let mut seen = Vec::new();
    loop {
        rt::select! {
            message = rx.recv() => match message {
                Some(3) => continue,
                Some(n) => {
                    rt::task::yield_now().await;
                    seen.push(n);
                }
                None => break,
            },
        }
    }
    assert_eq!(seen, [0, 1, 2, 4]);
}

#[rt::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_join_handle_races_a_timeout() {
    let slow = rt::spawn(async {
        rt::time::sleep(Duration::from_secs(3600)).await;
        "slow"
    });
    let fast = rt::spawn(async { "fast" });
    let winner = rt::select! {
        out = slow => out.unwrap(),
        out = fast => out.unwrap(),
    };
    assert_eq!(winner, "fast");
}

#[rt::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_join_handle_is_a_fused_future() {
    use futures::future::FusedFuture;
    let mut handle = rt::spawn(async { 1 });
    assert!(!handle.is_terminated());
    assert_eq!((&mut handle).await.unwrap(), 1);
    assert!(handle.is_terminated());
}

#[rt::test(flavor = "multi_thread", worker_threads = 2)]
async fn select_works_inside_a_spawned_task() {
    // The futures, the slots and the poll state are held across the
    // `.await`, so they must be Send for a spawned task: they are.
    let got = rt::spawn(async {
        rt::select! {
            n = async { 3 } => n,
            _ = rt::time::sleep(Duration::from_secs(3600)) => 0,
        }
    })
    .await
    .unwrap();
    assert_eq!(got, 3);
}

#[rt::test(start_paused = true)]
async fn a_future_pinned_outside_the_loop_survives_the_races_it_loses() {
    // The fix the book gives for a future that is not cancel-safe: make it
    // once, outside the loop, and select on `&mut` it, so that losing a
    // race does not drop it.
    let steps = AtomicUsize::new(0);
    let slow = std::pin::pin!(async {
        for _ in 0..5 {
            rt::time::sleep(Duration::from_millis(10)).await;
            steps.fetch_add(1, Ordering::SeqCst);
        }
        "done"
    });
    let mut slow = slow;
    let mut ticker = rt::time::interval(Duration::from_millis(3));
    let mut ticks = 0;
    let result = loop {
        rt::select! {
            result = &mut slow => break result,
            _ = ticker.tick() => ticks += 1,
        }
    };
    assert_eq!(result, "done");
    assert_eq!(steps.load(Ordering::SeqCst), 5, "no step was lost");
    assert!(ticks > 5, "the ticker won races meanwhile: {ticks}");
}

/// `rt::pin!` keeps one timer across every turn of a `select!` loop, as
/// Tokio's `pin!` does: the loop handles many messages and the same sleep
/// still fires at its deadline, once.
#[rt::test]
async fn pin_keeps_one_future_across_a_select_loop() {
    let (tx, mut rx) = rt::sync::mpsc::unbounded_channel::<u32>();
    for i in 0..5 {
        tx.send(i).unwrap();
    }
    let deadline = rt::time::sleep(Duration::from_millis(30));
    rt::pin!(deadline);
    let mut got = Vec::new();
    loop {
        rt::select! {
            Some(i) = rx.recv() => got.push(i),
            () = &mut deadline => break,
        }
    }
    assert_eq!(got, vec![0, 1, 2, 3, 4]);
    assert!(deadline.is_elapsed());
    rt::pin! {
        let a = async { 1 };
        let b = async { 2 };
    }
    assert_eq!((&mut a).await + (&mut b).await, 3);
    drop(tx);
}
