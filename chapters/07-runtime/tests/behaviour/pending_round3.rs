//! The third round of Tokio's task and sync API, as Tokio documents it:
//! `JoinSet::{join_next_with_id, try_join_next_with_id, spawn_local_on}`
//! and collecting futures into a set, `JoinError::id` (and its words),
//! `task::coop::{unconstrained, cooperative, has_budget_remaining}`,
//! `LocalKey::get` for `Clone` values, `mpsc::Sender::{send_timeout,
//! reserve_many, try_reserve_many}`, the senders' counts, the mapped lock
//! guards (`MutexGuard::map`, `RwLockReadGuard::map`,
//! `RwLockWriteGuard::downgrade_map`, `RwLock::with_max_readers`),
//! `Notify::notified_owned`, `broadcast::Sender::closed` and the weak
//! broadcast sender, `SemaphorePermit::{split, merge}`, `SetOnce`, and the
//! `oneshot` and `watch` predicates. Compiled by every entry file.

use crate::behaviour::limit;
use crate::{rt, shim};
use rt::sync::{
    Mutex, MutexGuard, Notify, OwnedMutexGuard, RwLock, RwLockReadGuard, RwLockWriteGuard,
    Semaphore, SetOnce,
};
use rt::sync::{broadcast, mpsc, oneshot, watch};
use rt::task::{JoinSet, LocalSet};
use std::collections::HashMap;
use std::rc::Rc;
use std::sync::Arc;
use std::time::Duration;

/// A dictionary with no words in it: every look-up panics.
fn look_up(word: &str) -> String {
    panic!("no such word: {word}")
}

#[test]
fn join_next_with_id_names_the_task_each_output_belongs_to() {
    limit("JoinSet join_next_with_id", || {
        let runtime = shim::runtime();
        runtime.block_on(async {
            let mut set = JoinSet::new();
            let mut input_of = HashMap::new();
            for word in ["ant", "bee", "cat", "dog"] {
                let handle = set.spawn(async move {
                    rt::time::sleep(Duration::from_millis(word.len() as u64)).await;
                    word.to_uppercase()
                });
                input_of.insert(handle.id(), word);
            }
            let failing = set.spawn(async { look_up("yak") });
            let failing_id = failing.id();
            let mut seen = 0;
            while let Some(joined) = set.join_next_with_id().await {
                match joined {
                    Ok((id, upper)) => {
                        assert_eq!(upper, input_of[&id].to_uppercase());
                        seen += 1;
                    }
                    Err(error) => {
                        assert!(error.is_panic());
                        assert_eq!(error.id(), failing_id);
                    }
                }
            }
            assert_eq!(seen, 4);
            assert!(set.try_join_next_with_id().is_none());
        });
    });
}

#[test]
fn try_join_next_takes_only_finished_tasks() {
    limit("JoinSet try_join_next", || {
        let runtime = shim::runtime();
        runtime.block_on(async {
            let (release, wait) = oneshot::channel::<()>();
            let mut set = JoinSet::new();
            let slow = set.spawn(async move {
                let _ = wait.await;
                1
            });
            let quick = set.spawn(async { 2 });
            // The quick task finishes at some point; the slow one cannot.
            let (id, value) = loop {
                if let Some(joined) = set.try_join_next_with_id() {
                    break joined.unwrap();
                }
                rt::time::sleep(Duration::from_millis(1)).await;
            };
            assert_eq!((id, value), (quick.id(), 2));
            assert!(set.try_join_next().is_none());
            assert_eq!(set.len(), 1);
            release.send(()).unwrap();
            assert_eq!(
                set.join_next_with_id().await.unwrap().unwrap(),
                (slow.id(), 1)
            );
            assert!(set.is_empty());
        });
    });
}

#[test]
fn a_set_collected_from_futures_joins_all_of_them() {
    limit("JoinSet FromIterator + join_all", || {
        let runtime = shim::runtime();
        runtime.block_on(async {
            let set: JoinSet<u32> = (1..=5u32).map(|i| async move { i * i }).collect();
            assert_eq!(set.len(), 5);
            let mut squares = set.join_all().await;
            squares.sort_unstable();
            assert_eq!(squares, [1, 4, 9, 16, 25]);
            let mut more = JoinSet::new();
            more.extend((0..3u32).map(|i| async move { i }));
            assert_eq!(more.len(), 3);
        });
    });
}

