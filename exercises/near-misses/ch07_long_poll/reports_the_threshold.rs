//! Near miss of ch07_long_poll: a long poll is reported with the threshold it
//! crossed instead of the time it took, so a poll of 30 ms over a 10 ms
//! threshold reads as 10 ms; the tests must catch it because the report is
//! for finding the worst offenders, which needs the real duration.

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
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
        let start = Instant::now();
        let result = Pin::new(&mut self.inner).poll(cx);
        let duration = start.elapsed();
        if duration >= self.threshold {
            let report = LongPoll {
                task: self.name.clone(),
                // MISTAKE: the limit, not the measurement.
                duration: self.threshold,
            };
            self.reports.lock().unwrap().push(report);
        }
        result
    }
}
