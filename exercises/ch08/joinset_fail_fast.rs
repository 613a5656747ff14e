//! Exercise ch08_joinset_fail_fast: all of them, or the first error.
//!
//! A `JoinSet` (rt's is in chapters/07-runtime/src/core/task/join_set.rs; tasks
//! and aborting them are Chapter 8, "Task handles") owns a group of tasks and hands
//! their outputs back in the order they *finish*, through `join_next`. That
//! is the shape of "fail fast": start everything, and as soon as one piece
//! fails there is no point in the rest, so stop them and report the failure
//! now, not after the slowest piece is done.
//!
//! Write [`fail_fast`], on rt's `JoinSet`:
//!
//! * spawn each piece of work with `JoinSet::spawn`, as a task that also
//!   returns its index in `work` (`async move { (index, future.await) }`),
//!   so outputs can be put back in input order;
//! * take results with `join_next` as tasks finish. An `Ok` output goes in
//!   its place. The first `Err` (in the order the tasks finish): abort the
//!   others and wait until every one of them has stopped
//!   (`JoinSet::shutdown` does both), then return that error;
//! * a task that panicked comes back as a `JoinError`: re-raise its panic in
//!   the caller with `std::panic::resume_unwind(error.into_panic())`;
//! * when the set is empty, every piece succeeded: return the outputs in
//!   the order of `work`. No work at all is `Ok(vec![])`.
//!
//! The tests run it on a current-thread runtime whose clock is paused, so
//! their sleeps take no time and their timing is exact.
//!
//! Check: `cargo run -p exercises -- check ch08_joinset_fail_fast`. Hint:
//! `cargo run -p exercises -- hint ch08_joinset_fail_fast`.

use std::future::Future;
use std::pin::Pin;

use rt::task::JoinSet;

/// One piece of work: a boxed future that may fail.
pub type Work<T, E> = Pin<Box<dyn Future<Output = Result<T, E>> + Send + 'static>>;

/// Runs every piece of work as a task on a `JoinSet`. If all succeed,
/// returns their outputs in the order of `work` (not the order they
/// finished). When one fails, aborts the others, waits until they have all
/// stopped, and returns that error.
pub async fn fail_fast<T, E>(work: Vec<Work<T, E>>) -> Result<Vec<T>, E>
where
    T: Send + 'static,
    E: Send + 'static,
{
    todo!("spawn (index, future.await) on a JoinSet; join_next; on Err: shutdown, return it")
}
