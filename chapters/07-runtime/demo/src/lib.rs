//! # Chapter 7's demos, beside the runtime
//!
//! The runtime is the package `rt` (one directory up). This package holds
//! what the chapter *shows* with it, so that a program depending on `rt`
//! compiles none of it:
//!
//! * [`experiments`]: the chapter's experiments, as `cargo run -p
//!   chapter-07` runs them (a burst of spawns, the LIFO slot, the inject
//!   queue's interval, the budget, timers, the blocking pool);
//! * [`coop`]: a reader that is always ready beside a ticker, with the
//!   budget and without;
//! * [`files`]: epoll refusing a regular file, and the cost of a file
//!   operation on the blocking pool;
//! * [`top`]: a live view of the workers, drawn from `Runtime::metrics`;
//! * [`trace`]: every poll and park of a run, recorded with the task and
//!   thread hooks and written as a Perfetto / `chrome://tracing` file;
//! * [`long_poll`]: the long-poll detector telling a poll that blocks from
//!   one that is preempted;
//! * [`cancel`]: a `select!` loop that loses data, and the same loop fixed;
//! * [`joinset`]: a hundred thousand tasks in a `JoinSet`, one failing, the
//!   rest aborted;
//! * [`echo`]: the echo server that Chapter 3's load generator drives;
//! * [`graceful`]: the same server, shut down gracefully on Ctrl-C, and
//!   [`shutdown`]: that server under a scripted load, as a timeline;
//! * [`hyper_rt`]: hyper's runtime traits implemented on `rt`, and
//!   [`http`]: the capstone's HTTP server, generic over the runtime;
//! * [`metrics_json`]: a metrics snapshot as one JSON object, for `--json`;
//! * [`loom_space`]: the interleavings loom explores, read from a CSV;
//! * [`plots`]: SVG plots of the experiments, for the book.
//!
//! The comparisons against Tokio and async-executor need those crates, which
//! are dev-dependencies only, so they live in `examples/compare/`.
//!
//! Book: Chapter 7.

pub mod cancel;
pub mod coop;
pub mod echo;
pub mod experiments;
pub mod files;
pub mod graceful;
pub mod http;
pub mod hyper_rt;
pub mod joinset;
pub mod long_poll;
pub mod loom_space;
pub mod plots;
pub mod shutdown;
pub mod top;
pub mod trace;

use rt::runtime::MetricsSnapshot;
use serde_json::{Value, json};

/// A metrics snapshot as one JSON object (counters, plus per-worker arrays).
pub fn metrics_json(snapshot: &MetricsSnapshot) -> Value {
    json!({
        "alive_tasks": snapshot.alive_tasks,
        "spawned_tasks": snapshot.spawned_tasks,
        "global_queue_depth": snapshot.global_queue_depth,
        "remote_schedules": snapshot.remote_schedules,
        "blocking_threads": snapshot.blocking_threads,
        "idle_blocking_threads": snapshot.idle_blocking_threads,
        "blocking_queue_depth": snapshot.blocking_queue_depth,
        "registered_sockets": snapshot.registered_sockets,
        "io_ready_events": snapshot.io_ready_events,
        "pending_timers": snapshot.pending_timers,
        "long_polls": snapshot.long_polls,
        "workers": snapshot.workers.iter().map(|w| json!({
            "polls": w.polls,
            "lifo_polls": w.lifo_polls,
            "steals": w.steals,
            "steal_operations": w.steal_operations,
            "overflows": w.overflows,
            "local_schedules": w.local_schedules,
            "inject_pulls": w.inject_pulls,
            "parks": w.parks,
            "unparks": w.unparks,
            "local_queue_depth": w.local_queue_depth,
            "busy_ms": w.busy.as_secs_f64() * 1e3,
            "mean_poll_ns": w.busy.as_nanos() as f64 / w.polls.max(1) as f64,
            "budget_forced_yields": w.budget_forced_yields,
        })).collect::<Vec<_>>(),
    })
}
