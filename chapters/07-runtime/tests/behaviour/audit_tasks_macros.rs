//! Tasks and macros on the multi-thread runtime, as Tokio documents them
//! (third audit).
//!
//! Covers what the earlier files left open: `block_in_place` with every
//! worker inside it, nested, and in a blocking job; a blocking job that
//! ignores `abort` once started; panics in the drop of a task's output;
//! `JoinSet::join_all` cancelling the rest when a task fails and
//! `JoinSet::spawn_on`; an abort that lands while the task runs on
//! another worker; the global queue depth of remote spawns; shutdown with
//! a worker stuck in a task; `thread_keep_alive`; task-locals per task,
//! `sync_scope` after a panic and `AccessError`'s words; `select!`'s
//! disabled branches and `join!`'s single task; the default worker count.
//! Each test is written from Tokio 1.54's documentation and was first made
//! to pass against Tokio, which compiles this same file in
//! `behaviour_tokio.rs`: a failure in the Tokio build is a wrong test, one
//! in the rt build a place where rt departs from Tokio.

use crate::behaviour::{limit, panic_message};
use crate::{rt, shim};
use rt::task::JoinSet;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, mpsc};
use std::task::Poll;
use std::time::Duration;

/// Sets its flag when dropped.
struct FlagOnDrop(Arc<AtomicBool>);

impl Drop for FlagOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

/// Sets its flag, then panics, when dropped (unless already unwinding).
struct PanicOnDrop(Arc<AtomicBool>);

impl Drop for PanicOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
        if !std::thread::panicking() {
            panic!("the output's drop panicked");
        }
    }
}

/// Waits, on the runtime's timer, until `done()` is true (the test's hang
/// limit bounds the wait).
async fn until(mut done: impl FnMut() -> bool) {
    while !done() {
        rt::time::sleep(Duration::from_millis(1)).await;
    }
}

/// Spins the calling OS thread until `flag` is set (the test's hang limit
/// bounds the wait).
fn spin_until(flag: &AtomicBool) {
    while !flag.load(Ordering::SeqCst) {
        std::thread::sleep(Duration::from_millis(1));
    }
}

// ---- block_in_place -----------------------------------------------------------

/// "Runs the provided blocking function on the current thread without
/// blocking the executor. ... the worker's other tasks are moved to a new
/// worker thread": with both workers of a two-worker runtime blocked
/// inside `block_in_place`, a third task still runs, and is the one that
/// releases them.
#[test]
fn both_workers_in_block_in_place_leave_room_for_a_third_task() {
    if !shim::MULTI_THREAD {
        return; // block_in_place panics on a current-thread runtime
    }
    limit("two block_in_place and a third task", || {
        shim::runtime().block_on(async {
            let (entered_tx, entered_rx) = mpsc::channel::<()>();
            let mut releases = Vec::new();
            let mut blocked = Vec::new();
            for n in 0..2usize {
                let (release_tx, release_rx) = mpsc::channel::<()>();
                releases.push(release_tx);
                let entered = entered_tx.clone();
                blocked.push(rt::spawn(async move {
                    rt::task::block_in_place(move || {
                        entered.send(()).unwrap();
                        release_rx.recv().unwrap();
                        n
                    })
                }));
            }
            // block_on's thread is not a worker: it may wait here.
            entered_rx.recv().unwrap();
            entered_rx.recv().unwrap();
            let third = rt::spawn(async move {
                for release in releases {
                    release.send(()).unwrap();
                }
                "released"
            });
            assert_eq!(third.await.unwrap(), "released");
            for (n, handle) in blocked.into_iter().enumerate() {
                assert_eq!(handle.await.unwrap(), n);
            }
        });
    });
}

rt::task_local! {
    static LABEL: u32;
}

/// `block_in_place` runs its closure on the calling thread, inside the
/// current task: the closure sees the task's id and its task-locals, a
/// nested `block_in_place` simply runs, and the task goes on after it.
#[test]
fn block_in_place_nests_and_keeps_the_task_id_and_task_locals() {
    if !shim::MULTI_THREAD {
        return; // block_in_place panics on a current-thread runtime
    }
    limit("nested block_in_place", || {
        shim::runtime().block_on(async {
            let task = rt::spawn(LABEL.scope(5, async {
                let id = rt::task::id();
                let seen = rt::task::block_in_place(|| {
                    let outer = (rt::task::try_id(), LABEL.get());
                    let inner = rt::task::block_in_place(|| (rt::task::try_id(), LABEL.get()));
                    (outer, inner)
                });
                rt::task::yield_now().await;
                (id, seen, LABEL.get())
            }));
            let (id, (outer, inner), after) = task.await.unwrap();
            assert_eq!(outer, (Some(id), 5));
            assert_eq!(inner, (Some(id), 5));
            assert_eq!(after, 5);
        });
    });
}

