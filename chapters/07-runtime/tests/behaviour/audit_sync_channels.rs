//! The synchronisation primitives and channels of `tokio::sync`, as Tokio
//! documents them (third audit): the corners the earlier files leave out.
//!
//! Covers `Semaphore` (permits given back after `close`, requests for zero
//! permits, permits held for a waiter not yet served, `split(0)`), `Notify`
//! (a chosen `Notified` dropped before it saw its notification,
//! `notify_waiters` next to a stored permit), `Mutex` and `RwLock` (the
//! hand-off to a waiter, readers let in together, `downgrade_map`),
//! `OnceCell` (a cancelled or failed initialiser, the standard traits),
//! `watch` (`subscribe` reopening a channel, `wait_for` and `mark_changed`
//! on a closed channel, several senders, the sender's `borrow`),
//! `broadcast` (`try_recv` through a lag and a close, `Sender::closed`),
//! `mpsc` (`send_timeout`, `recv_many` appending, `try_recv` and `closed`
//! after `close`, `reserve_many(0)`) and `oneshot` (`is_terminated`,
//! `is_empty`); then the auto traits that let all of these be used in
//! spawned tasks, many tasks contending at once (a lost wake-up hangs, and
//! the hang limit catches it), and the `blocking_*` methods on
//! `spawn_blocking` threads. Each test is written from Tokio 1.54's
//! documentation and was first made to pass against Tokio, which compiles
//! this same file in `behaviour_tokio.rs`: a failure in the Tokio build is
//! a wrong test, one in the rt build a place where rt departs from Tokio.

use crate::behaviour::limit;
use crate::{rt, shim};
use futures::{FutureExt, poll};
use rt::sync::{
    Mutex, Notify, OnceCell, RwLock, RwLockWriteGuard, Semaphore, broadcast, mpsc, oneshot, watch,
};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

// ---- Semaphore --------------------------------------------------------------

/// `close`: "This prevents the semaphore from issuing new permits"; it does
/// not take away the ones held, and a permit dropped afterwards still
/// "releases the permit back to the semaphore": `available_permits` counts
/// it, yet neither `try_acquire` nor `acquire` hands it out.
#[test]
fn permits_given_back_after_close_are_counted_but_never_handed_out() {
    limit("Semaphore close then release", || {
        shim::runtime().block_on(async {
            let sem = Semaphore::new(3);
            let held = sem.acquire_many(2).await.unwrap();
            assert_eq!(sem.available_permits(), 1);
            sem.close();
            assert!(sem.is_closed());
            drop(held);
            assert_eq!(sem.available_permits(), 3);
            assert_eq!(
                sem.try_acquire().unwrap_err(),
                rt::sync::TryAcquireError::Closed
            );
            assert!(sem.acquire().await.is_err());
        });
    });
}

/// A request for zero permits needs nothing, so it is granted at once, even
/// on a semaphore with no free permit and a waiter in line; but "if the
/// semaphore has been closed" every request fails, zero permits or not
/// (`TryAcquireError::Closed`, `AcquireError`).
#[test]
fn a_request_for_zero_permits_is_granted_at_once_unless_closed() {
    limit("Semaphore zero permits", || {
        shim::runtime().block_on(async {
            let sem = Semaphore::new(1);
            let held = sem.try_acquire().unwrap();
            let mut waiter = Box::pin(sem.acquire());
            assert!(poll!(waiter.as_mut()).is_pending());
            let none = sem.try_acquire_many(0).unwrap();
            assert_eq!(none.num_permits(), 0);
            let none_waited = sem
                .acquire_many(0)
                .now_or_never()
                .expect("zero permits are granted at once")
                .unwrap();
            assert_eq!(none_waited.num_permits(), 0);
            drop((none, none_waited));
            // The zero-permit permits gave nothing back: the waiter still waits.
            assert!(poll!(waiter.as_mut()).is_pending());
            drop(held);
            assert_eq!(waiter.await.unwrap().num_permits(), 1);
            sem.close();
            assert_eq!(
                sem.try_acquire_many(0).unwrap_err(),
                rt::sync::TryAcquireError::Closed
            );
            assert!(sem.acquire_many(0).await.is_err());
        });
    });
}

/// The semaphore is fair: permits that come free go to the waiter at the
/// head of the line, even one that needs more than there are, so
/// `available_permits` shows none and `try_acquire` "returns
/// `TryAcquireError::NoPermits` if there are no permits left" while it
/// waits; once served and dropped, all of them are free again.
#[test]
fn free_permits_are_held_for_a_waiter_at_the_head_and_try_acquire_gets_none() {
    limit("Semaphore permits assigned to a waiter", || {
        shim::runtime().block_on(async {
            let sem = Semaphore::new(2);
            let mut big = Box::pin(sem.acquire_many(4));
            assert!(poll!(big.as_mut()).is_pending());
            assert_eq!(sem.available_permits(), 0);
            assert_eq!(
                sem.try_acquire().unwrap_err(),
                rt::sync::TryAcquireError::NoPermits
            );
            sem.add_permits(1);
            assert_eq!(sem.available_permits(), 0);
            assert!(poll!(big.as_mut()).is_pending());
            sem.add_permits(2);
            let permit = big.await.unwrap();
            assert_eq!(permit.num_permits(), 4);
            // One permit more than the waiter needed stayed free.
            assert_eq!(sem.available_permits(), 1);
            drop(permit);
            assert_eq!(sem.available_permits(), 5);
        });
    });
}

