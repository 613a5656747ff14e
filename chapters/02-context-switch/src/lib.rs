//! # Chapter 2: the true price of a context switch
//!
//! A server built on threads lives by the context switch: every blocking
//! read hands the CPU to another thread. What does one switch cost, and where
//! does the cost come from? This crate measures each part on the reader's
//! machine:
//!
//! * [`syscall_cost`]: entering the kernel at all;
//! * [`ping_pong`]: switching between two threads, and between two
//!   processes, pinned to one CPU with [`affinity`] and handing a token over
//!   a pipe or a [`futex`];
//! * [`cache_pollution`]: the indirect cost, caches refilled after a switch
//!   (sizes from [`cache_info`]);
//! * [`green`] and [`green_switch`]: a stackful switch in user space,
//!   written by hand in assembly for x86_64 and aarch64;
//! * [`future_switch`]: a stackless switch, resuming a future.
//!
//! [`claims`] weighs the common claims about switches against the figures;
//! [`plots`] draws them; [`experiments`] runs everything for the binary.
//!
//! Linux only: it pins threads with `sched_setaffinity`, blocks on raw
//! futexes and reads `/proc` and `/sys`.

pub mod affinity;
pub mod cache_info;
pub mod cache_pollution;
pub mod claims;
pub mod cpu_features;
pub mod experiments;
pub mod futex;
pub mod future_switch;
pub mod green;
pub mod green_switch;
pub mod ping_pong;
pub mod plots;
pub mod syscall_cost;
