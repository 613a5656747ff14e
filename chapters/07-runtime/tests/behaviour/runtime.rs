//! `Runtime` and `Handle`: block_on, enter, current/try_current, spawning
//! from a handle, what dropping the runtime does to pending tasks, metrics.

use super::limit;
use crate::{rt, shim};
use rt::runtime::Handle;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

struct SetOnDrop(Arc<AtomicBool>);

impl Drop for SetOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

#[test]
fn block_on_returns_the_future_output() {
    limit("block_on", || {
        let runtime = shim::runtime();
        assert_eq!(runtime.block_on(async { 1 + 1 }), 2);
    });
}

#[test]
fn block_on_can_be_called_again_after_it_returns() {
    limit("block_on twice", || {
        let runtime = shim::runtime();
        assert_eq!(runtime.block_on(async { 1 }), 1);
        assert_eq!(runtime.block_on(async { 2 }), 2);
    });
}

#[test]
fn handle_current_inside_block_on_is_this_runtime() {
    limit("Handle::current in block_on", || {
        let runtime = shim::runtime();
        let v = runtime.block_on(async {
            let handle = Handle::current();
            handle.spawn(async { 7 }).await.unwrap()
        });
        assert_eq!(v, 7);
    });
}

#[test]
fn try_current_is_none_outside_and_some_inside() {
    limit("try_current", || {
        assert!(!shim::in_runtime_context());
        let runtime = shim::runtime();
        assert!(
            !shim::in_runtime_context(),
            "building a runtime does not enter it"
        );
        assert!(runtime.block_on(async { shim::in_runtime_context() }));
        assert!(
            runtime
                .block_on(async { rt::spawn(async { shim::in_runtime_context() }).await })
                .unwrap()
        );
        assert!(
            !shim::in_runtime_context(),
            "block_on leaves the context when it returns"
        );
    });
}

#[test]
fn enter_makes_spawn_work_on_a_plain_thread_until_the_guard_drops() {
    limit("enter", || {
        let runtime = shim::runtime();
        let handle = {
            let _guard = runtime.handle().enter();
            assert!(shim::in_runtime_context());
            rt::spawn(async { 11 })
        };
        assert!(!shim::in_runtime_context());
        assert_eq!(runtime.block_on(handle).unwrap(), 11);
    });
}

#[test]
fn nested_enter_guards_dropped_in_order_restore_the_outer_runtime() {
    limit("nested enter", || {
        let a = shim::runtime();
        let b = shim::runtime();
        let ga = a.handle().enter();
        {
            let _gb = b.handle().enter();
            assert!(shim::in_runtime_context());
        }
        assert!(
            shim::in_runtime_context(),
            "dropping the inner guard left no runtime"
        );
        drop(ga);
        assert!(!shim::in_runtime_context());
    });
}

#[test]
fn handle_spawn_works_from_a_plain_thread() {
    limit("Handle::spawn from a thread", || {
        let runtime = shim::runtime();
        let handle = runtime.handle().clone();
        let join = std::thread::spawn(move || handle.spawn(async { 5 }))
            .join()
            .unwrap();
        assert_eq!(runtime.block_on(join).unwrap(), 5);
    });
}

#[test]
fn handle_block_on_works_from_a_plain_thread() {
    // Current-thread: Handle::block_on does not turn the driver, and nobody
    // is in Runtime::block_on, so the sleep never ends (Tokio documents it).
    if !shim::MULTI_THREAD {
        return;
    }
    limit("Handle::block_on from a thread", || {
        let runtime = shim::runtime();
        let handle = runtime.handle().clone();
        let v = std::thread::spawn(move || {
            handle.block_on(async {
                rt::time::sleep(Duration::from_millis(5)).await;
                rt::spawn(async { 8 }).await.unwrap()
            })
        })
        .join()
        .unwrap();
        assert_eq!(v, 8);
    });
}

#[test]
fn runtime_spawn_runs_without_block_on() {
    // Current-thread: tasks run only while a thread is in block_on.
    if !shim::MULTI_THREAD {
        return;
    }
    limit("Runtime::spawn", || {
        let runtime = shim::runtime();
        let (tx, rx) = std::sync::mpsc::channel();
        runtime.spawn(async move { tx.send(3).unwrap() });
        assert_eq!(rx.recv_timeout(Duration::from_secs(5)), Ok(3));
    });
}

#[test]
fn dropping_the_runtime_drops_pending_task_futures() {
    limit("drop cancels tasks", || {
        let runtime = shim::runtime();
        let flags: Vec<Arc<AtomicBool>> =
            (0..10).map(|_| Arc::new(AtomicBool::new(false))).collect();
        let mut handles = Vec::new();
        for flag in &flags {
            let guard = SetOnDrop(flag.clone());
            handles.push(runtime.spawn(async move {
                let _guard = guard;
                std::future::pending::<()>().await;
            }));
        }
        // Let the tasks start waiting.
        std::thread::sleep(Duration::from_millis(20));
        drop(runtime);
        for (i, flag) in flags.iter().enumerate() {
            assert!(
                flag.load(Ordering::SeqCst),
                "task {i}'s future was not dropped"
            );
        }
        // Their JoinHandles say cancelled.
        for handle in handles {
            let err = futures::executor::block_on(handle).unwrap_err();
            assert!(err.is_cancelled());
        }
    });
}

