//! The current-thread scheduler as Tokio documents it: the thread in
//! `block_on` drives the runtime, another `block_on` on the same runtime
//! takes over when the first returns, and no task, however busy, keeps the
//! driver (timers and I/O) from running. On the multi-thread flavour the
//! same programs must work too, so every test runs on both.

use super::limit;
use crate::{rt, shim};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::Poll;
use std::time::Duration;

/// Two threads in `block_on` on one runtime: the first holds the runtime
/// while it waits; when it returns, the second must take over and drive
/// its own timers and tasks to the end (Tokio: "if another thread is
/// already in block_on, this thread waits for it to return and then
/// drives the runtime itself").
#[test]
fn a_second_block_on_takes_over_when_the_first_returns() {
    limit("second block_on takes over", || {
        let runtime = Arc::new(shim::runtime());
        let (first_in, first_is_in) = std::sync::mpsc::channel();
        let (release_first, first_released) = rt::sync::oneshot::channel::<()>();
        let first = {
            let runtime = runtime.clone();
            std::thread::spawn(move || {
                runtime.block_on(async move {
                    first_in.send(()).unwrap();
                    first_released.await.unwrap();
                });
            })
        };
        first_is_in.recv().unwrap();
        let (first_done, first_has_returned) = rt::sync::oneshot::channel::<()>();
        let (second_in, second_is_in) = std::sync::mpsc::channel();
        let second = {
            let runtime = runtime.clone();
            std::thread::spawn(move || {
                runtime.block_on(async move {
                    second_in.send(()).unwrap();
                    first_has_returned.await.unwrap();
                    // From here on, only this thread can drive the runtime.
                    rt::time::sleep(Duration::from_millis(20)).await;
                    rt::spawn(async { 7 }).await.unwrap()
                })
            })
        };
        // The second is inside block_on, waiting, before the first returns.
        second_is_in.recv().unwrap();
        release_first.send(()).unwrap();
        first.join().unwrap();
        first_done.send(()).unwrap();
        assert_eq!(second.join().unwrap(), 7);
    });
}

/// The `block_on` future loops on `yield_now` until a spawned task has
/// slept: the yields must not keep the timers from firing.
#[test]
fn a_block_on_future_that_yields_in_a_loop_lets_timers_fire() {
    limit("yielding block_on future and a timer", || {
        let runtime = shim::runtime();
        runtime.block_on(async {
            let slept = Arc::new(AtomicBool::new(false));
            let flag = slept.clone();
            rt::spawn(async move {
                rt::time::sleep(Duration::from_millis(10)).await;
                flag.store(true, Ordering::SeqCst);
            });
            while !slept.load(Ordering::SeqCst) {
                rt::task::yield_now().await;
            }
        });
    });
}

/// The `block_on` future wakes itself and returns `Pending` until a socket
/// beside it has been read: its wake-ups must not keep the driver from
/// delivering the socket's readiness.
#[test]
fn a_block_on_future_that_wakes_itself_lets_a_socket_be_read() {
    limit("self-waking block_on future and a socket", || {
        let runtime = shim::runtime();
        runtime.block_on(async {
            let listener = rt::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            let addr = listener.local_addr().unwrap();
            let got = Arc::new(AtomicBool::new(false));
            let flag = got.clone();
            rt::spawn(async move {
                let (mut stream, _) = listener.accept().await.unwrap();
                let mut buf = [0u8; 5];
                shim::read_exact(&mut stream, &mut buf).await.unwrap();
                assert_eq!(&buf, b"hello");
                flag.store(true, Ordering::SeqCst);
            });
            // A plain thread writes, so only the driver can tell the task.
            std::thread::spawn(move || {
                use std::io::Write;
                let mut client = std::net::TcpStream::connect(addr).unwrap();
                client.write_all(b"hello").unwrap();
                std::thread::sleep(Duration::from_millis(200));
            });
            std::future::poll_fn(|cx| {
                if got.load(Ordering::SeqCst) {
                    Poll::Ready(())
                } else {
                    cx.waker().wake_by_ref();
                    Poll::Pending
                }
            })
            .await;
        });
    });
}

