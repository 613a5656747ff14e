//! I/O utilities and sync primitives, as Tokio documents them (second audit).
//!
//! Covers `tokio::io` (the buffered readers and writers, `take`, `chain`,
//! `duplex`, the copies, the line, byte and number helpers) and
//! `tokio::sync` (`Notify`, `Barrier`, `Semaphore`, `OnceCell`, `SetOnce`,
//! the locks and their guards, `watch`, `broadcast`, `mpsc`, `oneshot`).
//! Each test is written from Tokio 1.54's documentation and was first made
//! to pass against Tokio, which compiles this same file in
//! `behaviour_tokio.rs`: a failure in the Tokio build is a wrong test, one
//! in the rt build a place where rt departs from Tokio.
//!
//! The two differences they found are fixed in rt: `watch::Receiver::wait_for`
//! on a closed channel now shows the current, already seen value to its
//! closure before it gives up (Tokio: an error means the closure rejected
//! the last value), and a `oneshot::Receiver::try_recv` that returns the
//! value or `Closed` terminates the receiver, as a completed poll does.

use crate::behaviour::limit;
use crate::{rt, shim};
use futures::{FutureExt, poll};
use rt::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader, BufWriter};
use rt::sync::{
    Barrier, Mutex, MutexGuard, Notify, OnceCell, RwLock, RwLockReadGuard, RwLockWriteGuard,
    Semaphore, SetError, TryAcquireError,
};
use rt::sync::{broadcast, mpsc, oneshot, watch};
use std::io::ErrorKind;
use std::pin::pin;
use std::sync::Arc;
use std::task::Poll;
use std::time::Duration;

/// How long a step that should be quick may take before the test fails.
const PATIENCE: Duration = Duration::from_secs(10);

// ---------------------------------------------------------------- io ----

#[test]
fn a_buf_reader_passes_a_read_as_large_as_its_buffer_straight_through() {
    limit("BufReader bypass", || {
        shim::runtime().block_on(async {
            let mut reader = BufReader::with_capacity(4, &b"abcdefghij"[..]);
            let mut eight = [0u8; 8];
            // Buffer empty and the read at least as large: read directly.
            assert_eq!(reader.read(&mut eight).await.unwrap(), 8);
            assert_eq!(&eight, b"abcdefgh");
            assert!(reader.buffer().is_empty());
            // A small read fills the buffer (at most its capacity).
            let mut one = [0u8; 1];
            assert_eq!(reader.read(&mut one).await.unwrap(), 1);
            assert_eq!(&one, b"i");
            assert_eq!(reader.buffer(), b"j");
        });
    });
}

#[test]
fn fill_buf_returns_at_most_the_capacity_and_consume_advances() {
    limit("fill_buf capacity", || {
        shim::runtime().block_on(async {
            let mut reader = BufReader::with_capacity(3, &b"hello"[..]);
            assert_eq!(reader.fill_buf().await.unwrap(), b"hel");
            reader.consume(2);
            assert_eq!(reader.fill_buf().await.unwrap(), b"l");
            reader.consume(1);
            assert_eq!(reader.fill_buf().await.unwrap(), b"lo");
            reader.consume(2);
            assert!(reader.fill_buf().await.unwrap().is_empty());
        });
    });
}

#[test]
fn take_reports_and_resets_its_limit_and_gives_the_reader_back() {
    limit("take limit", || {
        shim::runtime().block_on(async {
            let mut take = (&b"abcdefgh"[..]).take(3);
            let mut out = Vec::new();
            assert_eq!(take.read_to_end(&mut out).await.unwrap(), 3);
            assert_eq!(out, b"abc");
            assert_eq!(take.limit(), 0);
            take.set_limit(2);
            out.clear();
            assert_eq!(take.read_to_end(&mut out).await.unwrap(), 2);
            assert_eq!(out, b"de");
            let rest = take.into_inner();
            assert_eq!(rest, b"fgh");
        });
    });
}

#[test]
fn chain_reads_the_first_to_its_end_then_the_second() {
    limit("chain", || {
        shim::runtime().block_on(async {
            let mut chain = (&b"ab"[..]).chain(&b"cd"[..]);
            let mut two = [0u8; 3];
            // One read never spans both readers.
            assert_eq!(chain.read(&mut two).await.unwrap(), 2);
            assert_eq!(&two[..2], b"ab");
            let mut rest = String::new();
            assert_eq!(chain.read_to_string(&mut rest).await.unwrap(), 2);
            assert_eq!(rest, "cd");
            let (first, second) = chain.into_inner();
            assert!(first.is_empty() && second.is_empty());
        });
    });
}

#[test]
fn a_duplex_write_takes_only_what_fits_and_the_rest_waits() {
    limit("duplex capacity", || {
        shim::runtime().block_on(async {
            let (mut a, mut b) = rt::io::duplex(4);
            assert_eq!(a.write(b"abcdefgh").await.unwrap(), 4);
            assert!(a.write(b"efgh").now_or_never().is_none());
            let mut buf = [0u8; 16];
            assert_eq!(b.read(&mut buf).await.unwrap(), 4);
            assert_eq!(&buf[..4], b"abcd");
            assert_eq!(a.write(b"efgh").await.unwrap(), 4);
        });
    });
}