#[test]
fn local_tasks_in_a_join_set_hold_an_rc_and_can_be_aborted() {
    limit("JoinSet spawn_local_on", || {
        let runtime = shim::runtime();
        let local = LocalSet::new();
        let mut set = JoinSet::new();
        let shared = Rc::new(5u32);
        let kept = shared.clone();
        let quick = set.spawn_local_on(async move { *kept + 1 }, &local);
        let stuck = set.spawn_local_on(std::future::pending::<u32>(), &local);
        assert_ne!(quick.id(), stuck.id());
        local.block_on(&runtime, async {
            let (id, value) = set.join_next_with_id().await.unwrap().unwrap();
            assert_eq!((id, value), (quick.id(), 6));
            assert!(quick.is_finished());
            stuck.abort();
            let error = set.join_next().await.unwrap().unwrap_err();
            assert!(error.is_cancelled());
            assert_eq!(error.id(), stuck.id());
            assert!(set.join_next().await.is_none());
        });
        assert_eq!(Rc::strong_count(&shared), 1);
    });
}

#[test]
fn join_error_names_its_task_in_its_words() {
    limit("JoinError id and Display", || {
        let runtime = shim::runtime();
        runtime.block_on(async {
            let handle = rt::spawn(std::future::pending::<()>());
            let id = handle.id();
            handle.abort();
            let error = handle.await.unwrap_err();
            assert_eq!(error.id(), id);
            assert_eq!(error.to_string(), format!("task {id} was cancelled"));
            let io: std::io::Error = error.into();
            assert_eq!(io.kind(), std::io::ErrorKind::Other);
            assert_eq!(io.to_string(), "task was cancelled");

            let handle = rt::spawn(async { panic!("lost") });
            let id = handle.id();
            let error = handle.await.unwrap_err();
            assert_eq!(error.id(), id);
            assert_eq!(
                error.to_string(),
                format!("task {id} panicked with message \"lost\"")
            );
        });
    });
}

#[test]
fn unconstrained_code_never_runs_out_of_budget() {
    limit("coop::unconstrained", || {
        let runtime = shim::runtime();
        runtime.block_on(async {
            let (tx, mut rx) = mpsc::unbounded_channel();
            let received = rt::task::unconstrained(async move {
                let mut received = 0;
                // Far more ready receives than one budget allows.
                for i in 0..1_000u32 {
                    tx.send(i).unwrap();
                    received += rx.recv().await.unwrap();
                    assert!(rt::task::coop::has_budget_remaining());
                }
                received
            })
            .await;
            assert_eq!(received, (0..1_000).sum::<u32>());
            let ready = rt::task::coop::cooperative(async { 7 }).await;
            assert_eq!(ready, 7);
        });
    });
}

rt::task_local! {
    static REQUEST: String;
}

#[test]
fn a_task_local_clone_value_is_read_with_get_and_try_get() {
    limit("LocalKey get for Clone", || {
        let runtime = shim::runtime();
        runtime.block_on(async {
            assert!(REQUEST.try_get().is_err());
            let seen = REQUEST
                .scope("req-7".to_string(), async {
                    rt::task::yield_now().await;
                    (REQUEST.get(), REQUEST.try_get().unwrap())
                })
                .await;
            assert_eq!(seen, ("req-7".to_string(), "req-7".to_string()));
        });
    });
}

#[test]
fn send_timeout_gives_the_value_back_on_timeout_and_on_close() {
    limit("mpsc send_timeout", || {
        let runtime = shim::runtime();
        runtime.block_on(async {
            let (tx, mut rx) = mpsc::channel(1);
            tx.send_timeout(1, Duration::from_millis(10)).await.unwrap();
            let full = tx.send_timeout(2, Duration::from_millis(10)).await;
            let error = full.unwrap_err();
            assert!(matches!(error, mpsc::error::SendTimeoutError::Timeout(2)));
            assert_eq!(error.to_string(), "timed out waiting on send operation");
            assert_eq!(error.into_inner(), 2);
            assert_eq!(rx.recv().await, Some(1));
            drop(rx);
            let closed = tx.send_timeout(3, Duration::from_millis(10)).await;
            assert!(matches!(
                closed,
                Err(mpsc::error::SendTimeoutError::Closed(3))
            ));
        });
    });
}

