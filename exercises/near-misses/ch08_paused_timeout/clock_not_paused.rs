//! Near miss of ch08_paused_timeout: the runtime is built without
//! `start_paused(true)`, so its timers wait in real time and a one-hour
//! timeout takes an hour; the tests must catch it (their hang guard gives up
//! after 20 s) because the point of the paused clock is that a test does not
//! wait for its timeouts.

use std::future::Future;
use std::time::Duration;

use rt::time::{Elapsed, Instant};

/// Runs the future `make` returns under a `limit` timeout on a fresh
/// current-thread runtime started paused.
pub fn run_paused<F, M>(limit: Duration, make: M) -> (Result<F::Output, Elapsed>, Duration)
where
    M: FnOnce() -> F,
    F: Future,
{
    // MISTAKE: no start_paused(true).
    let runtime = rt::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a current-thread runtime");
    runtime.block_on(async move {
        let start = Instant::now();
        let result = rt::time::timeout(limit, make()).await;
        (result, start.elapsed())
    })
}
