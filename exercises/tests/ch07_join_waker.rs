//! Tests for exercise ch07_join_waker (`exercises/ch07/join_waker.rs`).
//!
//! A loom model: it runs only in a build with `--cfg loom`, which `cargo run
//! -p exercises -- check ch07_join_waker` makes (release, debug assertions
//! on, `LOOM_MAX_PREEMPTIONS=2`, its own target directory).

#[cfg_attr(not(feature = "solutions"), path = "../ch07/join_waker.rs")]
#[cfg_attr(feature = "solutions", path = "../solutions/ch07/join_waker.rs")]
#[allow(dead_code, unused_variables, unused_imports)]
mod join_waker;

/// Without `--cfg loom` there is no model to run: a plain `cargo test`
/// lists this test as ignored, with the command that checks the exercise.
#[cfg(not(loom))]
mod ch07_join_waker {
    #[test]
    #[ignore = "a loom model: check it with `cargo run -p exercises -- check ch07_join_waker`"]
    fn runs_under_loom_only() {}
}

#[cfg(loom)]
mod ch07_join_waker {
    use super::join_waker::Handoff;
    use loom::sync::Arc;
    use loom::sync::atomic::{AtomicUsize, Ordering};
    use loom::thread;
    use std::task::{Poll, Wake, Waker};

    /// A waker that counts its wakes.
    struct Wakes(AtomicUsize);

    impl Wake for Wakes {
        fn wake(self: std::sync::Arc<Self>) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }

    /// The task finishes on its worker while the handle is polled.
    #[test]
    fn a_task_finishing_while_its_handle_polls_hands_over_or_wakes() {
        loom::model(|| {
            let handoff = Arc::new(Handoff::new());
            let wakes = std::sync::Arc::new(Wakes(AtomicUsize::new(0)));
            let waker = Waker::from(wakes.clone());
            let worker = {
                let handoff = handoff.clone();
                thread::spawn(move || handoff.complete(42))
            };
            let polled = handoff.poll_join(&waker);
            worker.join().unwrap();
            let woken = wakes.0.load(Ordering::SeqCst);
            match polled {
                Poll::Ready(output) => {
                    assert_eq!(output, 42, "poll_join returned the wrong output");
                    assert!(
                        woken == 0,
                        "complete woke a handle that never asked (JOIN_WAKER was clear), after \
                         poll_join had returned Ready"
                    );
                }
                Poll::Pending => {
                    assert!(
                        woken == 1,
                        "lost wake-up: poll_join returned Pending and complete woke its waker \
                         {woken} times; the task awaiting the handle sleeps for ever on a \
                         finished task"
                    );
                    assert_eq!(
                        handoff.poll_join(&waker),
                        Poll::Ready(42),
                        "polled again after the wake, the handle must get the output"
                    );
                }
            }
        });
    }
}
