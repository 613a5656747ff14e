//! An audit of the paused clock and the timers under it, at the edges the
//! other time files leave out: the panics of `pause`, `resume` and
//! `advance` outside a runtime and on a multi-thread one, and of
//! `start_paused` on a multi-thread builder (Tokio's words); an `advance`
//! that overflows, pausing again after `resume`, pausing from a blocking
//! job, `advance` from a spawned task and while a blocking job runs; the
//! clock read from a thread that entered the runtime, under another
//! runtime's `enter` guard and across `block_on` calls; when auto-advance
//! must wait (a yielding `block_on` future, a blocking job still queued)
//! and what it reaches (a timer set before the pause, a chain of sleeps
//! after an `advance`); the timers one `advance` passes completing "at the
//! same time"; far-future sleeps, timeouts and intervals (`Duration::MAX`:
//! Tokio caps sleeps and periods at thirty years, and a timeout too long
//! to add to now never elapses; a sleep beyond the timing wheel's range);
//! an interval of one nanosecond, resets of an interval before its first
//! tick and of a completed sleep, and `sleep_until` an instant from std's
//! clock. Most tests need a paused clock, which needs the current-thread
//! runtime (on Tokio and on ours), so they return early on the
//! multi-thread flavour; the tests of the multi-thread panics return early
//! on the other.

use super::{expect_panic, limit, panic_message, paused_runtime, says};
use crate::{rt, shim};
use futures::FutureExt;
use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Thirty years: Tokio's "far future", where a deadline too far to add to
/// now is put.
const THIRTY_YEARS: Duration = Duration::from_secs(86_400 * 365 * 30);

/// `pause`, `resume` and `advance` "panic [...] if called from outside of
/// the Tokio runtime"; Tokio's message says "time cannot be frozen from
/// outside the Tokio runtime", for all three (`advance` when polled).
#[test]
#[allow(clippy::redundant_closure)]
fn pause_resume_and_advance_outside_a_runtime_say_time_cannot_be_frozen() {
    limit("pause/resume/advance outside a runtime", || {
        let words = "time cannot be frozen from outside the Tokio runtime";
        expect_panic("pause outside", || rt::time::pause()).assert_says(words);
        expect_panic("resume outside", || rt::time::resume()).assert_says(words);
        expect_panic("advance outside", || {
            futures::executor::block_on(rt::time::advance(Duration::from_secs(1)))
        })
        .assert_says(words);
    });
}

/// "Pausing time requires the `current_thread` Tokio runtime. This is the
/// default Runtime used by `#[tokio::test]`": `pause` on a multi-thread
/// runtime panics with those words.
#[test]
fn pause_on_a_multi_thread_runtime_names_the_current_thread_tokio_runtime() {
    if !shim::MULTI_THREAD {
        return; // the current-thread runtime may pause
    }
    limit("pause multi-thread words", || {
        shim::runtime().block_on(async {
            expect_panic("pause on multi-thread", rt::time::pause)
                .assert_says("`time::pause()` requires the `current_thread` Tokio runtime");
        });
    });
}

/// `Builder::start_paused`: "Pausing time requires the current-thread
/// runtime; construction of the runtime will panic otherwise", with the
/// words of `pause` ("`time::pause()` requires the `current_thread` Tokio
/// runtime"). The current-thread builder of the same settings builds.
#[test]
fn start_paused_on_a_multi_thread_builder_panics_with_the_words_of_pause() {
    limit("start_paused multi-thread words", || {
        let caught = expect_panic("start_paused multi-thread", || {
            rt::runtime::Builder::new_multi_thread()
                .worker_threads(1)
                .enable_all()
                .start_paused(true)
                .build()
        });
        caught.assert_says("`time::pause()` requires the `current_thread` Tokio runtime");
        let runtime = rt::runtime::Builder::new_current_thread()
            .enable_all()
            .start_paused(true)
            .build()
            .expect("a paused current-thread runtime");
        drop(runtime);
    });
}

