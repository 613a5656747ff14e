//! Tasks that are not `Send`: `task::LocalSet` (`run_until`, `block_on`,
//! `spawn_local` on the set, awaiting the set) and `task::spawn_local`, as
//! Tokio documents them. Compiled by every entry file.

use crate::behaviour::{expect_panic, limit};
use crate::{rt, shim};
use rt::task::{self, LocalSet};
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::time::Duration;

#[test]
fn local_tasks_hold_an_rc_across_an_await_and_return_their_output() {
    limit("LocalSet run_until", || {
        let runtime = shim::runtime();
        let local = LocalSet::new();
        let sum = local.block_on(&runtime, async {
            let log = Rc::new(RefCell::new(Vec::new()));
            let mut handles = Vec::new();
            for i in 0..5u64 {
                let log = log.clone();
                handles.push(task::spawn_local(async move {
                    rt::time::sleep(Duration::from_millis(5 - i)).await;
                    log.borrow_mut().push(i);
                    i
                }));
            }
            let mut sum = 0;
            for handle in handles {
                sum += handle.await.unwrap();
            }
            assert_eq!(log.borrow().len(), 5);
            sum
        });
        assert_eq!(sum, 10);
    });
}

#[test]
fn tasks_spawned_on_the_set_run_when_the_set_is_awaited() {
    limit("awaiting a LocalSet", || {
        let runtime = shim::runtime();
        let local = LocalSet::new();
        let ran = Rc::new(Cell::new(0));
        for _ in 0..3 {
            let ran = ran.clone();
            drop(local.spawn_local(async move {
                rt::task::yield_now().await;
                ran.set(ran.get() + 1);
            }));
        }
        assert_eq!(ran.get(), 0);
        runtime.block_on(local);
        assert_eq!(ran.get(), 3);
    });
}

#[test]
fn an_aborted_or_panicking_local_task_is_a_join_error() {
    limit("LocalSet abort and panic", || {
        let runtime = shim::runtime();
        let local = LocalSet::new();
        local.block_on(&runtime, async {
            let sleeper = task::spawn_local(rt::time::sleep(Duration::from_secs(3600)));
            sleeper.abort();
            assert!(sleeper.await.unwrap_err().is_cancelled());
            let panicked = task::spawn_local(async { panic!("a local task panics") });
            assert!(panicked.await.unwrap_err().is_panic());
            assert_eq!(task::spawn_local(async { 3 }).await.unwrap(), 3);
        });
    });
}

#[test]
fn spawn_local_outside_a_local_set_panics() {
    limit("spawn_local outside", || {
        let runtime = shim::runtime();
        runtime.block_on(async {
            let caught = expect_panic("spawn_local outside a LocalSet", || {
                drop(task::spawn_local(async {}));
            });
            assert!(
                caught.message.starts_with(
                    "`spawn_local` called from outside of a `task::LocalSet` or `runtime::LocalRuntime`"
                ),
                "{}",
                caught.message
            );
        });
    });
}

/// A task on a `LocalSet` is a task like any other for `task::id()`: inside
/// it, `try_id()` is the id its handle reports, and the id is still set
/// while the runtime drops what the task held when it was aborted.
#[test]
fn a_local_task_knows_its_id_while_it_runs_and_while_it_is_dropped() {
    /// Records `task::try_id()` when dropped.
    struct Probe(Rc<Cell<Option<Option<task::Id>>>>);
    impl Drop for Probe {
        fn drop(&mut self) {
            self.0.set(Some(task::try_id()));
        }
    }
    limit("local task ids", || {
        let runtime = shim::runtime();
        let local = LocalSet::new();
        local.block_on(&runtime, async {
            let handle = task::spawn_local(async { task::try_id() });
            let id = handle.id();
            assert_eq!(handle.await.unwrap(), Some(id));

            let seen = Rc::new(Cell::new(None));
            let probe = Probe(seen.clone());
            let handle = task::spawn_local(async move {
                let _probe = probe;
                std::future::pending::<()>().await;
            });
            let id = handle.id();
            task::yield_now().await;
            handle.abort();
            assert!(handle.await.unwrap_err().is_cancelled());
            assert_eq!(seen.get(), Some(Some(id)));
            assert_eq!(task::try_id(), None, "block_on's future is no task");
        });
    });
}

/// `spawn_local` returns a `JoinHandle`, the type `spawn` returns, so one
/// list can hold both kinds of task, a function can name the type, and the
/// handle's `id`, `is_finished`, `abort_handle` and `abort` work on it. A
/// local handle moved to a `Send` task and awaited there still gets the
/// output (the output is `Send`, the future need not be).
#[test]
fn spawn_local_returns_a_join_handle_like_spawn() {
    fn spawn_doubled(n: u32) -> task::JoinHandle<u32> {
        let not_send = Rc::new(n);
        task::spawn_local(async move {
            rt::task::yield_now().await;
            *not_send * 2
        })
    }
    limit("spawn_local JoinHandle", || {
        let runtime = shim::runtime();
        let local = LocalSet::new();
        local.block_on(&runtime, async {
            let handles: Vec<task::JoinHandle<u32>> = vec![
                rt::spawn(async { 1 }),
                spawn_doubled(2),
                local.spawn_local(async { 5 }),
            ];
            let ids: Vec<task::Id> = handles.iter().map(task::JoinHandle::id).collect();
            assert!(ids[0] != ids[1] && ids[1] != ids[2] && ids[0] != ids[2]);
            let mut outputs = Vec::new();
            for handle in handles {
                outputs.push(handle.await.unwrap());
            }
            assert_eq!(outputs, [1, 4, 5]);

            let pending = spawn_doubled(21);
            let waiter = rt::spawn(async move { pending.await.unwrap() });
            assert_eq!(waiter.await.unwrap(), 42);

            let stuck: task::JoinHandle<()> = task::spawn_local(std::future::pending());
            assert!(!stuck.is_finished());
            stuck.abort_handle().abort();
            let error = stuck.await.unwrap_err();
            assert!(error.is_cancelled());

            let finished = spawn_doubled(1);
            while !finished.is_finished() {
                rt::task::yield_now().await;
            }
            finished.abort();
            assert_eq!(
                finished.await.unwrap(),
                2,
                "an abort after the end keeps the output"
            );
        });
    });
}
