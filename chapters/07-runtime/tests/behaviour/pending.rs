//! Tests of Tokio APIs that `rt` does not have yet. They compile against
//! Tokio only (behaviour_tokio.rs includes this file; behaviour_rt.rs has
//! the line commented out). Each test names the API it needs:
//!
//! * `Runtime::shutdown_timeout(self, Duration)`
//! * `Runtime::shutdown_background(self)`
//! * `mpsc::Sender::closed(&self) -> impl Future<Output = ()>`
//! * `mpsc::Sender::capacity(&self) -> usize`, `max_capacity(&self) -> usize`
//! * `time::MissedTickBehavior` and `Interval::missed_tick_behavior(&self)`
//! * `TcpStream::readable(&self) -> io::Result<()>` and
//!   `TcpStream::try_read(&self, &mut [u8]) -> io::Result<usize>`

use super::behaviour::limit;
use crate::{rt, shim};
use rt::sync::mpsc;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

const PATIENCE: Duration = Duration::from_secs(5);

#[test]
fn shutdown_timeout_returns_while_a_blocking_job_still_runs() {
    limit("shutdown_timeout", || {
        let runtime = shim::runtime();
        let (release_tx, release_rx) = std::sync::mpsc::channel::<()>();
        let (started_tx, started_rx) = std::sync::mpsc::channel();
        runtime.spawn_blocking(move || {
            started_tx.send(()).unwrap();
            let _ = release_rx.recv();
        });
        started_rx.recv().unwrap();
        let start = Instant::now();
        runtime.shutdown_timeout(Duration::from_millis(100));
        // It gave up on the job: well before the job could have ended.
        assert!(start.elapsed() < Duration::from_secs(10));
        drop(release_tx);
    });
}

#[test]
fn shutdown_timeout_cancels_pending_tasks() {
    limit("shutdown_timeout cancels", || {
        let runtime = shim::runtime();
        let handle = runtime.spawn(std::future::pending::<()>());
        runtime.shutdown_timeout(Duration::from_secs(1));
        assert!(futures::executor::block_on(handle).unwrap_err().is_cancelled());
    });
}

#[test]
fn shutdown_background_returns_without_waiting_for_a_blocking_job() {
    limit("shutdown_background", || {
        let runtime = shim::runtime();
        let (release_tx, release_rx) = std::sync::mpsc::channel::<()>();
        let (started_tx, started_rx) = std::sync::mpsc::channel();
        let done = Arc::new(AtomicBool::new(false));
        let d2 = done.clone();
        runtime.spawn_blocking(move || {
            started_tx.send(()).unwrap();
            let _ = release_rx.recv();
            d2.store(true, Ordering::SeqCst);
        });
        started_rx.recv().unwrap();
        runtime.shutdown_background();
        assert!(!done.load(Ordering::SeqCst));
        drop(release_tx);
    });
}

#[test]
fn mpsc_sender_closed_resolves_when_the_receiver_drops() {
    limit("mpsc Sender::closed", || {
        let runtime = shim::runtime();
        runtime.block_on(async {
            let (tx, rx) = mpsc::channel::<u8>(1);
            let waiter = rt::spawn(async move { tx.closed().await });
            rt::time::sleep(Duration::from_millis(10)).await;
            assert!(!waiter.is_finished());
            drop(rx);
            rt::time::timeout(PATIENCE, waiter).await.expect("closed() not woken").unwrap();
        });
    });
}

#[test]
fn mpsc_capacity_counts_free_slots_and_max_capacity_is_fixed() {
    let (tx, mut rx) = mpsc::channel::<u8>(3);
    assert_eq!(tx.capacity(), 3);
    assert_eq!(tx.max_capacity(), 3);
    tx.try_send(1).unwrap();
    assert_eq!(tx.capacity(), 2);
    assert_eq!(tx.max_capacity(), 3);
    rx.try_recv().unwrap();
    assert_eq!(tx.capacity(), 3);
}

#[test]
fn interval_missed_tick_behaviour_defaults_to_burst() {
    limit("MissedTickBehavior default", || {
        let runtime = shim::runtime();
        runtime.block_on(async {
            let interval = rt::time::interval(Duration::from_millis(10));
            assert_eq!(interval.missed_tick_behavior(), rt::time::MissedTickBehavior::Burst);
        });
    });
}

#[test]
fn interval_bursts_after_a_stall_by_default() {
    limit("interval burst", || {
        let runtime = shim::runtime();
        runtime.block_on(async {
            let period = Duration::from_millis(10);
            let mut interval = rt::time::interval(period);
            let first = interval.tick().await;
            std::thread::sleep(period * 5);
            // Burst: the missed ticks come at once, at their scheduled instants.
            let second = interval.tick().await;
            let third = interval.tick().await;
            assert_eq!(second - first, period);
            assert_eq!(third - second, period);
        });
    });
}

#[test]
fn two_tasks_waiting_readable_on_one_stream_are_both_woken() {
    limit("two readable waiters", || {
        let runtime = shim::runtime();
        runtime.block_on(async {
            let listener = rt::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            let addr = listener.local_addr().unwrap();
            let client = Arc::new(rt::net::TcpStream::connect(addr).await.unwrap());
            let (mut server, _) = listener.accept().await.unwrap();
            let waiters: Vec<_> = (0..2)
                .map(|_| {
                    let client = client.clone();
                    rt::spawn(async move { client.readable().await })
                })
                .collect();
            rt::time::sleep(Duration::from_millis(30)).await;
            shim::write_all(&mut server, b"x").await.unwrap();
            for (i, w) in waiters.into_iter().enumerate() {
                rt::time::timeout(PATIENCE, w)
                    .await
                    .unwrap_or_else(|_| panic!("readable waiter {i} was not woken"))
                    .unwrap()
                    .unwrap();
            }
            let mut buf = [0u8; 4];
            assert_eq!(client.try_read(&mut buf).unwrap(), 1);
        });
    });
}
