//! The current-thread runtime and what programs do with it, as Tokio
//! documents it (an audit of the edges the other files leave out).
//!
//! Covers task ids outside a task, a task that aborts itself (spawned and
//! local), panics and wakes around shutdown (a destructor that panics, a
//! waker kept past the runtime, `shutdown_timeout` in async code, a runtime
//! dropped in a blocking job), "the destructor has finished before
//! completion is observed", `LocalSet` (its `block_on` inside a runtime,
//! `spawn_local` in a task that is not local and in a destructor run as
//! the set is dropped, nested sets, a local task that yields for ever, a
//! set that outlives its runtime, local handles used from other tasks and
//! threads), `JoinSet` on one thread (`join_next` cancelled after each
//! poll, `shutdown` and `spawn_local`), `block_in_place` where no runtime
//! runs, the current-thread builder's thread hooks, intervals and
//! `worker_threads`, its metrics, wakes from other OS threads, and
//! `Runtime` shared between threads.
//!
//! Each test is written from Tokio 1.54's documentation and was first made
//! to pass against Tokio, which compiles this same file in
//! `behaviour_tokio.rs`: a failure in the Tokio build is a wrong test, one
//! in the rt build a place where rt departs from Tokio.

use crate::behaviour::{expect_panic, limit, says, tcp_pair};
use crate::{rt, shim};
use rt::task::{JoinSet, LocalSet};
use std::cell::Cell;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};
use std::time::Duration;

/// Tokio's words when a runtime is blocked on from inside one.
const NESTED: &str = "Cannot start a runtime from within a runtime";
/// Tokio's words when a runtime is dropped (or waited for) in async code.
const NO_BLOCKING: &str = "Cannot drop a runtime in a context where blocking is not allowed";
/// Tokio's words for `spawn_local` outside a `LocalSet`.
const NOT_LOCAL: &str = "`spawn_local` called from outside of a `task::LocalSet`";

/// A current-thread runtime with I/O and timers, whatever the entry file's
/// flavour: for the tests about that flavour.
fn current_thread() -> rt::runtime::Runtime {
    current_thread_builder().build().expect("build a runtime")
}

fn current_thread_builder() -> rt::runtime::Builder {
    let mut builder = rt::runtime::Builder::new_current_thread();
    builder.enable_all();
    builder
}

/// Sets its flag when dropped.
struct FlagOnDrop(Arc<AtomicBool>);

impl Drop for FlagOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

/// Panics when dropped (unless the thread is already panicking).
struct PanicOnDrop;

impl Drop for PanicOnDrop {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            panic!("dropped at shutdown");
        }
    }
}

fn flag() -> Arc<AtomicBool> {
    Arc::new(AtomicBool::new(false))
}

fn is_set(flag: &AtomicBool) -> bool {
    flag.load(Ordering::SeqCst)
}

// ---- Task ids and aborts ------------------------------------------------------

/// `task::id()`: "This function panics if called from outside a task.
/// Please note that calls to `block_on` do not have task IDs, so the method
/// will panic if called from within a call to `block_on`." Tokio's message
/// is "Can't get a task id when not inside a task": the same in
/// `block_on`'s future, under `Handle::enter`, and on a plain thread.
#[test]
fn task_id_outside_a_task_panics_with_tokios_words() {
    const WORDS: &str = "Can't get a task id when not inside a task";
    limit("task::id outside a task", || {
        let runtime = current_thread();
        let caught = runtime.block_on(async { expect_panic("task::id in block_on", rt::task::id) });
        caught.assert_says(WORDS);
        {
            let _entered = runtime.enter();
            expect_panic("task::id under enter", rt::task::id).assert_says(WORDS);
            assert_eq!(rt::task::try_id(), None);
        }
        expect_panic("task::id on a plain thread", rt::task::id).assert_says(WORDS);
    });
}

/// `JoinHandle::abort`: a task that is running is cancelled "the next time
/// it yields" (at an `.await` that returns `Pending`). A task that aborts
/// itself and then returns without yielding again has completed: its
/// handle gives the output, and `is_finished` is true.
#[test]
fn a_task_that_aborts_itself_and_returns_at_once_keeps_its_output() {
    limit("self-abort then return", || {
        shim::runtime().block_on(async {
            let (abort_tx, abort_rx) = rt::sync::oneshot::channel::<rt::task::AbortHandle>();
            let handle = rt::spawn(async move {
                let own = abort_rx.await.unwrap();
                own.abort();
                7
            });
            abort_tx.send(handle.abort_handle()).unwrap();
            let abort = handle.abort_handle();
            assert_eq!(handle.await.unwrap(), 7);
            assert!(abort.is_finished());
        });
    });
}

