//! Tests for exercise ch06_scheduled_flag (`exercises/ch06/scheduled_flag.rs`).
//!
//! Loom models: they run only in a build with `--cfg loom`, which `cargo run
//! -p exercises -- check ch06_scheduled_flag` makes (release, debug
//! assertions on, `LOOM_MAX_PREEMPTIONS=2`, its own target directory).

#[cfg_attr(not(feature = "solutions"), path = "../ch06/scheduled_flag.rs")]
#[cfg_attr(feature = "solutions", path = "../solutions/ch06/scheduled_flag.rs")]
#[allow(dead_code, unused_variables, unused_imports)]
mod scheduled_flag;

/// Without `--cfg loom` there is no model to run: a plain `cargo test`
/// lists this test as ignored, with the command that checks the exercise.
#[cfg(not(loom))]
mod ch06_scheduled_flag {
    #[test]
    #[ignore = "a loom model: check it with `cargo run -p exercises -- check ch06_scheduled_flag`"]
    fn runs_under_loom_only() {}
}

#[cfg(loom)]
mod ch06_scheduled_flag {
    use super::scheduled_flag::TaskFlag;
    use loom::sync::Arc;
    use loom::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    use loom::thread;
    use std::task::Poll;

    /// The executor runs the task (queued, just popped) while another thread
    /// makes its future ready, then wakes it.
    #[test]
    fn a_wake_racing_the_poll_is_not_lost() {
        loom::model(|| {
            let flag = Arc::new(TaskFlag::new_queued());
            let ready = Arc::new(AtomicBool::new(false));
            let waker = {
                let (flag, ready) = (flag.clone(), ready.clone());
                thread::spawn(move || {
                    ready.store(true, Ordering::Release);
                    flag.wake()
                })
            };
            let polled = flag.run(|| {
                if ready.load(Ordering::Acquire) {
                    Poll::Ready(())
                } else {
                    Poll::Pending
                }
            });
            let queued = waker.join().unwrap();
            assert!(
                polled.is_ready() || queued,
                "lost wake-up: the poll found the future not ready and returned Pending, and the \
                 wake found `scheduled` still set and queued nothing; nobody will poll the task again"
            );
        });
    }

    /// Two threads each write, then wake, while the executor runs the task.
    #[test]
    fn two_wakes_racing_the_poll_queue_it_once_and_lose_nothing() {
        loom::model(|| {
            let flag = Arc::new(TaskFlag::new_queued());
            let writes = Arc::new(AtomicUsize::new(0));
            let wakers: Vec<_> = (0..2)
                .map(|_| {
                    let (flag, writes) = (flag.clone(), writes.clone());
                    thread::spawn(move || {
                        writes.fetch_add(1, Ordering::Release);
                        flag.wake()
                    })
                })
                .collect();
            let Poll::Ready(seen) = flag.run(|| Poll::Ready(writes.load(Ordering::Acquire))) else {
                panic!("run must return what the poll returned (Ready)");
            };
            let queued = wakers
                .into_iter()
                .map(|waker| waker.join().unwrap())
                .filter(|&queued| queued)
                .count();
            assert!(
                queued <= 1,
                "the task was queued {queued} times: a wake while it is queued must not queue it again"
            );
            assert!(
                seen == 2 || queued == 1,
                "lost wake-up: the poll saw {seen} of the 2 writes, and neither wake queued the task \
                 (both found `scheduled` still set)"
            );
        });
    }
}
