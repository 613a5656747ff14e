//! The I/O driver never overflows a worker's ring.
//!
//! A driver turn takes at most `EVENTS_PER_TURN` (128) events from the
//! kernel, and a busy worker turns it only when its ring has that much room,
//! so the tasks the events wake always fit in the ring. Had they overflowed,
//! half the ring's tasks would move to the inject queue, which a worker
//! kept busy by its own ring takes only one task from every 31 ticks: under
//! a steady load those tasks wait far longer than any other (Chapter 7.9's
//! echo race measured p99 latencies of about 100 ms on one worker that
//! way). The events that do not fit wait in the kernel's ready list, oldest
//! first.
//!
//! The test makes 300 sockets ready at once (more than a ring of 256 holds)
//! while the only worker is held in a poll, then lets it go, and checks that
//! every socket is answered and that the ring never overflowed. With the
//! driver taking up to 1,024 events a turn, as Tokio's does, the first turn
//! after the hold wakes all 300 tasks and the ring overflows.
//!
//! Book: Chapter 7, "The I/O driver" (7.3).
#![cfg(not(loom))]
#![cfg(not(miri))]

use futures::io::{AsyncReadExt, AsyncWriteExt};
use rt::net::TcpStream;
use std::io::{Read, Write};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// More sockets than a ring holds, and more than two turns bring.
const SOCKETS: usize = 300;

/// How long any one step may take before the test fails (never a
/// measurement: only a bound on a broken run).
const PATIENCE: Duration = Duration::from_secs(20);

fn wait_until(what: &str, done: impl Fn() -> bool) {
    let deadline = Instant::now() + PATIENCE;
    while !done() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(1));
    }
}

#[test]
fn a_burst_of_ready_sockets_never_overflows_the_ring() {
    let rt = rt::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .build()
        .expect("build a runtime");
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let addr = listener.local_addr().expect("local address");
    let mut clients = Vec::with_capacity(SOCKETS);
    let waiting = Arc::new(AtomicUsize::new(0));
    let echoed = Arc::new(AtomicUsize::new(0));
    for _ in 0..SOCKETS {
        let client = std::net::TcpStream::connect(addr).expect("connect");
        client
            .set_read_timeout(Some(PATIENCE))
            .expect("read timeout");
        let (server, _) = listener.accept().expect("accept");
        server.set_nonblocking(true).expect("non-blocking");
        clients.push(client);
        let (waiting, echoed) = (waiting.clone(), echoed.clone());
        // Each task waits for one byte and sends it back.
        rt.spawn(async move {
            let mut stream = TcpStream::from_std(server).expect("register");
            waiting.fetch_add(1, Ordering::SeqCst);
            let mut byte = [0u8; 1];
            stream.read_exact(&mut byte).await.expect("read");
            stream.write_all(&byte).await.expect("write");
            echoed.fetch_add(1, Ordering::SeqCst);
        });
    }
    wait_until("every task to wait for its byte", || {
        waiting.load(Ordering::SeqCst) == SOCKETS
    });

    // Hold the worker in a poll while every socket becomes ready, so that
    // its next turn of the driver finds all of them ready at once.
    let (started_tx, started_rx) = mpsc::channel();
    let (gate_tx, gate_rx) = mpsc::channel::<()>();
    rt.spawn(async move {
        started_tx.send(()).expect("the test waits");
        let _ = gate_rx.recv_timeout(PATIENCE);
    });
    started_rx
        .recv_timeout(PATIENCE)
        .expect("the worker never ran the task that holds it");
    for (i, client) in clients.iter_mut().enumerate() {
        client.write_all(&[i as u8]).expect("write");
    }
    gate_tx.send(()).expect("the worker waits");

    for (i, client) in clients.iter_mut().enumerate() {
        let mut byte = [0u8; 1];
        client.read_exact(&mut byte).expect("the echo came back");
        assert_eq!(byte[0], i as u8, "socket {i} echoed another byte");
    }
    wait_until("every task to finish", || {
        echoed.load(Ordering::SeqCst) == SOCKETS
    });
    assert_eq!(
        rt.metrics().worker_overflow_count(0),
        0,
        "the driver woke more tasks than the ring holds"
    );
}
