//! The runtime, its builder and handles, and the macros, as Tokio
//! documents them (second audit).
//!
//! Covers `tokio::runtime` (`Builder`'s options and the ones it refuses,
//! `RuntimeFlavor`, `Handle`, enter guards, `block_on` and drops where
//! Tokio panics, shutdown, `spawn_blocking`, thread hooks, metrics) and the
//! macros `select!`, `join!`, `try_join!`, `pin!`, `task_local!`,
//! `#[tokio::main]` and `#[tokio::test]`. Each test is written from Tokio
//! 1.54's documentation and was first made to pass against Tokio, which
//! compiles this same file in `behaviour_tokio.rs`: a failure in the Tokio
//! build is a wrong test, one in the rt build a place where rt departs
//! from Tokio.

use crate::behaviour::{expect_panic, limit};
use crate::{rt, shim};
use rt::runtime::{Builder, Handle, RuntimeFlavor};
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

/// Sets its flag when dropped.
struct SetOnDrop(Arc<AtomicBool>);

impl Drop for SetOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

/// A future that never finishes and sets a flag when dropped.
async fn pending_with_flag(flag: Arc<AtomicBool>) -> u32 {
    let _guard = SetOnDrop(flag);
    std::future::pending::<u32>().await
}

/// Ready on its second poll (after one `Pending`, waking itself).
struct YieldOnce(bool);

impl Future for YieldOnce {
    type Output = ();
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.0 {
            Poll::Ready(())
        } else {
            self.0 = true;
            cx.waker().wake_by_ref();
            Poll::Pending
        }
    }
}

fn run<T>(body: impl Future<Output = T>) -> T {
    shim::runtime().block_on(body)
}

const NO_REACTOR: &str =
    "there is no reactor running, must be called from the context of a Tokio 1.x runtime";

// ---------------------------------------------------------------- Builder

/// `worker_threads(0)` panics, with Tokio's message.
#[test]
fn builder_worker_threads_zero_panics() {
    limit("worker_threads(0)", || {
        let caught = expect_panic("worker_threads(0)", || {
            Builder::new_multi_thread().worker_threads(0);
        });
        caught.assert_says("Worker threads cannot be set to 0");
    });
}

/// `max_blocking_threads(0)` panics, with Tokio's message.
#[test]
fn builder_max_blocking_threads_zero_panics() {
    limit("max_blocking_threads(0)", || {
        let caught = expect_panic("max_blocking_threads(0)", || {
            Builder::new_current_thread().max_blocking_threads(0);
        });
        caught.assert_says("Max blocking threads cannot be set to 0");
    });
}

/// `event_interval(0)` and `global_queue_interval(0)` panic, with Tokio's
/// messages; non-zero values build a working runtime.
#[test]
fn builder_intervals_of_zero_panic_and_others_build() {
    limit("intervals", || {
        let caught = expect_panic("event_interval(0)", || {
            Builder::new_multi_thread().event_interval(0);
        });
        caught.assert_says("event_interval must be greater than 0");
        let caught = expect_panic("global_queue_interval(0)", || {
            Builder::new_multi_thread().global_queue_interval(0);
        });
        caught.assert_says("global_queue_interval must be greater than 0");
        let runtime = shim::builder()
            .event_interval(1)
            .global_queue_interval(1)
            .build()
            .unwrap();
        let sum = runtime.block_on(async {
            let mut handles = Vec::new();
            for i in 0..20u32 {
                handles.push(rt::spawn(async move { i }));
            }
            let mut sum = 0;
            for handle in handles {
                sum += handle.await.unwrap();
            }
            sum
        });
        assert_eq!(sum, 190);
    });
}

/// `start_paused(true)` on a multi-thread builder: `build` panics, as
/// pausing requires the current-thread runtime.
#[test]
fn builder_start_paused_on_multi_thread_panics_at_build() {
    limit("start_paused multi", || {
        let caught = expect_panic("start_paused multi", || {
            Builder::new_multi_thread()
                .worker_threads(1)
                .enable_all()
                .start_paused(true)
                .build()
        });
        caught.assert_says("requires the `current_thread`");
    });
}

