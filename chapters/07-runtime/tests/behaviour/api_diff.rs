//! Tokio 1.54 items that a diff of its public API against rt's found
//! missing or shaped differently (third audit), each tested as Tokio
//! documents it:
//!
//! * `runtime::worker_index`: `Some(i)` on a worker, `None` on a blocking
//!   thread and (multi-thread) on the thread in `block_on`, `Some(0)` on the
//!   thread that drives a current-thread runtime.
//! * `runtime::is_rt_shutdown_err`: true for the error of an accept on a
//!   listener whose runtime was dropped (Tokio's own example), false for
//!   another error of kind `Other`.
//! * A socket, a `bind` or a signal listener made outside a runtime:
//!   Tokio panics, in its words, and so do we.
//! * `EnterGuard<'a>` borrows the runtime, so it can be named with its
//!   lifetime in a struct.
//! * `Stdin`, `Stdout` and `Stderr` lend descriptors 0, 1 and 2
//!   (`AsRawFd`, `AsFd`); `AsyncFd` lends its inner value's (`AsFd`).
//! * `Ready` is ordered (`Ord`), so it can key a `BTreeMap`.
//! * `TcpStream` and `UnixStream` are `AsRef<Self>`.
//! * `broadcast::Sender::new` asks nothing of `T`.
//! * `LocalRuntime` is `UnwindSafe` and `RefUnwindSafe`.
//! * `time::error::Error`: made by its three constructors, it answers
//!   each question for its own cause only and prints Tokio's words.
//! * Error values print (`{:?}`) as Tokio's do: a quoted `"Full(..)"` for
//!   mpsc's `TrySendError`, the value in broadcast's `SendError(7)`, the
//!   private unit field in `RecvError(())` and `Elapsed(())`. A test that
//!   compares a formatted error, or a panic message from `unwrap`, sees
//!   the same text on either runtime.
//!
//! The file compiles against Tokio too (`behaviour_tokio.rs`), where each
//! test passed first: a failure there is a wrong test, in the rt build a
//! departure from Tokio.

use crate::behaviour::{expect_panic, limit, tcp_pair};
use crate::{rt, shim};
use std::os::fd::{AsFd, AsRawFd};

/// Where `worker_index` is `Some` and where `None`, in this build's flavour.
#[test]
fn worker_index_names_the_worker_thread_only() {
    limit("worker_index", || {
        let runtime = shim::runtime();
        let (on_block_on, in_task, on_blocking) = runtime.block_on(async {
            let in_task = rt::spawn(async { rt::runtime::worker_index() })
                .await
                .unwrap();
            let on_blocking = rt::task::spawn_blocking(rt::runtime::worker_index)
                .await
                .unwrap();
            (rt::runtime::worker_index(), in_task, on_blocking)
        });
        assert_eq!(on_blocking, None, "a blocking thread is no worker");
        if shim::MULTI_THREAD {
            assert_eq!(on_block_on, None, "the block_on thread is no worker");
            let index = in_task.expect("a task runs on a worker");
            assert!(index < runtime.metrics().num_workers(), "{index}");
        } else {
            assert_eq!(on_block_on, Some(0));
            assert_eq!(in_task, Some(0));
        }
        assert_eq!(rt::runtime::worker_index(), None, "outside the runtime");
    });
}

/// Tokio's own example: a listener whose runtime was dropped fails to
/// accept with the shutdown error, which `is_rt_shutdown_err` recognises.
#[test]
fn the_error_of_a_socket_whose_runtime_was_dropped_is_a_shutdown_error() {
    limit("is_rt_shutdown_err", || {
        let first = shim::runtime();
        let second = shim::runtime();
        let listener =
            first.block_on(async { rt::net::TcpListener::bind("127.0.0.1:0").await.unwrap() });
        drop(first);
        second.block_on(async {
            let error = listener.accept().await.unwrap_err();
            assert!(rt::runtime::is_rt_shutdown_err(&error), "{error:?}");
        });
        let other = std::io::Error::other("something else");
        assert!(!rt::runtime::is_rt_shutdown_err(&other));
        let kind_only = std::io::Error::from(std::io::ErrorKind::Other);
        assert!(!rt::runtime::is_rt_shutdown_err(&kind_only));
    });
}