/// A spawned task that yields for ever must not keep a timer or a socket
/// of the `block_on` future from being served.
#[test]
fn a_task_that_yields_for_ever_does_not_starve_timers_or_sockets() {
    limit("yielding task beside a timer and a socket", || {
        let runtime = shim::runtime();
        runtime.block_on(async {
            let stop = Arc::new(AtomicBool::new(false));
            let spinner = {
                let stop = stop.clone();
                rt::spawn(async move {
                    while !stop.load(Ordering::SeqCst) {
                        rt::task::yield_now().await;
                    }
                })
            };
            rt::time::sleep(Duration::from_millis(10)).await;
            let listener = rt::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            let addr = listener.local_addr().unwrap();
            let writer = std::thread::spawn(move || {
                use std::io::Write;
                let mut client = std::net::TcpStream::connect(addr).unwrap();
                client.write_all(b"ping").unwrap();
            });
            let (mut stream, _) = listener.accept().await.unwrap();
            let mut buf = [0u8; 4];
            shim::read_exact(&mut stream, &mut buf).await.unwrap();
            assert_eq!(&buf, b"ping");
            writer.join().unwrap();
            stop.store(true, Ordering::SeqCst);
            spinner.await.unwrap();
        });
    });
}

/// A task that wakes itself and returns `Pending` for ever (a busy poll
/// loop) must not keep a timer beside it from firing.
#[test]
fn a_task_that_wakes_itself_for_ever_does_not_starve_a_timer() {
    limit("self-waking task beside a timer", || {
        let runtime = shim::runtime();
        runtime.block_on(async {
            let stop = Arc::new(AtomicBool::new(false));
            let spinner = {
                let stop = stop.clone();
                rt::spawn(std::future::poll_fn(move |cx| {
                    if stop.load(Ordering::SeqCst) {
                        Poll::Ready(())
                    } else {
                        cx.waker().wake_by_ref();
                        Poll::Pending
                    }
                }))
            };
            rt::time::sleep(Duration::from_millis(10)).await;
            stop.store(true, Ordering::SeqCst);
            spinner.await.unwrap();
        });
    });
}

/// Tokio's `yield_now` puts the task "at the back of the pending queue"
/// so that "any other pending tasks will be scheduled": tasks spawned from
/// another thread are pending too. With 2,000 of them queued from outside
/// and 8 tasks yielding in a loop, the yielding tasks may run only a few
/// times per hundred remote tasks, not dozens of times per remote task
/// (Tokio's `spawn_many_remote_busy` benchmark is this workload, timed).
/// The count is of polls, not of time, so a slow machine cannot change it.
#[test]
fn remote_tasks_are_not_held_back_by_tasks_that_yield_in_a_loop() {
    // Current-thread only: on the multi-thread flavour the remote tasks run
    // on the workers as they are spawned, and how many yields happen
    // meanwhile depends on how the OS schedules the threads.
    if shim::MULTI_THREAD {
        return;
    }
    limit("remote spawns beside yielding tasks", || {
        const REMOTE: usize = 2_000;
        let runtime = shim::runtime();
        let ran = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        // Spawned from outside block_on: every one waits in the queue for
        // tasks from outside the runtime.
        let remote: Vec<_> = (0..REMOTE)
            .map(|_| {
                let ran = ran.clone();
                runtime.spawn(async move {
                    ran.fetch_add(1, Ordering::SeqCst);
                })
            })
            .collect();
        let yields = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        runtime.block_on(async {
            let busy: Vec<_> = (0..8)
                .map(|_| {
                    let (ran, yields) = (ran.clone(), yields.clone());
                    rt::spawn(async move {
                        while ran.load(Ordering::SeqCst) < REMOTE {
                            yields.fetch_add(1, Ordering::SeqCst);
                            rt::task::yield_now().await;
                        }
                    })
                })
                .collect();
            for task in remote {
                task.await.unwrap();
            }
            for task in busy {
                task.await.unwrap();
            }
        });
        let yields = yields.load(Ordering::SeqCst);
        assert!(
            yields < REMOTE,
            "the yielding tasks ran {yields} times while {REMOTE} remote tasks waited"
        );
    });
}

// ---------------------------------------------------------------------
// The current-thread runtime's documented life cycle: tasks run only
// inside `block_on`, drop cancels, and the misuses that panic.

/// Sets its flag when dropped.
struct FlagOnDrop(Arc<AtomicBool>);

impl Drop for FlagOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