/// `split(n)`: "Splits `n` permits from `self` and returns a new
/// `SemaphorePermit` instance that holds `n` permits"; `n = 0` is allowed
/// and splits off an empty permit. Each part gives back what it holds when
/// dropped, the owned form likewise.
#[test]
fn split_off_zero_or_some_permits_and_each_part_returns_its_share() {
    limit("SemaphorePermit::split", || {
        shim::runtime().block_on(async {
            let sem = Semaphore::new(5);
            let mut permit = sem.acquire_many(4).await.unwrap();
            let empty = permit.split(0).expect("zero permits can be split off");
            assert_eq!(empty.num_permits(), 0);
            assert_eq!(permit.num_permits(), 4);
            drop(empty);
            assert_eq!(sem.available_permits(), 1);
            let part = permit.split(3).unwrap();
            drop(part);
            assert_eq!(sem.available_permits(), 4);
            drop(permit);
            assert_eq!(sem.available_permits(), 5);

            let sem = Arc::new(Semaphore::new(2));
            let mut owned = sem.clone().acquire_many_owned(2).await.unwrap();
            let half = owned.split(1).unwrap();
            assert!(Arc::ptr_eq(half.semaphore(), &sem));
            drop(owned);
            assert_eq!(sem.available_permits(), 1);
            drop(half);
            assert_eq!(sem.available_permits(), 2);
        });
    });
}

// ---- Notify -----------------------------------------------------------------

/// Dropping a `Notified` is cancel safe: if `notify_one` had chosen it
/// (the oldest waiter) before it saw the notification, the notification
/// goes on to the next waiter in line, not lost with it; one chosen by
/// `notify_last` (the newest) goes on to the newest left.
#[test]
fn a_chosen_notified_dropped_unseen_hands_the_notification_on() {
    limit("Notified dropped after it was chosen", || {
        shim::runtime().block_on(async {
            let notify = Notify::new();
            let mut first = Box::pin(notify.notified());
            let mut second = Box::pin(notify.notified());
            let mut third = Box::pin(notify.notified());
            assert!(poll!(first.as_mut()).is_pending());
            assert!(poll!(second.as_mut()).is_pending());
            assert!(poll!(third.as_mut()).is_pending());
            notify.notify_one(); // chooses `first`
            drop(first);
            assert!(poll!(third.as_mut()).is_pending());
            assert!(poll!(second.as_mut()).is_ready());

            let mut a = Box::pin(notify.notified());
            let mut b = Box::pin(notify.notified());
            assert!(poll!(a.as_mut()).is_pending());
            assert!(poll!(b.as_mut()).is_pending());
            notify.notify_last(); // chooses `b`, the newest
            drop(b);
            // The newest left is `a` (then `third`'s older place does not matter).
            assert!(poll!(a.as_mut()).is_ready());
            assert!(poll!(third.as_mut()).is_pending());
        });
    });
}

/// With nobody else in line, a notification passed on by a dropped
/// `Notified` becomes the stored permit, as a `notify_one` with no waiter
/// would: the next `notified().await` completes at once.
#[test]
fn a_chosen_notified_dropped_with_nobody_left_stores_the_permit() {
    limit("Notified dropped leaves the permit", || {
        shim::runtime().block_on(async {
            let notify = Notify::new();
            let mut only = Box::pin(notify.notified());
            assert!(poll!(only.as_mut()).is_pending());
            notify.notify_one();
            drop(only);
            assert!(notify.notified().now_or_never().is_some());
            // One permit only: the one after that waits.
            assert!(notify.notified().now_or_never().is_none());
        });
    });
}

/// `notify_waiters` "notifies all waiting tasks" and "the permit is not
/// modified": a permit stored by an earlier `notify_one` survives it, and a
/// `Notified` created after it does not count it.
#[test]
fn notify_waiters_leaves_a_stored_permit_alone() {
    limit("notify_waiters and the permit", || {
        shim::runtime().block_on(async {
            let notify = Notify::new();
            notify.notify_one();
            let mut before = Box::pin(notify.notified());
            notify.notify_waiters();
            // `before` counts the notify_waiters; the permit stays stored.
            assert!(before.as_mut().enable());
            assert!(poll!(before.as_mut()).is_ready());
            assert!(notify.notified().now_or_never().is_some());
            assert!(notify.notified().now_or_never().is_none());
        });
    });
}

// ---- Mutex and RwLock -------------------------------------------------------

/// Tokio's `Mutex` is fair ("locks are acquired in the order they are
/// requested"): the lock released while a task waits goes to that task,
/// so a `try_lock` in between finds it taken, until the waiter has had it.
#[test]
fn a_released_mutex_goes_to_its_waiter_not_to_a_try_lock_in_between() {
    limit("Mutex hand-off", || {
        shim::runtime().block_on(async {
            let mutex = Mutex::new(0);
            let guard = mutex.lock().await;
            let mut waiter = Box::pin(mutex.lock());
            assert!(poll!(waiter.as_mut()).is_pending());
            drop(guard);
            assert!(mutex.try_lock().is_err());
            let mut got = waiter.await;
            *got += 1;
            drop(got);
            assert_eq!(*mutex.try_lock().unwrap(), 1);
        });
    });
}

/// The `RwLock` is fair: readers that queued behind a writer all get in
/// together once it leaves (they do not exclude one another), and a
/// writer that queued after them waits until every one of them is gone.
#[test]
fn readers_queued_behind_a_writer_enter_together_and_a_later_writer_waits() {
    limit("RwLock readers batch", || {
        shim::runtime().block_on(async {
            let lock = RwLock::new(0);
            let write = lock.write().await;
            let mut r1 = Box::pin(lock.read());
            let mut r2 = Box::pin(lock.read());
            let mut r3 = Box::pin(lock.read());
            let mut w2 = Box::pin(lock.write());
            for pending in [
                poll!(r1.as_mut()).is_pending(),
                poll!(r2.as_mut()).is_pending(),
                poll!(r3.as_mut()).is_pending(),
                poll!(w2.as_mut()).is_pending(),
            ] {
                assert!(pending);
            }
            drop(write);
            let g1 = r1.await;
            let g2 = r2.await;
            let g3 = r3.await;
            assert!(poll!(w2.as_mut()).is_pending());
            assert!(lock.try_read().is_err(), "the writer is next in line");
            drop((g1, g2));
            assert!(poll!(w2.as_mut()).is_pending());
            drop(g3);
            let mut w = w2.await;
            *w = 7;
            drop(w);
            assert_eq!(*lock.read().await, 7);
        });
    });
}

