//! Tests for exercise ch08_paused_timeout (`exercises/ch08/paused_timeout.rs`).

#[cfg_attr(not(feature = "solutions"), path = "../ch08/paused_timeout.rs")]
#[cfg_attr(feature = "solutions", path = "../solutions/ch08/paused_timeout.rs")]
#[allow(dead_code, unused_variables, unused_imports, unused_mut)]
mod paused_timeout;

mod ch08_paused_timeout {
    use super::paused_timeout::run_paused;
    use std::sync::mpsc::RecvTimeoutError;
    use std::time::Duration;

    const HOUR: Duration = Duration::from_secs(3600);

    /// Runs `body` on its own thread and fails if it has not finished in
    /// 20 s of wall time: a hang guard (a clock that is not paused would
    /// wait the full hour), not a speed test.
    fn limit<T: Send + 'static>(body: impl FnOnce() -> T + Send + 'static) -> T {
        let (done, finished) = std::sync::mpsc::channel();
        let thread = std::thread::spawn(move || {
            let value = body();
            let _ = done.send(());
            value
        });
        match finished.recv_timeout(Duration::from_secs(20)) {
            // Done, or the thread panicked (it dropped the sender).
            Ok(()) | Err(RecvTimeoutError::Disconnected) => match thread.join() {
                Ok(value) => value,
                Err(panic) => std::panic::resume_unwind(panic),
            },
            Err(RecvTimeoutError::Timeout) => panic!("hung: the clock is not paused?"),
        }
    }

    #[test]
    fn a_one_hour_timeout_fires_and_the_runtime_clock_moves_an_hour() {
        let wall = std::time::Instant::now();
        let (result, passed) = limit(|| run_paused(HOUR, std::future::pending::<()>));
        assert!(
            result.is_err(),
            "nothing finishes a pending future: Elapsed"
        );
        assert_eq!(passed, HOUR, "the runtime's clock moved exactly an hour");
        assert!(
            wall.elapsed() < Duration::from_secs(20),
            "the wall clock moved {:?}",
            wall.elapsed()
        );
    }

    #[test]
    fn work_that_finishes_in_time_returns_its_output() {
        let (result, passed) = limit(|| {
            run_paused(HOUR, || async {
                rt::time::sleep(Duration::from_secs(600)).await;
                "ten minutes"
            })
        });
        assert_eq!(result.ok(), Some("ten minutes"));
        assert_eq!(passed, Duration::from_secs(600));
    }

    #[test]
    fn ready_work_takes_no_runtime_time() {
        let (result, passed) = limit(|| run_paused(Duration::from_secs(1), || async { 42 }));
        assert_eq!(result.ok(), Some(42));
        assert_eq!(passed, Duration::ZERO);
    }

    #[test]
    fn the_future_is_made_and_run_inside_a_paused_current_thread_runtime() {
        let (result, passed) = limit(|| {
            let caller = std::thread::current().id();
            run_paused(Duration::from_secs(30), move || {
                // Creating a timer needs the runtime: this panics outside one.
                let nap = rt::time::sleep(Duration::from_secs(5));
                async move {
                    nap.await;
                    std::thread::current().id() == caller
                }
            })
        });
        assert_eq!(result.ok(), Some(true), "it ran on the calling thread");
        assert_eq!(passed, Duration::from_secs(5));
    }

    #[test]
    fn the_timeout_cuts_off_long_work_at_its_limit() {
        let (result, passed) = limit(|| {
            run_paused(Duration::from_secs(90), || async {
                let mut slept = 0;
                // Bounded: the timeout stops it at 90 s, after 3 naps.
                for _ in 0..100 {
                    rt::time::sleep(Duration::from_secs(30)).await;
                    slept += 1;
                }
                slept
            })
        });
        assert!(result.is_err());
        assert_eq!(passed, Duration::from_secs(90));
    }
}
