//! # Chapter 7: a Tokio-class runtime
//!
//! Chapter 6 ran every task on one thread. This crate runs them on all the
//! cores, the way Tokio's multi-threaded runtime does, and is a runtime a
//! reader can use: `Runtime::new()?.block_on(async { rt::spawn(...).await })`.
//!
//! ## The map
//!
//! The runtime's core, in `src/core/`, what the book's Chapter 7 takes
//! apart:
//!
//! * [`task`]: a task is one allocation with an atomic state word; wakers
//!   are task pointers; [`JoinHandle`](task::JoinHandle), the cooperative
//!   budget (`task/coop.rs`), task ids and task-local values;
//! * `scheduler/`: who polls which task. `multi_thread/` (per-worker
//!   lock-free rings, work stealing, the LIFO slot, searching and parking)
//!   and `current_thread/` (the thread in `block_on` is the runtime), with
//!   the inject queue, the parker and the counters they share;
//! * `io_driver/` and `driver.rs`: the I/O driver, edge-triggered epoll
//!   through mio with a readiness tick per socket, parked in together with
//!   the timers;
//! * [`time`]: the hierarchical timing wheel behind `sleep`, `timeout` and
//!   `interval`, and a clock a test can pause (`time/clock.rs` states when
//!   a paused clock may jump);
//! * `blocking/`: the pool behind [`task::spawn_blocking`];
//! * [`runtime`]: [`Builder`], [`Runtime`], [`Handle`], [`spawn`], shutdown,
//!   metrics and a per-worker trace.
//!
//! The toolbox, in `src/toolbox/`, built on the core with Tokio's names, so
//! a Tokio program ports by renaming the crate:
//!
//! * [`sync`]: `oneshot`, `mpsc`, `watch`, `broadcast`, `Mutex`, `RwLock`,
//!   `Semaphore`, `Notify`, `OnceCell`, `Barrier`;
//! * [`net`]: TCP, UDP and Unix sockets on the I/O driver;
//! * [`io`] (`io/util/`): the extension traits, `copy`, `split`, `duplex`,
//!   buffering; [`io::unix::AsyncFd`] for any descriptor; the standard
//!   streams;
//! * [`fs`]: Tokio's file-system module, every call a job on the blocking
//!   pool, since epoll cannot wait on a regular file;
//! * [`process`]: `Command` and `Child`, the child's pipes on the I/O
//!   driver and its exit awaited through a pidfd;
//! * [`signal`]: `ctrl_c()` and Unix signals through a self-pipe;
//! * `macros/`: [`join!`], [`try_join!`], [`select!`]; `#[rt::main]` and
//!   `#[rt::test]` come from the `rt-macros` crate beside this one.
//!
//! Unsafe code lives in `core/task/` (the allocation, the harness, the
//! waker vtable) and `core/scheduler/multi_thread/queue.rs` (the ring buffer), every
//! block with a `// SAFETY:` comment; those files are checked by Miri
//! (`cargo +nightly miri test -p rt --lib`) and their races by loom
//! (`RUSTFLAGS="--cfg loom" cargo test -p rt --release loom`).
//!
//! Book: Chapter 7.

// Under loom the driver waits on a condition variable instead of epoll,
// which leaves parts of the I/O driver unused in that build only.
#![cfg_attr(loom, allow(dead_code))]

// The core, in `core/`: tasks, the schedulers, the I/O driver, time, the
// blocking pool and the runtime that ties them together.
#[path = "core/blocking/mod.rs"]
pub(crate) mod blocking;
#[path = "core/driver.rs"]
pub(crate) mod driver;
#[path = "core/io_driver/mod.rs"]
pub(crate) mod io_driver;
#[path = "core/loom.rs"]
pub(crate) mod loom;
#[path = "core/runtime/mod.rs"]
pub mod runtime;
#[path = "core/scheduler/mod.rs"]
pub(crate) mod scheduler;
#[path = "core/task/mod.rs"]
pub mod task;
#[path = "core/time/mod.rs"]
pub mod time;

// The toolbox, in `toolbox/`: what a program uses, built on the core with
// Tokio's names.
#[path = "toolbox/fs/mod.rs"]
pub mod fs;
#[path = "toolbox/io/mod.rs"]
pub mod io;
#[doc(hidden)]
#[path = "toolbox/macros/mod.rs"]
pub mod macros;
#[path = "toolbox/net/mod.rs"]
pub mod net;
#[path = "toolbox/process/mod.rs"]
pub mod process;
#[path = "toolbox/signal/mod.rs"]
pub mod signal;
#[path = "toolbox/sync/mod.rs"]
pub mod sync;

/// `#[rt::main]` and `#[rt::test]`: see the `rt-macros` crate.
pub use rt_macros::{main, test};
pub use runtime::{Builder, Handle, LongPoll, LongPollCause, Runtime, RuntimeMetrics, spawn};
