//! `rt::sync::Semaphore` as Tokio documents it: first come, first served
//! (a big request at the head holds back small ones behind it), a cancelled
//! acquire passes on what it was given, `close` fails every wait, permits
//! come back on drop. Every test runs under a 20-second watchdog: a hang is
//! a lost wake-up, and fails.
#![cfg(not(loom))]

use futures::poll;
use rt::sync::{AcquireError, Semaphore, TryAcquireError};
use rt::{Builder, Runtime};
use std::future::Future;
use std::pin::pin;
use std::sync::{Arc, Mutex, mpsc};
use std::thread;
use std::time::Duration;

/// Runs `test` on a two-worker runtime, on its own thread; fails if it has
/// not finished within 20 s.
fn within_20s<F>(test: impl FnOnce() -> F + Send + 'static)
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
    match finished.recv_timeout(Duration::from_secs(20)) {
        Ok(()) => thread.join().unwrap(),
        Err(mpsc::RecvTimeoutError::Disconnected) => {
            // The test panicked: report its panic.
            if let Err(panic) = thread.join() {
                std::panic::resume_unwind(panic);
            }
        }
        Err(mpsc::RecvTimeoutError::Timeout) => panic!("hung for 20 s: a wake-up was lost"),
    }
}

/// Spawns a task that joins the semaphore's line, tells us it has, then
/// waits for `n` permits and records `id` when it gets them.
fn queue_up(
    sem: &Arc<Semaphore>,
    n: u32,
    id: usize,
    order: &Arc<Mutex<Vec<usize>>>,
) -> rt::task::JoinHandle<Result<(), AcquireError>> {
    let (sem, order) = (sem.clone(), order.clone());
    let (queued, is_queued) = mpsc::channel();
    let handle = rt::spawn(async move {
        let mut acquire = pin!(sem.acquire_many(n));
        let permit = match poll!(acquire.as_mut()) {
            std::task::Poll::Ready(permit) => permit,
            std::task::Poll::Pending => {
                queued.send(()).unwrap();
                acquire.await
            }
        }?;
        order.lock().unwrap().push(id);
        drop(permit);
        Ok(())
    });
    is_queued
        .recv_timeout(Duration::from_secs(10))
        .expect("the task never queued");
    handle
}

#[test]
fn waiters_are_served_in_arrival_order() {
    within_20s(|| async {
        let sem = Arc::new(Semaphore::new(0));
        let order = Arc::new(Mutex::new(Vec::new()));
        let handles: Vec<_> = (0..8).map(|id| queue_up(&sem, 1, id, &order)).collect();
        // One permit, passed from each task to the next as it finishes.
        sem.add_permits(1);
        for handle in handles {
            handle.await.unwrap().unwrap();
        }
        assert_eq!(*order.lock().unwrap(), (0..8).collect::<Vec<_>>());
        assert_eq!(sem.available_permits(), 1);
    });
}

#[test]
fn a_big_request_at_the_head_holds_back_small_ones() {
    within_20s(|| async {
        let sem = Semaphore::new(1);
        let mut big = pin!(sem.acquire_many(3));
        let mut small = pin!(sem.acquire());
        assert!(poll!(big.as_mut()).is_pending()); // assigned 1 of 3
        assert!(poll!(small.as_mut()).is_pending());
        assert_eq!(sem.available_permits(), 0);
        sem.add_permits(1); // 2 of 3: still not enough, and small may not barge
        assert!(poll!(small.as_mut()).is_pending());
        assert_eq!(sem.try_acquire().err(), Some(TryAcquireError::NoPermits));
        sem.add_permits(1);
        let big = big.await.unwrap();
        assert_eq!(big.num_permits(), 3);
        assert!(poll!(small.as_mut()).is_pending());
        drop(big);
        let small = small.await.unwrap();
        assert_eq!(sem.available_permits(), 2);
        drop(small);
        assert_eq!(sem.available_permits(), 3);
    });
}

