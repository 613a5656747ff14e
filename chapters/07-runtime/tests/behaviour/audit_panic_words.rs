//! Misuse panics in Tokio's words (third audit).
//!
//! A Tokio program's tests match a misuse by its panic message, usually with
//! `#[should_panic(expected = "...")]`, which passes when the message
//! contains the words. So where rt panics for the misuse Tokio panics for,
//! it must say what Tokio 1.54 says (rt may add its own explanation after
//! them). Each test takes the words from Tokio's source, catches the panic
//! with [`expect_panic`] and checks that the message contains them; the
//! file compiles against Tokio too (`behaviour_tokio.rs`), where every test
//! must pass first. A failure in the Tokio build is a wrong test; in the rt
//! build, a message a Tokio program's test would not find.

use crate::behaviour::{expect_panic, limit, says};
use crate::{rt, shim};
use futures::FutureExt;
use std::time::Duration;

/// `interval` and `interval_at` with a zero period.
#[test]
fn an_interval_of_zero_panics_with_tokios_words() {
    limit("interval(0)", || {
        shim::runtime().block_on(async {
            let caught = expect_panic("interval(ZERO)", || {
                drop(rt::time::interval(Duration::ZERO));
            });
            says(&caught.message, "`period` must be non-zero.");
            let start = rt::time::Instant::now();
            let caught = expect_panic("interval_at(now, ZERO)", || {
                drop(rt::time::interval_at(start, Duration::ZERO));
            });
            says(&caught.message, "`period` must be non-zero.");
        });
    });
}

/// `ReadHalf::unsplit` with the write half of another `io::split`.
#[test]
fn unsplit_with_an_unrelated_half_panics_with_tokios_words() {
    limit("unsplit unrelated", || {
        shim::runtime().block_on(async {
            let (one, _) = rt::io::duplex(64);
            let (two, _) = rt::io::duplex(64);
            let (read_one, _write_one) = rt::io::split(one);
            let (_read_two, write_two) = rt::io::split(two);
            let caught = expect_panic("unsplit of unrelated halves", move || {
                drop(read_one.unsplit(write_two));
            });
            says(
                &caught.message,
                "Unrelated `split::Write` passed to `split::Read::unsplit`.",
            );
        });
    });
}

/// `copy_bidirectional_with_sizes` with a zero buffer size, either way.
#[test]
fn copy_bidirectional_with_a_zero_buffer_panics_with_tokios_words() {
    limit("copy_bidirectional_with_sizes(0)", || {
        shim::runtime().block_on(async {
            let (mut a, _a_peer) = rt::io::duplex(64);
            let (mut b, _b_peer) = rt::io::duplex(64);
            let caught = expect_panic("a_to_b 0", || {
                let _ = rt::io::copy_bidirectional_with_sizes(&mut a, &mut b, 0, 8).now_or_never();
            });
            says(&caught.message, "`a_to_b_buf_size` must be greater than 0");
            let caught = expect_panic("b_to_a 0", || {
                let _ = rt::io::copy_bidirectional_with_sizes(&mut a, &mut b, 8, 0).now_or_never();
            });
            says(&caught.message, "`b_to_a_buf_size` must be greater than 0");
        });
    });
}

/// `Semaphore::add_permits` past `MAX_PERMITS`: more than a semaphore may
/// hold at all, and more than this one can take on top of what it holds.
#[test]
fn adding_permits_past_the_maximum_panics_with_tokios_words() {
    use rt::sync::Semaphore;
    let empty = Semaphore::new(0);
    let caught = expect_panic("add_permits(MAX + 1)", || {
        empty.add_permits(Semaphore::MAX_PERMITS + 1);
    });
    says(&caught.message, "cannot add more than MAX_PERMITS permits");
    let full = Semaphore::new(Semaphore::MAX_PERMITS);
    let caught = expect_panic("add_permits(1) to a full semaphore", || {
        full.add_permits(1);
    });
    says(&caught.message, "would overflow MAX_PERMITS");
    let caught = expect_panic("Semaphore::new(MAX + 1)", || {
        let _too_many = Semaphore::new(Semaphore::MAX_PERMITS + 1);
    });
    says(
        &caught.message,
        "a semaphore may not have more than MAX_PERMITS permits",
    );
}

/// A `JoinHandle` polled again after it returned the task's output.
#[test]
fn a_join_handle_polled_after_its_output_panics_with_tokios_words() {
    limit("JoinHandle polled twice", || {
        shim::runtime().block_on(async {
            let mut handle = rt::spawn(async { 7 });
            assert_eq!((&mut handle).await.unwrap(), 7);
            let caught = expect_panic("poll after Ready", || {
                let _ = (&mut handle).now_or_never();
            });
            says(&caught.message, "JoinHandle polled after completion");
        });
    });
}

/// `Builder::max_io_events_per_tick(0)`.
#[test]
fn zero_io_events_per_tick_panics_with_tokios_words() {
    let caught = expect_panic("max_io_events_per_tick(0)", || {
        let mut builder = rt::runtime::Builder::new_current_thread();
        builder.max_io_events_per_tick(0);
    });
    says(&caught.message, "max_io_events_per_tick must be non-zero");
}