/// On a multi-thread runtime the clock is never frozen: `resume` and
/// `advance` panic as they do on an unpaused runtime ("time is not
/// frozen"), and the clock is the system's (it moves with real time).
#[test]
fn resume_and_advance_on_a_multi_thread_runtime_say_time_is_not_frozen() {
    if !shim::MULTI_THREAD {
        return; // this is about the multi-thread runtime
    }
    limit("resume/advance multi-thread", || {
        let runtime = shim::runtime();
        runtime.block_on(async {
            expect_panic("resume on multi-thread", rt::time::resume)
                .assert_says("time is not frozen");
            let caught = AssertUnwindSafe(rt::time::advance(Duration::from_secs(1)))
                .catch_unwind()
                .await
                .expect_err("advance on a multi-thread runtime returned");
            says(&panic_message(&*caught), "time is not frozen");
            let before = rt::time::Instant::now();
            let std_before = std::time::Instant::now();
            std::thread::sleep(Duration::from_millis(2));
            assert!(rt::time::Instant::now() > before, "the clock stood still");
            assert!(rt::time::Instant::now().into_std() > std_before);
        });
    });
}

/// `advance`: "Panics if [...] the input `duration` is too large (such as
/// `Duration::MAX`) to be safely added to the current time without causing
/// an overflow": the panic speaks of an overflow, and the clock is left
/// where it was, paused and usable (a sleep after it auto-advances).
#[test]
fn an_advance_that_overflows_panics_and_leaves_the_clock_usable() {
    if shim::MULTI_THREAD {
        return; // time can be paused on the current-thread runtime only
    }
    limit("advance overflow", || {
        paused_runtime().block_on(async {
            let start = rt::time::Instant::now();
            let caught = AssertUnwindSafe(rt::time::advance(Duration::MAX))
                .catch_unwind()
                .await
                .expect_err("advance(Duration::MAX) returned");
            says(&panic_message(&*caught), "overflow");
            assert_eq!(rt::time::Instant::now(), start, "the clock moved");
            rt::time::sleep(Duration::from_secs(5)).await;
            assert_eq!(start.elapsed(), Duration::from_secs(5));
        });
    });
}

/// `pause` after `resume` freezes the clock again (it is not "already
/// frozen"), keeping the time advanced before; auto-advance works again.
#[test]
fn pause_after_resume_freezes_again_and_auto_advances() {
    if shim::MULTI_THREAD {
        return; // time can be paused on the current-thread runtime only
    }
    limit("pause after resume", || {
        paused_runtime().block_on(async {
            let start = rt::time::Instant::now();
            rt::time::advance(Duration::from_secs(3600)).await;
            rt::time::resume();
            rt::time::sleep(Duration::from_millis(1)).await;
            rt::time::pause();
            let frozen = rt::time::Instant::now();
            assert!(frozen - start > Duration::from_secs(3600));
            std::thread::sleep(Duration::from_millis(3));
            assert_eq!(rt::time::Instant::now(), frozen, "the clock ran");
            rt::time::sleep(Duration::from_secs(600)).await;
            let moved = frozen.elapsed();
            assert!(
                moved >= Duration::from_secs(600)
                    && moved <= Duration::from_secs(600) + Duration::from_millis(1),
                "moved {moved:?}"
            );
        });
    });
}

