//! Exercise ch07_long_poll: the long-poll check around one poll.
//!
//! A task whose poll takes milliseconds (a blocking call, a long loop with
//! no `.await`) stalls every other task on its worker. The runtime's
//! detector reports such polls (Chapter 7, "Finding the poll that blocks").
//! Here, the simplest form of the check: time the poll itself.
//!
//! Write [`Watched::poll`]: poll the inner future, measure how long that
//! call took, and if it took at least `threshold`, push a [`LongPoll`] to
//! `reports` with the task's name and the duration. Report each long poll
//! once, and never report short ones. The output is the inner future's.
//!
//! (The runtime avoids reading the clock twice per poll by sampling from
//! another thread instead; this exercise is the direct version.)
//!
//! Check: `cargo run -p exercises -- check ch07_long_poll`. Hint:
//! `cargo run -p exercises -- hint ch07_long_poll`.

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
#[allow(unused_imports)]
use std::time::{Duration, Instant};

/// A poll that took too long.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LongPoll {
    /// The task's name.
    pub task: String,
    /// How long the poll took.
    pub duration: Duration,
}

/// A future whose polls are timed.
pub struct Watched<F> {
    /// The wrapped future.
    pub inner: F,
    /// The task's name, for reports.
    pub name: String,
    /// Polls at least this long are reported.
    pub threshold: Duration,
    /// Where reports go.
    pub reports: Arc<Mutex<Vec<LongPoll>>>,
}

impl<F: Future + Unpin> Future for Watched<F> {
    type Output = F::Output;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        todo!("Instant::now() before, poll the inner future, report if elapsed >= threshold")
    }
}