/// `runtime_flavor` names the builder's flavor, from `Runtime::handle` and
/// from `Handle::current` inside.
#[test]
fn runtime_flavor_is_the_builders() {
    limit("runtime_flavor", || {
        let multi = Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .unwrap();
        assert_eq!(multi.handle().runtime_flavor(), RuntimeFlavor::MultiThread);
        let inside = multi.block_on(async { Handle::current().runtime_flavor() });
        assert_eq!(inside, RuntimeFlavor::MultiThread);
        let current = Builder::new_current_thread().enable_all().build().unwrap();
        assert_eq!(
            current.handle().runtime_flavor(),
            RuntimeFlavor::CurrentThread
        );
        let inside = current.block_on(async {
            rt::spawn(async { Handle::current().runtime_flavor() })
                .await
                .unwrap()
        });
        assert_eq!(inside, RuntimeFlavor::CurrentThread);
    });
}

/// `Handle::id`: the same for clones and `Handle::current` inside, and
/// different between two runtimes.
#[test]
fn handle_id_identifies_the_runtime() {
    limit("Handle::id", || {
        let a = shim::runtime();
        let b = shim::runtime();
        assert_ne!(a.handle().id(), b.handle().id());
        assert_eq!(a.handle().id(), a.handle().clone().id());
        let inside = a.block_on(async { Handle::current().id() });
        assert_eq!(inside, a.handle().id());
        let _guard = b.enter();
        assert_eq!(Handle::current().id(), b.handle().id());
    });
}

/// `on_thread_start` and `on_thread_stop` run once for each thread the
/// runtime starts (workers and blocking threads): once the runtime is
/// dropped, as many stops as starts, and at least one of each.
#[test]
fn thread_start_and_stop_hooks_pair_up() {
    limit("thread hooks", || {
        let starts = Arc::new(AtomicUsize::new(0));
        let stops = Arc::new(AtomicUsize::new(0));
        let runtime = {
            let starts = starts.clone();
            let stops = stops.clone();
            shim::builder()
                .on_thread_start(move || {
                    starts.fetch_add(1, Ordering::SeqCst);
                })
                .on_thread_stop(move || {
                    stops.fetch_add(1, Ordering::SeqCst);
                })
                .build()
                .unwrap()
        };
        let value = runtime.block_on(async { rt::task::spawn_blocking(|| 5).await.unwrap() });
        assert_eq!(value, 5);
        drop(runtime);
        let started = starts.load(Ordering::SeqCst);
        assert!(started >= 1);
        if shim::MULTI_THREAD {
            // Two workers and a blocking thread.
            assert!(started >= 3, "{started} threads started");
        }
        assert_eq!(stops.load(Ordering::SeqCst), started);
    });
}

/// `on_thread_park` runs when a runtime thread goes idle, and
/// `on_thread_unpark` when it wakes up again.
#[test]
fn thread_park_and_unpark_hooks_run() {
    limit("park hooks", || {
        let parks = Arc::new(AtomicUsize::new(0));
        let unparks = Arc::new(AtomicUsize::new(0));
        let runtime = {
            let parks = parks.clone();
            let unparks = unparks.clone();
            shim::builder()
                .on_thread_park(move || {
                    parks.fetch_add(1, Ordering::SeqCst);
                })
                .on_thread_unpark(move || {
                    unparks.fetch_add(1, Ordering::SeqCst);
                })
                .build()
                .unwrap()
        };
        runtime.block_on(async {
            for _ in 0..200 {
                rt::spawn(async {
                    rt::time::sleep(Duration::from_millis(2)).await;
                })
                .await
                .unwrap();
                if parks.load(Ordering::SeqCst) > 0 && unparks.load(Ordering::SeqCst) > 0 {
                    break;
                }
            }
        });
        assert!(parks.load(Ordering::SeqCst) > 0, "never parked");
        assert!(unparks.load(Ordering::SeqCst) > 0, "never unparked");
    });
}

/// `thread_name_fn` is called for each thread the runtime starts: a
/// blocking job runs on a thread with one of its names.
#[test]
fn thread_name_fn_names_the_blocking_threads() {
    limit("thread_name_fn", || {
        let counter = Arc::new(AtomicUsize::new(0));
        let runtime = {
            let counter = counter.clone();
            shim::builder()
                .thread_name_fn(move || {
                    format!("audit-pool-{}", counter.fetch_add(1, Ordering::SeqCst))
                })
                .build()
                .unwrap()
        };
        let name = runtime.block_on(async {
            rt::task::spawn_blocking(|| std::thread::current().name().map(str::to_owned))
                .await
                .unwrap()
        });
        let name = name.expect("a named thread");
        assert!(name.starts_with("audit-pool-"), "{name}");
        assert!(counter.load(Ordering::SeqCst) >= 1);
    });
}

