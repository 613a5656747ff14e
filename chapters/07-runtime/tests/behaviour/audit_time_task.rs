//! Time, the paused clock and task handles, as Tokio documents them
//! (second audit).
//!
//! Covers `tokio::task` (`JoinSet`, `JoinHandle`, `AbortHandle`,
//! `JoinError`, `task_local!`, `LocalSet`, `block_in_place`) and
//! `tokio::time` (`pause`, `resume`, `advance`, `Sleep::reset`, `Interval`
//! and `MissedTickBehavior`, `timeout`, the panics outside a runtime).
//! Each test is written from Tokio 1.54's documentation and was first made
//! to pass against Tokio, which compiles this same file in
//! `behaviour_tokio.rs`: a failure in the Tokio build is a wrong test, one
//! in the rt build a place where rt departs from Tokio.

use crate::behaviour::{expect_panic, limit, paused_runtime};
use crate::{rt, shim};
use rt::task::{JoinSet, LocalSet};
use rt::time::{Instant, MissedTickBehavior};
use std::future::Future;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Sets its flag when dropped.
struct FlagOnDrop(Arc<AtomicBool>);

impl Drop for FlagOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

/// Waits, on the runtime's timer, until `done()` is true (the test's hang
/// limit bounds the wait).
async fn until(mut done: impl FnMut() -> bool) {
    while !done() {
        rt::time::sleep(Duration::from_millis(1)).await;
    }
}

fn millis(list: &[u64]) -> Vec<Duration> {
    list.iter().copied().map(Duration::from_millis).collect()
}

// ---- JoinSet ----------------------------------------------------------------

/// "The set is not ordered, and the tasks will be returned in the order
/// they complete": also when they all completed before anyone called
/// `join_next`. Four tasks finish one after the other (2, 0, 3, 1), each
/// before the next is released; `join_next` then returns them in that
/// order. (On one thread a task's completion reaches its set within the
/// task's last poll, so the order is exact.)
#[test]
fn join_set_returns_tasks_finished_earlier_in_completion_order() {
    if shim::MULTI_THREAD {
        return; // two workers' completions reach the set in a racy order
    }
    limit("JoinSet completion order", || {
        shim::runtime().block_on(async {
            let mut set = JoinSet::new();
            let mut release = Vec::new();
            let mut handles = Vec::new();
            for n in 0..4u32 {
                let (tx, rx) = rt::sync::oneshot::channel::<()>();
                release.push(Some(tx));
                handles.push(set.spawn(async move {
                    let _ = rx.await;
                    n
                }));
            }
            for n in [2usize, 0, 3, 1] {
                release[n].take().unwrap().send(()).unwrap();
                let handle = handles[n].clone();
                until(|| handle.is_finished()).await;
            }
            let mut order = Vec::new();
            while let Some(out) = set.join_next().await {
                order.push(out.unwrap());
            }
            assert_eq!(order, [2, 0, 3, 1]);
        });
    });
}

/// The same order for `try_join_next_with_id`, with each task's id.
#[test]
fn try_join_next_takes_finished_tasks_in_completion_order_with_their_ids() {
    if shim::MULTI_THREAD {
        return; // two workers' completions reach the set in a racy order
    }
    limit("JoinSet try_join_next order", || {
        shim::runtime().block_on(async {
            let mut set = JoinSet::new();
            let mut release = Vec::new();
            let mut handles = Vec::new();
            for n in 0..3u32 {
                let (tx, rx) = rt::sync::oneshot::channel::<()>();
                release.push(Some(tx));
                handles.push(set.spawn(async move {
                    let _ = rx.await;
                    n
                }));
            }
            assert!(set.try_join_next().is_none());
            for n in [1usize, 2, 0] {
                release[n].take().unwrap().send(()).unwrap();
                let handle = handles[n].clone();
                until(|| handle.is_finished()).await;
            }
            let mut seen = Vec::new();
            while let Some(out) = set.try_join_next_with_id() {
                seen.push(out.unwrap());
            }
            let expected: Vec<_> = [1usize, 2, 0]
                .into_iter()
                .map(|n| (handles[n].id(), n as u32))
                .collect();
            assert_eq!(seen, expected);
            assert!(set.is_empty());
        });
    });
}