/// Outside a worker (on a thread of the blocking pool) `block_in_place`
/// has nothing to hand over and just calls the closure, on either flavour.
#[test]
fn block_in_place_inside_a_blocking_job_just_runs_the_closure() {
    limit("block_in_place in spawn_blocking", || {
        shim::runtime().block_on(async {
            let out = rt::task::spawn_blocking(|| {
                let thread = std::thread::current().id();
                rt::task::block_in_place(move || std::thread::current().id() == thread)
            })
            .await
            .unwrap();
            assert!(out, "the closure ran on the blocking thread itself");
        });
    });
}

/// A panic inside `block_in_place`'s closure unwinds into the task, which
/// ends with a panic `JoinError`; the runtime keeps its workers (the
/// metrics still count two) and goes on running tasks on them.
#[test]
fn a_panic_inside_block_in_place_is_the_tasks_join_error_and_the_workers_go_on() {
    if !shim::MULTI_THREAD {
        return; // block_in_place panics on a current-thread runtime
    }
    limit("panic in block_in_place", || {
        let runtime = shim::runtime();
        runtime.block_on(async {
            let error = rt::spawn(async {
                rt::task::block_in_place(|| -> u8 { panic!("in place") });
            })
            .await
            .unwrap_err();
            assert!(error.is_panic());
            assert_eq!(panic_message(&*error.into_panic()), "in place");
            let handles: Vec<_> = (0..32u32)
                .map(|n| {
                    rt::spawn(async move {
                        rt::task::yield_now().await;
                        n + 1
                    })
                })
                .collect();
            for (n, handle) in (0u32..).zip(handles) {
                assert_eq!(handle.await.unwrap(), n + 1);
            }
        });
        assert_eq!(runtime.metrics().num_workers(), 2);
    });
}

/// Many tasks going in and out of `block_in_place` again and again, with
/// awaits in between, all finish: each exit gives the thread back to the
/// workers or lets it go, and no task is lost on the way.
#[test]
fn many_tasks_in_and_out_of_block_in_place_all_finish() {
    if !shim::MULTI_THREAD {
        return; // block_in_place panics on a current-thread runtime
    }
    limit("block_in_place churn", || {
        shim::runtime().block_on(async {
            let handles: Vec<_> = (0..12u32)
                .map(|n| {
                    rt::spawn(async move {
                        let mut total = 0;
                        for round in 0..5u32 {
                            total += rt::task::block_in_place(|| {
                                std::thread::sleep(Duration::from_millis(1));
                                round
                            });
                            rt::task::yield_now().await;
                        }
                        total + n
                    })
                })
                .collect();
            for (n, handle) in (0u32..).zip(handles) {
                assert_eq!(handle.await.unwrap(), 10 + n);
            }
        });
    });
}

/// `JoinSet::shutdown`: "Aborts all tasks and waits for them to finish
/// shutting down." When it returns, every task's future has been dropped,
/// also a slow drop on another worker of a task caught in the middle of a
/// poll when the abort came.
#[test]
fn join_set_shutdown_returns_after_every_future_was_dropped() {
    limit("JoinSet::shutdown waits for the drops", || {
        shim::runtime().block_on(async {
            /// Takes a moment to drop, then sets its flag.
            struct SlowDrop(Arc<AtomicBool>);
            impl Drop for SlowDrop {
                fn drop(&mut self) {
                    std::thread::sleep(Duration::from_millis(5));
                    self.0.store(true, Ordering::SeqCst);
                }
            }
            let mut flags = Vec::new();
            let mut set = JoinSet::new();
            let running = Arc::new(AtomicBool::new(false));
            for n in 0..4 {
                let flag = Arc::new(AtomicBool::new(false));
                flags.push(flag.clone());
                let running = running.clone();
                // Made outside the future, so dropped with it even if it
                // never ran.
                let slow = SlowDrop(flag);
                set.spawn(async move {
                    let _slow = slow;
                    if n == 0 {
                        running.store(true, Ordering::SeqCst);
                        // Busy in its poll for a moment when the abort comes.
                        std::thread::sleep(Duration::from_millis(5));
                    }
                    std::future::pending::<()>().await;
                });
            }
            if shim::MULTI_THREAD {
                spin_until(&running);
            }
            set.shutdown().await;
            assert!(set.is_empty());
            for (n, flag) in flags.iter().enumerate() {
                assert!(
                    flag.load(Ordering::SeqCst),
                    "task {n}'s future was not dropped"
                );
            }
        });
    });
}

// ---- spawn_blocking -------------------------------------------------------------