#[test]
fn reserve_many_collects_its_slots_ahead_of_later_senders() {
    limit("mpsc reserve_many", || {
        let runtime = shim::runtime();
        runtime.block_on(async {
            let (tx, mut rx) = mpsc::channel::<u32>(2);
            assert!(tx.reserve_many(3).await.is_err());
            assert!(matches!(
                tx.try_reserve_many(3),
                Err(mpsc::error::TrySendError::Full(()))
            ));
            tx.send(0).await.unwrap();
            tx.send(1).await.unwrap();
            let many = rt::spawn({
                let tx = tx.clone();
                async move {
                    let permits = tx.reserve_many(2).await.unwrap();
                    assert_eq!(permits.len(), 2);
                    for (permit, value) in permits.zip([10, 11]) {
                        permit.send(value);
                    }
                }
            });
            // Let the task start waiting for its two slots.
            rt::time::sleep(Duration::from_millis(20)).await;
            assert_eq!(rx.recv().await, Some(0));
            // The freed slot is the waiter's: a later sender finds none.
            assert!(matches!(
                tx.try_send(99),
                Err(mpsc::error::TrySendError::Full(99))
            ));
            assert_eq!(rx.recv().await, Some(1));
            many.await.unwrap();
            assert_eq!(rx.recv().await, Some(10));
            assert_eq!(rx.recv().await, Some(11));
            // Permits not used go back when the iterator is dropped.
            let mut permits = tx.try_reserve_many(2).unwrap();
            permits.next().unwrap().send(12);
            drop(permits);
            assert_eq!(tx.capacity(), 1);
        });
    });
}

#[test]
fn weak_and_strong_sender_counts_follow_the_handles() {
    limit("sender counts", || {
        let (tx, rx) = mpsc::channel::<u8>(1);
        let weak = tx.downgrade();
        let tx2 = tx.clone();
        assert_eq!((weak.strong_count(), weak.weak_count()), (2, 1));
        assert_eq!((rx.sender_strong_count(), rx.sender_weak_count()), (2, 1));
        drop((tx, tx2));
        assert_eq!(weak.strong_count(), 0);
        assert!(weak.upgrade().is_none());
        let (utx, _urx) = mpsc::unbounded_channel::<u8>();
        let uweak = utx.downgrade();
        assert_eq!((uweak.strong_count(), uweak.weak_count()), (1, 1));

        let (btx, brx) = broadcast::channel::<u8>(4);
        let bweak = btx.downgrade();
        assert_eq!((btx.strong_count(), btx.weak_count()), (1, 1));
        assert_eq!((brx.sender_strong_count(), brx.sender_weak_count()), (1, 1));
        let again = bweak.upgrade().unwrap();
        assert_eq!(bweak.strong_count(), 2);
        assert!(!brx.is_closed());
        drop((btx, again));
        assert!(brx.is_closed());
        assert!(bweak.upgrade().is_none());
    });
}

#[test]
fn broadcast_closed_completes_when_the_last_receiver_goes() {
    limit("broadcast Sender::closed", || {
        let runtime = shim::runtime();
        runtime.block_on(async {
            let (tx, rx1) = broadcast::channel::<u8>(4);
            let rx2 = tx.subscribe();
            let dropper = rt::spawn(async move {
                rt::time::sleep(Duration::from_millis(10)).await;
                drop(rx1);
                rt::time::sleep(Duration::from_millis(10)).await;
                drop(rx2);
            });
            tx.closed().await;
            assert_eq!(tx.receiver_count(), 0);
            dropper.await.unwrap();
            // Nobody to receive: closed at once.
            tx.closed().await;
        });
    });
}

#[test]
fn mapped_mutex_guards_keep_the_whole_mutex_locked() {
    limit("MutexGuard::map", || {
        let runtime = shim::runtime();
        runtime.block_on(async {
            let config = Arc::new(Mutex::new((String::from("name"), vec![1u32, 2])));
            let mut limits = MutexGuard::map(config.lock().await, |c| &mut c.1);
            limits.push(3);
            assert!(config.try_lock().is_err());
            drop(limits);
            let owned = OwnedMutexGuard::map(config.clone().lock_owned().await, |c| &mut c.0);
            let task = rt::spawn(async move {
                let mut name = owned;
                name.push_str("-2");
            });
            task.await.unwrap();
            let guard = config.lock().await;
            assert_eq!(*guard, ("name-2".to_string(), vec![1, 2, 3]));
            let missing = MutexGuard::try_map(guard, |c| c.1.get_mut(10));
            assert!(missing.is_err());
        });
    });
}