/// `abort_all` aborts the tasks still running; a task that had already
/// finished keeps its output ("If the task was already completed, then
/// calling abort has no effect").
#[test]
fn join_set_abort_all_leaves_finished_tasks_their_outputs() {
    limit("JoinSet abort_all after a finish", || {
        shim::runtime().block_on(async {
            let mut set = JoinSet::new();
            let quick = set.spawn(async { 1u32 });
            let stuck = set.spawn(std::future::pending::<u32>());
            until(|| quick.is_finished()).await;
            set.abort_all();
            let mut ok = Vec::new();
            let mut cancelled = Vec::new();
            while let Some(out) = set.join_next_with_id().await {
                match out {
                    Ok((id, value)) => ok.push((id, value)),
                    Err(error) => {
                        assert!(error.is_cancelled());
                        cancelled.push(error.id());
                    }
                }
            }
            assert_eq!(ok, [(quick.id(), 1)]);
            assert_eq!(cancelled, [stuck.id()]);
        });
    });
}

/// `JoinSet::spawn_blocking` puts a blocking job in the set: its output
/// comes back through `join_next_with_id` under the id of the returned
/// `AbortHandle`, and a job already running is not stopped by `abort_all`.
#[test]
fn join_set_spawn_blocking_joins_with_its_id_and_survives_abort_all_once_running() {
    limit("JoinSet spawn_blocking", || {
        shim::runtime().block_on(async {
            let mut set = JoinSet::new();
            let (started_tx, started_rx) = std::sync::mpsc::channel::<()>();
            let (go_tx, go_rx) = std::sync::mpsc::channel::<()>();
            let job = set.spawn_blocking(move || {
                started_tx.send(()).unwrap();
                go_rx.recv_timeout(Duration::from_secs(10)).unwrap();
                7u32
            });
            rt::task::spawn_blocking(move || started_rx.recv_timeout(Duration::from_secs(10)))
                .await
                .unwrap()
                .unwrap();
            set.abort_all();
            go_tx.send(()).unwrap();
            let (id, value) = set.join_next_with_id().await.unwrap().unwrap();
            assert_eq!((id, value), (job.id(), 7));
            assert!(set.join_next().await.is_none());
        });
    });
}

/// `join_all`: "If any tasks on the JoinSet fail with an JoinError, then
/// this call to join_all will panic": a task's panic is resumed with its
/// own payload.
#[test]
fn join_all_resumes_a_tasks_panic_with_its_payload() {
    limit("JoinSet join_all panic", || {
        let runtime = shim::runtime();
        let caught = expect_panic("join_all of a panicking task", || {
            runtime.block_on(async {
                let mut set = JoinSet::new();
                set.spawn(async { 1u32 });
                set.spawn(async { panic!("the second task fails") });
                set.join_all().await
            })
        });
        assert_eq!(caught.message, "the second task fails");
    });
}

/// Dropping a `JoinSet` aborts its tasks, but not one `detach_all` let go
/// first: that one runs on to completion.
#[test]
fn detached_tasks_outlive_their_dropped_join_set() {
    limit("JoinSet detach_all then drop", || {
        shim::runtime().block_on(async {
            let mut set = JoinSet::new();
            let (tx, rx) = rt::sync::oneshot::channel::<()>();
            let (done_tx, done_rx) = rt::sync::oneshot::channel::<u32>();
            set.spawn(async move {
                let _ = rx.await;
                let _ = done_tx.send(5);
            });
            set.detach_all();
            let dropped = Arc::new(AtomicBool::new(false));
            let guard = FlagOnDrop(dropped.clone());
            set.spawn(async move {
                let _guard = guard;
                std::future::pending::<()>().await
            });
            rt::task::yield_now().await;
            drop(set);
            until(|| dropped.load(Ordering::SeqCst)).await;
            tx.send(()).unwrap();
            assert_eq!(done_rx.await.unwrap(), 5);
        });
    });
}

// ---- JoinHandle, AbortHandle, JoinError ----------------------------------

