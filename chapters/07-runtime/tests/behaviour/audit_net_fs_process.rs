//! Child processes, and the corners of sockets and files the earlier
//! audits left, as Tokio documents them (third audit).
//!
//! Covers `tokio::process` (`Command`'s `status` closing the pipes it
//! made, `output` piping stdout and stderr whatever they were set to but
//! keeping stdin, both spawning before they are polled, `env_clear`,
//! `env_remove`, `arg0`, `process_group`, the error kinds of a spawn that
//! fails, a spawn on a blocking thread or under `Runtime::enter`,
//! `kill_on_drop` for a dropped `Child` and for a dropped `status`/`output`
//! future, a dropped `Child` running on without it; a `Child`'s `id`,
//! `start_kill` and `kill` after reaping, `wait` being cancel safe and
//! repeatable, `try_wait` leaving stdin open, a child's pipe handed to
//! another child as its `Stdio`, `wait_with_output` draining both pipes
//! while it waits, a write to an exited child's stdin), a few `tokio::net`
//! edges (`Ready`'s closed flags once both directions of a connection are
//! over, tasks sharing one listener's `accept` or one UDP socket's
//! `recv_from`, a Unix path starting with NUL naming an abstract socket, a
//! path too long for a socket address, a UDP receive into an empty buffer)
//! and `tokio::fs` edges (the methods that wait for a write in flight, a
//! dropped `File`'s unflushed write, `try_exists` below a file, `read_dir`
//! at its end, `write` over a longer file). Each test is written from Tokio
//! 1.54's documentation and was first made to pass against Tokio, which
//! compiles this same file in `behaviour_tokio.rs`: a failure in the Tokio
//! build is a wrong test, one in the rt build a place where rt departs from
//! Tokio. Programs run are standard Unix tools, none reads the test's own
//! stdin, and every one ends by itself within seconds even if a test fails
//! (the `sleep 30`s only when a `kill_on_drop` test fails).

use crate::behaviour::{Scratch, limit, tcp_pair};
use crate::{rt, shim};
use rt::fs::{self, File};
use rt::io::{AsyncReadExt, AsyncWriteExt, Interest};
use rt::net::{TcpListener, TcpStream, UdpSocket, UnixListener, UnixStream};
use rt::process::Command;
use std::io::{ErrorKind, Read};
use std::os::unix::process::ExitStatusExt;
use std::process::Stdio;
use std::time::Duration;

/// A bound for waits that should end at once (never reached on a working
/// runtime, however loaded the machine).
const PATIENCE: Duration = Duration::from_secs(10);

/// Reads `reader` to its end, within [`PATIENCE`].
async fn read_all<R: rt::io::AsyncRead + Unpin>(reader: &mut R) -> Vec<u8> {
    let mut all = Vec::new();
    rt::time::timeout(PATIENCE, reader.read_to_end(&mut all))
        .await
        .expect("no end of stream")
        .unwrap();
    all
}

// ---------------------------------------------------------------- process

/// `Command::status`: "If any input/output handles are set to a pipe then
/// they will be immediately closed after the child is spawned." A `cat`
/// given a piped stdin thus reads end of file and exits at once, and a
/// shell that reads a line from its piped stdin sees none and exits with
/// the code it was told.
#[test]
fn status_closes_the_pipes_it_was_given() {
    limit("status closes pipes", || {
        shim::runtime().block_on(async {
            let status = rt::time::timeout(
                PATIENCE,
                Command::new("cat")
                    .stdin(Stdio::piped())
                    .stdout(Stdio::null())
                    .status(),
            )
            .await
            .expect("cat still waits for its stdin")
            .unwrap();
            assert!(status.success());

            let status = rt::time::timeout(
                PATIENCE,
                Command::new("sh")
                    .args(["-c", "if read line; then exit 1; fi; exit 7"])
                    .stdin(Stdio::piped())
                    .stdout(Stdio::piped())
                    .stderr(Stdio::piped())
                    .status(),
            )
            .await
            .expect("sh still waits for its stdin")
            .unwrap();
            assert_eq!(status.code(), Some(7));
        })
    });
}

/// `Command::output`: "this method, unlike the standard library, will
/// unconditionally configure the stdout/stderr handles to be pipes, even if
/// they have been previously configured." Both set to `Stdio::null()`,
/// both are still collected.
#[test]
fn output_pipes_stdout_and_stderr_even_when_set_to_null() {
    limit("output overrides stdout/stderr", || {
        shim::runtime().block_on(async {
            let out = Command::new("sh")
                .args(["-c", "echo to-out; echo to-err >&2"])
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .output()
                .await
                .unwrap();
            assert!(out.status.success());
            assert_eq!(out.stdout, b"to-out\n");
            assert_eq!(out.stderr, b"to-err\n");
        })
    });
}

