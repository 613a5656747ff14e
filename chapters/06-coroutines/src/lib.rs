//! # Chapter 6: coroutines: futures by hand, wakers, and a first executor
//!
//! How do we get code that reads top to bottom without paying for threads?
//! Chapter 2 showed one way, stackful coroutines (fibers); this chapter
//! builds the other, the one Rust chose: futures, state machines polled by
//! an executor and woken by a reactor.
//!
//! * [`waker`]: the `RawWaker` vtable written by hand, and the same with
//!   `std::task::Wake`;
//! * [`executor`]: a single-threaded executor: tasks, a run queue, `spawn`,
//!   `JoinHandle`, `block_on`, sleeping in Chapter 5's event loop without
//!   losing wake-ups;
//! * [`net`] and [`time`]: leaf futures on that reactor: sockets that
//!   implement `futures::io::AsyncRead`/`AsyncWrite`, `sleep`, `timeout`;
//! * [`relay_future`]: Chapter 5's lookup relay as a hand-written `Future`,
//!   an enum with one state per wait; [`relay_async`]: the same protocol as
//!   `async fn`;
//! * [`echo`]: an async echo server for Chapter 3's harness;
//! * [`pin_demo`]: why a self-referential future must not move, shown with
//!   addresses;
//! * [`colouring`]: calling async code from sync code, the nested
//!   `block_on` trap, and a CPU-bound task starving the others;
//! * [`sizes`]: what each future weighs, against a fiber's stack;
//! * [`plots`]: the relay comparison as SVG plots.

pub mod colouring;
pub mod echo;
pub mod executor;
pub mod experiments;
pub mod net;
pub mod pin_demo;
pub mod plots;
pub mod relay_async;
pub mod relay_future;
pub mod sizes;
pub mod time;
pub mod waker;

pub use executor::{Executor, JoinHandle, block_on, spawn, yield_now};