/// The same two cases for tasks on a `LocalSet` (whose handles are the
/// same `JoinHandle`): a local task that aborts itself stops at its next
/// `.await` (what follows never runs, the handle says cancelled and names
/// the task), and one that returns at once keeps its output.
#[test]
fn a_local_task_that_aborts_itself_stops_at_its_next_await_or_keeps_its_output() {
    limit("local self-abort", || {
        let runtime = shim::runtime();
        let local = LocalSet::new();
        local.block_on(&runtime, async {
            let after = Rc::new(Cell::new(false));
            let (abort_tx, abort_rx) = rt::sync::oneshot::channel::<rt::task::AbortHandle>();
            let seen = after.clone();
            let yielding = rt::task::spawn_local(async move {
                abort_rx.await.unwrap().abort();
                rt::task::yield_now().await;
                seen.set(true);
                1
            });
            let id = yielding.id();
            abort_tx.send(yielding.abort_handle()).unwrap();
            let error = yielding.await.unwrap_err();
            assert!(error.is_cancelled(), "{error:?}");
            assert_eq!(error.id(), id);
            assert!(!after.get(), "the task ran past the await after its abort");

            let (abort_tx, abort_rx) = rt::sync::oneshot::channel::<rt::task::AbortHandle>();
            let returning = rt::task::spawn_local(async move {
                abort_rx.await.unwrap().abort();
                2
            });
            abort_tx.send(returning.abort_handle()).unwrap();
            assert_eq!(returning.await.unwrap(), 2);
        });
    });
}

// ---- Shutdown -------------------------------------------------------------------

/// Dropping the runtime drops every task's future; a future whose drop
/// panics does not stop that: the panic is caught as it is in a poll
/// ("panics in tasks are caught"), the other tasks are still dropped, the
/// drop of the runtime returns normally, and the task's handle reports a
/// panic, not a cancellation.
#[test]
fn a_panic_in_a_tasks_drop_at_shutdown_is_its_join_error_and_shutdown_goes_on() {
    limit("panicking drop at shutdown", || {
        let runtime = current_thread();
        let dropped = [flag(), flag()];
        let before = {
            let flag = FlagOnDrop(dropped[0].clone());
            runtime.spawn(async move {
                let _flag = flag;
                std::future::pending::<()>().await;
            })
        };
        let panicking = runtime.spawn(async {
            let _bomb = PanicOnDrop;
            std::future::pending::<()>().await;
        });
        let after = {
            let flag = FlagOnDrop(dropped[1].clone());
            runtime.spawn(async move {
                let _flag = flag;
                std::future::pending::<()>().await;
            })
        };
        // Every task has been polled once and waits.
        runtime.block_on(async {
            for _ in 0..3 {
                rt::task::yield_now().await;
            }
        });
        drop(runtime);
        assert!(
            dropped.iter().all(|flag| is_set(flag)),
            "a future was not dropped"
        );
        let error = futures::executor::block_on(panicking).unwrap_err();
        assert!(error.is_panic(), "{error:?}");
        let message = crate::behaviour::panic_message(&*error.into_panic());
        says(&message, "dropped at shutdown");
        for handle in [before, after] {
            let error = futures::executor::block_on(handle).unwrap_err();
            assert!(error.is_cancelled(), "{error:?}");
        }
    });
}

/// `shutdown_background` "is equivalent to calling
/// `shutdown_timeout(Duration::from_nanos(0))`", which may be called from
/// async code; a `shutdown_timeout` that would wait, like a drop, panics
/// there ("Cannot drop a runtime in a context where blocking is not
/// allowed"). Either way the tasks of the inner (current-thread) runtime
/// are dropped.
#[test]
fn shutdown_timeout_in_async_code_panics_unless_its_timeout_is_zero() {
    limit("shutdown_timeout in async code", || {
        current_thread().block_on(async {
            let inner = current_thread();
            let dropped = flag();
            let guard = FlagOnDrop(dropped.clone());
            inner.spawn(async move {
                let _guard = guard;
                std::future::pending::<()>().await;
            });
            inner.shutdown_timeout(Duration::ZERO);
            assert!(is_set(&dropped));

            let inner = current_thread();
            let dropped = flag();
            let guard = FlagOnDrop(dropped.clone());
            inner.spawn(async move {
                let _guard = guard;
                std::future::pending::<()>().await;
            });
            expect_panic("shutdown_timeout(10 ms) in block_on", || {
                inner.shutdown_timeout(Duration::from_millis(10))
            })
            .assert_says(NO_BLOCKING);
            assert!(is_set(&dropped));
        });
    });
}

