//! Regression tests for bugs reported against `rt`: each one pins what
//! Tokio does (it passes in behaviour_tokio) in a place where `rt` was
//! reported to differ.

use super::{assert_points_here, expect_panic, limit, mentions_shutdown};
use crate::{rt, shim};
use rt::runtime::Handle;
use rt::sync::{mpsc, oneshot};
use std::sync::Arc;
use std::task::Context;
use std::time::Duration;

const PATIENCE: Duration = Duration::from_secs(5);

// ---- 1. The runtime's context inside spawn_blocking ----

#[test]
fn inside_spawn_blocking_try_current_finds_the_runtime() {
    limit("try_current in spawn_blocking", || {
        let runtime = shim::runtime();
        let found = runtime
            .block_on(async { rt::task::spawn_blocking(shim::in_runtime_context).await })
            .expect("the blocking job panicked");
        assert!(
            found,
            "Handle::try_current() inside spawn_blocking found no runtime"
        );
    });
}

#[test]
fn inside_spawn_blocking_spawn_puts_a_task_on_the_runtime() {
    limit("spawn in spawn_blocking", || {
        let runtime = shim::runtime();
        let value = runtime.block_on(async {
            let inner = rt::task::spawn_blocking(|| rt::spawn(async { 6 * 7 }))
                .await
                .expect("rt::spawn inside spawn_blocking panicked");
            inner.await.expect("the spawned task failed")
        });
        assert_eq!(value, 42);
    });
}

#[test]
fn inside_spawn_blocking_a_nested_spawn_blocking_runs() {
    limit("nested spawn_blocking", || {
        let runtime = shim::runtime();
        let value = runtime.block_on(async {
            let inner = rt::task::spawn_blocking(|| rt::task::spawn_blocking(|| 7))
                .await
                .expect("spawn_blocking inside spawn_blocking panicked");
            inner.await.expect("the nested blocking job failed")
        });
        assert_eq!(value, 7);
    });
}

#[test]
fn inside_spawn_blocking_handle_current_block_on_can_sleep() {
    limit(
        "Handle::current().block_on(sleep) in spawn_blocking",
        || {
            let runtime = shim::runtime();
            let value = runtime
                .block_on(async {
                    rt::task::spawn_blocking(|| {
                        Handle::current().block_on(async {
                            rt::time::sleep(Duration::from_millis(10)).await;
                            5
                        })
                    })
                    .await
                })
                .expect("the blocking job panicked");
            assert_eq!(value, 5);
        },
    );
}

#[test]
fn inside_spawn_blocking_handle_current_block_on_can_connect() {
    limit("connect from spawn_blocking", || {
        let runtime = shim::runtime();
        runtime.block_on(async {
            let listener = rt::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            let addr = listener.local_addr().unwrap();
            let client = rt::task::spawn_blocking(move || {
                Handle::current().block_on(async move {
                    let mut stream = rt::net::TcpStream::connect(addr).await?;
                    shim::write_all(&mut stream, b"hi").await?;
                    Ok::<_, std::io::Error>(())
                })
            });
            // The connection completes in the listener's backlog, so the
            // client finishes before the accept.
            rt::time::timeout(PATIENCE, client)
                .await
                .expect("the blocking job's connect hung")
                .expect("the blocking job panicked")
                .expect("connect or write failed");
            let (mut server, _) = listener.accept().await.unwrap();
            let mut buf = [0u8; 2];
            shim::read_exact(&mut server, &mut buf).await.unwrap();
            assert_eq!(&buf, b"hi");
        });
    });
}

// ---- 2. oneshot::Receiver::close with the sender alive ----

#[test]
fn oneshot_receiver_close_makes_the_await_an_error_while_the_sender_lives() {
    limit("oneshot close then await", || {
        let runtime = shim::runtime();
        runtime.block_on(async {
            let (tx, mut rx) = oneshot::channel::<u32>();
            rx.close();
            let result = rt::time::timeout(PATIENCE, rx).await;
            let result = result.expect("after close(), awaiting the receiver still waits");
            assert!(
                result.is_err(),
                "nothing was sent, yet the receiver got a value"
            );
            drop(tx);
        });
    });
}