/// `JoinHandle::abort`: "tasks spawned using spawn_blocking cannot be
/// aborted because they are not async. If you call abort on a
/// spawn_blocking task, then this will not have any effect, and the task
/// will continue running normally." Once started, the job is not finished
/// after the abort, and its handle still returns its value.
#[test]
fn a_running_blocking_job_ignores_abort_and_returns_its_value() {
    limit("abort a running blocking job", || {
        shim::runtime().block_on(async {
            let (started_tx, started_rx) = rt::sync::oneshot::channel::<()>();
            let (release_tx, release_rx) = mpsc::channel::<()>();
            let handle = rt::task::spawn_blocking(move || {
                started_tx.send(()).unwrap();
                release_rx.recv().unwrap();
                11u32
            });
            started_rx.await.unwrap();
            handle.abort();
            handle.abort_handle().abort();
            assert!(!handle.is_finished(), "the job is still running");
            release_tx.send(()).unwrap();
            assert_eq!(handle.await.unwrap(), 11);
        });
    });
}

/// A panic in a blocking job comes back as a `JoinError` that is a panic,
/// names the job's id (`JoinError::id`), prints as Tokio prints it
/// ("task {id} panicked with message {msg:?}") and gives the payload back.
#[test]
fn a_blocking_jobs_panic_is_a_join_error_naming_its_id_and_message() {
    limit("blocking job panic", || {
        shim::runtime().block_on(async {
            let handle = rt::task::spawn_blocking(|| -> u8 { panic!("blocking boom") });
            let id = handle.id();
            let error = handle.await.unwrap_err();
            assert!(error.is_panic());
            assert!(!error.is_cancelled());
            assert_eq!(error.id(), id);
            assert_eq!(
                error.to_string(),
                format!("task {id} panicked with message \"blocking boom\"")
            );
            let payload = error.try_into_panic().expect("a panic's payload");
            assert_eq!(panic_message(&*payload), "blocking boom");
        });
    });
}

// ---- panics around a task's output --------------------------------------------

/// A panicking task "does not take the runtime down", and neither does an
/// output whose drop panics when nobody holds the task's handle (the
/// runtime drops it): the runtime goes on running new tasks.
#[test]
fn a_detached_tasks_output_that_panics_when_dropped_leaves_the_runtime_running() {
    limit("output drop panics, detached", || {
        shim::runtime().block_on(async {
            let dropped = Arc::new(AtomicBool::new(false));
            let (go_tx, go_rx) = rt::sync::oneshot::channel::<()>();
            let flag = dropped.clone();
            drop(rt::spawn(async move {
                let _ = go_rx.await;
                PanicOnDrop(flag)
            }));
            go_tx.send(()).unwrap();
            until(|| dropped.load(Ordering::SeqCst)).await;
            let handles: Vec<_> = (0..8u32).map(|n| rt::spawn(async move { n * 2 })).collect();
            for (n, handle) in (0u32..).zip(handles) {
                assert_eq!(handle.await.unwrap(), n * 2);
            }
        });
    });
}

/// Dropping the `JoinHandle` of a finished task drops its output; a panic
/// in that drop is not the caller's to see (Tokio: "Given that they are
/// dropping the `JoinHandle`, we assume they are not interested in the
/// panic and swallow it").
#[test]
fn dropping_the_handle_of_a_finished_task_swallows_a_panic_in_its_outputs_drop() {
    limit("output drop panics, handle dropped", || {
        shim::runtime().block_on(async {
            let dropped = Arc::new(AtomicBool::new(false));
            let flag = dropped.clone();
            let handle = rt::spawn(async move { PanicOnDrop(flag) });
            until(|| handle.is_finished()).await;
            assert!(!dropped.load(Ordering::SeqCst), "the output waits for us");
            drop(handle);
            assert!(dropped.load(Ordering::SeqCst), "dropped with the handle");
            assert_eq!(rt::spawn(async { 1 }).await.unwrap(), 1);
        });
    });
}

// ---- JoinSet --------------------------------------------------------------------

/// `JoinSet::join_all`: "If any tasks on the JoinSet fail with an
/// JoinError, then this call to join_all will panic and all remaining
/// tasks on the JoinSet are cancelled." The panic is the task's own.
#[test]
fn join_all_that_panics_cancels_the_tasks_left_in_the_set() {
    limit("join_all cancels the rest", || {
        shim::runtime().block_on(async {
            let dropped = Arc::new(AtomicBool::new(false));
            let mut set = JoinSet::new();
            let flag = dropped.clone();
            set.spawn(async move {
                let _flag = FlagOnDrop(flag);
                std::future::pending::<()>().await;
            });
            set.spawn(async { panic!("one task failed") });
            let error = rt::spawn(set.join_all()).await.unwrap_err();
            assert!(error.is_panic());
            assert_eq!(panic_message(&*error.into_panic()), "one task failed");
            until(|| dropped.load(Ordering::SeqCst)).await;
        });
    });
}