/// `Child::id`: "Returns the OS-assigned process identifier associated with
/// this child while it is still running. Once the child has been polled to
/// completion this will return `None`." The id is the pid the program sees
/// as its own (`$$`).
#[test]
fn child_id_is_the_programs_pid_until_it_is_reaped() {
    limit("Child::id", || {
        shim::runtime().block_on(async {
            let mut child = Command::new("sh")
                .args(["-c", "echo $$"])
                .stdin(Stdio::null())
                .stdout(Stdio::piped())
                .spawn()
                .unwrap();
            let id = child.id().expect("a running child has an id");
            let mut stdout = child.stdout.take().unwrap();
            let said = String::from_utf8(read_all(&mut stdout).await).unwrap();
            assert_eq!(said.trim().parse::<u32>().unwrap(), id);
            assert!(child.wait().await.unwrap().success());
            assert_eq!(child.id(), None);
        })
    });
}

/// `start_kill` and `kill` on a child already reaped: Tokio's `start_kill`
/// does nothing once the child has been "polled to completion" (`Ok`), and
/// `kill` is `start_kill` then `wait`, which "will continue to have the
/// same return value after it has been called at least once".
#[test]
fn start_kill_and_kill_after_the_child_was_reaped_are_ok() {
    limit("kill a reaped child", || {
        shim::runtime().block_on(async {
            let mut child = Command::new("sh")
                .args(["-c", "exit 5"])
                .stdin(Stdio::null())
                .spawn()
                .unwrap();
            let status = child.wait().await.unwrap();
            assert_eq!(status.code(), Some(5));
            child.start_kill().unwrap();
            child.kill().await.unwrap();
            assert_eq!(child.wait().await.unwrap(), status);
            assert_eq!(child.try_wait().unwrap(), Some(status));
            assert_eq!(child.id(), None);
        })
    });
}

/// `Child::wait`: "This function is cancel safe." A wait cut short by a
/// timeout loses nothing: the child is still there (`try_wait` says
/// `None`, `id` is `Some`), `kill` then ends it, and later waits and
/// `try_wait`s all report the same `SIGKILL` status ("guaranteed to
/// repeatedly return a successful exit status so long as the child has
/// already exited").
#[test]
fn wait_is_cancel_safe_and_repeats_its_status() {
    limit("wait cancel safety", || {
        shim::runtime().block_on(async {
            let mut child = Command::new("sleep")
                .arg("5")
                .stdin(Stdio::null())
                .spawn()
                .unwrap();
            let cut_short = rt::time::timeout(Duration::from_millis(20), child.wait()).await;
            assert!(cut_short.is_err(), "sleep 5 ended within 20 ms");
            assert!(child.id().is_some());
            assert_eq!(child.try_wait().unwrap(), None);
            child.kill().await.unwrap();
            let status = child.wait().await.unwrap();
            assert_eq!(status.signal(), Some(9));
            assert_eq!(child.wait().await.unwrap(), status);
            assert_eq!(child.try_wait().unwrap(), Some(status));
            assert_eq!(child.id(), None);
        })
    });
}

/// `Child::try_wait`: "Note that unlike `wait`, this function will not
/// attempt to drop stdin". A `cat` still running keeps its stdin handle
/// through `try_wait`, and what is written to it afterwards comes back.
#[test]
fn try_wait_leaves_stdin_open() {
    limit("try_wait keeps stdin", || {
        shim::runtime().block_on(async {
            let mut child = Command::new("cat")
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .spawn()
                .unwrap();
            assert_eq!(child.try_wait().unwrap(), None, "cat exited on its own");
            let mut stdin = child.stdin.take().expect("try_wait dropped stdin");
            stdin.write_all(b"still open").await.unwrap();
            drop(stdin);
            let mut stdout = child.stdout.take().unwrap();
            assert_eq!(read_all(&mut stdout).await, b"still open");
            assert!(child.wait().await.unwrap().success());
        })
    });
}

