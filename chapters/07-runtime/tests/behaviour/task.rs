//! `spawn` and `JoinHandle`: output, panics, abort, detach, is_finished.

use super::limit;
use crate::{rt, shim};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

const PATIENCE: Duration = Duration::from_secs(5);

/// Sets its flag when dropped: shows that a future was dropped.
struct SetOnDrop(Arc<AtomicBool>);

impl Drop for SetOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

#[test]
fn join_handle_returns_the_task_output() {
    limit("join output", || {
        let runtime = shim::runtime();
        let v = runtime.block_on(async { rt::spawn(async { String::from("done") }).await });
        assert_eq!(v.unwrap(), "done");
    });
}

#[test]
fn a_panicking_task_gives_a_join_error_with_the_payload() {
    limit("join panic", || {
        let runtime = shim::runtime();
        let err = runtime
            .block_on(async { rt::spawn(async { panic!("boom in task") }).await })
            .unwrap_err();
        assert!(err.is_panic());
        assert!(!err.is_cancelled());
        let payload = err.into_panic();
        assert_eq!(super::panic_message(&*payload), "boom in task");
        // The runtime survives the panic.
        assert_eq!(
            runtime
                .block_on(async { rt::spawn(async { 1 }).await })
                .unwrap(),
            1
        );
    });
}

#[test]
fn abort_cancels_a_waiting_task_and_drops_its_future() {
    limit("abort", || {
        let runtime = shim::runtime();
        let dropped = Arc::new(AtomicBool::new(false));
        let guard = SetOnDrop(dropped.clone());
        let err = runtime.block_on(async move {
            let handle = rt::spawn(async move {
                let _guard = guard;
                rt::time::sleep(Duration::from_secs(3600)).await;
            });
            rt::time::sleep(Duration::from_millis(10)).await;
            handle.abort();
            rt::time::timeout(PATIENCE, handle)
                .await
                .expect("abort did not end the task")
        });
        let err = err.unwrap_err();
        assert!(err.is_cancelled());
        assert!(!err.is_panic());
        assert!(dropped.load(Ordering::SeqCst));
    });
}

#[test]
fn abort_before_the_first_poll_cancels() {
    limit("abort before poll", || {
        let runtime = shim::runtime();
        let ran = Arc::new(AtomicBool::new(false));
        let r2 = ran.clone();
        let handle = runtime.block_on(async move {
            let handle = rt::spawn(async move {
                rt::time::sleep(Duration::from_secs(3600)).await;
                r2.store(true, Ordering::SeqCst);
            });
            handle.abort();
            handle.await
        });
        assert!(handle.unwrap_err().is_cancelled());
        assert!(!ran.load(Ordering::SeqCst));
    });
}

#[test]
fn abort_after_completion_keeps_the_output() {
    limit("abort after completion", || {
        let runtime = shim::runtime();
        let v = runtime.block_on(async {
            let handle = rt::spawn(async { 5 });
            while !handle.is_finished() {
                rt::time::sleep(Duration::from_millis(1)).await;
            }
            handle.abort();
            handle.await
        });
        assert_eq!(v.unwrap(), 5);
    });
}

#[test]
fn dropping_a_join_handle_detaches_the_task() {
    limit("detach", || {
        let runtime = shim::runtime();
        runtime.block_on(async {
            let (tx, rx) = rt::sync::oneshot::channel();
            let handle = rt::spawn(async move {
                rt::time::sleep(Duration::from_millis(20)).await;
                let _ = tx.send(9);
            });
            drop(handle);
            let v = rt::time::timeout(PATIENCE, rx)
                .await
                .expect("detached task did not run");
            assert_eq!(v.unwrap(), 9);
        });
    });
}

#[test]
fn is_finished_turns_true_when_the_task_ends() {
    limit("is_finished", || {
        let runtime = shim::runtime();
        runtime.block_on(async {
            let (tx, rx) = rt::sync::oneshot::channel::<()>();
            let handle = rt::spawn(async move {
                let _ = rx.await;
            });
            rt::time::sleep(Duration::from_millis(10)).await;
            assert!(!handle.is_finished());
            tx.send(()).unwrap();
            let start = std::time::Instant::now();
            while !handle.is_finished() {
                assert!(start.elapsed() < PATIENCE, "is_finished never turned true");
                rt::time::sleep(Duration::from_millis(1)).await;
            }
            handle.await.unwrap();
        });
    });
}

#[test]
fn is_finished_is_true_after_abort() {
    limit("is_finished after abort", || {
        let runtime = shim::runtime();
        runtime.block_on(async {
            let handle = rt::spawn(async { rt::time::sleep(Duration::from_secs(3600)).await });
            handle.abort();
            let start = std::time::Instant::now();
            while !handle.is_finished() {
                assert!(start.elapsed() < PATIENCE, "is_finished never turned true");
                rt::time::sleep(Duration::from_millis(1)).await;
            }
            assert!(handle.await.unwrap_err().is_cancelled());
        });
    });
}

#[test]
fn yield_now_lets_another_task_run() {
    limit("yield_now", || {
        let runtime = shim::builder().worker_threads(1).build().unwrap();
        let flag = Arc::new(AtomicBool::new(false));
        let f2 = flag.clone();
        let seen = runtime.block_on(async {
            rt::spawn(async move {
                rt::spawn(async move { f2.store(true, Ordering::SeqCst) });
                // One worker: the other task can only run while this one yields.
                for _ in 0..1000 {
                    if flag.load(Ordering::SeqCst) {
                        return true;
                    }
                    rt::task::yield_now().await;
                }
                false
            })
            .await
        });
        assert!(seen.unwrap());
    });
}

#[test]
fn a_task_spawned_from_a_task_runs() {
    limit("nested spawn", || {
        let runtime = shim::runtime();
        let v = runtime.block_on(async {
            rt::spawn(async { rt::spawn(async { 3 }).await.unwrap() + 1 }).await
        });
        assert_eq!(v.unwrap(), 4);
    });
}

#[test]
fn many_tasks_all_complete() {
    limit("many tasks", || {
        let runtime = shim::runtime();
        let sum = runtime.block_on(async {
            let handles: Vec<_> = (0..1000u64).map(|i| rt::spawn(async move { i })).collect();
            let mut sum = 0;
            for h in handles {
                sum += h.await.unwrap();
            }
            sum
        });
        assert_eq!(sum, 999 * 1000 / 2);
    });
}

/// Records what `task::try_id()` says when it is dropped.
struct IdOnDrop(Arc<std::sync::Mutex<Option<Option<rt::task::Id>>>>);

impl Drop for IdOnDrop {
    fn drop(&mut self) {
        *self.0.lock().unwrap() = Some(rt::task::try_id());
    }
}

#[test]
fn an_aborted_tasks_future_sees_its_own_id_while_it_is_dropped() {
    limit("id during the drop of an aborted task", || {
        let runtime = shim::runtime();
        let seen = Arc::new(std::sync::Mutex::new(None));
        let guard = IdOnDrop(seen.clone());
        let (expected, err) = runtime.block_on(async move {
            let handle = rt::spawn(async move {
                let _guard = guard;
                std::future::pending::<()>().await;
            });
            let expected = handle.id();
            rt::time::sleep(Duration::from_millis(10)).await;
            handle.abort();
            let joined = rt::time::timeout(PATIENCE, handle)
                .await
                .expect("abort did not end the task");
            (expected, joined)
        });
        assert!(err.unwrap_err().is_cancelled());
        assert_eq!(*seen.lock().unwrap(), Some(Some(expected)));
    });
}
