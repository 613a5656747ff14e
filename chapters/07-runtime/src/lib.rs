//! # Chapter 7: a Tokio-class runtime
//!
//! Chapter 6 ran every task on one thread. This crate runs them on all the
//! cores, the way Tokio's multi-threaded runtime does, and is a runtime a
//! reader can use: `Runtime::new()?.block_on(async { rt::spawn(...).await })`.
//!
//! ## The map
//!
//! The runtime's core, what the book's Chapter 7 takes apart:
//!
//! * [`task`]: a task is one allocation with an atomic state word; wakers
//!   are task pointers; [`JoinHandle`](task::JoinHandle), the cooperative
//!   budget (`task/coop.rs`), task ids and task-local values;
//! * `scheduler/`: who polls which task. `multi_thread/` (per-worker
//!   lock-free rings, work stealing, the LIFO slot, searching and parking)
//!   and `current_thread/` (the thread in `block_on` is the runtime), with
//!   the inject queue, the parker and the counters they share;
//! * `io/driver/` and `driver.rs`: the I/O driver, edge-triggered epoll
//!   through mio with a readiness tick per socket, parked in together with
//!   the timers;
//! * [`time`]: the hierarchical timing wheel behind `sleep`, `timeout` and
//!   `interval`, and a clock a test can pause (`time/clock.rs` states when
//!   a paused clock may jump);
//! * `blocking/`: the pool behind [`task::spawn_blocking`];
//! * [`runtime`]: [`Builder`], [`Runtime`], [`Handle`], [`spawn`], shutdown,
//!   metrics and a per-worker trace.
//!
//! The toolbox, built on the core with Tokio's names, so a Tokio program
//! ports by renaming the crate:
//!
//! * [`sync`]: `oneshot`, `mpsc`, `watch`, `broadcast`, `Mutex`, `RwLock`,
//!   `Semaphore`, `Notify`, `OnceCell`, `Barrier`;
//! * [`net`]: TCP, UDP and Unix sockets on the I/O driver;
//! * [`io`] (`io/util/`): the extension traits, `copy`, `split`, `duplex`,
//!   buffering; [`io::unix::AsyncFd`] for any descriptor; the standard
//!   streams;
//! * [`fs`]: Tokio's file-system module, every call a job on the blocking
//!   pool, since epoll cannot wait on a regular file;
//! * [`signal`]: `ctrl_c()` and Unix signals through a self-pipe;
//! * `macros/`: [`join!`], [`try_join!`], [`select!`]; `#[rt::main]` and
//!   `#[rt::test]` come from the `rt-macros` crate beside this one.
//!
//! Unsafe code lives in `task/` (the allocation, the harness, the waker
//! vtable) and `scheduler/multi_thread/queue.rs` (the ring buffer), every
//! block with a `// SAFETY:` comment; those files are checked by Miri
//! (`cargo +nightly miri test -p rt --lib`) and their races by loom
//! (`RUSTFLAGS="--cfg loom" cargo test -p rt --release loom`).
//!
//! Book: Chapter 7.

// Under loom the driver waits on a condition variable instead of epoll,
// which leaves parts of the I/O driver unused in that build only.
#![cfg_attr(loom, allow(dead_code))]

pub(crate) mod blocking;
pub(crate) mod driver;
pub mod fs;
pub mod io;
pub(crate) mod loom;
#[doc(hidden)]
pub mod macros;
pub mod net;
pub mod runtime;
pub(crate) mod scheduler;
pub mod signal;
pub mod sync;
pub mod task;
pub mod time;

/// `#[rt::main]` and `#[rt::test]`: see the `rt-macros` crate.
pub use rt_macros::{main, test};
pub use runtime::{Builder, Handle, LongPoll, LongPollCause, Runtime, RuntimeMetrics, spawn};