/// `env_clear` starts the program with no inherited variables (only those
/// added by `env`), and `env_remove` takes one away: `Command` forwards
/// both to `std::process::Command`, whose documented meaning they keep.
#[test]
fn env_clear_and_env_remove_reach_the_program() {
    limit("env_clear and env_remove", || {
        shim::runtime().block_on(async {
            let out = Command::new("/usr/bin/env")
                .env_clear()
                .env("RT_AUDIT_ONLY", "this")
                .stdin(Stdio::null())
                .output()
                .await
                .unwrap();
            assert_eq!(out.stdout, b"RT_AUDIT_ONLY=this\n");

            let out = Command::new("sh")
                .args([
                    "-c",
                    "echo \"${RT_AUDIT_GONE-unset} ${RT_AUDIT_KEPT-unset}\"",
                ])
                .envs([("RT_AUDIT_GONE", "x"), ("RT_AUDIT_KEPT", "y")])
                .env_remove("RT_AUDIT_GONE")
                .stdin(Stdio::null())
                .output()
                .await
                .unwrap();
            assert_eq!(out.stdout, b"unset y\n");
        })
    });
}

/// `Command::arg0`: "Set the first process argument, `argv[0]`, to
/// something other than the default executable path." A shell run with
/// `-c` and no further arguments reports `argv[0]` as `$0`.
#[test]
fn arg0_is_what_the_program_sees_as_its_name() {
    limit("arg0", || {
        shim::runtime().block_on(async {
            let out = Command::new("sh")
                .arg0("rt-audit-name")
                .args(["-c", "echo \"$0\""])
                .stdin(Stdio::null())
                .output()
                .await
                .unwrap();
            assert_eq!(out.stdout, b"rt-audit-name\n");
        })
    });
}

/// `Command::process_group`: "A process group ID of 0 will use the process
/// ID as the PGID." Without it the child stays in this process's group,
/// whose id is not the child's pid.
#[test]
fn process_group_zero_makes_the_child_lead_a_group_of_its_own() {
    const PID_AND_GROUP: &str =
        "read -r _p _c _s _pp pgrp _rest < /proc/$$/stat; echo \"$$ $pgrp\"";
    async fn pid_and_group(command: &mut Command) -> (u32, u32) {
        let out = command
            .args(["-c", PID_AND_GROUP])
            .stdin(Stdio::null())
            .output()
            .await
            .unwrap();
        let text = String::from_utf8(out.stdout).unwrap();
        let mut words = text.split_whitespace().map(|w| w.parse::<u32>().unwrap());
        (words.next().unwrap(), words.next().unwrap())
    }
    limit("process_group", || {
        shim::runtime().block_on(async {
            let (pid, group) = pid_and_group(Command::new("sh").process_group(0)).await;
            assert_eq!(pid, group);
            let (pid, group) = pid_and_group(&mut Command::new("sh")).await;
            assert_ne!(pid, group);
        })
    });
}

/// `Command::kill_on_drop`: "Controls whether a `kill` operation should be
/// invoked on a spawned child process when its corresponding `Child`
/// handle is dropped." A dropped `sleep` is killed, so its stdout pipe
/// reaches end of file long before the sleep would have ended (and well
/// within the hang limit).
#[test]
fn kill_on_drop_kills_a_dropped_child() {
    limit("kill_on_drop Child", || {
        shim::runtime().block_on(async {
            let mut child = Command::new("sleep")
                .arg("30")
                .stdin(Stdio::null())
                .stdout(Stdio::piped())
                .kill_on_drop(true)
                .spawn()
                .unwrap();
            let mut stdout = child.stdout.take().unwrap();
            drop(child);
            let mut rest = Vec::new();
            rt::time::timeout(PATIENCE, stdout.read_to_end(&mut rest))
                .await
                .expect("the dropped child was not killed")
                .unwrap();
            assert!(rest.is_empty());
        })
    });
}

/// `Command::status` and `Command::output`: "The destructor of the future
/// returned by this function will kill the child if `kill_on_drop` is set
/// to true." Each future is dropped half way (by a timeout) while its
/// `sleep` runs; the sleep holds the write end of a pipe as its stdin,
/// and that pipe's reader sees end of file once the sleep is killed.
#[test]
fn kill_on_drop_applies_to_dropped_status_and_output_futures() {
    /// Runs `sleep 30` with the write end of a fresh pipe as its stdin,
    /// through `status` or `output`, drops that future after a moment, and
    /// returns the pipe's read end.
    async fn start_and_drop(use_output: bool) -> std::io::PipeReader {
        let (reader, writer) = std::io::pipe().unwrap();
        let mut command = Command::new("sleep");
        command
            .arg("30")
            .stdin(Stdio::from(writer))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .kill_on_drop(true);
        if use_output {
            let future = command.output();
            drop(command); // its copy of the write end goes
            let cut = rt::time::timeout(Duration::from_millis(20), future).await;
            assert!(cut.is_err(), "sleep 30 ended within 20 ms");
        } else {
            let future = command.status();
            drop(command);
            let cut = rt::time::timeout(Duration::from_millis(20), future).await;
            assert!(cut.is_err(), "sleep 30 ended within 20 ms");
        }
        reader
    }
    limit("kill_on_drop futures", || {
        let runtime = shim::runtime();
        for use_output in [false, true] {
            let mut reader = runtime.block_on(start_and_drop(use_output));
            // Blocks this (test) thread until the sleep is gone; the hang
            // limit ends the test if it never is.
            let mut rest = Vec::new();
            reader.read_to_end(&mut rest).unwrap();
            assert!(rest.is_empty());
        }
    });
}