#[test]
fn oneshot_receiver_close_makes_try_recv_closed() {
    let (tx, mut rx) = oneshot::channel::<u32>();
    rx.close();
    assert_eq!(rx.try_recv(), Err(shim::OneshotTryRecvError::Closed));
    drop(tx);
}

#[test]
fn oneshot_receiver_close_is_seen_by_the_sender() {
    let (tx, mut rx) = oneshot::channel::<u32>();
    assert!(!tx.is_closed());
    rx.close();
    assert!(tx.is_closed());
    assert_eq!(tx.send(9), Err(9));
}

#[test]
fn oneshot_receiver_close_wakes_sender_closed() {
    limit("oneshot close wakes Sender::closed", || {
        let runtime = shim::runtime();
        runtime.block_on(async {
            let (mut tx, mut rx) = oneshot::channel::<u32>();
            let waiter = rt::spawn(async move {
                tx.closed().await;
                tx.is_closed()
            });
            rt::time::sleep(Duration::from_millis(20)).await;
            rx.close();
            let closed = rt::time::timeout(PATIENCE, waiter)
                .await
                .expect("Sender::closed() did not wake after Receiver::close()")
                .unwrap();
            assert!(closed);
        });
    });
}

// ---- 3. mpsc::Receiver::close, then drain ----

#[test]
fn mpsc_receiver_close_then_recv_drains_and_ends_while_a_sender_lives() {
    limit("mpsc close then drain", || {
        let runtime = shim::runtime();
        runtime.block_on(async {
            let (tx, mut rx) = mpsc::channel::<u32>(8);
            tx.send(1).await.unwrap();
            tx.send(2).await.unwrap();
            rx.close();
            let drained = rt::time::timeout(PATIENCE, async {
                let mut got = Vec::new();
                while let Some(v) = rx.recv().await {
                    got.push(v);
                }
                got
            })
            .await
            .expect("after close(), recv() did not return None once the queue was empty");
            assert_eq!(drained, [1, 2]);
            assert_eq!(rx.try_recv(), Err(shim::MpscTryRecvError::Disconnected));
            drop(tx);
        });
    });
}

#[test]
fn mpsc_receiver_close_makes_sends_fail() {
    limit("mpsc close makes sends fail", || {
        let runtime = shim::runtime();
        runtime.block_on(async {
            let (tx, mut rx) = mpsc::channel::<u32>(8);
            tx.send(1).await.unwrap();
            rx.close();
            assert!(tx.is_closed());
            assert!(matches!(tx.send(2).await, Err(shim::MpscSendError(2))));
            assert!(matches!(
                tx.try_send(3),
                Err(shim::MpscTrySendError::Closed(3))
            ));
            // The value sent before close() is still delivered.
            assert_eq!(rx.recv().await, Some(1));
        });
    });
}

#[test]
fn mpsc_receiver_close_then_try_recv_drains_then_says_disconnected() {
    let (tx, mut rx) = mpsc::channel::<u32>(4);
    tx.try_send(1).unwrap();
    rx.close();
    assert_eq!(rx.try_recv(), Ok(1));
    assert_eq!(rx.try_recv(), Err(shim::MpscTryRecvError::Disconnected));
    drop(tx);
}

// ---- 4. A dropped mpsc::Receiver releases its waker ----

#[test]
fn mpsc_dropped_receiver_releases_its_waker_while_senders_live() {
    let (tx, mut rx) = mpsc::channel::<u32>(1);
    let (waker, counter) = super::counting_waker::new();
    let mut cx = Context::from_waker(&waker);
    assert!(rx.poll_recv(&mut cx).is_pending());
    drop(waker);
    assert!(
        Arc::strong_count(&counter) >= 2,
        "precondition: the channel keeps the receiver's waker while it waits"
    );
    drop(rx);
    assert_eq!(
        Arc::strong_count(&counter),
        1,
        "the receiver is gone, but the channel still holds its waker"
    );
    assert!(matches!(
        tx.try_send(1),
        Err(shim::MpscTrySendError::Closed(1))
    ));
}

