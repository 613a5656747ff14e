//! `rt::signal::ctrl_c`: woken by a SIGINT the test sends to its own
//! process. Every future is polled once (which installs the handler)
//! before any signal is sent, so the default action (terminate) never runs;
//! every wait has a deadline.
#![cfg(not(loom))]
#![cfg(not(miri))]

use rt::time::timeout;
use rt::{Builder, Runtime};
use std::pin::pin;
use std::time::Duration;

const PATIENCE: Duration = Duration::from_secs(5);

fn runtime() -> Runtime {
    Builder::new_multi_thread()
        .worker_threads(2)
        .build()
        .unwrap()
}

/// Sends SIGINT to this whole process (the kernel picks the thread).
fn interrupt_this_process() {
    // SAFETY: kill(2) with our own pid and SIGINT has no memory effects; the
    // callers have polled a ctrl_c() future first, so the handler is
    // installed and the process is not terminated.
    assert_eq!(unsafe { libc::kill(libc::getpid(), libc::SIGINT) }, 0);
}

#[test]
fn every_waiting_ctrl_c_wakes_at_one_sigint() {
    let rt = runtime();
    rt.block_on(async {
        let (armed_tx, mut armed_rx) = rt::sync::mpsc::channel::<()>(8);
        let waiters: Vec<_> = (0..3)
            .map(|_| {
                let armed = armed_tx.clone();
                rt::spawn(async move {
                    let mut ctrl_c = pin!(rt::signal::ctrl_c());
                    assert!(futures::poll!(ctrl_c.as_mut()).is_pending());
                    armed.send(()).await.unwrap();
                    ctrl_c.await
                })
            })
            .collect();
        for _ in 0..3 {
            armed_rx.recv().await.unwrap();
        }
        interrupt_this_process();
        for waiter in waiters {
            timeout(PATIENCE, waiter)
                .await
                .expect("each waiter is woken by the one SIGINT")
                .unwrap()
                .unwrap();
        }
    });
}

#[test]
fn ctrl_c_waits_on_two_runtimes_at_once() {
    let (a, b) = (runtime(), runtime());
    let mut on_b = Box::pin(rt::signal::ctrl_c());
    b.block_on(async {
        assert!(futures::poll!(on_b.as_mut()).is_pending());
    });
    let waiting_on_b =
        std::thread::spawn(move || b.block_on(async { timeout(PATIENCE, on_b).await }));
    a.block_on(async {
        let mut on_a = pin!(rt::signal::ctrl_c());
        assert!(futures::poll!(on_a.as_mut()).is_pending());
        interrupt_this_process();
        timeout(PATIENCE, on_a)
            .await
            .expect("the runtime that sent it")
            .unwrap();
    });
    waiting_on_b
        .join()
        .unwrap()
        .expect("the other runtime too")
        .unwrap();
}

/// Outside a runtime, `ctrl_c()` panics when polled, with Tokio's words,
/// before it installs a handler (Ctrl-C still ends a process that has no
/// listener).
#[test]
fn ctrl_c_panics_outside_a_runtime() {
    let payload = std::panic::catch_unwind(|| {
        let _ = futures::executor::block_on(rt::signal::ctrl_c());
    })
    .expect_err("ctrl_c() was polled outside a runtime");
    let message = payload
        .downcast_ref::<String>()
        .cloned()
        .unwrap_or_default();
    assert!(message.contains("there is no reactor running"), "{message}");
}

/// Sends `signal` to this whole process. The callers create their
/// `Signal` first, which installs the handler, so the process survives.
fn send_to_this_process(signal: libc::c_int) {
    // SAFETY: kill(2) with our own pid has no memory effects.
    assert_eq!(unsafe { libc::kill(libc::getpid(), signal) }, 0);
}

/// `signal(kind)` sees deliveries from its creation on; `recv` completes
/// once per delivery, or once for several that arrived between two
/// `recv`s (they coalesce, as in Tokio).
#[test]
fn a_unix_signal_stream_sees_each_delivery_and_coalesces_bursts() {
    use rt::signal::unix::{SignalKind, signal};
    runtime().block_on(async {
        let mut usr1 = signal(SignalKind::user_defined1()).unwrap();
        send_to_this_process(libc::SIGUSR1);
        timeout(PATIENCE, usr1.recv())
            .await
            .expect("the first SIGUSR1 was missed")
            .expect("the stream ended");
        // Three before the next recv: one notification.
        for _ in 0..3 {
            send_to_this_process(libc::SIGUSR1);
        }
        rt::time::sleep(Duration::from_millis(50)).await;
        timeout(PATIENCE, usr1.recv()).await.unwrap().unwrap();
        assert!(
            timeout(Duration::from_millis(100), usr1.recv())
                .await
                .is_err(),
            "a burst of three was reported more than once"
        );
        // Another signal's deliveries do not wake this stream's recv.
        let mut usr2 = signal(SignalKind::user_defined2()).unwrap();
        send_to_this_process(libc::SIGUSR2);
        timeout(PATIENCE, usr2.recv()).await.unwrap().unwrap();
        assert!(
            timeout(Duration::from_millis(100), usr1.recv())
                .await
                .is_err(),
            "SIGUSR2 completed a SIGUSR1 recv"
        );
    });
}

/// SIGTERM, the signal a graceful shutdown waits for, stops a server loop
/// written as a Tokio user writes it.
#[test]
fn sigterm_ends_a_select_loop() {
    use rt::signal::unix::{SignalKind, signal};
    runtime().block_on(async {
        let mut terminate = signal(SignalKind::terminate()).unwrap();
        let mut ticks = rt::time::interval(Duration::from_millis(5));
        let mut seen = 0;
        loop {
            rt::select! {
                _ = ticks.tick() => {
                    seen += 1;
                    if seen == 3 {
                        send_to_this_process(libc::SIGTERM);
                    }
                    assert!(seen < 1000, "SIGTERM never arrived");
                }
                _ = terminate.recv() => break,
            }
        }
        assert!(seen >= 3);
    });
}

/// Signals a program may not catch are refused with an error, as Tokio
/// refuses them.
#[test]
fn forbidden_and_invalid_signals_are_refused() {
    use rt::signal::unix::{SignalKind, signal};
    runtime().block_on(async {
        for signum in [libc::SIGKILL, libc::SIGSTOP, libc::SIGSEGV, 0, -1, 1000] {
            let error = signal(SignalKind::from_raw(signum)).unwrap_err();
            assert!(error.to_string().contains("Refusing"), "{signum}: {error}");
        }
    });
}
