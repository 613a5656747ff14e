//! The synchronisation API a Tokio program reaches for beyond the basics,
//! as Tokio documents it: `sync::OnceCell` (`get_or_init`,
//! `get_or_try_init`, `set` and `SetError`, `const_new`), `sync::Barrier`
//! (`wait`, `BarrierWaitResult::is_leader`), the `blocking_*` methods of the
//! locks and channels (and their panic inside a runtime), the owned and
//! downgraded `RwLock` guards, `watch::Receiver::wait_for`, the `const_new`
//! constructors, the builder's `on_thread_start` / `on_thread_stop` /
//! `thread_name_fn` / `enable_io` / `enable_time`, `Handle::runtime_flavor`
//! and the `time::error::Elapsed` path. Compiled by every entry file.

use crate::behaviour::{expect_panic, limit};
use crate::{rt, shim};
use rt::sync::{Barrier, Mutex, Notify, OnceCell, RwLock, Semaphore, SetError};
use rt::sync::{mpsc, oneshot, watch};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

/// Tokio's panic for a blocking call on a runtime thread starts so.
const CANNOT_BLOCK: &str = "Cannot block the current thread from within a runtime";

#[test]
fn once_cell_runs_one_initialiser_for_many_callers() {
    limit("OnceCell one initialiser", || {
        let runtime = shim::runtime();
        runtime.block_on(async {
            let cell = Arc::new(OnceCell::new());
            let runs = Arc::new(AtomicUsize::new(0));
            let mut callers = Vec::new();
            for _ in 0..8 {
                let (cell, runs) = (cell.clone(), runs.clone());
                callers.push(rt::spawn(async move {
                    *cell
                        .get_or_init(|| async {
                            runs.fetch_add(1, Ordering::SeqCst);
                            // Long enough that the others arrive and wait.
                            rt::time::sleep(Duration::from_millis(20)).await;
                            7u32
                        })
                        .await
                }));
            }
            for caller in callers {
                assert_eq!(caller.await.unwrap(), 7);
            }
            assert_eq!(runs.load(Ordering::SeqCst), 1);
            assert!(cell.initialized());
        });
    });
}

#[test]
fn once_cell_a_failed_initialiser_leaves_it_empty_for_the_next() {
    limit("OnceCell failed init", || {
        let runtime = shim::runtime();
        runtime.block_on(async {
            let cell = OnceCell::<String>::new();
            let failed: Result<&String, &str> =
                cell.get_or_try_init(|| async { Err("not yet") }).await;
            assert_eq!(failed, Err("not yet"));
            assert_eq!(cell.get(), None);
            let ok: Result<&String, &str> = cell
                .get_or_try_init(|| async { Ok("second".to_string()) })
                .await;
            assert_eq!(ok.map(String::as_str), Ok("second"));
            // Set now: a later initialiser does not run.
            let got = cell
                .get_or_init(|| async { unreachable!("the cell is set") })
                .await;
            assert_eq!(got, "second");
        });
    });
}

#[test]
fn once_cell_a_cancelled_initialiser_hands_the_turn_on() {
    limit("OnceCell cancelled init", || {
        let runtime = shim::runtime();
        runtime.block_on(async {
            let cell = Arc::new(OnceCell::new());
            let first = {
                let cell = cell.clone();
                rt::spawn(async move {
                    cell.get_or_init(std::future::pending::<u8>).await;
                })
            };
            rt::time::sleep(Duration::from_millis(10)).await;
            // The first caller holds the turn: `set` is refused as "being
            // initialised".
            assert!(matches!(cell.set(1), Err(SetError::InitializingError(1))));
            first.abort();
            assert!(first.await.unwrap_err().is_cancelled());
            assert_eq!(*cell.get_or_init(|| async { 2 }).await, 2);
            let again = cell.set(3).unwrap_err();
            assert!(again.is_already_init_err());
            assert_eq!(again, SetError::AlreadyInitializedError(3));
        });
    });
}

static GLOBAL: OnceCell<u64> = OnceCell::const_new();
static COUNTER: Mutex<u64> = Mutex::const_new(0);
static TABLE: RwLock<u64> = RwLock::const_new(0);
static GATE: Semaphore = Semaphore::const_new(1);
static BELL: Notify = Notify::const_new();

#[test]
fn const_new_makes_statics_of_every_lock() {
    limit("const_new statics", || {
        let runtime = shim::runtime();
        runtime.block_on(async {
            assert_eq!(*GLOBAL.get_or_init(|| async { 40 }).await, 40);
            *COUNTER.lock().await += 1;
            *TABLE.write().await += 1;
            let permit = GATE.acquire().await.unwrap();
            assert_eq!(GATE.available_permits(), 0);
            drop(permit);
            BELL.notify_one();
            BELL.notified().await;
            assert_eq!(*COUNTER.lock().await + *TABLE.read().await, 2);
        });
    });
}