/// A blocking job is not async code: a runtime may be dropped there (its
/// drop "will block" until its work is done, which is allowed on a
/// blocking thread), and its pending tasks are dropped.
#[test]
fn a_runtime_may_be_dropped_inside_a_blocking_job() {
    limit("drop a runtime in spawn_blocking", || {
        let outer = current_thread();
        let dropped = outer.block_on(async {
            rt::task::spawn_blocking(|| {
                let inner = current_thread();
                let dropped = flag();
                let guard = FlagOnDrop(dropped.clone());
                inner.spawn(async move {
                    let _guard = guard;
                    std::future::pending::<()>().await;
                });
                drop(inner);
                is_set(&dropped)
            })
            .await
            .unwrap()
        });
        assert!(dropped, "the inner runtime's task was not dropped");
    });
}

/// A future that, on its first poll, hands its waker out and then waits
/// for ever.
struct LeakWaker(Arc<Mutex<Option<Waker>>>);

impl Future for LeakWaker {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        *self.0.lock().unwrap() = Some(cx.waker().clone());
        Poll::Pending
    }
}

/// Dropping the runtime drops its tasks; a waker of one of them that
/// outlives the runtime may still be woken, from this thread or another,
/// and nothing happens (no panic, the future is not brought back).
#[test]
fn a_waker_that_outlives_its_runtime_does_nothing_when_woken() {
    limit("wake after the runtime is gone", || {
        let runtime = current_thread();
        let slot = Arc::new(Mutex::new(None));
        let dropped = flag();
        {
            let slot = slot.clone();
            let guard = FlagOnDrop(dropped.clone());
            runtime.spawn(async move {
                let _guard = guard;
                LeakWaker(slot).await;
            });
        }
        runtime.block_on(async {
            while slot.lock().unwrap().is_none() {
                rt::task::yield_now().await;
            }
        });
        drop(runtime);
        assert!(is_set(&dropped));
        let waker = slot
            .lock()
            .unwrap()
            .take()
            .expect("the task gave its waker");
        waker.wake_by_ref();
        let other = waker.clone();
        std::thread::spawn(move || other.wake()).join().unwrap();
        waker.wake();
    });
}

// ---- LocalSet -------------------------------------------------------------------

/// `LocalSet::block_on` "runs a future to completion on the provided
/// runtime" and so panics where `Runtime::block_on` does: inside a
/// runtime ("Cannot start a runtime from within a runtime").
#[test]
fn local_set_block_on_inside_a_runtime_panics() {
    limit("LocalSet::block_on in block_on", || {
        let outer = shim::runtime();
        let inner = current_thread();
        let caught = outer.block_on(async {
            let local = LocalSet::new();
            expect_panic("LocalSet::block_on in a runtime", || {
                local.block_on(&inner, async {})
            })
        });
        caught.assert_says(NESTED);
    });
}

/// `spawn_local` "panics if called outside of a `LocalSet`": a task made
/// with `spawn` inside `LocalSet::block_on` is not a local task (it runs on
/// the runtime, not in the set), so `spawn_local` there panics, and the
/// panic is that task's `JoinError`.
#[test]
fn spawn_local_in_a_task_made_with_spawn_inside_a_local_set_panics() {
    limit("spawn_local in a spawned task", || {
        let runtime = shim::runtime();
        let local = LocalSet::new();
        let error = local.block_on(&runtime, async {
            rt::spawn(async {
                drop(rt::task::spawn_local(async {}));
            })
            .await
            .unwrap_err()
        });
        assert!(error.is_panic(), "{error:?}");
        says(
            &crate::behaviour::panic_message(&*error.into_panic()),
            NOT_LOCAL,
        );
    });
}

/// `JoinSet::spawn_local`: "This method panics if it is called outside of
/// a `LocalSet`."
#[test]
fn join_set_spawn_local_outside_a_local_set_panics() {
    limit("JoinSet::spawn_local outside a set", || {
        shim::runtime().block_on(async {
            let mut set = JoinSet::new();
            expect_panic("JoinSet::spawn_local", || set.spawn_local(async { 1 }))
                .assert_says(NOT_LOCAL);
            assert!(set.is_empty());
        });
    });
}