/// `advance` makes "all `sleep` calls with a deadline before the new time
/// [...] complete 'at the same time'": two tasks sleeping 10 and 20 ms,
/// woken by one `advance` of 30 ms, both see the clock at 30 ms, not at
/// their deadlines.
#[test]
fn the_timers_an_advance_passes_complete_at_the_same_instant() {
    if shim::MULTI_THREAD {
        return; // time can be paused on the current-thread runtime only
    }
    limit("advance: same instant", || {
        paused_runtime().block_on(async {
            let start = rt::time::Instant::now();
            let woke = Arc::new(Mutex::new(Vec::new()));
            let mut tasks = Vec::new();
            for ms in [10u64, 20] {
                let woke = woke.clone();
                tasks.push(rt::spawn(async move {
                    rt::time::sleep(Duration::from_millis(ms)).await;
                    woke.lock().unwrap().push(start.elapsed());
                }));
            }
            rt::task::yield_now().await;
            rt::time::advance(Duration::from_millis(30)).await;
            for task in tasks {
                task.await.unwrap();
            }
            let woke = woke.lock().unwrap().clone();
            assert_eq!(woke, [Duration::from_millis(30); 2]);
            assert_eq!(start.elapsed(), Duration::from_millis(30));
        });
    });
}

/// A sleep's deadline is fixed when it is made (`sleep` is
/// "`sleep_until(Instant::now() + duration)`"): one made, then passed by
/// an `advance` before its first poll, completes at once when awaited,
/// without moving the clock.
#[test]
fn a_sleep_made_before_an_advance_past_its_deadline_completes_at_once() {
    if shim::MULTI_THREAD {
        return; // time can be paused on the current-thread runtime only
    }
    limit("sleep made before advance", || {
        paused_runtime().block_on(async {
            let start = rt::time::Instant::now();
            let sleep = rt::time::sleep(Duration::from_secs(10));
            assert_eq!(sleep.deadline(), start + Duration::from_secs(10));
            rt::time::advance(Duration::from_secs(11)).await;
            sleep.await;
            assert_eq!(start.elapsed(), Duration::from_secs(11));
        });
    });
}

/// Between two `block_on` calls the paused clock stands still, and a task
/// spawned in the first, asleep for ten seconds, is woken in the second
/// by auto-advance, with the clock at its deadline.
#[test]
fn the_paused_clock_stands_still_between_block_ons_and_a_task_timer_fires_later() {
    if shim::MULTI_THREAD {
        return; // time can be paused on the current-thread runtime only
    }
    limit("paused clock across block_on", || {
        let runtime = paused_runtime();
        let (start, task) = runtime.block_on(async {
            let start = rt::time::Instant::now();
            let task = rt::spawn(async move {
                rt::time::sleep(Duration::from_secs(10)).await;
                rt::time::Instant::now()
            });
            rt::task::yield_now().await;
            (start, task)
        });
        std::thread::sleep(Duration::from_millis(5));
        let woke = runtime.block_on(async move {
            assert_eq!(rt::time::Instant::now(), start, "the clock ran");
            task.await.unwrap()
        });
        assert_eq!(woke, start + Duration::from_secs(10));
    });
}

/// `Instant::now()` reads the clock of the runtime whose context is
/// entered: a plain thread that enters the paused runtime with
/// `Handle::enter` reads the paused (and advanced) clock, and outside the
/// guard the system's again.
#[test]
fn a_thread_that_entered_the_paused_runtime_reads_its_clock() {
    if shim::MULTI_THREAD {
        return; // time can be paused on the current-thread runtime only
    }
    limit("Instant::now under Handle::enter", || {
        let runtime = paused_runtime();
        let here = runtime.block_on(async {
            rt::time::advance(Duration::from_secs(86_400)).await;
            rt::time::Instant::now()
        });
        let handle = runtime.handle().clone();
        let (there, outside) = std::thread::spawn(move || {
            let there = {
                let _guard = handle.enter();
                std::thread::sleep(Duration::from_millis(2));
                rt::time::Instant::now()
            };
            (there, rt::time::Instant::now())
        })
        .join()
        .unwrap();
        assert_eq!(there, here);
        assert!(outside < here, "outside the runtime, now() read its clock");
    });
}

