//! # Chapter 5: the event loop
//!
//! Chapter 4 served ten thousand connections from one thread, but every
//! line of it was machinery. This chapter organises the machinery into a
//! reusable event loop, the structure of nginx, Redis and Node.js, on top of
//! `mio` (epoll here, kqueue on BSD and macOS, IOCP on Windows):
//!
//! * [`slab`]: registrations whose tokens cannot be confused after reuse;
//! * [`timers`]: a binary heap of timers with lazy cancellation; the next
//!   deadline is the loop's poll timeout;
//! * [`event_loop`]: the loop itself: callbacks for accepts, data, write
//!   completions and closes, timers, next-tick callbacks, and submissions
//!   from other threads woken with `mio::Waker`;
//! * [`echo`]: the echo server on it, with an idle timeout per connection;
//! * [`relay`]: a small multi-step protocol written with nested callbacks,
//!   to show what that style costs the programmer; [`relay_client`] drives
//!   it (Chapter 6 rewrites the same protocol with futures);
//! * [`starvation`] and [`timer_bench`]: what a callback that hogs the CPU
//!   does to every timer, and what the heap's operations cost;
//! * [`plots`]: the SVG plots of the measurements, which Chapters 6 and 7
//!   draw with too.

pub mod echo;
pub mod event_loop;
pub mod experiments;
pub mod plots;
pub mod relay;
pub mod relay_client;
pub mod slab;
pub mod starvation;
pub mod timer_bench;
pub mod timers;

pub use event_loop::{Closed, ConnId, EventLoop, ListenerId, Remote};
