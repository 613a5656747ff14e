//! The paused clock as Tokio documents it (`time::pause`, `advance`,
//! `Builder::start_paused`): with time paused, the runtime moves the clock
//! to the next timer when it has nothing else to do, but not while work it
//! started outside its tasks is still running (`spawn_blocking`, and
//! `fs`, which runs on the blocking pool); and `advance` returns only once
//! the timers it made due have fired. Pausing needs the current-thread
//! runtime, on both Tokio and ours, so these tests return early on the
//! multi-thread flavour.

use super::{limit, paused_runtime};
use crate::{rt, shim};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Tokio: "If the runtime has no work to do, [...] the clock is
/// auto-advanced to the next pending timer", and work on the blocking pool
/// is work to do: a one-second timeout around a job that takes a tenth of
/// a real second must not elapse.
#[test]
fn the_paused_clock_does_not_jump_while_a_blocking_job_runs() {
    if shim::MULTI_THREAD {
        return; // time can be paused on the current-thread runtime only
    }
    limit("paused clock and spawn_blocking", || {
        let runtime = paused_runtime();
        let out = runtime.block_on(async {
            let job = rt::task::spawn_blocking(|| {
                std::thread::sleep(Duration::from_millis(100));
                5
            });
            rt::time::timeout(Duration::from_secs(1), job).await
        });
        let out = out.expect("the paused clock jumped past the timeout while the job ran");
        assert_eq!(out.unwrap(), 5);
    });
}

/// The same rule for `fs`, whose every call is a blocking job: reading a
/// named pipe blocks until a writer (a plain thread, a tenth of a second
/// later) writes, and the timeout around it must not elapse meanwhile.
#[test]
fn the_paused_clock_does_not_jump_while_a_file_read_waits() {
    if shim::MULTI_THREAD {
        return; // time can be paused on the current-thread runtime only
    }
    limit("paused clock and fs", || {
        let path = std::env::temp_dir().join(format!(
            "behaviour-paused-fifo-{}-{}",
            shim::NAME,
            std::process::id()
        ));
        let _ = std::fs::remove_file(&path);
        let c_path = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
        // SAFETY: a valid NUL-terminated path; mkfifo only creates a file.
        assert_eq!(unsafe { libc::mkfifo(c_path.as_ptr(), 0o600) }, 0, "mkfifo");
        let writer = {
            let path = path.clone();
            std::thread::spawn(move || {
                std::thread::sleep(Duration::from_millis(100));
                std::fs::write(path, b"late").unwrap();
            })
        };
        let runtime = paused_runtime();
        let read = runtime.block_on(async {
            rt::time::timeout(Duration::from_secs(1), rt::fs::read(&path)).await
        });
        writer.join().unwrap();
        let _ = std::fs::remove_file(&path);
        let read = read.expect("the paused clock jumped past the timeout while fs::read waited");
        assert_eq!(read.unwrap(), b"late");
    });
}

/// Once the blocking job is done, the clock is free to jump again: a sleep
/// of an hour after it takes no real time.
#[test]
fn the_paused_clock_jumps_again_once_the_blocking_job_is_done() {
    if shim::MULTI_THREAD {
        return; // time can be paused on the current-thread runtime only
    }
    limit("paused clock after spawn_blocking", || {
        let runtime = paused_runtime();
        runtime.block_on(async {
            rt::task::spawn_blocking(|| 1).await.unwrap();
            let before = rt::time::Instant::now();
            rt::time::sleep(Duration::from_secs(3600)).await;
            assert!(before.elapsed() >= Duration::from_secs(3600));
        });
    });
}