/// `thread_stack_size`: the runtime's threads get the stack asked for, big
/// enough here for a 6 MiB local buffer in a blocking job.
#[test]
fn thread_stack_size_gives_big_stacks() {
    limit("thread_stack_size", || {
        let runtime = shim::builder()
            .thread_stack_size(16 * 1024 * 1024)
            .build()
            .unwrap();
        let sum = runtime.block_on(async {
            rt::task::spawn_blocking(|| {
                let buffer = std::hint::black_box([1u8; 6 * 1024 * 1024]);
                buffer.iter().map(|&b| usize::from(b)).sum::<usize>()
            })
            .await
            .unwrap()
        });
        assert_eq!(sum, 6 * 1024 * 1024);
    });
}

// ---------------------------------------------------------- Runtime, Handle

/// `Handle::current` outside a runtime panics with Tokio's words, and
/// `try_current`'s error says the same.
#[test]
#[allow(clippy::redundant_closure)]
fn handle_current_outside_a_runtime_says_no_reactor_is_running() {
    limit("Handle::current outside", || {
        let error = Handle::try_current().unwrap_err();
        assert_eq!(error.to_string(), NO_REACTOR);
        assert!(error.is_missing_context());
        let caught = expect_panic("Handle::current", || Handle::current());
        caught.assert_says(NO_REACTOR);
    });
}

/// `spawn` and `spawn_blocking` outside a runtime panic with the same
/// words.
#[test]
fn spawn_outside_a_runtime_says_no_reactor_is_running() {
    limit("spawn outside", || {
        let caught = expect_panic("spawn", || rt::spawn(async {}));
        caught.assert_says(NO_REACTOR);
        let caught = expect_panic("spawn_blocking", || rt::task::spawn_blocking(|| ()));
        caught.assert_says(NO_REACTOR);
    });
}

/// `block_on` inside `block_on` (of another runtime) panics: "Cannot start
/// a runtime from within a runtime".
#[test]
fn block_on_inside_a_runtime_panics() {
    limit("nested block_on", || {
        let outer = shim::runtime();
        let inner = Builder::new_current_thread().build().unwrap();
        let message = outer.block_on(async {
            expect_panic("nested block_on", || inner.block_on(async {})).message
        });
        assert!(
            message.contains("Cannot start a runtime from within a runtime"),
            "{message}"
        );
    });
}

/// `Handle::block_on` from a task panics the same way, and the task's
/// `JoinError` carries it.
#[test]
fn handle_block_on_inside_a_task_panics() {
    limit("Handle::block_on in a task", || {
        let runtime = shim::runtime();
        let error = runtime.block_on(async {
            rt::spawn(async { Handle::current().block_on(async { 1 }) })
                .await
                .unwrap_err()
        });
        assert!(error.is_panic());
        let message = crate::behaviour::panic_message(&*error.into_panic());
        assert!(
            message.contains("Cannot start a runtime from within a runtime"),
            "{message}"
        );
    });
}

/// Dropping a runtime inside async code panics with Tokio's words.
#[test]
fn dropping_a_runtime_in_async_code_panics() {
    limit("drop in async", || {
        let outer = shim::runtime();
        let inner = shim::runtime();
        let message =
            outer.block_on(async move { expect_panic("drop inner", move || drop(inner)).message });
        assert!(
            message.contains("Cannot drop a runtime in a context where blocking is not allowed"),
            "{message}"
        );
    });
}

/// `EnterGuard`s dropped out of order panic.
#[test]
fn enter_guards_dropped_out_of_order_panic() {
    limit("enter out of order", || {
        let a = shim::runtime();
        let b = shim::runtime();
        let first = a.enter();
        let second = b.enter();
        assert_eq!(Handle::current().id(), b.handle().id());
        let caught = expect_panic("out of order", move || drop(first));
        caught.assert_says("values dropped out of order");
        drop(second);
    });
}