/// `JoinSet::spawn_on` (and `Handle::spawn`) put the task on the runtime
/// of the handle given, not on the current one: it runs on that runtime's
/// threads, named by its `thread_name`.
#[test]
fn join_set_spawn_on_runs_the_task_on_the_given_runtime() {
    limit("JoinSet::spawn_on", || {
        let other = rt::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("audit-other-runtime")
            .enable_all()
            .build()
            .unwrap();
        let other_handle = other.handle().clone();
        shim::runtime().block_on(async move {
            let name = || std::thread::current().name().map(str::to_owned);
            let mut set = JoinSet::new();
            let abort = set.spawn_on(async move { name() }, &other_handle);
            let (id, seen) = set.join_next_with_id().await.unwrap().unwrap();
            assert_eq!(id, abort.id());
            assert_eq!(seen.as_deref(), Some("audit-other-runtime"));
            assert!(set.is_empty());
            let direct = other_handle.spawn(async move { name() }).await.unwrap();
            assert_eq!(direct.as_deref(), Some("audit-other-runtime"));
        });
        drop(other);
    });
}

// ---- abort ------------------------------------------------------------------------

/// "If the task is currently running, it will be cancelled the next time
/// it yields": an abort that lands while the task is in the middle of a
/// poll on another worker leaves it running (not finished) until its next
/// `.await`, and the code after that `.await` never runs.
#[test]
fn an_abort_during_a_poll_on_another_worker_takes_effect_at_its_next_await() {
    if !shim::MULTI_THREAD {
        return; // the task must run while block_on's thread aborts it
    }
    limit("abort a running task", || {
        let runtime = shim::runtime();
        let running = Arc::new(AtomicBool::new(false));
        let release = Arc::new(AtomicBool::new(false));
        let after = Arc::new(AtomicBool::new(false));
        let handle = {
            let (running, release, after) = (running.clone(), release.clone(), after.clone());
            runtime.spawn(async move {
                running.store(true, Ordering::SeqCst);
                spin_until(&release);
                rt::task::yield_now().await;
                after.store(true, Ordering::SeqCst);
            })
        };
        spin_until(&running);
        handle.abort();
        assert!(!handle.is_finished(), "still inside its poll");
        release.store(true, Ordering::SeqCst);
        let error = runtime.block_on(handle).unwrap_err();
        assert!(error.is_cancelled());
        assert!(!after.load(Ordering::SeqCst), "ran past its next await");
    });
}

// ---- runtime and metrics -------------------------------------------------------

/// `RuntimeMetrics::global_queue_depth`: "Tasks that are spawned or
/// notified from a non-runtime thread are scheduled using the runtime's
/// global queue": with both workers busy, three tasks spawned from outside
/// wait there (and count as alive), and the queue empties once the workers
/// are free.
#[test]
fn remote_spawns_wait_in_the_global_queue_while_the_workers_are_busy() {
    if !shim::MULTI_THREAD {
        return; // a current-thread runtime has no worker to keep busy
    }
    limit("global queue depth", || {
        let runtime = shim::runtime();
        let (started_tx, started_rx) = mpsc::channel::<()>();
        let mut releases = Vec::new();
        let mut busy = Vec::new();
        for _ in 0..2 {
            let (release_tx, release_rx) = mpsc::channel::<()>();
            releases.push(release_tx);
            let started = started_tx.clone();
            busy.push(runtime.spawn(async move {
                started.send(()).unwrap();
                release_rx.recv().unwrap();
            }));
        }
        started_rx.recv().unwrap();
        started_rx.recv().unwrap();
        let queued: Vec<_> = (0..3u32).map(|n| runtime.spawn(async move { n })).collect();
        let metrics = runtime.metrics();
        assert_eq!(metrics.global_queue_depth(), 3);
        assert_eq!(metrics.num_alive_tasks(), 5);
        for release in releases {
            release.send(()).unwrap();
        }
        runtime.block_on(async {
            for handle in busy {
                handle.await.unwrap();
            }
            for (n, handle) in (0u32..).zip(queued) {
                assert_eq!(handle.await.unwrap(), n);
            }
        });
        assert_eq!(runtime.metrics().global_queue_depth(), 0);
    });
}