/// Outside a runtime, a socket cannot be registered: `from_std` itself
/// panics with Tokio's "no reactor" words (the result is not unwrapped).
#[test]
fn a_socket_made_outside_a_runtime_fails_with_tokios_words() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let caught = expect_panic("TcpListener::from_std outside a runtime", move || {
        let _ = rt::net::TcpListener::from_std(listener);
    });
    caught.assert_says("there is no reactor running");
}

/// The same panic for every kind of registration Tokio documents it for:
/// a UDP socket and a Unix pair made outside a runtime, a `bind` polled by
/// an executor that is no runtime, and a signal listener ("This function
/// panics if there is no current reactor set").
#[test]
fn sockets_binds_and_signals_outside_a_runtime_panic_with_tokios_words() {
    let udp = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    udp.set_nonblocking(true).unwrap();
    expect_panic("UdpSocket::from_std outside a runtime", move || {
        let _ = rt::net::UdpSocket::from_std(udp);
    })
    .assert_says("there is no reactor running");
    expect_panic("UnixDatagram::pair outside a runtime", || {
        let _ = rt::net::UnixDatagram::pair();
    })
    .assert_says("there is no reactor running");
    expect_panic("TcpListener::bind polled outside a runtime", || {
        let _ = futures::executor::block_on(rt::net::TcpListener::bind("127.0.0.1:0"));
    })
    .assert_says("there is no reactor running");
    expect_panic("signal outside a runtime", || {
        let kind = rt::signal::unix::SignalKind::user_defined2();
        let _ = rt::signal::unix::signal(kind);
    })
    .assert_says("there is no reactor running");
}

/// A struct that holds the guard names its lifetime, as with Tokio's.
#[test]
fn an_enter_guard_borrows_its_runtime() {
    struct Entered<'a> {
        _guard: rt::runtime::EnterGuard<'a>,
    }
    limit("EnterGuard<'a>", || {
        let runtime = shim::runtime();
        let entered = Entered {
            _guard: runtime.enter(),
        };
        assert!(rt::runtime::Handle::try_current().is_ok());
        drop(entered);
        assert!(rt::runtime::Handle::try_current().is_err());
    });
}

/// The standard streams lend descriptors 0, 1 and 2, for `isatty` and
/// terminal modes.
#[test]
fn the_standard_streams_lend_their_descriptors() {
    limit("stdio AsRawFd/AsFd", || {
        shim::runtime().block_on(async {
            let stdin = rt::io::stdin();
            let stdout = rt::io::stdout();
            let stderr = rt::io::stderr();
            assert_eq!(stdin.as_raw_fd(), 0);
            assert_eq!(stdout.as_raw_fd(), 1);
            assert_eq!(stderr.as_raw_fd(), 2);
            assert_eq!(stdin.as_fd().as_raw_fd(), 0);
            assert_eq!(stdout.as_fd().as_raw_fd(), 1);
            assert_eq!(stderr.as_fd().as_raw_fd(), 2);
        });
    });
}

/// `AsyncFd` lends the descriptor it watches (`AsFd`), as Tokio's.
#[test]
fn an_async_fd_lends_its_descriptor() {
    limit("AsyncFd AsFd", || {
        shim::runtime().block_on(async {
            let socket = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
            socket.set_nonblocking(true).unwrap();
            let raw = socket.as_raw_fd();
            // SAFETY: the AsyncFd owns the socket, which stays open and the
            // same while it does.
            let registered = unsafe { rt::io::unix::AsyncFd::register(socket) };
            let fd = registered.unwrap();
            assert_eq!(fd.as_fd().as_raw_fd(), raw);
        });
    });
}

/// `Ready` is ordered, so readiness values can key an ordered map; the
/// empty set comes first.
#[test]
fn readiness_values_are_ordered() {
    use rt::io::Ready;
    let mut seen = std::collections::BTreeMap::new();
    for ready in [Ready::WRITABLE, Ready::READABLE, Ready::EMPTY] {
        seen.insert(ready, ready.is_readable());
    }
    assert_eq!(seen.len(), 3);
    assert_eq!(seen.keys().next(), Some(&Ready::EMPTY));
    assert!(Ready::READABLE < Ready::READABLE | Ready::WRITABLE);
}