/// Inside `Runtime::enter`, `Handle::current` is that runtime and
/// `Handle::block_on` works from a plain thread (on a multi-thread
/// runtime, a task it spawns runs too; a current-thread runtime's
/// `Handle::block_on` does not drive its tasks, as Tokio documents).
#[test]
fn enter_then_block_on_through_the_current_handle() {
    limit("enter then block_on", || {
        let runtime = shim::runtime();
        let _guard = runtime.enter();
        let handle = Handle::current();
        let value = std::thread::spawn(move || {
            handle.block_on(async {
                if shim::MULTI_THREAD {
                    rt::spawn(async { 7 }).await.unwrap()
                } else {
                    std::future::ready(7).await
                }
            })
        })
        .join()
        .unwrap();
        assert_eq!(value, 7);
    });
}

/// `shutdown_timeout` and `shutdown_background` cancel the runtime's
/// pending tasks: their futures are dropped, and their handles, awaited
/// elsewhere, report cancellation.
#[test]
fn shutdown_cancels_tasks_seen_from_another_runtime() {
    limit("shutdown cancels", || {
        for background in [false, true] {
            let doomed = shim::runtime();
            let flag = Arc::new(AtomicBool::new(false));
            let started = Arc::new(AtomicBool::new(false));
            let handle = {
                let flag = flag.clone();
                let started = started.clone();
                doomed.spawn(async move {
                    started.store(true, Ordering::SeqCst);
                    pending_with_flag(flag).await
                })
            };
            // Let the task start (the current-thread runtime needs a
            // block_on to run it).
            doomed.block_on(async {
                while !started.load(Ordering::SeqCst) {
                    rt::task::yield_now().await;
                }
            });
            if background {
                doomed.shutdown_background();
            } else {
                doomed.shutdown_timeout(Duration::from_secs(10));
            }
            let other = shim::runtime();
            let error = other.block_on(handle).unwrap_err();
            assert!(error.is_cancelled());
            assert!(flag.load(Ordering::SeqCst));
        }
    });
}

/// `Runtime::spawn_blocking` returns the closure's value through its
/// handle, and a panic in it is a `JoinError` that is a panic.
#[test]
fn runtime_spawn_blocking_value_and_panic() {
    limit("Runtime::spawn_blocking", || {
        let runtime = shim::runtime();
        let ok = runtime.spawn_blocking(|| "done");
        let bad = runtime.spawn_blocking(|| -> u8 { panic!("blocking boom") });
        let (ok, bad) = runtime.block_on(async { (ok.await, bad.await) });
        assert_eq!(ok.unwrap(), "done");
        let error = bad.unwrap_err();
        assert!(error.is_panic());
    });
}

/// Metrics of a current-thread runtime: one worker; tasks spawned from
/// outside wait in the global queue until `block_on` runs them.
#[test]
fn metrics_global_queue_depth_of_a_current_thread_runtime() {
    limit("global_queue_depth", || {
        let runtime = Builder::new_current_thread().enable_all().build().unwrap();
        let metrics = runtime.handle().metrics();
        assert_eq!(metrics.num_workers(), 1);
        assert_eq!(metrics.global_queue_depth(), 0);
        let handles: Vec<_> = (0..3).map(|i| runtime.spawn(async move { i })).collect();
        assert_eq!(metrics.global_queue_depth(), 3);
        assert_eq!(metrics.num_alive_tasks(), 3);
        let sum = runtime.block_on(async {
            let mut sum = 0;
            for handle in handles {
                sum += handle.await.unwrap();
            }
            sum
        });
        assert_eq!(sum, 3);
        assert_eq!(metrics.global_queue_depth(), 0);
    });
}

/// `num_workers` is the `worker_threads` asked for.
#[test]
fn metrics_num_workers_follows_worker_threads() {
    limit("num_workers", || {
        let runtime = Builder::new_multi_thread()
            .worker_threads(3)
            .enable_all()
            .build()
            .unwrap();
        assert_eq!(runtime.metrics().num_workers(), 3);
        assert_eq!(runtime.handle().metrics().num_workers(), 3);
    });
}

// ---------------------------------------------------------------- select!

/// Without `biased;`, each of several always-ready branches wins some of
/// the time (2000 rounds: a branch never chosen has odds (3/4)^2000).
#[test]
fn select_without_biased_picks_branches_at_random() {
    limit("select random", || {
        let wins = run(async {
            let mut wins = [0usize; 4];
            for _ in 0..2000 {
                let branch = rt::select! {
                    v = async { 0 } => v,
                    v = async { 1 } => v,
                    v = async { 2 } => v,
                    v = async { 3 } => v,
                };
                wins[branch] += 1;
            }
            wins
        });
        assert!(wins.iter().all(|&n| n > 0), "{wins:?}");
    });
}