/// A piped `ChildStdout` (and `ChildStdin`) converts into a `Stdio` for
/// another command (Tokio: `impl TryInto<Stdio> for ChildStdout`, "the
/// caller can pipe one process's output into another process's input"):
/// `echo`'s output goes through `cat`, and a second `cat`'s stdin is fed by
/// another `echo`'s stdout. The converted pipe is a normal, blocking one
/// for the program that gets it.
#[test]
fn a_childs_pipe_becomes_another_childs_stdio() {
    limit("pipe between children", || {
        shim::runtime().block_on(async {
            let mut echo = Command::new("echo")
                .arg("through a pipe")
                .stdin(Stdio::null())
                .stdout(Stdio::piped())
                .spawn()
                .unwrap();
            let echo_out: Stdio = echo.stdout.take().unwrap().try_into().unwrap();
            let out = Command::new("cat").stdin(echo_out).output().await.unwrap();
            assert!(out.status.success());
            assert_eq!(out.stdout, b"through a pipe\n");
            assert!(echo.wait().await.unwrap().success());

            let mut cat = Command::new("cat")
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .spawn()
                .unwrap();
            let cat_in: Stdio = cat.stdin.take().unwrap().try_into().unwrap();
            let status = Command::new("echo")
                .arg("into cat")
                .stdin(Stdio::null())
                .stdout(cat_in)
                .status()
                .await
                .unwrap();
            assert!(status.success());
            let mut cat_out = cat.stdout.take().unwrap();
            assert_eq!(read_all(&mut cat_out).await, b"into cat\n");
            assert!(cat.wait().await.unwrap().success());
        })
    });
}

/// `Child::wait_with_output`: "The returned future will simultaneously
/// waits for the child to exit and collect all remaining output on the
/// stdout/stderr handles". A program that writes far more than a pipe
/// holds to stderr and then to stdout can only finish if both are read
/// while it runs.
#[test]
fn wait_with_output_drains_both_pipes_while_waiting() {
    limit("wait_with_output large", || {
        shim::runtime().block_on(async {
            let child = Command::new("sh")
                .args([
                    "-c",
                    "head -c 300000 /dev/zero >&2; head -c 1000000 /dev/zero; exit 3",
                ])
                .stdin(Stdio::null())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap();
            let out = rt::time::timeout(PATIENCE, child.wait_with_output())
                .await
                .expect("wait_with_output did not drain the pipes")
                .unwrap();
            assert_eq!(out.status.code(), Some(3));
            assert_eq!(out.stdout.len(), 1_000_000);
            assert_eq!(out.stderr.len(), 300_000);
        })
    });
}

/// Writing to the stdin of a child that has exited (and closed its end)
/// fails with `BrokenPipe`, the pipe's `EPIPE` (Rust programs ignore
/// `SIGPIPE`), instead of waiting for room that will never come.
#[test]
fn writing_to_an_exited_childs_stdin_is_broken_pipe() {
    limit("stdin of an exited child", || {
        shim::runtime().block_on(async {
            let mut child = Command::new("true").stdin(Stdio::piped()).spawn().unwrap();
            let mut stdin = child.stdin.take().unwrap();
            assert!(child.wait().await.unwrap().success());
            let err = rt::time::timeout(PATIENCE, stdin.write_all(&[7u8; 200_000]))
                .await
                .expect("a write to a closed pipe waited")
                .unwrap_err();
            assert_eq!(err.kind(), ErrorKind::BrokenPipe);
        })
    });
}

