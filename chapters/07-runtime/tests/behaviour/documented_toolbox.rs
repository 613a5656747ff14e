//! Documented edges of the toolbox (`sync`, `net`, `signal`) that the
//! other files leave out, fifty-six tests (the three differences from
//! Tokio they found are fixed: the words of `SetError` and of
//! `ReuniteError`, and a `oneshot::Receiver` polled after completing,
//! which panics).
//!
//! * `sync`'s locks: a lock, a write lock or a semaphore goes to its
//!   waiters in the order they asked, and a request dropped in line, or
//!   dropped after being handed what it waited for, passes it on; a
//!   queued writer holds back later readers, and a `downgrade` lets in the
//!   readers waiting unless a writer is next; `with_max_readers` and its
//!   panics; the owned and mapped guards' accessors; `Semaphore::close`,
//!   a large `acquire_many` at the head of the line, `forget`,
//!   `forget_permits`, `add_permits` and `MAX_PERMITS`, merging permits of
//!   two semaphores; `Notify`'s single stored permit, `notify_waiters`
//!   reaching futures not yet polled, `enable`; `Barrier` generations;
//!   `OnceCell`'s conversions and an initialiser that panics; every
//!   error's words.
//! * the channels: `oneshot` (a value sent before `close`, polling after
//!   completion); `watch` (every send is a change, `mark_changed` /
//!   `mark_unchanged`, silent and panicking modifications, a panicking
//!   `wait_for`, cloned senders, `closed`, `same_channel`, every receiver
//!   woken); `broadcast` (every receiver gets every value, `len` counts a
//!   lag, the capacity's panics, what `send` counts); `mpsc` (senders
//!   and reservations served in order, a cancelled send, a dropped permit
//!   waking a reservation, `OwnedPermit::release`, `try_reserve_owned`,
//!   `recv_many` and `poll_recv_many`, weak senders upgraded, the
//!   receiver's counters, `same_channel`), and every `blocking_*` call
//!   panicking inside a runtime.
//! * `net`: `TcpStream`'s `peek`, `try_read`, `try_write`, the vectored
//!   `try_` forms, `ready`, `readable`, `writable`, `nodelay` and
//!   `take_error`; its halves (borrowed, owned, `reunite`, a dropped or
//!   forgotten write half); `connect` and `bind` over several addresses,
//!   `SO_REUSEADDR`, a port in use; `TcpSocket`'s options; UDP's
//!   `connect`, `peer_addr`, `peek_from` and the `try_` forms; a
//!   `UnixListener` on a path and a `UnixStream` pair.
//! * `signal`: two streams of one signal both see it; `SignalKind`'s raw
//!   numbers.
//!
//! Written from Tokio's documentation; every test passes on Tokio 1.54.

use crate::behaviour::{SocketDir, assert_points_here, expect_panic, limit, tcp_pair};
use crate::{rt, shim};
use futures::{FutureExt, poll};
use rt::io::{AsyncReadExt, AsyncWriteExt, Interest};
use rt::net::{TcpListener, TcpStream, UdpSocket, UnixListener, UnixStream};
use rt::sync::{
    AcquireError, Barrier, Mutex, MutexGuard, Notify, OnceCell, OwnedMutexGuard,
    OwnedRwLockReadGuard, OwnedRwLockWriteGuard, RwLock, Semaphore, SetError, TryAcquireError,
};
use rt::sync::{broadcast, mpsc, oneshot, watch};
use std::io::ErrorKind;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::Poll;
use std::time::Duration;

/// How long a step that should be quick may take before the test fails.
const PATIENCE: Duration = Duration::from_secs(10);

/// Tokio's panic for a blocking call on a runtime thread starts so.
const CANNOT_BLOCK: &str = "Cannot block the current thread from within a runtime";

// ---------------------------------------------------------------------
// sync: Mutex.

/// Tokio's `Mutex` is fair: "Locks are acquired in the order they are
/// requested." The lock a holder releases goes to the first in line: the
/// second waiter and a `try_lock` find it taken.
#[test]
fn mutex_waiters_get_the_lock_in_the_order_they_asked() {
    limit("Mutex FIFO", || {
        shim::runtime().block_on(async {
            let mutex = Mutex::new(Vec::new());
            let guard = mutex.lock().await;
            let mut first = Box::pin(mutex.lock());
            let mut second = Box::pin(mutex.lock());
            assert!(poll!(first.as_mut()).is_pending());
            assert!(poll!(second.as_mut()).is_pending());
            drop(guard);
            assert!(poll!(second.as_mut()).is_pending());
            assert!(mutex.try_lock().is_err());
            first.await.push(1);
            second.await.push(2);
            assert_eq!(*mutex.lock().await, [1, 2]);
        });
    });
}

/// `lock` is cancel safe: a request dropped while it waits leaves the line,
/// and one dropped after the lock was handed to it (before it was polled
/// again) gives the lock back.
#[test]
fn a_lock_request_dropped_in_line_or_after_its_turn_passes_the_lock_on() {
    limit("Mutex cancelled lock", || {
        shim::runtime().block_on(async {
            let mutex = Mutex::new(0);
            let guard = mutex.lock().await;
            let mut first = Box::pin(mutex.lock());
            let mut second = Box::pin(mutex.lock());
            assert!(poll!(first.as_mut()).is_pending());
            assert!(poll!(second.as_mut()).is_pending());
            drop(first);
            drop(guard);
            let Poll::Ready(mut held) = poll!(second.as_mut()) else {
                panic!("the lock skipped the second in line when the first left");
            };
            *held += 1;
            let mut third = Box::pin(mutex.lock());
            assert!(poll!(third.as_mut()).is_pending());
            drop(held);
            // The lock is the third's now; dropping it unpolled gives it back.
            drop(third);
            assert_eq!(*mutex.try_lock().expect("the lock was lost"), 1);
        });
    });
}

/// Many tasks each taking the lock across an `.await` never overlap: every
/// increment lands.
#[test]
fn a_lock_held_across_awaits_serialises_many_tasks() {
    limit("Mutex across awaits", || {
        shim::runtime().block_on(async {
            let counter = Arc::new(Mutex::new(0u32));
            let inside = Arc::new(AtomicUsize::new(0));
            let tasks: Vec<_> = (0..8)
                .map(|_| {
                    let (counter, inside) = (counter.clone(), inside.clone());
                    rt::spawn(async move {
                        for _ in 0..50 {
                            let mut guard = counter.lock().await;
                            assert_eq!(inside.fetch_add(1, Ordering::SeqCst), 0);
                            let seen = *guard;
                            rt::task::yield_now().await;
                            *guard = seen + 1;
                            inside.fetch_sub(1, Ordering::SeqCst);
                        }
                    })
                })
                .collect();
            for task in tasks {
                task.await.unwrap();
            }
            assert_eq!(*counter.lock().await, 400);
        });
    });
}

/// The guards name their mutex (`MutexGuard::mutex`,
/// `OwnedMutexGuard::mutex`); `try_lock` and `try_lock_owned` fail while
/// it is held; `get_mut` and `into_inner` need no lock; a `Mutex` is made
/// `From` a value or by `Default`.
#[test]
fn mutex_guards_name_their_mutex_and_the_lock_free_accessors() {
    limit("Mutex accessors", || {
        shim::runtime().block_on(async {
            let mutex = Arc::new(Mutex::new(String::from("a")));
            let guard = mutex.lock().await;
            assert!(std::ptr::eq(MutexGuard::mutex(&guard), &*mutex));
            assert!(mutex.try_lock().is_err());
            assert!(mutex.clone().try_lock_owned().is_err());
            drop(guard);
            let owned = mutex.clone().try_lock_owned().unwrap();
            assert!(Arc::ptr_eq(OwnedMutexGuard::mutex(&owned), &mutex));
            drop(owned);
            let mut alone = Arc::try_unwrap(mutex).unwrap();
            alone.get_mut().push('b');
            assert_eq!(alone.into_inner(), "ab");
            assert_eq!(Mutex::from(3).into_inner(), 3);
            assert_eq!(Mutex::<u8>::default().into_inner(), 0);
        });
    });
}

// ---------------------------------------------------------------------
// sync: RwLock.

/// Tokio's `RwLock` is "fair (or write-preferring)": "if a task that
/// wishes to acquire the write lock is at the head of the queue, read locks
/// will not be given out until the write lock has been released."
#[test]
fn a_queued_writer_holds_back_readers_that_come_after_it() {
    limit("RwLock write-preferring", || {
        shim::runtime().block_on(async {
            let lock = RwLock::new(0);
            let reader = lock.read().await;
            let mut writer = Box::pin(lock.write());
            assert!(poll!(writer.as_mut()).is_pending());
            assert!(lock.try_read().is_err());
            let mut late_reader = Box::pin(lock.read());
            assert!(poll!(late_reader.as_mut()).is_pending());
            drop(reader);
            assert!(poll!(late_reader.as_mut()).is_pending());
            let mut write = writer.await;
            *write = 1;
            drop(write);
            assert_eq!(*late_reader.await, 1);
        });
    });
}