#[test]
fn a_duplex_end_dropped_mid_read_wakes_the_reader_with_end_of_file() {
    limit("duplex drop wakes reader", || {
        shim::runtime().block_on(async {
            let (a, mut b) = rt::io::duplex(16);
            let reader = rt::spawn(async move {
                let mut buf = [0u8; 4];
                b.read(&mut buf).await
            });
            rt::task::yield_now().await;
            drop(a);
            let n = rt::time::timeout(PATIENCE, reader)
                .await
                .expect("the reader was not woken")
                .unwrap()
                .unwrap();
            assert_eq!(n, 0);
        });
    });
}

#[test]
fn a_shut_down_duplex_end_still_reads_what_its_peer_writes() {
    limit("duplex half close", || {
        shim::runtime().block_on(async {
            let (mut a, mut b) = rt::io::duplex(16);
            a.shutdown().await.unwrap();
            let err = a.write_all(b"x").await.unwrap_err();
            assert_eq!(err.kind(), ErrorKind::BrokenPipe);
            b.write_all(b"pong").await.unwrap();
            let mut got = [0u8; 4];
            a.read_exact(&mut got).await.unwrap();
            assert_eq!(&got, b"pong");
            let mut rest = Vec::new();
            assert_eq!(b.read_to_end(&mut rest).await.unwrap(), 0);
        });
    });
}

#[test]
fn copy_buf_counts_every_byte_of_a_buffered_reader() {
    limit("copy_buf", || {
        shim::runtime().block_on(async {
            let data: Vec<u8> = (0..10_000u32).map(|i| i as u8).collect();
            let mut reader = BufReader::with_capacity(100, &data[..]);
            let mut out: Vec<u8> = Vec::new();
            let n = rt::io::copy_buf(&mut reader, &mut out).await.unwrap();
            assert_eq!(n, 10_000);
            assert_eq!(out, data);
        });
    });
}

#[test]
fn copy_bidirectional_with_sizes_returns_both_counts_and_shuts_each_side() {
    limit("copy_bidirectional_with_sizes", || {
        shim::runtime().block_on(async {
            let (mut left, mut left_far) = rt::io::duplex(64);
            let (mut right, mut right_far) = rt::io::duplex(64);
            let proxy = rt::spawn(async move {
                rt::io::copy_bidirectional_with_sizes(&mut left, &mut right, 3, 5).await
            });
            left_far.write_all(b"0123456789").await.unwrap();
            left_far.shutdown().await.unwrap();
            let mut got = Vec::new();
            right_far.read_to_end(&mut got).await.unwrap();
            assert_eq!(got, b"0123456789");
            right_far.write_all(b"abc").await.unwrap();
            drop(right_far);
            let mut back = Vec::new();
            left_far.read_to_end(&mut back).await.unwrap();
            assert_eq!(back, b"abc");
            let counts = rt::time::timeout(PATIENCE, proxy)
                .await
                .expect("the proxy did not end")
                .unwrap()
                .unwrap();
            assert_eq!(counts, (10, 3));
        });
    });
}

#[test]
fn read_line_of_bytes_that_are_not_utf8_is_invalid_data_and_keeps_the_string() {
    limit("read_line utf8", || {
        shim::runtime().block_on(async {
            let mut reader = BufReader::new(&b"ok\n\xff\xfe\nlast"[..]);
            let mut line = String::new();
            assert_eq!(reader.read_line(&mut line).await.unwrap(), 3);
            let err = reader.read_line(&mut line).await.unwrap_err();
            assert_eq!(err.kind(), ErrorKind::InvalidData);
            assert_eq!(line, "ok\n");
            assert_eq!(reader.read_line(&mut line).await.unwrap(), 4);
            assert_eq!(line, "ok\nlast");
        });
    });
}

#[test]
fn next_line_of_bytes_that_are_not_utf8_is_invalid_data() {
    limit("next_line utf8", || {
        shim::runtime().block_on(async {
            let mut lines = BufReader::new(&b"\xc3\x28\nfine\n"[..]).lines();
            let err = lines.next_line().await.unwrap_err();
            assert_eq!(err.kind(), ErrorKind::InvalidData);
            assert_eq!(lines.next_line().await.unwrap().as_deref(), Some("fine"));
            assert_eq!(lines.next_line().await.unwrap(), None);
        });
    });
}

#[test]
fn split_segments_drop_the_delimiter_and_keep_empty_ones() {
    limit("split segments", || {
        shim::runtime().block_on(async {
            let mut segments = BufReader::new(&b"a,,b,"[..]).split(b',');
            let mut got = Vec::new();
            while let Some(segment) = segments.next_segment().await.unwrap() {
                got.push(segment);
            }
            assert_eq!(got, vec![b"a".to_vec(), b"".to_vec(), b"b".to_vec()]);
        });
    });
}