/// A payload that is not a string (`panic_any`) reaches the `JoinError`
/// whole: `into_panic` gives it back for `downcast`, `try_into_panic` too;
/// the error's message has no text to quote.
#[test]
fn a_non_string_panic_payload_comes_back_whole() {
    limit("panic_any payload", || {
        shim::runtime().block_on(async {
            let handle = rt::spawn(async { std::panic::panic_any(42u64) });
            let id = handle.id();
            let error = handle.await.unwrap_err();
            assert!(error.is_panic());
            assert_eq!(error.to_string(), format!("task {id} panicked"));
            let payload = error.try_into_panic().unwrap();
            assert_eq!(*payload.downcast::<u64>().unwrap(), 42);

            let error = rt::spawn(async { std::panic::panic_any(String::from("owned")) })
                .await
                .unwrap_err();
            let payload = error.into_panic();
            assert_eq!(payload.downcast_ref::<String>().unwrap(), "owned");
        });
    });
}

/// A task aborted while its future's destructor panics: Tokio catches the
/// panic and reports it, so the `JoinError` is a panic with that payload,
/// not a cancellation.
#[test]
fn an_aborted_task_whose_drop_panics_reports_the_panic() {
    struct PanicOnDrop;
    impl Drop for PanicOnDrop {
        fn drop(&mut self) {
            panic!("panic while dropped");
        }
    }
    limit("abort with a panicking drop", || {
        let runtime = shim::runtime();
        let error = runtime.block_on(async {
            let (ready_tx, ready_rx) = rt::sync::oneshot::channel::<()>();
            let handle = rt::spawn(async move {
                let _bomb = PanicOnDrop;
                let _ = ready_tx.send(());
                std::future::pending::<()>().await
            });
            ready_rx.await.unwrap();
            handle.abort();
            handle.await.unwrap_err()
        });
        assert!(error.is_panic(), "{error:?}");
        assert!(!error.is_cancelled());
        assert_eq!(
            super::panic_message(&*error.into_panic()),
            "panic while dropped"
        );
        // The runtime goes on.
        assert_eq!(
            runtime.block_on(async { rt::spawn(async { 3 }).await.unwrap() }),
            3
        );
    });
}

/// An `AbortHandle` of a task that has finished: `is_finished` is true,
/// `abort` has no effect, and the `JoinHandle` still gives the output.
#[test]
fn an_abort_handle_of_a_finished_task_changes_nothing() {
    limit("abort handle after finish", || {
        shim::runtime().block_on(async {
            let handle = rt::spawn(async { "kept" });
            let abort = handle.abort_handle();
            assert_eq!(abort.id(), handle.id());
            until(|| abort.is_finished()).await;
            abort.abort();
            handle.abort();
            assert!(abort.is_finished());
            assert_eq!(handle.await.unwrap(), "kept");
        });
    });
}

/// `timeout` around a `JoinHandle` that elapses drops the handle, which
/// detaches the task (it is not aborted): the task runs on and finishes.
#[test]
fn a_timed_out_join_handle_leaves_its_task_running() {
    limit("timeout of a JoinHandle", || {
        shim::runtime().block_on(async {
            let (go_tx, go_rx) = rt::sync::oneshot::channel::<()>();
            let (done_tx, done_rx) = rt::sync::oneshot::channel::<&str>();
            let handle = rt::spawn(async move {
                let _ = go_rx.await;
                let _ = done_tx.send("finished");
            });
            let out = rt::time::timeout(Duration::from_millis(10), handle).await;
            assert!(out.is_err());
            go_tx.send(()).unwrap();
            assert_eq!(done_rx.await.unwrap(), "finished");
        });
    });
}

// ---- task_local! --------------------------------------------------------

rt::task_local! {
    static REQUEST: u32;
    static NAME: String;
}

/// `LocalKey::with` outside a scope "will panic if the task local doesn't
/// have a value set", with Tokio's words; `try_with` returns an error.
#[test]
fn reading_an_unset_task_local_panics_with_tokios_words() {
    limit("task_local with unset", || {
        assert!(REQUEST.try_with(|v| *v).is_err());
        let caught = expect_panic("REQUEST.with outside a scope", || REQUEST.with(|v| *v));
        caught.assert_says("cannot access a task-local storage value without setting it first");
        let caught = expect_panic("NAME.get outside a scope", || NAME.get());
        caught.assert_says("cannot access a task-local storage value without setting it first");
    });
}