#[test]
fn barrier_releases_all_at_the_nth_arrival_with_one_leader_per_round() {
    limit("Barrier rounds", || {
        let runtime = shim::runtime();
        runtime.block_on(async {
            let barrier = Arc::new(Barrier::new(4));
            let passed = Arc::new(AtomicUsize::new(0));
            for round in 0..3 {
                let mut tasks = Vec::new();
                for _ in 0..3 {
                    let (barrier, passed) = (barrier.clone(), passed.clone());
                    tasks.push(rt::spawn(async move {
                        let result = barrier.wait().await;
                        passed.fetch_add(1, Ordering::SeqCst);
                        result.is_leader()
                    }));
                }
                rt::time::sleep(Duration::from_millis(10)).await;
                // Three of four arrived: nobody has passed this round.
                assert_eq!(passed.load(Ordering::SeqCst), round * 3);
                let mut leaders = usize::from(barrier.wait().await.is_leader());
                for task in tasks {
                    leaders += usize::from(task.await.unwrap());
                }
                assert_eq!(leaders, 1);
            }
            assert_eq!(passed.load(Ordering::SeqCst), 9);
            // Zero counts as one: every wait returns at once, as leader.
            assert!(Barrier::new(0).wait().await.is_leader());
        });
    });
}

#[test]
fn blocking_lock_waits_for_an_async_holder_from_a_plain_thread() {
    limit("Mutex::blocking_lock", || {
        let runtime = shim::runtime();
        let mutex = Arc::new(Mutex::new(0));
        let guard = runtime.block_on(mutex.clone().lock_owned());
        let blocked = {
            let mutex = mutex.clone();
            std::thread::spawn(move || {
                *mutex.blocking_lock() += 1;
                *mutex.clone().blocking_lock_owned() += 1;
            })
        };
        std::thread::sleep(Duration::from_millis(20));
        assert!(!blocked.is_finished(), "blocking_lock did not wait");
        runtime.block_on(async move {
            rt::task::yield_now().await;
            drop(guard);
        });
        blocked.join().unwrap();
        assert_eq!(*mutex.try_lock().unwrap(), 2);
    });
}

#[test]
fn blocking_calls_panic_on_a_runtime_thread() {
    limit("blocking_* inside block_on", || {
        let runtime = shim::runtime();
        let mutex = Mutex::new(());
        let caught = expect_panic("blocking_lock in block_on", || {
            runtime.block_on(async { drop(mutex.blocking_lock()) })
        });
        caught.assert_says(CANNOT_BLOCK);
        let (_tx, mut rx) = mpsc::channel::<u8>(1);
        let caught = expect_panic("blocking_recv in block_on", || {
            runtime.block_on(async { rx.blocking_recv() })
        });
        caught.assert_says(CANNOT_BLOCK);
    });
}

#[test]
fn channels_block_from_spawn_blocking_and_plain_threads() {
    limit("blocking_send / blocking_recv", || {
        let runtime = shim::runtime();
        let (tx, mut rx) = mpsc::channel::<u32>(1);
        let (reply_tx, reply_rx) = oneshot::channel::<u32>();
        let (utx, mut urx) = mpsc::unbounded_channel::<u32>();
        // A plain thread produces into the bounded channel (blocking while
        // full) and waits for the sum on the oneshot.
        let producer = std::thread::spawn(move || {
            for n in 1..=10 {
                tx.blocking_send(n).unwrap();
            }
            drop(tx);
            reply_rx.blocking_recv().unwrap()
        });
        let sum = runtime.block_on(async move {
            let mut sum = 0;
            while let Some(n) = rx.recv().await {
                sum += n;
            }
            reply_tx.send(sum).unwrap();
            // And the other way: a blocking thread consumes.
            let consumer = rt::task::spawn_blocking(move || {
                let mut got = Vec::new();
                while let Some(n) = urx.blocking_recv() {
                    got.push(n);
                }
                got
            });
            for n in 0..3 {
                utx.send(n).unwrap();
            }
            drop(utx);
            assert_eq!(consumer.await.unwrap(), vec![0, 1, 2]);
            sum
        });
        assert_eq!(sum, 55);
        assert_eq!(producer.join().unwrap(), 55);
    });
}

#[test]
fn rwlock_owned_guards_and_blocking_access() {
    limit("RwLock owned guards", || {
        let runtime = shim::runtime();
        let lock = Arc::new(RwLock::new(vec![1]));
        runtime.block_on(async {
            let reader = lock.clone().read_owned().await;
            // An owned guard moves into a task.
            let len = rt::spawn(async move { reader.len() }).await.unwrap();
            assert_eq!(len, 1);
            let mut writer = lock.clone().write_owned().await;
            writer.push(2);
            assert!(lock.clone().try_read_owned().is_err());
            drop(writer);
            assert!(lock.clone().try_write_owned().is_ok());
        });
        let other = lock.clone();
        std::thread::spawn(move || other.blocking_write().push(3))
            .join()
            .unwrap();
        assert_eq!(*lock.blocking_read(), vec![1, 2, 3]);
    });
}

