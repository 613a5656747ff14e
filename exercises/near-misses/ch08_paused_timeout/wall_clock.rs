//! Near miss of ch08_paused_timeout: the time taken is measured with
//! `std::time::Instant`, the wall clock, which barely moves while the paused
//! runtime's clock jumps an hour; the tests must catch it because the helper
//! must report the runtime time that passed.

use std::future::Future;
use std::time::Duration;

use rt::time::Elapsed;

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
    runtime.block_on(async move {
        // MISTAKE: the wall clock, not the runtime's.
        let start = std::time::Instant::now();
        let result = rt::time::timeout(limit, make()).await;
        (result, start.elapsed())
    })
}