/// `RwLockWriteGuard::downgrade_map` "atomically downgrades a write lock
/// into a read lock" on a component; `try_downgrade_map` whose closure
/// returns `None` gives the write guard back, still exclusive.
#[test]
fn downgrade_map_lets_readers_in_and_a_failed_try_downgrade_map_keeps_writing() {
    limit("RwLockWriteGuard::downgrade_map", || {
        shim::runtime().block_on(async {
            let lock = RwLock::new((1, 2));
            let write = lock.write().await;
            let write = match RwLockWriteGuard::try_downgrade_map(write, |_| None::<&i32>) {
                Ok(_) => panic!("the closure said no"),
                Err(guard) => guard,
            };
            assert!(lock.try_read().is_err());
            let second = RwLockWriteGuard::downgrade_map(write, |pair| &pair.1);
            assert_eq!(*second, 2);
            let other = lock.try_read().expect("a downgraded lock lets readers in");
            assert_eq!(other.0, 1);
            assert!(lock.try_write().is_err());
            drop((second, other));
            assert!(lock.try_write().is_ok());
        });
    });
}

// ---- OnceCell ---------------------------------------------------------------

/// `get_or_init`: "If some other task is currently working on initializing
/// the `OnceCell`, this call will wait for that other task to finish, then
/// return the value that the other task produced. If the provided operation
/// is cancelled or panics, the initialization attempt is cancelled. If
/// there are other tasks waiting for the value to be initialized, one of
/// them will start another attempt."
#[test]
fn a_cancelled_initialisation_hands_the_turn_to_a_waiter() {
    limit("OnceCell cancelled initialiser", || {
        shim::runtime().block_on(async {
            let cell = OnceCell::new();
            let calls = AtomicUsize::new(0);
            let mut first = Box::pin(cell.get_or_init(|| async {
                calls.fetch_add(1, Ordering::SeqCst);
                std::future::pending::<u32>().await
            }));
            assert!(poll!(first.as_mut()).is_pending());
            let mut second = Box::pin(cell.get_or_init(|| async {
                calls.fetch_add(1, Ordering::SeqCst);
                2
            }));
            assert!(poll!(second.as_mut()).is_pending(), "waits for the first");
            drop(first);
            assert_eq!(*second.await, 2);
            assert_eq!(calls.load(Ordering::SeqCst), 2);
            assert_eq!(*cell.get_or_init(|| async { 3 }).await, 2);
        });
    });
}

/// `get_or_try_init`: "If the provided operation returns an error, is
/// cancelled or panics, the initialization attempt is cancelled": the error
/// comes back to that caller, the cell stays empty, and a caller that was
/// waiting runs its own operation.
#[test]
fn a_failed_try_initialisation_leaves_the_cell_to_the_next_caller() {
    limit("OnceCell get_or_try_init error", || {
        shim::runtime().block_on(async {
            let cell = OnceCell::<u32>::new();
            let (go_tx, go_rx) = oneshot::channel::<()>();
            let mut failing = Box::pin(cell.get_or_try_init(|| async {
                go_rx.await.unwrap();
                Err::<u32, &str>("no")
            }));
            assert!(poll!(failing.as_mut()).is_pending());
            let mut waiting = Box::pin(cell.get_or_try_init(|| async { Ok::<u32, &str>(9) }));
            assert!(poll!(waiting.as_mut()).is_pending());
            go_tx.send(()).unwrap();
            assert_eq!(failing.await.unwrap_err(), "no");
            assert_eq!(*waiting.await.unwrap(), 9);
            assert_eq!(cell.get(), Some(&9));
        });
    });
}

/// `OnceCell` implements `Clone` (cloning the value, if set), `PartialEq`
/// (comparing the values), `From<T>` (a set cell) and `Default` (an empty
/// one); `take` empties it and `into_inner` gives the value.
#[test]
fn once_cell_standard_traits_take_and_into_inner() {
    let set = OnceCell::from(String::from("v"));
    assert!(set.initialized());
    let copy = set.clone();
    assert_eq!(copy, set);
    let empty: OnceCell<String> = OnceCell::default();
    assert_ne!(empty, set);
    assert_eq!(empty.clone(), OnceCell::new());
    let mut taken = copy;
    assert_eq!(taken.take().as_deref(), Some("v"));
    assert!(!taken.initialized());
    assert_eq!(taken.take(), None);
    assert_eq!(set.into_inner().as_deref(), Some("v"));
}

// ---- watch ------------------------------------------------------------------

/// `Sender::send` fails "if the channel is closed", that is when every
/// receiver is gone; `subscribe` makes a new receiver, after which sends
/// succeed again ("a channel that was closed can be reopened"). The new
/// receiver starts with the current value marked as seen.
#[test]
fn watch_subscribe_reopens_a_channel_whose_receivers_are_gone() {
    limit("watch subscribe reopens", || {
        shim::runtime().block_on(async {
            let (tx, rx) = watch::channel(0);
            drop(rx);
            assert!(tx.is_closed());
            assert_eq!(tx.send(1).unwrap_err().0, 1);
            let mut rx = tx.subscribe();
            assert!(!tx.is_closed());
            assert_eq!(tx.receiver_count(), 1);
            assert!(!rx.has_changed().unwrap());
            tx.send(2).unwrap();
            assert!(rx.has_changed().unwrap());
            rx.changed().await.unwrap();
            assert_eq!(*rx.borrow_and_update(), 2);
        });
    });
}