/// A local task's future is dropped when its set is; if its destructor
/// calls `spawn_local`, the set is still the current one there (no panic)
/// but it takes no new task: the new task's future is dropped unpolled and
/// its handle says cancelled. Both tasks count as finished
/// (`is_finished`: "a task that was cancelled has finished").
#[test]
fn a_local_destructor_may_spawn_local_while_its_set_is_dropped() {
    /// Spawns a local task when dropped; keeps its handle in `handle`.
    struct SpawnOnDrop {
        handle: Rc<Cell<Option<rt::task::JoinHandle<()>>>>,
        ran: Rc<Cell<bool>>,
        dropped: Arc<AtomicBool>,
    }
    impl Drop for SpawnOnDrop {
        fn drop(&mut self) {
            let ran = self.ran.clone();
            let guard = FlagOnDrop(self.dropped.clone());
            self.handle.set(Some(rt::task::spawn_local(async move {
                let _guard = guard;
                ran.set(true);
            })));
        }
    }
    limit("spawn_local in a destructor at set drop", || {
        let runtime = current_thread();
        let handle = Rc::new(Cell::new(None));
        let ran = Rc::new(Cell::new(false));
        let dropped = flag();
        let local = LocalSet::new();
        let spawner = SpawnOnDrop {
            handle: handle.clone(),
            ran: ran.clone(),
            dropped: dropped.clone(),
        };
        let first = local.spawn_local(async move {
            let _spawner = spawner;
            std::future::pending::<()>().await;
        });
        // The task starts and waits; then the set goes.
        local.block_on(&runtime, rt::task::yield_now());
        assert!(!first.is_finished());
        drop(local);
        assert!(
            first.is_finished(),
            "a task dropped with its set has finished"
        );
        let late = handle.take().expect("the destructor spawned");
        assert!(is_set(&dropped), "the late task's future is still alive");
        assert!(!ran.get(), "the late task ran");
        assert!(late.is_finished());
        assert!(runtime.block_on(first).unwrap_err().is_cancelled());
        let error = runtime.block_on(late).unwrap_err();
        assert!(error.is_cancelled(), "{error:?}");
    });
}

/// `spawn_local` spawns onto "the current `LocalSet`": inside the
/// `run_until` of a set nested in a task of another, that is the inner
/// set; once the inner `run_until` has returned, the outer set again. A
/// set awaited as a future ("runs until all its tasks have completed")
/// with no task returns at once.
#[test]
fn nested_local_sets_spawn_onto_the_innermost_then_the_outer_again() {
    limit("nested LocalSets", || {
        let runtime = shim::runtime();
        let outer = LocalSet::new();
        let order = outer.block_on(&runtime, async {
            rt::task::spawn_local(async {
                let order = Rc::new(std::cell::RefCell::new(Vec::new()));
                let inner = LocalSet::new();
                let log = order.clone();
                inner
                    .run_until(async move {
                        let log2 = log.clone();
                        rt::task::spawn_local(async move { log2.borrow_mut().push("inner") })
                            .await
                            .unwrap();
                    })
                    .await;
                // The inner set is no longer polled: a task spawned now
                // can complete only if it went to the outer set.
                let log = order.clone();
                rt::task::spawn_local(async move { log.borrow_mut().push("outer") })
                    .await
                    .unwrap();
                LocalSet::new().await;
                inner.await;
                order.take()
            })
            .await
            .unwrap()
        });
        assert_eq!(order, ["inner", "outer"]);
    });
}

/// A local task that loops on `yield_now` for ever does not keep the
/// timers and sockets of the `run_until` future from being served
/// (`yield_now`: the runtime "may choose to poll the task again" only
/// after the others; the driver runs between).
#[test]
fn a_local_task_yielding_for_ever_does_not_starve_timers_or_sockets() {
    limit("local yield loop", || {
        let runtime = shim::runtime();
        let local = LocalSet::new();
        let spins = Rc::new(Cell::new(0u64));
        let counter = spins.clone();
        local.spawn_local(async move {
            loop {
                counter.set(counter.get() + 1);
                rt::task::yield_now().await;
            }
        });
        let received = local.block_on(&runtime, async {
            rt::time::sleep(Duration::from_millis(5)).await;
            let (mut a, mut b) = tcp_pair().await;
            shim::write_all(&mut a, b"ping").await.unwrap();
            let mut buf = [0u8; 4];
            shim::read_exact(&mut b, &mut buf).await.unwrap();
            buf
        });
        assert_eq!(&received, b"ping");
        assert!(spins.get() > 0, "the local task never ran");
    });
}

// ---- block_in_place where no runtime runs --------------------------------------

/// `block_in_place` panics on the current-thread runtime, but "outside of
/// the tokio runtime, blocking is fine": on a plain thread, under
/// `Handle::enter` of a current-thread runtime (entering is not running
/// it), and in a blocking job of that runtime, the closure simply runs
/// there.
#[test]
fn block_in_place_where_no_runtime_runs_calls_the_closure() {
    limit("block_in_place outside a runtime", || {
        let me = std::thread::current().id();
        assert_eq!(rt::task::block_in_place(|| std::thread::current().id()), me);
        let runtime = current_thread();
        {
            let _entered = runtime.enter();
            assert_eq!(rt::task::block_in_place(|| 5), 5);
        }
        let value = runtime.block_on(async {
            rt::task::spawn_blocking(|| rt::task::block_in_place(|| 6))
                .await
                .unwrap()
        });
        assert_eq!(value, 6);
    });
}