/// `pause` works wherever the current-thread runtime's context is, a
/// blocking job included: paused there, the runtime's clock stands still
/// and auto-advances once the job is done.
#[test]
fn pause_from_a_blocking_job_pauses_the_runtimes_clock() {
    if shim::MULTI_THREAD {
        return; // time can be paused on the current-thread runtime only
    }
    limit("pause in spawn_blocking", || {
        shim::runtime().block_on(async {
            let paused_at = rt::task::spawn_blocking(|| {
                rt::time::pause();
                rt::time::Instant::now()
            })
            .await
            .unwrap();
            std::thread::sleep(Duration::from_millis(2));
            assert_eq!(rt::time::Instant::now(), paused_at, "the clock ran");
            rt::time::sleep(Duration::from_secs(3600)).await;
            let moved = paused_at.elapsed();
            assert!(
                moved >= Duration::from_secs(3600)
                    && moved <= Duration::from_secs(3600) + Duration::from_millis(1),
                "moved {moved:?}"
            );
        });
    });
}

/// `advance` is explicit, so work on the blocking pool (which holds back
/// auto-advance) does not stop it: with a job waiting, `advance(1 h)`
/// moves the clock by the hour at once.
#[test]
fn a_running_blocking_job_does_not_hold_back_an_explicit_advance() {
    if shim::MULTI_THREAD {
        return; // time can be paused on the current-thread runtime only
    }
    limit("advance during spawn_blocking", || {
        paused_runtime().block_on(async {
            let (release, wait) = std::sync::mpsc::channel::<()>();
            let job = rt::task::spawn_blocking(move || wait.recv().unwrap());
            let start = rt::time::Instant::now();
            rt::time::advance(Duration::from_secs(3600)).await;
            assert_eq!(start.elapsed(), Duration::from_secs(3600));
            release.send(()).unwrap();
            job.await.unwrap();
        });
    });
}

/// A far-future sleep must not overflow: Tokio caps a sleep's duration
/// at about thirty years ("roughly 30 years from now"), so
/// `sleep(Duration::MAX)` and a sleep of forty years both have their
/// deadline thirty years on, and under a paused clock awaiting one
/// auto-advances the clock there and completes.
#[test]
fn far_future_sleeps_are_capped_at_thirty_years_and_complete_there() {
    if shim::MULTI_THREAD {
        return; // time can be paused on the current-thread runtime only
    }
    limit("sleep(MAX) paused", || {
        paused_runtime().block_on(async {
            let start = rt::time::Instant::now();
            let forty_years = rt::time::sleep(THIRTY_YEARS / 3 * 4);
            assert_eq!(forty_years.deadline(), start + THIRTY_YEARS);
            let sleep = rt::time::sleep(Duration::MAX);
            assert_eq!(sleep.deadline(), start + THIRTY_YEARS);
            sleep.await;
            assert_eq!(rt::time::Instant::now(), start + THIRTY_YEARS);
            forty_years.await;
            assert_eq!(rt::time::Instant::now(), start + THIRTY_YEARS);
        });
    });
}

/// `timeout` is not capped the same way: a duration that fits is kept (a
/// timeout of forty years elapses after forty years of paused time), and
/// one too long to add to now (`Duration::MAX`) sets no timer at all, so
/// it never elapses: the future it wraps, asleep for fifty years, wins.
#[test]
fn timeout_duration_max_never_elapses_and_long_timeouts_are_not_capped() {
    if shim::MULTI_THREAD {
        return; // time can be paused on the current-thread runtime only
    }
    limit("timeout(MAX) paused", || {
        paused_runtime().block_on(async {
            let forty_years = THIRTY_YEARS / 3 * 4;
            let start = rt::time::Instant::now();
            let out = rt::time::timeout(forty_years, std::future::pending::<()>()).await;
            assert!(out.is_err());
            assert_eq!(start.elapsed(), forty_years);

            let start = rt::time::Instant::now();
            let out = rt::time::timeout(Duration::MAX, async {
                rt::time::sleep(THIRTY_YEARS).await;
                rt::time::sleep(THIRTY_YEARS / 3 * 2).await;
                "fifty years"
            })
            .await;
            assert_eq!(out, Ok("fifty years"));
            assert_eq!(start.elapsed(), THIRTY_YEARS / 3 * 5);
        });
    });
}