/// `wait_for` on a closed channel: "When an error is returned, it is
/// guaranteed that the closure has been called on the last value, and that
/// it returned `false` for that value. (If the closure returned `true`,
/// then the last value would have been returned instead of the error.)"
#[test]
fn watch_wait_for_on_a_closed_channel_judges_the_last_value() {
    limit("watch wait_for after close", || {
        shim::runtime().block_on(async {
            let (tx, mut rx) = watch::channel(0);
            tx.send(5).unwrap();
            drop(tx);
            assert_eq!(*rx.wait_for(|v| *v == 5).await.unwrap(), 5);
            // Seen now, and still the answer when asked again.
            assert_eq!(*rx.wait_for(|v| *v > 1).await.unwrap(), 5);
            let mut looked_at = Vec::new();
            let result = rx
                .wait_for(|v| {
                    looked_at.push(*v);
                    *v == 6
                })
                .await;
            assert!(result.is_err());
            assert_eq!(looked_at.last(), Some(&5));
        });
    });
}

/// The channel closes when the last `Sender` is dropped, not the first:
/// with a clone alive, `changed` keeps waiting and `has_changed` is
/// `Ok(false)`; the clone's drop ends the wait with an error.
#[test]
fn watch_stays_open_while_any_sender_clone_lives() {
    limit("watch several senders", || {
        shim::runtime().block_on(async {
            let (tx, mut rx) = watch::channel(0);
            let tx2 = tx.clone();
            assert_eq!(tx.sender_count(), 2);
            drop(tx);
            assert!(!rx.has_changed().unwrap());
            let mut changed = Box::pin(rx.changed());
            assert!(poll!(changed.as_mut()).is_pending());
            drop(tx2);
            assert!(changed.await.is_err());
            assert!(rx.has_changed().is_err());
        });
    });
}

/// `Sender::closed` "completes when all receivers have dropped": it waits
/// while one is left, including a clone made from another receiver.
#[test]
fn watch_sender_closed_waits_for_the_last_receiver_clone() {
    limit("watch Sender::closed waits", || {
        shim::runtime().block_on(async {
            let (tx, rx) = watch::channel(());
            let rx2 = rx.clone();
            let mut closed = Box::pin(tx.closed());
            assert!(poll!(closed.as_mut()).is_pending());
            drop(rx);
            assert!(poll!(closed.as_mut()).is_pending());
            assert_eq!(tx.receiver_count(), 1);
            drop(rx2);
            closed.await;
            assert_eq!(tx.receiver_count(), 0);
        });
    });
}

// ---- broadcast --------------------------------------------------------------

/// `try_recv` through the whole life of a channel: `Empty` while nothing is
/// there, `Lagged(n)` with the exact count once values it missed were
/// overwritten, then the oldest kept values, and after the sender is gone
/// the values still held, then `Closed`.
#[test]
fn broadcast_try_recv_reports_empty_lagged_values_then_closed() {
    use rt::sync::broadcast::error::TryRecvError;
    let (tx, mut rx) = broadcast::channel(2);
    assert_eq!(rx.try_recv(), Err(TryRecvError::Empty));
    for n in 1..=5 {
        tx.send(n).unwrap();
    }
    assert_eq!(rx.try_recv(), Err(TryRecvError::Lagged(3)));
    assert_eq!(rx.try_recv(), Ok(4));
    assert_eq!(rx.try_recv(), Ok(5));
    assert_eq!(rx.try_recv(), Err(TryRecvError::Empty));
    tx.send(6).unwrap();
    drop(tx);
    assert_eq!(rx.try_recv(), Ok(6));
    assert_eq!(rx.try_recv(), Err(TryRecvError::Closed));
    assert_eq!(rx.try_recv(), Err(TryRecvError::Closed));
}

/// `broadcast::Sender::closed`: "A future which completes when the number
/// of Receivers subscribed to this Sender reaches zero", including
/// receivers made by `resubscribe`.
#[test]
fn broadcast_sender_closed_waits_for_every_receiver() {
    limit("broadcast Sender::closed", || {
        shim::runtime().block_on(async {
            let (tx, rx) = broadcast::channel::<u8>(4);
            let again = rx.resubscribe();
            let mut closed = Box::pin(tx.closed());
            assert!(poll!(closed.as_mut()).is_pending());
            drop(rx);
            assert!(poll!(closed.as_mut()).is_pending());
            assert_eq!(tx.receiver_count(), 1);
            drop(again);
            closed.await;
            assert_eq!(tx.send(1).unwrap_err().0, 1);
        });
    });
}

// ---- mpsc -------------------------------------------------------------------

/// `send_timeout`: "Sends a value, waiting until there is capacity, but
/// only for a limited time": `SendTimeoutError::Timeout(value)` when the
/// time runs out with the channel still full, `Closed(value)` when the
/// receiver is gone; with room it sends at once.
#[test]
fn mpsc_send_timeout_times_out_or_fails_closed_and_gives_the_value_back() {
    use rt::sync::mpsc::error::SendTimeoutError;
    limit("mpsc send_timeout", || {
        // The clock pauses on a current-thread runtime only.
        rt::runtime::Builder::new_current_thread()
            .enable_all()
            .start_paused(true)
            .build()
            .unwrap()
            .block_on(async {
                let (tx, mut rx) = mpsc::channel(1);
                tx.send_timeout(1, Duration::from_millis(10)).await.unwrap();
                let start = rt::time::Instant::now();
                match tx.send_timeout(2, Duration::from_millis(10)).await {
                    Err(SendTimeoutError::Timeout(2)) => {}
                    other => panic!("expected Timeout(2), got {other:?}"),
                }
                assert!(start.elapsed() >= Duration::from_millis(10));
                assert_eq!(rx.recv().await, Some(1));
                // A waiting send_timeout gets the slot freed by a receive.
                let sender = tx.clone();
                let waiting = rt::spawn(async move {
                    sender.send(3).await.unwrap();
                    sender.send_timeout(4, Duration::from_secs(60)).await
                });
                rt::time::sleep(Duration::from_secs(1)).await;
                assert_eq!(rx.recv().await, Some(3));
                waiting.await.unwrap().unwrap();
                assert_eq!(rx.recv().await, Some(4));
                drop(rx);
                match tx.send_timeout(5, Duration::from_millis(10)).await {
                    Err(SendTimeoutError::Closed(5)) => {}
                    other => panic!("expected Closed(5), got {other:?}"),
                }
            });
    });
}

