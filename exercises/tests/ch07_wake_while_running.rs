//! Tests for exercise ch07_wake_while_running (`exercises/ch07/wake_while_running.rs`).

#[cfg_attr(not(feature = "solutions"), path = "../ch07/wake_while_running.rs")]
#[cfg_attr(
    feature = "solutions",
    path = "../solutions/ch07/wake_while_running.rs"
)]
#[allow(dead_code, unused_variables, unused_imports)]
mod wake_while_running;

mod ch07_wake_while_running {
    use super::wake_while_running::*;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    fn refs(state: &AtomicUsize) -> usize {
        state.load(Ordering::SeqCst) / REF_ONE
    }

    #[test]
    fn waking_an_idle_task_submits_it_with_a_new_reference() {
        let state = AtomicUsize::new(2 * REF_ONE);
        assert_eq!(wake_by_ref(&state), WakeAction::Submit);
        assert_eq!(state.load(Ordering::SeqCst), (3 * REF_ONE) | NOTIFIED);
    }

    #[test]
    fn waking_a_queued_or_finished_task_changes_nothing() {
        for bits in [NOTIFIED, COMPLETE, COMPLETE | NOTIFIED] {
            let state = AtomicUsize::new((2 * REF_ONE) | bits);
            assert_eq!(wake_by_ref(&state), WakeAction::DoNothing);
            assert_eq!(state.load(Ordering::SeqCst), (2 * REF_ONE) | bits);
        }
    }

    #[test]
    fn waking_a_running_task_only_sets_notified() {
        let state = AtomicUsize::new((2 * REF_ONE) | RUNNING);
        assert_eq!(wake_by_ref(&state), WakeAction::DoNothing);
        assert_eq!(
            state.load(Ordering::SeqCst),
            (2 * REF_ONE) | RUNNING | NOTIFIED
        );
    }

    #[test]
    fn a_pending_poll_requeues_a_task_woken_meanwhile_keeping_the_count() {
        let state = AtomicUsize::new((2 * REF_ONE) | RUNNING | NOTIFIED);
        assert_eq!(after_pending(&state), IdleAction::Requeue);
        assert_eq!(state.load(Ordering::SeqCst), (2 * REF_ONE) | NOTIFIED);
    }

    #[test]
    fn a_pending_poll_without_a_wake_drops_the_workers_reference() {
        let state = AtomicUsize::new((2 * REF_ONE) | RUNNING);
        assert_eq!(after_pending(&state), IdleAction::Idle);
        assert_eq!(state.load(Ordering::SeqCst), REF_ONE);
        let last = AtomicUsize::new(REF_ONE | RUNNING);
        assert_eq!(after_pending(&last), IdleAction::Dealloc);
        assert_eq!(last.load(Ordering::SeqCst), 0);
    }

    #[test]
    fn wake_during_the_poll_then_pending_is_one_requeue() {
        let state = AtomicUsize::new((2 * REF_ONE) | RUNNING);
        assert_eq!(wake_by_ref(&state), WakeAction::DoNothing);
        assert_eq!(wake_by_ref(&state), WakeAction::DoNothing);
        assert_eq!(after_pending(&state), IdleAction::Requeue);
        // Queued now: more wakes are absorbed.
        assert_eq!(wake_by_ref(&state), WakeAction::DoNothing);
        assert_eq!(refs(&state), 2);
    }

    #[test]
    fn racing_wakers_never_lose_the_wake_nor_queue_twice() {
        // Many threads wake while the "worker" finishes its poll. Whatever
        // the interleaving, the task ends up queued exactly once: either the
        // worker requeues it (woken while running) or one waker submits it.
        for _ in 0..200 {
            let state = Arc::new(AtomicUsize::new((2 * REF_ONE) | RUNNING));
            let wakers: Vec<_> = (0..4)
                .map(|_| {
                    let state = state.clone();
                    std::thread::spawn(move || wake_by_ref(&state) == WakeAction::Submit)
                })
                .collect();
            let requeued = after_pending(&state) == IdleAction::Requeue;
            let submits = wakers
                .into_iter()
                .map(|waker| waker.join().unwrap())
                .filter(|&submitted| submitted)
                .count();
            assert_eq!(
                usize::from(requeued) + submits,
                1,
                "queued {} times",
                usize::from(requeued) + submits
            );
            let s = state.load(Ordering::SeqCst);
            assert!(s & NOTIFIED != 0 && s & RUNNING == 0);
            // The worker's reference was kept (requeue) or dropped and one
            // added for the submit: two either way.
            assert_eq!(s / REF_ONE, 2);
        }
    }
}