/// `Command::output` keeps stdin as it was set (only stdout and stderr are
/// forced to pipes), and `wait_with_output` closes a piped stdin "before
/// waiting ... it ensures that the child does not block waiting for input
/// from the parent": a `cat` with a piped stdin reads end of file at once.
#[test]
fn output_with_a_piped_stdin_closes_it_before_waiting() {
    limit("output with piped stdin", || {
        shim::runtime().block_on(async {
            let out =
                rt::time::timeout(PATIENCE, Command::new("cat").stdin(Stdio::piped()).output())
                    .await
                    .expect("cat still waits for its stdin")
                    .unwrap();
            assert!(out.status.success());
            assert!(out.stdout.is_empty());
        })
    });
}

/// `Child`: "a spawned process will, by default, continue to execute even
/// after the `Child` handle has been dropped." A shell waiting for a line
/// is dropped (without `kill_on_drop`), then given the line through the
/// stdin taken out beforehand: it is still there to answer.
#[test]
fn a_dropped_child_runs_on_without_kill_on_drop() {
    limit("dropped Child runs on", || {
        shim::runtime().block_on(async {
            let mut child = Command::new("sh")
                .args(["-c", "read line; echo \"got $line\""])
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .spawn()
                .unwrap();
            let mut stdin = child.stdin.take().unwrap();
            let mut stdout = child.stdout.take().unwrap();
            drop(child);
            stdin.write_all(b"late\n").await.unwrap();
            drop(stdin);
            assert_eq!(read_all(&mut stdout).await, b"got late\n");
        })
    });
}

/// `Command::status` and `Command::output` spawn the program when they are
/// called (Tokio's: "This method will spawn the child process
/// synchronously"), not when the future is first polled: a future never
/// polled and dropped (no `kill_on_drop`) still has its program run. The
/// program reports on a pipe given as its stdin (`output` replaces stdout
/// and stderr with pipes of its own).
#[test]
fn status_and_output_start_the_program_before_they_are_polled() {
    limit("status/output spawn eagerly", || {
        let runtime = shim::runtime();
        for use_output in [false, true] {
            let (mut reader, writer) = std::io::pipe().unwrap();
            runtime.block_on(async {
                let mut command = Command::new("sh");
                command
                    .args(["-c", "echo ran >&0"])
                    .stdin(Stdio::from(writer))
                    .stdout(Stdio::null())
                    .stderr(Stdio::null());
                if use_output {
                    drop(command.output());
                } else {
                    drop(command.status());
                }
            });
            let mut said = String::new();
            reader.read_to_string(&mut said).unwrap();
            assert_eq!(said, "ran\n", "output: {use_output}");
        }
    });
}

/// Spawn errors are `io::Error`s of the documented kinds: a program file
/// without execute permission is `PermissionDenied` (even for root), and
/// a working directory that does not exist is `NotFound`.
#[test]
fn spawn_errors_for_a_non_executable_file_and_a_missing_directory() {
    use std::os::unix::fs::PermissionsExt;
    limit("spawn errors", || {
        let dir = Scratch::new("audit-nfp", "spawn-errors");
        let script = dir.join("script.sh");
        std::fs::write(&script, "#!/bin/sh\nexit 0\n").unwrap();
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o644)).unwrap();
        shim::runtime().block_on(async {
            let err = Command::new(&script).spawn().unwrap_err();
            assert_eq!(err.kind(), ErrorKind::PermissionDenied);
            let err = Command::new("true")
                .current_dir(dir.join("missing"))
                .status()
                .await
                .unwrap_err();
            assert_eq!(err.kind(), ErrorKind::NotFound);
        })
    });
}

/// A blocking-pool thread is inside the runtime's context (as Tokio's
/// are), and so is a thread under `Runtime::enter`: a command spawned on
/// either is registered with that runtime, and its `Child` is then waited
/// for from a task.
#[test]
fn a_child_spawned_on_a_blocking_thread_or_under_enter_is_waited_for() {
    limit("spawn off the async context", || {
        let runtime = shim::runtime();
        let child = {
            let _entered = runtime.enter();
            Command::new("sh")
                .args(["-c", "exit 4"])
                .stdin(Stdio::null())
                .spawn()
                .unwrap()
        };
        runtime.block_on(async move {
            let mut child = child;
            assert_eq!(child.wait().await.unwrap().code(), Some(4));
            let mut child = rt::task::spawn_blocking(|| {
                Command::new("sh")
                    .args(["-c", "echo from the pool; exit 6"])
                    .stdin(Stdio::null())
                    .stdout(Stdio::piped())
                    .spawn()
                    .unwrap()
            })
            .await
            .unwrap();
            let mut stdout = child.stdout.take().unwrap();
            assert_eq!(read_all(&mut stdout).await, b"from the pool\n");
            assert_eq!(child.wait().await.unwrap().code(), Some(6));
        })
    });
}

