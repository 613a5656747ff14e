//! `LocalSet` and `spawn_local`: tasks that are not `Send`, as Tokio
//! documents them. Every test would fail to compile if the tasks had to be
//! `Send` (they hold an `Rc` across an `.await`).
#![cfg(not(loom))]
#![cfg(not(miri))]

use rt::runtime::{Builder, Runtime};
use rt::sync::oneshot;
use rt::task::{self, LocalSet};
use rt::time::{self, Duration};
use std::cell::{Cell, RefCell};
use std::rc::Rc;

fn current_thread() -> Runtime {
    Builder::new_current_thread().enable_all().build().unwrap()
}

#[test]
fn spawn_local_runs_non_send_tasks_inside_run_until() {
    let rt = current_thread();
    let local = LocalSet::new();
    let total = local.block_on(&rt, async {
        let shared = Rc::new(RefCell::new(Vec::new()));
        let mut handles = Vec::new();
        for i in 0..10u32 {
            let shared = shared.clone();
            handles.push(task::spawn_local(async move {
                // An Rc held across an .await: not Send.
                time::sleep(Duration::from_millis(u64::from(10 - i))).await;
                shared.borrow_mut().push(i);
                i
            }));
        }
        let mut total = 0;
        for handle in handles {
            total += handle.await.unwrap();
        }
        assert_eq!(shared.borrow().len(), 10);
        total
    });
    assert_eq!(total, 45);
}

#[test]
fn a_local_task_can_spawn_more_local_tasks_and_use_the_runtime() {
    let rt = Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let local = LocalSet::new();
    local.block_on(&rt, async {
        let counter = Rc::new(Cell::new(0));
        let c = counter.clone();
        let outer = task::spawn_local(async move {
            let inner = task::spawn_local({
                let c = c.clone();
                async move { c.set(c.get() + 1) }
            });
            inner.await.unwrap();
            // A Send task on the runtime's workers, awaited from here.
            let on_worker = rt::spawn(async { 41 }).await.unwrap();
            c.set(c.get() + on_worker);
        });
        outer.await.unwrap();
        assert_eq!(counter.get(), 42);
    });
}

#[test]
fn a_wake_from_another_thread_reaches_a_local_task() {
    let rt = current_thread();
    let local = LocalSet::new();
    local.block_on(&rt, async {
        let (tx, rx) = oneshot::channel::<u8>();
        let marker = Rc::new(());
        let waiting = task::spawn_local(async move {
            let _keep = marker;
            rx.await.unwrap()
        });
        std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(20));
            tx.send(7).unwrap();
        });
        assert_eq!(waiting.await.unwrap(), 7);
    });
}

#[test]
fn spawned_tasks_wait_for_the_set_and_awaiting_the_set_runs_them_all() {
    let rt = current_thread();
    let local = LocalSet::new();
    let ran = Rc::new(Cell::new(0));
    for _ in 0..3 {
        let ran = ran.clone();
        local.spawn_local(async move {
            rt::task::yield_now().await;
            ran.set(ran.get() + 1);
        });
    }
    // Nothing runs until the set is polled.
    assert_eq!(ran.get(), 0);
    rt.block_on(local);
    assert_eq!(ran.get(), 3);
}

#[test]
fn abort_panic_and_a_dropped_set_come_back_as_join_errors() {
    let rt = current_thread();
    let local = LocalSet::new();
    let forever = local.spawn_local(std::future::pending::<()>());
    local.block_on(&rt, async {
        let sleeper = task::spawn_local(time::sleep(Duration::from_secs(3600)));
        sleeper.abort();
        assert!(sleeper.await.unwrap_err().is_cancelled());

        let panicked = task::spawn_local(async { panic!("boom") });
        let error = panicked.await.unwrap_err();
        assert!(error.is_panic());

        // The set goes on after a task panicked.
        assert_eq!(task::spawn_local(async { 5 }).await.unwrap(), 5);
    });
    assert!(!forever.is_finished());
    drop(local);
    assert!(rt.block_on(forever).unwrap_err().is_cancelled());
}

#[test]
#[should_panic(
    expected = "`spawn_local` called from outside of a `task::LocalSet` or `runtime::LocalRuntime`"
)]
fn spawn_local_outside_a_set_panics() {
    let rt = current_thread();
    rt.block_on(async {
        drop(task::spawn_local(async {}));
    });
}
