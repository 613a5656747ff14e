//! Near miss of ch08_paused_timeout: `make()` is called before `block_on`,
//! outside the runtime, so a timer created there finds no runtime (and no
//! paused clock) to read; the tests must catch it because the future must be
//! created inside the runtime that runs it.

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
    let runtime = rt::runtime::Builder::new_current_thread()
        .enable_all()
        .start_paused(true)
        .build()
        .expect("a paused current-thread runtime");
    // MISTAKE: the future is made here, outside the runtime.
    let work = make();
    runtime.block_on(async move {
        let start = Instant::now();
        let result = rt::time::timeout(limit, work).await;
        (result, start.elapsed())
    })
}
