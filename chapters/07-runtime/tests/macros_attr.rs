//! `#[rt::main]` and `#[rt::test]`, used, next to what they expand to
//! written out by hand (the book shows the pairs side by side); and a few
//! of the chapter's tests as they read with `#[rt::test]`.

#![cfg(not(loom))]
#![cfg(not(miri))]

use rt::time::{self, Duration, Instant};
use std::num::ParseIntError;

// ANCHOR: test_source
#[rt::test]
async fn a_spawned_task_returns_its_output() {
    let n = rt::spawn(async { 6 * 7 }).await.unwrap();
    assert_eq!(n, 42);
}
// ANCHOR_END: test_source

// ANCHOR: test_expanded
#[test]
fn a_spawned_task_returns_its_output_by_hand() {
    let body = async {
        let n = rt::spawn(async { 6 * 7 }).await.unwrap();
        assert_eq!(n, 42);
    };
    rt::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("Failed building the Runtime")
        .block_on(body)
}
// ANCHOR_END: test_expanded

// ANCHOR: main_source
#[rt::main(worker_threads = 2)]
async fn answer() -> Result<u32, ParseIntError> {
    let n: u32 = "21".parse()?;
    Ok(rt::spawn(async move { n * 2 }).await.unwrap())
}
// ANCHOR_END: main_source

// ANCHOR: main_expanded
fn answer_by_hand() -> Result<u32, ParseIntError> {
    let body = async {
        let n: u32 = "21".parse()?;
        Ok(rt::spawn(async move { n * 2 }).await.unwrap())
    };
    rt::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("Failed building the Runtime")
        .block_on(body)
}
// ANCHOR_END: main_expanded

#[test]
fn rt_main_keeps_the_return_type_and_question_mark_works() {
    assert_eq!(answer(), Ok(42));
    assert_eq!(answer_by_hand(), Ok(42));
}

#[rt::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_multi_thread_flavor_has_the_workers_asked_for() {
    assert_eq!(rt::Handle::current().metrics().num_workers(), 2);
    let on_workers = rt::spawn(async { std::thread::current().name().map(String::from) })
        .await
        .unwrap();
    assert!(on_workers.unwrap().starts_with("rt-worker"));
}

#[rt::test]
async fn a_test_may_return_a_result() -> Result<(), ParseIntError> {
    let n: i32 = "-3".parse()?;
    assert_eq!(n, -3);
    Ok(())
}

#[rt::test(crate = "rt")]
async fn the_runtime_crate_can_be_named() {
    assert_eq!(rt::spawn(async { 1 }).await.unwrap(), 1);
}

#[rt::test(start_paused = true)]
async fn with_the_clock_paused_an_hour_passes_at_once() {
    let start = Instant::now();
    let wall = std::time::Instant::now();
    time::sleep(Duration::from_secs(3600)).await;
    assert!(start.elapsed() >= Duration::from_secs(3600));
    assert!(wall.elapsed() < Duration::from_secs(60), "it really waited");
}

// The chapter's own tests (tests/time.rs, tests/channels_mpsc.rs), as they
// read with the attribute: no runtime to build, no block_on.

#[rt::test(flavor = "multi_thread", worker_threads = 2)]
async fn timeout_returns_the_output_or_elapsed() {
    let fast = time::timeout(Duration::from_secs(60), async { 5 }).await;
    assert_eq!(fast, Ok(5));
    let slow = time::timeout(
        Duration::from_millis(10),
        time::sleep(Duration::from_secs(3600)),
    )
    .await;
    assert_eq!(slow, Err(time::Elapsed));
}

#[rt::test(start_paused = true)]
async fn timeout_on_the_paused_clock_needs_no_real_wait() {
    let slow = time::timeout(
        Duration::from_secs(10),
        time::sleep(Duration::from_secs(3600)),
    )
    .await;
    assert_eq!(slow, Err(time::Elapsed));
}

#[rt::test]
async fn a_bounded_channel_delivers_in_order_and_closes_when_the_senders_go() {
    let (tx, mut rx) = rt::sync::mpsc::channel(2);
    let producer = rt::spawn(async move {
        for i in 0..10 {
            tx.send(i).await.unwrap();
        }
    });
    let mut got = Vec::new();
    while let Some(i) = rx.recv().await {
        got.push(i);
    }
    producer.await.unwrap();
    assert_eq!(got, (0..10).collect::<Vec<_>>());
}
