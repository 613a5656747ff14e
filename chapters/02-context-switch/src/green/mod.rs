//! Stackful green threads (fibers), written by hand.
//!
//! Three pieces, one file each: [`stack`] maps a fiber's stack with a guard
//! page; [`context`] is the register save and restore, in assembly, for
//! x86_64 and aarch64; [`scheduler`] runs many fibers round-robin on one OS
//! thread. Chapter 6's goroutine-style "coroutines" discussion refers back
//! here: this is the stackful kind, and a future is the stackless kind.

pub mod context;
pub mod scheduler;
pub mod stack;

pub use context::Context;
pub use scheduler::{Fibers, yield_now};
pub use stack::Stack;