/// With `biased;`, the first ready branch written always wins.
#[test]
fn select_biased_picks_the_first_ready_branch() {
    limit("select biased", || {
        run(async {
            for _ in 0..200 {
                let branch = rt::select! {
                    biased;
                    v = YieldOnce(false) => { let () = v; 0 }
                    v = async { 1 } => v,
                    v = async { 2 } => v,
                };
                assert_eq!(branch, 1);
            }
        });
    });
}

/// All branches disabled by their preconditions: `else` is the value; and
/// without `else`, `select!` panics. A disabled branch's future is created
/// but never polled.
#[test]
fn select_else_and_preconditions() {
    limit("select else", || {
        run(async {
            let polled = Arc::new(AtomicBool::new(false));
            let made = Arc::new(AtomicBool::new(false));
            let make = |made: Arc<AtomicBool>, polled: Arc<AtomicBool>| {
                made.store(true, Ordering::SeqCst);
                async move {
                    polled.store(true, Ordering::SeqCst);
                    1
                }
            };
            let off = false;
            let value = rt::select! {
                v = make(made.clone(), polled.clone()), if off => v,
                v = async { 2 }, if off => v,
                else => 3,
            };
            assert_eq!(value, 3);
            assert!(made.load(Ordering::SeqCst));
            assert!(!polled.load(Ordering::SeqCst));
        });
        let runtime = shim::runtime();
        let caught = expect_panic("no else", || {
            runtime.block_on(async {
                let off = false;
                rt::select! {
                    _ = async {}, if off => {}
                }
            })
        });
        caught.assert_says("all branches are disabled and there is no else branch");
    });
}

/// A branch whose output does not match its pattern is disabled, and
/// `select!` goes on waiting for the others; when every pattern fails,
/// `else` runs.
#[test]
fn select_pattern_mismatch_disables_only_that_branch() {
    limit("select mismatch", || {
        run(async {
            for _ in 0..50 {
                let value = rt::select! {
                    Some(v) = async { None::<u32> } => v,
                    Ok(v) = async { Err::<u32, ()>(()) } => v,
                    v = async { YieldOnce(false).await; 9 } => v,
                };
                assert_eq!(value, 9);
            }
            let value = rt::select! {
                Some(v) = async { None::<u32> } => v,
                Some(v) = async { YieldOnce(false).await; None::<u32> } => v,
                else => 100,
            };
            assert_eq!(value, 100);
        });
    });
}

/// A `&mut` to a pinned future in a loop: the same future goes on across
/// iterations (it is not restarted), and once finished its branch is
/// turned off with a precondition.
#[test]
fn select_on_a_mut_future_in_a_loop() {
    limit("select loop", || {
        run(async {
            let (tx, mut rx) = rt::sync::mpsc::channel::<u32>(16);
            let polls = Arc::new(AtomicUsize::new(0));
            let slow = {
                let polls = polls.clone();
                async move {
                    polls.fetch_add(1, Ordering::SeqCst);
                    for _ in 0..5 {
                        rt::task::yield_now().await;
                    }
                    "slow done"
                }
            };
            rt::pin!(slow);
            let producer = rt::spawn(async move {
                for i in 0..10 {
                    tx.send(i).await.unwrap();
                }
            });
            let mut got = Vec::new();
            let mut slow_done = None;
            loop {
                rt::select! {
                    out = &mut slow, if slow_done.is_none() => slow_done = Some(out),
                    Some(v) = rx.recv() => got.push(v),
                    else => break,
                }
            }
            producer.await.unwrap();
            assert_eq!(got, (0..10).collect::<Vec<_>>());
            assert_eq!(slow_done, Some("slow done"));
            // Started once, never restarted.
            assert_eq!(polls.load(Ordering::SeqCst), 1);
        });
    });
}

/// A dozen branches; the value of the whole `select!` is the winner's
/// handler's; the losers are dropped before the handler runs.
#[test]
fn select_of_many_branches_drops_losers_before_the_handler() {
    limit("select many", || {
        run(async {
            let flags: Vec<Arc<AtomicBool>> =
                (0..11).map(|_| Arc::new(AtomicBool::new(false))).collect();
            let f = |i: usize| pending_with_flag(flags[i].clone());
            let value = rt::select! {
                _ = f(0) => 0,
                _ = f(1) => 1,
                _ = f(2) => 2,
                _ = f(3) => 3,
                _ = f(4) => 4,
                _ = f(5) => 5,
                v = async { YieldOnce(false).await; 66 } => {
                    assert!(flags.iter().all(|f| f.load(Ordering::SeqCst)),
                        "a loser was still alive in the handler");
                    v + 1
                }
                _ = f(6) => 6,
                _ = f(7) => 7,
                _ = f(8) => 8,
                _ = f(9) => 9,
                _ = f(10) => 10,
            };
            assert_eq!(value, 67);
        });
    });
}

