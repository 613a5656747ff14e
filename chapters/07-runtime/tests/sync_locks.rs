//! `rt::sync::Mutex` and `rt::sync::RwLock`, the two locks built on the
//! semaphore: mutual exclusion held across `.await`, `try_lock`, fairness,
//! readers together and a writer alone, and a stress run of 1,000 tasks
//! that must lose no increment. Every test runs under a watchdog: a hang is
//! a lost wake-up, and fails.
#![cfg(not(loom))]

use futures::poll;
use rt::sync::{Mutex, RwLock};
use rt::{Builder, Runtime};
use std::future::Future;
use std::pin::pin;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, mpsc};
use std::thread;
use std::time::Duration;

/// Runs `test` on a two-worker runtime, on its own thread; fails if it has
/// not finished within `limit`.
fn within<F>(limit: Duration, test: impl FnOnce() -> F + Send + 'static)
where
    F: Future<Output = ()> + 'static,
{
    let (done, finished) = mpsc::channel();
    let thread = thread::spawn(move || {
        let rt: Runtime = Builder::new_multi_thread()
            .worker_threads(2)
            .build()
            .unwrap();
        rt.block_on(test());
        let _ = done.send(());
    });
    match finished.recv_timeout(limit) {
        Ok(()) => thread.join().unwrap(),
        Err(mpsc::RecvTimeoutError::Disconnected) => {
            if let Err(panic) = thread.join() {
                std::panic::resume_unwind(panic);
            }
        }
        Err(mpsc::RecvTimeoutError::Timeout) => panic!("hung for {limit:?}: a wake-up was lost"),
    }
}

fn within_20s<F>(test: impl FnOnce() -> F + Send + 'static)
where
    F: Future<Output = ()> + 'static,
{
    within(Duration::from_secs(20), test);
}

#[test]
fn a_mutex_excludes_across_await_points() {
    within_20s(|| async {
        let mutex = Arc::new(Mutex::new(0u32));
        let inside = Arc::new(AtomicBool::new(false));
        let handles: Vec<_> = (0..16)
            .map(|_| {
                let (mutex, inside) = (mutex.clone(), inside.clone());
                rt::spawn(async move {
                    for _ in 0..50 {
                        let mut guard = mutex.lock().await;
                        assert!(!inside.swap(true, Ordering::SeqCst), "two holders at once");
                        rt::task::yield_now().await; // held across an .await
                        *guard += 1;
                        inside.store(false, Ordering::SeqCst);
                    }
                })
            })
            .collect();
        for handle in handles {
            handle.await.unwrap();
        }
        assert_eq!(*mutex.lock().await, 16 * 50);
    });
}

#[test]
fn try_lock_fails_while_held_or_waited_for() {
    within_20s(|| async {
        let mutex = Mutex::new(1);
        let guard = mutex.try_lock().unwrap();
        assert_eq!(
            mutex.try_lock().unwrap_err().to_string(),
            "operation would block"
        );
        let mut waiting = pin!(mutex.lock());
        assert!(poll!(waiting.as_mut()).is_pending());
        drop(guard);
        // The permit went to the waiter: try_lock may not take it.
        assert!(mutex.try_lock().is_err());
        let guard = waiting.await;
        assert_eq!(*guard, 1);
        assert_eq!(format!("{guard:?}"), "1");
    });
}

#[test]
fn a_mutex_is_handed_over_in_arrival_order() {
    within_20s(|| async {
        let mutex = Mutex::new(Vec::new());
        let held = mutex.lock().await;
        let mut a = pin!(async {
            mutex.lock().await.push('a');
        });
        let mut b = pin!(async {
            mutex.lock().await.push('b');
        });
        let mut c = pin!(async {
            mutex.lock().await.push('c');
        });
        // Queue them c, a, b.
        assert!(poll!(c.as_mut()).is_pending());
        assert!(poll!(a.as_mut()).is_pending());
        assert!(poll!(b.as_mut()).is_pending());
        drop(held);
        // Poll in another order: only the head of the line can finish.
        assert!(poll!(b.as_mut()).is_pending());
        assert!(poll!(a.as_mut()).is_pending());
        c.await;
        assert!(poll!(b.as_mut()).is_pending());
        a.await;
        b.await;
        assert_eq!(*mutex.lock().await, ['c', 'a', 'b']);
    });
}

#[test]
fn owned_guards_move_into_tasks() {
    within_20s(|| async {
        let mutex = Arc::new(Mutex::new(String::new()));
        let guard = mutex.clone().lock_owned().await;
        let task = rt::spawn(async move {
            let mut guard = guard;
            guard.push_str("from a task");
        });
        task.await.unwrap();
        assert_eq!(*mutex.clone().try_lock_owned().unwrap(), "from a task");
        let mutex = Arc::try_unwrap(mutex).unwrap();
        assert_eq!(mutex.into_inner(), "from a task");
    });
}

/// The stress test: 1,000 tasks take one mutex 100 times each; no
/// increment may be lost and every task must finish.
#[test]
fn a_thousand_tasks_a_hundred_thousand_locks_lose_nothing() {
    const TASKS: usize = 1_000;
    const EACH: usize = 100;
    within_20s(|| async {
        let mutex = Arc::new(Mutex::new(0usize));
        let finished = Arc::new(AtomicUsize::new(0));
        let handles: Vec<_> = (0..TASKS)
            .map(|i| {
                let (mutex, finished) = (mutex.clone(), finished.clone());
                rt::spawn(async move {
                    for j in 0..EACH {
                        let mut guard = mutex.lock().await;
                        let before = *guard;
                        // Now and then hold the lock across a yield, so
                        // that the line grows long.
                        if (i + j) % 7 == 0 {
                            rt::task::yield_now().await;
                        }
                        *guard = before + 1;
                    }
                    finished.fetch_add(1, Ordering::Relaxed);
                })
            })
            .collect();
        for handle in handles {
            handle.await.unwrap();
        }
        assert_eq!(finished.load(Ordering::Relaxed), TASKS);
        assert_eq!(*mutex.lock().await, TASKS * EACH);
    });
}

#[test]
fn readers_read_together_and_a_writer_is_alone() {
    within_20s(|| async {
        let lock = Arc::new(RwLock::new(0));
        // Two readers at once, each on its own task, each waiting for the
        // other to be inside before it leaves.
        let inside = Arc::new(AtomicUsize::new(0));
        let readers: Vec<_> = (0..2)
            .map(|_| {
                let (lock, inside) = (lock.clone(), inside.clone());
                rt::spawn(async move {
                    let guard = lock.read().await;
                    inside.fetch_add(1, Ordering::SeqCst);
                    while inside.load(Ordering::SeqCst) < 2 {
                        rt::task::yield_now().await;
                    }
                    *guard
                })
            })
            .collect();
        for reader in readers {
            assert_eq!(reader.await.unwrap(), 0);
        }
        let read = lock.read().await;
        let mut write = pin!(lock.write());
        assert!(poll!(write.as_mut()).is_pending());
        assert!(lock.try_write().is_err());
        drop(read);
        let mut guard = write.await;
        *guard = 1;
        assert!(lock.try_read().is_err());
        drop(guard);
        assert_eq!(*lock.try_read().unwrap(), 1);
    });
}

#[test]
fn a_waiting_writer_holds_back_later_readers() {
    within_20s(|| async {
        let lock = RwLock::new(0);
        let first = lock.read().await;
        let mut writer = pin!(async {
            *lock.write().await += 1;
        });
        assert!(poll!(writer.as_mut()).is_pending());
        // A reader who comes after the writer waits, though a reader holds
        // the lock: the writer is not starved.
        assert!(lock.try_read().is_err());
        let mut late_reader = pin!(lock.read());
        assert!(poll!(late_reader.as_mut()).is_pending());
        drop(first);
        writer.await;
        assert_eq!(*late_reader.await, 1);
    });
}

/// The auto traits Tokio's types have: a guard may be held across an
/// `.await` in a spawned task (it is `Send`), and the locks are shared
/// between tasks (they are `Sync`).
#[test]
fn send_and_sync_as_in_tokio() {
    fn send_sync<T: Send + Sync>() {}
    send_sync::<Mutex<u32>>();
    send_sync::<rt::sync::MutexGuard<'static, u32>>();
    send_sync::<rt::sync::OwnedMutexGuard<u32>>();
    send_sync::<RwLock<u32>>();
    send_sync::<rt::sync::RwLockReadGuard<'static, u32>>();
    send_sync::<rt::sync::RwLockWriteGuard<'static, u32>>();
    send_sync::<rt::sync::Semaphore>();
    send_sync::<rt::sync::SemaphorePermit<'static>>();
    send_sync::<rt::sync::Notify>();
    send_sync::<rt::sync::Notified<'static>>();
    // A Mutex of a Send but !Sync value is still Sync (one holder at a time).
    send_sync::<Mutex<std::cell::Cell<u32>>>();
}