/// `with_max_readers(value, n)` lets `n` readers in at once, no more (the
/// next waits for one to leave); "Panics if `max_reads` is `0` or is bigger
/// than `u32::MAX >> 3`", at the caller's line.
#[test]
fn max_readers_bounds_the_readers_and_bad_bounds_panic_at_the_caller() {
    limit("RwLock::with_max_readers", || {
        shim::runtime().block_on(async {
            let lock = RwLock::with_max_readers(5, 3);
            let readers = [lock.read().await, lock.read().await, lock.read().await];
            assert!(lock.try_read().is_err());
            let mut fourth = Box::pin(lock.read());
            assert!(poll!(fourth.as_mut()).is_pending());
            drop(readers);
            assert_eq!(*fourth.await, 5);
        });
        let before = line!();
        let caught = expect_panic("with_max_readers(0)", || RwLock::with_max_readers((), 0));
        let after = line!();
        assert_points_here(&caught, before, after);
        let before = line!();
        let caught = expect_panic("with_max_readers(too many)", || {
            RwLock::with_max_readers((), (u32::MAX >> 3) + 1)
        });
        let after = line!();
        assert_points_here(&caught, before, after);
        // The largest bound allowed is fine.
        let _ = RwLock::with_max_readers((), u32::MAX >> 3);
    });
}

/// The owned guards map to a part (`OwnedRwLockReadGuard::map`,
/// `OwnedRwLockWriteGuard::map`), `try_map` hands the guard back when the
/// closure says no, and `rwlock` names the lock; `try_write` fails while a
/// reader holds the lock and `try_read` while a writer does.
#[test]
fn owned_rwlock_guards_map_and_name_their_lock() {
    limit("RwLock owned maps", || {
        shim::runtime().block_on(async {
            let lock = Arc::new(RwLock::new((1u8, vec![10u8])));
            let read = lock.clone().read_owned().await;
            assert!(Arc::ptr_eq(OwnedRwLockReadGuard::rwlock(&read), &lock));
            assert!(lock.try_write().is_err());
            let refused = OwnedRwLockReadGuard::try_map(read, |v| v.1.get(5));
            let Err(read) = refused else {
                panic!("try_map of None must give the guard back");
            };
            let first = OwnedRwLockReadGuard::map(read, |v| &v.1[0]);
            assert_eq!(*first, 10);
            drop(first);

            let write = lock.clone().write_owned().await;
            assert!(Arc::ptr_eq(OwnedRwLockWriteGuard::rwlock(&write), &lock));
            assert!(lock.try_read().is_err());
            let mut list = OwnedRwLockWriteGuard::map(write, |v| &mut v.1);
            list.push(11);
            // Still the whole lock.
            assert!(lock.try_read().is_err());
            drop(list);
            assert_eq!(*lock.read().await, (1, vec![10, 11]));
            let mut alone = Arc::try_unwrap(lock).unwrap();
            alone.get_mut().0 = 2;
            assert_eq!(alone.into_inner().0, 2);
        });
    });
}

/// `downgrade` is atomic, and lets in readers that were waiting behind the
/// writer; but "This won't *necessarily* allow any additional readers to
/// acquire locks, since `RwLock` is fair and it is possible that a writer
/// is next in line."
#[test]
fn a_downgrade_lets_waiting_readers_in_unless_a_writer_is_next() {
    limit("RwLockWriteGuard::downgrade and readers", || {
        shim::runtime().block_on(async {
            let lock = RwLock::new(0);
            let mut write = lock.write().await;
            let mut reader = Box::pin(lock.read());
            assert!(poll!(reader.as_mut()).is_pending());
            *write = 1;
            let read = write.downgrade();
            let Poll::Ready(other) = poll!(reader.as_mut()) else {
                panic!("a reader waiting behind the writer stayed out after downgrade");
            };
            assert_eq!((*read, *other), (1, 1));
            drop((read, other));

            let write = lock.write().await;
            let mut writer = Box::pin(lock.write());
            assert!(poll!(writer.as_mut()).is_pending());
            let mut reader = Box::pin(lock.read());
            assert!(poll!(reader.as_mut()).is_pending());
            let read = write.downgrade();
            // The writer is next in line: the reader still waits.
            assert!(poll!(reader.as_mut()).is_pending());
            drop(read);
            drop(writer.await);
            assert_eq!(*reader.await, 1);
        });
    });
}

// ---------------------------------------------------------------------
// sync: Semaphore.

/// `close` "prevents the semaphore from issuing new permits and notifies
/// all pending waiters": a waiter gets `AcquireError`, every later
/// acquire fails (`TryAcquireError::Closed` for the `try_` forms), even
/// after `add_permits`; a permit held from before stays valid.
#[test]
fn a_closed_semaphore_fails_waiters_and_later_requests() {
    limit("Semaphore::close", || {
        shim::runtime().block_on(async {
            let semaphore = Arc::new(Semaphore::new(1));
            let held = semaphore.clone().acquire_owned().await.unwrap();
            let mut waiter = Box::pin(semaphore.acquire());
            assert!(poll!(waiter.as_mut()).is_pending());
            assert!(!semaphore.is_closed());
            semaphore.close();
            assert!(semaphore.is_closed());
            let _: AcquireError = waiter.await.unwrap_err();
            assert!(semaphore.acquire_many(1).await.is_err());
            assert!(semaphore.clone().acquire_owned().await.is_err());
            assert_eq!(semaphore.try_acquire().err(), Some(TryAcquireError::Closed));
            semaphore.add_permits(2);
            assert_eq!(
                semaphore.try_acquire_many(1).err(),
                Some(TryAcquireError::Closed)
            );
            assert_eq!(
                semaphore.clone().try_acquire_owned().err(),
                Some(TryAcquireError::Closed)
            );
            assert_eq!(held.num_permits(), 1);
            drop(held);
        });
    });
}

/// "This fairness is also applied when `acquire_many` gets involved, so if
/// a call to `acquire_many` at the front of the queue requests more permits
/// than currently available, this can prevent a call to `acquire` from
/// completing, even if the semaphore has enough permits".
#[test]
fn a_large_request_at_the_head_of_the_line_holds_back_small_ones() {
    limit("Semaphore acquire_many fairness", || {
        shim::runtime().block_on(async {
            let semaphore = Semaphore::new(2);
            let one = semaphore.acquire().await.unwrap();
            let mut big = Box::pin(semaphore.acquire_many(3));
            assert!(poll!(big.as_mut()).is_pending());
            let mut small = Box::pin(semaphore.acquire());
            assert!(poll!(small.as_mut()).is_pending());
            assert_eq!(
                semaphore.try_acquire().err(),
                Some(TryAcquireError::NoPermits)
            );
            drop(one);
            // Two free, three asked for: both still wait.
            assert!(poll!(big.as_mut()).is_pending());
            assert!(poll!(small.as_mut()).is_pending());
            semaphore.add_permits(1);
            let big = big.await.unwrap();
            assert_eq!(big.num_permits(), 3);
            assert!(poll!(small.as_mut()).is_pending());
            drop(big);
            assert_eq!(small.await.unwrap().num_permits(), 1);
            assert_eq!(semaphore.available_permits(), 3);
        });
    });
}

/// `forget` keeps a permit's permits out of the semaphore for good;
/// `forget_permits(n)` removes at most `n` free permits and returns how
/// many it removed; `add_permits` wakes a waiter once enough are free.
#[test]
fn forgotten_permits_stay_gone_and_added_ones_wake_waiters() {
    limit("Semaphore forget/add_permits", || {
        shim::runtime().block_on(async {
            let semaphore = Semaphore::new(4);
            semaphore.acquire_many(2).await.unwrap().forget();
            assert_eq!(semaphore.available_permits(), 2);
            assert_eq!(semaphore.forget_permits(1), 1);
            assert_eq!(semaphore.forget_permits(5), 1);
            assert_eq!(semaphore.available_permits(), 0);
            let mut waiter = Box::pin(semaphore.acquire_many(2));
            assert!(poll!(waiter.as_mut()).is_pending());
            semaphore.add_permits(1);
            assert!(poll!(waiter.as_mut()).is_pending());
            semaphore.add_permits(1);
            let permit = waiter.await.unwrap();
            assert_eq!(permit.num_permits(), 2);
            assert!(std::ptr::eq(permit.semaphore(), &semaphore));
            drop(permit);
            assert_eq!(semaphore.available_permits(), 2);
        });
    });
}

/// `Semaphore::new` "Panics if `permits` exceeds `Semaphore::MAX_PERMITS`",
/// `add_permits` "will panic if the limit is exceeded", and `merge` "panics
/// if permits from different `Semaphore` instances are merged".
#[test]
fn permits_beyond_max_or_merged_across_semaphores_panic() {
    limit("Semaphore panics", || {
        let _ = Semaphore::new(Semaphore::MAX_PERMITS);
        expect_panic("Semaphore::new(MAX_PERMITS + 1)", || {
            Semaphore::new(Semaphore::MAX_PERMITS + 1)
        });
        let full = Semaphore::new(Semaphore::MAX_PERMITS - 1);
        full.add_permits(1);
        expect_panic("add_permits past MAX_PERMITS", || full.add_permits(1));

        let (a, b) = (Semaphore::new(1), Semaphore::new(1));
        let mut from_a = a.try_acquire().unwrap();
        let from_b = b.try_acquire().unwrap();
        let caught = expect_panic("merge of two semaphores' permits", || from_a.merge(from_b));
        caught.assert_says("different semaphore");
        let (a, b) = (Arc::new(Semaphore::new(1)), Arc::new(Semaphore::new(1)));
        let mut from_a = a.try_acquire_owned().unwrap();
        let from_b = b.try_acquire_owned().unwrap();
        expect_panic("merge of two semaphores' owned permits", || {
            from_a.merge(from_b)
        });
    });
}