/// `recv_many` "extends `buffer` by no more than a fixed number of values
/// as specified by `limit`": what the buffer already holds stays, and the
/// count returned is of the new values only.
#[test]
fn mpsc_recv_many_appends_to_what_the_buffer_holds() {
    limit("mpsc recv_many appends", || {
        shim::runtime().block_on(async {
            let (tx, mut rx) = mpsc::unbounded_channel();
            for n in 1..=5 {
                tx.send(n).unwrap();
            }
            let mut buffer = vec![10, 20];
            assert_eq!(rx.recv_many(&mut buffer, 3).await, 3);
            assert_eq!(buffer, [10, 20, 1, 2, 3]);
            assert_eq!(rx.recv_many(&mut buffer, 3).await, 2);
            assert_eq!(buffer, [10, 20, 1, 2, 3, 4, 5]);
            drop(tx);
            assert_eq!(rx.recv_many(&mut buffer, 3).await, 0);
            assert_eq!(buffer.len(), 7);
        });
    });
}

/// After `Receiver::close`, with senders still alive: `Sender::closed`
/// completes (the receiver has lost interest), the values already queued
/// are still received, and once they are gone (and no permit is
/// outstanding) `try_recv` reports `Disconnected`, not `Empty`, as `recv`
/// returns `None`.
#[test]
fn mpsc_try_recv_after_close_drains_then_is_disconnected() {
    use rt::sync::mpsc::error::TryRecvError;
    limit("mpsc try_recv after close", || {
        shim::runtime().block_on(async {
            let (tx, mut rx) = mpsc::channel(4);
            tx.send(1).await.unwrap();
            let mut closed = Box::pin(tx.closed());
            assert!(poll!(closed.as_mut()).is_pending());
            rx.close();
            closed.await; // close() counts as the receiver going away
            assert!(tx.is_closed());
            assert_eq!(rx.try_recv(), Ok(1));
            assert_eq!(rx.try_recv(), Err(TryRecvError::Disconnected));
            assert_eq!(rx.recv().await, None);

            let (utx, mut urx) = mpsc::unbounded_channel::<u8>();
            urx.close();
            assert_eq!(urx.try_recv(), Err(TryRecvError::Disconnected));
            assert!(utx.send(1).is_err());
        });
    });
}

/// `reserve_many(0)` and `try_reserve_many(0)` give an empty iterator of
/// permits while the channel is open, and fail once the receiver is gone,
/// as any reservation does; `try_reserve_many` of more than
/// `max_capacity` is an error at once.
#[test]
fn mpsc_reserving_zero_slots_is_empty_while_open_and_an_error_when_closed() {
    use rt::sync::mpsc::error::TrySendError;
    limit("mpsc reserve_many(0)", || {
        shim::runtime().block_on(async {
            let (tx, rx) = mpsc::channel::<u8>(2);
            assert_eq!(tx.reserve_many(0).await.unwrap().len(), 0);
            assert_eq!(tx.try_reserve_many(0).unwrap().len(), 0);
            assert!(matches!(
                tx.try_reserve_many(3),
                Err(TrySendError::Full(()))
            ));
            assert!(tx.reserve_many(3).await.is_err());
            assert_eq!(tx.capacity(), 2);
            drop(rx);
            assert!(tx.reserve_many(0).await.is_err());
            assert!(matches!(
                tx.try_reserve_many(0),
                Err(TrySendError::Closed(()))
            ));
        });
    });
}

// ---- oneshot ----------------------------------------------------------------

/// `Receiver::is_terminated`: "returns `true` if this receiver has already
/// yielded a `Poll::Ready` result", an error included; `is_empty` is `true`
/// when there is no value to take, also once the sender is gone, and
/// `false` while a sent value waits.
#[test]
fn oneshot_is_terminated_after_an_error_and_is_empty_tracks_the_value() {
    limit("oneshot is_terminated / is_empty", || {
        shim::runtime().block_on(async {
            let (tx, mut rx) = oneshot::channel::<u8>();
            assert!(rx.is_empty());
            assert!(!rx.is_terminated());
            drop(tx);
            assert!(rx.is_empty());
            assert!((&mut rx).await.is_err());
            assert!(rx.is_terminated());

            let (tx, mut rx) = oneshot::channel::<u8>();
            tx.send(4).unwrap();
            assert!(!rx.is_empty());
            assert!(!rx.is_terminated());
            assert_eq!((&mut rx).await, Ok(4));
            assert!(rx.is_terminated());
            assert!(rx.is_empty());
        });
    });
}

// ---- auto traits --------------------------------------------------------------

fn is_send<T: Send>(_: &T) {}
fn is_send_sync<T: Send + Sync>(_: &T) {}