/// A stream is `AsRef` of itself, so code generic over a stream or one of
/// its halves takes the stream too.
#[test]
fn a_stream_is_as_ref_of_itself() {
    fn local_port(stream: impl AsRef<rt::net::TcpStream>) -> u16 {
        stream.as_ref().local_addr().unwrap().port()
    }
    fn unix_is_connected(stream: impl AsRef<rt::net::UnixStream>) -> bool {
        stream.as_ref().peer_addr().is_ok()
    }
    limit("AsRef<Self>", || {
        shim::runtime().block_on(async {
            let (mut client, _server) = tcp_pair().await;
            let port = client.local_addr().unwrap().port();
            assert_eq!(local_port(&client), port);
            let (read, _write) = client.split();
            assert_eq!(local_port(&read), port);
            let (one, _two) = rt::net::UnixStream::pair().unwrap();
            assert!(unix_is_connected(&one));
            assert!(unix_is_connected(one));
        });
    });
}

/// `broadcast::Sender::new` asks nothing of `T`: a generic wrapper can
/// make one, for a type that is not `Clone` too.
#[test]
fn a_broadcast_sender_is_made_for_any_type() {
    struct Bus<T>(rt::sync::broadcast::Sender<T>);
    impl<T> Bus<T> {
        fn new() -> Bus<T> {
            Bus(rt::sync::broadcast::Sender::new(16))
        }
    }
    struct NotClone;
    let bus: Bus<NotClone> = Bus::new();
    assert_eq!(bus.0.receiver_count(), 0);
    assert!(bus.0.send(NotClone).is_err(), "no receiver to send to");
}

/// A local runtime can be used inside `catch_unwind`.
#[test]
fn a_local_runtime_is_unwind_safe() {
    fn unwind_safe<T: std::panic::UnwindSafe + std::panic::RefUnwindSafe>() {}
    unwind_safe::<rt::runtime::LocalRuntime>();
}

/// Each cause answers its own question only and says what Tokio says.
#[test]
fn a_timer_error_names_its_cause() {
    use rt::time::error::Error;
    let causes = [
        (
            Error::shutdown(),
            "the timer is shutdown, must be called from the context of Tokio runtime",
        ),
        (
            Error::at_capacity(),
            "timer is at capacity and cannot create a new entry",
        ),
        (Error::invalid(), "timer duration exceeds maximum duration"),
    ];
    for (index, (error, words)) in causes.iter().enumerate() {
        let answers = [
            error.is_shutdown(),
            error.is_at_capacity(),
            error.is_invalid(),
        ];
        let expected: Vec<bool> = (0..3).map(|i| i == index).collect();
        assert_eq!(answers.to_vec(), expected, "{error:?}");
        assert_eq!(error.to_string(), *words);
        let boxed: Box<dyn std::error::Error + Send + Sync> = Box::new(*error);
        assert_eq!(boxed.to_string(), *words);
    }
}

/// `{:?}` of the channels' and timers' errors, as Tokio prints them (found
/// by printing every error type on both runtimes; these differed).
#[test]
fn error_values_print_as_tokio_prints_them() {
    use rt::sync::{broadcast, mpsc, oneshot};
    let made = [
        format!("{:?}", mpsc::error::TrySendError::Full(1)),
        format!("{:?}", mpsc::error::TrySendError::Closed(1)),
        format!("{:?}", mpsc::error::SendTimeoutError::Timeout(1)),
        format!("{:?}", mpsc::error::SendTimeoutError::Closed(1)),
        format!("{:?}", mpsc::error::SendError(1)),
        format!("{:?}", broadcast::error::SendError(7)),
    ];
    let expected = [
        "\"Full(..)\"",
        "\"Closed(..)\"",
        "\"Timeout(..)\"",
        "\"Closed(..)\"",
        "SendError { .. }",
        "SendError(7)",
    ];
    assert_eq!(made, expected);
    limit("RecvError and Elapsed", || {
        let runtime = shim::runtime();
        let (recv, elapsed) = runtime.block_on(async {
            let (sender, receiver) = oneshot::channel::<u8>();
            drop(sender);
            let recv = receiver.await.unwrap_err();
            let never = std::future::pending::<()>();
            let elapsed = rt::time::timeout(std::time::Duration::from_millis(1), never)
                .await
                .unwrap_err();
            (recv, elapsed)
        });
        assert_eq!(format!("{recv:?}"), "RecvError(())");
        assert_eq!(format!("{elapsed:?}"), "Elapsed(())");
    });
}