#[test]
fn mpsc_send_fails_after_the_receiver_is_dropped() {
    limit("mpsc send after receiver drop", || {
        let runtime = shim::runtime();
        runtime.block_on(async {
            let (tx, rx) = mpsc::channel::<u32>(1);
            let tx2 = tx.clone();
            drop(rx);
            assert!(matches!(tx.send(1).await, Err(shim::MpscSendError(1))));
            assert!(matches!(
                tx2.try_send(2),
                Err(shim::MpscTrySendError::Closed(2))
            ));
        });
    });
}

#[test]
fn mpsc_send_waiting_for_room_fails_when_the_receiver_is_dropped() {
    limit("mpsc blocked send woken by receiver drop", || {
        let runtime = shim::runtime();
        runtime.block_on(async {
            let (tx, rx) = mpsc::channel::<u32>(1);
            tx.send(0).await.unwrap();
            let waiting = rt::spawn(async move { tx.send(1).await.is_err() });
            rt::time::sleep(Duration::from_millis(20)).await;
            drop(rx);
            let failed = rt::time::timeout(PATIENCE, waiting)
                .await
                .expect("a send waiting for room was not woken by the receiver's drop")
                .unwrap();
            assert!(failed);
        });
    });
}

// ---- 5. Many waiters on one socket ----

#[test]
fn two_tasks_accepting_on_one_listener_each_get_a_connection() {
    limit("two accepts on one listener", || {
        let runtime = shim::runtime();
        runtime.block_on(async {
            let listener = Arc::new(rt::net::TcpListener::bind("127.0.0.1:0").await.unwrap());
            let addr = listener.local_addr().unwrap();
            let acceptors: Vec<_> = (0..2)
                .map(|_| {
                    let listener = listener.clone();
                    rt::spawn(async move { listener.accept().await.map(|(s, _)| s) })
                })
                .collect();
            // Let both acceptors reach their wait.
            rt::time::sleep(Duration::from_millis(50)).await;
            let _a = rt::net::TcpStream::connect(addr).await.unwrap();
            let _b = rt::net::TcpStream::connect(addr).await.unwrap();
            for (i, acceptor) in acceptors.into_iter().enumerate() {
                rt::time::timeout(PATIENCE, acceptor)
                    .await
                    .unwrap_or_else(|_| {
                        panic!("acceptor {i} was never woken, though a connection waits for it")
                    })
                    .unwrap()
                    .unwrap();
            }
        });
    });
}

// ---- 6. Dropping the runtime while a blocking job waits on its drivers ----

#[test]
fn dropping_the_runtime_ends_a_blocking_job_sleeping_through_a_handle() {
    limit(
        "drop runtime while spawn_blocking sleeps via Handle",
        || {
            let runtime = shim::runtime();
            let (started_tx, started_rx) = std::sync::mpsc::channel();
            // The handle is cloned here, not taken with Handle::current() in the
            // job, so that this test does not depend on test 1's fix.
            let handle = runtime.handle().clone();
            let job = runtime.spawn_blocking(move || {
                started_tx.send(()).unwrap();
                let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    handle.block_on(async { rt::time::sleep(Duration::from_secs(3600)).await })
                }));
                outcome.map_err(|p| super::panic_message(&*p))
            });
            started_rx.recv().unwrap();
            std::thread::sleep(Duration::from_millis(50));
            drop(runtime);
            // Tokio: the timer driver shut down, so the sleep panicked ("timer
            // error: A Tokio 1.x context was found, but it is being shutdown.").
            let outcome = futures::executor::block_on(job).expect("the blocking job itself failed");
            let message = outcome.expect_err("a one-hour sleep completed");
            assert!(mentions_shutdown(&message), "{message:?}");
        },
    );
}

