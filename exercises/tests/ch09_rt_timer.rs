//! Tests for exercise ch09_rt_timer (`exercises/ch09/rt_timer.rs`).

#[cfg_attr(not(feature = "solutions"), path = "../ch09/rt_timer.rs")]
#[cfg_attr(feature = "solutions", path = "../solutions/ch09/rt_timer.rs")]
#[allow(dead_code, unused_variables, unused_imports, unused_mut)]
mod rt_timer;

mod ch09_rt_timer {
    use super::rt_timer::{RtSleep, RtTimer};
    use futures::poll;
    use hyper::rt::{Sleep, Timer};
    use rt::time::Instant;
    use std::future::Future;
    use std::pin::Pin;
    use std::task::{Context, Poll};
    use std::time::Duration;

    const HOUR: Duration = Duration::from_secs(3600);

    /// Runs `test` on a fresh current-thread runtime whose clock starts
    /// paused: sleeps take no real time, and the runtime's clock moves by
    /// exactly their durations. A sleep that never fires is cut off by a
    /// ten-hour timeout, on the same paused clock.
    fn paused(test: impl Future<Output = ()>) {
        let runtime = rt::runtime::Builder::new_current_thread()
            .start_paused(true)
            .build()
            .expect("runtime");
        runtime
            .block_on(async { rt::time::timeout(10 * HOUR, test).await })
            .expect("the test waited ten hours of runtime time: a sleep never fired");
    }

    /// Where the sleep lives: the same address after a reset means it was
    /// moved in place, not replaced.
    fn address(sleep: &Pin<Box<dyn Sleep>>) -> *const () {
        &**sleep as *const dyn Sleep as *const ()
    }

    #[test]
    fn sleep_takes_exactly_its_duration_on_the_runtime_clock() {
        paused(async {
            let start = Instant::now();
            let mut sleep = RtTimer.sleep(Duration::from_secs(90));
            assert!(
                poll!(sleep.as_mut()).is_pending(),
                "a 90 s sleep is not ready at once"
            );
            sleep.as_mut().await;
            assert_eq!(start.elapsed(), Duration::from_secs(90));
            assert!(
                poll!(sleep.as_mut()).is_ready(),
                "a sleep that fired stays ready"
            );
        });
    }

    #[test]
    fn now_is_the_runtime_clock_even_when_it_is_ahead_of_the_wall_clock() {
        paused(async {
            let before = RtTimer.now();
            assert_eq!(before, Instant::now().into_std());
            rt::time::advance(HOUR).await;
            assert_eq!(
                RtTimer.now(),
                Instant::now().into_std(),
                "now() must read the runtime's clock, which has moved an hour"
            );
            assert_eq!(RtTimer.now() - before, HOUR);
            rt::time::advance(Duration::from_secs(10)).await;
            assert_eq!(RtTimer.now() - before, HOUR + Duration::from_secs(10));
        });
    }

    #[test]
    fn sleep_and_sleep_until_count_on_the_runtime_clock() {
        paused(async {
            // An hour ahead of the wall clock, as after any long test wait.
            rt::time::advance(HOUR).await;
            let start = Instant::now();
            RtTimer.sleep(Duration::from_secs(5)).await;
            assert_eq!(start.elapsed(), Duration::from_secs(5), "sleep(5 s)");

            let start = Instant::now();
            let mut sleep = RtTimer.sleep_until((start + Duration::from_secs(7)).into_std());
            assert!(
                poll!(sleep.as_mut()).is_pending(),
                "the deadline is 7 s ahead on the runtime's clock"
            );
            sleep.await;
            assert_eq!(
                start.elapsed(),
                Duration::from_secs(7),
                "sleep_until(now + 7 s)"
            );

            // What hyper does: a deadline from the timer's own `now`.
            let start = Instant::now();
            RtTimer
                .sleep_until(RtTimer.now() + Duration::from_secs(3))
                .await;
            assert_eq!(
                start.elapsed(),
                Duration::from_secs(3),
                "sleep_until(timer.now() + 3 s)"
            );

            let start = Instant::now();
            RtTimer
                .sleep_until((start - Duration::from_secs(1)).into_std())
                .await;
            assert_eq!(
                start.elapsed(),
                Duration::ZERO,
                "a deadline passed is ready at once"
            );
        });
    }