/// A key-value server whose purge task sleeps until a key expires, tested
/// as a Tokio user tests it: pause the clock, `advance` past the expiry,
/// then ask over a socket. Tokio's `advance` returns only after the timers
/// it made due have fired, so the purge has run by then, even when the
/// clock was paused between two milliseconds (as `time::pause()` in a
/// running program pauses it).
#[test]
fn after_advance_a_request_sees_what_the_due_timers_did() {
    if shim::MULTI_THREAD {
        return; // time can be paused on the current-thread runtime only
    }
    limit("advance then a request", || {
        let runtime = paused_runtime();
        let reply = runtime.block_on(async {
            let store: Arc<Mutex<HashMap<String, String>>> = Arc::default();
            store
                .lock()
                .unwrap()
                .insert("session".into(), "alice".into());
            // The purge: the key lives for one second.
            {
                let store = store.clone();
                rt::spawn(async move {
                    rt::time::sleep(Duration::from_secs(1)).await;
                    store.lock().unwrap().remove("session");
                });
            }
            let listener = rt::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            let addr = listener.local_addr().unwrap();
            {
                let store = store.clone();
                rt::spawn(async move {
                    let (mut stream, _) = listener.accept().await.unwrap();
                    let mut key = [0u8; 7];
                    shim::read_exact(&mut stream, &mut key).await.unwrap();
                    let value = store
                        .lock()
                        .unwrap()
                        .get(std::str::from_utf8(&key).unwrap())
                        .cloned()
                        .unwrap_or_else(|| "(none)".into());
                    shim::write_all(&mut stream, value.as_bytes())
                        .await
                        .unwrap();
                    shim::shutdown_write(&mut stream).await.unwrap();
                });
            }
            // Let both tasks start (the purge registers its timer).
            rt::task::yield_now().await;
            rt::time::advance(Duration::from_secs(1)).await;
            let mut client = rt::net::TcpStream::connect(addr).await.unwrap();
            shim::write_all(&mut client, b"session").await.unwrap();
            shim::read_to_end(&mut client).await.unwrap()
        });
        assert_eq!(
            String::from_utf8(reply).unwrap(),
            "(none)",
            "the purge due at the advanced time had not run"
        );
    });
}

/// How far auto-advance moves the clock: Tokio's driver jumps by whole
/// milliseconds, from the current one to the timer's, so a clock paused
/// between two milliseconds keeps its place within the millisecond. A
/// 10 ms sleep started 0.3 ms into a millisecond is due in the 11th
/// millisecond from there (deadlines round up), and the clock moves 11 ms.
#[test]
fn auto_advance_moves_the_clock_by_whole_milliseconds() {
    if shim::MULTI_THREAD {
        return; // time can be paused on the current-thread runtime only
    }
    limit("auto-advance amount", || {
        let runtime = shim::runtime();
        let elapsed = runtime.block_on(async {
            // Pause between two milliseconds of the runtime's clock.
            std::thread::sleep(Duration::from_micros(1_300));
            rt::time::pause();
            let before = rt::time::Instant::now();
            rt::time::sleep(Duration::from_millis(10)).await;
            before.elapsed()
        });
        assert_eq!(
            elapsed.subsec_nanos() % 1_000_000,
            0,
            "the clock moved {elapsed:?}, not a whole number of milliseconds"
        );
        assert!(
            elapsed == Duration::from_millis(11) || elapsed == Duration::from_millis(10),
            "the clock moved {elapsed:?} for a 10 ms sleep"
        );
    });
}

/// Tokio's rule for when the clock may jump: after a turn of the I/O
/// driver without waiting, and only if nothing woke the runtime meanwhile.
/// Data that is ready wakes its reader, so a one-second timeout around a
/// read of data already sent does not elapse.
#[test]
fn ready_io_that_wakes_a_task_stops_the_jump() {
    if shim::MULTI_THREAD {
        return; // time can be paused on the current-thread runtime only
    }
    limit("ready I/O and the paused clock", || {
        let runtime = paused_runtime();
        runtime.block_on(async {
            let listener = rt::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            let addr = listener.local_addr().unwrap();
            let mut client = std::net::TcpStream::connect(addr).unwrap();
            let (mut server, _) = listener.accept().await.unwrap();
            std::io::Write::write_all(&mut client, b"ready").unwrap();
            let mut buf = [0u8; 5];
            let read = rt::time::timeout(
                Duration::from_secs(1),
                shim::read_exact(&mut server, &mut buf),
            )
            .await;
            read.expect("the clock jumped past the timeout though the data was ready")
                .unwrap();
            assert_eq!(&buf, b"ready");
        });
    });
}