#[test]
fn write_vectored_into_a_vec_takes_every_slice() {
    limit("write_vectored vec", || {
        shim::runtime().block_on(async {
            let mut out: Vec<u8> = Vec::new();
            let bufs = [
                std::io::IoSlice::new(b"ab"),
                std::io::IoSlice::new(b""),
                std::io::IoSlice::new(b"cde"),
            ];
            assert_eq!(out.write_vectored(&bufs).await.unwrap(), 5);
            assert_eq!(out, b"abcde");
        });
    });
}

#[test]
fn a_buf_writer_holds_small_writes_until_shutdown_writes_them_out() {
    limit("BufWriter over duplex", || {
        shim::runtime().block_on(async {
            let (a, mut b) = rt::io::duplex(64);
            let mut writer = BufWriter::with_capacity(16, a);
            writer.write_u16(0x0102).await.unwrap();
            writer.write_all(b"xyz").await.unwrap();
            assert_eq!(writer.buffer(), b"\x01\x02xyz");
            let mut buf = [0u8; 8];
            assert!(b.read(&mut buf).now_or_never().is_none());
            writer.shutdown().await.unwrap();
            assert!(writer.buffer().is_empty());
            let mut all = Vec::new();
            b.read_to_end(&mut all).await.unwrap();
            assert_eq!(all, b"\x01\x02xyz");
        });
    });
}

#[test]
fn read_buf_appends_to_a_vec_and_counts() {
    limit("read_buf vec", || {
        shim::runtime().block_on(async {
            let mut reader = &b"hello world"[..];
            let mut buf = b"> ".to_vec();
            let mut total = 0;
            loop {
                let n = reader.read_buf(&mut buf).await.unwrap();
                if n == 0 {
                    break;
                }
                total += n;
            }
            assert_eq!(total, 11);
            assert_eq!(buf, b"> hello world");
        });
    });
}

#[test]
fn signed_and_float_integers_cross_a_duplex_in_both_byte_orders() {
    limit("ints", || {
        shim::runtime().block_on(async {
            let (mut a, mut b) = rt::io::duplex(256);
            a.write_i16_le(-2).await.unwrap();
            a.write_i32(-70_000).await.unwrap();
            a.write_u64_le(u64::MAX - 1).await.unwrap();
            a.write_f64(1.5).await.unwrap();
            a.write_i128_le(-1).await.unwrap();
            a.write_u8(0xfe).await.unwrap();
            drop(a);
            assert_eq!(b.read_i16_le().await.unwrap(), -2);
            assert_eq!(b.read_i32().await.unwrap(), -70_000);
            assert_eq!(b.read_u64_le().await.unwrap(), u64::MAX - 1);
            assert_eq!(b.read_f64().await.unwrap(), 1.5);
            assert_eq!(b.read_i128_le().await.unwrap(), -1);
            assert_eq!(b.read_i8().await.unwrap(), -2);
            let err = b.read_u32_le().await.unwrap_err();
            assert_eq!(err.kind(), ErrorKind::UnexpectedEof);
        });
    });
}

// -------------------------------------------------------------- sync ----

#[test]
fn notify_last_wakes_the_newest_waiter_and_notify_one_the_oldest() {
    limit("notify_last", || {
        shim::runtime().block_on(async {
            let notify = Notify::new();
            let mut first = pin!(notify.notified());
            let mut second = pin!(notify.notified());
            let mut third = pin!(notify.notified());
            assert!(!first.as_mut().enable());
            assert!(!second.as_mut().enable());
            assert!(!third.as_mut().enable());
            notify.notify_last();
            assert!(poll!(first.as_mut()).is_pending());
            assert!(poll!(second.as_mut()).is_pending());
            assert!(poll!(third.as_mut()).is_ready());
            notify.notify_one();
            assert!(poll!(first.as_mut()).is_ready());
            assert!(poll!(second.as_mut()).is_pending());
        });
    });
}

#[test]
fn enable_takes_a_stored_permit_and_says_so() {
    limit("enable permit", || {
        shim::runtime().block_on(async {
            let notify = Notify::new();
            notify.notify_one();
            let mut notified = pin!(notify.notified());
            assert!(notified.as_mut().enable());
            assert!(poll!(notified.as_mut()).is_ready());
            // The permit was used: the next one waits.
            let mut next = pin!(notify.notified());
            assert!(!next.as_mut().enable());
            assert!(poll!(next.as_mut()).is_pending());
        });
    });
}

#[test]
fn a_barrier_of_zero_lets_every_caller_through_as_leader() {
    limit("barrier zero", || {
        shim::runtime().block_on(async {
            let barrier = Barrier::new(0);
            assert!(barrier.wait().await.is_leader());
            assert!(barrier.wait().await.is_leader());
        });
    });
}

