//! Tokio APIs that rt lacked until this file was written, each checked
//! against what Tokio documents:
//!
//! * `mpsc`: `strong_count` and `weak_count` on `Sender`,
//!   `UnboundedSender`, `WeakSender` and `WeakUnboundedSender`: clones,
//!   downgrades, upgrades, an `OwnedPermit` (which holds a sender), a
//!   dropped receiver, the last sender gone.
//! * `TcpStream::poll_peek`: `Pending` until bytes arrive and the waker
//!   then woken, the bytes left for the next read, `Ok(0)` at end of
//!   stream.
//! * `UnixStream::peer_cred` and `net::unix::UCred` (`uid`, `gid`,
//!   `pid`): this process's credentials at both ends of a `pair` and of a
//!   connection to a listener.
//! * `net::UnixSocket`: `new_stream` with `bind`, `listen` and `connect`;
//!   `new_datagram` with `bind` and `datagram`; the calls that do not fit
//!   the socket's type failing with `Other`; the descriptor traits.
//! * `net::unix::pipe`: an anonymous `pipe()` (bytes across, end of file
//!   when the sender drops, `try_read` and `try_write`, a full pipe's
//!   sender waiting for room); FIFOs opened with `OpenOptions` (a sender
//!   with no reader fails with `ENXIO` unless `read_write`, a file that is
//!   not a FIFO is `InvalidInput`, `unchecked`); `from_owned_fd`'s checks
//!   and `into_blocking_fd`.
//!
//! Written from Tokio's documentation; every test passes on Tokio 1.54.

use crate::behaviour::{SocketDir, limit, tcp_pair};
use crate::{rt, shim};
use futures::poll;
use rt::io::{AsyncReadExt, AsyncWriteExt};
use rt::net::unix::pipe;
use rt::net::{UnixDatagram, UnixListener, UnixSocket, UnixStream};
use rt::sync::mpsc;
use std::io::{self, ErrorKind};
use std::os::fd::{AsFd, AsRawFd, FromRawFd, IntoRawFd};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::{Context, Poll, Wake, Waker};
use std::time::Duration;

/// How long a step that should be quick may take before the test fails.
const PATIENCE: Duration = Duration::from_secs(10);

// ---------------------------------------------------------------------
// mpsc: strong_count and weak_count.

/// A bounded channel starts with one sender and no weak one; every clone
/// counts one more sender, every downgrade (and clone of a weak sender)
/// one more weak one, and every handle reports the same two counts.
#[test]
fn sender_counts_follow_clones_and_downgrades() {
    limit("Sender::strong_count", || {
        let (tx, _rx) = mpsc::channel::<u8>(4);
        assert_eq!((tx.strong_count(), tx.weak_count()), (1, 0));
        let tx2 = tx.clone();
        assert_eq!((tx.strong_count(), tx2.strong_count()), (2, 2));
        let weak = tx.downgrade();
        let weak2 = weak.clone();
        assert_eq!((tx.strong_count(), tx.weak_count()), (2, 2));
        assert_eq!((weak.strong_count(), weak.weak_count()), (2, 2));
        let upgraded = weak2.upgrade().expect("senders are alive");
        assert_eq!((weak2.strong_count(), upgraded.weak_count()), (3, 2));
        drop(upgraded);
        drop(weak2);
        assert_eq!((tx2.strong_count(), tx2.weak_count()), (2, 1));
        drop(tx2);
        assert_eq!((weak.strong_count(), weak.weak_count()), (1, 1));
        drop(tx);
        assert_eq!((weak.strong_count(), weak.weak_count()), (0, 1));
        assert!(weak.upgrade().is_none());
        assert_eq!(weak.strong_count(), 0);
    });
}