/// A task-local follows its task across `.await`s (and worker threads),
/// while a task spawned from inside the scope does not inherit it, and
/// two tasks' scopes of the same key do not see each other's values.
#[test]
fn task_locals_follow_their_task_across_awaits_and_are_not_inherited() {
    limit("task_local across awaits", || {
        shim::runtime().block_on(async {
            let mut handles = Vec::new();
            for n in 0..4u32 {
                handles.push(rt::spawn(REQUEST.scope(n, async move {
                    let mut seen = Vec::new();
                    for _ in 0..5 {
                        rt::time::sleep(Duration::from_millis(1)).await;
                        rt::task::yield_now().await;
                        seen.push(REQUEST.get());
                    }
                    let child = rt::spawn(async { REQUEST.try_with(|v| *v).is_err() });
                    (seen, child.await.unwrap())
                })));
            }
            for (n, handle) in handles.into_iter().enumerate() {
                let (seen, child_unset) = handle.await.unwrap();
                assert_eq!(seen, vec![n as u32; 5]);
                assert!(child_unset, "a spawned task inherited the task-local");
            }
            assert!(REQUEST.try_with(|v| *v).is_err());
        });
    });
}

// ---- LocalSet -----------------------------------------------------------

/// Dropping a `LocalSet` drops the tasks it still holds (what they own is
/// released), and their `JoinHandle`s report them cancelled.
#[test]
fn dropping_a_local_set_cancels_its_pending_tasks() {
    limit("LocalSet drop", || {
        let runtime = shim::runtime();
        let local = LocalSet::new();
        let shared = Rc::new(());
        let (pending, never_polled) = local.block_on(&runtime, {
            let shared = shared.clone();
            async move {
                let held = shared.clone();
                let pending = rt::task::spawn_local(async move {
                    let _held = held;
                    std::future::pending::<()>().await
                });
                rt::task::yield_now().await;
                let held = shared.clone();
                let never_polled = rt::task::spawn_local(async move {
                    let _held = held;
                });
                (pending, never_polled)
            }
        });
        assert!(Rc::strong_count(&shared) > 1);
        drop(local);
        assert_eq!(Rc::strong_count(&shared), 1, "the set kept its tasks");
        runtime.block_on(async {
            assert!(pending.await.unwrap_err().is_cancelled());
            assert!(never_polled.await.unwrap_err().is_cancelled());
        });
    });
}

/// Awaiting a `LocalSet` runs it until every task is done, including those
/// its tasks spawn with `spawn_local` along the way.
#[test]
fn awaiting_a_local_set_waits_for_tasks_spawned_by_its_tasks() {
    limit("LocalSet awaited with nested spawns", || {
        let runtime = shim::runtime();
        let local = LocalSet::new();
        let log = Rc::new(std::cell::RefCell::new(Vec::new()));
        {
            let log = log.clone();
            drop(local.spawn_local(async move {
                for n in 0..3u32 {
                    let log = log.clone();
                    drop(rt::task::spawn_local(async move {
                        rt::time::sleep(Duration::from_millis(u64::from(3 - n))).await;
                        log.borrow_mut().push(n);
                    }));
                }
            }));
        }
        runtime.block_on(local);
        let mut log = log.borrow().clone();
        log.sort_unstable();
        assert_eq!(log, [0, 1, 2]);
    });
}

// ---- block_in_place -----------------------------------------------------

/// The pattern Tokio documents for `block_in_place`: inside it, a task of
/// the multi-thread runtime may `Handle::current().block_on` a future that
/// sleeps and awaits another task, while the runtime's other tasks go on.
#[test]
fn block_in_place_may_block_on_the_current_handle() {
    if !shim::MULTI_THREAD {
        return; // block_in_place panics on the current-thread runtime
    }
    limit("block_in_place + block_on", || {
        shim::runtime().block_on(async {
            let out = rt::spawn(async {
                rt::task::block_in_place(|| {
                    rt::runtime::Handle::current().block_on(async {
                        rt::time::sleep(Duration::from_millis(5)).await;
                        rt::spawn(async { 20 }).await.unwrap() + 1
                    })
                })
            })
            .await
            .unwrap();
            assert_eq!(out, 21);
        });
    });
}

// ---- the paused clock: pause, resume, advance -----------------------------