/// What Tokio's documentation lists under "Auto Trait Implementations",
/// which is what lets these be used in `tokio::spawn`ed tasks: a `Mutex<T>`
/// needs only `T: Send` to be shared ("`Sync` if `T: Send`"), so a mutex
/// around a value that is `Send` but not `Sync` (a `Cell`, a boxed
/// `dyn Any + Send`) can be locked across `.await`s in a spawned task; the
/// futures of every waiting method are `Send` for such values.
#[test]
fn a_mutex_of_a_send_only_value_is_shared_and_locked_across_awaits_in_tasks() {
    use std::cell::Cell;
    let mutex = Arc::new(Mutex::new(Cell::new(0u32)));
    is_send_sync(&mutex);
    is_send(&mutex.lock());
    is_send(&mutex.clone().lock_owned());
    let boxed: Mutex<Box<dyn std::any::Any + Send>> = Mutex::new(Box::new(1u8));
    is_send_sync(&boxed);
    is_send(&boxed.lock());
    limit("Mutex<Cell> in a spawned task", move || {
        shim::runtime().block_on(async move {
            let task = rt::spawn({
                let mutex = mutex.clone();
                async move {
                    let guard = mutex.lock().await;
                    rt::task::yield_now().await;
                    guard.set(guard.get() + 1);
                    drop(guard);
                    let owned = mutex.clone().lock_owned().await;
                    rt::task::yield_now().await;
                    owned.set(owned.get() + 1);
                }
            });
            task.await.unwrap();
            assert_eq!(mutex.lock().await.get(), 2);
        });
    });
}

/// The primitives and channels are `Send` and `Sync` (for a `Send + Sync`
/// value), and so are the futures their waiting methods return, as in
/// Tokio, so each can be awaited inside `tokio::spawn`.
#[test]
fn the_primitives_and_their_futures_are_send_for_spawned_tasks() {
    let mutex = Arc::new(Mutex::new(String::new()));
    is_send_sync(&mutex.lock());
    is_send_sync(&mutex.try_lock().unwrap());
    is_send_sync(&mutex.clone().try_lock_owned().unwrap());
    let lock = Arc::new(RwLock::new(String::new()));
    is_send_sync(&lock);
    is_send(&lock.read());
    is_send(&lock.write());
    is_send(&lock.clone().read_owned());
    is_send(&lock.clone().write_owned());
    is_send_sync(&lock.try_read().unwrap());
    is_send_sync(&lock.try_write().unwrap());
    let sem = Arc::new(Semaphore::new(3));
    is_send_sync(&sem);
    is_send(&sem.acquire());
    is_send(&sem.acquire_many(2));
    is_send(&sem.clone().acquire_owned());
    is_send_sync(&sem.try_acquire().unwrap());
    is_send_sync(&sem.clone().try_acquire_owned().unwrap());
    let notify = Arc::new(Notify::new());
    is_send_sync(&notify);
    is_send_sync(&notify.notified());
    is_send_sync(&notify.clone().notified_owned());
    let barrier = rt::sync::Barrier::new(2);
    is_send_sync(&barrier);
    is_send(&barrier.wait());
    let cell = OnceCell::<String>::new();
    is_send_sync(&cell);
    is_send(&cell.get_or_init(|| async { String::new() }));
    is_send(&cell.get_or_try_init(|| async { Ok::<_, std::io::Error>(String::new()) }));
    let once = rt::sync::SetOnce::<String>::new();
    is_send_sync(&once);
    is_send(&once.wait());

    let (wtx, mut wrx) = watch::channel(String::new());
    is_send_sync(&wtx);
    is_send_sync(&wrx);
    is_send(&wtx.closed());
    is_send(&wrx.changed());
    is_send(&wrx.wait_for(|v| v.is_empty()));
    let (btx, mut brx) = broadcast::channel::<String>(2);
    is_send_sync(&btx);
    is_send_sync(&brx);
    is_send(&btx.closed());
    is_send(&brx.recv());
    let (mtx, mut mrx) = mpsc::channel::<String>(2);
    is_send_sync(&mtx);
    is_send_sync(&mrx);
    is_send(&mtx.send(String::new()));
    is_send(&mtx.reserve());
    is_send(&mtx.clone().reserve_owned());
    is_send(&mtx.send_timeout(String::new(), Duration::from_secs(1)));
    is_send(&mtx.closed());
    is_send(&mrx.recv());
    let mut buffer = Vec::new();
    is_send(&mrx.recv_many(&mut buffer, 2));
    let (utx, mut urx) = mpsc::unbounded_channel::<String>();
    is_send_sync(&utx);
    is_send_sync(&urx);
    is_send(&utx.closed());
    is_send(&urx.recv());
    let (mut otx, orx) = oneshot::channel::<String>();
    is_send_sync(&orx);
    is_send(&otx.closed());
    is_send_sync(&otx);
}

// ---- watch, more ----------------------------------------------------------------

/// `mark_changed`: "After invoking this method `has_changed()` returns
/// `true` and `changed()` returns immediately, regardless of whether a new
/// value has been sent", and `changed` looks for an unseen version before
/// it looks at the close: on a closed channel a marked receiver's
/// `changed` succeeds once, then fails. `has_changed` reports the close
/// first ("returns an error if the channel has been closed").
#[test]
fn watch_a_marked_receiver_of_a_closed_channel_sees_one_change_then_the_close() {
    limit("watch mark_changed after close", || {
        shim::runtime().block_on(async {
            let (tx, mut rx) = watch::channel(1);
            drop(tx);
            rx.mark_changed();
            assert!(rx.has_changed().is_err());
            assert!(rx.changed().await.is_ok());
            assert!(rx.changed().await.is_err());
            assert_eq!(*rx.borrow(), 1);
        });
    });
}

/// `Sender::borrow`: "The sender/producer always sees the current version",
/// so the `Ref` it returns says `has_changed() == false`, even right after
/// a send no receiver has seen yet.
#[test]
fn watch_the_senders_borrow_never_reports_a_change() {
    let (tx, rx) = watch::channel(0);
    tx.send(1).unwrap();
    let seen = tx.borrow();
    assert_eq!(*seen, 1);
    assert!(!seen.has_changed());
    drop(seen);
    assert!(rx.borrow().has_changed());
}

// ---- many tasks at once ---------------------------------------------------------

