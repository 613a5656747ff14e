//! A `Runtime` or a `LocalSet` kept in a thread-local, as a Tokio program
//! may keep one per thread: when the thread exits, the thread-local is
//! destroyed and the runtime or set is dropped *during* the destruction of
//! the thread's thread-locals, when the runtime's own thread-locals may be
//! gone already. Tokio allows both: the drop cancels the tasks and the
//! thread ends normally.
//!
//! A runtime that touches a destroyed thread-local there panics inside a
//! destructor, and Rust aborts the whole process ("thread local panicked on
//! drop"). So each test runs its scenario in a child process (this same
//! test binary, asked to run only that test) and checks that the child
//! exits cleanly.

use super::limit;
use crate::{rt, shim};
use std::cell::RefCell;
use std::time::Duration;

/// Set in the child process: run the scenario itself.
const CHILD: &str = "BEHAVIOUR_THREAD_LOCALS_CHILD";

/// Runs `scenario` in a child process (this test, re-run alone) and fails
/// if the child does not exit successfully.
fn in_child_process(test: &str, scenario: fn()) {
    if std::env::var_os(CHILD).is_some() {
        scenario();
        return;
    }
    // The test's path without the crate's name, as the harness filters by.
    let module = module_path!();
    let module = module.split_once("::").map_or(module, |(_, rest)| rest);
    let name = format!("{module}::{test}");
    limit("child process", move || {
        let output = std::process::Command::new(std::env::current_exe().unwrap())
            .args([name.as_str(), "--exact", "--test-threads=1", "--nocapture"])
            .env(CHILD, "1")
            .output()
            .expect("run the test binary as a child");
        let stderr = String::from_utf8_lossy(&output.stderr);
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert!(
            output.status.success(),
            "the child exited with {:?}:\n{stderr}",
            output.status
        );
        assert!(
            stdout.contains("1 passed"),
            "the child ran no test named {name}:\n{stdout}"
        );
    });
}

rt::task_local! {
    /// A task-local, whose own thread-local storage may be destroyed before
    /// the set that holds a task inside its scope.
    static REQUEST: u32;
}

thread_local! {
    static RUNTIME: RefCell<Option<rt::runtime::Runtime>> = const { RefCell::new(None) };
    static LOCAL_SET: RefCell<Option<rt::task::LocalSet>> = const { RefCell::new(None) };
}

/// A runtime that has run tasks, with one still pending (asleep on a
/// timer) and a blocking thread started, is kept in a thread-local; the
/// thread exits.
#[test]
fn a_runtime_in_a_thread_local_is_dropped_when_its_thread_exits() {
    in_child_process(
        "a_runtime_in_a_thread_local_is_dropped_when_its_thread_exits",
        || {
            let thread = std::thread::spawn(|| {
                RUNTIME.with(|slot| {
                    let runtime = shim::runtime();
                    runtime.block_on(async {
                        rt::spawn(async { 1 }).await.unwrap();
                        rt::task::spawn_blocking(|| 2).await.unwrap();
                    });
                    // Left pending: the drop at thread exit cancels it.
                    runtime.spawn(async {
                        rt::time::sleep(Duration::from_secs(3600)).await;
                    });
                    *slot.borrow_mut() = Some(runtime);
                });
            });
            thread.join().expect("the thread ended without a panic");
        },
    );
}

/// The same with a `LocalSet` holding a pending `!Send` task, inside a
/// task-local scope (`LocalKey::scope`), whose value the task read.
#[test]
fn a_local_set_in_a_thread_local_is_dropped_when_its_thread_exits() {
    in_child_process(
        "a_local_set_in_a_thread_local_is_dropped_when_its_thread_exits",
        || {
            let thread = std::thread::spawn(|| {
                let runtime = shim::runtime();
                LOCAL_SET.with(|slot| {
                    let set = rt::task::LocalSet::new();
                    let shared = std::rc::Rc::new(std::cell::Cell::new(0));
                    let seen = shared.clone();
                    runtime.block_on(set.run_until(async move {
                        rt::task::spawn_local(async move { seen.set(1) })
                            .await
                            .unwrap();
                    }));
                    assert_eq!(shared.get(), 1);
                    // Left pending in the set, after reading the task-local
                    // (its storage is created here, after the set's).
                    set.spawn_local(REQUEST.scope(7, async move {
                        let _keep = shared;
                        assert_eq!(REQUEST.get(), 7);
                        std::future::pending::<()>().await;
                    }));
                    runtime.block_on(set.run_until(rt::task::yield_now()));
                    *slot.borrow_mut() = Some(set);
                });
                // The runtime goes first (in the middle of the thread); the
                // set, in its thread-local, when the thread exits.
                drop(runtime);
            });
            thread.join().expect("the thread ended without a panic");
        },
    );
}