/// The same counts on an unbounded channel's senders.
#[test]
fn unbounded_sender_counts_follow_clones_and_downgrades() {
    limit("UnboundedSender::strong_count", || {
        let (tx, _rx) = mpsc::unbounded_channel::<u8>();
        assert_eq!((tx.strong_count(), tx.weak_count()), (1, 0));
        let tx2 = tx.clone();
        let weak = tx2.downgrade();
        assert_eq!((tx.strong_count(), tx.weak_count()), (2, 1));
        let weak2 = weak.clone();
        assert_eq!((weak2.strong_count(), weak2.weak_count()), (2, 2));
        drop(weak2);
        assert_eq!(tx.weak_count(), 1);
        drop(tx2);
        drop(tx);
        assert_eq!((weak.strong_count(), weak.weak_count()), (0, 1));
        assert!(weak.upgrade().is_none());
    });
}

/// A dropped receiver changes neither count (the senders are still there,
/// only closed), and the counts agree with the receiver's own
/// `sender_strong_count` and `sender_weak_count` while it lives.
#[test]
fn counts_do_not_depend_on_the_receiver() {
    limit("strong_count after the receiver", || {
        let (tx, rx) = mpsc::channel::<u8>(1);
        let weak = tx.downgrade();
        let tx2 = tx.clone();
        assert_eq!(rx.sender_strong_count(), tx.strong_count());
        assert_eq!(rx.sender_weak_count(), tx.weak_count());
        drop(rx);
        assert!(tx.is_closed());
        assert_eq!((tx.strong_count(), tx.weak_count()), (2, 1));
        assert_eq!((weak.strong_count(), weak.weak_count()), (2, 1));
        drop(tx2);
        assert_eq!(tx.strong_count(), 1);
        // Senders alive, the receiver gone: a weak sender still upgrades.
        assert!(weak.upgrade().is_some());
    });
}

/// An `OwnedPermit` holds the sender it was made from: it counts among
/// the senders until it is used (which gives the sender back) or dropped.
/// A borrowed `Permit` adds nothing.
#[test]
fn an_owned_permit_counts_as_a_sender() {
    limit("OwnedPermit and strong_count", || {
        shim::runtime().block_on(async {
            let (tx, mut rx) = mpsc::channel::<u8>(4);
            let permit = tx.reserve().await.unwrap();
            assert_eq!(tx.strong_count(), 1);
            permit.send(1);
            let owned = tx.clone().reserve_owned().await.unwrap();
            assert_eq!(tx.strong_count(), 2);
            let back = owned.send(2);
            assert_eq!(tx.strong_count(), 2);
            drop(back);
            let owned = tx.clone().reserve_owned().await.unwrap();
            assert_eq!(tx.strong_count(), 2);
            drop(owned);
            assert_eq!(tx.strong_count(), 1);
            assert_eq!(rx.recv().await, Some(1));
            assert_eq!(rx.recv().await, Some(2));
        });
    });
}

// ---------------------------------------------------------------------
// TcpStream::poll_peek.

