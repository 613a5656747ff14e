//! Tests for exercise ch07_long_poll (`exercises/ch07/long_poll.rs`).

#[cfg_attr(not(feature = "solutions"), path = "../ch07/long_poll.rs")]
#[cfg_attr(feature = "solutions", path = "../solutions/ch07/long_poll.rs")]
#[allow(dead_code, unused_variables, unused_imports, unused_mut)]
mod long_poll;

mod ch07_long_poll {
    use super::long_poll::{LongPoll, Watched};
    use std::future::Future;
    use std::pin::Pin;
    use std::sync::{Arc, Mutex};
    use std::task::{Context, Poll, Waker};
    use std::time::Duration;

    /// Sleeps `each` in every poll, ready after `polls` of them.
    struct Blocking {
        each: Duration,
        polls: u32,
    }

    impl Future for Blocking {
        type Output = &'static str;
        fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<&'static str> {
            std::thread::sleep(self.each);
            self.polls -= 1;
            if self.polls == 0 {
                Poll::Ready("done")
            } else {
                cx.waker().wake_by_ref();
                Poll::Pending
            }
        }
    }

    fn watch(each: Duration, polls: u32, threshold: Duration) -> (Vec<LongPoll>, &'static str) {
        let reports = Arc::new(Mutex::new(Vec::new()));
        let mut watched = Watched {
            inner: Blocking { each, polls },
            name: "sleeper".into(),
            threshold,
            reports: reports.clone(),
        };
        let mut cx = Context::from_waker(Waker::noop());
        let mut polled = 0;
        let output = loop {
            if let Poll::Ready(output) = Pin::new(&mut watched).poll(&mut cx) {
                break output;
            }
            polled += 1;
            assert!(polled < polls, "still pending after {polls} polls");
        };
        let reports = reports.lock().unwrap().clone();
        (reports, output)
    }

    #[test]
    fn a_blocking_poll_is_reported_once_with_its_duration() {
        let (reports, output) = watch(Duration::from_millis(30), 1, Duration::from_millis(10));
        assert_eq!(output, "done");
        assert_eq!(reports.len(), 1);
        assert_eq!(reports[0].task, "sleeper");
        assert!(reports[0].duration >= Duration::from_millis(30));
    }

    #[test]
    fn every_long_poll_is_reported() {
        let (reports, _) = watch(Duration::from_millis(15), 3, Duration::from_millis(10));
        assert_eq!(reports.len(), 3);
    }

    #[test]
    fn short_polls_are_not_reported() {
        // A threshold no sleep of 0 ms reaches, however slow the machine.
        let (reports, output) = watch(Duration::ZERO, 5, Duration::from_secs(5));
        assert_eq!(output, "done");
        assert!(reports.is_empty(), "{reports:?}");
    }
}