/// Runs a task that spins on a worker until released, then `shutdown`s
/// the runtime while it spins (the call must return: `limit` fails a
/// hang), and only then releases the task.
fn shut_down_with_a_stuck_worker(
    what: &str,
    shutdown: impl FnOnce(rt::runtime::Runtime) + Send + 'static,
) {
    limit(what, move || {
        let runtime = shim::runtime();
        let running = Arc::new(AtomicBool::new(false));
        let release = Arc::new(AtomicBool::new(false));
        {
            let (running, release) = (running.clone(), release.clone());
            runtime.spawn(async move {
                running.store(true, Ordering::SeqCst);
                spin_until(&release);
            });
        }
        spin_until(&running);
        shutdown(runtime);
        release.store(true, Ordering::SeqCst);
    });
}

/// `Runtime::shutdown_timeout`: "Shuts down the runtime, waiting for at
/// most duration for all spawned work to stop." A task stuck in blocking
/// code on a worker does not hold the call past its timeout.
#[test]
fn shutdown_timeout_returns_while_a_worker_is_stuck_in_a_task() {
    if !shim::MULTI_THREAD {
        return; // on a current-thread runtime the task would run in block_on
    }
    shut_down_with_a_stuck_worker("shutdown_timeout with a stuck worker", |runtime| {
        runtime.shutdown_timeout(Duration::from_millis(50))
    });
}

/// `Runtime::shutdown_background`: "Shuts down the runtime, without
/// waiting for any spawned work to stop", also when a worker is stuck in a
/// task.
#[test]
fn shutdown_background_returns_while_a_worker_is_stuck_in_a_task() {
    if !shim::MULTI_THREAD {
        return; // on a current-thread runtime the task would run in block_on
    }
    shut_down_with_a_stuck_worker(
        "shutdown_background with a stuck worker",
        rt::runtime::Runtime::shutdown_background,
    );
}

/// `Builder::thread_keep_alive`: "Sets a custom timeout for a thread in
/// the blocking pool." An idle blocking thread exits once that time has
/// passed, while the runtime lives on (its `on_thread_stop` runs).
#[test]
fn an_idle_blocking_thread_exits_after_thread_keep_alive() {
    limit("thread_keep_alive", || {
        let stopped = Arc::new(AtomicUsize::new(0));
        let counter = stopped.clone();
        let runtime = shim::builder()
            .thread_keep_alive(Duration::from_millis(10))
            .on_thread_stop(move || {
                counter.fetch_add(1, Ordering::SeqCst);
            })
            .build()
            .unwrap();
        runtime.block_on(async {
            assert_eq!(stopped.load(Ordering::SeqCst), 0);
            rt::task::spawn_blocking(|| ()).await.unwrap();
            until(|| stopped.load(Ordering::SeqCst) >= 1).await;
            // The runtime itself goes on.
            assert_eq!(rt::spawn(async { 2 }).await.unwrap(), 2);
        });
    });
}

/// `Runtime::block_on` "runs the given future on the current thread": on
/// the multi-thread runtime too, the future stays on the caller's thread
/// across its awaits, while the tasks it spawns run on the workers.
#[test]
fn block_on_keeps_its_future_on_the_calling_thread() {
    if !shim::MULTI_THREAD {
        return; // on a current-thread runtime the tasks run here as well
    }
    limit("block_on thread", || {
        let caller = std::thread::current().id();
        shim::runtime().block_on(async move {
            for _ in 0..4 {
                let worker = rt::spawn(async { std::thread::current().id() })
                    .await
                    .unwrap();
                assert_ne!(worker, caller, "a task ran on block_on's thread");
                rt::task::yield_now().await;
                assert_eq!(std::thread::current().id(), caller);
            }
        });
    });
}

/// `Builder::worker_threads`: "The default value is the number of cores
/// available to the system."
#[test]
fn a_default_multi_thread_runtime_has_one_worker_per_core() {
    if std::env::var_os("TOKIO_WORKER_THREADS").is_some() {
        return; // Tokio's documented override is in force
    }
    limit("default worker count", || {
        let cores = std::thread::available_parallelism().unwrap().get();
        let runtime = rt::runtime::Builder::new_multi_thread().build().unwrap();
        assert_eq!(runtime.metrics().num_workers(), cores);
        drop(runtime);
        let runtime = rt::runtime::Runtime::new().unwrap();
        assert_eq!(
            runtime.handle().runtime_flavor(),
            rt::runtime::RuntimeFlavor::MultiThread
        );
        assert_eq!(runtime.metrics().num_workers(), cores);
    });
}

/// `#[test(flavor = "multi_thread")]` without `worker_threads` builds the
/// builder's default: one worker per core.
#[crate::rt::test(flavor = "multi_thread")]
async fn test_attribute_multi_thread_defaults_to_one_worker_per_core() {
    if std::env::var_os("TOKIO_WORKER_THREADS").is_some() {
        return; // Tokio's documented override is in force
    }
    let cores = std::thread::available_parallelism().unwrap().get();
    assert_eq!(
        rt::runtime::Handle::current().metrics().num_workers(),
        cores
    );
}