/// The other half of the rule: a socket with nothing to read wakes no
/// one, so it does not keep the clock still: a one-second timeout around
/// a read that will never complete elapses at once, in paused time.
#[test]
fn an_idle_socket_does_not_stop_the_jump() {
    if shim::MULTI_THREAD {
        return; // time can be paused on the current-thread runtime only
    }
    limit("idle socket and the paused clock", || {
        let runtime = paused_runtime();
        runtime.block_on(async {
            let listener = rt::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            let addr = listener.local_addr().unwrap();
            let _client = std::net::TcpStream::connect(addr).unwrap();
            let (mut server, _) = listener.accept().await.unwrap();
            let before = rt::time::Instant::now();
            let mut buf = [0u8; 1];
            let read = rt::time::timeout(
                Duration::from_secs(1),
                shim::read_exact(&mut server, &mut buf),
            )
            .await;
            assert!(read.is_err(), "the read completed with no data sent");
            assert_eq!(before.elapsed(), Duration::from_secs(1));
        });
    });
}

// ---------------------------------------------------------------------
// The documented promises of `pause`, `advance`, `resume` and
// `start_paused`, one per test.

/// `time::pause`: "Panics if time is already frozen or if called from
/// outside of a `current_thread` Tokio runtime": on the multi-thread
/// flavour it panics; on the current-thread one, a second pause panics.
#[test]
fn pause_panics_on_a_multi_thread_runtime_and_when_already_paused() {
    limit("pause panics", || {
        let runtime = shim::runtime();
        runtime.block_on(async {
            if shim::MULTI_THREAD {
                super::expect_panic("pause on multi-thread", rt::time::pause);
            } else {
                rt::time::pause();
                super::expect_panic("pause twice", rt::time::pause);
            }
        });
    });
}

/// `time::resume`: "Panics if time is not frozen"; and `advance` needs a
/// paused clock ("The clock is not frozen [...] you must call `pause`
/// before calling this method").
#[test]
fn resume_and_advance_panic_when_time_is_not_paused() {
    if shim::MULTI_THREAD {
        return; // time can be paused on the current-thread runtime only
    }
    limit("resume and advance unpaused", || {
        let runtime = shim::runtime();
        runtime.block_on(async {
            super::expect_panic("resume unpaused", rt::time::resume);
        });
        super::expect_panic("advance unpaused", || {
            runtime.block_on(rt::time::advance(Duration::from_millis(1)))
        });
    });
}

/// `time::advance`: "Increments the saved `Instant::now()` value by
/// `duration`": the clock moves by exactly that much, nanoseconds
/// included, and stays there while real time passes; std's clock is not
/// paused ("the `Instant` in std continues to work as normal").
#[test]
fn advance_moves_instant_now_by_exactly_the_duration() {
    if shim::MULTI_THREAD {
        return; // time can be paused on the current-thread runtime only
    }
    limit("advance exact", || {
        let runtime = paused_runtime();
        runtime.block_on(async {
            let start = rt::time::Instant::now();
            let std_start = std::time::Instant::now();
            std::thread::sleep(Duration::from_millis(20));
            assert_eq!(rt::time::Instant::now(), start, "paused time moved");
            assert!(std_start.elapsed() >= Duration::from_millis(20));
            let step = Duration::from_nanos(1_234_567_891);
            rt::time::advance(step).await;
            assert_eq!(rt::time::Instant::now() - start, step);
            rt::time::advance(step).await;
            assert_eq!(rt::time::Instant::now() - start, step * 2);
        });
    });
}

