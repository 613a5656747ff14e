//! Tests for exercise ch08_joinset_fail_fast (`exercises/ch08/joinset_fail_fast.rs`).

#[cfg_attr(not(feature = "solutions"), path = "../ch08/joinset_fail_fast.rs")]
#[cfg_attr(feature = "solutions", path = "../solutions/ch08/joinset_fail_fast.rs")]
#[allow(dead_code, unused_variables, unused_imports, unused_mut)]
mod joinset_fail_fast;

mod ch08_joinset_fail_fast {
    use super::joinset_fail_fast::{Work, fail_fast};
    use std::future::Future;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::mpsc::RecvTimeoutError;
    use std::time::Duration;

    use rt::time::{Instant, sleep};

    /// Runs `make()`'s future on a paused current-thread runtime, on its own
    /// thread, failing if it has not finished in 20 s of wall time (a hang
    /// guard). Returns the output and the runtime time it took.
    fn run<F, M>(make: M) -> std::thread::Result<(F::Output, Duration)>
    where
        M: FnOnce() -> F + Send + 'static,
        F: Future,
        F::Output: Send + 'static,
    {
        let (done, finished) = std::sync::mpsc::channel();
        let thread = std::thread::spawn(move || {
            let runtime = rt::runtime::Builder::new_current_thread()
                .start_paused(true)
                .build()
                .unwrap();
            let result = runtime.block_on(async move {
                let start = Instant::now();
                let output = make().await;
                (output, start.elapsed())
            });
            let _ = done.send(());
            result
        });
        match finished.recv_timeout(Duration::from_secs(20)) {
            // Done, or the thread panicked (it dropped the sender).
            Ok(()) | Err(RecvTimeoutError::Disconnected) => thread.join(),
            Err(RecvTimeoutError::Timeout) => panic!("fail_fast hung"),
        }
    }

    /// Counts drops: each piece of work holds one, so the count says how
    /// many pieces are gone (finished or aborted).
    struct Gone(Arc<AtomicUsize>);
    impl Drop for Gone {
        fn drop(&mut self) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }

    /// Work that sleeps `secs` of runtime time, then returns `result`;
    /// `finished` counts the pieces that got to the end.
    fn nap<T: Send + 'static>(
        secs: u64,
        result: Result<T, String>,
        gone: &Arc<AtomicUsize>,
        finished: &Arc<AtomicUsize>,
    ) -> Work<T, String> {
        let guard = Gone(gone.clone());
        let finished = finished.clone();
        Box::pin(async move {
            let _guard = guard;
            sleep(Duration::from_secs(secs)).await;
            finished.fetch_add(1, Ordering::SeqCst);
            result
        })
    }

    fn counters() -> (Arc<AtomicUsize>, Arc<AtomicUsize>) {
        (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)))
    }

    #[test]
    fn all_succeed_gives_every_output_in_input_order() {
        let (output, took) = run(|| async {
            let (gone, finished) = counters();
            let work = vec![
                nap(3, Ok("three"), &gone, &finished),
                nap(1, Ok("one"), &gone, &finished),
                nap(0, Ok("zero"), &gone, &finished),
                nap(2, Ok("two"), &gone, &finished),
            ];
            let result = fail_fast(work).await;
            (result, finished.load(Ordering::SeqCst))
        })
        .unwrap();
        assert_eq!(output, (Ok(vec!["three", "one", "zero", "two"]), 4));
        assert_eq!(
            took,
            Duration::from_secs(3),
            "they run at the same time: as long as the slowest"
        );
    }

    #[test]
    fn no_work_is_an_empty_success() {
        let (output, took) = run(|| fail_fast(Vec::<Work<u8, String>>::new())).unwrap();
        assert_eq!(output, Ok(vec![]));
        assert_eq!(took, Duration::ZERO);
    }

    #[test]
    fn one_failure_returns_its_error_at_once_and_the_rest_are_aborted() {
        let (output, took) = run(|| async {
            let (gone, finished) = counters();
            let work = vec![
                nap(10, Ok(1), &gone, &finished),
                nap(1, Err("broke at 1 s".to_string()), &gone, &finished),
                nap(5, Err("broke at 5 s".to_string()), &gone, &finished),
                nap(3600, Ok(4), &gone, &finished),
            ];
            let result = fail_fast(work).await;
            let gone_at_return = gone.load(Ordering::SeqCst);
            let finished_at_return = finished.load(Ordering::SeqCst);
            // Give aborted work every chance to run on, if it was not stopped.
            sleep(Duration::from_secs(2 * 3600)).await;
            (
                result,
                gone_at_return,
                finished_at_return,
                finished.load(Ordering::SeqCst),
            )
        })
        .unwrap();
        let (result, gone_at_return, finished_at_return, finished_later) = output;
        assert_eq!(result, Err("broke at 1 s".to_string()));
        assert_eq!(
            gone_at_return, 4,
            "every piece has stopped (been dropped) before fail_fast returns"
        );
        assert_eq!(finished_at_return, 1, "only the failing piece finished");
        assert_eq!(finished_later, 1, "aborted work never runs on");
        assert_eq!(
            took,
            Duration::from_secs(1 + 2 * 3600),
            "the error comes back at 1 s, not after the slowest"
        );
    }

    #[test]
    fn the_first_error_to_happen_wins_not_the_first_in_the_list() {
        let (output, _) = run(|| async {
            let (gone, finished) = counters();
            let start = Instant::now();
            let work: Vec<Work<u8, String>> = vec![
                nap(20, Err("second".to_string()), &gone, &finished),
                nap(2, Ok(7), &gone, &finished),
                nap(9, Err("first".to_string()), &gone, &finished),
            ];
            let result = fail_fast(work).await;
            (result, start.elapsed(), gone.load(Ordering::SeqCst))
        })
        .unwrap();
        assert_eq!(
            output,
            (Err("first".to_string()), Duration::from_secs(9), 3)
        );
    }

    #[test]
    fn an_immediate_failure_stops_work_that_never_got_to_run() {
        let (output, took) = run(|| async {
            let (gone, finished) = counters();
            let work: Vec<Work<u8, String>> = vec![
                nap(0, Err("at once".to_string()), &gone, &finished),
                nap(60, Ok(1), &gone, &finished),
                nap(60, Ok(2), &gone, &finished),
            ];
            let result = fail_fast(work).await;
            sleep(Duration::from_secs(120)).await;
            (
                result,
                gone.load(Ordering::SeqCst),
                finished.load(Ordering::SeqCst),
            )
        })
        .unwrap();
        assert_eq!(output, (Err("at once".to_string()), 3, 1));
        assert_eq!(took, Duration::from_secs(120));
    }

    #[test]
    fn a_panicking_piece_panics_the_caller_with_its_own_message() {
        let outcome = run(|| async {
            let (gone, finished) = counters();
            let work: Vec<Work<u8, String>> = vec![
                nap(5, Ok(1), &gone, &finished),
                Box::pin(async {
                    sleep(Duration::from_secs(1)).await;
                    panic!("piece two fell over")
                }),
            ];
            fail_fast(work).await
        });
        let panic = outcome.expect_err("the task's panic reaches the caller");
        let message = panic
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_default();
        assert_eq!(message, "piece two fell over");
    }
}