// ------------------------------------------------------ join!, try_join!

/// `join!` returns outputs in the order written, whatever order they
/// finish in, and runs them concurrently on one task.
#[test]
fn join_outputs_in_order_written() {
    limit("join order", || {
        run(async {
            let (tx1, rx1) = rt::sync::oneshot::channel::<u8>();
            let (tx2, rx2) = rt::sync::oneshot::channel::<u8>();
            let (a, b, c) = rt::join!(
                async { rx1.await.unwrap() },
                async {
                    let v = rx2.await.unwrap();
                    tx1.send(1).unwrap();
                    v
                },
                async {
                    tx2.send(2).unwrap();
                    "three"
                },
            );
            assert_eq!((a, b, c), (1, 2, "three"));
        });
    });
}

/// `join!(biased; ...)` polls its branches in the order written.
#[test]
fn join_biased_polls_in_order() {
    limit("join biased", || {
        run(async {
            for _ in 0..5 {
                let order = Mutex::new(Vec::new());
                let step = |i: u8| {
                    let order = &order;
                    async move {
                        order.lock().unwrap().push(i);
                        YieldOnce(false).await;
                        order.lock().unwrap().push(i);
                    }
                };
                rt::join!(biased; step(0), step(1), step(2));
                assert_eq!(*order.lock().unwrap(), vec![0, 1, 2, 0, 1, 2]);
            }
        });
    });
}

/// `try_join!` returns the first error as soon as it appears, dropping the
/// futures still running; all `Ok` gives `Ok` of the tuple.
#[test]
fn try_join_returns_the_first_error_and_drops_the_rest() {
    limit("try_join error", || {
        run(async {
            let flag = Arc::new(AtomicBool::new(false));
            let pending = {
                let flag = flag.clone();
                async move { Ok::<u32, String>(pending_with_flag(flag).await) }
            };
            let result = rt::try_join!(
                pending,
                async { Ok::<u32, String>(1) },
                async {
                    YieldOnce(false).await;
                    Err::<u32, String>("second".into())
                },
                async {
                    YieldOnce(false).await;
                    YieldOnce(false).await;
                    Err::<u32, String>("third".into())
                }
            );
            assert_eq!(result, Err("second".to_string()));
            assert!(flag.load(Ordering::SeqCst));
            let ok: Result<(u8, &str), ()> = rt::try_join!(async { Ok(1) }, async {
                YieldOnce(false).await;
                Ok("b")
            });
            assert_eq!(ok, Ok((1, "b")));
        });
    });
}

// ------------------------------------------------------ pin!, task_local!

/// `pin!` pins several futures at once, and its `let` form declares them.
#[test]
fn pin_macro_forms() {
    limit("pin!", || {
        run(async {
            let a = async { 1 };
            let b = async { 2 };
            rt::pin!(a, b);
            let sum = (&mut a).await + (&mut b).await;
            assert_eq!(sum, 3);
            rt::pin! {
                let c = async { 3 };
                let d = YieldOnce(false);
            }
            (&mut d).await;
            assert_eq!(c.as_mut().await, 3);
        });
    });
}

rt::task_local! {
    static AUDIT_NUMBER: u32;
    pub static AUDIT_NAME: String;
}