/// `pause` "panics if time is already frozen", `resume` "if time is not
/// frozen", `advance` when "the clock is not frozen": with Tokio's words.
#[test]
fn pause_resume_and_advance_panic_when_the_clock_is_in_the_wrong_state() {
    if shim::MULTI_THREAD {
        return; // time can be paused on the current-thread runtime only
    }
    limit("pause/resume/advance panics", || {
        let runtime = shim::runtime();
        runtime.block_on(async {
            let caught = expect_panic("resume while running", rt::time::resume);
            caught.assert_says("time is not frozen");
            rt::time::pause();
            let caught = expect_panic("pause twice", rt::time::pause);
            caught.assert_says("time is already frozen");
            rt::time::resume();
        });
        let caught = expect_panic("advance while running", || {
            runtime.block_on(rt::time::advance(Duration::from_secs(1)))
        });
        caught.assert_says("time is not frozen");
    });
}

/// "Pausing time requires the `current_thread` Tokio runtime": `pause` in
/// a multi-thread runtime panics, saying so.
#[test]
fn pause_on_a_multi_thread_runtime_panics() {
    if !shim::MULTI_THREAD {
        return; // the current-thread runtime may pause
    }
    limit("pause multi-thread", || {
        shim::runtime().block_on(async {
            let caught = expect_panic("pause on multi-thread", rt::time::pause);
            caught.assert_says("`time::pause()` requires the `current_thread`");
        });
    });
}

/// `resume` starts the clock again from where the paused clock stood, not
/// from the system's clock: after advancing an hour, `now()` stays an hour
/// ahead of the clock outside the runtime.
#[test]
fn resume_goes_on_from_the_advanced_time() {
    if shim::MULTI_THREAD {
        return; // time can be paused on the current-thread runtime only
    }
    limit("resume keeps the advance", || {
        let runtime = shim::runtime();
        runtime.block_on(async {
            rt::time::pause();
            let start = Instant::now();
            rt::time::advance(Duration::from_secs(3600)).await;
            rt::time::resume();
            let after = Instant::now();
            assert!(after - start >= Duration::from_secs(3600));
            assert!(after.into_std() > std::time::Instant::now() + Duration::from_secs(3000));
            // Running again: a short real sleep completes.
            rt::time::sleep(Duration::from_millis(1)).await;
            assert!(Instant::now() > after);
        });
    });
}

/// A sleep of `length` behind a lock, and a task that waits on it and
/// returns the (paused) instant it woke. Returns once that task has polled
/// the sleep, so that a reset finds a waiter.
async fn waited_on_sleep(
    length: Duration,
) -> (
    Arc<Mutex<std::pin::Pin<Box<rt::time::Sleep>>>>,
    rt::task::JoinHandle<Instant>,
) {
    let sleep = Arc::new(Mutex::new(Box::pin(rt::time::sleep(length))));
    let polled = Arc::new(AtomicBool::new(false));
    let waiter = rt::spawn({
        let sleep = sleep.clone();
        let polled = polled.clone();
        async move {
            std::future::poll_fn(|cx| {
                polled.store(true, Ordering::SeqCst);
                sleep.lock().unwrap().as_mut().poll(cx)
            })
            .await;
            Instant::now()
        }
    });
    while !polled.load(Ordering::SeqCst) {
        rt::task::yield_now().await;
    }
    (sleep, waiter)
}

/// `Sleep::reset` moves the deadline of a sleep another task is already
/// waiting on: Tokio's timer keeps the waiter, so that task wakes at the
/// new deadline.
#[test]
fn a_reset_wakes_the_task_already_waiting_at_the_new_deadline() {
    if shim::MULTI_THREAD {
        return; // time can be paused on the current-thread runtime only
    }
    limit("reset a sleep someone waits on", || {
        let runtime = paused_runtime();
        runtime.block_on(async {
            let start = Instant::now();
            let (sleep, waiter) = waited_on_sleep(Duration::from_secs(3600)).await;
            sleep
                .lock()
                .unwrap()
                .as_mut()
                .reset(start + Duration::from_secs(1));
            let woke = rt::time::timeout(Duration::from_secs(10), waiter)
                .await
                .expect("the waiting task was not woken at the new deadline")
                .unwrap();
            assert_eq!(woke - start, Duration::from_secs(1));
        });
    });
}

