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
