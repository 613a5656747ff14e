//! # Chapter 10: completion, the other way to do I/O
//!
//! Every chapter before this one rests on readiness: ask the kernel which
//! sockets are ready (`epoll_wait`), then read them. io_uring turns that
//! around: hand the kernel a buffer and an operation, and later collect the
//! result from a completion queue.
//!
//! Book: Chapter 10.

// The rings by hand, the echo server, its fallback, the race.
#[cfg(target_os = "linux")]
pub mod experiments;
#[cfg(target_os = "linux")]
pub mod fallback;
#[cfg(target_os = "linux")]
pub mod plots;
#[cfg(target_os = "linux")]
pub mod race;
#[cfg(target_os = "linux")]
pub mod server;
#[cfg(target_os = "linux")]
pub mod uring;
// The owned-buffer executor and its cancellation.
#[cfg(target_os = "linux")]
pub mod owned;
