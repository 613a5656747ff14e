//! Exercise ch07_clear_readiness: readiness with a tick, so no edge is lost.
//!
//! The I/O driver keeps each socket's readiness in one atomic word (Chapter
//! 7, "The I/O driver"): the readiness bits in the low 16 bits and the
//! driver's turn number, the *tick*, in the next 16:
//!
//! ```text
//! word = (tick << 16) | readiness
//! ```
//!
//! * [`set_readiness`] (the driver): add `ready` to the readiness bits and
//!   store `tick` as the word's tick, in one compare-and-swap loop.
//! * [`ReadyEvent`] is what a task saw: the tick and the readiness bits of
//!   the word when it looked ([`observe`], written for you).
//! * [`clear_readiness`] (the task, after its read returned `WouldBlock`):
//!   clear the bits of `seen.ready` from the word, *unless* the word's tick
//!   is no longer `seen.tick`: then the driver has recorded a new edge since
//!   the task looked, and clearing would lose it for ever (epoll is
//!   edge-triggered: it will not report it again). Again one CAS loop.
//!
//! Check: `cargo run -p exercises -- check ch07_clear_readiness`. Hint:
//! `cargo run -p exercises -- hint ch07_clear_readiness`.

use std::sync::atomic::AtomicU64;
#[allow(unused_imports)]
use std::sync::atomic::Ordering;

/// Readable.
pub const READABLE: u16 = 1;
/// Writable.
pub const WRITABLE: u16 = 2;

/// What a task saw.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReadyEvent {
    /// The driver's tick when the readiness was last set.
    pub tick: u16,
    /// The readiness bits.
    pub ready: u16,
}

/// Reads the word (written for you).
pub fn observe(word: &AtomicU64) -> ReadyEvent {
    let value = word.load(Ordering::Acquire);
    ReadyEvent {
        tick: (value >> 16) as u16,
        ready: value as u16,
    }
}

/// The driver recorded `ready` at turn `tick`.
pub fn set_readiness(word: &AtomicU64, tick: u16, ready: u16) {
    todo!("CAS loop: new word = (tick << 16) | (old readiness | ready)")
}

/// The task clears what it saw, unless a newer edge arrived.
pub fn clear_readiness(word: &AtomicU64, seen: ReadyEvent) {
    todo!("CAS loop: give up if the tick moved; else clear seen.ready's bits")
}
