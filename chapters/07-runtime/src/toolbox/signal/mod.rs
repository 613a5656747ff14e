//! Signals as futures: [`ctrl_c`] completes when the process receives
//! `SIGINT` (Ctrl-C in its terminal, or `kill -INT`), and
//! [`unix::signal`] turns any other catchable signal (SIGTERM, SIGHUP,
//! ...) into a stream of notifications.
//!
//! A signal interrupts whatever a thread was doing and runs a handler on
//! it, in a state where almost nothing is allowed: no lock (the thread may
//! hold it), no allocation, no waker (waking takes locks). How does a
//! runtime turn that into a future that completes?
//!
//! Two answers exist on Linux:
//!
//! * `signalfd(2)`: a descriptor that becomes readable when a signal is
//!   pending, and reading it consumes the signal. It needs no handler at
//!   all, but the signal must be *blocked* in every thread of the process,
//!   or the kernel delivers it the old way to a thread that does not block
//!   it. The mask is per thread and inherited at creation, so only a
//!   program's `main` can block it before any thread exists; a library
//!   cannot guarantee that (a thread started earlier by another library,
//!   or by a test harness, keeps the default action and the process dies).
//! * the *self-pipe*: install a handler that does one async-signal-safe
//!   thing, write a byte to a pipe, and let the pipe's read end be an
//!   ordinary descriptor on the I/O driver. It works whichever thread the
//!   signal lands on. Tokio does this (through a socket pair), and so do we.
//!
//! So `self_pipe.rs` owns the handler, a counter of the signals delivered
//! and the pipe (a Unix socket pair); `ctrl_c.rs` is the future: it notes
//! the count when first polled, waits for the pipe to become readable on
//! the driver, and completes once the count has moved. Any number of
//! `ctrl_c()` futures may wait at once, on any runtime: each SIGINT wakes
//! them all.
//!
//! As with Tokio, the first `ctrl_c()` replaces the default action of
//! SIGINT (terminate) for the rest of the process: Ctrl-C no longer kills
//! a program that has asked for it, even after the future is dropped.
//!
//! Book: Chapter 8, "Signals and a graceful shutdown".

mod ctrl_c;
mod self_pipe;
pub mod unix;

pub use ctrl_c::ctrl_c;