    #[test]
    fn reset_moves_our_sleep_in_place_later_earlier_and_after_it_fired() {
        paused(async {
            let mut sleep = RtTimer.sleep(Duration::from_secs(5));
            let home = address(&sleep);
            assert!(poll!(sleep.as_mut()).is_pending());
            let start = Instant::now();
            RtTimer.reset(&mut sleep, (start + Duration::from_secs(60)).into_std());
            assert_eq!(
                address(&sleep),
                home,
                "ours is moved in place, not replaced by a new allocation"
            );
            assert!(sleep.is::<RtSleep>());
            sleep.as_mut().await;
            assert_eq!(
                start.elapsed(),
                Duration::from_secs(60),
                "reset later: 60 s"
            );

            let start = Instant::now();
            RtTimer.reset(&mut sleep, (start + Duration::from_secs(7)).into_std());
            assert_eq!(address(&sleep), home);
            assert!(
                poll!(sleep.as_mut()).is_pending(),
                "a sleep that fired and is reset waits again"
            );
            sleep.as_mut().await;
            assert_eq!(
                start.elapsed(),
                Duration::from_secs(7),
                "reset after firing: 7 s"
            );

            let start = Instant::now();
            let mut sleep = RtTimer.sleep(HOUR);
            let home = address(&sleep);
            assert!(poll!(sleep.as_mut()).is_pending());
            RtTimer.reset(&mut sleep, (start + Duration::from_secs(2)).into_std());
            assert_eq!(address(&sleep), home);
            sleep.await;
            assert_eq!(
                start.elapsed(),
                Duration::from_secs(2),
                "reset earlier: 2 s"
            );
        });
    }

    /// Another timer's sleep, which never fires by itself.
    struct Forever;

    impl Future for Forever {
        type Output = ();
        fn poll(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<()> {
            Poll::Pending
        }
    }

    impl Sleep for Forever {}

    #[test]
    fn reset_replaces_a_sleep_from_another_timer_with_one_of_ours() {
        paused(async {
            let start = Instant::now();
            let mut sleep: Pin<Box<dyn Sleep>> = Box::pin(Forever);
            RtTimer.reset(&mut sleep, (start + Duration::from_secs(3)).into_std());
            assert!(
                sleep.is::<RtSleep>(),
                "a Sleep that is not ours cannot be moved: replace it with ours"
            );
            rt::time::timeout(HOUR, sleep)
                .await
                .expect("the replaced sleep fires at its new deadline");
            assert_eq!(start.elapsed(), Duration::from_secs(3));
        });
    }

    /// hyper's HTTP/1.1 server keeps its header-read timeout on our timer.
    mod served {
        use super::{HOUR, RtTimer, paused};
        use bytes::Bytes;
        use chapter_07::hyper_rt::RtIo;
        use futures::io::{AsyncReadExt, AsyncWriteExt};
        use http_body_util::Full;
        use hyper::body::Incoming;
        use hyper::server::conn::http1;
        use hyper::service::service_fn;
        use hyper::{Request, Response};
        use rt::time::Instant;
        use std::convert::Infallible;

        async fn hello(_: Request<Incoming>) -> Result<Response<Full<Bytes>>, Infallible> {
            Ok(Response::new(Full::new(Bytes::from_static(b"hello\n"))))
        }

        #[test]
        fn a_client_whose_headers_never_end_is_cut_off_after_the_header_read_timeout() {
            paused(async {
                let listener = rt::net::TcpListener::bind("127.0.0.1:0")
                    .await
                    .expect("bind");
                let addr = listener.local_addr().unwrap();
                let server = rt::spawn(async move {
                    let (stream, _) = listener.accept().await.expect("accept");
                    http1::Builder::new()
                        .timer(RtTimer)
                        .header_read_timeout(HOUR)
                        .serve_connection(RtIo(stream), service_fn(hello))
                        .await
                });
                let start = Instant::now();
                let mut client = rt::net::TcpStream::connect(addr).await.expect("connect");
                // A request line and one header; the blank line never comes.
                client
                    .write_all(b"GET / HTTP/1.1\r\nHost: t\r\n")
                    .await
                    .unwrap();
                let mut answer = Vec::new();
                let _ = client.read_to_end(&mut answer).await;
                let waited = start.elapsed();
                let outcome = server.await.expect("the connection task");
                match outcome {
                    Err(error) => assert!(
                        error.is_timeout(),
                        "hyper's header-read timeout should end it: {error}"
                    ),
                    Ok(()) => panic!("a request whose headers never end is not a success"),
                }
                assert!(
                    waited >= HOUR,
                    "cut off after {waited:?} of runtime time, before the hour"
                );
                assert!(
                    !answer.starts_with(b"HTTP/1.1 200"),
                    "no answer to a request that never ended"
                );
            });
        }
    }
}