#[test]
fn dropping_the_runtime_ends_a_blocking_job_reading_through_a_handle() {
    limit("drop runtime while spawn_blocking reads via Handle", || {
        let runtime = shim::runtime();
        let (listener, addr) = runtime.block_on(async {
            let listener = rt::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            let addr = listener.local_addr().unwrap();
            (listener, addr)
        });
        let (result_tx, result_rx) = std::sync::mpsc::channel();
        let handle = runtime.handle().clone();
        let _job = runtime.spawn_blocking(move || {
            let result = handle.block_on(async move {
                let mut stream = rt::net::TcpStream::connect(addr).await?;
                let mut buf = [0u8; 8];
                shim::read(&mut stream, &mut buf).await
            });
            let _ = result_tx.send(result.map_err(|e| e.to_string()));
        });
        // Nobody writes: the read waits until the runtime goes away.
        let _server = runtime.block_on(listener.accept()).unwrap();
        std::thread::sleep(Duration::from_millis(50));
        drop(runtime);
        let result = result_rx
            .recv_timeout(PATIENCE)
            .expect("the blocking job's read did not end with the runtime");
        let error = result.expect_err("a read on a dead runtime succeeded");
        if shim::NAME == "tokio" {
            assert!(mentions_shutdown(&error), "{error:?}");
        }
    });
}

// ---- 7. I/O on a stream whose runtime was dropped ----

#[test]
fn io_on_a_stream_whose_runtime_is_gone_is_an_error() {
    limit("I/O after the runtime dropped", || {
        let runtime = shim::runtime();
        let (mut stream, server) = runtime.block_on(async {
            let listener = rt::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            let addr = listener.local_addr().unwrap();
            let stream = rt::net::TcpStream::connect(addr).await.unwrap();
            let (server, _) = listener.accept().await.unwrap();
            (stream, server)
        });
        drop(runtime);
        let mut buf = [0u8; 8];
        let read = futures::executor::block_on(shim::read(&mut stream, &mut buf));
        let read = read.expect_err("read after the runtime dropped succeeded");
        let other = shim::runtime();
        let write = other.block_on(shim::write(&mut stream, b"x"));
        let write = write.expect_err("write after the runtime dropped succeeded");
        if shim::NAME == "tokio" {
            // Tokio: ErrorKind::Other, "A Tokio 1.x context was found, but
            // it is being shutdown."
            assert!(mentions_shutdown(&read.to_string()), "{read:?}");
            assert!(mentions_shutdown(&write.to_string()), "{write:?}");
        }
        drop(server);
        drop(stream);
    });
}

// ---- 8. A sleep polled through a Handle of a runtime that shut down ----

#[test]
fn sleep_through_the_handle_of_a_dropped_runtime_panics_about_shutdown() {
    limit("sleep after shutdown", || {
        let runtime = shim::runtime();
        let handle = runtime.handle().clone();
        drop(runtime);
        let caught = expect_panic("sleep on a shut-down runtime", || {
            handle.block_on(async { rt::time::sleep(Duration::from_millis(10)).await })
        });
        assert!(
            mentions_shutdown(&caught.message),
            "the panic does not say the runtime shut down: {:?}",
            caught.message
        );
        if shim::NAME == "tokio" {
            assert!(
                caught
                    .message
                    .contains("A Tokio 1.x context was found, but it is being shutdown."),
                "{caught:?}"
            );
        }
    });
}

// ---- 11. Durations at the end of the range ----

#[test]
fn sleep_duration_max_does_not_panic_and_does_not_fire() {
    limit("sleep(Duration::MAX)", || {
        let runtime = shim::runtime();
        runtime.block_on(async {
            let r =
                rt::time::timeout(Duration::from_millis(20), rt::time::sleep(Duration::MAX)).await;
            assert!(r.is_err(), "sleep(Duration::MAX) completed");
        });
    });
}

#[test]
fn sleep_u64_max_seconds_does_not_panic() {
    limit("sleep(u64::MAX s)", || {
        let runtime = shim::runtime();
        runtime.block_on(async {
            let sleep = rt::time::sleep(Duration::from_secs(u64::MAX));
            let r = rt::time::timeout(Duration::from_millis(20), sleep).await;
            assert!(r.is_err());
        });
    });
}

#[test]
fn timeout_duration_max_lets_the_future_finish() {
    limit("timeout(Duration::MAX)", || {
        let runtime = shim::runtime();
        let r = runtime.block_on(async {
            rt::time::timeout(Duration::MAX, async {
                rt::time::sleep(Duration::from_millis(10)).await;
                3
            })
            .await
        });
        assert_eq!(r.ok(), Some(3));
    });
}