/// The same for a sleep moved later: the waiting task is not woken at the
/// old deadline, only at the new one.
#[test]
fn a_reset_to_later_holds_the_waiting_task_until_the_new_deadline() {
    if shim::MULTI_THREAD {
        return; // time can be paused on the current-thread runtime only
    }
    limit("reset later a sleep someone waits on", || {
        let runtime = paused_runtime();
        runtime.block_on(async {
            let start = Instant::now();
            let (sleep, waiter) = waited_on_sleep(Duration::from_secs(1)).await;
            sleep
                .lock()
                .unwrap()
                .as_mut()
                .reset(start + Duration::from_secs(5));
            let woke = rt::time::timeout(Duration::from_secs(10), waiter)
                .await
                .expect("the waiting task was not woken at the new deadline")
                .unwrap();
            assert_eq!(woke - start, Duration::from_secs(5));
        });
    });
}

// ---- interval schedules ---------------------------------------------------

/// Creates a 10 ms interval at the paused clock's `start`, with `behavior`;
/// `stall` before its first tick, `after_first` after it; returns the first
/// five ticks as offsets from the start.
async fn five_ticks(behavior: MissedTickBehavior, stall: u64, after_first: u64) -> Vec<Duration> {
    let start = Instant::now();
    let mut interval = rt::time::interval(Duration::from_millis(10));
    interval.set_missed_tick_behavior(behavior);
    rt::time::advance(Duration::from_millis(stall)).await;
    let mut ticks = vec![interval.tick().await - start];
    rt::time::advance(Duration::from_millis(after_first)).await;
    for _ in 0..4 {
        ticks.push(interval.tick().await - start);
    }
    ticks
}

/// A stall that ends exactly on a tick of the schedule (40 ms, ticks at
/// 10, 20, 30 missed, the one at 40 due now): `Skip` fires the late tick
/// and then the next one due "after the current time", one period on;
/// `Delay` counts from now; `Burst` catches up.
#[test]
fn missed_ticks_after_a_stall_ending_on_a_tick() {
    if shim::MULTI_THREAD {
        return; // time can be paused on the current-thread runtime only
    }
    limit("stall ending on a tick", || {
        let runtime = paused_runtime();
        runtime.block_on(async {
            assert_eq!(
                five_ticks(MissedTickBehavior::Skip, 0, 40).await,
                millis(&[0, 10, 50, 60, 70])
            );
        });
        let runtime = paused_runtime();
        runtime.block_on(async {
            assert_eq!(
                five_ticks(MissedTickBehavior::Delay, 0, 40).await,
                millis(&[0, 10, 50, 60, 70])
            );
        });
        let runtime = paused_runtime();
        runtime.block_on(async {
            assert_eq!(
                five_ticks(MissedTickBehavior::Burst, 0, 40).await,
                millis(&[0, 10, 20, 30, 40])
            );
        });
    });
}

/// A first tick that is itself late (the interval made, then 33 ms pass
/// before the first `tick`): it reports the start; then `Burst` catches up
/// 10, 20, 30, `Delay` goes on from now (43) and `Skip` from the next tick
/// of the schedule (40).
#[test]
fn a_late_first_tick_then_each_behavior() {
    if shim::MULTI_THREAD {
        return; // time can be paused on the current-thread runtime only
    }
    limit("late first tick", || {
        for (behavior, expected) in [
            (MissedTickBehavior::Burst, [0, 10, 20, 30, 40]),
            (MissedTickBehavior::Delay, [0, 43, 53, 63, 73]),
            (MissedTickBehavior::Skip, [0, 40, 50, 60, 70]),
        ] {
            let runtime = paused_runtime();
            let ticks = runtime.block_on(five_ticks(behavior, 33, 0));
            assert_eq!(ticks, millis(&expected), "{behavior:?}");
        }
    });
}

/// `reset_at` an instant in the past: the next tick is at once and reports
/// that instant; as it is late, the default `Burst` catches up from it.
#[test]
fn interval_reset_at_a_past_instant_bursts_from_there() {
    if shim::MULTI_THREAD {
        return; // time can be paused on the current-thread runtime only
    }
    limit("reset_at in the past", || {
        let runtime = paused_runtime();
        runtime.block_on(async {
            let start = Instant::now();
            let mut interval = rt::time::interval(Duration::from_millis(10));
            assert_eq!(interval.tick().await, start);
            rt::time::advance(Duration::from_millis(25)).await;
            interval.reset_at(start + Duration::from_millis(5));
            let mut ticks = Vec::new();
            for _ in 0..4 {
                ticks.push(interval.tick().await - start);
            }
            assert_eq!(ticks, millis(&[5, 15, 25, 35]));
            assert_eq!(Instant::now() - start, Duration::from_millis(35));
            assert_eq!(interval.period(), Duration::from_millis(10));
        });
    });
}

