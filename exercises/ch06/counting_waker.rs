//! Exercise ch06_counting_waker: a waker written by hand.
//!
//! A `Waker` is a data pointer and a `RawWakerVTable` of four functions:
//! `clone`, `wake` (consumes the waker), `wake_by_ref` (does not) and
//! `drop`. Build one whose data is an `Arc<AtomicUsize>` and whose wakes
//! add one to the counter. Chapter 6's `waker.rs` does the same for its
//! executor; try it yourself before you look.
//!
//! The rules the tests check:
//!
//! * each `Waker` owns exactly one strong reference to the `Arc`: cloning
//!   adds one, dropping releases one, `wake` releases the one it consumed,
//!   `wake_by_ref` changes nothing;
//! * every `wake` and `wake_by_ref` adds exactly one to the counter;
//! * `will_wake` is true between clones of one waker.
//!
//! Every `unsafe` block needs a `// SAFETY:` comment saying why it is sound
//! (the exercise's clippy run enforces it).
//!
//! Check: `cargo run -p exercises -- check ch06_counting_waker` (and, if
//! you have Miri, `cargo +nightly miri test -p exercises --test
//! ch06_counting_waker`).
//! Hint: `cargo run -p exercises -- hint ch06_counting_waker`.

use std::sync::Arc;
use std::sync::atomic::AtomicUsize;
use std::task::Waker;

/// A waker that counts its wake-ups in `counter`.
pub fn counting_waker(counter: Arc<AtomicUsize>) -> Waker {
    let _ = counter;
    todo!("Arc::into_raw, a static RawWakerVTable, Waker::from_raw")
}
