//! One load-generator thread: thousands of connections on one `mio::Poll`.
//!
//! The loop does four things, over and over, until the coordinator says
//! stop:
//!
//! 1. start more connects, at most [`MAX_CONNECTING`] in flight at once, so
//!    the server's accept backlog is never flooded;
//! 2. in an open-loop run, hand due messages to connections round-robin;
//! 3. wait for readiness events (at most [`TICK`]) and, for each ready
//!    connection, read and check everything it has, then write whatever it
//!    has queued; mio is edge-triggered, so both drain until `WouldBlock`;
//! 4. every [`SWEEP_INTERVAL`], fail connections that made no progress for
//!    too long: the generator must end even if the server stops answering.
//!
//! Progress is published through a few atomic counters in [`Shared`]; all
//! the detailed statistics stay in this thread until it returns them.

use std::ops::Range;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use mio::{Events, Interest, Poll, Token};

use super::connection::{Connection, Phase, start_connect};
use super::stats::{ErrorKind, WorkerStats};
use super::{LoadConfig, RunPhase, Shared};
use crate::addresses::SourcePlan;

/// Connects in flight per worker.
pub const MAX_CONNECTING: usize = 256;

/// The longest a worker sleeps in `poll` before looking at the phase again.
const TICK: Duration = Duration::from_millis(10);

/// Below this, a due message is waited for with a short sleep instead of
/// the poll timeout: `epoll_wait` counts its timeout in whole milliseconds
/// (mio rounds up), which would send open-loop messages up to a millisecond
/// late and charge that to the server.
const FINE_WAIT: Duration = Duration::from_millis(1);

/// The longest of those short sleeps, so socket events are not kept
/// waiting long either.
const FINE_STEP: Duration = Duration::from_micros(100);

/// The poll timeout for a worker whose next message is due in `until_due`.
fn poll_timeout(until_due: Option<Duration>) -> Duration {
    match until_due {
        // Far enough: let epoll wait, one millisecond short of the due time.
        Some(d) if d >= FINE_WAIT => (d - FINE_WAIT).min(TICK),
        // Close: just look for events, then sleep finely.
        Some(_) => Duration::ZERO,
        None => TICK,
    }
}

/// How often connections are checked for stalls.
const SWEEP_INTERVAL: Duration = Duration::from_millis(50);

/// Bytes read from a socket at a time.
const SCRATCH_BYTES: usize = 64 * 1024;

struct Worker<'a> {
    config: &'a LoadConfig,
    shared: &'a Shared,
    plan: &'a SourcePlan,
    poll: Poll,
    connections: Vec<Option<Connection>>,
    /// Each slot's global connection index (for seeds and sources).
    first_index: usize,
    connecting: usize,
    stats: WorkerStats,
    scratch: Vec<u8>,
    load_started: bool,
    next_due: Option<Instant>,
    round_robin: usize,
}

/// Runs one worker over the connections `indices` and returns its tally.
pub(crate) fn run(
    indices: Range<usize>,
    config: &LoadConfig,
    plan: &SourcePlan,
    shared: &Shared,
) -> WorkerStats {
    let poll = match Poll::new() {
        Ok(poll) => poll,
        Err(err) => {
            let mut stats = WorkerStats::default();
            for _ in indices.clone() {
                stats.errors.record(ErrorKind::of(&err), &err);
                shared.connection_failed(false, false);
            }
            return stats;
        }
    };
    let mut worker = Worker {
        config,
        shared,
        plan,
        poll,
        connections: Vec::with_capacity(indices.len()),
        first_index: indices.start,
        connecting: 0,
        stats: WorkerStats::default(),
        scratch: vec![0; SCRATCH_BYTES],
        load_started: false,
        next_due: None,
        round_robin: 0,
    };
    worker.run(indices.end);
    worker.stats
}