/// Tokio's current-thread runtime runs its tasks only while a thread is
/// in `block_on` ("a spawned task [...] will not run until `block_on` is
/// called"): a task spawned before any `block_on` has not started after
/// real time passes, and runs at the next `block_on`.
#[test]
fn a_task_spawned_before_block_on_runs_only_inside_block_on() {
    if shim::MULTI_THREAD {
        return; // worker threads run tasks without block_on
    }
    limit("spawn before block_on", || {
        let runtime = shim::runtime();
        let ran = Arc::new(AtomicBool::new(false));
        let handle = {
            let ran = ran.clone();
            runtime.spawn(async move {
                ran.store(true, Ordering::SeqCst);
                7
            })
        };
        std::thread::sleep(Duration::from_millis(50));
        assert!(!ran.load(Ordering::SeqCst), "the task ran outside block_on");
        assert!(!handle.is_finished());
        let out = runtime.block_on(handle).unwrap();
        assert_eq!(out, 7);
        assert!(ran.load(Ordering::SeqCst));
    });
}

/// Between two `block_on` calls the current-thread runtime stands still:
/// a task woken by a timer that fires meanwhile runs at the next
/// `block_on`, not before.
#[test]
fn between_two_block_ons_no_task_runs() {
    if shim::MULTI_THREAD {
        return; // worker threads run tasks without block_on
    }
    limit("between block_ons", || {
        let runtime = shim::runtime();
        let done = Arc::new(AtomicBool::new(false));
        let handle = {
            let done = done.clone();
            runtime.spawn(async move {
                rt::time::sleep(Duration::from_millis(10)).await;
                done.store(true, Ordering::SeqCst);
            })
        };
        // Start the task: it registers its timer, then waits.
        runtime.block_on(rt::task::yield_now());
        std::thread::sleep(Duration::from_millis(50));
        assert!(
            !done.load(Ordering::SeqCst),
            "the task ran outside block_on"
        );
        runtime.block_on(handle).unwrap();
        assert!(done.load(Ordering::SeqCst));
    });
}

/// Dropping a runtime cancels its tasks: the future of a waiting task and
/// of a task never polled are dropped (their destructors run) before the
/// drop returns, and a `JoinHandle` kept from them reports cancellation
/// when awaited on another runtime.
#[test]
fn dropping_the_runtime_drops_every_task_and_their_handles_see_cancelled() {
    limit("drop cancels", || {
        let runtime = shim::runtime();
        let waited = Arc::new(AtomicBool::new(false));
        let never = Arc::new(AtomicBool::new(false));
        let waiting = {
            let guard = FlagOnDrop(waited.clone());
            runtime.spawn(async move {
                let _guard = guard;
                std::future::pending::<()>().await;
            })
        };
        runtime.block_on(rt::task::yield_now());
        let unpolled = {
            let guard = FlagOnDrop(never.clone());
            runtime.spawn(async move {
                let _guard = guard;
            })
        };
        drop(runtime);
        assert!(
            waited.load(Ordering::SeqCst),
            "the waiting task was not dropped"
        );
        assert!(
            never.load(Ordering::SeqCst),
            "the unpolled task was not dropped"
        );
        let other = shim::runtime();
        let (a, b) = other.block_on(async { (waiting.await, unpolled.await) });
        assert!(a.unwrap_err().is_cancelled());
        // The unpolled task may have been dropped before or after it ran
        // (multi-thread); if it did not run, it is cancelled.
        if let Err(err) = b {
            assert!(err.is_cancelled());
        }
    });
}

/// `spawn_blocking` on the current-thread runtime runs the closure on
/// another thread, so the `block_on` thread goes on meanwhile.
#[test]
fn spawn_blocking_on_a_current_thread_runtime_runs_off_the_thread() {
    limit("spawn_blocking current-thread", || {
        let runtime = shim::runtime();
        let here = std::thread::current().id();
        let there = runtime.block_on(async {
            let (tx, rx) = std::sync::mpsc::channel::<()>();
            let job = rt::task::spawn_blocking(move || {
                rx.recv_timeout(Duration::from_secs(10)).unwrap();
                std::thread::current().id()
            });
            // The job waits for us: we must still be running.
            rt::time::sleep(Duration::from_millis(5)).await;
            tx.send(()).unwrap();
            job.await.unwrap()
        });
        assert_ne!(here, there);
    });
}

