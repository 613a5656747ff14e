//! `rt::process` on both flavours of the runtime: `output`, `status` and
//! exit codes, piped streams (a `cat` round trip, a megabyte of output, a
//! pipeline from one child's stdout to another's stdin), `wait` closing
//! stdin, `kill`, `start_kill`, `try_wait` and `id`, a missing program, 50
//! children at once, and what happens to a `Child` that is dropped: killed
//! with `kill_on_drop`, reaped in the background either way. Also a wait
//! that outlives the runtime that spawned the child, and a wait cancelled
//! half way.
//!
//! What Tokio does the same way is also checked on Tokio, in
//! `tests/behaviour/process.rs`. No test reads the test binary's own stdin,
//! and every wait has a generous deadline.
#![cfg(not(loom))]
#![cfg(not(miri))]

use rt::io::{AsyncReadExt, AsyncWriteExt};
use rt::process::{Child, ChildStderr, ChildStdin, ChildStdout, Command};
use rt::time::timeout;
use rt::{Builder, Runtime};
use std::io::{ErrorKind, Read};
use std::os::fd::{AsFd, AsRawFd};
use std::os::unix::process::ExitStatusExt;
use std::process::Stdio;
use std::time::Duration;

const PATIENCE: Duration = Duration::from_secs(20);