#[test]
fn mapped_rwlock_guards_read_a_part_and_downgrade_without_a_writer_between() {
    limit("RwLock guard maps", || {
        let runtime = shim::runtime();
        runtime.block_on(async {
            let lock = Arc::new(RwLock::with_max_readers((7u32, String::from("x")), 2));
            let number = RwLockReadGuard::map(lock.read().await, |c| &c.0);
            let text = RwLockReadGuard::map(lock.read().await, |c| c.1.as_str());
            assert_eq!((*number, &*text), (7, "x"));
            // Two readers is the most this lock lets in.
            assert!(lock.try_read().is_err());
            drop((number, text));

            let mut writer = lock.write().await;
            writer.0 = 8;
            let number = RwLockWriteGuard::downgrade_map(writer, |c| &c.0);
            assert_eq!(*number, 8);
            assert!(lock.try_write().is_err());
            assert_eq!(lock.try_read().unwrap().1, "x");
            drop(number);
            let mut text = RwLockWriteGuard::map(lock.write().await, |c| &mut c.1);
            text.push('y');
            drop(text);
            assert_eq!(lock.read().await.1, "xy");
        });
    });
}

#[test]
fn an_owned_notified_moves_into_a_task() {
    limit("Notify::notified_owned", || {
        let runtime = shim::runtime();
        runtime.block_on(async {
            let notify = Arc::new(Notify::new());
            let mut notified = Box::pin(notify.clone().notified_owned());
            // In line before the notification, so notify_one reaches it.
            assert!(!notified.as_mut().enable());
            let waiter = rt::spawn(async move {
                notified.await;
                "woken"
            });
            notify.notify_one();
            assert_eq!(waiter.await.unwrap(), "woken");
        });
    });
}

#[test]
fn semaphore_permits_split_and_merge() {
    limit("SemaphorePermit split/merge", || {
        let semaphore = Arc::new(Semaphore::new(5));
        let mut four = semaphore.try_acquire_many(4).unwrap();
        let one = four.split(1).unwrap();
        assert!(four.split(9).is_none());
        assert_eq!((four.num_permits(), one.num_permits()), (3, 1));
        drop(one);
        assert_eq!(semaphore.available_permits(), 2);
        let other = semaphore.try_acquire().unwrap();
        four.merge(other);
        assert_eq!(four.num_permits(), 4);
        drop(four);
        assert_eq!(semaphore.available_permits(), 5);

        let mut owned = semaphore.clone().try_acquire_many_owned(2).unwrap();
        let half = owned.split(1).unwrap();
        owned.merge(half);
        assert_eq!(owned.num_permits(), 2);
        drop(owned);
        let blocking = std::thread::spawn({
            let semaphore = semaphore.clone();
            move || semaphore.blocking_acquire_many(5).unwrap().num_permits()
        });
        assert_eq!(blocking.join().unwrap(), 5);
    });
}

#[test]
fn set_once_wakes_every_waiter_with_the_one_value() {
    limit("SetOnce", || {
        let runtime = shim::runtime();
        runtime.block_on(async {
            let cell = Arc::new(SetOnce::new());
            let waiters: Vec<_> = (0..3)
                .map(|_| {
                    let cell = cell.clone();
                    rt::spawn(async move { *cell.wait().await })
                })
                .collect();
            rt::time::sleep(Duration::from_millis(10)).await;
            assert!(!cell.initialized());
            cell.set(42u32).unwrap();
            for waiter in waiters {
                assert_eq!(waiter.await.unwrap(), 42);
            }
            let refused = cell.set(43).unwrap_err();
            assert_eq!(refused.0, 43);
            assert_eq!(cell.get(), Some(&42));
        });
    });
}

#[test]
fn oneshot_and_watch_predicates() {
    limit("oneshot is_terminated / watch is_closed", || {
        let runtime = shim::runtime();
        runtime.block_on(async {
            let (tx, mut rx) = oneshot::channel();
            assert!(rx.is_empty() && !rx.is_terminated());
            tx.send(5).unwrap();
            assert!(!rx.is_empty() && !rx.is_terminated());
            assert_eq!((&mut rx).await, Ok(5));
            assert!(rx.is_terminated() && rx.is_empty());

            let (mut tx, rx) = oneshot::channel::<u8>();
            assert!(
                std::future::poll_fn(|cx| std::task::Poll::Ready(tx.poll_closed(cx)))
                    .await
                    .is_pending()
            );
            drop(rx);
            std::future::poll_fn(|cx| tx.poll_closed(cx)).await;

            let (wtx, wrx) = watch::channel(0);
            assert!(!wrx.is_closed());
            drop(wtx);
            assert!(wrx.is_closed());
        });
    });
}