#[test]
fn a_forgotten_count_stops_at_the_free_permits_while_a_waiter_holds_a_share() {
    limit("forget_permits", || {
        shim::runtime().block_on(async {
            let semaphore = Semaphore::new(3);
            let held = semaphore.acquire_many(2).await.unwrap();
            let mut big = pin!(semaphore.acquire_many(3));
            assert!(poll!(big.as_mut()).is_pending());
            // The waiter at the head took the free permit.
            assert_eq!(semaphore.available_permits(), 0);
            assert_eq!(semaphore.forget_permits(5), 0);
            assert!(matches!(
                semaphore.try_acquire(),
                Err(TryAcquireError::NoPermits)
            ));
            drop(held);
            let permit = big.await.unwrap();
            assert_eq!(permit.num_permits(), 3);
            drop(permit);
            assert_eq!(semaphore.forget_permits(2), 2);
            assert_eq!(semaphore.available_permits(), 1);
        });
    });
}

#[test]
fn a_closed_semaphore_refuses_try_acquire_even_with_permits_free() {
    limit("closed try_acquire", || {
        let semaphore = Arc::new(Semaphore::new(5));
        let held = semaphore.try_acquire_many(2).unwrap();
        semaphore.close();
        assert!(semaphore.is_closed());
        assert!(matches!(
            semaphore.try_acquire_many(1),
            Err(TryAcquireError::Closed)
        ));
        assert!(matches!(
            semaphore.clone().try_acquire_owned(),
            Err(TryAcquireError::Closed)
        ));
        assert_eq!(semaphore.available_permits(), 3);
        drop(held);
        assert_eq!(semaphore.available_permits(), 5);
        // Permits can still be added to a closed semaphore.
        semaphore.add_permits(1);
        assert_eq!(semaphore.available_permits(), 6);
    });
}

#[test]
fn split_of_more_permits_than_held_is_none_and_leaves_the_permit_whole() {
    limit("permit split", || {
        let semaphore = Semaphore::new(4);
        let mut permit = semaphore.try_acquire_many(3).unwrap();
        assert!(permit.split(4).is_none());
        assert_eq!(permit.num_permits(), 3);
        let part = permit.split(3).unwrap();
        assert_eq!(permit.num_permits(), 0);
        assert_eq!(part.num_permits(), 3);
        drop(permit);
        assert_eq!(semaphore.available_permits(), 1);
        part.forget();
        assert_eq!(semaphore.available_permits(), 1);
    });
}

#[test]
fn once_cell_set_during_an_initialisation_is_initializing_error() {
    limit("OnceCell InitializingError", || {
        shim::runtime().block_on(async {
            let cell: OnceCell<u32> = OnceCell::new();
            let (go, wait) = oneshot::channel::<()>();
            let mut init = pin!(cell.get_or_init(|| async {
                let _ = wait.await;
                7
            }));
            assert!(poll!(init.as_mut()).is_pending());
            match cell.set(1) {
                Err(SetError::InitializingError(v)) => assert_eq!(v, 1),
                other => panic!("expected InitializingError, got {other:?}"),
            }
            assert!(!cell.initialized());
            go.send(()).unwrap();
            assert_eq!(*init.await, 7);
            match cell.set(2) {
                Err(SetError::AlreadyInitializedError(v)) => assert_eq!(v, 2),
                other => panic!("expected AlreadyInitializedError, got {other:?}"),
            }
        });
    });
}

#[test]
fn mapped_guards_that_fail_to_map_give_the_guard_back() {
    limit("try_map", || {
        shim::runtime().block_on(async {
            let mutex = Mutex::new((1u8, 2u8));
            let guard = mutex.lock().await;
            let guard = MutexGuard::try_map(guard, |_| None::<&mut u8>).unwrap_err();
            assert_eq!(guard.0, 1);
            let mut mapped = MutexGuard::map(guard, |pair| &mut pair.1);
            *mapped = 9;
            assert!(mutex.try_lock().is_err());
            drop(mapped);
            assert_eq!(mutex.lock().await.1, 9);

            let lock = RwLock::new(vec![1, 2, 3]);
            let read = lock.read().await;
            let read = RwLockReadGuard::try_map(read, |v| v.get(5)).unwrap_err();
            let first = RwLockReadGuard::map(read, |v| &v[0]);
            assert_eq!(*first, 1);
            assert!(lock.try_write().is_err());
            assert!(lock.try_read().is_ok());
            drop(first);
            let write = lock.write().await;
            let mut last = RwLockWriteGuard::map(write, |v| v.last_mut().unwrap());
            *last = 30;
            drop(last);
            assert_eq!(*lock.read().await, vec![1, 2, 30]);
            assert_eq!(lock.into_inner(), vec![1, 2, 30]);
        });
    });
}

#[test]
fn a_write_guard_downgraded_lets_other_readers_in_but_not_writers() {
    limit("downgrade", || {
        shim::runtime().block_on(async {
            let lock = RwLock::new(5);
            let write = lock.write().await;
            assert!(lock.try_read().is_err());
            let read = write.downgrade();
            assert_eq!(*read, 5);
            assert_eq!(*lock.try_read().unwrap(), 5);
            assert!(lock.try_write().is_err());
            drop(read);
            assert!(lock.try_write().is_ok());
        });
    });
}