#[test]
fn a_cancelled_acquire_passes_on_its_partial_assignment() {
    within_20s(|| async {
        let sem = Arc::new(Semaphore::new(2));
        let order = Arc::new(Mutex::new(Vec::new()));
        let big = {
            let sem = sem.clone();
            let (queued, is_queued) = mpsc::channel();
            let (cancel, cancelled) = rt::sync::oneshot::channel::<()>();
            let task = rt::spawn(async move {
                let mut acquire = pin!(sem.acquire_many(5));
                assert!(poll!(acquire.as_mut()).is_pending());
                queued.send(()).unwrap();
                // Wait to be told, then drop the acquire: the 2 permits
                // assigned to it must go to the next waiter.
                let _ = cancelled.await;
            });
            is_queued.recv().unwrap();
            (task, cancel)
        };
        assert_eq!(sem.available_permits(), 0);
        let small = queue_up(&sem, 1, 1, &order);
        let (task, cancel) = big;
        cancel.send(()).unwrap();
        task.await.unwrap();
        // The small waiter was woken by the cancellation alone.
        small.await.unwrap().unwrap();
        assert_eq!(*order.lock().unwrap(), [1]);
        assert_eq!(sem.available_permits(), 2, "a permit was lost");
    });
}

#[test]
fn close_fails_pending_and_later_acquires_but_permits_come_back() {
    within_20s(|| async {
        let sem = Arc::new(Semaphore::new(1));
        let held = sem.try_acquire().unwrap();
        let order = Arc::new(Mutex::new(Vec::new()));
        let waiting = queue_up(&sem, 1, 0, &order);
        sem.close();
        assert!(sem.is_closed());
        assert!(waiting.await.unwrap().is_err());
        assert!(sem.acquire().await.is_err());
        assert_eq!(sem.try_acquire().err(), Some(TryAcquireError::Closed));
        assert_eq!(sem.available_permits(), 0);
        drop(held);
        assert_eq!(sem.available_permits(), 1);
        assert_eq!(
            AcquireError::to_string(&sem.acquire().await.unwrap_err()),
            "semaphore closed"
        );
    });
}

#[test]
fn a_waiter_closed_out_gives_back_what_it_was_assigned() {
    within_20s(|| async {
        let sem = Semaphore::new(2);
        let mut big = pin!(sem.acquire_many(3));
        assert!(poll!(big.as_mut()).is_pending());
        sem.close();
        assert!(big.await.is_err());
        assert_eq!(sem.available_permits(), 2);
    });
}

#[test]
fn add_permits_wakes_as_many_waiters_as_it_can_serve() {
    within_20s(|| async {
        let sem = Arc::new(Semaphore::new(0));
        let order = Arc::new(Mutex::new(Vec::new()));
        let handles: Vec<_> = (0..3).map(|id| queue_up(&sem, 2, id, &order)).collect();
        sem.add_permits(6);
        for handle in handles {
            handle.await.unwrap().unwrap();
        }
        assert_eq!(order.lock().unwrap().len(), 3);
        assert_eq!(sem.available_permits(), 6);
    });
}

#[test]
fn owned_permits_travel_into_tasks_and_can_be_forgotten() {
    within_20s(|| async {
        let sem = Arc::new(Semaphore::new(3));
        let permit = sem.clone().acquire_many_owned(2).await.unwrap();
        assert_eq!(permit.num_permits(), 2);
        assert!(Arc::ptr_eq(permit.semaphore(), &sem));
        rt::spawn(async move { drop(permit) }).await.unwrap();
        assert_eq!(sem.available_permits(), 3);

        let one = sem.clone().acquire_owned().await.unwrap();
        one.forget();
        assert_eq!(sem.available_permits(), 2);
        let two = sem.clone().try_acquire_many_owned(2).unwrap();
        assert_eq!(
            sem.clone().try_acquire_owned().err(),
            Some(TryAcquireError::NoPermits)
        );
        drop(two);
        assert_eq!(sem.forget_permits(5), 2);
        assert_eq!(sem.available_permits(), 0);
    });
}

#[test]
fn borrowed_permits_forget_and_count() {
    within_20s(|| async {
        let sem = Semaphore::new(4);
        let permit = sem.try_acquire_many(3).unwrap();
        assert_eq!(permit.num_permits(), 3);
        permit.forget();
        assert_eq!(sem.available_permits(), 1);
        assert_eq!(sem.acquire_many(0).await.unwrap().num_permits(), 0);
    });
}

#[test]
#[should_panic(expected = "MAX_PERMITS")]
fn more_than_max_permits_panics() {
    let _ = Semaphore::new(Semaphore::MAX_PERMITS + 1);
}
