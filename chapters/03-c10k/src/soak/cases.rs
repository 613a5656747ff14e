//! The clients a server meets in the wild, each as a function: resets,
//! half-closes, slow writers and readers, idle connections, pipelined
//! requests, and more connections than the server has descriptors.
//!
//! Each case uses plain blocking sockets with time limits, from its own
//! thread: the soak is about the server, and a blocking client is the easiest
//! to read. Every case that expects a reply checks every byte of it through
//! [`Conn`], which counts what it verified and what it lost in the [`Tally`].

use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::thread;
use std::time::{Duration, Instant};

use super::exchange::{Conn, Pace, Protocol, Tally};

/// Time limit on each connect, read and write of a misbehaving client.
pub const IO_TIMEOUT: Duration = Duration::from_secs(20);

/// Payload of a reset request: large enough that the reset lands with bytes
/// in flight both ways.
const RESET_BYTES: usize = 48 * 1024;

/// Payload of a slow writer's request, written one byte per
/// [`SLOW_PAUSE`].
const SLOW_WRITE_BYTES: usize = 300;

/// Payload of a slow reader's request, read [`SLOW_READ_CHUNK`] bytes per
/// [`SLOW_PAUSE`]: small enough to fit the socket buffers both ways, so the
/// writer never waits on the reader.
const SLOW_READ_BYTES: usize = 24 * 1024;

/// Payload of a bulk request read slowly: several times what the socket
/// buffers between writer and reader hold (they grow to about 9 MiB on
/// loopback here; the report's "most bytes ahead" shows it), so the
/// server's writes fill them and it must wait.
const BULK_BYTES: usize = 32 * 1024 * 1024;

/// Bytes per read of the bulk request's reader: 32 MiB in 1,024 reads.
const BULK_READ_CHUNK: usize = 32 * 1024;

/// Bytes per read of a slow reader.
const SLOW_READ_CHUNK: usize = 16;

/// The pause of slow clients between bytes or reads.
const SLOW_PAUSE: Duration = Duration::from_millis(1);

/// Requests per pipelined batch.
const PIPELINE_DEPTH: usize = 4;

/// One exhaustion client in this many resets instead of waiting.
const RESET_EVERY: usize = 8;

/// Stack of each exhaustion client thread: it only reads and writes a few
/// hundred bytes.
const CLIENT_STACK: usize = 64 * 1024;

/// Payload of each request of the exhaustion case and of idle connections.
const SMALL_BYTES: usize = 100;

/// A payload size that varies with `i` between 1 byte and about 16 KiB, so
/// requests split differently across reads and writes.
pub fn varied_len(i: u64) -> usize {
    const SIZES: [usize; 7] = [1, 7, 100, 1_000, 4_096, 9_999, 16_000];
    SIZES[(i % SIZES.len() as u64) as usize]
}

/// A reset: part of a request, then close with RST.
pub fn reset(addr: SocketAddr, protocol: Protocol, tally: &Tally) {
    let result = Conn::open(addr, protocol, IO_TIMEOUT, tally).and_then(|mut conn| {
        conn.send_part(RESET_BYTES, RESET_BYTES / 2)?;
        // Let the server start echoing, so the reset finds bytes both ways.
        thread::sleep(Duration::from_millis(1));
        conn.reset()
    });
    match result {
        Ok(()) => Tally::add(&tally.resets, 1),
        Err(err) => tally.error(format!("reset case: {err}")),
    }
}

/// A half-close (echo): send, shut down writing, read the whole echo, then
/// the server's end of file.
pub fn half_close(addr: SocketAddr, len: usize, tally: &Tally) {
    let result = Conn::open(addr, Protocol::Echo, IO_TIMEOUT, tally).and_then(|mut conn| {
        let pending = conn.send(len, Pace::FAST, tally)?;
        conn.half_close()?;
        conn.receive(pending, Pace::FAST, tally)?;
        conn.expect_end()
    });
    match result {
        Ok(()) => Tally::add(&tally.half_closes, 1),
        Err(err) => tally.error(format!("half-close case: {err}")),
    }
}

/// Pipelining (HTTP): several requests written before any reply is read.
pub fn pipelined(addr: SocketAddr, tally: &Tally) {
    let result = Conn::open(addr, Protocol::Http, IO_TIMEOUT, tally).and_then(|mut conn| {
        let mut pending = Vec::with_capacity(PIPELINE_DEPTH);
        for i in 0..PIPELINE_DEPTH {
            pending.push(conn.send(varied_len(i as u64), Pace::FAST, tally)?);
        }
        for request in pending {
            conn.receive(request, Pace::FAST, tally)?;
        }
        Ok(())
    });
    match result {
        Ok(()) => Tally::add(&tally.pipelined, 1),
        Err(err) => tally.error(format!("pipelining case: {err}")),
    }
}