/// `advance` fires the timers it passed ("all `sleep` calls with a
/// deadline before the new time will immediately complete") and no
/// other: a task sleeping 10 ms completes after `advance(15 ms)`, one
/// sleeping 20 ms does not, and the clock stays at 15 ms while the caller
/// only yields.
#[test]
fn advance_fires_the_timers_it_passes_and_no_later_one() {
    if shim::MULTI_THREAD {
        return; // time can be paused on the current-thread runtime only
    }
    limit("advance fires due timers", || {
        let runtime = paused_runtime();
        runtime.block_on(async {
            let start = rt::time::Instant::now();
            let early = rt::spawn(rt::time::sleep(Duration::from_millis(10)));
            let late = rt::spawn(rt::time::sleep(Duration::from_millis(20)));
            // Let both tasks register their timers.
            rt::task::yield_now().await;
            rt::time::advance(Duration::from_millis(15)).await;
            for _ in 0..100 {
                if early.is_finished() {
                    break;
                }
                rt::task::yield_now().await;
            }
            assert!(early.is_finished(), "the 10 ms sleep did not fire");
            assert!(!late.is_finished(), "the 20 ms sleep fired at 15 ms");
            assert_eq!(start.elapsed(), Duration::from_millis(15));
            late.await.unwrap();
            assert_eq!(start.elapsed(), Duration::from_millis(20));
        });
    });
}

/// `time::resume`: the clock runs again from the paused reading, with the
/// time advanced kept; it does not snap back to the real time.
#[test]
fn resume_runs_on_from_the_advanced_reading() {
    if shim::MULTI_THREAD {
        return; // time can be paused on the current-thread runtime only
    }
    limit("resume", || {
        let runtime = paused_runtime();
        runtime.block_on(async {
            let start = rt::time::Instant::now();
            rt::time::advance(Duration::from_secs(3600)).await;
            rt::time::resume();
            let after = rt::time::Instant::now();
            assert!(after - start >= Duration::from_secs(3600));
            std::thread::sleep(Duration::from_millis(5));
            assert!(
                rt::time::Instant::now() > after,
                "resumed time stands still"
            );
            // Unpaused, a real sleep waits for real.
            let real = std::time::Instant::now();
            rt::time::sleep(Duration::from_millis(20)).await;
            assert!(real.elapsed() >= Duration::from_millis(20));
        });
    });
}

/// Auto-advance with `start_paused`: a sleep of an hour returns at once in
/// real time, and the clock then reads an hour later (to the millisecond
/// the driver rounds the deadline up to).
#[test]
fn a_long_sleep_under_start_paused_moves_the_clock_by_its_length() {
    if shim::MULTI_THREAD {
        return; // time can be paused on the current-thread runtime only
    }
    limit("auto-advance an hour", || {
        let runtime = paused_runtime();
        runtime.block_on(async {
            let start = rt::time::Instant::now();
            rt::time::sleep(Duration::from_secs(3600)).await;
            let moved = start.elapsed();
            assert!(moved >= Duration::from_secs(3600), "moved {moved:?}");
            assert!(
                moved <= Duration::from_secs(3600) + Duration::from_millis(1),
                "moved {moved:?}"
            );
        });
    });
}

/// Auto-advance waits for the runtime to have "no work to do": while a
/// task is ready to run, the clock stays. A task yields 1,000 times while
/// the `block_on` future waits on a one-second timeout that it wins
/// without time moving at all.
#[test]
fn a_task_that_keeps_yielding_holds_the_paused_clock() {
    if shim::MULTI_THREAD {
        return; // time can be paused on the current-thread runtime only
    }
    limit("ready tasks hold the clock", || {
        let runtime = paused_runtime();
        runtime.block_on(async {
            let start = rt::time::Instant::now();
            let busy = rt::spawn(async {
                for _ in 0..1_000 {
                    rt::task::yield_now().await;
                }
            });
            rt::time::timeout(Duration::from_secs(1), busy)
                .await
                .expect("the clock jumped while a task was ready")
                .unwrap();
            assert_eq!(start.elapsed(), Duration::ZERO);
        });
    });
}

