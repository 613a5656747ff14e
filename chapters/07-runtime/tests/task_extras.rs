//! `JoinSet`, `AbortHandle`, task ids and task-local storage, as Tokio
//! documents them.
#![cfg(not(loom))]
#![cfg(not(miri))]

use rt::runtime::{Builder, Runtime};
use rt::sync::oneshot;
use rt::task::{self, JoinSet};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

fn runtime() -> Runtime {
    Builder::new_multi_thread()
        .worker_threads(2)
        .build()
        .unwrap()
}

/// Runs `body` on its own thread; a hang fails after 20 s.
fn limit(body: impl FnOnce() + Send + 'static) {
    let (done, finished) = std::sync::mpsc::channel();
    let thread = std::thread::spawn(move || {
        body();
        let _ = done.send(());
    });
    match finished.recv_timeout(Duration::from_secs(20)) {
        Ok(()) => thread.join().unwrap(),
        Err(_) if thread.is_finished() => {
            if let Err(panic) = thread.join() {
                std::panic::resume_unwind(panic);
            }
        }
        Err(_) => panic!("the test hung"),
    }
}

/// Counts drops of the futures it is moved into.
#[derive(Clone, Default)]
struct Drops(Arc<AtomicUsize>);

struct Token(Drops);

impl Drop for Token {
    fn drop(&mut self) {
        self.0.0.fetch_add(1, Ordering::SeqCst);
    }
}

#[test]
fn join_next_returns_outputs_in_the_order_tasks_finish() {
    limit(|| {
        runtime().block_on(async {
            let mut set = JoinSet::new();
            let mut releases = Vec::new();
            for i in 0..3u32 {
                let (tx, rx) = oneshot::channel::<()>();
                releases.push(tx);
                set.spawn(async move {
                    rx.await.unwrap();
                    i
                });
            }
            assert_eq!(set.len(), 3);
            // Release them in the order 2, 0, 1.
            let mut order = Vec::new();
            for i in [2usize, 0, 1] {
                let tx = std::mem::replace(&mut releases[i], oneshot::channel().0);
                tx.send(()).unwrap();
                order.push(set.join_next().await.unwrap().unwrap());
            }
            assert_eq!(order, [2, 0, 1]);
            assert!(set.is_empty());
            assert!(set.join_next().await.is_none());
        });
    });
}

#[test]
fn a_hundred_thousand_tasks_are_all_joined() {
    limit(|| {
        let total = runtime().block_on(async {
            let mut set = JoinSet::new();
            for i in 0..100_000u64 {
                set.spawn(async move { i });
            }
            let mut total = 0;
            while let Some(output) = set.join_next().await {
                total += output.unwrap();
            }
            total
        });
        assert_eq!(total, 99_999 * 100_000 / 2);
    });
}

#[test]
fn abort_all_cancels_and_dropping_the_set_aborts_its_tasks() {
    limit(|| {
        let rt = runtime();
        let drops = Drops::default();
        rt.block_on(async {
            let mut set = JoinSet::<()>::new();
            for _ in 0..10 {
                let token = Token(drops.clone());
                set.spawn(async move {
                    let _token = token;
                    std::future::pending::<()>().await;
                });
            }
            set.abort_all();
            let mut cancelled = 0;
            while let Some(output) = set.join_next().await {
                assert!(output.unwrap_err().is_cancelled());
                cancelled += 1;
            }
            assert_eq!(cancelled, 10);
        });
        assert_eq!(drops.0.load(Ordering::SeqCst), 10);
        let dropped = Drops::default();
        rt.block_on(async {
            let mut set = JoinSet::<()>::new();
            for _ in 0..10 {
                let token = Token(dropped.clone());
                set.spawn(async move {
                    let _token = token;
                    std::future::pending::<()>().await;
                });
            }
            task::yield_now().await;
            drop(set);
        });
        let deadline = std::time::Instant::now() + Duration::from_secs(5);
        while dropped.0.load(Ordering::SeqCst) < 10 && std::time::Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(1));
        }
        assert_eq!(
            dropped.0.load(Ordering::SeqCst),
            10,
            "a dropped set aborts its tasks"
        );
    });
}

#[test]
fn shutdown_waits_for_every_task_to_stop_and_detach_lets_them_run() {
    limit(|| {
        let rt = runtime();
        rt.block_on(async {
            let mut set = JoinSet::<()>::new();
            for _ in 0..5 {
                set.spawn(std::future::pending());
            }
            set.shutdown().await;
            assert!(set.is_empty());

            let ran = Arc::new(AtomicUsize::new(0));
            let (tx, rx) = oneshot::channel::<()>();
            {
                let ran = ran.clone();
                let mut set = JoinSet::new();
                set.spawn(async move {
                    rx.await.unwrap();
                    ran.fetch_add(1, Ordering::SeqCst);
                });
                set.detach_all();
            }
            tx.send(()).unwrap();
            let deadline = std::time::Instant::now() + Duration::from_secs(5);
            while ran.load(Ordering::SeqCst) == 0 && std::time::Instant::now() < deadline {
                task::yield_now().await;
            }
            assert_eq!(ran.load(Ordering::SeqCst), 1, "a detached task was aborted");
        });
    });
}