// ---- task-locals ------------------------------------------------------------------

rt::task_local! {
    static WHO: usize;
}

/// Each task's `scope` is its own: sixteen tasks on the workers, yielding
/// over and over (and so moving between threads), each read only the
/// value their own scope set, and `block_on`'s future none.
#[test]
fn each_task_reads_its_own_task_local_across_yields() {
    limit("task-locals per task", || {
        shim::runtime().block_on(async {
            let handles: Vec<_> = (0..16usize)
                .map(|n| {
                    rt::spawn(WHO.scope(n, async move {
                        for _ in 0..20 {
                            rt::task::yield_now().await;
                            assert_eq!(WHO.get(), n);
                        }
                        WHO.get()
                    }))
                })
                .collect();
            for (n, handle) in handles.into_iter().enumerate() {
                assert_eq!(handle.await.unwrap(), n);
            }
            assert!(WHO.try_with(|_| ()).is_err());
        });
    });
}

rt::task_local! {
    static DEPTH: u32;
}

/// `try_with` outside a scope is an `AccessError`, which prints as Tokio's
/// ("task-local value not set"; `AccessError` in debug); a `sync_scope`
/// whose closure panics puts the outer value back as it unwinds.
#[test]
fn sync_scope_restores_the_outer_value_after_a_panic_and_access_error_prints_as_tokios() {
    limit("sync_scope and AccessError", || {
        let error = DEPTH.try_with(|depth| *depth).unwrap_err();
        assert_eq!(error.to_string(), "task-local value not set");
        assert_eq!(format!("{error:?}"), "AccessError");
        let seen = DEPTH.sync_scope(1, || {
            let caught = std::panic::catch_unwind(|| {
                DEPTH.sync_scope(2, || {
                    assert_eq!(DEPTH.get(), 2);
                    panic!("inner scope fails");
                })
            });
            assert!(caught.is_err());
            DEPTH.get()
        });
        assert_eq!(seen, 1);
        assert!(DEPTH.try_get().is_err());
    });
}

// ---- macros -----------------------------------------------------------------------

/// `select!` takes up to 64 branches (Tokio: "select! ... Up to 64
/// branches"): the last of 64 is the only one ready, and wins.
#[test]
fn select_takes_sixty_four_branches() {
    limit("select of 64 branches", || {
        shim::runtime().block_on(async {
            let value = rt::select! {
                _ = std::future::pending::<()>() => unreachable!("branch 0"),
                _ = std::future::pending::<()>() => unreachable!("branch 1"),
                _ = std::future::pending::<()>() => unreachable!("branch 2"),
                _ = std::future::pending::<()>() => unreachable!("branch 3"),
                _ = std::future::pending::<()>() => unreachable!("branch 4"),
                _ = std::future::pending::<()>() => unreachable!("branch 5"),
                _ = std::future::pending::<()>() => unreachable!("branch 6"),
                _ = std::future::pending::<()>() => unreachable!("branch 7"),
                _ = std::future::pending::<()>() => unreachable!("branch 8"),
                _ = std::future::pending::<()>() => unreachable!("branch 9"),
                _ = std::future::pending::<()>() => unreachable!("branch 10"),
                _ = std::future::pending::<()>() => unreachable!("branch 11"),
                _ = std::future::pending::<()>() => unreachable!("branch 12"),
                _ = std::future::pending::<()>() => unreachable!("branch 13"),
                _ = std::future::pending::<()>() => unreachable!("branch 14"),
                _ = std::future::pending::<()>() => unreachable!("branch 15"),
                _ = std::future::pending::<()>() => unreachable!("branch 16"),
                _ = std::future::pending::<()>() => unreachable!("branch 17"),
                _ = std::future::pending::<()>() => unreachable!("branch 18"),
                _ = std::future::pending::<()>() => unreachable!("branch 19"),
                _ = std::future::pending::<()>() => unreachable!("branch 20"),
                _ = std::future::pending::<()>() => unreachable!("branch 21"),
                _ = std::future::pending::<()>() => unreachable!("branch 22"),
                _ = std::future::pending::<()>() => unreachable!("branch 23"),
                _ = std::future::pending::<()>() => unreachable!("branch 24"),
                _ = std::future::pending::<()>() => unreachable!("branch 25"),
                _ = std::future::pending::<()>() => unreachable!("branch 26"),
                _ = std::future::pending::<()>() => unreachable!("branch 27"),
                _ = std::future::pending::<()>() => unreachable!("branch 28"),
                _ = std::future::pending::<()>() => unreachable!("branch 29"),
                _ = std::future::pending::<()>() => unreachable!("branch 30"),
                _ = std::future::pending::<()>() => unreachable!("branch 31"),
                _ = std::future::pending::<()>() => unreachable!("branch 32"),
                _ = std::future::pending::<()>() => unreachable!("branch 33"),
                _ = std::future::pending::<()>() => unreachable!("branch 34"),
                _ = std::future::pending::<()>() => unreachable!("branch 35"),
                _ = std::future::pending::<()>() => unreachable!("branch 36"),
                _ = std::future::pending::<()>() => unreachable!("branch 37"),
                _ = std::future::pending::<()>() => unreachable!("branch 38"),
                _ = std::future::pending::<()>() => unreachable!("branch 39"),
                _ = std::future::pending::<()>() => unreachable!("branch 40"),
                _ = std::future::pending::<()>() => unreachable!("branch 41"),
                _ = std::future::pending::<()>() => unreachable!("branch 42"),
                _ = std::future::pending::<()>() => unreachable!("branch 43"),
                _ = std::future::pending::<()>() => unreachable!("branch 44"),
                _ = std::future::pending::<()>() => unreachable!("branch 45"),
                _ = std::future::pending::<()>() => unreachable!("branch 46"),
                _ = std::future::pending::<()>() => unreachable!("branch 47"),
                _ = std::future::pending::<()>() => unreachable!("branch 48"),
                _ = std::future::pending::<()>() => unreachable!("branch 49"),
                _ = std::future::pending::<()>() => unreachable!("branch 50"),
                _ = std::future::pending::<()>() => unreachable!("branch 51"),
                _ = std::future::pending::<()>() => unreachable!("branch 52"),
                _ = std::future::pending::<()>() => unreachable!("branch 53"),
                _ = std::future::pending::<()>() => unreachable!("branch 54"),
                _ = std::future::pending::<()>() => unreachable!("branch 55"),
                _ = std::future::pending::<()>() => unreachable!("branch 56"),
                _ = std::future::pending::<()>() => unreachable!("branch 57"),
                _ = std::future::pending::<()>() => unreachable!("branch 58"),
                _ = std::future::pending::<()>() => unreachable!("branch 59"),
                _ = std::future::pending::<()>() => unreachable!("branch 60"),
                _ = std::future::pending::<()>() => unreachable!("branch 61"),
                _ = std::future::pending::<()>() => unreachable!("branch 62"),
                v = async { 63u8 } => v,
            };
            assert_eq!(value, 63);
        });
    });
}