/// `sleep_until` a deadline already past completes at once, and does not
/// move the paused clock.
#[test]
fn sleep_until_a_past_deadline_completes_without_moving_the_clock() {
    if shim::MULTI_THREAD {
        return; // time can be paused on the current-thread runtime only
    }
    limit("sleep_until past", || {
        let runtime = paused_runtime();
        runtime.block_on(async {
            rt::time::advance(Duration::from_secs(10)).await;
            let now = rt::time::Instant::now();
            let past = now - Duration::from_secs(5);
            let sleep = rt::time::sleep_until(past);
            assert_eq!(sleep.deadline(), past);
            sleep.await;
            assert_eq!(rt::time::Instant::now(), now);
            rt::time::sleep(Duration::ZERO).await;
            assert_eq!(rt::time::Instant::now(), now);
        });
    });
}

/// `timeout` under a paused clock: a future that never completes times
/// out after exactly the duration, and one that finishes first (a shorter
/// sleep) wins, with the clock moved only to its end.
#[test]
fn timeout_under_a_paused_clock_elapses_after_exactly_its_duration() {
    if shim::MULTI_THREAD {
        return; // time can be paused on the current-thread runtime only
    }
    limit("timeout paused", || {
        let runtime = paused_runtime();
        runtime.block_on(async {
            let start = rt::time::Instant::now();
            let out = rt::time::timeout(Duration::from_secs(5), std::future::pending::<()>()).await;
            assert!(out.is_err());
            assert_eq!(start.elapsed(), Duration::from_secs(5));

            let start = rt::time::Instant::now();
            let out = rt::time::timeout(
                Duration::from_secs(10),
                rt::time::sleep(Duration::from_secs(2)),
            )
            .await;
            assert!(out.is_ok());
            assert_eq!(start.elapsed(), Duration::from_secs(2));

            let deadline = rt::time::Instant::now() + Duration::from_secs(1);
            let out = rt::time::timeout_at(deadline, std::future::pending::<()>()).await;
            assert!(out.is_err());
            assert_eq!(rt::time::Instant::now(), deadline);
        });
    });
}

/// `interval`: "The first tick completes immediately", at the instant the
/// interval was made; each later tick returns its scheduled instant,
/// exactly one period after the last, and the paused clock follows.
#[test]
fn interval_ticks_on_exact_multiples_of_its_period_under_pause() {
    if shim::MULTI_THREAD {
        return; // time can be paused on the current-thread runtime only
    }
    limit("interval paused", || {
        let runtime = paused_runtime();
        runtime.block_on(async {
            let start = rt::time::Instant::now();
            let mut interval = rt::time::interval(Duration::from_millis(250));
            assert_eq!(interval.tick().await, start);
            assert_eq!(rt::time::Instant::now(), start);
            for n in 1..=4u32 {
                let at = interval.tick().await;
                assert_eq!(at, start + Duration::from_millis(250) * n);
                assert_eq!(rt::time::Instant::now(), at);
            }
        });
    });
}

/// `interval_at(start, period)`: the first tick is at `start`, not now.
#[test]
fn interval_at_first_ticks_at_its_start() {
    if shim::MULTI_THREAD {
        return; // time can be paused on the current-thread runtime only
    }
    limit("interval_at paused", || {
        let runtime = paused_runtime();
        runtime.block_on(async {
            let now = rt::time::Instant::now();
            let start = now + Duration::from_secs(3);
            let mut interval = rt::time::interval_at(start, Duration::from_secs(1));
            assert_eq!(interval.tick().await, start);
            assert_eq!(rt::time::Instant::now(), start);
            assert_eq!(interval.tick().await, start + Duration::from_secs(1));
        });
    });
}

