//! A completion ring too small for the completions: the kernel keeps the
//! surplus in its overflow list, and the ring layer brings every one back.

#![cfg(target_os = "linux")]

use std::net::TcpListener;
use std::sync::atomic::Ordering;
use std::time::Duration;

use chapter_01::echo_client::{self, ClientConfig};
use chapter_10::experiments::overflow_run;
use chapter_10::server::{Options, UringServer};

#[test]
fn no_completion_is_lost_when_the_ring_overflows() {
    if !chapter_10::uring::available() {
        eprintln!("skipped: io_uring is refused here (tests/fallback.rs covers this case)");
        return;
    }
    let outcome = overflow_run(8, 2_000).unwrap();
    assert!(outcome.overflowed, "the ring never overflowed: {outcome:?}");
    assert!(outcome.overflow_flushes > 0);
    assert_eq!(outcome.reaped, 2_000);
    assert_eq!(outcome.lost_or_doubled, 0);
    assert_eq!(outcome.dropped, 0);
}

#[test]
fn a_server_with_a_tiny_completion_ring_loses_nothing() {
    if !chapter_10::uring::available() {
        eprintln!("skipped: io_uring is refused here (tests/fallback.rs covers this case)");
        return;
    }
    // Four completion slots for a hundred connections: completions overflow
    // whenever more than four arrive in one turn.
    let options = Options {
        sq_entries: 4,
        cq_entries: 4,
        ..Options::default()
    };
    let server = UringServer::new(TcpListener::bind("127.0.0.1:0").unwrap(), options).unwrap();
    let addr = server.local_addr().unwrap();
    let stats = server.stats();
    let (handle, thread) = server.spawn().unwrap();
    let report = echo_client::run(
        addr,
        ClientConfig {
            connections: 100,
            messages: 20,
            message_bytes: 100,
            timeout: Duration::from_secs(20),
            seed: 5,
        },
    );
    assert_eq!(report.first_error, None);
    assert_eq!(report.mismatches, 0);
    assert_eq!(report.bytes_verified, 100 * 20 * 100);
    assert!(
        stats.overflow_flushes.load(Ordering::Relaxed) > 0,
        "the completion ring never overflowed"
    );
    handle.stop();
    thread.join().unwrap().unwrap();
}