#[test]
fn try_join_next_and_join_all() {
    limit(|| {
        let rt = runtime();
        rt.block_on(async {
            let mut set = JoinSet::new();
            assert!(set.try_join_next().is_none());
            set.spawn(async { 1 });
            let deadline = std::time::Instant::now() + Duration::from_secs(5);
            let output = loop {
                if let Some(output) = set.try_join_next() {
                    break output;
                }
                assert!(std::time::Instant::now() < deadline);
                task::yield_now().await;
            };
            assert_eq!(output.unwrap(), 1);
            let mut set = JoinSet::new();
            for i in 0..4 {
                set.spawn_blocking(move || i * 10);
            }
            let mut all = set.join_all().await;
            all.sort();
            assert_eq!(all, [0, 10, 20, 30]);
        });
    });
}

#[test]
fn an_abort_handle_cancels_without_the_join_handle() {
    limit(|| {
        let rt = runtime();
        rt.block_on(async {
            let handle = rt::spawn(std::future::pending::<()>());
            let abort = handle.abort_handle();
            assert_eq!(abort.id(), handle.id());
            assert!(!abort.is_finished());
            abort.abort();
            assert!(handle.await.unwrap_err().is_cancelled());
            assert!(abort.is_finished());
            // Dropping an abort handle neither cancels nor leaks.
            let handle = rt::spawn(async { 5 });
            drop(handle.abort_handle());
            assert_eq!(handle.await.unwrap(), 5);
        });
    });
}

#[test]
fn task_id_names_the_running_task() {
    limit(|| {
        let rt = runtime();
        rt.block_on(async {
            assert!(task::try_id().is_none(), "block_on's future is not a task");
            let handle = rt::spawn(async { task::id() });
            let expected = handle.id();
            assert_eq!(handle.await.unwrap(), expected);
            let a = rt::spawn(async {}).id();
            let b = rt::spawn(async {}).id();
            assert_ne!(a, b);
        });
    });
}

/// Records `task::try_id()` when dropped.
struct IdOnDrop(Arc<std::sync::Mutex<Option<Option<task::Id>>>>);

impl Drop for IdOnDrop {
    fn drop(&mut self) {
        *self.0.lock().unwrap() = Some(task::try_id());
    }
}

#[test]
fn an_aborted_tasks_future_is_dropped_with_its_id_published() {
    limit(|| {
        let rt = runtime();
        rt.block_on(async {
            let seen = Arc::new(std::sync::Mutex::new(None));
            let guard = IdOnDrop(seen.clone());
            let handle = rt::spawn(async move {
                let _guard = guard;
                std::future::pending::<()>().await;
            });
            let expected = handle.id();
            // Let it reach its await, so that the abort finds it idle.
            task::yield_now().await;
            handle.abort();
            assert!(handle.await.unwrap_err().is_cancelled());
            let recorded = seen.lock().unwrap().take();
            assert_eq!(
                recorded,
                Some(Some(expected)),
                "the cancelled future's Drop should see its own task id"
            );
        });
    });
}

rt::task_local! {
    static REQUEST: u32;
    static NAME: String;
}

#[test]
fn a_task_local_is_set_for_its_scope_on_any_thread() {
    limit(|| {
        let rt = runtime();
        rt.block_on(async {
            assert!(REQUEST.try_with(|v| *v).is_err());
            let seen = REQUEST
                .scope(7, async {
                    let before = REQUEST.get();
                    // Hop threads: the value follows the future.
                    task::yield_now().await;
                    rt::time::sleep(Duration::from_millis(1)).await;
                    let inner = REQUEST.scope(8, async { REQUEST.get() }).await;
                    (before, inner, REQUEST.get())
                })
                .await;
            assert_eq!(seen, (7, 8, 7));
            assert!(
                REQUEST.try_with(|v| *v).is_err(),
                "the value leaked out of its scope"
            );
            let spawned = rt::spawn(NAME.scope("worker".to_string(), async {
                NAME.with(|name| name.clone())
            }));
            assert_eq!(spawned.await.unwrap(), "worker");
            assert_eq!(REQUEST.sync_scope(3, || REQUEST.get()), 3);
        });
    });
}

#[test]
fn a_spawned_task_does_not_inherit_a_task_local() {
    limit(|| {
        let rt = runtime();
        // ANCHOR: not_inherited
        rt.block_on(REQUEST.scope(7, async {
            assert_eq!(REQUEST.get(), 7);
            let child = rt::spawn(async { REQUEST.try_with(|v| *v).is_ok() });
            assert!(
                !child.await.unwrap(),
                "a task spawned inside a scope must not see its value"
            );
            // Moving the value in explicitly is how a child gets one.
            let value = REQUEST.get();
            let child = rt::spawn(REQUEST.scope(value, async { REQUEST.get() }));
            assert_eq!(child.await.unwrap(), 7);
        }));
        // ANCHOR_END: not_inherited
    });
}