/// Ticks an interval of 10 ms once, advances the paused clock 35 ms (so
/// the ticks due at 10, 20 and 30 ms are missed), and returns the next
/// four ticks, as offsets from the start.
async fn ticks_after_a_stall(behavior: rt::time::MissedTickBehavior) -> Vec<Duration> {
    let start = rt::time::Instant::now();
    let mut interval = rt::time::interval(Duration::from_millis(10));
    interval.set_missed_tick_behavior(behavior);
    assert_eq!(interval.missed_tick_behavior(), behavior);
    assert_eq!(interval.tick().await, start);
    rt::time::advance(Duration::from_millis(35)).await;
    let mut ticks = Vec::new();
    for _ in 0..4 {
        ticks.push(interval.tick().await - start);
    }
    ticks
}

fn millis(list: &[u64]) -> Vec<Duration> {
    list.iter().copied().map(Duration::from_millis).collect()
}

/// `MissedTickBehavior::Burst` (the default): the missed ticks come at
/// once, each with its original time, then the schedule goes on.
#[test]
fn missed_ticks_burst_keep_their_original_times() {
    if shim::MULTI_THREAD {
        return; // time can be paused on the current-thread runtime only
    }
    limit("burst", || {
        let runtime = paused_runtime();
        let ticks = runtime.block_on(async {
            let interval = rt::time::interval(Duration::from_millis(10));
            assert_eq!(
                interval.missed_tick_behavior(),
                rt::time::MissedTickBehavior::Burst
            );
            ticks_after_a_stall(rt::time::MissedTickBehavior::Burst).await
        });
        assert_eq!(ticks, millis(&[10, 20, 30, 40]));
    });
}

/// `MissedTickBehavior::Delay`: the late tick fires now (reporting its
/// scheduled time), and the schedule restarts one period from now.
#[test]
fn missed_ticks_delay_restarts_the_schedule_from_the_late_tick() {
    if shim::MULTI_THREAD {
        return; // time can be paused on the current-thread runtime only
    }
    limit("delay", || {
        let runtime = paused_runtime();
        let ticks = runtime.block_on(ticks_after_a_stall(rt::time::MissedTickBehavior::Delay));
        assert_eq!(ticks, millis(&[10, 45, 55, 65]));
    });
}

/// `MissedTickBehavior::Skip`: the late tick fires now, the missed ones
/// are dropped, and the next tick is the next multiple of the period on
/// the original schedule.
#[test]
fn missed_ticks_skip_to_the_next_tick_of_the_original_schedule() {
    if shim::MULTI_THREAD {
        return; // time can be paused on the current-thread runtime only
    }
    limit("skip", || {
        let runtime = paused_runtime();
        let ticks = runtime.block_on(ticks_after_a_stall(rt::time::MissedTickBehavior::Skip));
        assert_eq!(ticks, millis(&[10, 40, 50, 60]));
    });
}

/// `Interval::reset`: the next tick is one period after now;
/// `reset_immediately`: the next tick is now; `reset_after(d)`: d from now.
#[test]
fn interval_resets_move_the_next_tick() {
    if shim::MULTI_THREAD {
        return; // time can be paused on the current-thread runtime only
    }
    limit("interval reset", || {
        let runtime = paused_runtime();
        runtime.block_on(async {
            let start = rt::time::Instant::now();
            let mut interval = rt::time::interval(Duration::from_millis(100));
            interval.tick().await;
            rt::time::advance(Duration::from_millis(30)).await;
            interval.reset();
            assert_eq!(interval.tick().await - start, Duration::from_millis(130));
            interval.reset_immediately();
            assert_eq!(interval.tick().await - start, Duration::from_millis(130));
            interval.reset_after(Duration::from_millis(7));
            assert_eq!(interval.tick().await - start, Duration::from_millis(137));
        });
    });
}