// ---------------------------------------------------------------------
// sync: Notify and Barrier.

/// "If `notify_one()` is called **multiple** times before
/// `notified().await`, only a **single** permit is stored."
#[test]
fn notify_one_stores_a_single_permit() {
    limit("Notify one permit", || {
        shim::runtime().block_on(async {
            let notify = Notify::new();
            notify.notify_one();
            notify.notify_one();
            notify.notify_one();
            rt::time::timeout(PATIENCE, notify.notified())
                .await
                .expect("the stored permit was not there");
            let mut second = Box::pin(notify.notified());
            assert!(poll!(second.as_mut()).is_pending());
            notify.notify_one();
            second.await;
        });
    });
}

/// `notify_waiters` stores no permit, but "The `Notified` future is
/// guaranteed to receive wakeups from `notify_waiters()` as soon as it has
/// been created, even if it has not yet been polled."
#[test]
fn notify_waiters_reaches_futures_created_before_it_and_stores_nothing() {
    limit("Notify::notify_waiters", || {
        shim::runtime().block_on(async {
            let notify = Arc::new(Notify::new());
            let unpolled = notify.notified();
            let created = Arc::new(AtomicUsize::new(0));
            let waiting: Vec<_> = (0..3)
                .map(|_| {
                    let (notify, created) = (notify.clone(), created.clone());
                    rt::spawn(async move {
                        let notified = notify.notified();
                        created.fetch_add(1, Ordering::SeqCst);
                        notified.await
                    })
                })
                .collect();
            // Each task's `Notified` exists (polled or not): all are reached.
            while created.load(Ordering::SeqCst) < 3 {
                rt::task::yield_now().await;
            }
            notify.notify_waiters();
            let mut unpolled = Box::pin(unpolled);
            assert!(poll!(unpolled.as_mut()).is_ready());
            for task in waiting {
                rt::time::timeout(PATIENCE, task)
                    .await
                    .expect("a waiter missed notify_waiters")
                    .unwrap();
            }
            let mut later = Box::pin(notify.notified());
            assert!(poll!(later.as_mut()).is_pending());
        });
    });
}

/// `Notified::enable` puts the future in line without polling it: a
/// `notify_one` then marks it instead of storing a permit (another future
/// finds none), and `enable` says whether the future is ready, consuming a
/// stored permit if there is one.
#[test]
fn an_enabled_notified_takes_notify_one_instead_of_a_stored_permit() {
    limit("Notified::enable", || {
        shim::runtime().block_on(async {
            let notify = Notify::new();
            let mut enabled = std::pin::pin!(notify.notified());
            assert!(!enabled.as_mut().enable());
            notify.notify_one();
            let mut other = std::pin::pin!(notify.notified());
            assert!(poll!(other.as_mut()).is_pending());
            assert!(enabled.as_mut().enable());
            assert!(poll!(enabled.as_mut()).is_ready());

            let notify = Notify::new();
            notify.notify_one();
            let mut fresh = std::pin::pin!(notify.notified());
            // The stored permit is consumed by the first `enable`.
            assert!(fresh.as_mut().enable());
            let mut next = std::pin::pin!(notify.notified());
            assert!(!next.as_mut().enable());
            notify.notify_waiters();
            assert!(next.as_mut().enable());
        });
    });
}

/// A barrier for `n` lets tasks through in groups of `n`, with one leader
/// per group: six arrivals at a barrier of three make two leaders.
#[test]
fn a_barrier_releases_each_group_of_n_with_one_leader() {
    limit("Barrier groups", || {
        shim::runtime().block_on(async {
            let barrier = Arc::new(Barrier::new(3));
            let tasks: Vec<_> = (0..6)
                .map(|_| {
                    let barrier = barrier.clone();
                    rt::spawn(async move { barrier.wait().await.is_leader() })
                })
                .collect();
            let mut leaders = 0;
            for task in tasks {
                let is_leader = rt::time::timeout(PATIENCE, task)
                    .await
                    .expect("a group of three was not released")
                    .unwrap();
                leaders += usize::from(is_leader);
            }
            assert_eq!(leaders, 2);
            // A barrier of one: every wait passes at once, as leader.
            let one = Barrier::new(1);
            assert!(one.wait().await.is_leader());
            assert!(one.wait().await.is_leader());
        });
    });
}

// ---------------------------------------------------------------------
// sync: OnceCell and the errors.

/// `OnceCell::new_with`, `From`, `Clone` (of the value), `PartialEq`,
/// `Default`, `take`, `into_inner`, `get_mut`; `set` on a full cell gives
/// the value back in `AlreadyInitializedError`; `get_or_try_init` on a full
/// cell returns the value without running its function.
#[test]
fn once_cell_constructors_and_accessors() {
    limit("OnceCell accessors", || {
        shim::runtime().block_on(async {
            let empty = OnceCell::<u32>::new_with(None);
            assert!(!empty.initialized());
            assert_eq!(empty, OnceCell::default());
            let mut full = OnceCell::from(5u32);
            assert!(full.initialized());
            assert_eq!(full.clone().get(), Some(&5));
            assert_eq!(full, OnceCell::new_with(Some(5)));
            assert_ne!(full, empty);
            *full.get_mut().unwrap() += 1;
            match full.set(9) {
                Err(SetError::AlreadyInitializedError(9)) => {}
                other => panic!("set on a full cell: {other:?}"),
            }
            // Were the function run, its error would be the result.
            let got: Result<&u32, ()> = full.get_or_try_init(|| async { Err(()) }).await;
            assert_eq!(got, Ok(&6));
            assert_eq!(full.take(), Some(6));
            assert!(!full.initialized());
            full.set(7).unwrap();
            assert_eq!(full.into_inner(), Some(7));
            assert_eq!(empty.into_inner(), None);
        });
    });
}

/// `get_or_init`: "If the provided operation is cancelled or panics, the
/// initialization attempt is cancelled. If there are other tasks waiting
/// for the value to be initialized, one of them will start another
/// attempt".
#[test]
fn once_cell_an_initialiser_that_panics_hands_the_turn_to_a_waiter() {
    limit("OnceCell panicking init", || {
        shim::runtime().block_on(async {
            let cell = Arc::new(OnceCell::<u32>::new());
            let (started_tx, started_rx) = oneshot::channel();
            let (go_tx, go_rx) = oneshot::channel::<()>();
            let panicking = {
                let cell = cell.clone();
                rt::spawn(async move {
                    cell.get_or_init(|| async move {
                        started_tx.send(()).unwrap();
                        let _ = go_rx.await;
                        panic!("the initialiser fails");
                    })
                    .await;
                })
            };
            started_rx.await.unwrap();
            let waiter = {
                let cell = cell.clone();
                rt::spawn(async move { *cell.get_or_init(|| async { 2 }).await })
            };
            rt::time::sleep(Duration::from_millis(10)).await;
            assert!(!waiter.is_finished());
            go_tx.send(()).unwrap();
            assert!(panicking.await.unwrap_err().is_panic());
            let value = rt::time::timeout(PATIENCE, waiter)
                .await
                .expect("the waiter did not take its turn after the panic")
                .unwrap();
            assert_eq!(value, 2);
            assert_eq!(cell.get(), Some(&2));
        });
    });
}

/// Every sync error says what happened in Tokio's words.
#[test]
fn sync_errors_say_what_happened_in_tokios_words() {
    let (tx, mut rx) = oneshot::channel::<u8>();
    assert_eq!(rx.try_recv().unwrap_err().to_string(), "channel empty");
    drop(tx);
    assert_eq!(rx.try_recv().unwrap_err().to_string(), "channel closed");

    let (tx, mut rx) = mpsc::channel::<u8>(1);
    tx.try_send(1).unwrap();
    assert_eq!(
        tx.try_send(2).unwrap_err().to_string(),
        "no available capacity"
    );
    rx.close();
    assert_eq!(tx.try_send(3).unwrap_err().to_string(), "channel closed");
    assert_eq!(rx.try_recv().unwrap(), 1);
    assert_eq!(
        rx.try_recv().unwrap_err().to_string(),
        "receiving on a closed channel"
    );
    let (_tx, mut rx) = mpsc::channel::<u8>(1);
    assert_eq!(
        rx.try_recv().unwrap_err().to_string(),
        "receiving on an empty channel"
    );

    let (tx, mut rx) = broadcast::channel::<u8>(1);
    assert_eq!(rx.try_recv().unwrap_err().to_string(), "channel empty");
    tx.send(1).unwrap();
    tx.send(2).unwrap();
    assert_eq!(
        rx.try_recv().unwrap_err().to_string(),
        "channel lagged by 1"
    );
    drop(tx);
    assert_eq!(rx.try_recv().unwrap(), 2);
    assert_eq!(rx.try_recv().unwrap_err().to_string(), "channel closed");

    let (tx, rx) = watch::channel(0u8);
    drop(rx);
    assert_eq!(tx.send(1).unwrap_err().to_string(), "channel closed");

    let semaphore = Semaphore::new(0);
    assert_eq!(
        semaphore.try_acquire().unwrap_err().to_string(),
        "no permits available"
    );
    semaphore.close();
    assert_eq!(
        semaphore.try_acquire().unwrap_err().to_string(),
        "semaphore closed"
    );

    let mutex = Mutex::new(());
    let _guard = mutex.try_lock().unwrap();
    assert_eq!(
        mutex.try_lock().unwrap_err().to_string(),
        "operation would block"
    );

    let cell = OnceCell::from(1u8);
    assert_eq!(
        cell.set(2).unwrap_err().to_string(),
        "AlreadyInitializedError"
    );
}

