//! The budget demo's lesson, checked both ways on one worker: a reader of
//! `rt::io::repeat` (always ready) beside a 1 ms ticker. What is asserted
//! holds on any machine, however loaded: without the budget the reader's
//! one poll lasts its whole run, so the ticker cannot tick meanwhile and
//! its next tick is late by the whole read; with the budget the reader is
//! made to yield, and the ticker ticks while it reads. Every wait is
//! bounded by the demo itself (`coop::run` gives up with an error).
//!
//! Book: Chapter 7, "The budget and the blocking pool".

use chapter_07::coop::{Config, run};
use std::time::Duration;

#[test]
fn without_the_budget_the_ticker_waits_out_the_whole_read() {
    let run = run(&Config {
        budget: false,
        duration: Duration::from_millis(300),
        stop_after_ticks: None,
        print_long_polls: false,
    })
    .expect("the run completes");
    assert_eq!(run.ticks_while_reading, 0, "{run:?}");
    assert_eq!(run.forced_yields, 0, "{run:?}");
    // The ticker's pending tick was due at most 1 ms after the reader
    // started, and it woke only after the reader finished.
    let worst = run.lateness.iter().max().copied().unwrap_or_default();
    assert!(
        worst + Duration::from_millis(1) >= run.reading,
        "worst lateness {worst:?}, reading {:?}",
        run.reading
    );
}

#[test]
fn with_the_budget_the_ticker_keeps_ticking_while_the_reader_reads() {
    // The reader stops after the ticker's 20th tick meanwhile; 30 s is
    // only the bound of the wait.
    let run = run(&Config {
        budget: true,
        duration: Duration::from_secs(30),
        stop_after_ticks: Some(20),
        print_long_polls: false,
    })
    .expect("the run completes");
    assert!(run.ticks_while_reading >= 20, "{run:?}");
    assert!(run.forced_yields > 0, "{run:?}");
}