// ---- The builder's hooks and intervals ------------------------------------------

/// On a current-thread runtime the tasks run on the thread in `block_on`,
/// which the runtime does not start: `on_thread_start` and
/// `on_thread_stop` run only for the threads it does start, those of the
/// blocking pool (on the thread itself).
#[test]
fn current_thread_start_hooks_run_only_for_blocking_threads() {
    limit("current-thread start hooks", || {
        let started = Arc::new(Mutex::new(Vec::new()));
        let stops = Arc::new(AtomicUsize::new(0));
        let runtime = {
            let started = started.clone();
            let stops = stops.clone();
            current_thread_builder()
                .on_thread_start(move || started.lock().unwrap().push(std::thread::current().id()))
                .on_thread_stop(move || {
                    stops.fetch_add(1, Ordering::SeqCst);
                })
                .build()
                .unwrap()
        };
        runtime.block_on(async {
            rt::spawn(async {}).await.unwrap();
            rt::time::sleep(Duration::from_millis(1)).await;
        });
        assert!(
            started.lock().unwrap().is_empty(),
            "a thread started for block_on"
        );
        let job_thread = runtime.block_on(async {
            rt::task::spawn_blocking(|| std::thread::current().id())
                .await
                .unwrap()
        });
        assert_ne!(job_thread, std::thread::current().id());
        assert_eq!(*started.lock().unwrap(), [job_thread]);
        drop(runtime);
        assert_eq!(stops.load(Ordering::SeqCst), 1);
    });
}

/// `on_thread_park` / `on_thread_unpark` on a current-thread runtime run
/// on the thread that drives it, the one in `block_on`, when it goes idle
/// and wakes up.
#[test]
fn current_thread_park_hooks_run_on_the_thread_in_block_on() {
    limit("current-thread park hooks", || {
        let parked = Arc::new(Mutex::new(Vec::new()));
        let unparked = Arc::new(Mutex::new(Vec::new()));
        let runtime = {
            let parked = parked.clone();
            let unparked = unparked.clone();
            current_thread_builder()
                .on_thread_park(move || parked.lock().unwrap().push(std::thread::current().id()))
                .on_thread_unpark(move || {
                    unparked.lock().unwrap().push(std::thread::current().id())
                })
                .build()
                .unwrap()
        };
        runtime.block_on(async {
            rt::time::sleep(Duration::from_millis(2)).await;
        });
        let me = std::thread::current().id();
        let parked = parked.lock().unwrap().clone();
        let unparked = unparked.lock().unwrap().clone();
        assert!(!parked.is_empty(), "never parked");
        assert!(!unparked.is_empty(), "never unparked");
        assert!(parked.iter().chain(&unparked).all(|id| *id == me));
    });
}

/// `event_interval` and `global_queue_interval` of 1 (the smallest
/// accepted) on a current-thread runtime: the driver and the remote queue
/// are looked at on every tick, and everything still runs: tasks spawned
/// from another thread, local ones that yield, timers and sockets.
#[test]
fn intervals_of_one_still_run_everything() {
    limit("intervals of one", || {
        let runtime = current_thread_builder()
            .event_interval(1)
            .global_queue_interval(1)
            .build()
            .unwrap();
        let handle = runtime.handle().clone();
        let remote = std::thread::spawn(move || {
            (0..20u64)
                .map(|n| handle.spawn(async move { n }))
                .collect::<Vec<_>>()
        })
        .join()
        .unwrap();
        let total = runtime.block_on(async move {
            let mut set = JoinSet::new();
            for n in 0..20u64 {
                set.spawn(async move {
                    for _ in 0..3 {
                        rt::task::yield_now().await;
                    }
                    n
                });
            }
            rt::time::sleep(Duration::from_millis(1)).await;
            let (mut a, mut b) = tcp_pair().await;
            shim::write_all(&mut a, b"x").await.unwrap();
            let mut byte = [0u8; 1];
            shim::read_exact(&mut b, &mut byte).await.unwrap();
            let mut total = 0;
            for handle in remote {
                total += handle.await.unwrap();
            }
            while let Some(n) = set.join_next().await {
                total += n.unwrap();
            }
            total
        });
        assert_eq!(total, 2 * (0..20).sum::<u64>());
    });
}

// ---- Metrics, wakes from other threads, sharing the runtime -----------------------