// ---------------------------------------------------------------------
// channels: oneshot.

/// `Receiver::close`: "Receive a value sent **before** calling `close`":
/// the value is still there for `try_recv` (and for the await), while a
/// send after the close fails.
#[test]
fn oneshot_a_value_sent_before_close_is_still_received() {
    limit("oneshot close after send", || {
        let (tx, mut rx) = oneshot::channel();
        tx.send("kept").unwrap();
        rx.close();
        assert_eq!(rx.try_recv(), Ok("kept"));

        let (tx, mut rx) = oneshot::channel();
        tx.send(1u8).unwrap();
        rx.close();
        assert_eq!(shim::runtime().block_on(rx), Ok(1));

        let (tx, mut rx) = oneshot::channel::<u8>();
        rx.close();
        assert_eq!(tx.send(2), Err(2));
    });
}

/// A `Receiver` that has completed must not be polled again: Tokio panics
/// ("called after complete"); `is_terminated` says so beforehand.
#[test]
fn oneshot_polling_a_completed_receiver_panics() {
    limit("oneshot poll after complete", || {
        let runtime = shim::runtime();
        let (tx, mut rx) = oneshot::channel();
        tx.send(3u8).unwrap();
        assert_eq!(runtime.block_on(&mut rx), Ok(3));
        assert!(rx.is_terminated());
        expect_panic("poll after complete", || runtime.block_on(&mut rx));
    });
}

/// A value sent but never received is dropped with the receiver, and one
/// that reaches a dropped receiver is handed back, not dropped.
#[test]
fn oneshot_an_unreceived_value_is_dropped_with_the_receiver() {
    let value = Arc::new(());
    let (tx, rx) = oneshot::channel();
    tx.send(value.clone()).unwrap();
    assert_eq!(Arc::strong_count(&value), 2);
    drop(rx);
    assert_eq!(Arc::strong_count(&value), 1);
    let (tx, rx) = oneshot::channel();
    drop(rx);
    let back = tx.send(value.clone()).unwrap_err();
    assert!(Arc::ptr_eq(&back, &value));
}

// ---------------------------------------------------------------------
// channels: watch.

/// Every `send` is a new version, even of an equal value (watch does not
/// compare values); `changed` returns at once for a version not yet seen
/// and marks it seen, then waits for the next send.
#[test]
fn watch_every_send_is_a_change_even_of_an_equal_value() {
    limit("watch send of an equal value", || {
        shim::runtime().block_on(async {
            let (tx, mut rx) = watch::channel(0u8);
            assert!(!rx.has_changed().unwrap());
            tx.send(0).unwrap();
            assert!(rx.has_changed().unwrap());
            rx.changed().await.unwrap();
            assert!(!rx.has_changed().unwrap());
            let mut next = Box::pin(rx.changed());
            assert!(poll!(next.as_mut()).is_pending());
            tx.send(0).unwrap();
            assert!(poll!(next.as_mut()).is_ready());
        });
    });
}

/// `mark_changed` makes the current value count as unseen (`changed`
/// returns at once), `mark_unchanged` as seen; `borrow` does not mark the
/// value seen, `borrow_and_update` does, and each `Ref` says whether its
/// value was new.
#[test]
fn watch_mark_changed_and_mark_unchanged_set_the_seen_mark() {
    limit("watch mark_changed", || {
        shim::runtime().block_on(async {
            let (tx, mut rx) = watch::channel(1u8);
            rx.mark_changed();
            assert!(rx.has_changed().unwrap());
            rt::time::timeout(PATIENCE, rx.changed())
                .await
                .expect("changed did not see mark_changed")
                .unwrap();
            tx.send(2).unwrap();
            assert!(rx.borrow().has_changed());
            assert!(rx.has_changed().unwrap());
            rx.mark_unchanged();
            assert!(!rx.has_changed().unwrap());
            assert!(!rx.borrow().has_changed());
            tx.send(3).unwrap();
            let seen = rx.borrow_and_update();
            assert!(seen.has_changed());
            assert_eq!(*seen, 3);
            drop(seen);
            assert!(!rx.has_changed().unwrap());
        });
    });
}

/// `send_if_modified` whose closure returns `false` is "a *silent
/// modification*": visible to `borrow`, with no change notification;
/// `send_modify` always notifies, and both work with no receiver.
#[test]
fn watch_silent_modifications_and_send_modify_without_receivers() {
    let (tx, rx) = watch::channel(vec![1]);
    assert!(!tx.send_if_modified(|v| {
        v.push(2);
        false
    }));
    assert_eq!(*rx.borrow(), [1, 2]);
    assert!(!rx.has_changed().unwrap());
    tx.send_modify(|v| v.push(3));
    assert!(rx.has_changed().unwrap());
    drop(rx);
    assert_eq!(tx.receiver_count(), 0);
    tx.send_modify(|v| v.push(4));
    assert!(tx.send_if_modified(|v| {
        v.push(5);
        true
    }));
    assert_eq!(*tx.subscribe().borrow(), [1, 2, 3, 4, 5]);
}

/// A panic in `send_modify`'s closure: "No receivers are notified when
/// panicking. All changes of the watched value applied by the closure
/// before panicking will be visible in subsequent calls to `borrow`." The
/// channel is not poisoned. And a panic in `wait_for`'s predicate leaves
/// the receiver usable ("no resource owned or shared by this Receiver will
/// be poisoned").
#[test]
fn watch_a_panicking_closure_notifies_nobody_and_poisons_nothing() {
    limit("watch panicking closures", || {
        shim::runtime().block_on(async {
            let (tx, mut rx) = watch::channel(vec![1]);
            expect_panic("send_modify panics", || {
                tx.send_modify(|v| {
                    v.push(2);
                    panic!("half way");
                })
            });
            assert!(!rx.has_changed().unwrap());
            assert_eq!(*rx.borrow(), [1, 2]);
            tx.send(vec![3]).unwrap();
            let panicked = std::panic::AssertUnwindSafe(rx.wait_for(|_| panic!("predicate")))
                .catch_unwind()
                .await
                .is_err();
            assert!(panicked);
            assert_eq!(*rx.borrow(), [3]);
            tx.send(vec![4]).unwrap();
            assert_eq!(*rx.wait_for(|v| v[0] == 4).await.unwrap(), [4]);
        });
    });
}

/// A cloned `Sender` keeps the channel open: `changed` waits until the
/// last sender is gone, then errors. `sender_count` and `receiver_count`
/// follow the handles; `Sender::closed` completes once every receiver is
/// gone; `same_channel` tells handles of one channel from another's.
#[test]
fn watch_cloned_senders_counts_closed_and_same_channel() {
    limit("watch sender clones", || {
        shim::runtime().block_on(async {
            let (tx, mut rx) = watch::channel(0u8);
            let tx2 = tx.clone();
            let rx2 = rx.clone();
            assert_eq!((tx.sender_count(), tx.receiver_count()), (2, 2));
            assert!(tx.same_channel(&tx2));
            assert!(rx.same_channel(&rx2));
            let (other_tx, other_rx) = watch::channel(0u8);
            assert!(!tx.same_channel(&other_tx));
            assert!(!rx.same_channel(&other_rx));
            drop(tx);
            let mut changed = Box::pin(rx.changed());
            assert!(poll!(changed.as_mut()).is_pending());
            drop(tx2);
            assert!(changed.await.is_err());
            assert!(rx.has_changed().is_err());
            assert!(rx.is_closed());

            let (tx, rx) = watch::channel(0u8);
            let rx2 = tx.subscribe();
            let mut closed = Box::pin(tx.closed());
            drop(rx);
            assert!(poll!(closed.as_mut()).is_pending());
            assert!(!tx.is_closed());
            drop(rx2);
            rt::time::timeout(PATIENCE, closed)
                .await
                .expect("closed did not complete after the last receiver left");
            assert!(tx.is_closed());
        });
    });
}