// ---------------------------------------------------------------- net

/// `Ready::is_write_closed` / `is_read_closed`: once this end has shut
/// down writing and the peer has closed, both directions are over and
/// `ready` (asked for reading and writing) reports both flags.
#[test]
fn tcp_ready_reports_both_directions_closed() {
    limit("tcp ready closed flags", || {
        shim::runtime().block_on(async {
            let (mut client, mut server) = tcp_pair().await;
            client.shutdown().await.unwrap();
            assert!(read_all(&mut server).await.is_empty());
            drop(server);
            rt::time::timeout(PATIENCE, async {
                loop {
                    let ready = client
                        .ready(Interest::READABLE | Interest::WRITABLE)
                        .await
                        .unwrap();
                    if ready.is_read_closed() && ready.is_write_closed() {
                        break;
                    }
                    // The flags come with the peer's FIN; let the driver run.
                    rt::task::yield_now().await;
                }
            })
            .await
            .expect("ready never reported both directions closed");
        })
    });
}

/// `TcpListener::accept` takes `&self`, so tasks sharing a listener may
/// all wait in `accept` at once: each connection goes to one of them, and
/// with as many connections as waiting tasks, every task gets one (none is
/// left unwoken).
#[test]
fn tcp_tasks_accepting_on_one_listener_each_get_a_connection() {
    limit("shared accept", || {
        shim::runtime().block_on(async {
            let listener = std::sync::Arc::new(TcpListener::bind("127.0.0.1:0").await.unwrap());
            let addr = listener.local_addr().unwrap();
            let acceptors: Vec<_> = (0..3)
                .map(|_| {
                    let listener = listener.clone();
                    rt::spawn(async move { listener.accept().await.unwrap().1 })
                })
                .collect();
            // Let the three reach their accept (not needed for the outcome).
            rt::time::sleep(Duration::from_millis(20)).await;
            let mut clients = Vec::new();
            for _ in 0..3 {
                clients.push(TcpStream::connect(addr).await.unwrap());
            }
            let mut peers = Vec::new();
            for acceptor in acceptors {
                peers.push(
                    rt::time::timeout(PATIENCE, acceptor)
                        .await
                        .expect("an accepting task was never woken")
                        .unwrap(),
                );
            }
            let mut expected: Vec<_> = clients.iter().map(|c| c.local_addr().unwrap()).collect();
            peers.sort();
            expected.sort();
            assert_eq!(peers, expected);
        })
    });
}

/// The same for `UdpSocket::recv_from` ("takes `&self`", Tokio's docs show
/// an `Arc<UdpSocket>` shared by tasks): three tasks wait on one socket,
/// three datagrams arrive, each task receives one.
#[test]
fn udp_tasks_receiving_on_one_socket_each_get_a_datagram() {
    limit("shared recv_from", || {
        shim::runtime().block_on(async {
            let socket = std::sync::Arc::new(UdpSocket::bind("127.0.0.1:0").await.unwrap());
            let to = socket.local_addr().unwrap();
            let receivers: Vec<_> = (0..3)
                .map(|_| {
                    let socket = socket.clone();
                    rt::spawn(async move {
                        let mut buf = [0u8; 8];
                        let (n, _) = socket.recv_from(&mut buf).await.unwrap();
                        buf[..n].to_vec()
                    })
                })
                .collect();
            rt::time::sleep(Duration::from_millis(20)).await;
            let sender = UdpSocket::bind("127.0.0.1:0").await.unwrap();
            for message in [b"one", b"two", b"six"] {
                sender.send_to(message, to).await.unwrap();
            }
            let mut got = Vec::new();
            for receiver in receivers {
                got.push(
                    rt::time::timeout(PATIENCE, receiver)
                        .await
                        .expect("a receiving task was never woken")
                        .unwrap(),
                );
            }
            got.sort();
            assert_eq!(got, [b"one".to_vec(), b"six".to_vec(), b"two".to_vec()]);
        })
    });
}