/// `RuntimeMetrics` of a current-thread runtime: `num_workers` is 1 (it
/// "always returns 1" for this flavour), and `num_alive_tasks` counts a
/// task spawned before any `block_on` (alive though never polled), and no
/// longer counts it once it has been aborted and its handle has said so.
#[test]
fn current_thread_metrics_count_one_worker_and_alive_tasks_until_cancelled() {
    limit("current-thread metrics", || {
        let runtime = current_thread();
        let metrics = runtime.metrics();
        assert_eq!(metrics.num_workers(), 1);
        let handle = runtime.spawn(std::future::pending::<()>());
        let done = runtime.spawn(async {});
        assert_eq!(metrics.num_alive_tasks(), 2);
        runtime.block_on(async move {
            done.await.unwrap();
            assert_eq!(
                rt::runtime::Handle::current().metrics().num_alive_tasks(),
                1
            );
            handle.abort();
            assert!(handle.await.unwrap_err().is_cancelled());
        });
        assert_eq!(metrics.num_alive_tasks(), 0);
        assert_eq!(metrics.num_workers(), 1);
    });
}

/// A future that completes once another OS thread has set its flag and
/// woken it (the thread is started at the first poll, with the waker).
struct WokenFromAThread {
    started: bool,
    done: Arc<AtomicBool>,
}

impl Future for WokenFromAThread {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.done.load(Ordering::SeqCst) {
            return Poll::Ready(());
        }
        if !self.started {
            self.started = true;
            let done = self.done.clone();
            let waker = cx.waker().clone();
            std::thread::spawn(move || {
                std::thread::sleep(Duration::from_millis(5));
                done.store(true, Ordering::SeqCst);
                waker.wake();
            });
        }
        Poll::Pending
    }
}

fn woken_from_a_thread() -> WokenFromAThread {
    WokenFromAThread {
        started: false,
        done: flag(),
    }
}

/// A waker may be woken from any thread: while `block_on` sleeps with
/// nothing to do, a wake from another OS thread of the `block_on` future,
/// and one of a task's, each brings the runtime back to poll it.
#[test]
fn wakes_from_another_os_thread_reach_a_sleeping_block_on() {
    limit("remote wakes", || {
        let runtime = current_thread();
        runtime.block_on(woken_from_a_thread());
        runtime.block_on(async {
            rt::spawn(woken_from_a_thread()).await.unwrap();
            let mut set = JoinSet::new();
            for _ in 0..4 {
                set.spawn(woken_from_a_thread());
            }
            while let Some(done) = set.join_next().await {
                done.unwrap();
            }
        });
    });
}

/// `Runtime` is `Send` and `Sync` (as are `Handle`, `JoinHandle`,
/// `AbortHandle` and `JoinSet` of `Send` values): threads may share one by
/// reference, spawning onto it, while another drives it in `block_on`.
#[test]
fn a_runtime_is_send_and_sync_and_shared_between_threads() {
    fn send_sync<T: Send + Sync>() {}
    send_sync::<rt::runtime::Runtime>();
    send_sync::<rt::runtime::Handle>();
    send_sync::<rt::task::JoinHandle<u32>>();
    send_sync::<rt::task::AbortHandle>();
    send_sync::<JoinSet<u32>>();
    limit("a shared runtime", || {
        let runtime = current_thread();
        let total = std::thread::scope(|scope| {
            let spawners: Vec<_> = (0..3u32)
                .map(|n| {
                    let runtime = &runtime;
                    scope.spawn(move || runtime.spawn(async move { n * 10 }))
                })
                .collect();
            let handles: Vec<_> = spawners.into_iter().map(|s| s.join().unwrap()).collect();
            let runtime = &runtime;
            scope
                .spawn(move || {
                    runtime.block_on(async move {
                        let mut total = 0;
                        for handle in handles {
                            total += handle.await.unwrap();
                        }
                        total
                    })
                })
                .join()
                .unwrap()
        });
        assert_eq!(total, 30);
    });
}

// ---- Destructors and completion ---------------------------------------------------

/// The same guarantee for the local tasks dropped with their set: when
/// the set is dropped, a destructor that panics does not stop it (the
/// other tasks are dropped too, and the drop of the set returns), and
/// that task's handle reports the panic.
#[test]
fn a_panic_in_a_local_tasks_drop_is_its_join_error_and_the_set_is_dropped() {
    limit("panicking drop at set drop", || {
        let runtime = current_thread();
        let local = LocalSet::new();
        let dropped = flag();
        let panicking = local.spawn_local(async {
            let _bomb = PanicOnDrop;
            std::future::pending::<()>().await;
        });
        let other = {
            let guard = FlagOnDrop(dropped.clone());
            local.spawn_local(async move {
                let _guard = guard;
                std::future::pending::<()>().await;
            })
        };
        local.block_on(&runtime, async {
            for _ in 0..3 {
                rt::task::yield_now().await;
            }
        });
        drop(local);
        assert!(is_set(&dropped));
        let error = runtime.block_on(panicking).unwrap_err();
        assert!(error.is_panic(), "{error:?}");
        says(
            &crate::behaviour::panic_message(&*error.into_panic()),
            "dropped at shutdown",
        );
        assert!(runtime.block_on(other).unwrap_err().is_cancelled());
    });
}