/// One send wakes every receiver waiting in `changed`, each in its task.
#[test]
fn watch_one_send_wakes_every_waiting_receiver() {
    limit("watch wakes all", || {
        shim::runtime().block_on(async {
            let (tx, rx) = watch::channel(0u32);
            let waiting = Arc::new(AtomicUsize::new(0));
            let tasks: Vec<_> = (0..4)
                .map(|_| {
                    let mut rx = rx.clone();
                    let waiting = waiting.clone();
                    rt::spawn(async move {
                        waiting.fetch_add(1, Ordering::SeqCst);
                        rx.changed().await.unwrap();
                        *rx.borrow_and_update()
                    })
                })
                .collect();
            while waiting.load(Ordering::SeqCst) < 4 {
                rt::task::yield_now().await;
            }
            tx.send(7).unwrap();
            for task in tasks {
                let seen = rt::time::timeout(PATIENCE, task)
                    .await
                    .expect("a receiver was not woken")
                    .unwrap();
                assert_eq!(seen, 7);
            }
        });
    });
}

// ---------------------------------------------------------------------
// channels: broadcast.

/// Every receiver sees every value, in order, then `Closed` once the
/// sender is gone; `send` returns how many receivers will see the value.
#[test]
fn broadcast_every_receiver_gets_every_value_in_order() {
    limit("broadcast fan-out", || {
        shim::runtime().block_on(async {
            let (tx, rx) = broadcast::channel::<u32>(64);
            let receivers: Vec<_> = (0..3)
                .map(|_| {
                    let mut rx = tx.subscribe();
                    rt::spawn(async move {
                        let mut got = Vec::new();
                        loop {
                            match rx.recv().await {
                                Ok(v) => got.push(v),
                                Err(broadcast::error::RecvError::Closed) => return got,
                                Err(e) => panic!("{e}"),
                            }
                        }
                    })
                })
                .collect();
            drop(rx);
            assert_eq!(tx.receiver_count(), 3);
            for v in 0..50 {
                assert_eq!(tx.send(v).unwrap(), 3);
            }
            drop(tx);
            for task in receivers {
                let got = rt::time::timeout(PATIENCE, task)
                    .await
                    .expect("a receiver did not see the close")
                    .unwrap();
                assert_eq!(got, (0..50).collect::<Vec<_>>());
            }
        });
    });
}

/// `Receiver::len` counts what this receiver has yet to receive, including
/// what it lost: once it exceeds the capacity, the next receive is
/// `Lagged` by the number lost, and the receiver goes on from the oldest
/// value still held.
#[test]
fn broadcast_receiver_len_counts_a_lag_before_it_is_reported() {
    limit("broadcast Receiver::len", || {
        shim::runtime().block_on(async {
            let (tx, mut rx) = broadcast::channel::<u32>(4);
            assert!(rx.is_empty());
            for v in 0..10 {
                tx.send(v).unwrap();
            }
            assert_eq!(rx.len(), 10);
            assert_eq!(rx.recv().await, Err(broadcast::error::RecvError::Lagged(6)));
            assert_eq!(rx.len(), 4);
            for v in 6..10 {
                assert_eq!(rx.recv().await, Ok(v));
            }
            assert!(rx.is_empty());
            assert_eq!(rx.try_recv(), Err(broadcast::error::TryRecvError::Empty));
            // A receiver made now starts with nothing to read.
            let late = tx.subscribe();
            assert_eq!(late.len(), 0);
        });
    });
}

/// `channel` "will panic if `capacity` is equal to `0` or exceeds
/// `usize::MAX / 2`", and so does `Sender::new`.
#[test]
fn broadcast_capacity_zero_or_too_large_panics() {
    limit("broadcast capacity panics", || {
        let caught = expect_panic("broadcast capacity 0", || broadcast::channel::<u8>(0));
        caught.assert_says("capacity cannot be zero");
        expect_panic("broadcast capacity too large", || {
            broadcast::channel::<u8>(usize::MAX / 2 + 1)
        });
        expect_panic("Sender::new(0)", || broadcast::Sender::<u8>::new(0));
    });
}

/// A receiver waiting in `recv` is woken by a send from another task and
/// by the last sender's drop; a blocking receiver on a plain thread sees
/// the values, then `Closed`.
#[test]
fn broadcast_waiting_and_blocking_receivers_are_woken() {
    limit("broadcast wake-ups", || {
        let runtime = shim::runtime();
        let (tx, mut blocking_rx) = broadcast::channel::<u8>(8);
        let plain = std::thread::spawn(move || {
            let mut got = Vec::new();
            while let Ok(v) = blocking_rx.blocking_recv() {
                got.push(v);
            }
            got
        });
        runtime.block_on(async move {
            let mut rx = tx.subscribe();
            let waiter = rt::spawn(async move {
                let first = rx.recv().await;
                let second = rx.recv().await;
                (first, second)
            });
            rt::time::sleep(Duration::from_millis(10)).await;
            tx.send(1).unwrap();
            drop(tx);
            let (first, second) = rt::time::timeout(PATIENCE, waiter)
                .await
                .expect("the receiver was not woken")
                .unwrap();
            assert_eq!(first, Ok(1));
            assert_eq!(second, Err(broadcast::error::RecvError::Closed));
        });
        assert_eq!(plain.join().unwrap(), [1]);
    });
}

// ---------------------------------------------------------------------
// channels: mpsc.

/// "This channel uses a queue to ensure that calls to `send` and `reserve`
/// complete in the order they were requested. Cancelling a call to
/// `reserve` makes you lose your place in the queue." A `send` cancelled
/// while waiting sends nothing.
#[test]
fn mpsc_waiting_senders_are_served_in_order_and_a_cancelled_one_sends_nothing() {
    limit("mpsc send order", || {
        shim::runtime().block_on(async {
            let (tx, mut rx) = mpsc::channel::<u8>(1);
            tx.send(0).await.unwrap();
            let mut first = Box::pin(tx.send(1));
            let mut cancelled = Box::pin(tx.send(99));
            let mut reserve = Box::pin(tx.reserve());
            assert!(poll!(first.as_mut()).is_pending());
            assert!(poll!(cancelled.as_mut()).is_pending());
            assert!(poll!(reserve.as_mut()).is_pending());
            drop(cancelled);
            assert_eq!(rx.recv().await, Some(0));
            // The freed slot is the first sender's, not the reservation's.
            assert!(poll!(reserve.as_mut()).is_pending());
            first.await.unwrap();
            assert_eq!(rx.recv().await, Some(1));
            reserve.await.unwrap().send(2);
            assert_eq!(rx.recv().await, Some(2));
            assert_eq!(rx.try_recv(), Err(mpsc::error::TryRecvError::Empty));
        });
    });
}

/// `reserve` waits for a slot; a `Permit` dropped unused gives its slot
/// back and wakes the next reservation in line.
#[test]
fn mpsc_a_dropped_permit_wakes_the_next_reservation() {
    limit("mpsc reserve and drop", || {
        shim::runtime().block_on(async {
            let (tx, mut rx) = mpsc::channel::<u8>(1);
            let permit = tx.reserve().await.unwrap();
            assert_eq!(tx.capacity(), 0);
            let waiter = {
                let tx = tx.clone();
                rt::spawn(async move { tx.reserve().await.unwrap().send(5) })
            };
            rt::time::sleep(Duration::from_millis(10)).await;
            assert!(!waiter.is_finished());
            drop(permit);
            rt::time::timeout(PATIENCE, waiter)
                .await
                .expect("the reservation was not woken by the dropped permit")
                .unwrap();
            assert_eq!(rx.recv().await, Some(5));
        });
    });
}

/// `try_reserve_owned` on a full channel hands the sender back in
/// `TrySendError::Full`; `OwnedPermit::release` gives the slot back and
/// returns the sender, as `send` does after sending.
#[test]
fn mpsc_owned_permits_hand_their_sender_back() {
    limit("mpsc OwnedPermit", || {
        let (tx, mut rx) = mpsc::channel::<u8>(1);
        let permit = tx.clone().try_reserve_owned().unwrap();
        assert!(permit.same_channel_as_sender(&tx));
        let tx = match tx.try_reserve_owned() {
            Err(mpsc::error::TrySendError::Full(tx)) => tx,
            other => panic!("try_reserve_owned on a full channel: {other:?}"),
        };
        let tx2 = permit.release();
        assert!(tx2.same_channel(&tx));
        assert_eq!(tx.capacity(), 1);
        let again = tx2.try_reserve_owned().unwrap();
        let tx2 = again.send(4);
        assert_eq!(rx.try_recv(), Ok(4));
        drop(rx);
        match tx2.try_reserve_owned() {
            Err(mpsc::error::TrySendError::Closed(_sender)) => {}
            other => panic!("try_reserve_owned on a closed channel: {other:?}"),
        }
    });
}