/// The same for a Unix stream pair: when one end is dropped, the other
/// can neither read more nor write, and `ready` says so
/// (`is_read_closed` and `is_write_closed`), and a read returns 0.
#[test]
fn unix_ready_after_the_peer_is_dropped_is_read_and_write_closed() {
    limit("unix ready closed flags", || {
        shim::runtime().block_on(async {
            let (mut left, right) = UnixStream::pair().unwrap();
            drop(right);
            rt::time::timeout(PATIENCE, async {
                loop {
                    let ready = left
                        .ready(Interest::READABLE | Interest::WRITABLE)
                        .await
                        .unwrap();
                    if ready.is_read_closed() && ready.is_write_closed() {
                        break;
                    }
                    rt::task::yield_now().await;
                }
            })
            .await
            .expect("ready never reported both directions closed");
            let mut buf = [0u8; 4];
            assert_eq!(left.read(&mut buf).await.unwrap(), 0);
        })
    });
}

/// A name for an abstract Unix socket private to this test run (the four
/// builds of this file may run at once).
fn abstract_name(test: &str) -> String {
    let flavour = if shim::MULTI_THREAD { "mt" } else { "ct" };
    format!(
        "rt-audit-nfp-{}-{flavour}-{}-{test}",
        shim::NAME,
        std::process::id()
    )
}

/// On Linux, Tokio's `UnixListener::bind` and `UnixStream::connect` read a
/// path whose first byte is NUL as an abstract socket name (the name is
/// the bytes after the NUL; no file is made): the listener's address has
/// no path but is not unnamed, and a stream connects to it by the same
/// string.
#[test]
fn unix_a_path_starting_with_nul_names_an_abstract_socket() {
    limit("unix abstract path", || {
        let path = format!("\0{}", abstract_name("listener"));
        shim::runtime().block_on(async {
            let listener = UnixListener::bind(&path).unwrap();
            let addr = listener.local_addr().unwrap();
            assert!(addr.as_pathname().is_none());
            assert!(!addr.is_unnamed());
            // A second bind of the same name finds it taken.
            assert_eq!(
                UnixListener::bind(&path).unwrap_err().kind(),
                ErrorKind::AddrInUse
            );
            let mut client = UnixStream::connect(&path).await.unwrap();
            let (mut server, _) = rt::time::timeout(PATIENCE, listener.accept())
                .await
                .unwrap()
                .unwrap();
            client.write_all(b"abstract").await.unwrap();
            drop(client);
            assert_eq!(read_all(&mut server).await, b"abstract");
        })
    });
}

/// A path too long for a Unix socket address (`sun_path` holds 108 bytes)
/// is refused before any socket call, as `InvalidInput`, by `bind` and by
/// `connect` alike.
#[test]
fn unix_a_path_too_long_for_a_socket_address_is_invalid_input() {
    limit("unix long path", || {
        let path = std::env::temp_dir().join("x".repeat(200));
        shim::runtime().block_on(async {
            assert_eq!(
                UnixListener::bind(&path).unwrap_err().kind(),
                ErrorKind::InvalidInput
            );
            assert_eq!(
                UnixStream::connect(&path).await.unwrap_err().kind(),
                ErrorKind::InvalidInput
            );
            assert_eq!(
                rt::net::UnixDatagram::bind(&path).unwrap_err().kind(),
                ErrorKind::InvalidInput
            );
        })
    });
}

/// `UdpSocket::recv_from`: "If a message is too long to fit in the
/// supplied buffer, excess bytes may be discarded." An empty buffer takes
/// the whole datagram and returns `(0, sender)`; the next receive gets the
/// next datagram, not the rest of the first.
#[test]
fn udp_recv_from_into_an_empty_buffer_consumes_the_datagram() {
    limit("udp empty buffer", || {
        shim::runtime().block_on(async {
            let receiver = UdpSocket::bind("127.0.0.1:0").await.unwrap();
            let sender = UdpSocket::bind("127.0.0.1:0").await.unwrap();
            let to = receiver.local_addr().unwrap();
            sender.send_to(b"first", to).await.unwrap();
            sender.send_to(b"second", to).await.unwrap();
            let (n, from) = rt::time::timeout(PATIENCE, receiver.recv_from(&mut []))
                .await
                .unwrap()
                .unwrap();
            assert_eq!(n, 0);
            assert_eq!(from, sender.local_addr().unwrap());
            let mut buf = [0u8; 16];
            let (n, _) = rt::time::timeout(PATIENCE, receiver.recv_from(&mut buf))
                .await
                .unwrap()
                .unwrap();
            assert_eq!(&buf[..n], b"second");
        })
    });
}

// ---------------------------------------------------------------- fs

