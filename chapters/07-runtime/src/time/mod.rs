//! Time: [`sleep`], [`timeout`], [`interval`], on the runtime's timing
//! wheel.
//!
//! * `level` and `wheel`: the hierarchical timing wheel (6 levels of 64
//!   slots, 1 ms resolution, O(1) insert and cancel);
//! * `driver`: the clock, the wheel behind its lock, and the hand-off with
//!   the worker parked in the I/O driver;
//! * [`Sleep`], [`Timeout`], [`Interval`]: the futures.
//!
//! A timer is registered with the runtime of the task that first polls it,
//! and removed from the wheel when it is dropped, fired or not.
//!
//! Book: Chapter 7, "The timing wheel".

pub(crate) mod driver;
pub(crate) mod level;
mod sleep;
pub(crate) mod wheel;

pub use sleep::{
    Elapsed, Interval, Sleep, Timeout, interval, interval_at, sleep, sleep_until, timeout,
};
pub use std::time::Instant;