/// `poll_peek` with the length of what it copied, whatever buffer type the
/// runtime's takes: Tokio's fills a `ReadBuf` (and returns the length it
/// added), rt's takes the bytes, as its `UdpSocket::poll_peek` does. Both
/// runtimes' streams have it, so each entry file can call it on its own.
trait PeekLen {
    fn peek_len(&self, cx: &mut Context<'_>, buf: &mut [u8]) -> Poll<io::Result<usize>>;
}

impl PeekLen for tokio::net::TcpStream {
    fn peek_len(&self, cx: &mut Context<'_>, buf: &mut [u8]) -> Poll<io::Result<usize>> {
        let mut read_buf = tokio::io::ReadBuf::new(buf);
        let n = std::task::ready!(self.poll_peek(cx, &mut read_buf))?;
        assert_eq!(read_buf.filled().len(), n, "poll_peek advances the ReadBuf");
        Poll::Ready(Ok(n))
    }
}

impl PeekLen for ::rt::net::TcpStream {
    fn peek_len(&self, cx: &mut Context<'_>, buf: &mut [u8]) -> Poll<io::Result<usize>> {
        self.poll_peek(cx, buf)
    }
}

/// A waker that counts its wakes.
struct CountingWaker(AtomicUsize);

impl Wake for CountingWaker {
    fn wake(self: Arc<Self>) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

/// With nothing to read `poll_peek` is `Pending` and keeps the waker; the
/// bytes that then arrive wake it, and a peek copies them without taking
/// them: a second peek sees them again and a read still gets them all.
#[test]
fn tcp_poll_peek_waits_then_leaves_the_bytes() {
    limit("TcpStream::poll_peek", || {
        shim::runtime().block_on(async {
            let (mut client, server) = tcp_pair().await;
            let counter = Arc::new(CountingWaker(AtomicUsize::new(0)));
            let waker = Waker::from(counter.clone());
            let mut cx = Context::from_waker(&waker);
            let mut buf = [0u8; 16];
            assert!(server.peek_len(&mut cx, &mut buf).is_pending());

            shim::write_all(&mut client, b"peeked").await.unwrap();
            rt::time::timeout(PATIENCE, async {
                while counter.0.load(Ordering::SeqCst) == 0 {
                    rt::task::yield_now().await;
                }
            })
            .await
            .expect("the bytes did not wake the peek's waker");

            // The wake may come before every byte is there: peek until all
            // six are.
            let n = rt::time::timeout(PATIENCE, async {
                loop {
                    let n = std::future::poll_fn(|cx| server.peek_len(cx, &mut buf))
                        .await
                        .unwrap();
                    if n == 6 {
                        return n;
                    }
                    rt::task::yield_now().await;
                }
            })
            .await
            .expect("the six bytes did not arrive");
            assert_eq!(&buf[..n], b"peeked");
            let mut again = [0u8; 3];
            let n = std::future::poll_fn(|cx| server.peek_len(cx, &mut again))
                .await
                .unwrap();
            assert_eq!((n, &again), (3, b"pee"));

            let mut server = server;
            let mut got = [0u8; 6];
            shim::read_exact(&mut server, &mut got).await.unwrap();
            assert_eq!(&got, b"peeked");
        });
    });
}

/// Once the peer has shut down its writing and every byte is read,
/// `poll_peek` is ready with `Ok(0)`.
#[test]
fn tcp_poll_peek_at_end_of_stream_is_zero() {
    limit("TcpStream::poll_peek at EOF", || {
        shim::runtime().block_on(async {
            let (mut client, server) = tcp_pair().await;
            shim::shutdown_write(&mut client).await.unwrap();
            let mut buf = [0u8; 8];
            let n = rt::time::timeout(
                PATIENCE,
                std::future::poll_fn(|cx| server.peek_len(cx, &mut buf)),
            )
            .await
            .expect("poll_peek did not see the end of the stream")
            .unwrap();
            assert_eq!(n, 0);
        });
    });
}

// ---------------------------------------------------------------------
// UnixStream::peer_cred.

/// This process's ids, as `UCred` reports them.
fn own_ids() -> (
    rt::net::unix::uid_t,
    rt::net::unix::gid_t,
    rt::net::unix::pid_t,
) {
    // SAFETY: `geteuid` and `getegid` have no preconditions and cannot fail.
    let (uid, gid) = unsafe { (libc::geteuid(), libc::getegid()) };
    (uid, gid, std::process::id() as rt::net::unix::pid_t)
}

/// Both ends of a `pair` were made by this process: each sees this
/// process's user, group and process id as its peer's.
#[test]
fn peer_cred_of_a_pair_is_this_process() {
    limit("UnixStream::peer_cred pair", || {
        shim::runtime().block_on(async {
            let (left, right) = UnixStream::pair().unwrap();
            let (uid, gid, pid) = own_ids();
            for stream in [&left, &right] {
                let cred: rt::net::unix::UCred = stream.peer_cred().unwrap();
                assert_eq!(cred.uid(), uid);
                assert_eq!(cred.gid(), gid);
                assert_eq!(cred.pid(), Some(pid));
            }
            // A plain value: Copy, Eq, Hash, Debug.
            let cred = left.peer_cred().unwrap();
            let copy = cred;
            assert_eq!(cred, copy);
            let set: std::collections::HashSet<_> = [cred, right.peer_cred().unwrap()].into();
            assert_eq!(set.len(), 1);
            assert!(format!("{cred:?}").contains("uid"));
        });
    });
}

/// A stream connected to a listener and the stream the listener accepted
/// both name this process as the peer.
#[test]
fn peer_cred_across_a_listener() {
    limit("UnixStream::peer_cred listener", || {
        let dir = SocketDir::new("api-gaps-cred");
        let path = dir.join("cred.sock");
        shim::runtime().block_on(async {
            let listener = UnixListener::bind(&path).unwrap();
            let (client, accepted) = rt::join!(UnixStream::connect(&path), listener.accept());
            let client = client.unwrap();
            let (server, _) = accepted.unwrap();
            let (uid, gid, pid) = own_ids();
            for stream in [&client, &server] {
                let cred = stream.peer_cred().unwrap();
                assert_eq!((cred.uid(), cred.gid(), cred.pid()), (uid, gid, Some(pid)));
            }
        });
    });
}

// ---------------------------------------------------------------------
// UnixSocket.

/// A stream socket bound to a path listens there; another stream socket
/// connects to it, and bytes cross the connection both ways.
#[test]
fn unix_socket_listens_and_connects() {
    limit("UnixSocket::listen", || {
        let dir = SocketDir::new("api-gaps-socket");
        let path = dir.join("listen.sock");
        shim::runtime().block_on(async {
            let socket = UnixSocket::new_stream().unwrap();
            socket.bind(&path).unwrap();
            let listener = socket.listen(16).unwrap();
            assert_eq!(
                listener.local_addr().unwrap().as_pathname(),
                Some(path.as_path())
            );
            let connecting = UnixSocket::new_stream().unwrap().connect(&path);
            let (client, accepted) = rt::join!(connecting, listener.accept());
            let mut client = client.unwrap();
            let (mut server, _) = accepted.unwrap();
            assert_eq!(
                client.peer_addr().unwrap().as_pathname(),
                Some(path.as_path())
            );
            client.write_all(b"ping").await.unwrap();
            let mut buf = [0u8; 4];
            server.read_exact(&mut buf).await.unwrap();
            assert_eq!(&buf, b"ping");
            server.write_all(b"pong").await.unwrap();
            client.read_exact(&mut buf).await.unwrap();
            assert_eq!(&buf, b"pong");
        });
    });
}

/// A stream socket connected to a path where nothing listens fails, and
/// binding a path that is taken fails with `AddrInUse`.
#[test]
fn unix_socket_errors_of_the_system() {
    limit("UnixSocket errors", || {
        let dir = SocketDir::new("api-gaps-socket-errors");
        let path = dir.join("taken.sock");
        shim::runtime().block_on(async {
            let missing = UnixSocket::new_stream()
                .unwrap()
                .connect(dir.join("nobody.sock"))
                .await;
            assert_eq!(missing.unwrap_err().kind(), ErrorKind::NotFound);
            let _listener = UnixListener::bind(&path).unwrap();
            let error = UnixSocket::new_stream().unwrap().bind(&path).unwrap_err();
            assert_eq!(error.kind(), ErrorKind::AddrInUse, "{error:?}");
        });
    });
}

/// A datagram socket, bound or not, becomes a `UnixDatagram`: a bound one
/// receives what is sent to its path, an unbound one can send.
#[test]
fn unix_socket_datagram_sends_and_receives() {
    limit("UnixSocket::datagram", || {
        let dir = SocketDir::new("api-gaps-socket-dgram");
        let path = dir.join("dgram.sock");
        shim::runtime().block_on(async {
            let socket = UnixSocket::new_datagram().unwrap();
            socket.bind(&path).unwrap();
            let receiver: UnixDatagram = socket.datagram().unwrap();
            assert_eq!(
                receiver.local_addr().unwrap().as_pathname(),
                Some(path.as_path())
            );
            let sender = UnixSocket::new_datagram().unwrap().datagram().unwrap();
            assert_eq!(sender.send_to(b"one datagram", &path).await.unwrap(), 12);
            let mut buf = [0u8; 32];
            let n = rt::time::timeout(PATIENCE, receiver.recv(&mut buf))
                .await
                .expect("the datagram did not arrive")
                .unwrap();
            assert_eq!(&buf[..n], b"one datagram");
        });
    });
}

/// `listen` and `connect` on a datagram socket, and `datagram` on a
/// stream socket, fail with an error of kind `Other`.
#[test]
fn unix_socket_calls_of_the_wrong_type_fail() {
    limit("UnixSocket wrong type", || {
        let dir = SocketDir::new("api-gaps-socket-type");
        let path = dir.join("listener.sock");
        shim::runtime().block_on(async {
            let _listener = UnixListener::bind(&path).unwrap();
            let error = UnixSocket::new_datagram().unwrap().listen(8).unwrap_err();
            assert_eq!(error.kind(), ErrorKind::Other, "{error:?}");
            let error = UnixSocket::new_datagram()
                .unwrap()
                .connect(&path)
                .await
                .unwrap_err();
            assert_eq!(error.kind(), ErrorKind::Other, "{error:?}");
            let error = UnixSocket::new_stream().unwrap().datagram().unwrap_err();
            assert_eq!(error.kind(), ErrorKind::Other, "{error:?}");
        });
    });
}

/// The socket's descriptor: `AsRawFd` and `AsFd` agree, and `into_raw_fd`
/// then `from_raw_fd` hand over the same socket, which still works.
#[test]
fn unix_socket_descriptor_round_trip() {
    limit("UnixSocket fd", || {
        let dir = SocketDir::new("api-gaps-socket-fd");
        let path = dir.join("fd.sock");
        shim::runtime().block_on(async {
            let socket = UnixSocket::new_stream().unwrap();
            let raw = socket.as_raw_fd();
            assert_eq!(socket.as_fd().as_raw_fd(), raw);
            socket.bind(&path).unwrap();
            let fd = socket.into_raw_fd();
            assert_eq!(fd, raw);
            // SAFETY: `fd` came from `into_raw_fd` just above, and nothing
            // else owns it.
            let socket = unsafe { UnixSocket::from_raw_fd(fd) };
            let listener = socket.listen(4).unwrap();
            let (client, accepted) = rt::join!(UnixStream::connect(&path), listener.accept());
            client.unwrap();
            accepted.unwrap();
            assert!(poll!(Box::pin(listener.accept())).is_pending());
        });
    });
}

// ---------------------------------------------------------------------
// net::unix::pipe.

/// Makes a FIFO at `path`.
fn mkfifo(path: &std::path::Path) {
    use std::os::unix::ffi::OsStrExt;
    let c_path = std::ffi::CString::new(path.as_os_str().as_bytes()).unwrap();
    // SAFETY: `c_path` is a NUL-terminated string that outlives the call.
    let r = unsafe { libc::mkfifo(c_path.as_ptr(), 0o600) };
    assert_eq!(r, 0, "mkfifo: {}", io::Error::last_os_error());
}

/// What the sender of an anonymous pipe writes the receiver reads, and
/// the receiver reads end of file once the sender is dropped.
#[test]
fn pipe_carries_bytes_to_end_of_file() {
    limit("pipe::pipe", || {
        shim::runtime().block_on(async {
            let (mut tx, mut rx) = pipe::pipe().unwrap();
            let writer = rt::spawn(async move {
                tx.write_all(b"through the pipe").await.unwrap();
            });
            let mut got = Vec::new();
            rt::time::timeout(PATIENCE, rx.read_to_end(&mut got))
                .await
                .expect("no end of file")
                .unwrap();
            assert_eq!(got, b"through the pipe");
            writer.await.unwrap();
        });
    });
}

/// `try_read` on an empty pipe is `WouldBlock`; after a `try_write`,
/// `readable` completes and `try_read` gets the bytes; with the sender
/// gone, `try_read` is `Ok(0)`.
#[test]
fn pipe_try_read_and_try_write() {
    limit("pipe try_read", || {
        shim::runtime().block_on(async {
            let (tx, rx) = pipe::pipe().unwrap();
            let mut buf = [0u8; 8];
            assert_eq!(
                rx.try_read(&mut buf).unwrap_err().kind(),
                ErrorKind::WouldBlock
            );
            rt::time::timeout(PATIENCE, tx.writable())
                .await
                .expect("an empty pipe is writable")
                .unwrap();
            assert_eq!(tx.try_write(b"abc").unwrap(), 3);
            let n = rt::time::timeout(PATIENCE, async {
                loop {
                    rx.readable().await.unwrap();
                    match rx.try_read(&mut buf) {
                        Err(e) if e.kind() == ErrorKind::WouldBlock => continue,
                        other => return other.unwrap(),
                    }
                }
            })
            .await
            .expect("the bytes did not arrive");
            assert_eq!(&buf[..n], b"abc");
            drop(tx);
            let n = rt::time::timeout(PATIENCE, async {
                loop {
                    rx.readable().await.unwrap();
                    match rx.try_read(&mut buf) {
                        Err(e) if e.kind() == ErrorKind::WouldBlock => continue,
                        other => return other.unwrap(),
                    }
                }
            })
            .await
            .expect("the end of file did not arrive");
            assert_eq!(n, 0);
        });
    });
}

/// Free room in the pipe whose reading end is `rx`, from the kernel: its
/// capacity less the bytes waiting in it.
fn pipe_room(rx: &impl AsRawFd) -> usize {
    let mut queued: libc::c_int = 0;
    // SAFETY: `FIONREAD` writes one `c_int` to the pointer, which points at
    // `queued`; `F_GETPIPE_SZ` reads nothing; the descriptor is open.
    let (r, size) = unsafe {
        (
            libc::ioctl(rx.as_raw_fd(), libc::FIONREAD, &raw mut queued),
            libc::fcntl(rx.as_raw_fd(), libc::F_GETPIPE_SZ),
        )
    };
    assert!(r == 0 && size > 0, "{}", io::Error::last_os_error());
    (size - queued) as usize
}

/// A full pipe's `try_write` is `WouldBlock`, and `writable` completes
/// once the receiver makes room.
#[test]
fn a_full_pipe_waits_for_room() {
    limit("pipe full", || {
        shim::runtime().block_on(async {
            let (tx, mut rx) = pipe::pipe().unwrap();
            let chunk = [7u8; 4096];
            let mut written = 0usize;
            // A `WouldBlock` may only mean that the driver has not yet
            // reported the pipe writable: fill until the kernel has no
            // room for a chunk (a pipe write of 4096 bytes is all or none).
            rt::time::timeout(PATIENCE, async {
                while pipe_room(&rx) >= chunk.len() {
                    match tx.try_write(&chunk) {
                        Ok(n) => written += n,
                        Err(e) if e.kind() == ErrorKind::WouldBlock => {
                            tx.writable().await.unwrap();
                        }
                        Err(e) => panic!("try_write: {e}"),
                    }
                }
            })
            .await
            .expect("the pipe did not fill");
            assert_eq!(
                tx.try_write(&chunk).unwrap_err().kind(),
                ErrorKind::WouldBlock
            );
            let mut waiting = Box::pin(tx.writable());
            let _ = poll!(waiting.as_mut());
            let mut drained = vec![0u8; written];
            rx.read_exact(&mut drained).await.unwrap();
            rt::time::timeout(PATIENCE, waiting)
                .await
                .expect("room did not wake the sender")
                .unwrap();
            let n = rt::time::timeout(PATIENCE, async {
                loop {
                    match tx.try_write(b"more") {
                        Err(e) if e.kind() == ErrorKind::WouldBlock => {
                            tx.writable().await.unwrap();
                        }
                        other => return other.unwrap(),
                    }
                }
            })
            .await
            .expect("the sender could not write again");
            assert_eq!(n, 4);
        });
    });
}

/// Opening a FIFO's sender with no reader fails with `ENXIO`; with a
/// receiver open, the sender opens and bytes cross; `read_write` opens a
/// sender with no reader.
#[test]
fn fifo_sender_needs_a_reader() {
    limit("pipe::OpenOptions FIFO", || {
        let dir = SocketDir::new("api-gaps-fifo");
        let path = dir.join("fifo");
        mkfifo(&path);
        shim::runtime().block_on(async {
            let error = pipe::OpenOptions::new().open_sender(&path).unwrap_err();
            assert_eq!(error.raw_os_error(), Some(libc::ENXIO), "{error:?}");
            let _lone = pipe::OpenOptions::new()
                .read_write(true)
                .open_sender(&path)
                .unwrap();
            let mut rx = pipe::OpenOptions::new().open_receiver(&path).unwrap();
            let mut tx = pipe::OpenOptions::new()
                .unchecked(true)
                .open_sender(&path)
                .unwrap();
            tx.write_all(b"fifo").await.unwrap();
            let mut buf = [0u8; 4];
            rt::time::timeout(PATIENCE, rx.read_exact(&mut buf))
                .await
                .expect("the bytes did not arrive")
                .unwrap();
            assert_eq!(&buf, b"fifo");
        });
    });
}

/// A file that is not a FIFO is refused with `InvalidInput`, by
/// `OpenOptions` and by `from_file`; so is a pipe end given as the other
/// end (a receiver's descriptor to `Sender::from_owned_fd`).
#[test]
fn pipe_ends_are_checked() {
    limit("pipe checks", || {
        let dir = SocketDir::new("api-gaps-pipe-checks");
        let path = dir.join("plain");
        std::fs::write(&path, b"not a pipe").unwrap();
        shim::runtime().block_on(async {
            let error = pipe::OpenOptions::new().open_receiver(&path).unwrap_err();
            assert_eq!(error.kind(), ErrorKind::InvalidInput, "{error:?}");
            let file = std::fs::File::open(&path).unwrap();
            let error = pipe::Receiver::from_file(file).unwrap_err();
            assert_eq!(error.kind(), ErrorKind::InvalidInput, "{error:?}");
            let (tx, rx) = pipe::pipe().unwrap();
            let rx_fd = rx.into_nonblocking_fd().unwrap();
            let error = pipe::Sender::from_owned_fd(rx_fd).unwrap_err();
            assert_eq!(error.kind(), ErrorKind::InvalidInput, "{error:?}");
            let tx_fd = tx.into_nonblocking_fd().unwrap();
            let error = pipe::Receiver::from_owned_fd(tx_fd).unwrap_err();
            assert_eq!(error.kind(), ErrorKind::InvalidInput, "{error:?}");
        });
    });
}

/// `into_blocking_fd` gives back a blocking descriptor that std can write
/// to; `from_owned_fd` takes a pipe end made elsewhere.
#[test]
fn pipe_ends_leave_and_join_the_runtime() {
    limit("pipe into_blocking_fd", || {
        shim::runtime().block_on(async {
            let (tx, rx) = pipe::pipe().unwrap();
            let fd = tx.into_blocking_fd().unwrap();
            // SAFETY: F_GETFL reads the flags of a descriptor that `fd`
            // keeps open.
            let flags = unsafe { libc::fcntl(fd.as_raw_fd(), libc::F_GETFL) };
            assert_eq!(flags & libc::O_NONBLOCK, 0);
            let mut file = std::fs::File::from(fd);
            std::io::Write::write_all(&mut file, b"from std").unwrap();
            drop(file);
            let mut rx = pipe::Receiver::from_owned_fd(rx.into_nonblocking_fd().unwrap()).unwrap();
            let mut got = Vec::new();
            rt::time::timeout(PATIENCE, rx.read_to_end(&mut got))
                .await
                .expect("no end of file")
                .unwrap();
            assert_eq!(got, b"from std");
        });
    });
}
