//! The paused clock as Tokio documents it (`time::pause`, `advance`,
//! `Builder::start_paused`): with time paused, the runtime moves the clock
//! to the next timer when it has nothing else to do, but not while work it
//! started outside its tasks is still running (`spawn_blocking`, and
//! `fs`, which runs on the blocking pool); and `advance` returns only once
//! the timers it made due have fired. Pausing needs the current-thread
//! runtime, on both Tokio and ours, so these tests return early on the
//! multi-thread flavour.

use super::limit;
use crate::{rt, shim};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

fn paused_runtime() -> rt::runtime::Runtime {
    shim::builder()
        .start_paused(true)
        .build()
        .expect("build a paused runtime")
}

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