#[test]
fn interval_duration_max_ticks_at_once_then_never() {
    limit("interval(Duration::MAX)", || {
        let runtime = shim::runtime();
        runtime.block_on(async {
            let mut interval = rt::time::interval(Duration::MAX);
            rt::time::timeout(PATIENCE, interval.tick())
                .await
                .expect("the first tick of interval(Duration::MAX) is not immediate");
            let second = rt::time::timeout(Duration::from_millis(20), interval.tick()).await;
            assert!(second.is_err(), "interval(Duration::MAX) ticked twice");
        });
    });
}

// ---- 12. Misuse panics point at the caller (#[track_caller]) ----

#[test]
fn spawn_outside_a_runtime_panics_at_the_caller() {
    limit("spawn outside", || {
        let after = line!();
        let caught = expect_panic("rt::spawn outside", || rt::spawn(async {}));
        let before = line!();
        assert_points_here(&caught, after, before);
    });
}

#[test]
fn spawn_blocking_outside_a_runtime_panics_at_the_caller() {
    limit("spawn_blocking outside", || {
        let after = line!();
        let caught = expect_panic("spawn_blocking outside", || rt::task::spawn_blocking(|| ()));
        let before = line!();
        assert_points_here(&caught, after, before);
    });
}

/// Through a closure: passed as a function item, `#[track_caller]`
/// reports the `FnOnce` shim in core, not this file.
#[test]
#[allow(clippy::redundant_closure)]
fn handle_current_outside_a_runtime_panics_at_the_caller() {
    limit("Handle::current outside", || {
        let after = line!();
        let caught = expect_panic("Handle::current outside", || Handle::current());
        let before = line!();
        assert_points_here(&caught, after, before);
    });
}

#[test]
fn interval_of_zero_panics_at_the_caller() {
    limit("interval(ZERO)", || {
        let after = line!();
        let caught = expect_panic("interval(ZERO)", || rt::time::interval(Duration::ZERO));
        let before = line!();
        assert_points_here(&caught, after, before);
    });
}

#[test]
fn block_on_inside_a_runtime_panics_at_the_caller() {
    limit("block_on inside", || {
        let runtime = shim::runtime();
        let handle = runtime.handle().clone();
        let caught = runtime.block_on(async move {
            let after = line!();
            let caught = expect_panic("block_on inside block_on", || handle.block_on(async {}));
            (caught, after, line!())
        });
        assert_points_here(&caught.0, caught.1, caught.2);
    });
}

// ---- 13. Dropping a runtime in async code; EnterGuards out of order ----

#[test]
fn dropping_a_runtime_inside_block_on_panics() {
    limit("drop a runtime inside block_on", || {
        let outer = shim::runtime();
        let inner = shim::runtime();
        let caught = outer.block_on(async move {
            let mut inner = Some(inner);
            let caught = expect_panic("drop inside block_on", || drop(inner.take()));
            // If the drop panicked before finishing, leak what is left.
            std::mem::forget(inner);
            caught
        });
        assert!(
            caught.message.contains("Cannot drop a runtime") || caught.message.contains("drop"),
            "{caught:?}"
        );
    });
}

#[test]
fn dropping_a_runtime_inside_a_task_panics() {
    limit("drop a runtime inside a task", || {
        let outer = shim::runtime();
        let inner = shim::runtime();
        let result = outer.block_on(outer.spawn(async move {
            drop(inner);
        }));
        let error = result.expect_err("dropping a runtime inside a task did not panic");
        assert!(error.is_panic());
    });
}

#[test]
fn enter_guards_dropped_out_of_order_panic() {
    limit("EnterGuards out of order", || {
        let a = shim::runtime();
        let b = shim::runtime();
        let ga = a.handle().enter();
        let gb = b.handle().enter();
        let caught = expect_panic("drop(ga) before gb", move || drop(ga));
        // ga's drop panicked before it changed anything, so gb is still the
        // innermost guard and drops in order (restoring a). Forgetting it
        // instead leaked the handle of `a` it keeps (LeakSanitizer). The
        // runtimes are dropped on a clean thread.
        drop(gb);
        std::thread::spawn(move || drop((a, b))).join().unwrap();
        assert!(caught.message.contains("out of order"), "{caught:?}");
    });
}

