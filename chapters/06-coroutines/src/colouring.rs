//! Function colouring, the nested `block_on` trap, and starvation.
//!
//! An `async fn` can only be awaited from another `async fn`: the colour
//! spreads upwards. The way back from "red" to "blue" is `block_on`: a plain
//! function that runs an executor until one future is done. Used at the top
//! (in `main`), it is the bridge every async program has. Used inside a
//! task, it is a trap: the task's thread now runs a second executor, so the
//! first one runs nothing until the inner future completes, and if that
//! future waits for something one of the first executor's tasks must do,
//! nothing will ever do it. Our `block_on` refuses (with a panic that says
//! why), as Tokio's does.
//!
//! Starvation is the same problem from the other side: a task that
//! computes for a long time without an `.await` holds the only thread, and
//! every other task waits, however urgent. [`measure`] runs a ticker task
//! (sleep 1 ms, record how late it woke) beside a CPU-bound task, once
//! computing in one long stretch per batch and once yielding after every
//! millisecond of work with `yield_now()`: Chapter 5's starvation, and its
//! cooperative cure. Chapter 7's runtime makes the yielding automatic (a
//! budget) and moves blocking work off the workers (`spawn_blocking`).
//!
//! Book: Chapter 6, "Colours and starvation".

use std::cell::RefCell;
use std::io;
use std::rc::Rc;
use std::time::{Duration, Instant};

use hdrhistogram::Histogram;

use crate::executor::{Executor, spawn, yield_now};
use crate::time::sleep;

/// Ticker lateness, in ms.
#[derive(Debug, Clone, Copy)]
pub struct Lateness {
    /// Ticks recorded.
    pub ticks: u64,
    /// Median.
    pub p50_ms: f64,
    /// 99th percentile.
    pub p99_ms: f64,
    /// Worst.
    pub max_ms: f64,
}

/// How the CPU-bound task behaves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hog {
    /// There is none.
    Absent,
    /// Computes `work` at a stretch, then sleeps `rest`, repeatedly.
    Greedy,
    /// Computes the same, but yields after every millisecond of it.
    Polite,
}

// ANCHOR: hog
async fn hog(style: Hog, work: Duration, rest: Duration, until: Instant) {
    while Instant::now() < until {
        match style {
            Hog::Absent => return,
            Hog::Greedy => {
                chapter_05::starvation::burn(work); // no .await: nobody else runs
            }
            Hog::Polite => {
                let start = Instant::now();
                while start.elapsed() < work {
                    chapter_05::starvation::burn(Duration::from_millis(1));
                    yield_now().await; // let the others in
                }
            }
        }
        sleep(rest).await;
    }
}
// ANCHOR_END: hog

/// Runs the ticker for `duration` beside a hog of `style`.
pub fn measure(
    style: Hog,
    duration: Duration,
    work: Duration,
    rest: Duration,
) -> io::Result<Lateness> {
    let lateness = Rc::new(RefCell::new(
        Histogram::<u64>::new_with_bounds(1, 60_000_000, 3).expect("valid bounds"),
    ));
    let until = Instant::now() + duration;
    let ticks = Rc::clone(&lateness);
    Executor::new()?.block_on(async move {
        spawn(hog(style, work, rest, until));
        let tick = Duration::from_millis(1);
        while Instant::now() < until {
            let due = Instant::now() + tick;
            sleep(tick).await;
            let late = Instant::now().saturating_duration_since(due);
            ticks
                .borrow_mut()
                .saturating_record(late.as_micros() as u64);
        }
    });
    let h = lateness.borrow();
    let ms = |us: u64| us as f64 / 1e3;
    Ok(Lateness {
        ticks: h.len(),
        p50_ms: ms(h.value_at_percentile(50.0)),
        p99_ms: ms(h.value_at_percentile(99.0)),
        max_ms: ms(h.max()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[cfg_attr(
        miri,
        ignore = "uses the reactor (epoll, sockets), which Miri does not run"
    )]
    fn a_greedy_task_delays_the_ticker_by_its_stretch() {
        let greedy = measure(
            Hog::Greedy,
            Duration::from_millis(300),
            Duration::from_millis(30),
            Duration::from_millis(5),
        )
        .unwrap();
        assert!(greedy.ticks > 3);
        // Some tick had to wait out a whole 30 ms stretch, give or take.
        assert!(greedy.max_ms >= 15.0, "{greedy:?}");
    }
}