#[test]
fn dropping_the_runtime_drops_a_never_polled_task() {
    limit("drop cancels a queued task", || {
        let runtime = shim::builder().worker_threads(1).build().unwrap();
        let dropped = Arc::new(AtomicBool::new(false));
        let guard = SetOnDrop(dropped.clone());
        let (block_tx, block_rx) = std::sync::mpsc::channel::<()>();
        // Occupy the only worker briefly so the next task is still queued.
        runtime.spawn(async move {
            let _ = block_rx.recv_timeout(Duration::from_millis(50));
        });
        runtime.spawn(async move {
            let _guard = guard;
        });
        drop(block_tx);
        drop(runtime);
        assert!(dropped.load(Ordering::SeqCst));
    });
}

#[test]
fn a_task_spawned_through_a_handle_after_shutdown_is_cancelled() {
    limit("spawn after shutdown", || {
        let runtime = shim::runtime();
        let handle = runtime.handle().clone();
        drop(runtime);
        let dropped = Arc::new(AtomicBool::new(false));
        let guard = SetOnDrop(dropped.clone());
        let join = handle.spawn(async move {
            let _guard = guard;
            1
        });
        let err = futures::executor::block_on(join).unwrap_err();
        assert!(err.is_cancelled());
        assert!(dropped.load(Ordering::SeqCst));
    });
}

#[test]
fn metrics_num_workers_is_the_worker_thread_count() {
    limit("num_workers", || {
        // Current-thread: one "worker" (the thread in block_on), whatever
        // worker_threads says.
        if !shim::MULTI_THREAD {
            assert_eq!(shim::num_workers(&shim::runtime()), 1);
            let one = shim::builder().worker_threads(3).build().unwrap();
            assert_eq!(shim::num_workers(&one), 1);
            return;
        }
        let runtime = shim::runtime();
        assert_eq!(shim::num_workers(&runtime), 2);
        let one = shim::builder().worker_threads(1).build().unwrap();
        assert_eq!(shim::num_workers(&one), 1);
    });
}

#[test]
fn metrics_num_alive_tasks_counts_and_returns_to_zero() {
    limit("num_alive_tasks", || {
        let runtime = shim::runtime();
        assert_eq!(shim::num_alive_tasks(&runtime), 0);
        let (tx, rx) = rt::sync::oneshot::channel::<()>();
        let counter = Arc::new(AtomicUsize::new(0));
        let c2 = counter.clone();
        let task = runtime.spawn(async move {
            let _ = rx.await;
            c2.fetch_add(1, Ordering::SeqCst);
        });
        assert_eq!(shim::num_alive_tasks(&runtime), 1);
        tx.send(()).unwrap();
        runtime.block_on(task).unwrap();
        // The count may drop just after the JoinHandle sees the output.
        let start = std::time::Instant::now();
        while shim::num_alive_tasks(&runtime) != 0 {
            assert!(
                start.elapsed() < Duration::from_secs(5),
                "num_alive_tasks stays above 0"
            );
            std::thread::sleep(Duration::from_millis(1));
        }
        assert_eq!(counter.load(Ordering::SeqCst), 1);
    });
}

/// A task that has exited is not alive, even while the worker that ran it
/// stays busy: here a task has a thread outside the runtime spawn 40
/// children, awaits them (they complete on the one worker, or the thread in
/// `block_on`, which never goes idle meanwhile) and counts the tasks alive.
#[test]
fn metrics_num_alive_tasks_leaves_out_exited_tasks_while_the_worker_is_busy() {
    limit("num_alive_tasks, busy worker", || {
        let runtime = shim::builder().worker_threads(1).build().unwrap();
        let alive = runtime.block_on(async {
            rt::spawn(async {
                let handle = Handle::current();
                let children = std::thread::spawn(move || {
                    (0..40).map(|_| handle.spawn(async {})).collect::<Vec<_>>()
                })
                .join()
                .unwrap();
                for child in children {
                    child.await.unwrap();
                }
                Handle::current().metrics().num_alive_tasks()
            })
            .await
            .unwrap()
        });
        assert_eq!(alive, 1, "only the counting task is alive");
    });
}

#[test]
fn thread_name_names_the_workers_and_the_blocking_threads_exactly() {
    limit("thread_name", || {
        let runtime = shim::builder().thread_name("named-pool").build().unwrap();
        let (on_worker, on_blocking) = runtime.block_on(async {
            let on_worker = rt::spawn(async { std::thread::current().name().map(str::to_string) })
                .await
                .unwrap();
            let on_blocking =
                rt::task::spawn_blocking(|| std::thread::current().name().map(str::to_string))
                    .await
                    .unwrap();
            (on_worker, on_blocking)
        });
        assert_eq!(on_blocking.as_deref(), Some("named-pool"));
        if shim::MULTI_THREAD {
            // A task runs on a worker thread, named as asked. (On the
            // current-thread flavour it runs on the thread in block_on.)
            assert_eq!(on_worker.as_deref(), Some("named-pool"));
        }
    });
}
