//! `tokio::process`: `Command`'s `output`, `status` and `spawn`, a
//! `Child`'s piped streams, `wait` (which closes stdin first), `try_wait`,
//! `kill` and `id`, written against the names alone (`rt::process::…` is
//! `tokio::process::…` in the Tokio build). `tests/process.rs` has rt's
//! own, among them `kill_on_drop` and the reaping of dropped children.
//!
//! Every program run here is a standard Unix tool (`echo`, `cat`, `sh`,
//! `sleep`, `true`) and none reads the test's own stdin.

use crate::behaviour::{expect_panic, limit};
use crate::{rt, shim};
use rt::io::{AsyncReadExt, AsyncWriteExt};
use rt::process::Command;
use std::io::ErrorKind;
use std::os::unix::process::ExitStatusExt;
use std::process::Stdio;

#[test]
fn output_collects_stdout_stderr_and_the_status() {
    limit("output", || {
        shim::runtime().block_on(async {
            let out = Command::new("echo").arg("hi").output().await.unwrap();
            assert!(out.status.success());
            assert_eq!(out.stdout, b"hi\n");
            assert!(out.stderr.is_empty());

            let out = Command::new("sh")
                .args(["-c", "echo out; echo err >&2; exit 4"])
                .output()
                .await
                .unwrap();
            assert_eq!(out.status.code(), Some(4));
            assert_eq!(out.stdout, b"out\n");
            assert_eq!(out.stderr, b"err\n");
        })
    });
}

#[test]
fn status_reports_the_exit_code() {
    limit("status", || {
        shim::runtime().block_on(async {
            let status = Command::new("sh")
                .args(["-c", "exit 3"])
                .status()
                .await
                .unwrap();
            assert_eq!(status.code(), Some(3));
            assert!(!status.success());
            let status = Command::new("true").status().await.unwrap();
            assert!(status.success());
        })
    });
}

#[test]
fn env_and_current_dir_reach_the_program() {
    limit("env and current_dir", || {
        shim::runtime().block_on(async {
            let out = Command::new("sh")
                .args(["-c", "echo \"$GREETING\"; pwd"])
                .env("GREETING", "hello")
                .current_dir("/")
                .output()
                .await
                .unwrap();
            assert_eq!(out.stdout, b"hello\n/\n");
        })
    });
}

#[test]
fn piped_stdin_to_stdout_through_cat() {
    limit("cat round trip", || {
        shim::runtime().block_on(async {
            let mut child = Command::new("cat")
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .spawn()
                .unwrap();
            let mut stdin = child.stdin.take().unwrap();
            let mut stdout = child.stdout.take().unwrap();
            // Written from a task of its own: a pipe holds only so much
            // until the reader below drains it.
            let writer = rt::spawn(async move {
                for _ in 0..100 {
                    stdin.write_all(&[b'x'; 1000]).await.unwrap();
                }
                // Dropped here: cat reads end of file.
            });
            let mut echoed = Vec::new();
            stdout.read_to_end(&mut echoed).await.unwrap();
            writer.await.unwrap();
            assert_eq!(echoed.len(), 100_000);
            assert!(echoed.iter().all(|&b| b == b'x'));
            assert!(child.wait().await.unwrap().success());
        })
    });
}

#[test]
fn wait_closes_stdin_so_cat_exits() {
    limit("wait closes stdin", || {
        shim::runtime().block_on(async {
            let mut child = Command::new("cat")
                .stdin(Stdio::piped())
                .stdout(Stdio::null())
                .spawn()
                .unwrap();
            assert!(child.stdin.is_some());
            let status = child.wait().await.unwrap();
            assert!(status.success());
            assert!(child.stdin.is_none());
        })
    });
}