/// A sleep of three years, longer than the timing wheel spans (about 2.2
/// years), is not cut short: under a paused clock it completes at its
/// deadline, and a two-year sleep beside it completes first, at its own.
#[test]
fn sleeps_beyond_the_wheels_range_fire_at_their_deadlines() {
    if shim::MULTI_THREAD {
        return; // time can be paused on the current-thread runtime only
    }
    limit("three-year sleep", || {
        paused_runtime().block_on(async {
            let start = rt::time::Instant::now();
            let year = Duration::from_secs(86_400 * 365);
            let long = rt::spawn(async move {
                rt::time::sleep(year * 3).await;
                start.elapsed()
            });
            let short = rt::spawn(async move {
                rt::time::sleep(year * 2).await;
                start.elapsed()
            });
            assert_eq!(short.await.unwrap(), year * 2);
            assert_eq!(long.await.unwrap(), year * 3);
        });
    });
}

/// An interval's period is capped as a sleep is: `interval(Duration::MAX)`
/// reports a `period()` of thirty years, ticks at once, then thirty years
/// later (no overflow); `reset_after` a longer time is capped too.
#[test]
fn an_interval_of_duration_max_has_a_period_of_thirty_years() {
    if shim::MULTI_THREAD {
        return; // time can be paused on the current-thread runtime only
    }
    limit("interval(MAX)", || {
        paused_runtime().block_on(async {
            let start = rt::time::Instant::now();
            let mut interval = rt::time::interval(Duration::MAX);
            assert_eq!(interval.period(), THIRTY_YEARS);
            assert_eq!(interval.tick().await, start);
            assert_eq!(interval.tick().await, start + THIRTY_YEARS);
            assert_eq!(rt::time::Instant::now(), start + THIRTY_YEARS);

            let now = rt::time::Instant::now();
            let mut interval = rt::time::interval_at(now, Duration::from_secs(1));
            interval.reset_after(Duration::MAX);
            assert_eq!(interval.tick().await, now + THIRTY_YEARS);
        });
    });
}

/// `tick` returns each tick's scheduled instant, even for a period finer
/// than the timer's millisecond: an interval of one nanosecond reports
/// 0, 1, 2, 3 ns after its start, and the paused clock moves by at most
/// one millisecond to get there.
#[test]
fn an_interval_of_one_nanosecond_reports_its_scheduled_instants() {
    if shim::MULTI_THREAD {
        return; // time can be paused on the current-thread runtime only
    }
    limit("interval(1 ns)", || {
        paused_runtime().block_on(async {
            let start = rt::time::Instant::now();
            let mut interval = rt::time::interval(Duration::from_nanos(1));
            let mut ticks = Vec::new();
            for _ in 0..4 {
                ticks.push(interval.tick().await - start);
            }
            let expected: Vec<Duration> = (0..4).map(Duration::from_nanos).collect();
            assert_eq!(ticks, expected);
            let moved = start.elapsed();
            assert!(
                moved > Duration::ZERO && moved <= Duration::from_millis(1),
                "moved {moved:?}"
            );
        });
    });
}

/// `Interval::reset`: "the next tick will be after the specified period"
/// from now, so a reset before the first tick drops the immediate tick;
/// `reset_immediately` brings it back, and the tick after it is one period
/// from then.
#[test]
fn a_reset_before_the_first_tick_drops_the_immediate_tick() {
    if shim::MULTI_THREAD {
        return; // time can be paused on the current-thread runtime only
    }
    limit("interval reset before first tick", || {
        paused_runtime().block_on(async {
            let start = rt::time::Instant::now();
            let period = Duration::from_millis(100);
            let mut interval = rt::time::interval(period);
            interval.reset();
            assert_eq!(interval.tick().await, start + period);
            assert_eq!(start.elapsed(), period);

            let mut interval = rt::time::interval(period);
            interval.reset_after(Duration::from_millis(40));
            interval.reset_immediately();
            let now = rt::time::Instant::now();
            assert_eq!(interval.tick().await, now);
            assert_eq!(interval.tick().await, now + period);
        });
    });
}