/// `reset` "ignores MissedTickBehavior": after a stall, the next tick is
/// one period from now, whatever the behaviour, and the schedule goes on
/// from it.
#[test]
fn interval_reset_after_a_stall_restarts_one_period_from_now() {
    if shim::MULTI_THREAD {
        return; // time can be paused on the current-thread runtime only
    }
    limit("reset after a stall", || {
        for behavior in [
            MissedTickBehavior::Burst,
            MissedTickBehavior::Delay,
            MissedTickBehavior::Skip,
        ] {
            let runtime = paused_runtime();
            runtime.block_on(async {
                let start = Instant::now();
                let mut interval = rt::time::interval(Duration::from_millis(10));
                interval.set_missed_tick_behavior(behavior);
                interval.tick().await;
                rt::time::advance(Duration::from_millis(47)).await;
                interval.reset();
                let a = interval.tick().await - start;
                let b = interval.tick().await - start;
                assert_eq!(
                    (a, b),
                    (Duration::from_millis(57), Duration::from_millis(67))
                );
            });
        }
    });
}

/// `#[test(start_paused = true)]` with an interval and a timeout: a minute
/// of one-second ticks under a timeout of 30.5 s ends after exactly 30
/// more ticks, at the timeout's deadline, taking no real time.
#[crate::rt::test(start_paused = true)]
async fn a_paused_test_counts_interval_ticks_until_a_timeout() {
    let start = Instant::now();
    let mut interval = rt::time::interval(Duration::from_secs(1));
    let mut ticks = 0u32;
    let out = rt::time::timeout(Duration::from_millis(30_500), async {
        loop {
            interval.tick().await;
            ticks += 1;
        }
    })
    .await;
    assert!(out.is_err());
    assert_eq!(ticks, 31, "the first tick and one a second for 30 s");
    assert_eq!(start.elapsed(), Duration::from_millis(30_500));
}

/// Auto-advance waits for a blocking job in a `JoinSet`, as for one from
/// `spawn_blocking`: a timeout of one second around a job that takes a
/// tenth of a real second does not elapse.
#[test]
fn the_paused_clock_waits_for_a_join_sets_blocking_job() {
    if shim::MULTI_THREAD {
        return; // time can be paused on the current-thread runtime only
    }
    limit("paused clock and JoinSet::spawn_blocking", || {
        let runtime = paused_runtime();
        runtime.block_on(async {
            let start = Instant::now();
            let mut set = JoinSet::new();
            set.spawn_blocking(|| {
                std::thread::sleep(Duration::from_millis(100));
                9u32
            });
            let joined = rt::time::timeout(Duration::from_secs(1), set.join_next())
                .await
                .expect("the paused clock jumped past the timeout while the job ran");
            assert_eq!(joined.unwrap().unwrap(), 9);
            assert_eq!(start.elapsed(), Duration::ZERO);
        });
    });
}

/// A sleep someone waits on, reset to a deadline already past: the waiting
/// task wakes at once, and the paused clock does not move.
#[test]
fn a_reset_to_the_past_wakes_the_waiting_task_without_moving_the_clock() {
    if shim::MULTI_THREAD {
        return; // time can be paused on the current-thread runtime only
    }
    limit("reset to the past a sleep someone waits on", || {
        let runtime = paused_runtime();
        runtime.block_on(async {
            rt::time::advance(Duration::from_secs(5)).await;
            let start = Instant::now();
            let (sleep, waiter) = waited_on_sleep(Duration::from_secs(3600)).await;
            sleep
                .lock()
                .unwrap()
                .as_mut()
                .reset(start - Duration::from_secs(1));
            let woke = rt::time::timeout(Duration::from_secs(10), waiter)
                .await
                .expect("the waiting task was not woken by a reset to the past")
                .unwrap();
            assert_eq!(woke, start);
            assert!(sleep.lock().unwrap().is_elapsed());
        });
    });
}