/// `task_local!`: a value set by `scope` is seen across `.await`s, nested
/// scopes shadow and restore, `try_with` fails outside, and `sync_scope`
/// sets it for a closure.
#[test]
fn task_local_scopes_nest_and_restore() {
    limit("task_local", || {
        assert!(AUDIT_NUMBER.try_with(|n| *n).is_err());
        let seen = AUDIT_NUMBER.sync_scope(4, || AUDIT_NUMBER.get());
        assert_eq!(seen, 4);
        run(async {
            AUDIT_NUMBER
                .scope(1, async {
                    rt::task::yield_now().await;
                    assert_eq!(AUDIT_NUMBER.get(), 1);
                    let inner = AUDIT_NUMBER
                        .scope(2, async {
                            rt::task::yield_now().await;
                            AUDIT_NUMBER.get()
                        })
                        .await;
                    assert_eq!(inner, 2);
                    assert_eq!(AUDIT_NUMBER.get(), 1);
                    let name = AUDIT_NAME
                        .scope("n".to_string(), async { AUDIT_NAME.with(|s| s.clone()) })
                        .await;
                    assert_eq!(name, "n");
                    // Not inherited by a spawned task.
                    let spawned = rt::spawn(async { AUDIT_NUMBER.try_with(|n| *n).is_err() })
                        .await
                        .unwrap();
                    assert!(spawned);
                })
                .await;
        });
        let caught = expect_panic("get outside", || AUDIT_NUMBER.get());
        caught.assert_says("cannot access a task-local storage value without setting it first");
    });
}

// ------------------------------------------------- #[main] and #[test]

/// `#[test]` without options: a current-thread runtime.
#[crate::rt::test]
async fn test_attribute_default_is_current_thread() {
    assert_eq!(
        Handle::current().runtime_flavor(),
        RuntimeFlavor::CurrentThread
    );
    assert_eq!(Handle::current().metrics().num_workers(), 1);
}

/// `#[test(flavor = "multi_thread", worker_threads = 3)]`.
#[crate::rt::test(flavor = "multi_thread", worker_threads = 3)]
async fn test_attribute_multi_thread_with_three_workers() {
    assert_eq!(
        Handle::current().runtime_flavor(),
        RuntimeFlavor::MultiThread
    );
    assert_eq!(Handle::current().metrics().num_workers(), 3);
}

/// A test may return a `Result`; `?` works in its body.
#[crate::rt::test]
async fn test_attribute_returning_result() -> Result<(), std::num::ParseIntError> {
    let n: u32 = "42".parse()?;
    let doubled = rt::spawn(async move { n * 2 }).await.unwrap();
    assert_eq!(doubled, 84);
    Ok(())
}

/// `crate = "..."` names the runtime crate by another path.
#[crate::rt::test(crate = "crate::rt", flavor = "current_thread", start_paused = true)]
async fn test_attribute_with_a_crate_path() {
    let start = rt::time::Instant::now();
    rt::time::sleep(Duration::from_secs(5)).await;
    assert_eq!(start.elapsed(), Duration::from_secs(5));
}

/// `#[main]` on an ordinary function that returns a value: calling it
/// builds a runtime, runs the body and returns its value.
#[crate::rt::main(flavor = "current_thread")]
async fn audit_compute() -> u32 {
    rt::spawn(async { 20 }).await.unwrap() + 1
}

/// `#[main(flavor = "multi_thread", worker_threads = 2)]` on a function
/// returning a `Result`.
#[crate::rt::main(flavor = "multi_thread", worker_threads = 2)]
async fn audit_compute_multi() -> Result<usize, String> {
    let workers = Handle::current().metrics().num_workers();
    rt::spawn(async move { Ok(workers) }).await.unwrap()
}

#[test]
fn main_attribute_on_functions_returning_values() {
    limit("main attribute", || {
        assert_eq!(audit_compute(), 21);
        assert_eq!(audit_compute_multi(), Ok(2));
        // Called inside a runtime, it is a block_on inside a runtime.
        let runtime = shim::runtime();
        let message =
            runtime.block_on(async { expect_panic("main inside", audit_compute).message });
        assert!(
            message.contains("Cannot start a runtime from within a runtime"),
            "{message}"
        );
    });
}

// ------------------------------------------------------------ more runtime

/// `Builder::name`: an empty name panics, a name is what `Handle::name`
/// gives back.
#[test]
fn builder_name_must_not_be_empty() {
    limit("Builder::name", || {
        let caught = expect_panic("empty name", || {
            Builder::new_current_thread().name("  ");
        });
        caught.assert_says("runtime name shouldn't be empty");
        let runtime = shim::builder().name("audited").build().unwrap();
        assert_eq!(runtime.handle().name(), Some("audited"));
        let inside = runtime.block_on(async { Handle::current().name().map(str::to_owned) });
        assert_eq!(inside.as_deref(), Some("audited"));
    });
}