/// `Sleep::reset` "can be called both before and after the future has
/// completed": after completing, a reset to later makes the sleep pending
/// again (`is_elapsed` false, the new `deadline`), and it completes at the
/// new deadline.
#[test]
fn a_completed_sleep_reset_to_later_is_pending_until_the_new_deadline() {
    if shim::MULTI_THREAD {
        return; // time can be paused on the current-thread runtime only
    }
    limit("reset a completed sleep", || {
        paused_runtime().block_on(async {
            let start = rt::time::Instant::now();
            let mut sleep = Box::pin(rt::time::sleep(Duration::from_secs(1)));
            sleep.as_mut().await;
            assert!(sleep.is_elapsed());
            let again = start + Duration::from_secs(5);
            sleep.as_mut().reset(again);
            assert!(!sleep.is_elapsed(), "reset to later, yet still elapsed");
            assert_eq!(sleep.deadline(), again);
            assert!(futures::poll!(sleep.as_mut()).is_pending());
            sleep.as_mut().await;
            assert!(sleep.is_elapsed());
            assert_eq!(rt::time::Instant::now(), again);
        });
    });
}

/// `sleep_until` an instant made with `Instant::from_std` from std's
/// clock: under a paused clock (which std's clock runs ahead of), the
/// sleep auto-advances the paused clock to that instant, within the
/// timer's millisecond.
#[test]
fn sleep_until_an_instant_from_std_reaches_it_on_the_paused_clock() {
    if shim::MULTI_THREAD {
        return; // time can be paused on the current-thread runtime only
    }
    limit("sleep_until from_std", || {
        paused_runtime().block_on(async {
            std::thread::sleep(Duration::from_millis(2));
            let target =
                rt::time::Instant::from_std(std::time::Instant::now() + Duration::from_secs(60));
            assert!(target > rt::time::Instant::now() + Duration::from_secs(60));
            rt::time::sleep_until(target).await;
            let now = rt::time::Instant::now();
            assert!(
                now >= target && now - target < Duration::from_millis(1),
                "woke {:?} from the target",
                now.saturating_duration_since(target)
            );
        });
    });
}

/// A `Sleep` polled once, then given to a task that awaits it: the task
/// is the one woken at its deadline (the newest waker counts), by
/// auto-advance, and `is_elapsed` was false before.
#[test]
fn a_sleep_moved_to_another_task_wakes_that_task() {
    if shim::MULTI_THREAD {
        return; // time can be paused on the current-thread runtime only
    }
    limit("sleep moved to a task", || {
        paused_runtime().block_on(async {
            let start = rt::time::Instant::now();
            let mut sleep = Box::pin(rt::time::sleep(Duration::from_secs(2)));
            assert!(futures::poll!(sleep.as_mut()).is_pending());
            assert!(!sleep.is_elapsed());
            let woke = rt::spawn(async move {
                sleep.await;
                rt::time::Instant::now()
            })
            .await
            .unwrap();
            assert_eq!(woke, start + Duration::from_secs(2));
        });
    });
}