/// No notification is lost between two tasks that take turns: each
/// `notify_one` either wakes the other's waiting `Notified` or leaves the
/// permit for its next one. Two thousand round trips finish.
#[test]
fn notify_ping_pong_between_two_tasks_loses_no_turn() {
    limit("Notify ping-pong", || {
        shim::runtime().block_on(async {
            let ping = Arc::new(Notify::new());
            let pong = Arc::new(Notify::new());
            let other = rt::spawn({
                let (ping, pong) = (ping.clone(), pong.clone());
                async move {
                    for _ in 0..2000 {
                        ping.notified().await;
                        pong.notify_one();
                    }
                }
            });
            for _ in 0..2000 {
                ping.notify_one();
                pong.notified().await;
            }
            other.await.unwrap();
        });
    });
}

/// A semaphore of 2 never has more than 2 holders, however many tasks
/// contend for it, and every task eventually gets its turns.
#[test]
fn a_contended_semaphore_never_admits_more_than_its_permits() {
    limit("Semaphore under contention", || {
        shim::runtime().block_on(async {
            let sem = Arc::new(Semaphore::new(2));
            let inside = Arc::new(AtomicUsize::new(0));
            let most = Arc::new(AtomicUsize::new(0));
            let mut tasks = Vec::new();
            for _ in 0..8 {
                let (sem, inside, most) = (sem.clone(), inside.clone(), most.clone());
                tasks.push(rt::spawn(async move {
                    for _ in 0..200 {
                        let _permit = sem.acquire().await.unwrap();
                        let now = inside.fetch_add(1, Ordering::SeqCst) + 1;
                        most.fetch_max(now, Ordering::SeqCst);
                        rt::task::yield_now().await;
                        inside.fetch_sub(1, Ordering::SeqCst);
                    }
                }));
            }
            for task in tasks {
                task.await.unwrap();
            }
            assert!(most.load(Ordering::SeqCst) <= 2);
            assert_eq!(sem.available_permits(), 2);
        });
    });
}

/// A receiver that waits on `changed` while a task sends thousands of
/// values in quick succession always ends up seeing the last one ("only
/// the last value sent is made available", and every send is a change).
#[test]
fn watch_a_busy_sender_never_strands_a_waiting_receiver() {
    limit("watch many sends", || {
        shim::runtime().block_on(async {
            let (tx, mut rx) = watch::channel(0u32);
            let sender = rt::spawn(async move {
                for n in 1..=5000 {
                    tx.send(n).unwrap();
                    if n % 64 == 0 {
                        rt::task::yield_now().await;
                    }
                }
            });
            let mut last = 0;
            while rx.changed().await.is_ok() {
                let now = *rx.borrow_and_update();
                assert!(now >= last, "values go forward");
                last = now;
            }
            assert_eq!(last, 5000);
            sender.await.unwrap();
        });
    });
}

/// Receivers in their own tasks, slower than the sender: each sees its
/// values in order (skipping only what a `Lagged` reports), and each ends
/// with the last value sent, then `Closed`.
#[test]
fn broadcast_receivers_in_tasks_see_order_and_the_last_value_then_closed() {
    use rt::sync::broadcast::error::RecvError;
    limit("broadcast with lagging tasks", || {
        shim::runtime().block_on(async {
            let (tx, _) = broadcast::channel::<u32>(8);
            let mut readers = Vec::new();
            for _ in 0..4 {
                let mut rx = tx.subscribe();
                readers.push(rt::spawn(async move {
                    let mut expected = 1;
                    loop {
                        match rx.recv().await {
                            Ok(n) => {
                                assert_eq!(n, expected);
                                expected += 1;
                            }
                            Err(RecvError::Lagged(missed)) => expected += missed as u32,
                            Err(RecvError::Closed) => return expected - 1,
                        }
                    }
                }));
            }
            for n in 1..=1000 {
                tx.send(n).unwrap();
                if n % 16 == 0 {
                    rt::task::yield_now().await;
                }
            }
            drop(tx);
            for reader in readers {
                assert_eq!(reader.await.unwrap(), 1000);
            }
        });
    });
}

/// A bounded channel of one slot, four senders in tasks: every value
/// arrives, each sender's in its order, and `recv` returns `None` after
/// the last sender is gone.
#[test]
fn mpsc_one_slot_many_senders_every_value_arrives() {
    limit("mpsc one slot, many senders", || {
        shim::runtime().block_on(async {
            let (tx, mut rx) = mpsc::channel::<(usize, u32)>(1);
            for id in 0..4 {
                let tx = tx.clone();
                rt::spawn(async move {
                    for n in 0..500 {
                        tx.send((id, n)).await.unwrap();
                    }
                });
            }
            drop(tx);
            let mut next = [0u32; 4];
            let mut total = 0;
            while let Some((id, n)) = rx.recv().await {
                assert_eq!(n, next[id]);
                next[id] += 1;
                total += 1;
            }
            assert_eq!(total, 2000);
        });
    });
}

/// Readers and writers in many tasks: a writer is alone (no reader sees a
/// half-done update, no other writer is inside) and every write counts.
#[test]
fn a_contended_rwlock_keeps_writers_alone_and_counts_every_write() {
    limit("RwLock under contention", || {
        shim::runtime().block_on(async {
            let lock = Arc::new(RwLock::new((0u32, 0u32)));
            let mut tasks = Vec::new();
            for id in 0..6 {
                let lock = lock.clone();
                tasks.push(rt::spawn(async move {
                    for _ in 0..200 {
                        if id % 2 == 0 {
                            let mut pair = lock.write().await;
                            pair.0 += 1;
                            rt::task::yield_now().await;
                            pair.1 += 1;
                        } else {
                            let pair = lock.read().await;
                            assert_eq!(pair.0, pair.1, "a reader saw a write half done");
                            rt::task::yield_now().await;
                        }
                    }
                }));
            }
            for task in tasks {
                task.await.unwrap();
            }
            assert_eq!(*lock.read().await, (600, 600));
        });
    });
}