#[test]
fn rwlock_downgrade_keeps_the_writer_waiting_behind_it_out() {
    limit("RwLockWriteGuard::downgrade", || {
        let runtime = shim::runtime();
        runtime.block_on(async {
            let lock = Arc::new(RwLock::new(0));
            let mut write = lock.clone().write_owned().await;
            *write = 1;
            let waiting = {
                let lock = lock.clone();
                rt::spawn(async move {
                    *lock.write().await = 2;
                })
            };
            rt::time::sleep(Duration::from_millis(10)).await;
            let read = write.downgrade();
            rt::time::sleep(Duration::from_millis(10)).await;
            // The queued writer is still out; nobody wrote between.
            assert!(!waiting.is_finished());
            assert_eq!(*read, 1);
            drop(read);
            waiting.await.unwrap();
            assert_eq!(*lock.read().await, 2);
            // The borrowed guard's downgrade.
            let write = lock.write().await;
            let read = write.downgrade();
            assert!(lock.try_read().is_ok());
            assert!(lock.try_write().is_err());
            drop(read);
        });
    });
}

#[test]
fn watch_wait_for_looks_at_the_current_value_then_waits() {
    limit("watch::Receiver::wait_for", || {
        let runtime = shim::runtime();
        runtime.block_on(async {
            let (tx, mut rx) = watch::channel(1u32);
            // Satisfied now: returns at once.
            assert_eq!(*rx.wait_for(|v| *v == 1).await.unwrap(), 1);
            let sender = rt::spawn(async move {
                for v in 2..=5 {
                    rt::time::sleep(Duration::from_millis(2)).await;
                    tx.send(v).unwrap();
                }
                tx
            });
            assert!(*rx.wait_for(|v| *v >= 4).await.unwrap() >= 4);
            let tx = sender.await.unwrap();
            drop(tx);
            // Closed, and the last value (5, seen or not) fails: an error.
            assert!(rx.wait_for(|v| *v == 9).await.is_err());
        });
    });
}

#[test]
fn builder_hooks_and_names_reach_the_runtimes_threads() {
    limit("on_thread_start / on_thread_stop / thread_name_fn", || {
        let started = Arc::new(AtomicUsize::new(0));
        let stopped = Arc::new(AtomicUsize::new(0));
        let mut builder = shim::builder();
        builder.enable_io().enable_time();
        {
            let started = started.clone();
            builder.on_thread_start(move || {
                started.fetch_add(1, Ordering::SeqCst);
            });
        }
        {
            let stopped = stopped.clone();
            builder.on_thread_stop(move || {
                stopped.fetch_add(1, Ordering::SeqCst);
            });
        }
        builder.thread_name_fn(|| "hooked".to_string());
        let runtime = builder.build().unwrap();
        let name = runtime
            .block_on(async {
                rt::task::spawn_blocking(|| std::thread::current().name().map(str::to_string)).await
            })
            .unwrap();
        assert_eq!(name.as_deref(), Some("hooked"));
        assert!(started.load(Ordering::SeqCst) >= 1);
        drop(runtime);
        // Dropping the runtime waits for its threads: each that started
        // has stopped.
        assert_eq!(
            stopped.load(Ordering::SeqCst),
            started.load(Ordering::SeqCst)
        );
    });
}

#[test]
fn handle_reports_the_flavour_and_timeout_errors_have_tokios_path() {
    limit("runtime_flavor / time::error::Elapsed", || {
        let runtime = shim::runtime();
        let expected = if shim::MULTI_THREAD {
            rt::runtime::RuntimeFlavor::MultiThread
        } else {
            rt::runtime::RuntimeFlavor::CurrentThread
        };
        assert_eq!(runtime.handle().runtime_flavor(), expected);
        runtime.block_on(async {
            let late: Result<(), rt::time::error::Elapsed> =
                rt::time::timeout(Duration::from_millis(1), std::future::pending()).await;
            assert!(late.is_err());
        });
    });
}

#[test]
fn senders_made_alone_hand_out_receivers_by_subscribe() {
    let config = watch::Sender::new(1);
    // No receiver: `send` fails and gives the value back, `send_replace`
    // stores anyway.
    assert!(config.send(2).is_err());
    assert_eq!(config.send_replace(3), 1);
    let mut rx = config.subscribe();
    assert_eq!(*rx.borrow_and_update(), 3);
    config.send(4).unwrap();
    assert_eq!(*rx.borrow(), 4);

    let events = rt::sync::broadcast::Sender::<u8>::new(4);
    assert!(events.send(1).is_err());
    let mut rx = events.subscribe();
    assert_eq!(events.send(2).unwrap(), 1);
    assert_eq!(rx.try_recv().unwrap(), 2);
}