/// `set_missed_tick_behavior` applies to the next late tick, even when
/// the ticks were missed before it was called: missed under `Burst`, then
/// switched to `Skip`, the interval skips.
#[test]
fn the_missed_tick_behavior_set_after_a_stall_applies_to_it() {
    if shim::MULTI_THREAD {
        return; // time can be paused on the current-thread runtime only
    }
    limit("behaviour set after stall", || {
        paused_runtime().block_on(async {
            let start = rt::time::Instant::now();
            let mut interval = rt::time::interval(Duration::from_millis(10));
            interval.tick().await;
            rt::time::advance(Duration::from_millis(35)).await;
            interval.set_missed_tick_behavior(rt::time::MissedTickBehavior::Skip);
            let mut ticks = Vec::new();
            for _ in 0..3 {
                ticks.push(interval.tick().await - start);
            }
            let expected: Vec<Duration> = [10u64, 40, 50]
                .into_iter()
                .map(Duration::from_millis)
                .collect();
            assert_eq!(ticks, expected);
        });
    });
}

/// A task woken by a timer that `advance` fired is the runtime's work, so
/// auto-advance does not jump past the timer it registers next: a task
/// that sleeps 10 ms three times after an `advance` of 10 ms, under a
/// one-hour timeout, finishes with the clock at 30 ms.
#[test]
fn auto_advance_steps_through_a_chain_of_sleeps_after_an_advance() {
    if shim::MULTI_THREAD {
        return; // time can be paused on the current-thread runtime only
    }
    limit("chain of sleeps", || {
        paused_runtime().block_on(async {
            let start = rt::time::Instant::now();
            let done = Arc::new(AtomicBool::new(false));
            let flag = done.clone();
            let task = rt::spawn(async move {
                for _ in 0..3 {
                    rt::time::sleep(Duration::from_millis(10)).await;
                }
                flag.store(true, Ordering::SeqCst);
                start.elapsed()
            });
            rt::task::yield_now().await;
            rt::time::advance(Duration::from_millis(10)).await;
            let out = rt::time::timeout(Duration::from_secs(3600), task)
                .await
                .expect("the chain of sleeps timed out");
            assert!(done.load(Ordering::SeqCst));
            assert_eq!(out.unwrap(), Duration::from_millis(30));
            assert_eq!(start.elapsed(), Duration::from_millis(30));
        });
    });
}

/// A `Timeout` is a future like any other: polled by hand under a paused
/// clock, it is pending until its deadline passes (moved by `advance`),
/// and then reports `Elapsed` while its inner future is still pending.
#[test]
fn a_timeout_polled_by_hand_elapses_once_advance_passes_its_deadline() {
    if shim::MULTI_THREAD {
        return; // time can be paused on the current-thread runtime only
    }
    limit("Timeout by hand", || {
        paused_runtime().block_on(async {
            let mut timeout = Box::pin(rt::time::timeout(
                Duration::from_millis(50),
                std::future::pending::<()>(),
            ));
            assert!(futures::poll!(timeout.as_mut()).is_pending());
            rt::time::advance(Duration::from_millis(49)).await;
            assert!(futures::poll!(timeout.as_mut()).is_pending());
            rt::time::advance(Duration::from_millis(1)).await;
            let out = timeout.await;
            assert!(out.is_err());
        });
    });
}

/// "The current value of `Instant::now()` is saved": a timer set while the
/// clock ran (a task asleep for an hour of real time) is reached by
/// auto-advance once the clock is paused, at its deadline (within the
/// timer's millisecond and the paused clock's place in its own), in no
/// real time.
#[test]
fn a_timer_set_before_pause_is_reached_by_auto_advance() {
    if shim::MULTI_THREAD {
        return; // time can be paused on the current-thread runtime only
    }
    limit("timer before pause", || {
        shim::runtime().block_on(async {
            let deadline = rt::time::Instant::now() + Duration::from_secs(3600);
            let task = rt::spawn(async move {
                rt::time::sleep_until(deadline).await;
                rt::time::Instant::now()
            });
            rt::task::yield_now().await;
            rt::time::pause();
            let woke = task.await.unwrap();
            assert!(
                woke >= deadline && woke - deadline < Duration::from_millis(2),
                "woke {:?} after the deadline",
                woke.saturating_duration_since(deadline)
            );
        });
    });
}