/// `Interval::reset_at` while another task waits for the next tick (the
/// interval shared behind a lock): that task gets the tick at the new
/// instant, as the interval's sleep is reset under it.
#[test]
fn an_interval_reset_under_a_waiting_task_ticks_it_at_the_new_instant() {
    if shim::MULTI_THREAD {
        return; // time can be paused on the current-thread runtime only
    }
    limit("interval reset under a waiter", || {
        let runtime = paused_runtime();
        runtime.block_on(async {
            let start = Instant::now();
            let interval = Arc::new(Mutex::new(rt::time::interval(Duration::from_secs(60))));
            assert_eq!(interval.lock().unwrap().tick().now_or_never_ready(), start);
            let polled = Arc::new(AtomicBool::new(false));
            let waiter = rt::spawn({
                let interval = interval.clone();
                let polled = polled.clone();
                async move {
                    std::future::poll_fn(|cx| {
                        polled.store(true, Ordering::SeqCst);
                        interval.lock().unwrap().poll_tick(cx)
                    })
                    .await
                }
            });
            while !polled.load(Ordering::SeqCst) {
                rt::task::yield_now().await;
            }
            interval
                .lock()
                .unwrap()
                .reset_at(start + Duration::from_secs(2));
            let tick = rt::time::timeout(Duration::from_secs(30), waiter)
                .await
                .expect("the waiting task did not get the tick at the new instant")
                .unwrap();
            assert_eq!(tick, start + Duration::from_secs(2));
            assert_eq!(Instant::now(), tick);
        });
    });
}

/// Auto-advance treats a socket with nothing to read as no work: under a
/// paused clock, a timeout around an `accept` nobody will answer elapses
/// after exactly its duration of paused time.
#[test]
fn a_timeout_around_an_idle_accept_elapses_on_the_paused_clock() {
    if shim::MULTI_THREAD {
        return; // time can be paused on the current-thread runtime only
    }
    limit("paused timeout around accept", || {
        let runtime = paused_runtime();
        runtime.block_on(async {
            let listener = rt::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            let start = Instant::now();
            let out = rt::time::timeout(Duration::from_secs(30), listener.accept()).await;
            assert!(out.is_err());
            assert_eq!(start.elapsed(), Duration::from_secs(30));
        });
    });
}

/// Polls a future that must be ready at once.
trait NowOrNeverReady: Future + Sized {
    fn now_or_never_ready(self) -> Self::Output {
        let mut future = std::pin::pin!(self);
        match future
            .as_mut()
            .poll(&mut std::task::Context::from_waker(std::task::Waker::noop()))
        {
            std::task::Poll::Ready(output) => output,
            std::task::Poll::Pending => panic!("the future was not ready at once"),
        }
    }
}

impl<F: Future> NowOrNeverReady for F {}

/// `JoinError::into_panic` on a cancelled task's error panics ("Panics if
/// the error does not represent the underlying task terminating with a
/// panic"), with Tokio's words, which a `should_panic` test can match.
#[test]
fn into_panic_of_a_cancelled_tasks_error_panics_with_tokios_words() {
    let message = limit("into_panic of a cancellation", || {
        shim::runtime().block_on(async {
            let task = rt::spawn(std::future::pending::<()>());
            task.abort();
            let error = task.await.unwrap_err();
            assert!(error.is_cancelled());
            expect_panic("into_panic of a cancelled task's error", || {
                drop(error.into_panic());
            })
            .message
        })
    });
    assert!(
        message.contains("`JoinError` reason is not a panic"),
        "{message}"
    );
}

/// A timer created outside any runtime panics with Tokio's words: "there
/// is no reactor running, must be called from the context of a Tokio 1.x
/// runtime".
#[test]
fn a_sleep_outside_a_runtime_panics_with_tokios_words() {
    let message = limit("sleep outside a runtime", || {
        expect_panic("sleep outside a runtime", || {
            drop(rt::time::sleep(Duration::from_millis(1)));
        })
        .message
    });
    assert!(
        message.contains(
            "there is no reactor running, must be called from the context of a Tokio 1.x runtime"
        ),
        "{message}"
    );
}