/// `time::Instant`'s arithmetic: `checked_add`/`checked_sub` return `None`
/// on overflow, `duration_since` and `-` saturate at zero for a later
/// instant, `checked_duration_since` returns `None` for one, and
/// `from_std`/`into_std` round-trip.
#[test]
fn instant_arithmetic_saturates_and_checks_as_documented() {
    limit("instant arithmetic", || {
        let runtime = shim::runtime();
        runtime.block_on(async {
            let now = rt::time::Instant::now();
            let later = now + Duration::from_secs(1);
            assert_eq!(now.checked_add(Duration::MAX), None);
            assert_eq!(later.checked_sub(Duration::from_secs(1)), Some(now));
            assert_eq!(now.duration_since(later), Duration::ZERO);
            assert_eq!(now - later, Duration::ZERO);
            assert_eq!(later - now, Duration::from_secs(1));
            assert_eq!(now.checked_duration_since(later), None);
            assert_eq!(
                later.checked_duration_since(now),
                Some(Duration::from_secs(1))
            );
            assert_eq!(now.saturating_duration_since(later), Duration::ZERO);
            let mut moved = now;
            moved += Duration::from_millis(5);
            moved -= Duration::from_millis(2);
            assert_eq!(moved - now, Duration::from_millis(3));
            assert_eq!(rt::time::Instant::from_std(now.into_std()), now);
            let std: std::time::Instant = later.into();
            assert_eq!(rt::time::Instant::from(std), later);
        });
    });
}

/// Pausing affects "only the `Instant` type in Tokio": outside the paused
/// runtime, `time::Instant::now()` is the system's clock again.
#[test]
fn instant_now_outside_a_paused_runtime_reads_the_system_clock() {
    if shim::MULTI_THREAD {
        return; // time can be paused on the current-thread runtime only
    }
    limit("instant outside", || {
        let runtime = paused_runtime();
        let inside = runtime.block_on(async {
            rt::time::advance(Duration::from_secs(86_400)).await;
            rt::time::Instant::now()
        });
        let outside = rt::time::Instant::now();
        assert!(
            outside < inside,
            "outside the runtime, now() read the paused clock"
        );
        let std_now = std::time::Instant::now();
        assert!(outside.into_std() <= std_now);
    });
}

/// Auto-advance fires timers in deadline order ("use `sleep` [...] and
/// have all timers fire in order"): three tasks sleeping 30, 10 and 20 ms
/// finish in the order 10, 20, 30, each seeing the clock at its deadline.
#[test]
fn auto_advance_fires_timers_in_deadline_order() {
    if shim::MULTI_THREAD {
        return; // time can be paused on the current-thread runtime only
    }
    limit("auto-advance order", || {
        let runtime = paused_runtime();
        let seen = runtime.block_on(async {
            let start = rt::time::Instant::now();
            let seen = Arc::new(Mutex::new(Vec::new()));
            let mut handles = Vec::new();
            for ms in [30u64, 10, 20] {
                let seen = seen.clone();
                handles.push(rt::spawn(async move {
                    rt::time::sleep(Duration::from_millis(ms)).await;
                    seen.lock().unwrap().push((ms, start.elapsed()));
                }));
            }
            for handle in handles {
                handle.await.unwrap();
            }
            seen.lock().unwrap().clone()
        });
        let expected: Vec<(u64, Duration)> = [10u64, 20, 30]
            .into_iter()
            .map(|ms| (ms, Duration::from_millis(ms)))
            .collect();
        assert_eq!(seen, expected);
    });
}

/// `Sleep::reset` under a paused clock: a ten-second sleep reset to one
/// second from now completes after one second of paused time, and then
/// `is_elapsed` is true.
#[test]
fn a_sleep_reset_sooner_completes_at_the_new_deadline_under_pause() {
    if shim::MULTI_THREAD {
        return; // time can be paused on the current-thread runtime only
    }
    limit("sleep reset paused", || {
        let runtime = paused_runtime();
        runtime.block_on(async {
            let start = rt::time::Instant::now();
            let mut sleep = std::pin::pin!(rt::time::sleep(Duration::from_secs(10)));
            assert!(!sleep.is_elapsed());
            sleep.as_mut().reset(start + Duration::from_secs(1));
            assert_eq!(sleep.deadline(), start + Duration::from_secs(1));
            sleep.as_mut().await;
            assert!(sleep.is_elapsed());
            assert_eq!(start.elapsed(), Duration::from_secs(1));
        });
    });
}

