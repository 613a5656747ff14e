//! Exercise ch08_paused_timeout: an hour of runtime time in no time.
//!
//! A test of code with timeouts should not wait for them. A runtime whose
//! clock is *paused* (Chapter 8, "Writing programs", "The paused
//! clock") reads
//! "now" from a clock that stands still, and when every task is waiting it
//! jumps the clock straight to the next timer (auto-advance). A one-hour
//! timeout then fires at once, and `rt::time::Instant` says an hour went by.
//!
//! Write [`run_paused`], the helper such a test would use:
//!
//! * build a fresh current-thread runtime whose clock starts paused
//!   (`rt::runtime::Builder::new_current_thread()`, then `start_paused(true)`;
//!   only the current-thread runtime may pause);
//! * on it (`block_on`), call `make()` to create the future (inside the
//!   runtime, because a timer reads the runtime's clock when it is created)
//!   and run it under `rt::time::timeout(limit, ...)`;
//! * return the timeout's result and how much *runtime* time passed while it
//!   ran: `rt::time::Instant::now()` before, `.elapsed()` after, both inside
//!   the runtime. Not `std::time::Instant`: that is the wall clock.
//!
//! Check: `cargo run -p exercises -- check ch08_paused_timeout`. Hint:
//! `cargo run -p exercises -- hint ch08_paused_timeout`.

use std::future::Future;
use std::time::Duration;

use rt::time::{Elapsed, Instant};

/// Runs the future `make` returns under a `limit` timeout on a fresh
/// current-thread runtime started paused; returns the timeout's result and
/// the runtime time that passed.
pub fn run_paused<F, M>(limit: Duration, make: M) -> (Result<F::Output, Elapsed>, Duration)
where
    M: FnOnce() -> F,
    F: Future,
{
    todo!("Builder::new_current_thread().start_paused(true).build(), block_on timeout, Instant")
}