/// `JoinSet`: `join_next` is `None` on an empty set; outputs come in the
/// order the tasks finish (not the order they were spawned); `abort_all` makes every remaining output a
/// cancelled `JoinError`; `shutdown` aborts and waits, leaving it empty.
#[test]
fn join_set_joins_in_completion_order_and_aborts_all() {
    limit("join set", || {
        shim::runtime().block_on(async {
            let mut set: rt::task::JoinSet<u32> = rt::task::JoinSet::new();
            assert!(set.join_next().await.is_none());
            assert!(set.is_empty());
            // Each task finishes when the test releases it: 2, then 3, then 1.
            let mut release = std::collections::HashMap::new();
            for n in [1u32, 2, 3] {
                let (tx, rx) = rt::sync::oneshot::channel::<()>();
                release.insert(n, tx);
                set.spawn(async move {
                    let _ = rx.await;
                    n
                });
            }
            assert_eq!(set.len(), 3);
            let mut order = Vec::new();
            for n in [2u32, 3, 1] {
                release.remove(&n).unwrap().send(()).unwrap();
                order.push(set.join_next().await.unwrap().unwrap());
            }
            assert_eq!(order, [2, 3, 1]);
            assert!(set.join_next().await.is_none());

            for _ in 0..3 {
                set.spawn(std::future::pending::<u32>());
            }
            set.abort_all();
            let mut cancelled = 0;
            while let Some(out) = set.join_next().await {
                assert!(out.unwrap_err().is_cancelled());
                cancelled += 1;
            }
            assert_eq!(cancelled, 3);

            let dropped = Arc::new(AtomicBool::new(false));
            let guard = FlagOnDrop(dropped.clone());
            set.spawn(async move {
                let _guard = guard;
                std::future::pending::<u32>().await
            });
            rt::task::yield_now().await;
            set.shutdown().await;
            assert!(set.is_empty());
            assert!(dropped.load(Ordering::SeqCst));
        });
    });
}

/// Dropping a `JoinSet` aborts its tasks (unlike dropping a `JoinHandle`,
/// which detaches).
#[test]
fn dropping_a_join_set_aborts_its_tasks() {
    limit("join set drop", || {
        shim::runtime().block_on(async {
            let dropped = Arc::new(AtomicBool::new(false));
            let mut set = rt::task::JoinSet::new();
            let guard = FlagOnDrop(dropped.clone());
            set.spawn(async move {
                let _guard = guard;
                std::future::pending::<()>().await
            });
            rt::task::yield_now().await;
            drop(set);
            for _ in 0..2_000 {
                if dropped.load(Ordering::SeqCst) {
                    break;
                }
                rt::time::sleep(Duration::from_millis(5)).await;
            }
            assert!(dropped.load(Ordering::SeqCst), "the task outlived its set");
        });
    });
}

/// `LocalSet::run_until` drives the set's `spawn_local` tasks while the
/// future runs; tasks left pending when it returns run at the next
/// `run_until` (or when the set is awaited).
#[test]
fn local_set_run_until_drives_local_tasks_and_keeps_the_rest() {
    limit("local set run_until", || {
        let runtime = shim::runtime();
        let local = rt::task::LocalSet::new();
        let count = std::rc::Rc::new(std::cell::Cell::new(0));
        let out = local.block_on(&runtime, {
            let count = count.clone();
            async move {
                let first = rt::task::spawn_local({
                    let count = count.clone();
                    async move { count.set(count.get() + 1) }
                });
                first.await.unwrap();
                let _later = rt::task::spawn_local({
                    let count = count.clone();
                    async move {
                        rt::time::sleep(Duration::from_millis(20)).await;
                        count.set(count.get() + 10);
                    }
                });
                count.get()
            }
        });
        assert_eq!(out, 1);
        assert_eq!(count.get(), 1);
        runtime.block_on(local);
        assert_eq!(count.get(), 11);
    });
}