/// Tokio's docs for `sleep`: it "can also panic whenever a timer is created
/// outside of a Tokio runtime": at creation, not at the first poll, and
/// (`#[track_caller]`) at the caller's line.
#[test]
fn sleep_created_outside_a_runtime_panics_at_the_caller() {
    limit("sleep outside", || {
        let after = line!();
        let caught = expect_panic("sleep outside", || {
            rt::time::sleep(Duration::from_millis(1))
        });
        let before = line!();
        assert_points_here(&caught, after, before);
    });
}

/// As for `sleep`: `interval` makes its timer at once. (Tokio 1.54 reports
/// this panic inside tokio/src/time/interval.rs, though `interval` is
/// `#[track_caller]`, so only the panic is pinned, not its location.)
#[test]
fn interval_created_outside_a_runtime_panics() {
    limit("interval outside", || {
        expect_panic("interval outside", || {
            rt::time::interval(Duration::from_millis(1))
        });
    });
}

/// As for `sleep`: `timeout` makes its timer at once.
#[test]
fn timeout_created_outside_a_runtime_panics_at_the_caller() {
    limit("timeout outside", || {
        let after = line!();
        let caught = expect_panic("timeout outside", || {
            rt::time::timeout(Duration::from_millis(1), async {})
        });
        let before = line!();
        assert_points_here(&caught, after, before);
    });
}

#[test]
fn block_on_inside_a_task_panics() {
    limit("block_on inside a task", || {
        let runtime = shim::runtime();
        let handle = runtime.handle().clone();
        let result = runtime
            .block_on(async move { rt::spawn(async move { handle.block_on(async { 1 }) }).await });
        let error = result.expect_err("block_on inside a task did not panic");
        assert!(error.is_panic());
    });
}

#[test]
fn a_blocking_job_spawned_from_a_plain_thread_through_a_handle_sees_the_runtime() {
    limit("Handle::spawn_blocking from a thread", || {
        let runtime = shim::runtime();
        let handle = runtime.handle().clone();
        let job = std::thread::spawn(move || handle.spawn_blocking(shim::in_runtime_context))
            .join()
            .unwrap();
        assert!(
            runtime.block_on(job).unwrap(),
            "no runtime context inside the blocking job"
        );
    });
}

// ---- 14. start_paused on a multi-thread builder ----

/// `Builder::start_paused`: "Pausing time requires the current-thread
/// runtime; construction of the runtime will panic otherwise." A panic at
/// `build`, not an `Err` the caller could unwrap later.
#[test]
fn start_paused_on_a_multi_thread_builder_panics_at_build() {
    limit("start_paused on multi-thread", || {
        let caught = super::expect_panic("start_paused multi-thread build", || {
            rt::runtime::Builder::new_multi_thread()
                .worker_threads(1)
                .enable_all()
                .start_paused(true)
                .build()
        });
        assert!(
            caught.message.contains("current_thread") || caught.message.contains("current-thread"),
            "the panic does not name the flavour pausing needs: {}",
            caught.message
        );
    });
}

// ---- 15. read_to_string on bytes that are not UTF-8 ----

/// `AsyncReadExt::read_to_string`: "If the data in this stream is *not*
/// valid UTF-8 then an error is returned and `buf` is unchanged": what the
/// string held before stays, whether the bad bytes come first or after
/// valid ones.
#[test]
fn read_to_string_of_bytes_that_are_not_utf8_leaves_the_string_as_it_was() {
    limit("read_to_string invalid UTF-8", || {
        shim::runtime().block_on(async {
            use rt::io::AsyncReadExt;
            for input in [&b"\xff\xfe"[..], &b"fine, then \xff"[..]] {
                let mut text = String::from("kept");
                let mut reader = input;
                let err = reader.read_to_string(&mut text).await.unwrap_err();
                assert_eq!(err.kind(), std::io::ErrorKind::InvalidData);
                assert_eq!(text, "kept", "the string changed on an error");
            }
        });
    });
}