impl Worker<'_> {
    fn run(&mut self, end: usize) {
        let mut events = Events::with_capacity(1024);
        let mut last_sweep = Instant::now();
        let mut drained = false;
        loop {
            let phase = self.shared.phase();
            if phase == RunPhase::Close {
                break;
            }
            self.start_connects(end);
            let now = Instant::now();
            if phase >= RunPhase::Load && !self.load_started {
                self.start_load(now);
            }
            if phase == RunPhase::Load {
                self.send_due(now);
            }
            let until_due = match self.next_due {
                Some(due) if phase == RunPhase::Load => {
                    Some(due.saturating_duration_since(Instant::now()))
                }
                _ => None,
            };
            let timeout = poll_timeout(until_due);
            if let Err(err) = self.poll.poll(&mut events, Some(timeout))
                && err.kind() != std::io::ErrorKind::Interrupted
            {
                self.fail_everything(&err);
                break;
            }
            if events.is_empty()
                && let Some(until_due) = until_due
                && until_due < FINE_WAIT
            {
                // A message is due sooner than epoll can time: sleep the
                // short rest precisely (nanosleep) instead of up to a
                // millisecond too long.
                std::thread::sleep(until_due.min(FINE_STEP));
            }
            let now = Instant::now();
            for event in events.iter() {
                self.on_event(event.token().0, now);
            }
            if now.duration_since(last_sweep) >= SWEEP_INTERVAL {
                self.sweep(now);
                last_sweep = now;
            }
            if phase == RunPhase::Drain && !drained && !self.any_busy() {
                drained = true;
                self.shared.drained_workers.fetch_add(1, Ordering::AcqRel);
            }
        }
        self.stats.open_at_end = self
            .connections
            .iter()
            .flatten()
            .filter(|c| c.phase() == Phase::Open)
            .count() as u64;
        // Dropping the connections closes them.
    }

    fn start_connects(&mut self, end: usize) {
        let give_up = self.shared.give_up.load(Ordering::Acquire);
        while self.first_index + self.connections.len() < end {
            let index = self.first_index + self.connections.len();
            if give_up {
                self.stats.errors.record(
                    ErrorKind::Timeout,
                    "gave up before connecting: the server stopped accepting",
                );
                self.shared.connection_failed(true, false);
                self.connections.push(None);
                continue;
            }
            if self.connecting >= MAX_CONNECTING {
                return;
            }
            let seed = self.config.seed.wrapping_add(index as u64);
            let slot = self.connections.len();
            let connection = start_connect(self.config.target, self.plan.source_for(index))
                .and_then(|stream| {
                    let mut connection =
                        Connection::new(stream, seed, self.config.message_bytes, Instant::now());
                    self.poll.registry().register(
                        connection.stream_mut(),
                        Token(slot),
                        Interest::READABLE | Interest::WRITABLE,
                    )?;
                    Ok(connection)
                });
            match connection {
                Ok(connection) => {
                    self.connecting += 1;
                    self.connections.push(Some(connection));
                }
                Err(err) => {
                    self.stats.errors.record(ErrorKind::of(&err), &err);
                    self.shared.connection_failed(true, false);
                    self.connections.push(None);
                }
            }
        }
    }

    fn start_load(&mut self, now: Instant) {
        self.load_started = true;
        self.stats.reset_latencies();
        match self.config.rate {
            // Open loop: messages are handed out on a schedule.
            Some(_) => self.next_due = Some(now),
            // Closed loop: every open connection sends its first message.
            None => {
                for slot in 0..self.connections.len() {
                    if let Some(conn) = &mut self.connections[slot]
                        && conn.phase() == Phase::Open
                    {
                        conn.queue(now);
                        self.write(slot, now);
                    }
                }
            }
        }
    }

    // ANCHOR: send_due
    /// Open loop: hands every message whose time has come to the next open
    /// connection, stamped with the time it was due.
    fn send_due(&mut self, now: Instant) {
        let (Some(rate), Some(mut due)) = (self.config.rate, self.next_due) else {
            return;
        };
        let interval = Duration::from_secs_f64(self.config.workers as f64 / rate);
        let n = self.connections.len();
        while due <= now {
            let Some(slot) = (0..n)
                .map(|i| (self.round_robin + i) % n)
                .find(|&s| matches!(&self.connections[s], Some(c) if c.phase() == Phase::Open))
            else {
                break; // nobody left to send on
            };
            self.round_robin = slot + 1;
            if let Some(conn) = &mut self.connections[slot] {
                conn.queue(due);
            }
            self.write(slot, now);
            due += interval;
        }
        self.next_due = Some(due);
    }
    // ANCHOR_END: send_due

    fn on_event(&mut self, slot: usize, now: Instant) {
        let Some(conn) = self.connections.get_mut(slot).and_then(Option::as_mut) else {
            return;
        };
        match conn.phase() {
            Phase::Connecting => match conn.finish_connect(now) {
                Ok(false) => {}
                Ok(true) => {
                    self.connecting -= 1;
                    self.shared.resolved.fetch_add(1, Ordering::AcqRel);
                    // Prime: one echo proves the connection really works.
                    conn.queue(now);
                    self.write(slot, now);
                }
                Err(err) => {
                    self.connecting -= 1;
                    self.fail(slot, &err, true);
                }
            },
            Phase::Open => {
                self.read(slot, now);
                self.write(slot, now);
            }
            Phase::Done => {}
        }
    }

    fn read(&mut self, slot: usize, now: Instant) {
        let Some(conn) = self.connections[slot].as_mut() else {
            return;
        };
        let before = conn.echoes();
        match conn.read_ready(now, &mut self.scratch, &mut self.stats) {
            Ok(completed) => {
                if completed == 0 {
                    return;
                }
                self.shared.messages.fetch_add(completed, Ordering::Relaxed);
                if before == 0 {
                    self.shared.primed.fetch_add(1, Ordering::AcqRel);
                    self.shared.live_primed.fetch_add(1, Ordering::AcqRel);
                }
                // Closed loop: each completed echo is followed by the next
                // message, while the load lasts.
                if self.config.rate.is_none() && self.shared.phase() == RunPhase::Load {
                    for _ in 0..completed {
                        conn.queue(now);
                    }
                }
            }
            Err(err) => self.fail(slot, &err, false),
        }
    }

    fn write(&mut self, slot: usize, now: Instant) {
        let Some(conn) = self.connections[slot].as_mut() else {
            return;
        };
        if let Err(err) = conn.write_ready(now, &mut self.stats) {
            self.fail(slot, &err, false);
        }
    }

    /// Records a failed connection and closes it.
    fn fail(&mut self, slot: usize, err: &std::io::Error, while_connecting: bool) {
        let Some(mut conn) = self.connections[slot].take() else {
            return;
        };
        let was_primed = conn.echoes() > 0;
        conn.fail();
        let _ = self.poll.registry().deregister(conn.stream_mut());
        self.stats.errors.record(ErrorKind::of(err), err);
        self.shared.connection_failed(while_connecting, was_primed);
    }

    /// Fails every connection that waited too long.
    fn sweep(&mut self, now: Instant) {
        let (connect, io) = (self.config.connect_timeout, self.config.io_timeout);
        for slot in 0..self.connections.len() {
            let Some(conn) = &self.connections[slot] else {
                continue;
            };
            if conn.stalled(now, connect, io) {
                let connecting = conn.phase() == Phase::Connecting;
                if connecting {
                    self.connecting -= 1;
                }
                let what = if connecting { "connect" } else { "echo" };
                let err = std::io::Error::new(
                    std::io::ErrorKind::TimedOut,
                    format!("no {what} progress for the time limit"),
                );
                self.fail(slot, &err, connecting);
            }
        }
    }

    fn any_busy(&self) -> bool {
        self.connections.iter().flatten().any(Connection::busy)
    }

    fn fail_everything(&mut self, err: &std::io::Error) {
        for slot in 0..self.connections.len() {
            if let Some(conn) = &self.connections[slot] {
                let connecting = conn.phase() == Phase::Connecting;
                self.fail(slot, err, connecting);
            }
        }
    }
}
