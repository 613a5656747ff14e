//! Tests for exercise ch07_park_token (`exercises/ch07/park_token.rs`).
//!
//! Loom models: they run only in a build with `--cfg loom`, which `cargo run
//! -p exercises -- check ch07_park_token` makes (release, debug assertions
//! on, `LOOM_MAX_PREEMPTIONS=2`, its own target directory).

#[cfg_attr(not(feature = "solutions"), path = "../ch07/park_token.rs")]
#[cfg_attr(feature = "solutions", path = "../solutions/ch07/park_token.rs")]
#[allow(dead_code, unused_variables, unused_imports)]
mod park_token;

#[cfg(not(loom))]
mod ch07_park_token {
    #[test]
    fn runs_under_loom_only() {
        panic!(
            "ch07_park_token's tests are loom models: check it with \
             `cargo run -p exercises -- check ch07_park_token`, which builds with --cfg loom"
        );
    }
}

#[cfg(loom)]
mod ch07_park_token {
    use super::park_token::Parker;
    use loom::sync::Arc;
    use loom::sync::atomic::{AtomicBool, Ordering};
    use loom::thread;
    use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};

    /// Runs `body` under loom, and says what a deadlock means here.
    fn model(body: impl Fn() + Sync + Send + 'static) {
        let Err(payload) = catch_unwind(AssertUnwindSafe(|| loom::model(body))) else {
            return;
        };
        let message = payload
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| payload.downcast_ref::<&str>().copied())
            .unwrap_or_default();
        if message.contains("deadlock") {
            panic!(
                "lost wake-up: park() waits on the condvar and no thread is left to wake it; the \
                 unpark came and went and left nothing that park could find (loom: {message})"
            );
        }
        resume_unwind(payload);
    }

    /// Another thread unparks while the owner parks.
    #[test]
    fn an_unpark_racing_the_park_is_not_lost() {
        model(|| {
            let parker = Arc::new(Parker::new());
            let sent = Arc::new(AtomicBool::new(false));
            let unparker = {
                let (parker, sent) = (parker.clone(), sent.clone());
                thread::spawn(move || {
                    sent.store(true, Ordering::Relaxed);
                    parker.unpark();
                })
            };
            parker.park();
            assert!(
                sent.load(Ordering::Relaxed),
                "park returned before the unpark (it saw none of what the unparker did before)"
            );
            unparker.join().unwrap();
        });
    }

    /// An unpark that ends before the owner parks.
    #[test]
    fn an_unpark_before_the_park_is_kept_for_it() {
        model(|| {
            let parker = Arc::new(Parker::new());
            let unparker = {
                let parker = parker.clone();
                thread::spawn(move || parker.unpark())
            };
            unparker.join().unwrap();
            parker.park();
        });
    }
}