fn multi_thread() -> Runtime {
    Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

fn current_thread() -> Runtime {
    Builder::new_current_thread().enable_all().build().unwrap()
}

/// Runs `body` on a fresh runtime of each flavour, under a deadline.
fn on_both<F, Fut>(body: F)
where
    F: Fn() -> Fut,
    Fut: Future<Output = ()>,
{
    for runtime in [multi_thread(), current_thread()] {
        runtime.block_on(async {
            timeout(PATIENCE, body()).await.expect("the test finished");
        });
    }
}

/// Whether a process with this pid exists (a zombie counts).
fn exists(pid: u32) -> bool {
    let pid = libc::pid_t::try_from(pid).unwrap();
    // SAFETY: kill(2) with signal 0 only checks that the process exists; it
    // sends nothing and touches no memory of ours.
    let result = unsafe { libc::kill(pid, 0) };
    if result == 0 {
        return true;
    }
    let error = std::io::Error::last_os_error();
    assert_eq!(error.raw_os_error(), Some(libc::ESRCH), "kill(pid, 0)");
    false
}

/// Waits (on the runtime's timer, under a deadline) until `pid` is gone:
/// killed if it was running, and reaped.
async fn gone(pid: u32) {
    timeout(PATIENCE, async {
        while exists(pid) {
            rt::time::sleep(Duration::from_millis(5)).await;
        }
    })
    .await
    .expect("the process was killed and reaped");
}

#[test]
fn output_of_echo() {
    on_both(|| async {
        let out = Command::new("echo").arg("hi").output().await.unwrap();
        assert!(out.status.success());
        assert_eq!(out.stdout, b"hi\n");
        assert_eq!(out.stderr, b"");
    });
}

#[test]
fn status_returns_the_exit_code() {
    on_both(|| async {
        let status = Command::new("sh")
            .args(["-c", "exit 3"])
            .status()
            .await
            .unwrap();
        assert_eq!(status.code(), Some(3));
        let status = Command::new("false").status().await.unwrap();
        assert_eq!(status.code(), Some(1));
    });
}

#[test]
fn status_closes_a_piped_stdin() {
    on_both(|| async {
        // `cat` would wait forever for input on a pipe left open.
        let status = Command::new("cat")
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .status()
            .await
            .unwrap();
        assert!(status.success());
    });
}

#[test]
fn cat_round_trip() {
    on_both(|| async {
        let mut child = Command::new("cat")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        let mut stdout = child.stdout.take().unwrap();
        let message: Vec<u8> = (0..200_000u32).map(|i| (i % 251) as u8).collect();
        let expected = message.clone();
        // More than a pipe holds, so writing and reading must overlap.
        let writer = rt::spawn(async move {
            stdin.write_all(&message).await.unwrap();
            // A no-op, as in Tokio; the drop below is what closes it.
            stdin.shutdown().await.unwrap();
            drop(stdin);
        });
        let mut echoed = Vec::new();
        stdout.read_to_end(&mut echoed).await.unwrap();
        writer.await.unwrap();
        assert_eq!(echoed, expected);
        assert!(child.wait().await.unwrap().success());
    });
}

#[test]
fn wait_closes_stdin_first() {
    on_both(|| async {
        let mut child = Command::new("cat")
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .spawn()
            .unwrap();
        assert!(child.wait().await.unwrap().success());
        assert!(child.stdin.is_none());
    });
}

#[test]
fn kill_then_wait_gives_a_signal_exit() {
    on_both(|| async {
        let mut child = Command::new("sleep").arg("60").spawn().unwrap();
        let pid = child.id().unwrap();
        child.kill().await.unwrap();
        let status = child.wait().await.unwrap();
        assert_eq!(status.signal(), Some(libc::SIGKILL));
        assert_eq!(status.code(), None);
        assert!(!exists(pid), "kill().await reaps");
    });
}

#[test]
fn start_kill_and_try_wait() {
    on_both(|| async {
        let mut child = Command::new("sleep").arg("60").spawn().unwrap();
        assert_eq!(child.try_wait().unwrap(), None);
        child.start_kill().unwrap();
        let status = timeout(PATIENCE, async {
            loop {
                if let Some(status) = child.try_wait().unwrap() {
                    break status;
                }
                rt::time::sleep(Duration::from_millis(2)).await;
            }
        })
        .await
        .unwrap();
        assert_eq!(status.signal(), Some(libc::SIGKILL));
        assert_eq!(child.id(), None);
        assert_eq!(child.wait().await.unwrap(), status);
        assert_eq!(child.try_wait().unwrap(), Some(status));
    });
}

#[test]
fn id_is_none_after_wait() {
    on_both(|| async {
        let mut child = Command::new("true").spawn().unwrap();
        let pid = child.id().expect("a pid before the wait");
        assert!(pid > 0);
        assert!(child.wait().await.unwrap().success());
        assert_eq!(child.id(), None);
        assert!(!exists(pid));
    });
}

#[test]
fn kill_on_drop_kills_and_the_child_is_reaped() {
    on_both(|| async {
        let child = Command::new("sleep")
            .arg("60")
            .kill_on_drop(true)
            .spawn()
            .unwrap();
        let pid = child.id().unwrap();
        assert!(exists(pid));
        drop(child);
        gone(pid).await;
    });
}

#[test]
fn a_dropped_child_runs_on_and_is_reaped_when_it_exits() {
    on_both(|| async {
        // Runs until its stdin closes: dropping the `Child` drops the
        // `ChildStdin` too, and without kill_on_drop `cat` then exits on
        // its own, is not killed, and must still be reaped.
        let child = Command::new("cat")
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .spawn()
            .unwrap();
        let pid = child.id().unwrap();
        drop(child);
        gone(pid).await;
        // And one that has exited already when dropped.
        let mut child = Command::new("true").spawn().unwrap();
        let pid = child.id().unwrap();
        let _ = timeout(Duration::from_millis(50), child.wait()).await;
        drop(child);
        gone(pid).await;
    });
}

#[test]
fn a_missing_program_is_not_found() {
    on_both(|| async {
        let error = Command::new("rt-test-no-such-program").spawn().unwrap_err();
        assert_eq!(error.kind(), ErrorKind::NotFound);
        let error = Command::new("rt-test-no-such-program")
            .status()
            .await
            .unwrap_err();
        assert_eq!(error.kind(), ErrorKind::NotFound);
    });
}

#[test]
fn fifty_children_at_once() {
    on_both(|| async {
        let tasks: Vec<_> = (0..50)
            .map(|_| rt::spawn(async { Command::new("true").status().await.unwrap() }))
            .collect();
        for task in tasks {
            assert!(task.await.unwrap().success());
        }
        // And fifty waited on by one task.
        let mut children: Vec<Child> = (0..50)
            .map(|_| Command::new("true").spawn().unwrap())
            .collect();
        for child in &mut children {
            assert!(child.wait().await.unwrap().success());
        }
    });
}

#[test]
fn a_megabyte_of_output_is_read_fully() {
    on_both(|| async {
        let out = Command::new("head")
            .args(["-c", "1000000", "/dev/zero"])
            .output()
            .await
            .unwrap();
        assert!(out.status.success());
        assert_eq!(out.stdout.len(), 1_000_000);
        assert!(out.stdout.iter().all(|&b| b == 0));
    });
}

#[test]
fn one_childs_stdout_as_anothers_stdin() {
    on_both(|| async {
        let mut echo = Command::new("echo")
            .arg("hello world")
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let piped: Stdio = echo.stdout.take().unwrap().try_into().unwrap();
        let tr = Command::new("tr")
            .args(["a-z", "A-Z"])
            .stdin(piped)
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let (echoed, out) = rt::join!(echo.wait(), tr.wait_with_output());
        assert!(echoed.unwrap().success());
        assert_eq!(out.unwrap().stdout, b"HELLO WORLD\n");
    });
}

#[test]
fn into_owned_fd_gives_a_blocking_descriptor() {
    on_both(|| async {
        let mut child = Command::new("echo")
            .arg("fd")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .stdin(Stdio::piped())
            .spawn()
            .unwrap();
        let stdout: ChildStdout = child.stdout.take().unwrap();
        let stderr: ChildStderr = child.stderr.take().unwrap();
        let stdin: ChildStdin = child.stdin.take().unwrap();
        assert_eq!(stdout.as_raw_fd(), stdout.as_fd().as_raw_fd());
        assert!(stderr.as_raw_fd() >= 0 && stdin.as_raw_fd() >= 0);
        drop((stderr, stdin));
        assert!(child.wait().await.unwrap().success());
        // The child has exited, so a blocking read returns at once.
        let mut file = std::fs::File::from(stdout.into_owned_fd().unwrap());
        let mut text = String::new();
        file.read_to_string(&mut text).unwrap();
        assert_eq!(text, "fd\n");
    });
}

#[test]
fn a_wait_cancelled_half_way_loses_nothing() {
    on_both(|| async {
        let mut child = Command::new("sleep").arg("60").spawn().unwrap();
        assert!(
            timeout(Duration::from_millis(20), child.wait())
                .await
                .is_err()
        );
        assert!(child.id().is_some());
        child.kill().await.unwrap();
        assert_eq!(child.id(), None);
    });
}

#[test]
fn a_wait_outlives_the_runtime_that_spawned_the_child() {
    // Spawned on one runtime, which shuts down; waited on another. The
    // pidfd's registration went with the first runtime, so the wait falls
    // back to `try_wait` on the second one's timer.
    let first = multi_thread();
    let mut child = first.block_on(async {
        Command::new("cat")
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .spawn()
            .unwrap()
    });
    drop(first);
    let status = current_thread().block_on(async {
        timeout(PATIENCE, child.wait())
            .await
            .expect("the wait finished")
            .unwrap()
    });
    assert!(status.success());
}

#[test]
fn spawn_under_enter_without_block_on() {
    let runtime = multi_thread();
    let child = {
        let _guard = runtime.enter();
        Command::new("echo")
            .arg("entered")
            .stdout(Stdio::piped())
            .spawn()
            .unwrap()
    };
    let out = runtime
        .block_on(async { timeout(PATIENCE, child.wait_with_output()).await })
        .unwrap()
        .unwrap();
    assert_eq!(out.stdout, b"entered\n");
}

#[test]
fn spawn_outside_a_runtime_panics_before_starting_anything() {
    let panic = std::panic::catch_unwind(|| Command::new("true").spawn()).unwrap_err();
    let message = panic.downcast_ref::<String>().cloned().unwrap_or_default();
    assert!(message.contains("inside an rt runtime"), "{message}");
}

#[test]
fn the_types_are_send_and_sync_and_debug() {
    fn send_sync<T: Send + Sync>(_: &T) {}
    fn send<T: Send>(_: &T) {}
    let runtime = multi_thread();
    runtime.block_on(async {
        let mut command = Command::new("cat");
        command
            .arg("-")
            .env("A", "1")
            .env_remove("B")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        send_sync(&command);
        assert!(format!("{command:?}").contains("cat"));
        let mut child = command.spawn().unwrap();
        send_sync(&child);
        send_sync(child.stdin.as_ref().unwrap());
        send_sync(child.stdout.as_ref().unwrap());
        send_sync(child.stderr.as_ref().unwrap());
        assert!(format!("{child:?}").contains("Child"));
        {
            let wait = child.wait();
            send(&wait);
        }
        let status = command.status();
        send(&status);
        drop(status);
        let output = command.output();
        send(&output);
        drop(output);
        assert!(
            timeout(PATIENCE, child.wait())
                .await
                .unwrap()
                .unwrap()
                .success()
        );
    });
}

#[test]
fn env_clear_and_envs() {
    on_both(|| async {
        let out = Command::new("/bin/sh")
            .args(["-c", "echo \"$ONE$TWO$HOME\""])
            .env_clear()
            .envs([("ONE", "1"), ("TWO", "2")])
            .output()
            .await
            .unwrap();
        assert_eq!(out.stdout, b"12\n");
    });
}
