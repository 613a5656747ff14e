//! Tests for exercise ch07_park_token (`exercises/ch07/park_token.rs`).
//!
//! Loom models: they run only in a build with `--cfg loom`, which `cargo run
//! -p exercises -- check ch07_park_token` makes (release, debug assertions
//! on, `LOOM_MAX_PREEMPTIONS=2`, its own target directory).

#[cfg_attr(not(feature = "solutions"), path = "../ch07/park_token.rs")]
#[cfg_attr(feature = "solutions", path = "../solutions/ch07/park_token.rs")]
#[allow(dead_code, unused_variables, unused_imports)]
mod park_token;

/// Without `--cfg loom` there is no model to run: a plain `cargo test`
/// lists this test as ignored, with the command that checks the exercise.
#[cfg(not(loom))]
mod ch07_park_token {
    #[test]
    #[ignore = "a loom model: check it with `cargo run -p exercises -- check ch07_park_token`"]
    fn runs_under_loom_only() {}
}

#[cfg(loom)]
mod ch07_park_token {
    use super::park_token::Parker;
    use loom::sync::Arc;
    use loom::sync::atomic::{AtomicBool, Ordering};
    use loom::thread;
    use std::process::Command;

    /// Set in the child process that runs a model.
    const CHILD: &str = "CH07_PARK_TOKEN_MODEL";

    /// Runs the model `body` of the test `name` in a child process (this
    /// test executable, running that one test) and reports how it ended.
    ///
    /// Why a child: a lost unpark leaves `park` waiting on the condvar for
    /// ever, which loom reports as a deadlock; it does so while the waiting
    /// thread still holds the parker's mutex guard, whose drop then panics
    /// again, and a panic during a panic aborts the whole process. The
    /// child's output says which it was.
    fn model(name: &str, body: impl Fn() + Sync + Send + 'static) {
        if std::env::var_os(CHILD).is_some() {
            loom::model(body);
            return;
        }
        let output = Command::new(std::env::current_exe().unwrap())
            .args([
                &format!("ch07_park_token::{name}"),
                "--exact",
                "--nocapture",
            ])
            .env(CHILD, "1")
            .output()
            .unwrap();
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        if output.status.success() && text.contains("1 passed") {
            return;
        }
        if let Some(line) = text.lines().find(|line| line.starts_with("deadlock;")) {
            panic!(
                "lost wake-up: park() waits on the condvar and no thread is left to wake it; the \
                 unpark came and went, and left nothing that park could find or that woke it \
                 (loom: {line})"
            );
        }
        let panic: Vec<&str> = text
            .lines()
            .skip_while(|line| !line.contains("panicked at"))
            .skip(1)
            .take_while(|line| !line.starts_with("stack backtrace"))
            .collect();
        panic!("the model failed: {}", panic.join("\n"));
    }

    /// Another thread unparks while the owner parks.
    #[test]
    fn an_unpark_racing_the_park_is_not_lost() {
        model("an_unpark_racing_the_park_is_not_lost", || {
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
        model("an_unpark_before_the_park_is_kept_for_it", || {
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