/// `JoinError`'s `Debug` is Tokio's: `JoinError::Cancelled(Id(n))` for
/// an aborted task, `JoinError::Panic(Id(n), "message", ...)` for a panic
/// with a string message.
#[test]
fn join_errors_debug_as_tokios() {
    limit("JoinError Debug", || {
        shim::runtime().block_on(async {
            let handle = rt::spawn(std::future::pending::<()>());
            let id = handle.id();
            handle.abort();
            let error = handle.await.unwrap_err();
            assert_eq!(
                format!("{error:?}"),
                format!("JoinError::Cancelled({id:?})")
            );
            assert_eq!(format!("{id:?}"), format!("Id({id})"));

            let handle = rt::spawn(async { panic!("debugged") });
            let id = handle.id();
            let error = handle.await.unwrap_err();
            assert_eq!(
                format!("{error:?}"),
                format!("JoinError::Panic({id:?}, \"debugged\", ...)")
            );
        });
    });
}

/// `Builder::on_thread_start` / `on_thread_stop` run on the runtime's own
/// threads, "before it starts doing work" and at their end, with the
/// runtime entered (as Tokio runs them): `Handle::try_current` finds it
/// in both, on the worker threads and on the blocking pool's.
#[test]
fn thread_hooks_run_inside_the_runtime_context() {
    limit("thread hooks in context", || {
        let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
        let (start_seen, stop_seen) = (seen.clone(), seen.clone());
        let runtime = shim::builder()
            .on_thread_start(move || {
                let found = rt::runtime::Handle::try_current().is_ok();
                start_seen.lock().unwrap().push(("start", found));
            })
            .on_thread_stop(move || {
                let found = rt::runtime::Handle::try_current().is_ok();
                stop_seen.lock().unwrap().push(("stop", found));
            })
            .build()
            .unwrap();
        runtime.block_on(async {
            rt::task::spawn_blocking(|| ()).await.unwrap();
        });
        drop(runtime);
        let seen = seen.lock().unwrap();
        assert!(seen.iter().any(|(hook, _)| *hook == "start"));
        assert!(seen.iter().any(|(hook, _)| *hook == "stop"));
        assert!(
            seen.iter().all(|(_, found)| *found),
            "a hook ran outside the runtime: {seen:?}"
        );
    });
}