/// `recv_many` "will never return more than `limit` messages", appends to
/// the buffer, takes what is queued without waiting for more, and waits
/// when nothing is queued; `poll_recv_many` and `poll_recv` do the same by
/// hand.
#[test]
fn mpsc_recv_many_takes_what_is_queued_up_to_the_limit() {
    limit("mpsc recv_many", || {
        shim::runtime().block_on(async {
            let (tx, mut rx) = mpsc::unbounded_channel::<u32>();
            for v in 0..5 {
                tx.send(v).unwrap();
            }
            let mut buffer = vec![100];
            assert_eq!(rx.recv_many(&mut buffer, 3).await, 3);
            assert_eq!(buffer, [100, 0, 1, 2]);
            assert_eq!(rx.recv_many(&mut buffer, 10).await, 2);
            assert_eq!(buffer, [100, 0, 1, 2, 3, 4]);
            let mut waiting = Box::pin(async {
                let mut more = Vec::new();
                let n = rx.recv_many(&mut more, 10).await;
                (n, more)
            });
            assert!(poll!(waiting.as_mut()).is_pending());
            tx.send(5).unwrap();
            assert_eq!(waiting.await, (1, vec![5]));

            let (tx, mut rx) = mpsc::channel::<u32>(4);
            tx.send(6).await.unwrap();
            tx.send(7).await.unwrap();
            let mut got = Vec::new();
            let n = std::future::poll_fn(|cx| rx.poll_recv_many(cx, &mut got, 1)).await;
            assert_eq!((n, &got[..]), (1, &[6][..]));
            let v = std::future::poll_fn(|cx| rx.poll_recv(cx)).await;
            assert_eq!(v, Some(7));
            drop(tx);
            assert_eq!(std::future::poll_fn(|cx| rx.poll_recv(cx)).await, None);
        });
    });
}

/// A `WeakSender` upgrades while a sender lives, and the upgraded sender
/// keeps the channel open after the original is gone; the same for
/// `WeakUnboundedSender`.
#[test]
fn mpsc_weak_senders_upgrade_while_a_sender_lives() {
    let (tx, mut rx) = mpsc::channel::<u8>(2);
    let weak = tx.downgrade();
    let weak2 = weak.clone();
    let upgraded = weak2.upgrade().expect("a sender lives");
    drop(tx);
    assert!(!rx.is_closed());
    upgraded.try_send(1).unwrap();
    assert_eq!(rx.try_recv(), Ok(1));
    drop(upgraded);
    assert!(weak.upgrade().is_none());
    assert_eq!(rx.try_recv(), Err(mpsc::error::TryRecvError::Disconnected));

    let (utx, mut urx) = mpsc::unbounded_channel::<u8>();
    let uweak = utx.downgrade();
    uweak.upgrade().unwrap().send(2).unwrap();
    assert_eq!(urx.try_recv(), Ok(2));
    drop(utx);
    assert!(uweak.upgrade().is_none());
    assert!(urx.is_closed());
}

/// The receiver's counters: `len`, `is_empty`, `capacity` (free slots) and
/// `max_capacity` of the bounded channel, `len` and `is_empty` of the
/// unbounded one; `same_channel` tells senders of one channel from
/// another's.
#[test]
fn mpsc_receiver_counters_and_same_channel() {
    let (tx, mut rx) = mpsc::channel::<u8>(3);
    assert!(rx.is_empty());
    assert_eq!((rx.len(), rx.capacity(), rx.max_capacity()), (0, 3, 3));
    tx.try_send(1).unwrap();
    tx.try_send(2).unwrap();
    assert!(!rx.is_empty());
    assert_eq!((rx.len(), rx.capacity(), rx.max_capacity()), (2, 1, 3));
    rx.try_recv().unwrap();
    assert_eq!((rx.len(), rx.capacity()), (1, 2));
    let (other, _other_rx) = mpsc::channel::<u8>(3);
    assert!(tx.same_channel(&tx.clone()));
    assert!(!tx.same_channel(&other));

    let (utx, mut urx) = mpsc::unbounded_channel::<u8>();
    assert!(urx.is_empty());
    utx.send(1).unwrap();
    utx.send(2).unwrap();
    assert_eq!(urx.len(), 2);
    urx.try_recv().unwrap();
    assert_eq!(urx.len(), 1);
    let (uother, _uother_rx) = mpsc::unbounded_channel::<u8>();
    assert!(utx.same_channel(&utx.clone()));
    assert!(!utx.same_channel(&uother));
}

/// Every `blocking_*` method of the channels and locks "panics if called
/// within an asynchronous execution context".
#[test]
fn every_blocking_call_panics_inside_a_runtime() {
    limit("blocking_* in block_on", || {
        let runtime = shim::runtime();
        let check = |what: &str, caught: crate::behaviour::Caught| {
            assert!(
                caught.message.contains(CANNOT_BLOCK),
                "{what}: {}",
                caught.message
            );
        };
        let (tx, _rx) = mpsc::channel::<u8>(1);
        check(
            "mpsc blocking_send",
            expect_panic("blocking_send", || {
                runtime.block_on(async { tx.blocking_send(1) })
            }),
        );
        let (_utx, mut urx) = mpsc::unbounded_channel::<u8>();
        check(
            "unbounded blocking_recv",
            expect_panic("unbounded blocking_recv", || {
                runtime.block_on(async { urx.blocking_recv() })
            }),
        );
        let (_otx, orx) = oneshot::channel::<u8>();
        check(
            "oneshot blocking_recv",
            expect_panic("oneshot blocking_recv", || {
                runtime.block_on(async { orx.blocking_recv() })
            }),
        );
        let (_btx, mut brx) = broadcast::channel::<u8>(1);
        check(
            "broadcast blocking_recv",
            expect_panic("broadcast blocking_recv", || {
                runtime.block_on(async { brx.blocking_recv() })
            }),
        );
        let lock = RwLock::new(0);
        check(
            "RwLock blocking_write",
            expect_panic("blocking_write", || {
                runtime.block_on(async { drop(lock.blocking_write()) })
            }),
        );
        let semaphore = Semaphore::new(1);
        check(
            "Semaphore blocking_acquire",
            expect_panic("blocking_acquire", || {
                runtime.block_on(async { drop(semaphore.blocking_acquire()) })
            }),
        );
        // Inside a task, too.
        let (_tx, mut rx) = mpsc::channel::<u8>(1);
        let joined = runtime.block_on(async move {
            rt::spawn(async move {
                let mut buffer = Vec::new();
                rx.blocking_recv_many(&mut buffer, 1)
            })
            .await
        });
        let payload = joined.unwrap_err().into_panic();
        let message = crate::behaviour::panic_message(&*payload);
        assert!(message.contains(CANNOT_BLOCK), "{message}");
    });
}

// ---------------------------------------------------------------------
// net: TCP.

/// `peek` reads without consuming: the next `read` gets the same bytes;
/// `try_read` on a stream with nothing to read is `WouldBlock`, and after
/// `readable` it reads what arrived; at the peer's end of file `try_read`
/// returns `Ok(0)`.
#[test]
fn tcp_peek_and_try_read() {
    limit("TcpStream peek/try_read", || {
        shim::runtime().block_on(async {
            let (mut client, mut server) = tcp_pair().await;
            let mut buf = [0u8; 16];
            assert_eq!(
                server.try_read(&mut buf).unwrap_err().kind(),
                ErrorKind::WouldBlock
            );
            client.write_all(b"peekaboo").await.unwrap();
            let mut peeked = 0;
            while peeked < 8 {
                peeked = server.peek(&mut buf).await.unwrap();
            }
            assert_eq!(&buf[..8], b"peekaboo");
            let mut read = [0u8; 8];
            server.read_exact(&mut read).await.unwrap();
            assert_eq!(&read, b"peekaboo");
            client.write_all(b"more").await.unwrap();
            let n = loop {
                server.readable().await.unwrap();
                match server.try_read(&mut buf) {
                    Ok(n) => break n,
                    Err(e) if e.kind() == ErrorKind::WouldBlock => continue,
                    Err(e) => panic!("try_read: {e}"),
                }
            };
            assert_eq!(&buf[..n], &b"more"[..n]);
            drop(client);
            let mut total = n;
            loop {
                server.readable().await.unwrap();
                match server.try_read(&mut buf) {
                    Ok(0) => break,
                    Ok(n) => total += n,
                    Err(e) if e.kind() == ErrorKind::WouldBlock => continue,
                    Err(e) => panic!("try_read: {e}"),
                }
            }
            assert_eq!(total, 4);
        });
    });
}

/// `ready` reports the readiness asked for: a fresh stream is writable;
/// once the peer has written it is readable; once the peer has closed,
/// the readiness says the read side is closed.
#[test]
fn tcp_ready_reports_writable_readable_and_read_closed() {
    limit("TcpStream::ready", || {
        shim::runtime().block_on(async {
            let (mut client, server) = tcp_pair().await;
            let ready = server
                .ready(Interest::READABLE | Interest::WRITABLE)
                .await
                .unwrap();
            assert!(ready.is_writable());
            server.writable().await.unwrap();
            client.write_all(b"x").await.unwrap();
            let ready = server.ready(Interest::READABLE).await.unwrap();
            assert!(ready.is_readable());
            drop(client);
            // The close arrives in an event of its own, perhaps after the
            // byte's: ask again until it shows (the limit catches a hang).
            while !server
                .ready(Interest::READABLE)
                .await
                .unwrap()
                .is_read_closed()
            {
                rt::time::sleep(Duration::from_millis(1)).await;
            }
        });
    });
}