#[test]
fn watch_send_without_receivers_fails_and_stores_nothing() {
    limit("watch send no receivers", || {
        let (tx, rx) = watch::channel(1);
        drop(rx);
        let err = tx.send(2).unwrap_err();
        assert_eq!(err.0, 2);
        assert_eq!(*tx.borrow(), 1);
        let rx = tx.subscribe();
        assert_eq!(*rx.borrow(), 1);
        // Now there is a receiver again: send works.
        tx.send(3).unwrap();
        assert_eq!(*rx.borrow(), 3);
    });
}

#[test]
fn watch_send_replace_and_send_modify_store_without_receivers() {
    limit("watch send_replace", || {
        let (tx, rx) = watch::channel(1);
        drop(rx);
        assert_eq!(tx.send_replace(2), 1);
        tx.send_modify(|v| *v += 10);
        assert_eq!(*tx.borrow(), 12);
        assert!(!tx.send_if_modified(|_| false));
        assert!(tx.send_if_modified(|v| {
            *v = 13;
            true
        }));
        let rx = tx.subscribe();
        assert_eq!(*rx.borrow(), 13);
        assert!(!rx.has_changed().unwrap());
    });
}

#[test]
fn watch_send_if_modified_false_wakes_nobody_and_is_not_a_change() {
    limit("watch send_if_modified", || {
        shim::runtime().block_on(async {
            let (tx, mut rx) = watch::channel(0);
            {
                let mut changed = pin!(rx.changed());
                assert!(poll!(changed.as_mut()).is_pending());
                let modified = tx.send_if_modified(|v| {
                    *v = 5; // changed in place, but reported unchanged
                    false
                });
                assert!(!modified);
                assert!(poll!(changed.as_mut()).is_pending());
            }
            assert!(!rx.has_changed().unwrap());
            // The value did change, silently.
            assert_eq!(*rx.borrow(), 5);
            tx.send_if_modified(|v| {
                *v += 1;
                true
            });
            assert!(rx.has_changed().unwrap());
            assert_eq!(*rx.borrow_and_update(), 6);
        });
    });
}

#[test]
fn watch_ref_has_changed_says_whether_borrow_and_update_saw_something_new() {
    limit("watch Ref::has_changed", || {
        let (tx, mut rx) = watch::channel("a");
        assert!(!rx.borrow().has_changed());
        tx.send("b").unwrap();
        // borrow does not mark the value seen.
        assert!(rx.borrow().has_changed());
        assert!(rx.has_changed().unwrap());
        let seen = rx.borrow_and_update();
        assert!(seen.has_changed());
        assert_eq!(*seen, "b");
        drop(seen);
        assert!(!rx.borrow_and_update().has_changed());
        assert!(!rx.has_changed().unwrap());
    });
}

#[test]
fn watch_wait_for_marks_the_value_it_returns_as_seen() {
    limit("watch wait_for", || {
        shim::runtime().block_on(async {
            let (tx, mut rx) = watch::channel(0);
            let waiter = rt::spawn(async move {
                let got = *rx.wait_for(|v| *v >= 3).await.unwrap();
                (got, rx.has_changed().unwrap(), rx)
            });
            for i in 1..=3 {
                tx.send(i).unwrap();
                rt::task::yield_now().await;
            }
            let (got, changed, rx) = rt::time::timeout(PATIENCE, waiter)
                .await
                .expect("wait_for did not see 3")
                .unwrap();
            assert_eq!(got, 3);
            assert!(!changed);
            drop(tx);
            let mut rx = rx;
            assert!(rx.changed().await.is_err());
            // The current value still satisfies it: Ok even though closed.
            assert_eq!(*rx.wait_for(|v| *v == 3).await.unwrap(), 3);
            assert!(rx.wait_for(|v| *v == 4).await.is_err());
        });
    });
}

#[test]
fn watch_sender_closed_is_ready_at_once_without_receivers() {
    limit("watch closed", || {
        shim::runtime().block_on(async {
            let (tx, rx) = watch::channel(());
            let rx2 = rx.clone();
            assert_eq!(tx.receiver_count(), 2);
            let mut closed = pin!(tx.closed());
            assert!(poll!(closed.as_mut()).is_pending());
            drop(rx);
            assert!(poll!(closed.as_mut()).is_pending());
            drop(rx2);
            rt::time::timeout(PATIENCE, closed)
                .await
                .expect("closed did not complete");
            assert!(tx.is_closed());
            assert_eq!(tx.receiver_count(), 0);
            assert!(tx.closed().now_or_never().is_some());
        });
    });
}

