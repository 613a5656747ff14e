//! The load generator: many connections, every byte checked, latency
//! measured without lying.
//!
//! Chapters 3 to 7 compare servers by one instrument, so it has to be one a
//! reader can trust:
//!
//! * **It holds N connections open for the whole run**, up to the process's
//!   open-file limit (19,000 and more here), from one process on a few
//!   threads. It is event-driven ([`worker`]): a thread per connection would
//!   make the generator itself the bottleneck this chapter is about.
//! * **It spreads connections over loopback source addresses**
//!   ([`crate::addresses`]) so ephemeral ports never run out.
//! * **It checks every echoed byte** against the pattern it sent
//!   ([`chapter_01::pattern`]), and counts mismatches.
//! * **It measures latency honestly.** In the default closed loop, each
//!   connection sends a message, waits for the echo, and sends the next. With
//!   `rate`, the generator sends at a fixed total rate whatever the server
//!   does (open loop), and times each message from when it *should* have
//!   been sent, so a stalled server cannot hide its stall.
//! * **It never hangs.** Connects and echoes have time limits; a server that
//!   stops answering ends the run with errors, by kind.
//!
//! A run has phases, driven by [`run`] and followed by every worker:
//! connect (and prime: one echo per connection), load (for `duration`),
//! drain (no new messages; wait for the echoes in flight), close. Between
//! them, [`Hooks`] let the C10K harness sample the server at full connection
//! count and at the end.

pub mod connection;
pub mod stats;
pub mod worker;

use std::fmt;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU64, AtomicUsize, Ordering};
use std::thread;
use std::time::{Duration, Instant};

use indicatif::ProgressBar;

use crate::addresses::SourcePlan;
use crate::limits;
use stats::WorkerStats;

/// Descriptors the generator needs besides its sockets (pollers, standard
/// streams, the progress bar's terminal, slack).
pub const FD_RESERVE: u64 = 64;

/// What to do.
#[derive(Debug, Clone)]
pub struct LoadConfig {
    /// The echo server.
    pub target: SocketAddr,
    /// Connections to open and hold.
    pub connections: usize,
    /// Bytes per message.
    pub message_bytes: usize,
    /// How long the load phase lasts.
    pub duration: Duration,
    /// Total messages per second (open loop), or `None` for a closed loop.
    pub rate: Option<f64>,
    /// Generator threads.
    pub workers: usize,
    /// Limit on each connect.
    pub connect_timeout: Duration,
    /// Limit on waiting for any expected progress (a write, an echo).
    pub io_timeout: Duration,
    /// Base of the connections' pattern seeds.
    pub seed: u64,
}

impl LoadConfig {
    /// Defaults for `connections` to `target`: 64-byte messages, 5 seconds,
    /// closed loop, one worker per CPU, 10-second time limits.
    pub fn new(target: SocketAddr, connections: usize) -> LoadConfig {
        LoadConfig {
            target,
            connections,
            message_bytes: 64,
            duration: Duration::from_secs(5),
            rate: None,
            workers: thread::available_parallelism().map_or(2, |n| n.get()),
            connect_timeout: Duration::from_secs(10),
            io_timeout: Duration::from_secs(10),
            seed: 0x5EED,
        }
    }
}

/// Why a run could not start.
#[derive(Debug)]
pub enum LoadError {
    /// More connections than open files allowed.
    TooManyConnections {
        /// Asked for.
        requested: usize,
        /// The process's open-file limit.
        limit: u64,
    },
    /// A setting makes no sense (zero connections, zero-byte messages...).
    Invalid(String),
    /// Raising the open-file limit, or starting a thread, failed.
    Io(std::io::Error),
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LoadError::TooManyConnections { requested, limit } => write!(
                f,
                "cannot open {requested} connections: this process may open {limit} files \
                 (ulimit -Hn) and needs {FD_RESERVE} for itself, so at most {} connections fit",
                limit.saturating_sub(FD_RESERVE)
            ),
            LoadError::Invalid(why) => f.write_str(why),
            LoadError::Io(err) => write!(f, "{err}"),
        }
    }
}