/// `try_write` writes without waiting until the socket's buffers are full
/// (`WouldBlock`); `writable` then waits until the peer has read some.
#[test]
fn tcp_try_write_until_would_block_then_writable_waits_for_the_reader() {
    limit("TcpStream try_write", || {
        shim::runtime().block_on(async {
            let (client, mut server) = tcp_pair().await;
            let chunk = vec![7u8; 64 * 1024];
            let mut written = 0usize;
            let mut blocked = false;
            for _ in 0..100_000 {
                client.writable().await.unwrap();
                match client.try_write(&chunk) {
                    Ok(n) => written += n,
                    Err(e) if e.kind() == ErrorKind::WouldBlock => {
                        blocked = true;
                        break;
                    }
                    Err(e) => panic!("try_write: {e}"),
                }
            }
            assert!(blocked, "the socket never filled up");
            let reader = rt::spawn(async move {
                let mut buf = vec![0u8; written];
                server.read_exact(&mut buf).await.unwrap();
                server
            });
            rt::time::timeout(PATIENCE, client.writable())
                .await
                .expect("writable did not wake when the reader drained")
                .unwrap();
            let n = loop {
                match client.try_write(b"tail") {
                    Ok(n) => break n,
                    Err(e) if e.kind() == ErrorKind::WouldBlock => client.writable().await.unwrap(),
                    Err(e) => panic!("try_write: {e}"),
                }
            };
            assert!(n > 0);
            rt::time::timeout(PATIENCE, reader)
                .await
                .expect("the reader did not get everything")
                .unwrap();
        });
    });
}

/// `set_nodelay` and `nodelay` round-trip, on a stream and on its halves'
/// stream; both ends see each other's addresses through the owned halves.
#[test]
fn tcp_nodelay_round_trips() {
    limit("TcpStream nodelay", || {
        shim::runtime().block_on(async {
            let (client, server) = tcp_pair().await;
            client.set_nodelay(true).unwrap();
            assert!(client.nodelay().unwrap());
            client.set_nodelay(false).unwrap();
            assert!(!client.nodelay().unwrap());
            let (read, write) = server.into_split();
            assert_eq!(read.peer_addr().unwrap(), client.local_addr().unwrap());
            assert_eq!(write.local_addr().unwrap(), client.peer_addr().unwrap());
        });
    });
}

/// Owned halves work from two tasks at once; "Dropping the write half will
/// shut down the write half of the TCP stream": the peer reads end of
/// file, while the read half still receives.
#[test]
fn tcp_owned_halves_in_two_tasks_and_a_dropped_write_half_shuts_down() {
    limit("TcpStream::into_split", || {
        shim::runtime().block_on(async {
            let (client, mut server) = tcp_pair().await;
            let (mut read, mut write) = client.into_split();
            let writer = rt::spawn(async move {
                write.write_all(b"from the write half").await.unwrap();
                // Dropped here: the server reads end of file.
            });
            let reader = rt::spawn(async move {
                let mut buf = [0u8; 5];
                read.read_exact(&mut buf).await.unwrap();
                buf
            });
            let mut got = Vec::new();
            rt::time::timeout(PATIENCE, server.read_to_end(&mut got))
                .await
                .expect("the dropped write half did not shut the stream down")
                .unwrap();
            assert_eq!(got, b"from the write half");
            writer.await.unwrap();
            server.write_all(b"hello").await.unwrap();
            assert_eq!(&reader.await.unwrap(), b"hello");
        });
    });
}

/// `OwnedWriteHalf::forget` "Destroys the write half, but don't close the
/// write half of the stream until the read half is dropped."
#[test]
fn tcp_a_forgotten_write_half_stays_open_until_the_read_half_drops() {
    limit("OwnedWriteHalf::forget", || {
        shim::runtime().block_on(async {
            let (client, mut server) = tcp_pair().await;
            let (read, write) = client.into_split();
            write.forget();
            rt::time::sleep(Duration::from_millis(20)).await;
            let mut buf = [0u8; 4];
            assert_eq!(
                server.try_read(&mut buf).unwrap_err().kind(),
                ErrorKind::WouldBlock,
                "the forgotten write half closed the stream"
            );
            drop(read);
            let n = rt::time::timeout(PATIENCE, server.read(&mut buf))
                .await
                .expect("dropping the read half did not close the stream")
                .unwrap();
            assert_eq!(n, 0);
        });
    });
}

/// `reunite` gives the stream back for two halves of one stream, and
/// `ReuniteError` (with both halves, "tried to reunite halves that are not
/// from the same socket") for halves of two.
#[test]
fn tcp_reunite_takes_only_halves_of_one_stream() {
    limit("tcp reunite", || {
        shim::runtime().block_on(async {
            let (a, _a_peer) = tcp_pair().await;
            let (b, _b_peer) = tcp_pair().await;
            let a_addr = a.local_addr().unwrap();
            let (a_read, a_write) = a.into_split();
            let (b_read, b_write) = b.into_split();
            let error = a_read.reunite(b_write).unwrap_err();
            assert_eq!(
                error.to_string(),
                "tried to reunite halves that are not from the same socket"
            );
            let rt::net::tcp::ReuniteError(a_read, b_write) = error;
            let a = a_read.reunite(a_write).unwrap();
            assert_eq!(a.local_addr().unwrap(), a_addr);
            b_read.reunite(b_write).unwrap();
        });
    });
}

/// The borrowed halves of `split` read and write at once in one task.
#[test]
fn tcp_borrowed_halves_read_and_write_at_once() {
    limit("TcpStream::split", || {
        shim::runtime().block_on(async {
            let (mut client, mut server) = tcp_pair().await;
            let echo = rt::spawn(async move {
                let (mut read, mut write) = server.split();
                let mut buf = vec![0u8; 256 * 1024];
                read.read_exact(&mut buf).await.unwrap();
                write.write_all(&buf).await.unwrap();
            });
            let (mut read, mut write) = client.split();
            let data: Vec<u8> = (0..256 * 1024u32).map(|i| (i % 251) as u8).collect();
            let mut back = vec![0u8; data.len()];
            let (written, read_back) =
                rt::join!(write.write_all(&data), read.read_exact(&mut back));
            written.unwrap();
            read_back.unwrap();
            assert!(back == data);
            echo.await.unwrap();
        });
    });
}

/// Binding a listener to a port a listener already uses fails with
/// `AddrInUse`.
#[test]
fn binding_a_port_in_use_fails() {
    limit("bind in use", || {
        shim::runtime().block_on(async {
            let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
            let addr = listener.local_addr().unwrap();
            let error = TcpListener::bind(addr).await.unwrap_err();
            assert_eq!(error.kind(), ErrorKind::AddrInUse, "{error:?}");
            let _still = TcpStream::connect(addr).await.unwrap();
        });
    });
}

/// `connect` with several addresses "will be attempted with each of the
/// addresses until a connection is successful", and fails with "the error
/// returned from the last connection attempt"; `bind` likewise takes the
/// first address that binds, and "sets the `SO_REUSEADDR` option on the
/// socket on Unix".
#[test]
fn connect_and_bind_try_each_address_in_turn() {
    limit("several addresses", || {
        shim::runtime().block_on(async {
            let closed = {
                let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
                l.local_addr().unwrap()
            };
            let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
            let open = listener.local_addr().unwrap();
            assert!(socket2::SockRef::from(&listener).reuse_address().unwrap());
            let stream = TcpStream::connect(&[closed, open][..]).await.unwrap();
            assert_eq!(stream.peer_addr().unwrap(), open);
            let error = TcpStream::connect(&[open, closed][..]).await;
            // The first address works: no later attempt is made.
            assert!(error.is_ok());
            let error = TcpStream::connect(&[closed, closed][..]).await.unwrap_err();
            assert_eq!(error.kind(), ErrorKind::ConnectionRefused, "{error:?}");

            let free: std::net::SocketAddr = "127.0.0.1:0".parse().unwrap();
            let second = TcpListener::bind(&[open, free][..]).await.unwrap();
            assert_ne!(second.local_addr().unwrap(), open);
        });
    });
}

/// `TcpSocket` sets options before `bind`/`listen` or `connect`:
/// `set_reuseaddr`, `set_keepalive` and `set_nodelay` read back, `listen`
/// gives a listener on the bound address, and `connect` a stream to it.
#[test]
fn a_tcp_socket_is_configured_then_listens_or_connects() {
    use rt::net::TcpSocket;
    limit("TcpSocket", || {
        shim::runtime().block_on(async {
            let socket = TcpSocket::new_v4().unwrap();
            socket.set_reuseaddr(true).unwrap();
            assert!(socket.reuseaddr().unwrap());
            socket.bind("127.0.0.1:0".parse().unwrap()).unwrap();
            let addr = socket.local_addr().unwrap();
            let listener = socket.listen(16).unwrap();
            assert_eq!(listener.local_addr().unwrap(), addr);

            let client = TcpSocket::new_v4().unwrap();
            client.set_keepalive(true).unwrap();
            assert!(client.keepalive().unwrap());
            client.set_nodelay(true).unwrap();
            assert!(client.nodelay().unwrap());
            let (stream, accepted) = rt::join!(client.connect(addr), listener.accept());
            let stream = stream.unwrap();
            let (_server, from) = accepted.unwrap();
            assert_eq!(from, stream.local_addr().unwrap());
            assert!(stream.nodelay().unwrap());
        });
    });
}