/// Dropping the runtime waits for a blocking job that has started.
#[test]
fn dropping_the_runtime_waits_for_a_running_blocking_job() {
    limit("drop waits for blocking", || {
        let runtime = shim::runtime();
        let done = Arc::new(AtomicBool::new(false));
        let (started_tx, started_rx) = std::sync::mpsc::channel();
        {
            let done = done.clone();
            runtime.spawn_blocking(move || {
                started_tx.send(()).unwrap();
                std::thread::sleep(Duration::from_millis(100));
                done.store(true, Ordering::SeqCst);
            });
        }
        started_rx.recv_timeout(Duration::from_secs(10)).unwrap();
        drop(runtime);
        assert!(
            done.load(Ordering::SeqCst),
            "drop returned before the job ended"
        );
    });
}

/// `shutdown_background` does not stop a blocking job that has started:
/// it runs to its end, and its handle, awaited on another runtime, gives
/// its value. (A job not yet started may or may not run: Tokio does not
/// promise either.)
#[test]
fn a_started_blocking_job_outlives_shutdown_background() {
    limit("started blocking job", || {
        let runtime = shim::runtime_with_blocking_threads(1);
        let (started_tx, started_rx) = std::sync::mpsc::channel();
        let (release_tx, release_rx) = std::sync::mpsc::channel::<()>();
        let first = runtime.spawn_blocking(move || {
            started_tx.send(()).unwrap();
            let _ = release_rx.recv_timeout(Duration::from_secs(10));
            1
        });
        started_rx.recv_timeout(Duration::from_secs(10)).unwrap();
        runtime.shutdown_background();
        release_tx.send(()).unwrap();
        let other = shim::runtime();
        assert_eq!(other.block_on(first).unwrap(), 1);
    });
}

/// In a blocking job, `Handle::current` is the runtime that runs it.
#[test]
fn handle_current_in_a_blocking_job_is_its_runtime() {
    limit("current in spawn_blocking", || {
        let runtime = shim::runtime();
        let id = runtime.handle().id();
        let inside = runtime.block_on(async {
            rt::task::spawn_blocking(|| Handle::try_current().map(|h| h.id()).ok())
                .await
                .unwrap()
        });
        assert_eq!(inside, Some(id));
        let outside = runtime.spawn_blocking(|| Handle::current().id());
        assert_eq!(runtime.block_on(outside).unwrap(), id);
    });
}

// ------------------------------------------------------------ more macros

/// `select!` evaluates every precondition before it evaluates any future
/// expression, each in the order written.
#[test]
fn select_evaluates_preconditions_before_futures() {
    limit("select order", || {
        run(async {
            let log = Mutex::new(Vec::new());
            let cond = |name: &'static str| {
                log.lock().unwrap().push(name);
                true
            };
            let fut = |name: &'static str, v: u8| {
                log.lock().unwrap().push(name);
                async move { v }
            };
            let value = rt::select! {
                biased;
                v = fut("f1", 1), if cond("c1") => v,
                v = fut("f2", 2), if cond("c2") => v,
            };
            assert_eq!(value, 1);
            assert_eq!(*log.lock().unwrap(), vec!["c1", "c2", "f1", "f2"]);
        });
    });
}

/// `biased;` with every pattern failing: each branch is tried once, in
/// order, and `else` is the value.
#[test]
fn select_biased_all_patterns_fail_gives_else() {
    limit("select biased else", || {
        run(async {
            let tried = Mutex::new(Vec::new());
            let attempt = |i: u8| {
                let tried = &tried;
                async move {
                    tried.lock().unwrap().push(i);
                    None::<u8>
                }
            };
            let value = rt::select! {
                biased;
                Some(v) = attempt(0) => v,
                Some(v) = attempt(1) => v,
                Some(v) = attempt(2) => v,
                else => 99,
            };
            assert_eq!(value, 99);
            assert_eq!(*tried.lock().unwrap(), vec![0, 1, 2]);
        });
    });
}

/// `join!` of a dozen futures: the outputs in the order written.
#[test]
fn join_of_a_dozen_futures() {
    limit("join many", || {
        run(async {
            let f = |i: u32| async move {
                for _ in 0..(12 - i) {
                    rt::task::yield_now().await;
                }
                i
            };
            let out = rt::join!(
                f(0),
                f(1),
                f(2),
                f(3),
                f(4),
                f(5),
                f(6),
                f(7),
                f(8),
                f(9),
                f(10),
                f(11)
            );
            assert_eq!(out, (0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11));
        });
    });
}