/// `is_elapsed` reports a timer that fired, not a deadline that passed: a
/// sleep never polled is registered nowhere, so it is not elapsed even an
/// hour past its deadline; once polled and fired by the clock's advance, it
/// is, before its next poll.
#[test]
fn is_elapsed_is_false_for_a_sleep_never_polled() {
    if shim::MULTI_THREAD {
        return; // time can be paused on the current-thread runtime only
    }
    limit("is_elapsed unpolled", || {
        let runtime = paused_runtime();
        runtime.block_on(async {
            let never_polled = rt::time::sleep(Duration::from_millis(10));
            let mut polled = Box::pin(rt::time::sleep(Duration::from_millis(10)));
            assert!(futures::FutureExt::now_or_never(polled.as_mut()).is_none());
            assert!(!never_polled.is_elapsed() && !polled.is_elapsed());
            rt::time::advance(Duration::from_secs(3600)).await;
            assert!(!never_polled.is_elapsed());
            assert!(polled.is_elapsed());
            polled.await;
        });
    });
}

/// A blocking job runs in the runtime's context, so `time::Instant::now()`
/// there reads the paused clock too.
#[test]
fn instant_now_in_a_blocking_job_reads_the_paused_clock() {
    if shim::MULTI_THREAD {
        return; // time can be paused on the current-thread runtime only
    }
    limit("instant in spawn_blocking", || {
        let runtime = paused_runtime();
        runtime.block_on(async {
            rt::time::advance(Duration::from_secs(7200)).await;
            let here = rt::time::Instant::now();
            let there = rt::task::spawn_blocking(rt::time::Instant::now)
                .await
                .unwrap();
            assert_eq!(there, here);
        });
    });
}

/// `advance`: "Panics if [...] the input `duration` is too large (such as
/// `Duration::MAX`) to be safely added to the current time".
#[test]
fn advance_by_duration_max_panics() {
    if shim::MULTI_THREAD {
        return; // time can be paused on the current-thread runtime only
    }
    limit("advance MAX", || {
        let runtime = paused_runtime();
        super::expect_panic("advance(Duration::MAX)", || {
            runtime.block_on(rt::time::advance(Duration::MAX))
        });
    });
}

/// `#[test(start_paused = true)]`: the test's runtime starts with time
/// paused, so real time does not move its clock and a long sleep is
/// auto-advanced to exactly its end. (Three seconds, so that a runtime
/// that does not pause fails the test by the clock, not by hanging.)
#[crate::rt::test(start_paused = true)]
async fn the_test_attribute_starts_the_clock_paused() {
    let start = rt::time::Instant::now();
    std::thread::sleep(Duration::from_millis(5));
    assert_eq!(rt::time::Instant::now(), start, "the clock was not paused");
    rt::time::sleep(Duration::from_secs(3)).await;
    assert_eq!(start.elapsed(), Duration::from_secs(3));
}

/// `#[test]`'s runtime is the current-thread one ("the default runtime
/// used by `#[tokio::test]`"), so `time::pause()` works in its body, and
/// from a spawned task as well as from the test's own future.
#[crate::rt::test]
async fn pause_works_in_a_test_attribute_runtime_and_from_a_task() {
    rt::spawn(async { rt::time::pause() }).await.unwrap();
    let start = rt::time::Instant::now();
    rt::time::sleep(Duration::from_secs(3)).await;
    let moved = start.elapsed();
    assert!(
        moved >= Duration::from_secs(3)
            && moved <= Duration::from_secs(3) + Duration::from_millis(1),
        "moved {moved:?}"
    );
    rt::time::resume();
}