/// One builder may build several runtimes; each runtime's threads run the
/// hooks inside that runtime, not the first one built.
#[test]
fn thread_hooks_of_a_second_runtime_from_one_builder_see_that_runtime() {
    limit("hooks of two runtimes", || {
        let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
        let record = seen.clone();
        let mut builder = rt::runtime::Builder::new_multi_thread();
        builder.enable_all().on_thread_start(move || {
            let name = std::thread::current().name().unwrap_or_default().to_owned();
            let workers = rt::runtime::Handle::try_current()
                .map(|handle| handle.metrics().num_workers())
                .ok();
            record.lock().unwrap().push((name, workers));
        });
        let first = builder
            .worker_threads(1)
            .thread_name("audit-first")
            .build()
            .unwrap();
        let second = builder
            .worker_threads(3)
            .thread_name("audit-second")
            .build()
            .unwrap();
        first.block_on(async { rt::task::spawn_blocking(|| ()).await.unwrap() });
        second.block_on(async { rt::task::spawn_blocking(|| ()).await.unwrap() });
        drop(first);
        drop(second);
        let seen = seen.lock().unwrap();
        assert!(seen.len() >= 6, "every thread ran the start hook: {seen:?}");
        for (name, workers) in seen.iter() {
            let expected = if name.starts_with("audit-first") {
                1
            } else {
                3
            };
            assert_eq!(*workers, Some(expected), "thread {name:?}");
        }
    });
}

/// Inside `block_in_place` the task has left the runtime's async context
/// (the closure may block as any plain thread may): it may build, run and
/// drop a runtime of its own there.
#[test]
fn block_in_place_may_run_and_drop_a_runtime_of_its_own() {
    if !shim::MULTI_THREAD {
        return; // block_in_place panics on a current-thread runtime
    }
    limit("a runtime inside block_in_place", || {
        shim::runtime().block_on(async {
            let out = rt::spawn(async {
                rt::task::block_in_place(|| {
                    let inner = rt::runtime::Builder::new_current_thread()
                        .enable_all()
                        .build()
                        .unwrap();
                    let value = inner.block_on(async { rt::spawn(async { 5 }).await.unwrap() });
                    drop(inner);
                    value
                })
            })
            .await
            .unwrap();
            assert_eq!(out, 5);
        });
    });
}

/// While one task blocks inside `block_in_place`, a task it spawns from
/// the closure runs on the other threads and can release it.
#[test]
fn a_task_spawned_inside_block_in_place_runs_while_the_closure_blocks() {
    if !shim::MULTI_THREAD {
        return; // block_in_place panics on a current-thread runtime
    }
    limit("spawn inside block_in_place", || {
        shim::runtime().block_on(async {
            let out = rt::spawn(async {
                rt::task::block_in_place(|| {
                    let (tx, rx) = mpsc::channel();
                    let helper = rt::spawn(async move {
                        tx.send(9u8).unwrap();
                    });
                    let got = rx.recv().unwrap();
                    (got, helper)
                })
            })
            .await
            .unwrap();
            assert_eq!(out.0, 9);
            out.1.await.unwrap();
        });
    });
}

/// `select!`: "If the branch is disabled, <async expression> is still
/// evaluated, but the resulting future is not polled."
#[test]
fn a_disabled_select_branch_is_evaluated_but_never_polled() {
    limit("select disabled branch", || {
        shim::runtime().block_on(async {
            let made = AtomicBool::new(false);
            let polled = Arc::new(AtomicBool::new(false));
            let make = || {
                made.store(true, Ordering::SeqCst);
                let polled = polled.clone();
                std::future::poll_fn(move |_| {
                    polled.store(true, Ordering::SeqCst);
                    Poll::Ready(1)
                })
            };
            let off = false;
            let value = rt::select! {
                v = make(), if off => v,
                v = async { 2 } => v,
            };
            assert_eq!(value, 2);
            assert!(made.load(Ordering::SeqCst), "the expression was evaluated");
            assert!(
                !polled.load(Ordering::SeqCst),
                "the disabled future was polled"
            );
        });
    });
}

/// `join!`: "By running all async expressions on the current task, the
/// expressions are able to run concurrently but not in parallel": every
/// branch, inside a spawned task, sees that task's id.
#[test]
fn join_runs_every_branch_on_the_calling_task() {
    limit("join! on one task", || {
        shim::runtime().block_on(async {
            let task = rt::spawn(async {
                let own = rt::task::id();
                let (a, b, c) = rt::join!(
                    async { rt::task::id() },
                    async {
                        rt::task::yield_now().await;
                        rt::task::id()
                    },
                    async { rt::task::try_id() },
                );
                (own, a, b, c)
            });
            let (own, a, b, c) = task.await.unwrap();
            assert_eq!((a, b, c), (own, own, Some(own)));
        });
    });
}
