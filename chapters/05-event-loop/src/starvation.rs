//! What one greedy callback does to everybody else.
//!
//! An event loop runs one callback at a time, to completion. Timers only
//! fire between callbacks, so a callback that computes for 50 ms makes
//! every timer due in those 50 ms late, and every socket that became ready
//! wait. Nothing preempts it: the loop's whole model is that callbacks are
//! short.
//!
//! The experiment: a ticker timer that wants to fire every millisecond
//! records how late each firing is; with no hog, and then with a periodic
//! hog, a timer that busy-computes for `hog` every few milliseconds. The
//! lateness percentiles tell the story.
//!
//! Book: Chapter 5, "One slow callback stops the world".

use std::cell::RefCell;
use std::io;
use std::rc::Rc;
use std::time::{Duration, Instant};

use hdrhistogram::Histogram;

use crate::event_loop::EventLoop;

/// The ticker's period.
pub const TICK: Duration = Duration::from_millis(1);

/// Lateness figures of one run, in ms.
#[derive(Debug, Clone, Copy)]
pub struct Lateness {
    /// Ticks recorded.
    pub ticks: u64,
    /// Median lateness.
    pub p50_ms: f64,
    /// 99th percentile.
    pub p99_ms: f64,
    /// Worst.
    pub max_ms: f64,
}

/// Busy-computes for `duration` (a stand-in for parsing, hashing,
/// compressing...).
pub fn burn(duration: Duration) -> u64 {
    let start = Instant::now();
    let mut x = 0u64;
    while start.elapsed() < duration {
        for _ in 0..1_000 {
            x = std::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(1));
        }
    }
    x
}

// ANCHOR: ticker
fn tick(ev: &mut EventLoop, due: Instant, until: Instant, lateness: Rc<RefCell<Histogram<u64>>>) {
    let now = Instant::now();
    let late = now.saturating_duration_since(due);
    lateness
        .borrow_mut()
        .saturating_record(late.as_micros() as u64);
    if now >= until {
        ev.stop();
        return;
    }
    let next = due + TICK;
    ev.set_timeout(next.saturating_duration_since(now), move |ev| {
        tick(ev, next, until, lateness)
    });
}

fn hog(ev: &mut EventLoop, every: Duration, work: Duration) {
    burn(work);
    ev.set_timeout(every, move |ev| hog(ev, every, work));
}
// ANCHOR_END: ticker

/// Runs the ticker for `duration`, with a hog of `hog` every `hog_every`
/// if `hog` is given.
pub fn measure(duration: Duration, hog_work: Option<(Duration, Duration)>) -> io::Result<Lateness> {
    let mut ev = EventLoop::new()?;
    let lateness = Rc::new(RefCell::new(
        Histogram::<u64>::new_with_bounds(1, 60_000_000, 3).expect("valid bounds"),
    ));
    let start = Instant::now();
    let first = start + TICK;
    let until = start + duration;
    {
        let lateness = Rc::clone(&lateness);
        ev.set_timeout(TICK, move |ev| tick(ev, first, until, lateness));
    }
    if let Some((every, work)) = hog_work {
        ev.set_timeout(every, move |ev| hog(ev, every, work));
    }
    ev.run()?;
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
    fn a_hog_makes_timers_late_by_about_its_length() {
        let idle = measure(Duration::from_millis(200), None).unwrap();
        let hogged = measure(
            Duration::from_millis(300),
            Some((Duration::from_millis(5), Duration::from_millis(20))),
        )
        .unwrap();
        assert!(idle.ticks > 50 && hogged.ticks > 5);
        // A tick can only be as late as the hog is long (plus noise): the
        // worst case is at least a good part of it, and not wildly more.
        assert!(hogged.max_ms >= 10.0, "{hogged:?}");
    }
}