#[test]
fn broadcast_lagged_counts_the_values_lost_and_resumes_at_the_oldest_kept() {
    limit("broadcast lagged count", || {
        shim::runtime().block_on(async {
            let (tx, mut rx) = broadcast::channel(4);
            for i in 0..10 {
                tx.send(i).unwrap();
            }
            match rx.recv().await {
                Err(broadcast::error::RecvError::Lagged(n)) => assert_eq!(n, 6),
                other => panic!("expected Lagged(6), got {other:?}"),
            }
            for want in 6..10 {
                assert_eq!(rx.recv().await.unwrap(), want);
            }
            assert!(matches!(
                rx.try_recv(),
                Err(broadcast::error::TryRecvError::Empty)
            ));
            // A second lag after catching up counts only the new loss.
            for i in 10..15 {
                tx.send(i).unwrap();
            }
            match rx.try_recv() {
                Err(broadcast::error::TryRecvError::Lagged(n)) => assert_eq!(n, 1),
                other => panic!("expected Lagged(1), got {other:?}"),
            }
            assert_eq!(rx.try_recv().unwrap(), 11);
        });
    });
}

#[test]
fn broadcast_send_counts_receivers_and_fails_with_none() {
    limit("broadcast send count", || {
        let (tx, rx) = broadcast::channel::<&str>(2);
        let rx2 = tx.subscribe();
        assert_eq!(tx.send("a").unwrap(), 2);
        drop(rx);
        assert_eq!(tx.send("b").unwrap(), 1);
        drop(rx2);
        let err = tx.send("c").unwrap_err();
        assert_eq!(err.0, "c");
        assert_eq!(err.to_string(), "channel closed");
        assert_eq!(tx.receiver_count(), 0);
        // A later subscriber sees only what is sent after it.
        let mut rx3 = tx.subscribe();
        assert!(rx3.try_recv().is_err());
        tx.send("d").unwrap();
        assert_eq!(rx3.try_recv().unwrap(), "d");
    });
}

#[test]
fn broadcast_len_forgets_values_only_a_dropped_receiver_had_not_read() {
    limit("broadcast len drop", || {
        let (tx, mut rx1) = broadcast::channel(8);
        let rx2 = tx.subscribe();
        tx.send(1).unwrap();
        tx.send(2).unwrap();
        assert_eq!(rx1.try_recv().unwrap(), 1);
        assert_eq!(rx1.try_recv().unwrap(), 2);
        assert_eq!(tx.len(), 2);
        assert_eq!(rx2.len(), 2);
        drop(rx2);
        assert_eq!(tx.len(), 0);
        assert!(tx.is_empty());
    });
}

#[test]
fn broadcast_receivers_drain_after_the_sender_goes_then_see_closed() {
    limit("broadcast closed drain", || {
        shim::runtime().block_on(async {
            let (tx, mut rx) = broadcast::channel(4);
            let mut other = rx.resubscribe();
            tx.send(1).unwrap();
            assert!(!rx.is_closed());
            drop(tx);
            assert!(rx.is_closed());
            assert_eq!(rx.recv().await.unwrap(), 1);
            assert!(matches!(
                rx.recv().await,
                Err(broadcast::error::RecvError::Closed)
            ));
            assert_eq!(other.recv().await.unwrap(), 1);
            assert!(matches!(
                other.try_recv(),
                Err(broadcast::error::TryRecvError::Closed)
            ));
        });
    });
}

#[test]
fn broadcast_weak_senders_do_not_keep_the_channel_open() {
    limit("broadcast weak", || {
        shim::runtime().block_on(async {
            let (tx, mut rx) = broadcast::channel::<u8>(4);
            let weak = tx.downgrade();
            assert_eq!(tx.strong_count(), 1);
            assert_eq!(tx.weak_count(), 1);
            assert_eq!(rx.sender_strong_count(), 1);
            assert_eq!(rx.sender_weak_count(), 1);
            let again = weak.upgrade().unwrap();
            assert_eq!(tx.strong_count(), 2);
            drop(again);
            drop(tx);
            assert!(weak.upgrade().is_none());
            assert!(matches!(
                rx.recv().await,
                Err(broadcast::error::RecvError::Closed)
            ));
        });
    });
}

#[test]
fn mpsc_reserve_many_beyond_max_capacity_fails_and_permits_count_down() {
    limit("mpsc reserve_many", || {
        shim::runtime().block_on(async {
            let (tx, mut rx) = mpsc::channel::<u8>(3);
            assert!(tx.reserve_many(4).await.is_err());
            assert!(matches!(
                tx.try_reserve_many(4),
                Err(mpsc::error::TrySendError::Full(()))
            ));
            let mut permits = tx.reserve_many(3).await.unwrap();
            assert_eq!(permits.len(), 3);
            assert_eq!(tx.capacity(), 0);
            permits.next().unwrap().send(1);
            assert_eq!(permits.len(), 2);
            drop(permits);
            // The two unused permits came back.
            assert_eq!(tx.capacity(), 2);
            assert_eq!(rx.recv().await, Some(1));
            assert_eq!(tx.capacity(), 3);
            let empty = tx.reserve_many(0).await.unwrap();
            assert_eq!(empty.len(), 0);
        });
    });
}