/// Where a test puts a task's own `AbortHandle` for its destructor.
type AbortSlot = Arc<Mutex<Option<rt::task::AbortHandle>>>;
/// What the destructor saw: `Some(is_finished)` once it ran.
type Seen = Arc<Mutex<Option<bool>>>;

/// Records, when dropped, whether its task already counted as finished.
struct SeesFinished {
    handle: AbortSlot,
    seen: Seen,
}

impl Drop for SeesFinished {
    fn drop(&mut self) {
        let handle = self.handle.lock().unwrap().take();
        *self.seen.lock().unwrap() = handle.map(|handle| handle.is_finished());
    }
}

/// "It is guaranteed that the destructor of the spawned task has finished
/// before task completion is observed via `JoinHandle` `await`,
/// `JoinHandle::is_finished` or `AbortHandle::is_finished`": inside the
/// destructor of an aborted task's future, and of a local task's dropped
/// with its set, the task is not finished yet; after, it is.
#[test]
fn a_task_is_not_finished_while_its_future_is_being_dropped() {
    fn sees_finished() -> (SeesFinished, AbortSlot, Seen) {
        let handle = Arc::new(Mutex::new(None));
        let seen = Arc::new(Mutex::new(None));
        let guard = SeesFinished {
            handle: handle.clone(),
            seen: seen.clone(),
        };
        (guard, handle, seen)
    }
    limit("finished after the destructor", || {
        let runtime = current_thread();
        runtime.block_on(async {
            let (guard, slot, seen) = sees_finished();
            let task = rt::spawn(async move {
                let _guard = guard;
                std::future::pending::<()>().await;
            });
            *slot.lock().unwrap() = Some(task.abort_handle());
            rt::task::yield_now().await;
            task.abort();
            assert!(task.await.unwrap_err().is_cancelled());
            assert_eq!(*seen.lock().unwrap(), Some(false));
        });
        let local = LocalSet::new();
        let (guard, slot, seen) = sees_finished();
        let task = local.spawn_local(async move {
            let _guard = guard;
            std::future::pending::<()>().await;
        });
        *slot.lock().unwrap() = Some(task.abort_handle());
        local.block_on(&runtime, rt::task::yield_now());
        drop(local);
        assert_eq!(*seen.lock().unwrap(), Some(false));
        assert!(task.is_finished());
    });
}

/// A local task's timer may outlive the runtime: the runtime is dropped
/// first, the set (whose task still waits on a long sleep) after it; the
/// task's future, sleep included, is dropped without a panic.
#[test]
fn a_local_set_may_outlive_its_runtime() {
    limit("a set dropped after its runtime", || {
        let runtime = current_thread();
        let local = LocalSet::new();
        let dropped = flag();
        let guard = FlagOnDrop(dropped.clone());
        let task = local.spawn_local(async move {
            let _guard = guard;
            rt::time::sleep(Duration::from_secs(3600)).await;
        });
        local.block_on(&runtime, rt::task::yield_now());
        drop(runtime);
        assert!(!is_set(&dropped));
        drop(local);
        assert!(is_set(&dropped));
        assert!(
            futures::executor::block_on(task)
                .unwrap_err()
                .is_cancelled()
        );
    });
}

// ---- Local tasks and other threads --------------------------------------------------

/// A local task's handle is a `JoinHandle` like any other (`Send` when its
/// output is): a task made with `spawn` may await it while the set runs;
/// and an `AbortHandle` of a local task may be used from another OS thread
/// while the set's `block_on` sleeps: the task is dropped and its handle
/// says cancelled.
#[test]
fn local_task_handles_work_from_other_tasks_and_threads() {
    limit("local handles elsewhere", || {
        let runtime = shim::runtime();
        let local = LocalSet::new();
        local.block_on(&runtime, async {
            let shared = Rc::new(21u32);
            let local_task = rt::task::spawn_local(async move {
                rt::task::yield_now().await;
                *shared * 2
            });
            let value = rt::spawn(async move { local_task.await.unwrap() })
                .await
                .unwrap();
            assert_eq!(value, 42);

            let dropped = flag();
            let guard = FlagOnDrop(dropped.clone());
            let waiting = rt::task::spawn_local(async move {
                let _guard = guard;
                let _not_send = Rc::new(());
                std::future::pending::<()>().await;
            });
            let abort = waiting.abort_handle();
            rt::task::yield_now().await;
            let aborter = std::thread::spawn(move || {
                std::thread::sleep(Duration::from_millis(5));
                abort.abort();
            });
            let error = waiting.await.unwrap_err();
            assert!(error.is_cancelled(), "{error:?}");
            assert!(is_set(&dropped));
            aborter.join().unwrap();
        });
    });
}