/// `File::try_clone` and `File::sync_data` wait for the write in flight
/// (Tokio's "writes are buffered in the background": a `write` returns
/// before the bytes are in the file, and these methods first let it
/// finish). Right after each, another handle sees the bytes.
#[test]
fn fs_try_clone_and_sync_data_wait_for_the_write_in_flight() {
    limit("fs try_clone waits", || {
        let dir = Scratch::new("audit-nfp", "try-clone-waits");
        let path = dir.join("file");
        shim::runtime().block_on(async {
            let mut file = File::create(&path).await.unwrap();
            file.write_all(b"before clone").await.unwrap();
            let mut clone = file.try_clone().await.unwrap();
            assert_eq!(std::fs::read(&path).unwrap(), b"before clone");

            // The clone shares the cursor: its write lands after the first.
            clone.write_all(b", from the clone").await.unwrap();
            clone.sync_data().await.unwrap();
            assert_eq!(
                std::fs::read(&path).unwrap(),
                b"before clone, from the clone"
            );
        })
    });
}

/// `File`'s drop: "A file will not be closed immediately when it goes out
/// of scope if there are any IO operations that have not yet completed."
/// The write in flight is not cancelled: its bytes reach the file even
/// though the `File` was dropped without a flush.
#[test]
fn fs_a_file_dropped_without_flush_still_gets_its_write() {
    limit("fs drop without flush", || {
        let dir = Scratch::new("audit-nfp", "drop-unflushed");
        let path = dir.join("file");
        shim::runtime().block_on(async {
            let mut file = File::create(&path).await.unwrap();
            file.write_all(b"no flush").await.unwrap();
            drop(file);
            rt::time::timeout(PATIENCE, async {
                while std::fs::read(&path).unwrap() != b"no flush" {
                    rt::time::sleep(Duration::from_millis(1)).await;
                }
            })
            .await
            .expect("the dropped file's write never landed");
        })
    });
}

/// `fs::try_exists`: "Returns `Ok(true)` if the path points at an existing
/// entity. This function will traverse symbolic links ... In case of
/// broken symbolic links this will return `Ok(false)`." A path below a
/// regular file is not "not found" but an error (`NotADirectory`), which
/// `try_exists` returns rather than `false`; a dangling link is `false`.
#[test]
fn fs_try_exists_below_a_file_is_an_error_and_a_dangling_link_false() {
    limit("fs try_exists errors", || {
        let dir = Scratch::new("audit-nfp", "try-exists");
        let file = dir.join("file");
        let link = dir.join("dangling");
        shim::runtime().block_on(async {
            fs::write(&file, b"x").await.unwrap();
            let err = fs::try_exists(file.join("below")).await.unwrap_err();
            assert_eq!(err.kind(), ErrorKind::NotADirectory);
            fs::symlink(dir.join("nowhere"), &link).await.unwrap();
            assert!(!fs::try_exists(&link).await.unwrap());
            assert!(fs::symlink_metadata(&link).await.is_ok());
        })
    });
}

/// `ReadDir::next_entry` at the end: `Ok(None)`, and again `Ok(None)` on
/// every later call (an empty directory has no entries at all: `.` and
/// `..` are not reported, as with `std::fs::read_dir`).
#[test]
fn fs_read_dir_keeps_returning_none_at_its_end() {
    limit("fs read_dir end", || {
        let dir = Scratch::new("audit-nfp", "read-dir-end");
        shim::runtime().block_on(async {
            let mut entries = fs::read_dir(dir.path()).await.unwrap();
            for _ in 0..3 {
                assert!(entries.next_entry().await.unwrap().is_none());
            }
            fs::write(dir.join("one"), b"").await.unwrap();
            let mut entries = fs::read_dir(dir.path()).await.unwrap();
            let entry = entries.next_entry().await.unwrap().unwrap();
            assert_eq!(entry.file_name(), "one");
            for _ in 0..3 {
                assert!(entries.next_entry().await.unwrap().is_none());
            }
        })
    });
}

/// `fs::write`: "This function will create a file if it does not exist,
/// and will entirely replace its contents if it does." A shorter write
/// over a longer file leaves only the new bytes.
#[test]
fn fs_write_replaces_a_longer_file_entirely() {
    limit("fs write truncates", || {
        let dir = Scratch::new("audit-nfp", "write-truncates");
        let path = dir.join("file");
        shim::runtime().block_on(async {
            fs::write(&path, b"a much longer first version")
                .await
                .unwrap();
            fs::write(&path, b"short").await.unwrap();
            assert_eq!(fs::read(&path).await.unwrap(), b"short");
            fs::write(&path, b"").await.unwrap();
            assert!(fs::read(&path).await.unwrap().is_empty());
        })
    });
}