#[test]
fn mpsc_try_reserve_is_full_then_closed() {
    limit("mpsc try_reserve", || {
        let (tx, mut rx) = mpsc::channel::<u8>(1);
        let permit = tx.try_reserve().unwrap();
        assert!(matches!(
            tx.try_reserve(),
            Err(mpsc::error::TrySendError::Full(()))
        ));
        permit.send(5);
        rx.close();
        assert!(matches!(
            tx.try_reserve(),
            Err(mpsc::error::TrySendError::Closed(()))
        ));
        match tx.clone().try_reserve_owned() {
            Err(mpsc::error::TrySendError::Closed(sender)) => assert!(sender.is_closed()),
            other => panic!("expected Closed, got {:?}", other.map(|_| ())),
        }
        assert_eq!(rx.try_recv().unwrap(), 5);
    });
}

#[test]
fn mpsc_receiver_is_closed_once_every_sender_is_gone_even_with_values_queued() {
    limit("mpsc is_closed", || {
        shim::runtime().block_on(async {
            let (tx, mut rx) = mpsc::channel::<u8>(4);
            let weak = tx.downgrade();
            tx.send(1).await.unwrap();
            assert!(!rx.is_closed());
            assert_eq!(rx.len(), 1);
            drop(tx);
            assert!(rx.is_closed());
            assert!(!rx.is_empty());
            assert!(weak.upgrade().is_none());
            let mut buf = vec![0];
            assert_eq!(rx.recv_many(&mut buf, 10).await, 1);
            assert_eq!(buf, vec![0, 1]);
            assert_eq!(rx.recv_many(&mut buf, 10).await, 0);
            assert_eq!(rx.recv().await, None);
        });
    });
}

#[test]
fn mpsc_unbounded_len_and_send_after_the_receiver_is_dropped() {
    limit("unbounded", || {
        shim::runtime().block_on(async {
            let (tx, mut rx) = mpsc::unbounded_channel::<String>();
            for i in 0..5 {
                tx.send(i.to_string()).unwrap();
            }
            assert_eq!(rx.len(), 5);
            let mut buf = Vec::new();
            assert_eq!(rx.recv_many(&mut buf, 3).await, 3);
            assert_eq!(buf, ["0", "1", "2"]);
            assert_eq!(rx.len(), 2);
            drop(rx);
            assert!(tx.is_closed());
            let err = tx.send("late".to_string()).unwrap_err();
            assert_eq!(err.0, "late");
            assert_eq!(err.to_string(), "channel closed");
        });
    });
}

#[test]
fn oneshot_try_recv_that_took_the_value_terminates_the_receiver() {
    limit("oneshot try_recv terminates", || {
        let (tx, mut rx) = oneshot::channel::<u8>();
        assert!(!rx.is_terminated());
        assert!(rx.is_empty());
        tx.send(4).unwrap();
        assert!(!rx.is_empty());
        assert_eq!(rx.try_recv().unwrap(), 4);
        assert!(rx.is_terminated());
        assert!(rx.is_empty());
        assert!(matches!(
            rx.try_recv(),
            Err(oneshot::error::TryRecvError::Closed)
        ));

        let (tx, mut rx) = oneshot::channel::<u8>();
        drop(tx);
        assert!(!rx.is_terminated());
        assert!(matches!(
            rx.try_recv(),
            Err(oneshot::error::TryRecvError::Closed)
        ));
        assert!(rx.is_terminated());
    });
}

#[test]
fn oneshot_poll_closed_is_pending_until_the_receiver_goes() {
    limit("oneshot poll_closed", || {
        shim::runtime().block_on(async {
            let (mut tx, rx) = oneshot::channel::<u8>();
            assert!(
                futures::future::poll_fn(|cx| Poll::Ready(tx.poll_closed(cx)))
                    .await
                    .is_pending()
            );
            assert!(!tx.is_closed());
            let closer = rt::spawn(async move {
                rt::task::yield_now().await;
                drop(rx);
            });
            rt::time::timeout(PATIENCE, tx.closed())
                .await
                .expect("closed did not complete");
            assert!(tx.is_closed());
            closer.await.unwrap();
            assert_eq!(tx.send(1), Err(1));
        });
    });
}

#[test]
fn mpsc_try_recv_after_close_is_empty_while_a_permit_is_outstanding() {
    limit("mpsc close with permit", || {
        shim::runtime().block_on(async {
            let (tx, mut rx) = mpsc::channel::<u8>(2);
            let permit = tx.reserve().await.unwrap();
            rx.close();
            assert!(matches!(
                rx.try_recv(),
                Err(mpsc::error::TryRecvError::Empty)
            ));
            permit.send(1);
            assert_eq!(rx.try_recv().unwrap(), 1);
            assert!(matches!(
                rx.try_recv(),
                Err(mpsc::error::TryRecvError::Disconnected)
            ));
        });
    });
}

