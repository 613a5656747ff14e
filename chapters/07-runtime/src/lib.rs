//! # Chapter 7: a Tokio-class runtime
//!
//! Chapter 6 ran every task on one thread. This crate runs them on all the
//! cores, the way Tokio's multi-threaded runtime does, and is a runtime a
//! reader can use: `Runtime::new()?.block_on(async { rt::spawn(...).await })`.
//!
//! * [`task`]: a task is one allocation with an atomic state word; wakers
//!   are task pointers; [`JoinHandle`](task::JoinHandle),
//!   [`JoinError`](task::JoinError), [`JoinSet`](task::JoinSet),
//!   [`AbortHandle`](task::AbortHandle), task ids, task-local values and
//!   `block_in_place`;
//! * `scheduler`: per-worker lock-free run queues with work stealing, the
//!   LIFO slot, the inject queue, searching and parking;
//! * [`runtime`]: [`Builder`] (multi-thread or current-thread), [`Runtime`],
//!   [`Handle`], [`spawn`], metrics, shutdown, and a per-worker trace;
//! * [`sync`]: `oneshot`, `mpsc` (bounded and unbounded), `watch`,
//!   `broadcast`, `Semaphore`, `Mutex`, `RwLock`, `Notify`;
//! * [`net`]: `TcpListener` and `TcpStream` on the I/O driver (`io/`),
//!   edge-triggered epoll through mio, with a readiness tick per socket;
//!   also `TcpSocket`, `UdpSocket`, `UnixListener`/`UnixStream`, with
//!   [`io::Interest`] and [`io::Ready`] for `ready`/`try_read`;
//! * [`io`]: Tokio's I/O vocabulary on every stream: the extension traits
//!   ([`io::AsyncReadExt`], [`io::AsyncWriteExt`], [`io::AsyncBufReadExt`]),
//!   `BufReader`, `copy`, `split`, `duplex`, and the standard streams on
//!   the blocking pool;
//! * [`fs`]: Tokio's file-system module (`read`, `write`, `File`,
//!   `OpenOptions`, `read_dir`, …), every operation a blocking call on the
//!   blocking pool, since epoll cannot wait on a regular file;
//! * [`signal`]: `ctrl_c()` through a self-pipe on the I/O driver;
//! * [`time`]: `sleep`, `timeout`, `interval` on a hierarchical timing wheel,
//!   and a clock a test can pause (`time::pause`, `advance`);
//! * the cooperative budget (`task/coop.rs`) and `task::spawn_blocking`
//!   (`blocking/`);
//! * for programs: `#[rt::main]`, `#[rt::test]`, [`join!`], [`try_join!`]
//!   and [`select!`] (`macros/`).
//!
//! Unsafe code lives in `task/` (the allocation, the harness, the waker
//! vtable) and `scheduler/queue.rs` (the ring buffer), every block with a
//! `// SAFETY:` comment; those files are checked by Miri (`cargo +nightly
//! miri test -p rt --lib`) and their races by loom (`RUSTFLAGS="--cfg
//! loom" cargo test -p rt --release loom`).
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