#[test]
fn kill_then_wait_reports_the_signal_and_id_goes() {
    limit("kill", || {
        shim::runtime().block_on(async {
            let mut child = Command::new("sleep").arg("30").spawn().unwrap();
            assert!(child.id().is_some());
            assert_eq!(child.try_wait().unwrap(), None);
            child.kill().await.unwrap();
            assert_eq!(child.id(), None);
            let status = child.wait().await.unwrap();
            assert_eq!(status.signal(), Some(libc::SIGKILL));
            assert_eq!(status.code(), None);
            // Already reaped: nothing to kill, the same status again.
            child.start_kill().unwrap();
            assert_eq!(child.try_wait().unwrap(), Some(status));
        })
    });
}

#[test]
fn try_wait_before_and_after_the_exit() {
    limit("try_wait", || {
        shim::runtime().block_on(async {
            let mut child = Command::new("cat")
                .stdin(Stdio::piped())
                .stdout(Stdio::null())
                .spawn()
                .unwrap();
            // cat waits for input, so it has not exited; try_wait leaves
            // stdin open.
            assert_eq!(child.try_wait().unwrap(), None);
            assert!(child.stdin.is_some());
            let status = child.wait().await.unwrap();
            assert_eq!(child.try_wait().unwrap(), Some(status));
            assert_eq!(child.wait().await.unwrap(), status);
            assert_eq!(child.id(), None);
        })
    });
}

#[test]
fn start_kill_then_wait() {
    limit("start_kill", || {
        shim::runtime().block_on(async {
            let mut child = Command::new("sleep").arg("30").spawn().unwrap();
            child.start_kill().unwrap();
            let status = child.wait().await.unwrap();
            assert_eq!(status.signal(), Some(libc::SIGKILL));
        })
    });
}

#[test]
fn wait_with_output_reads_both_pipes() {
    limit("wait_with_output", || {
        shim::runtime().block_on(async {
            let child = Command::new("sh")
                .args(["-c", "echo one; echo two >&2"])
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap();
            let out = child.wait_with_output().await.unwrap();
            assert!(out.status.success());
            assert_eq!(out.stdout, b"one\n");
            assert_eq!(out.stderr, b"two\n");
        })
    });
}

#[test]
fn a_missing_program_is_not_found() {
    limit("missing program", || {
        shim::runtime().block_on(async {
            let error = Command::new("/nonexistent/rt-no-such-program")
                .spawn()
                .unwrap_err();
            assert_eq!(error.kind(), ErrorKind::NotFound);
            let error = Command::new("rt-no-such-program-on-the-path")
                .output()
                .await
                .unwrap_err();
            assert_eq!(error.kind(), ErrorKind::NotFound);
        })
    });
}

#[test]
fn many_children_at_once() {
    limit("many children", || {
        shim::runtime().block_on(async {
            let tasks: Vec<_> = (0..20)
                .map(|i| {
                    rt::spawn(async move {
                        let out = Command::new("echo").arg(i.to_string()).output().await;
                        out.unwrap().stdout
                    })
                })
                .collect();
            for (i, task) in tasks.into_iter().enumerate() {
                assert_eq!(task.await.unwrap(), format!("{i}\n").into_bytes());
            }
        })
    });
}

#[test]
fn spawn_outside_a_runtime_panics() {
    limit("spawn outside a runtime", || {
        // `true` exits at once, in case the runtime starts it before
        // panicking (Tokio does).
        expect_panic("spawn outside a runtime", || Command::new("true").spawn());
    });
}

#[test]
fn command_from_std_and_kill_on_drop_flag() {
    limit("From<std Command>", || {
        let mut std = std::process::Command::new("echo");
        std.arg("from std");
        let mut command = Command::from(std);
        assert!(!command.get_kill_on_drop());
        command.kill_on_drop(true);
        assert!(command.get_kill_on_drop());
        assert_eq!(command.as_std().get_program(), "echo");
        command.as_std_mut().arg("again");
        shim::runtime().block_on(async move {
            let out = command.output().await.unwrap();
            assert_eq!(out.stdout, b"from std again\n");
        })
    });
}