/// `RuntimeMetrics::num_alive_tasks` counts the runtime's tasks; a
/// blocking job (`spawn_blocking`) runs on the blocking pool and is not
/// one of them, even while it runs.
#[test]
fn a_running_blocking_job_is_not_an_alive_task() {
    limit("alive tasks and blocking jobs", || {
        let runtime = current_thread();
        let metrics = runtime.metrics();
        let (release, released) = std::sync::mpsc::channel::<()>();
        let (started_tx, started) = std::sync::mpsc::channel::<()>();
        let job = runtime.spawn_blocking(move || {
            started_tx.send(()).unwrap();
            released.recv().unwrap();
        });
        started.recv().unwrap();
        assert_eq!(metrics.num_alive_tasks(), 0);
        let waiting = runtime.spawn(std::future::pending::<()>());
        assert_eq!(metrics.num_alive_tasks(), 1);
        release.send(()).unwrap();
        runtime.block_on(job).unwrap();
        waiting.abort();
        assert!(runtime.block_on(waiting).unwrap_err().is_cancelled());
        assert_eq!(metrics.num_alive_tasks(), 0);
    });
}

// ---- JoinSet on one thread ------------------------------------------------------------

/// `JoinSet::join_next` "is cancel safe": polled once and dropped over and
/// over (a zero `timeout` around it), it loses no task's output; every
/// output comes back exactly once and the set ends empty.
#[test]
fn join_next_dropped_after_one_poll_loses_nothing() {
    limit("join_next cancel safety", || {
        current_thread().block_on(async {
            let mut set = JoinSet::new();
            for n in 0..8u32 {
                set.spawn(async move {
                    for _ in 0..n {
                        rt::task::yield_now().await;
                    }
                    n
                });
            }
            let mut seen = Vec::new();
            while !set.is_empty() {
                match rt::time::timeout(Duration::ZERO, set.join_next()).await {
                    Ok(Some(output)) => seen.push(output.unwrap()),
                    Ok(None) => unreachable!("the set is not empty"),
                    Err(_elapsed) => rt::task::yield_now().await,
                }
            }
            seen.sort_unstable();
            assert_eq!(seen, (0..8).collect::<Vec<_>>());
            assert!(set.join_next().await.is_none());
        });
    });
}

/// `JoinSet::shutdown` "aborts all tasks and waits for them to finish
/// shutting down": with local tasks (`JoinSet::spawn_local` in a
/// `LocalSet`) too. When it returns, every future has been dropped and the
/// set is empty.
#[test]
fn join_set_shutdown_drops_the_futures_of_local_tasks() {
    limit("JoinSet::shutdown of local tasks", || {
        let runtime = shim::runtime();
        let local = LocalSet::new();
        local.block_on(&runtime, async {
            let mut set = JoinSet::new();
            let flags: Vec<_> = (0..3).map(|_| flag()).collect();
            for dropped in &flags {
                let guard = FlagOnDrop(dropped.clone());
                let not_send = Rc::new(());
                set.spawn_local(async move {
                    let _guard = guard;
                    let _not_send = not_send;
                    std::future::pending::<()>().await;
                });
            }
            rt::task::yield_now().await;
            assert_eq!(set.len(), 3);
            set.shutdown().await;
            assert!(set.is_empty());
            assert!(flags.iter().all(|dropped| is_set(dropped)));
        });
    });
}

/// `Builder::worker_threads`: "When using the `current_thread` runtime
/// this method has no effect": the runtime still has one worker, and its
/// tasks run on the thread in `block_on`.
#[test]
fn worker_threads_has_no_effect_on_a_current_thread_runtime() {
    limit("worker_threads on current-thread", || {
        let runtime = current_thread_builder().worker_threads(4).build().unwrap();
        assert_eq!(runtime.metrics().num_workers(), 1);
        let me = std::thread::current().id();
        let ran_on = runtime.block_on(async {
            rt::spawn(async { std::thread::current().id() })
                .await
                .unwrap()
        });
        assert_eq!(ran_on, me);
    });
}