/// `try_write_vectored` and `try_read_vectored` move several buffers at
/// once (here on an owned read half); `take_error` is `None` on a healthy
/// stream.
#[test]
fn tcp_vectored_try_io_take_error_and_a_peeking_half() {
    use std::io::{IoSlice, IoSliceMut};
    limit("TcpStream vectored", || {
        shim::runtime().block_on(async {
            let (client, server) = tcp_pair().await;
            assert!(client.take_error().unwrap().is_none());
            let sent = loop {
                client.writable().await.unwrap();
                match client.try_write_vectored(&[IoSlice::new(b"ab"), IoSlice::new(b"cd")]) {
                    Ok(n) => break n,
                    Err(e) if e.kind() == ErrorKind::WouldBlock => continue,
                    Err(e) => panic!("try_write_vectored: {e}"),
                }
            };
            assert_eq!(sent, 4);
            let mut peeked = [0u8; 4];
            let mut n = 0;
            while n < 4 {
                n = server.peek(&mut peeked).await.unwrap();
            }
            assert_eq!(&peeked, b"abcd");
            let (read, _write) = server.into_split();
            let (mut first, mut second) = ([0u8; 1], [0u8; 8]);
            let got = loop {
                read.readable().await.unwrap();
                let mut bufs = [IoSliceMut::new(&mut first), IoSliceMut::new(&mut second)];
                match read.try_read_vectored(&mut bufs) {
                    Ok(n) => break n,
                    Err(e) if e.kind() == ErrorKind::WouldBlock => continue,
                    Err(e) => panic!("try_read_vectored: {e}"),
                }
            };
            assert_eq!(got, 4);
            assert_eq!((&first, &second[..3]), (b"a", &b"bcd"[..]));
        });
    });
}

// ---------------------------------------------------------------------
// net: UDP and Unix sockets.

/// A connected UDP socket `send`s to and `recv`s from its peer, and
/// `peer_addr` names it; an unconnected one has no peer (`NotConnected`).
#[test]
fn udp_connect_send_recv_and_peer_addr() {
    limit("UdpSocket::connect", || {
        shim::runtime().block_on(async {
            let a = UdpSocket::bind("127.0.0.1:0").await.unwrap();
            let b = UdpSocket::bind("127.0.0.1:0").await.unwrap();
            assert_eq!(a.peer_addr().unwrap_err().kind(), ErrorKind::NotConnected);
            a.connect(b.local_addr().unwrap()).await.unwrap();
            b.connect(a.local_addr().unwrap()).await.unwrap();
            assert_eq!(a.peer_addr().unwrap(), b.local_addr().unwrap());
            assert_eq!(a.send(b"ping").await.unwrap(), 4);
            let mut buf = [0u8; 16];
            let n = rt::time::timeout(PATIENCE, b.recv(&mut buf))
                .await
                .expect("recv on a connected socket hung")
                .unwrap();
            assert_eq!(&buf[..n], b"ping");
            b.send(b"pong").await.unwrap();
            let n = a.recv(&mut buf).await.unwrap();
            assert_eq!(&buf[..n], b"pong");
        });
    });
}

/// `peek_from` returns the next datagram and its sender and leaves it for
/// `recv_from`; `try_recv_from` on an empty socket is `WouldBlock`;
/// `try_send_to` after `writable` sends a whole datagram.
#[test]
fn udp_peek_from_and_the_try_forms() {
    limit("UdpSocket peek_from/try_*", || {
        shim::runtime().block_on(async {
            let a = UdpSocket::bind("127.0.0.1:0").await.unwrap();
            let b = UdpSocket::bind("127.0.0.1:0").await.unwrap();
            let mut buf = [0u8; 16];
            assert_eq!(
                b.try_recv_from(&mut buf).unwrap_err().kind(),
                ErrorKind::WouldBlock
            );
            let to = b.local_addr().unwrap();
            let sent = loop {
                a.writable().await.unwrap();
                match a.try_send_to(b"datagram", to) {
                    Ok(n) => break n,
                    Err(e) if e.kind() == ErrorKind::WouldBlock => continue,
                    Err(e) => panic!("try_send_to: {e}"),
                }
            };
            assert_eq!(sent, 8);
            let (n, from) = rt::time::timeout(PATIENCE, b.peek_from(&mut buf))
                .await
                .expect("peek_from hung")
                .unwrap();
            assert_eq!(
                (&buf[..n], from),
                (&b"datagram"[..], a.local_addr().unwrap())
            );
            let mut again = [0u8; 16];
            let (n, from) = b.recv_from(&mut again).await.unwrap();
            assert_eq!(
                (&again[..n], from),
                (&b"datagram"[..], a.local_addr().unwrap())
            );
            assert_eq!(
                b.try_recv_from(&mut buf).unwrap_err().kind(),
                ErrorKind::WouldBlock
            );
        });
    });
}

/// A `UnixListener` bound to a path accepts a `UnixStream` connected to
/// that path; the listener and the client's peer address name the path;
/// binding the path again fails with `AddrInUse`, and connecting where
/// nothing is bound with `NotFound`.
#[test]
fn a_unix_listener_on_a_path_accepts_and_names_it() {
    limit("UnixListener::bind", || {
        let dir = SocketDir::new("toolbox-listener");
        let path = dir.join("listener.sock");
        shim::runtime().block_on(async {
            let listener = UnixListener::bind(&path).unwrap();
            assert_eq!(
                listener.local_addr().unwrap().as_pathname(),
                Some(path.as_path())
            );
            let error = UnixListener::bind(&path).unwrap_err();
            assert_eq!(error.kind(), ErrorKind::AddrInUse, "{error:?}");
            let missing = UnixStream::connect(dir.join("nobody.sock")).await;
            assert_eq!(missing.unwrap_err().kind(), ErrorKind::NotFound);
            let (client, accepted) = rt::join!(UnixStream::connect(&path), listener.accept());
            let mut client = client.unwrap();
            let (mut server, from) = accepted.unwrap();
            assert!(from.as_pathname().is_none());
            assert_eq!(
                client.peer_addr().unwrap().as_pathname(),
                Some(path.as_path())
            );
            client.write_all(b"over a path").await.unwrap();
            client.shutdown().await.unwrap();
            let mut got = String::new();
            server.read_to_string(&mut got).await.unwrap();
            assert_eq!(got, "over a path");
        });
    });
}

/// `UnixStream::pair` makes two connected, unnamed streams: bytes cross
/// both ways, `try_read` with nothing there is `WouldBlock`, and a
/// `shutdown` gives the other end end of file.
#[test]
fn a_unix_stream_pair_talks_both_ways() {
    limit("UnixStream::pair", || {
        shim::runtime().block_on(async {
            let (mut left, mut right) = UnixStream::pair().unwrap();
            assert!(left.local_addr().unwrap().as_pathname().is_none());
            let mut buf = [0u8; 8];
            assert_eq!(
                right.try_read(&mut buf).unwrap_err().kind(),
                ErrorKind::WouldBlock
            );
            left.write_all(b"left").await.unwrap();
            right.read_exact(&mut buf[..4]).await.unwrap();
            assert_eq!(&buf[..4], b"left");
            right.write_all(b"right").await.unwrap();
            left.read_exact(&mut buf[..5]).await.unwrap();
            assert_eq!(&buf[..5], b"right");
            left.shutdown().await.unwrap();
            let n = rt::time::timeout(PATIENCE, right.read(&mut buf))
                .await
                .expect("the shutdown did not reach the other end")
                .unwrap();
            assert_eq!(n, 0);
        });
    });
}

// ---------------------------------------------------------------------
// signal.

/// Two `Signal` streams for one kind both receive a signal sent to the
/// process once both exist; `SignalKind::from_raw` and `as_raw_value`
/// convert to and from the signal's number.
#[test]
fn two_streams_of_one_signal_both_see_it() {
    use rt::signal::unix::{SignalKind, signal};
    limit("signal", || {
        shim::runtime().block_on(async {
            let kind = SignalKind::from_raw(libc::SIGUSR2);
            assert_eq!(kind, SignalKind::user_defined2());
            assert_eq!(kind.as_raw_value(), libc::SIGUSR2);
            let mut first = signal(SignalKind::user_defined2()).unwrap();
            let mut second = signal(SignalKind::user_defined2()).unwrap();
            // SAFETY: sending SIGUSR2 to this process, whose handler the
            // two streams above installed.
            let sent = unsafe { libc::kill(libc::getpid(), libc::SIGUSR2) };
            assert_eq!(sent, 0);
            for stream in [&mut first, &mut second] {
                rt::time::timeout(PATIENCE, stream.recv())
                    .await
                    .expect("a stream missed the signal")
                    .expect("the signal stream ended");
            }
        });
    });
}
