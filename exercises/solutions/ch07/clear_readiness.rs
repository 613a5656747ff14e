//! Reference solution for ch07_clear_readiness.

use std::sync::atomic::AtomicU64;
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
    let mut current = word.load(Ordering::Acquire);
    loop {
        let next = (u64::from(tick) << 16) | u64::from(current as u16 | ready);
        match word.compare_exchange_weak(current, next, Ordering::AcqRel, Ordering::Acquire) {
            Ok(_) => return,
            Err(actual) => current = actual,
        }
    }
}

/// The task clears what it saw, unless a newer edge arrived.
pub fn clear_readiness(word: &AtomicU64, seen: ReadyEvent) {
    let mut current = word.load(Ordering::Acquire);
    loop {
        if (current >> 16) as u16 != seen.tick {
            return;
        }
        let next = current & !u64::from(seen.ready);
        match word.compare_exchange_weak(current, next, Ordering::AcqRel, Ordering::Acquire) {
            Ok(_) => return,
            Err(actual) => current = actual,
        }
    }
}