/// The current-thread `block_on` returns as soon as its future is ready:
/// a task the future spawned has not run yet, and runs at the next
/// `block_on`.
#[test]
fn a_task_spawned_by_a_block_on_future_that_returns_at_once_waits_for_the_next() {
    if shim::MULTI_THREAD {
        return; // worker threads run tasks without block_on
    }
    limit("spawned then returned", || {
        let runtime = shim::runtime();
        let ran = Arc::new(AtomicBool::new(false));
        let mut handle = None;
        runtime.block_on(async {
            let ran = ran.clone();
            handle = Some(rt::spawn(async move { ran.store(true, Ordering::SeqCst) }));
        });
        let handle = handle.unwrap();
        assert!(
            !ran.load(Ordering::SeqCst),
            "the task ran before block_on returned"
        );
        runtime.block_on(handle).unwrap();
        assert!(ran.load(Ordering::SeqCst));
    });
}

/// `JoinHandle::abort` on a `spawn_blocking` job that has started "will
/// not have any effect, and the task will continue running normally": its
/// result is still delivered.
#[test]
fn abort_does_not_stop_a_running_blocking_job() {
    limit("abort blocking", || {
        shim::runtime().block_on(async {
            let (started_tx, started_rx) = std::sync::mpsc::channel::<()>();
            let (go_tx, go_rx) = std::sync::mpsc::channel::<()>();
            let job = rt::task::spawn_blocking(move || {
                started_tx.send(()).unwrap();
                go_rx.recv_timeout(Duration::from_secs(10)).unwrap();
                42
            });
            rt::task::spawn_blocking(move || {
                started_rx.recv_timeout(Duration::from_secs(10)).unwrap()
            })
            .await
            .unwrap();
            job.abort();
            go_tx.send(()).unwrap();
            assert_eq!(job.await.unwrap(), 42);
        });
    });
}

/// `task::id()` inside a task is that task's id, the one its `JoinHandle`
/// reports; `task::try_id()` is `None` in `block_on`'s own future, and
/// `task::id()` "panics if called from outside a task".
#[test]
fn task_id_names_the_running_task_and_panics_outside_one() {
    limit("task id", || {
        shim::runtime().block_on(async {
            assert!(rt::task::try_id().is_none());
            super::expect_panic("task::id outside a task", rt::task::id);
            let handle = rt::spawn(async { rt::task::id() });
            let expected = handle.id();
            assert_eq!(handle.await.unwrap(), expected);
        });
    });
}

/// `LocalSet::enter` lets `spawn_local` queue tasks on the set from
/// outside `run_until`; they run when the set is next driven.
#[test]
fn local_set_enter_lets_spawn_local_queue_tasks() {
    limit("local set enter", || {
        let runtime = shim::runtime();
        let local = rt::task::LocalSet::new();
        let value = std::rc::Rc::new(std::cell::Cell::new(0));
        let handle = {
            let _guard = local.enter();
            let value = value.clone();
            rt::task::spawn_local(async move { value.set(5) })
        };
        assert_eq!(value.get(), 0);
        local.block_on(&runtime, handle).unwrap();
        assert_eq!(value.get(), 5);
    });
}

/// `JoinSet::len` counts the tasks in the set, finished or not: a task
/// leaves the set only when its output is joined (or the set detaches
/// it), so aborted and finished tasks still count until then.
#[test]
fn a_join_sets_length_drops_only_when_an_output_is_joined() {
    limit("join set len", || {
        shim::runtime().block_on(async {
            let mut set = rt::task::JoinSet::new();
            set.spawn(async { 1u8 });
            set.spawn(async { 2u8 });
            set.spawn(std::future::pending::<u8>());
            rt::time::sleep(Duration::from_millis(20)).await;
            assert_eq!(
                set.len(),
                3,
                "finished tasks left the set before being joined"
            );
            set.abort_all();
            assert_eq!(
                set.len(),
                3,
                "aborted tasks left the set before being joined"
            );
            let mut outputs = Vec::new();
            let mut cancelled = 0;
            while let Some(out) = set.join_next().await {
                match out {
                    Ok(value) => outputs.push(value),
                    Err(err) => {
                        assert!(err.is_cancelled());
                        cancelled += 1;
                    }
                }
            }
            outputs.sort_unstable();
            assert_eq!(outputs, [1, 2]);
            assert_eq!(cancelled, 1);
            assert!(set.is_empty());

            set.spawn(async { 3u8 });
            set.detach_all();
            assert_eq!(set.len(), 0);
            assert!(set.join_next().await.is_none());
        });
    });
}