/// A slow writer: the request one byte at a time.
pub fn slow_writer(addr: SocketAddr, protocol: Protocol, tally: &Tally) {
    let pace = Pace {
        chunk: 1,
        pause: SLOW_PAUSE,
    };
    let result = Conn::open(addr, protocol, IO_TIMEOUT, tally)
        .and_then(|mut conn| conn.round_trip(SLOW_WRITE_BYTES, pace, tally));
    match result {
        Ok(()) => Tally::add(&tally.slow, 1),
        Err(err) => tally.error(format!("slow writer case: {err}")),
    }
}

/// A slow reader: a request sent at once, its reply read a few bytes at a
/// time.
pub fn slow_reader(addr: SocketAddr, protocol: Protocol, tally: &Tally) {
    let pace = Pace {
        chunk: SLOW_READ_CHUNK,
        pause: SLOW_PAUSE,
    };
    let result = Conn::open(addr, protocol, IO_TIMEOUT, tally).and_then(|mut conn| {
        let pending = conn.send(SLOW_READ_BYTES, Pace::FAST, tally)?;
        conn.receive(pending, pace, tally)
    });
    match result {
        Ok(()) => Tally::add(&tally.slow, 1),
        Err(err) => tally.error(format!("slow reader case: {err}")),
    }
}

/// A bulk request against a slow reader: [`BULK_BYTES`] written by one
/// thread while another reads the reply [`BULK_READ_CHUNK`] bytes per
/// [`SLOW_PAUSE`]. More than the socket buffers hold, so the server must
/// stop and wait for the reader (back-pressure).
pub fn bulk_slow_reader(addr: SocketAddr, protocol: Protocol, tally: &Tally) {
    let pace = Pace {
        chunk: BULK_READ_CHUNK,
        pause: SLOW_PAUSE,
    };
    let result = Conn::open(addr, protocol, IO_TIMEOUT, tally)
        .and_then(|mut conn| conn.round_trip_while_writing(BULK_BYTES, pace, tally));
    match result {
        Ok(()) => Tally::add(&tally.slow, 1),
        Err(err) => tally.error(format!("bulk slow reader case: {err}")),
    }
}

/// Runs the fast misbehaving cases (resets and half-closes, or pipelining)
/// in a loop until `stop`.
pub fn fast_misbehaver(addr: SocketAddr, protocol: Protocol, tally: &Tally, stop: &AtomicBool) {
    let mut i = 0u64;
    while !stop.load(Ordering::Relaxed) {
        match (i % 2, protocol) {
            (0, _) => reset(addr, protocol, tally),
            (_, Protocol::Echo) => half_close(addr, varied_len(i), tally),
            (_, Protocol::Http) => pipelined(addr, tally),
        }
        i += 1;
        thread::sleep(Duration::from_millis(5));
    }
}

/// Runs the slow cases in a loop until `stop`.
pub fn slow_misbehaver(addr: SocketAddr, protocol: Protocol, tally: &Tally, stop: &AtomicBool) {
    let mut i = 0u64;
    while !stop.load(Ordering::Relaxed) {
        match i % 3 {
            0 => slow_writer(addr, protocol, tally),
            1 => slow_reader(addr, protocol, tally),
            _ => bulk_slow_reader(addr, protocol, tally),
        }
        i += 1;
    }
}

/// Idle clients: `n` connections that send nothing until [`use_idle`]
/// checks that each still works.
pub fn open_idle(addr: SocketAddr, protocol: Protocol, n: usize, tally: &Tally) -> Vec<Conn> {
    let mut conns = Vec::with_capacity(n);
    for _ in 0..n {
        match Conn::open(addr, protocol, IO_TIMEOUT, tally) {
            Ok(conn) => conns.push(conn),
            Err(err) => tally.error(format!("idle case, connecting: {err}")),
        }
    }
    conns
}

/// After holding them idle: each connection must still work.
pub fn use_idle(conns: Vec<Conn>, tally: &Tally) {
    for mut conn in conns {
        match conn.round_trip(SMALL_BYTES, Pace::FAST, tally) {
            Ok(()) => Tally::add(&tally.idle, 1),
            Err(err) => tally.error(format!("idle case, after idling: {err}")),
        }
    }
}