/// `get_or_init` called by many tasks at once runs the initialiser once;
/// all get the same value.
#[test]
fn once_cell_many_tasks_initialise_once() {
    limit("OnceCell many callers", || {
        shim::runtime().block_on(async {
            let cell = Arc::new(OnceCell::new());
            let runs = Arc::new(AtomicUsize::new(0));
            let mut tasks = Vec::new();
            for id in 0..16 {
                let (cell, runs) = (cell.clone(), runs.clone());
                tasks.push(rt::spawn(async move {
                    *cell
                        .get_or_init(|| async move {
                            runs.fetch_add(1, Ordering::SeqCst);
                            rt::task::yield_now().await;
                            id
                        })
                        .await
                }));
            }
            let mut seen = Vec::new();
            for task in tasks {
                seen.push(task.await.unwrap());
            }
            assert_eq!(runs.load(Ordering::SeqCst), 1);
            assert!(seen.iter().all(|v| *v == seen[0]));
        });
    });
}

/// A barrier of 4 used by 4 tasks for 100 rounds: each round has exactly
/// one leader ("a single (arbitrary) task will receive a
/// `BarrierWaitResult` that returns `true` from `is_leader`").
#[test]
fn a_barrier_reused_for_many_rounds_has_one_leader_per_round() {
    limit("Barrier many rounds", || {
        shim::runtime().block_on(async {
            let barrier = Arc::new(rt::sync::Barrier::new(4));
            let leaders = Arc::new(AtomicUsize::new(0));
            let mut tasks = Vec::new();
            for _ in 0..4 {
                let (barrier, leaders) = (barrier.clone(), leaders.clone());
                tasks.push(rt::spawn(async move {
                    for _ in 0..100 {
                        if barrier.wait().await.is_leader() {
                            leaders.fetch_add(1, Ordering::SeqCst);
                        }
                    }
                }));
            }
            for task in tasks {
                task.await.unwrap();
            }
            assert_eq!(leaders.load(Ordering::SeqCst), 100);
        });
    });
}

// ---- blocking calls outside the runtime ------------------------------------------

/// The `blocking_*` methods are for "synchronous code" (a `spawn_blocking`
/// thread, as Tokio's examples use them): there they wait for runtime
/// tasks and wake them. `blocking_send` waits for a slot,
/// `blocking_recv_many` takes what is queued and returns `0` once the
/// senders are gone, `blocking_write` waits for a task's read guard,
/// `blocking_acquire` waits for a task's permit and fails once the
/// semaphore is closed, and `oneshot::Receiver::blocking_recv` gets a value
/// a task sends later.
#[test]
fn blocking_calls_on_blocking_threads_meet_runtime_tasks() {
    use rt::task::spawn_blocking;
    limit("blocking calls from spawn_blocking", || {
        shim::runtime().block_on(async {
            // mpsc: one blocking thread sends into a full channel, a task
            // relays, another blocking thread drains.
            let (tx, mut rx) = mpsc::channel::<u32>(1);
            let sender = spawn_blocking(move || {
                for n in 0..20 {
                    tx.blocking_send(n).unwrap();
                }
            });
            let (out_tx, mut out_rx) = mpsc::channel::<u32>(4);
            rt::spawn(async move {
                while let Some(n) = rx.recv().await {
                    out_tx.send(n * 2).await.unwrap();
                }
            });
            let receiver = spawn_blocking(move || {
                let mut got = Vec::new();
                let mut buffer = Vec::new();
                loop {
                    let n = out_rx.blocking_recv_many(&mut buffer, 8);
                    if n == 0 {
                        return got;
                    }
                    assert!(n <= 8);
                    got.append(&mut buffer);
                }
            });
            sender.await.unwrap();
            let got = receiver.await.unwrap();
            assert_eq!(got, (0..20).map(|n| n * 2).collect::<Vec<_>>());

            // RwLock: blocking_write waits for this task's reader.
            let lock = Arc::new(RwLock::new(0));
            let guard = lock.read().await;
            let writer = spawn_blocking({
                let lock = lock.clone();
                move || *lock.blocking_write() = 5
            });
            for _ in 0..10 {
                rt::task::yield_now().await;
            }
            assert!(!writer.is_finished());
            drop(guard);
            writer.await.unwrap();
            let read = spawn_blocking({
                let lock = lock.clone();
                move || *lock.blocking_read()
            });
            assert_eq!(read.await.unwrap(), 5);

            // Mutex: blocking_lock waits for this task's guard.
            let mutex = Arc::new(Mutex::new(0));
            let held = mutex.lock().await;
            let locker = spawn_blocking({
                let mutex = mutex.clone();
                move || *mutex.blocking_lock() += 10
            });
            rt::task::yield_now().await;
            drop(held);
            locker.await.unwrap();
            assert_eq!(*mutex.lock().await, 10);

            // Semaphore: blocking_acquire waits for this task's permit.
            let sem = Arc::new(Semaphore::new(1));
            let permit = sem.clone().try_acquire_owned().unwrap();
            let waiter = spawn_blocking({
                let sem = sem.clone();
                move || sem.blocking_acquire().map(|p| p.num_permits())
            });
            rt::task::yield_now().await;
            drop(permit);
            assert_eq!(waiter.await.unwrap().unwrap(), 1);
            sem.close();
            let closed = spawn_blocking(move || sem.blocking_acquire().is_err());
            assert!(closed.await.unwrap());

            // oneshot: blocking_recv gets a value sent afterwards.
            let (tx, rx) = oneshot::channel::<&str>();
            let receiver = spawn_blocking(move || rx.blocking_recv());
            rt::task::yield_now().await;
            tx.send("late").unwrap();
            assert_eq!(receiver.await.unwrap(), Ok("late"));
        });
    });
}