impl std::error::Error for LoadError {}

/// Called between phases, to look at the server while the connections are
/// held.
pub trait Hooks {
    /// Every connection is open (or has failed) and has echoed once; the
    /// load has not started. `held` connections are open and working.
    fn at_full_count(&mut self, _held: usize) {}
    /// The load is over; the connections are still open.
    fn at_end(&mut self) {}
}

/// Hooks that do nothing.
#[derive(Debug, Default)]
pub struct NoHooks;

impl Hooks for NoHooks {}

/// The phase every worker follows, set by the coordinator.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
#[repr(u8)]
pub(crate) enum RunPhase {
    Connect = 0,
    Load = 1,
    Drain = 2,
    Close = 3,
}

/// What the workers and the coordinator share: the phase and a few counters.
#[derive(Debug, Default)]
pub(crate) struct Shared {
    phase: AtomicU8,
    /// Connects that finished, either way.
    resolved: AtomicUsize,
    /// Connections that echoed their first message.
    primed: AtomicUsize,
    /// Primed connections still open.
    live_primed: AtomicUsize,
    /// Failed connections, at any point.
    failed: AtomicUsize,
    /// Echoed messages so far.
    messages: AtomicU64,
    /// Workers with nothing left in flight after the load.
    drained_workers: AtomicUsize,
    /// The server stopped accepting: stop starting connects.
    give_up: AtomicBool,
}

impl Shared {
    pub(crate) fn phase(&self) -> RunPhase {
        match self.phase.load(Ordering::Acquire) {
            0 => RunPhase::Connect,
            1 => RunPhase::Load,
            2 => RunPhase::Drain,
            _ => RunPhase::Close,
        }
    }

    fn set_phase(&self, phase: RunPhase) {
        self.phase.store(phase as u8, Ordering::Release);
    }

    pub(crate) fn connection_failed(&self, while_connecting: bool, was_primed: bool) {
        self.failed.fetch_add(1, Ordering::AcqRel);
        if while_connecting {
            self.resolved.fetch_add(1, Ordering::AcqRel);
        }
        if was_primed {
            self.live_primed.fetch_sub(1, Ordering::AcqRel);
        }
    }
}

/// What a run measured.
#[derive(Debug, Clone)]
pub struct LoadReport {
    /// Connections asked for.
    pub connections_requested: usize,
    /// Connections open and echoing at full count, before the load.
    pub connections_held: usize,
    /// How long opening and priming every connection took.
    pub connect_time: Duration,
    /// The load phase, from its start to the last echo drained.
    pub load_time: Duration,
    /// Messages echoed during the load phase.
    pub load_messages: u64,
    /// Whether messages were sent at a fixed rate (open loop).
    pub open_loop: bool,
    /// Everything counted, priming included.
    pub stats: WorkerStats,
}

impl LoadReport {
    /// Messages per second during the load phase.
    pub fn throughput_msgs_per_sec(&self) -> f64 {
        self.load_messages as f64 / self.load_time.as_secs_f64().max(1e-9)
    }
}