/// HTTP keep-alive clients: `clients` connections, each sending requests one
/// after the other, `rate` requests per second in all, until `stop`.
pub fn keep_alive(addr: SocketAddr, clients: usize, rate: f64, tally: &Tally, stop: &AtomicBool) {
    let interval = Duration::from_secs_f64(clients as f64 / rate.max(1.0));
    thread::scope(|scope| {
        for c in 0..clients {
            scope.spawn(move || {
                let mut conn = match Conn::open(addr, Protocol::Http, IO_TIMEOUT, tally) {
                    Ok(conn) => conn,
                    Err(err) => return tally.error(format!("keep-alive, connecting: {err}")),
                };
                let mut i = c as u64;
                let mut next = Instant::now();
                while !stop.load(Ordering::Relaxed) {
                    if conn.round_trip(varied_len(i), Pace::FAST, tally).is_err() {
                        return;
                    }
                    Tally::add(&tally.clean, 1);
                    i += 1;
                    next += interval;
                    if let Some(wait) = next.checked_duration_since(Instant::now()) {
                        thread::sleep(wait);
                    }
                }
            });
        }
    });
}

/// What the exhaustion case saw.
#[derive(Debug, Default, Clone, Copy)]
pub struct Exhaustion {
    /// Connections opened at once that waited for their reply.
    pub opened: usize,
    /// Of which answered in full.
    pub answered: usize,
}

/// Descriptor exhaustion: `n` connections (more than the server may hold)
/// opened and sent a request each; only when all are open (or have failed)
/// does any client read its reply and close. One in [`RESET_EVERY`] resets
/// at once instead, while the server is out of descriptors. The server must serve those
/// it holds, and then, as they close and free descriptors, the ones that
/// waited in its accept queue.
/// `at_limit` runs once every connection is open and before any is read:
/// the moment the server holds the most descriptors.
pub fn exhaustion(
    addr: SocketAddr,
    protocol: Protocol,
    n: usize,
    tally: &Tally,
    at_limit: &mut dyn FnMut(),
) -> Exhaustion {
    let ready = AtomicUsize::new(0);
    let go = AtomicBool::new(false);
    let answered = AtomicUsize::new(0);
    thread::scope(|scope| {
        let mut started = 0;
        for i in 0..n {
            let (ready, go, answered) = (&ready, &go, &answered);
            let spawned = thread::Builder::new()
                .stack_size(CLIENT_STACK)
                .spawn_scoped(scope, move || {
                    if i % RESET_EVERY == RESET_EVERY - 1 {
                        // Gone before the server may accept it: accept hands
                        // the server a connection that is already reset.
                        reset(addr, protocol, tally);
                        ready.fetch_add(1, Ordering::AcqRel);
                        return;
                    }
                    let conn =
                        Conn::open(addr, protocol, IO_TIMEOUT, tally).and_then(|mut conn| {
                            let pending = conn.send(SMALL_BYTES, Pace::FAST, tally)?;
                            Ok((conn, pending))
                        });
                    ready.fetch_add(1, Ordering::AcqRel);
                    while !go.load(Ordering::Acquire) {
                        thread::sleep(Duration::from_millis(1));
                    }
                    match conn {
                        Ok((mut conn, pending)) => {
                            if conn.receive(pending, Pace::FAST, tally).is_ok() {
                                answered.fetch_add(1, Ordering::Relaxed);
                            }
                        }
                        Err(err) => tally.error(format!("exhaustion case, connecting: {err}")),
                    }
                });
            match spawned {
                Ok(_) => started += 1,
                Err(err) => {
                    tally.error(format!("exhaustion case, starting a client: {err}"));
                    break;
                }
            }
        }
        // Connects have their own time limit, so this wait is bounded too.
        let deadline = Instant::now() + IO_TIMEOUT * 2;
        while ready.load(Ordering::Acquire) < started && Instant::now() < deadline {
            thread::sleep(Duration::from_millis(5));
        }
        // Hold them all a moment: the server sits at its limit.
        thread::sleep(Duration::from_millis(200));
        at_limit();
        go.store(true, Ordering::Release);
    });
    let waited = n - n / RESET_EVERY;
    Tally::add(&tally.exhaustion, waited as u64);
    Exhaustion {
        opened: waited,
        answered: answered.into_inner(),
    }
}
