//! # Chapter 4: non-blocking I/O and a hand-written epoll loop
//!
//! How does one thread serve ten thousand connections? By never blocking:
//! sockets are non-blocking, and the kernel tells the thread which of them
//! are ready. This crate does it with raw system calls, no library between
//! us and the kernel:
//!
//! * [`epoll`]: a small safe wrapper over `epoll_create1`, `epoll_ctl` and
//!   `epoll_wait`, with the `epoll_event` layout right on every architecture;
//! * [`connection`]: one connection's state machine: partial writes,
//!   back-pressure, half-close, level- or edge-triggered;
//! * [`server`]: the single-threaded echo server, which survives running out
//!   of descriptors without spinning;
//! * [`et_bug`]: the classic edge-triggered bug, reproduced and measured;
//! * [`poll_vs_epoll`]: what one wait costs with N idle descriptors, for
//!   `poll(2)` and for epoll.
//!
//! Chapter 3's harness loads the server ([`experiments`]); Chapter 5 turns
//! the loop into a reusable event loop on `mio`.
//!
//! Linux only: epoll is Linux's. The book describes kqueue (BSD, macOS) and
//! IOCP (Windows) in prose.

#![cfg(target_os = "linux")]

pub mod connection;
pub mod epoll;
pub mod et_bug;
pub mod experiments;
pub mod poll_vs_epoll;
pub mod server;