#[test]
fn a_waiter_closed_out_gives_back_the_permits_it_had_been_assigned() {
    limit("close returns partial share", || {
        shim::runtime().block_on(async {
            let semaphore = Arc::new(Semaphore::new(1));
            let waiter = rt::spawn(semaphore.clone().acquire_many_owned(3));
            while semaphore.available_permits() != 0 {
                rt::task::yield_now().await;
            }
            semaphore.close();
            let result = rt::time::timeout(PATIENCE, waiter)
                .await
                .expect("the waiter was not woken by close")
                .unwrap();
            let err = result.unwrap_err();
            assert_eq!(err.to_string(), "semaphore closed");
            assert_eq!(semaphore.available_permits(), 1);
            assert!(semaphore.acquire().await.is_err());
        });
    });
}

#[test]
fn write_buf_takes_what_a_small_duplex_has_room_for_and_advances() {
    limit("write_buf partial", || {
        shim::runtime().block_on(async {
            let (mut a, mut b) = rt::io::duplex(3);
            let mut src = &b"abcdef"[..];
            assert_eq!(a.write_buf(&mut src).await.unwrap(), 3);
            assert_eq!(src, b"def");
            let reader = rt::spawn(async move {
                let mut all = Vec::new();
                b.read_to_end(&mut all).await.map(|_| all)
            });
            let mut rest = bytes::Bytes::from_static(b"def-ghi");
            a.write_all_buf(&mut rest).await.unwrap();
            assert!(rest.is_empty());
            drop(a);
            let all = rt::time::timeout(PATIENCE, reader)
                .await
                .expect("the reader did not end")
                .unwrap()
                .unwrap();
            assert_eq!(all, b"abcdef-ghi");
        });
    });
}

#[test]
fn read_until_on_a_small_buffer_gathers_a_line_across_refills() {
    limit("read_until refills", || {
        shim::runtime().block_on(async {
            let (mut a, b) = rt::io::duplex(64);
            let mut reader = BufReader::with_capacity(2, b);
            a.write_all(b"abcdefg;hi").await.unwrap();
            drop(a);
            let mut out = Vec::new();
            assert_eq!(reader.read_until(b';', &mut out).await.unwrap(), 8);
            assert_eq!(out, b"abcdefg;");
            out.clear();
            assert_eq!(reader.read_until(b';', &mut out).await.unwrap(), 2);
            assert_eq!(out, b"hi");
            assert_eq!(reader.read_until(b';', &mut out).await.unwrap(), 0);
        });
    });
}

#[test]
fn set_once_refuses_a_second_value_and_wakes_every_waiter() {
    limit("SetOnce", || {
        shim::runtime().block_on(async {
            let cell = Arc::new(rt::sync::SetOnce::<String>::new());
            assert!(cell.get().is_none());
            assert!(!cell.initialized());
            let waiters: Vec<_> = (0..3)
                .map(|_| {
                    let cell = cell.clone();
                    rt::spawn(async move { cell.wait().await.clone() })
                })
                .collect();
            rt::task::yield_now().await;
            cell.set("one".to_string()).unwrap();
            let err = cell.set("two".to_string()).unwrap_err();
            assert_eq!(err.0, "two");
            assert_eq!(err.to_string(), "SetOnceError");
            for waiter in waiters {
                let got = rt::time::timeout(PATIENCE, waiter)
                    .await
                    .expect("a waiter was not woken")
                    .unwrap();
                assert_eq!(got, "one");
            }
            assert!(cell.initialized());
            let cell = Arc::try_unwrap(cell).unwrap();
            assert_eq!(cell.into_inner().as_deref(), Some("one"));
        });
    });
}

#[test]
fn oneshot_close_then_try_recv_is_closed_and_terminates() {
    limit("oneshot close try_recv", || {
        let (tx, mut rx) = oneshot::channel::<u8>();
        rx.close();
        assert!(tx.is_closed());
        assert!(matches!(
            rx.try_recv(),
            Err(oneshot::error::TryRecvError::Closed)
        ));
        assert!(rx.is_terminated());
        assert_eq!(tx.send(3), Err(3));
    });
}

#[test]
fn owned_mutex_guards_move_into_tasks_and_hand_the_lock_on_in_order() {
    limit("lock_owned", || {
        shim::runtime().block_on(async {
            let mutex = Arc::new(Mutex::new(Vec::new()));
            let guard = mutex.clone().lock_owned().await;
            assert!(Arc::ptr_eq(
                rt::sync::OwnedMutexGuard::mutex(&guard),
                &mutex
            ));
            // Each locker is polled once here, in order, so that it is in
            // the line before the next one; then it moves into a task.
            let mut tasks = Vec::new();
            for i in 0..3 {
                let shared = mutex.clone();
                let mut locker = Box::pin(async move {
                    shared.lock_owned().await.push(i);
                });
                assert!(futures::poll!(locker.as_mut()).is_pending());
                tasks.push(rt::spawn(locker));
            }
            assert!(mutex.try_lock().is_err());
            drop(guard);
            for task in tasks {
                rt::time::timeout(PATIENCE, task)
                    .await
                    .expect("a locker did not finish")
                    .unwrap();
            }
            assert_eq!(*mutex.lock().await, vec![0, 1, 2]);
        });
    });
}
