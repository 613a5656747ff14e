//! The toolbox of `tokio::io` (`copy` and its kin, the in-memory pipes, the
//! devices) and `AsyncFd`'s guards, where they meet the runtime: the
//! cooperative budget, vectored writes, and readiness cleared one kind at a
//! time. Written against the names alone; every test passes on Tokio 1.54.

use crate::behaviour::limit;
use crate::rt::io::{AsyncReadExt, AsyncSeekExt, AsyncWriteExt};
use crate::{rt, shim};
use futures::FutureExt;
use std::future::Future;
use std::io::{IoSlice, SeekFrom};

/// The bytes every copy moves.
static DATA: [u8; 64] = [7; 64];

/// How many rounds of an operation that never waits a task may run in one
/// poll before we call it starved: far more than Tokio's budget (128 units
/// a poll).
const ROUNDS: usize = 10_000;

/// Runs `spin` (at most [`ROUNDS`] operations, none of which has to wait)
/// in a task, in a `select!` against `yield_now()`. The `yield_now` branch
/// can only win if `spin` returns `Pending` once the task's budget is
/// spent; if it never does, it finishes its rounds and its branch wins.
fn yield_branch_wins<S>(what: &'static str, spin: S)
where
    S: Future<Output = usize> + Send + 'static,
{
    limit(what, move || {
        shim::runtime().block_on(async move {
            rt::spawn(async move {
                rt::select! {
                    rounds = spin => panic!("{what}: {rounds} rounds in one poll, never yielded"),
                    _ = rt::task::yield_now() => {}
                }
            })
            .await
            .unwrap();
        });
    });
}

/// Tokio: `copy` takes part in the cooperative budget (its poll starts with
/// `poll_proceed` and counts each read and write as progress), so a task
/// that copies in a loop yields even when neither side ever waits: here a
/// byte slice into a `Vec`, which spend no budget of their own.
#[test]
fn copy_in_a_loop_yields_when_the_budget_is_spent() {
    yield_branch_wins("copy loop", async {
        let mut out = Vec::new();
        for _ in 0..ROUNDS {
            out.clear();
            let mut reader: &[u8] = &DATA;
            let n = rt::io::copy(&mut reader, &mut out).await.unwrap();
            assert_eq!(n, 64);
        }
        ROUNDS
    });
}

/// Tokio: `copy_buf` spends budget as `copy` does.
#[test]
fn copy_buf_in_a_loop_yields_when_the_budget_is_spent() {
    yield_branch_wins("copy_buf loop", async {
        let mut out = Vec::new();
        for _ in 0..ROUNDS {
            out.clear();
            let mut reader: &[u8] = &DATA;
            let n = rt::io::copy_buf(&mut reader, &mut out).await.unwrap();
            assert_eq!(n, 64);
        }
        ROUNDS
    });
}

/// Tokio: `copy_bidirectional` runs two copies, each of which spends
/// budget; here between two `io::join`s of a slice and a `Vec`.
#[test]
fn copy_bidirectional_in_a_loop_yields_when_the_budget_is_spent() {
    yield_branch_wins("copy_bidirectional loop", async {
        for _ in 0..ROUNDS {
            let mut a = rt::io::join(&DATA[..], Vec::new());
            let mut b = rt::io::join(&DATA[..32], Vec::new());
            let counts = rt::io::copy_bidirectional(&mut a, &mut b).await.unwrap();
            assert_eq!(counts, (64, 32));
        }
        ROUNDS
    });
}

/// Tokio: `copy_bidirectional_with_sizes` is `copy_bidirectional` with
/// chosen buffers, and spends budget the same way.
#[test]
fn copy_bidirectional_with_sizes_in_a_loop_yields_when_the_budget_is_spent() {
    yield_branch_wins("copy_bidirectional_with_sizes loop", async {
        for _ in 0..ROUNDS {
            let mut a = rt::io::join(&DATA[..], Vec::new());
            let mut b = rt::io::join(&DATA[..32], Vec::new());
            let counts = rt::io::copy_bidirectional_with_sizes(&mut a, &mut b, 16, 8)
                .await
                .unwrap();
            assert_eq!(counts, (64, 32));
        }
        ROUNDS
    });
}

/// Tokio: the in-memory pipes spend a unit of budget on every read and
/// write, so ping-pong through a `duplex` (or a `simplex`) that is always
/// ready still yields, and a `copy` from `repeat` into `sink` (devices that
/// are always ready, and spend budget too) does as well.
#[test]
fn pipes_and_devices_in_a_loop_yield_when_the_budget_is_spent() {
    yield_branch_wins("duplex loop", async {
        let (mut a, mut b) = rt::io::duplex(64);
        let mut buf = [0u8; 64];
        for _ in 0..ROUNDS {
            a.write_all(&DATA).await.unwrap();
            b.read_exact(&mut buf).await.unwrap();
        }
        ROUNDS
    });
    yield_branch_wins("simplex loop", async {
        let (mut rx, mut tx) = rt::io::simplex(64);
        let mut buf = [0u8; 64];
        for _ in 0..ROUNDS {
            tx.write_all(&DATA).await.unwrap();
            rx.read_exact(&mut buf).await.unwrap();
        }
        ROUNDS
    });
    yield_branch_wins("repeat into sink", async {
        for _ in 0..ROUNDS {
            let mut source = rt::io::repeat(1).take(64);
            let n = rt::io::copy(&mut source, &mut rt::io::sink())
                .await
                .unwrap();
            assert_eq!(n, 64);
        }
        ROUNDS
    });
}

/// Tokio, on the current-thread runtime: a task that copies in a loop must
/// let the other task on its thread run, since `copy` yields when the
/// budget is spent. The looping task stops when the other has run.
#[test]
fn a_copying_task_lets_its_neighbour_run_on_a_current_thread_runtime() {
    if shim::MULTI_THREAD {
        // With two workers the neighbour may run on the other worker, so
        // nothing shows whether the copier yielded.
        return;
    }
    limit("copying task and its neighbour", || {
        shim::runtime().block_on(async {
            let ran = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
            let flag = ran.clone();
            let copier = rt::spawn(async move {
                let mut out = Vec::new();
                for round in 0..ROUNDS {
                    if flag.load(std::sync::atomic::Ordering::SeqCst) {
                        return round;
                    }
                    out.clear();
                    let mut reader: &[u8] = &DATA;
                    rt::io::copy(&mut reader, &mut out).await.unwrap();
                }
                ROUNDS
            });
            let neighbour = rt::spawn(async move {
                ran.store(true, std::sync::atomic::Ordering::SeqCst);
            });
            let rounds = copier.await.unwrap();
            neighbour.await.unwrap();
            assert!(
                rounds < ROUNDS,
                "the copier ran {rounds} rounds without letting its neighbour run"
            );
        });
    });
}

/// Tokio: the copies retry a read or a write that fails with `Interrupted`
/// ("an error other than `io::ErrorKind::Interrupted`, which is retried";
/// `copy_bidirectional`: "Interrupted reads and writes are retried"), and
/// end on any other error.
#[test]
fn copies_retry_interrupted_reads_and_writes() {
    limit("copies and Interrupted", || {
        shim::runtime().block_on(async {
            let mut reader = shim::interrupting(&DATA[..]);
            let mut writer = shim::interrupting(Vec::new());
            let n = rt::io::copy(&mut reader, &mut writer).await.unwrap();
            assert_eq!((n, &writer.inner[..]), (64, &DATA[..]));

            let mut reader = shim::interrupting(&DATA[..]);
            let mut writer = shim::interrupting(Vec::new());
            let n = rt::io::copy_buf(&mut reader, &mut writer).await.unwrap();
            assert_eq!((n, &writer.inner[..]), (64, &DATA[..]));

            let mut a = shim::interrupting(rt::io::join(&DATA[..], Vec::new()));
            let mut b = shim::interrupting(rt::io::join(&DATA[..32], Vec::new()));
            let counts = rt::io::copy_bidirectional(&mut a, &mut b).await.unwrap();
            assert_eq!(counts, (64, 32));
            assert_eq!(&b.inner.writer()[..], &DATA[..]);
            assert_eq!(&a.inner.writer()[..], &DATA[..32]);
        });
    });
}

/// Tokio: `DuplexStream::poll_write_vectored` writes as many of the slices
/// as fit (`is_write_vectored` is true for it), so a header and a body
/// written vectored arrive whole from one call when there is room, and
/// fill the room exactly when there is not.
#[test]
fn duplex_write_vectored_writes_every_slice_that_fits() {
    limit("duplex write_vectored", || {
        shim::runtime().block_on(async {
            let (mut a, mut b) = rt::io::duplex(64);
            let header = b"LEN 5\n";
            let body = b"hello";
            let n = a
                .write_vectored(&[IoSlice::new(header), IoSlice::new(body)])
                .await
                .unwrap();
            assert_eq!(n, header.len() + body.len(), "one call, both slices");
            let mut got = [0u8; 11];
            b.read_exact(&mut got).await.unwrap();
            assert_eq!(&got, b"LEN 5\nhello");

            // Room for 8 of the 11 bytes: the header and 2 of the body.
            let (mut small, mut peer) = rt::io::duplex(8);
            let n = small
                .write_vectored(&[IoSlice::new(header), IoSlice::new(body)])
                .await
                .unwrap();
            assert_eq!(n, 8);
            let mut got = [0u8; 8];
            peer.read_exact(&mut got).await.unwrap();
            assert_eq!(&got, b"LEN 5\nhe");
        });
    });
}

/// Tokio: `SimplexStream` writes vectored the same way, through its
/// writing half.
#[test]
fn simplex_write_vectored_writes_every_slice_that_fits() {
    limit("simplex write_vectored", || {
        shim::runtime().block_on(async {
            let (mut rx, mut tx) = rt::io::simplex(64);
            let n = tx
                .write_vectored(&[IoSlice::new(b"ab"), IoSlice::new(b""), IoSlice::new(b"cde")])
                .await
                .unwrap();
            assert_eq!(n, 5);
            let mut got = [0u8; 5];
            rx.read_exact(&mut got).await.unwrap();
            assert_eq!(&got, b"abcde");
        });
    });
}

/// Tokio: `sink()` and `empty()` accept every byte of every slice of a
/// vectored write, and report the total.
#[test]
fn sink_and_empty_accept_every_slice_of_a_vectored_write() {
    limit("sink write_vectored", || {
        shim::runtime().block_on(async {
            let slices = [IoSlice::new(b"ab"), IoSlice::new(b"cde")];
            let n = rt::io::sink().write_vectored(&slices).await.unwrap();
            assert_eq!(n, 5);
            let n = rt::io::empty().write_vectored(&slices).await.unwrap();
            assert_eq!(n, 5);
        });
    });
}

/// Tokio: a read into an empty buffer returns 0 at once from a duplex
/// that holds nothing, and a write of nothing returns 0 at once into one
/// that is full: neither waits for the peer.
#[test]
fn duplex_reads_and_writes_of_nothing_do_not_wait() {
    limit("duplex empty buffers", || {
        shim::runtime().block_on(async {
            let (mut a, mut b) = rt::io::duplex(4);
            assert_eq!(b.read(&mut []).now_or_never().map(Result::unwrap), Some(0));
            a.write_all(b"full").await.unwrap();
            assert_eq!(a.write(&[]).now_or_never().map(Result::unwrap), Some(0));
            // And the full pipe still makes a real write wait.
            assert!(a.write(b"x").now_or_never().is_none());
        });
    });
}

/// Tokio: `empty()` is also an `AsyncSeek`, whose every seek lands at 0.
#[test]
fn empty_seeks_to_zero() {
    limit("empty seek", || {
        shim::runtime().block_on(async {
            let mut empty = rt::io::empty();
            assert_eq!(empty.seek(SeekFrom::Start(7)).await.unwrap(), 0);
            assert_eq!(empty.seek(SeekFrom::End(-3)).await.unwrap(), 0);
        });
    });
}

/// A connected pair of Unix sockets, ours registered through `AsyncFd`
/// for reading and writing, with one byte already sent to it: ours is
/// readable and writable.
fn readable_and_writable_pair() -> (
    rt::io::unix::AsyncFd<std::os::unix::net::UnixStream>,
    std::os::unix::net::UnixStream,
) {
    use std::io::Write;
    let (ours, mut theirs) = std::os::unix::net::UnixStream::pair().unwrap();
    ours.set_nonblocking(true).unwrap();
    theirs.write_all(b"x").unwrap();
    // SAFETY: `ours` owns its descriptor, which the `AsyncFd` keeps open
    // until it is dropped.
    let fd = unsafe { rt::io::unix::AsyncFd::register(ours) }.unwrap();
    (fd, theirs)
}

/// Tokio: `clear_ready_matching(Ready::READABLE)` clears only the read
/// readiness ("Only clear the specific readiness that is observed to
/// block"): the guard still reports writable, a later `clear_ready_matching
/// (Ready::WRITABLE)` on it clears the write readiness, and until then
/// waiting for writability returns at once while waiting for readability
/// waits for a new event.
#[test]
fn clear_ready_matching_clears_only_the_readiness_named() {
    use rt::io::{Interest, Ready};
    limit("AsyncFdReadyGuard::clear_ready_matching", || {
        shim::runtime().block_on(async {
            let (fd, _theirs) = readable_and_writable_pair();
            let mut guard = fd
                .ready(Interest::READABLE | Interest::WRITABLE)
                .await
                .unwrap();
            assert!(guard.ready().is_readable() && guard.ready().is_writable());
            guard.clear_ready_matching(Ready::READABLE);
            assert!(!guard.ready().is_readable(), "READABLE was cleared");
            assert!(
                guard.ready().is_writable(),
                "WRITABLE must stay in the guard"
            );
            drop(guard);
            let writable = fd.writable().now_or_never();
            assert!(writable.is_some(), "WRITABLE must stay set in the driver");
            drop(writable);
            assert!(
                fd.readable().now_or_never().is_none(),
                "READABLE stays cleared"
            );

            let mut guard = fd.writable().await.unwrap();
            guard.clear_ready_matching(Ready::WRITABLE);
            assert!(guard.ready().is_empty());
            drop(guard);
            assert!(
                fd.writable().now_or_never().is_none(),
                "WRITABLE now cleared"
            );
        });
    });
}

/// Tokio: the same of `AsyncFdReadyMutGuard`, from `ready_mut`.
#[test]
fn clear_ready_matching_of_a_mut_guard_clears_only_the_readiness_named() {
    use rt::io::{Interest, Ready};
    limit("AsyncFdReadyMutGuard::clear_ready_matching", || {
        shim::runtime().block_on(async {
            let (mut fd, _theirs) = readable_and_writable_pair();
            let mut guard = fd
                .ready_mut(Interest::READABLE | Interest::WRITABLE)
                .await
                .unwrap();
            assert!(guard.ready().is_readable() && guard.ready().is_writable());
            guard.clear_ready_matching(Ready::READABLE);
            assert!(!guard.ready().is_readable(), "READABLE was cleared");
            assert!(
                guard.ready().is_writable(),
                "WRITABLE must stay in the guard"
            );
            guard.clear_ready_matching(Ready::WRITABLE);
            assert!(guard.ready().is_empty());
            drop(guard);
            assert!(
                fd.readable().now_or_never().is_none(),
                "READABLE stays cleared"
            );
            assert!(
                fd.writable().now_or_never().is_none(),
                "WRITABLE now cleared"
            );
        });
    });
}

/// A stream that ends too soon: Tokio's `read_exact` fails with
/// `UnexpectedEof` and the message "early eof", its integer readers
/// (`read_u32` and the rest) with the same kind and the kind's own message.
#[test]
fn short_reads_end_in_tokios_unexpected_eof_errors() {
    limit("short reads", || {
        shim::runtime().block_on(async {
            let mut buf = [0u8; 8];
            let error = (&b"abc"[..]).read_exact(&mut buf).await.unwrap_err();
            assert_eq!(error.kind(), std::io::ErrorKind::UnexpectedEof);
            assert_eq!(error.to_string(), "early eof");

            let error = (&b"ab"[..]).read_u32().await.unwrap_err();
            let expected: std::io::Error = std::io::ErrorKind::UnexpectedEof.into();
            assert_eq!(error.kind(), expected.kind());
            assert_eq!(error.to_string(), expected.to_string());
        });
    });
}