/// `Instant::now()` reads the clock of the runtime whose context is
/// current: inside a paused runtime, under another runtime's `enter`
/// guard, it reads that runtime's running clock; with the guard dropped,
/// the paused one again.
#[test]
fn under_another_runtimes_enter_guard_now_reads_that_clock() {
    if shim::MULTI_THREAD {
        return; // time can be paused on the current-thread runtime only
    }
    limit("another runtime's clock", || {
        let other = shim::runtime();
        paused_runtime().block_on(async {
            rt::time::advance(Duration::from_secs(86_400)).await;
            let paused = rt::time::Instant::now();
            let there = {
                let _guard = other.enter();
                rt::time::Instant::now()
            };
            assert!(
                there < paused,
                "under the guard, now() read the paused clock"
            );
            assert_eq!(rt::time::Instant::now(), paused);
        });
    });
}

/// Auto-advance waits for "no work to do": a `block_on` future that keeps
/// yielding is work, so a task asleep for one second does not finish
/// while it yields, and the clock stays where it was.
#[test]
fn a_block_on_future_that_keeps_yielding_holds_the_clock() {
    if shim::MULTI_THREAD {
        return; // time can be paused on the current-thread runtime only
    }
    limit("yielding block_on holds the clock", || {
        paused_runtime().block_on(async {
            let start = rt::time::Instant::now();
            let sleeper = rt::spawn(rt::time::sleep(Duration::from_secs(1)));
            for _ in 0..1_000 {
                rt::task::yield_now().await;
            }
            assert!(!sleeper.is_finished(), "the clock jumped during the yields");
            assert_eq!(start.elapsed(), Duration::ZERO);
            sleeper.await.unwrap();
            assert_eq!(start.elapsed(), Duration::from_secs(1));
        });
    });
}

/// A blocking job holds the paused clock from the moment it is spawned,
/// also while it waits for a thread of the pool: with one blocking thread,
/// taken by a job that lasts a tenth of a real second, a one-second
/// timeout around the queued job behind it does not elapse.
#[test]
fn a_queued_blocking_job_holds_the_paused_clock() {
    if shim::MULTI_THREAD {
        return; // time can be paused on the current-thread runtime only
    }
    limit("queued blocking job", || {
        let runtime = shim::builder()
            .max_blocking_threads(1)
            .start_paused(true)
            .build()
            .expect("build a paused runtime");
        runtime.block_on(async {
            let start = rt::time::Instant::now();
            let first = rt::task::spawn_blocking(|| std::thread::sleep(Duration::from_millis(100)));
            let queued = rt::task::spawn_blocking(|| 7);
            let out = rt::time::timeout(Duration::from_secs(1), queued)
                .await
                .expect("the clock jumped while a blocking job waited for a thread");
            assert_eq!(out.unwrap(), 7);
            first.await.unwrap();
            assert_eq!(start.elapsed(), Duration::ZERO);
        });
    });
}

/// `advance` works from any task of the runtime, not only from the
/// `block_on` future: a spawned task advances an hour, and a sleeper due
/// within it has completed once that task is done, with the clock an hour
/// on.
#[test]
fn advance_from_a_spawned_task_moves_the_runtimes_clock() {
    if shim::MULTI_THREAD {
        return; // time can be paused on the current-thread runtime only
    }
    limit("advance from a task", || {
        paused_runtime().block_on(async {
            let start = rt::time::Instant::now();
            let sleeper = rt::spawn(async move {
                rt::time::sleep(Duration::from_secs(60)).await;
                start.elapsed()
            });
            rt::task::yield_now().await;
            rt::spawn(rt::time::advance(Duration::from_secs(3600)))
                .await
                .unwrap();
            assert_eq!(start.elapsed(), Duration::from_secs(3600));
            assert_eq!(sleeper.await.unwrap(), Duration::from_secs(3600));
        });
    });
}