// ANCHOR: run
/// Runs the load described by `config`, calling `hooks` between phases and
/// moving `progress` along.
pub fn run(
    config: &LoadConfig,
    hooks: &mut dyn Hooks,
    progress: &ProgressBar,
) -> Result<LoadReport, LoadError> {
    validate(config)?;
    let limit = limits::raise_fd_limit().map_err(LoadError::Io)?;
    if config.connections as u64 + FD_RESERVE > limit {
        return Err(LoadError::TooManyConnections {
            requested: config.connections,
            limit,
        });
    }
    let plan = SourcePlan::for_run(config.target, config.connections, std::process::id());
    let shared = Shared::default();
    let n = config.connections;
    let workers = config.workers.min(n);

    thread::scope(|scope| {
        let mut handles = Vec::with_capacity(workers);
        for w in 0..workers {
            let indices = (n * w / workers)..(n * (w + 1) / workers);
            let (shared, plan) = (&shared, &plan);
            let spawned = thread::Builder::new()
                .name(format!("load-{w}"))
                .spawn_scoped(scope, move || worker::run(indices, config, plan, shared));
            match spawned {
                Ok(handle) => handles.push(handle),
                Err(err) => {
                    // The workers already started must end before the scope
                    // can: tell them to close.
                    shared.set_phase(RunPhase::Close);
                    return Err(LoadError::Io(err));
                }
            }
        }

        // ANCHOR: phases
        // Connect and prime every connection.
        let start = Instant::now();
        progress.set_length(n as u64);
        progress.set_message("connecting");
        wait_for_connections(config, &shared, progress);
        let connect_time = start.elapsed();
        let held = shared.live_primed.load(Ordering::Acquire);
        hooks.at_full_count(held);

        // The load.
        let at_load_start = shared.messages.load(Ordering::Acquire);
        let load_start = Instant::now();
        shared.set_phase(RunPhase::Load);
        progress.set_message("load");
        progress.set_length(config.duration.as_millis() as u64);
        progress.set_position(0);
        while load_start.elapsed() < config.duration {
            thread::sleep(Duration::from_millis(50).min(config.duration));
            progress.set_position(load_start.elapsed().as_millis() as u64);
        }
        shared.set_phase(RunPhase::Drain);
        let drain_deadline = Instant::now() + config.io_timeout + Duration::from_secs(1);
        while shared.drained_workers.load(Ordering::Acquire) < workers
            && Instant::now() < drain_deadline
        {
            thread::sleep(Duration::from_millis(5));
        }
        let load_time = load_start.elapsed();
        let load_messages = shared.messages.load(Ordering::Acquire) - at_load_start;
        hooks.at_end();
        // ANCHOR_END: phases

        shared.set_phase(RunPhase::Close);
        let mut stats = WorkerStats::default();
        for handle in handles {
            stats.merge(&handle.join().expect("a load worker does not panic"));
        }
        Ok(LoadReport {
            connections_requested: n,
            connections_held: held,
            connect_time,
            load_time,
            load_messages,
            open_loop: config.rate.is_some(),
            stats,
        })
    })
}
// ANCHOR_END: run

fn validate(config: &LoadConfig) -> Result<(), LoadError> {
    let invalid = |why: &str| Err(LoadError::Invalid(why.to_string()));
    if config.connections == 0 {
        return invalid("at least one connection is needed");
    }
    if config.message_bytes == 0 {
        return invalid("messages must have at least one byte");
    }
    if config.workers == 0 {
        return invalid("at least one worker thread is needed");
    }
    if let Some(rate) = config.rate
        && !(rate.is_finite() && rate > 0.0)
    {
        return invalid("the rate must be a positive number of messages per second");
    }
    Ok(())
}

/// Waits until every connection has echoed once or failed. If nothing moves
/// for a whole time limit, tells the workers to stop connecting; they then
/// fail what remains within their own time limits.
fn wait_for_connections(config: &LoadConfig, shared: &Shared, progress: &ProgressBar) {
    let n = config.connections;
    let patience = config.connect_timeout.max(config.io_timeout);
    let mut last_seen = (usize::MAX, usize::MAX, usize::MAX);
    let mut last_change = Instant::now();
    let mut hard_deadline = None;
    loop {
        let resolved = shared.resolved.load(Ordering::Acquire);
        let primed = shared.primed.load(Ordering::Acquire);
        let failed = shared.failed.load(Ordering::Acquire);
        progress.set_position((primed + failed) as u64);
        if primed + failed >= n {
            return;
        }
        let now = Instant::now();
        if (resolved, primed, failed) != last_seen {
            last_seen = (resolved, primed, failed);
            last_change = now;
        } else if now.duration_since(last_change) > patience && hard_deadline.is_none() {
            shared.give_up.store(true, Ordering::Release);
            hard_deadline = Some(now + 2 * patience);
        }
        if hard_deadline.is_some_and(|deadline| now > deadline) {
            return;
        }
        thread::sleep(Duration::from_millis(10));
    }
}
