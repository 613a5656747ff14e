//! # Chapter 3: C10K with one thread per connection
//!
//! What breaks when Chapter 1's thread-per-connection server faces ten
//! thousand clients? This crate holds the measuring instrument of the rest
//! of the book and the experiment that uses it first:
//!
//! * [`load`]: an event-driven load generator that holds tens of thousands
//!   of connections, checks every echoed byte and records latency in an HDR
//!   histogram, closed loop or at a fixed rate;
//! * [`addresses`]: spreading client connections over loopback source
//!   addresses so ephemeral ports never run out;
//! * [`harness`]: the C10K harness: a server as a child process, the load,
//!   and the server's memory, threads and context switches sampled from
//!   `/proc` before, at full count and after;
//! * [`server`]: Chapter 1's server behind a listener with a large backlog;
//! * [`limits`]: the limits that bite first (descriptors, threads, mappings,
//!   ports);
//! * [`soak`]: every chapter's server, for minutes, against resets,
//!   half-closes, idle and slow clients and descriptor exhaustion, every
//!   byte checked and its memory watched;
//! * [`sweep`] and [`plots`]: the series N = 100 ... 10,000 and its plots.
//!
//! Chapters 4 to 7 depend on this crate and pass their own servers to the
//! same harness, so every chapter's `c10k` prints the same keys.

pub mod addresses;
pub mod experiments;
pub mod harness;
pub mod limits;
pub mod load;
pub mod plots;
pub mod server;
pub mod soak;
pub mod sweep;
