//! Networking at its edges, found by porting programs written against
//! Tokio's documentation: host names resolved off the runtime's threads,
//! literal addresses parsed without any thread, `UnixDatagram`, UDP's
//! `poll_*` methods, and the cooperative budget of a UDP loop.
//!
//! Several tests hold the blocking pool's only thread with a job that waits
//! on a gate ([`BlockingGate`]): whatever needs the pool then cannot finish
//! until the test opens the gate, so "runs on the blocking pool" and "needs
//! no thread" are checked by what completes, never by how long it takes.

use super::{SocketDir, limit};
use crate::{rt, shim};
use rt::net::{TcpListener, TcpStream, UdpSocket};
use std::future::Future;
use std::pin::pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

const PATIENCE: Duration = Duration::from_secs(5);

/// The blocking pool's only thread, held by a job until [`open`] is called
/// (or the gate is dropped).
///
/// [`open`]: BlockingGate::open
struct BlockingGate {
    open: std::sync::mpsc::Sender<()>,
    job: rt::task::JoinHandle<()>,
}

impl BlockingGate {
    /// Starts the job and returns once it runs (so the thread is taken).
    /// The runtime must have `max_blocking_threads(1)`.
    async fn close() -> BlockingGate {
        let (started_tx, started_rx) = rt::sync::oneshot::channel();
        let (open, opened) = std::sync::mpsc::channel::<()>();
        let job = rt::task::spawn_blocking(move || {
            let _ = started_tx.send(());
            // Returns when the test opens the gate or drops it.
            let _ = opened.recv();
        });
        started_rx.await.expect("the gate job started");
        BlockingGate { open, job }
    }

    async fn open(self) {
        let _ = self.open.send(());
        self.job.await.expect("the gate job finished");
    }
}

/// Polls `future` once, with a waker that does nothing, and says whether it
/// completed.
fn first_poll_completes<F: Future>(future: std::pin::Pin<&mut F>) -> bool {
    let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
    future.poll(&mut cx).is_ready()
}

/// Tokio's `ToSocketAddrs` "converts or resolves without blocking": a host
/// name (`"localhost:80"`) is resolved on the blocking pool, so the lookup
/// waits for a blocking thread while the runtime's own thread keeps running
/// its tasks, and completes once a blocking thread is free.
#[test]
fn a_host_name_is_resolved_on_the_blocking_pool() {
    limit("lookup_host on the blocking pool", || {
        let runtime = shim::runtime_with_blocking_threads(1);
        runtime.block_on(async {
            let gate = BlockingGate::close().await;
            let mut lookup = pin!(rt::net::lookup_host("localhost:80"));
            assert!(
                !first_poll_completes(lookup.as_mut()),
                "the host name was resolved at once, on the runtime's thread, \
                 although the blocking pool had no free thread"
            );
            // The runtime's thread is free: a task ticks while the lookup
            // waits for the pool.
            let ticks = Arc::new(AtomicUsize::new(0));
            let ticker = rt::spawn({
                let ticks = ticks.clone();
                async move {
                    loop {
                        ticks.fetch_add(1, Ordering::Relaxed);
                        rt::task::yield_now().await;
                    }
                }
            });
            while ticks.load(Ordering::Relaxed) < 10 {
                rt::task::yield_now().await;
            }
            assert!(!first_poll_completes(lookup.as_mut()));
            gate.open().await;
            let addrs: Vec<_> = rt::time::timeout(PATIENCE, lookup)
                .await
                .expect("the lookup finished once the pool was free")
                .expect("localhost resolves")
                .collect();
            assert!(!addrs.is_empty());
            assert!(
                addrs.iter().all(|a| a.ip().is_loopback() && a.port() == 80),
                "{addrs:?}"
            );
            ticker.abort();
        });
    });
}

/// `TcpStream::connect`, `TcpListener::bind` and `UdpSocket::bind`,
/// `connect` and `send_to` take Tokio's `ToSocketAddrs`: with a host name
/// they resolve it without blocking (on the blocking pool), and they work
/// with `"localhost:PORT"` and `("localhost", PORT)`.
#[test]
fn connect_bind_and_send_to_resolve_names_on_the_blocking_pool() {
    limit("names on the blocking pool", || {
        let runtime = shim::runtime_with_blocking_threads(1);
        runtime.block_on(async {
            let listener = TcpListener::bind("localhost:0").await.unwrap();
            let port = listener.local_addr().unwrap().port();
            let gate = BlockingGate::close().await;
            let name = format!("localhost:{port}");
            let mut connect = pin!(TcpStream::connect(name.as_str()));
            // A connect may wait for the handshake too, so give it a while:
            // with the name still unresolved it cannot finish, however long.
            let early = rt::time::timeout(Duration::from_millis(200), connect.as_mut()).await;
            assert!(
                early.is_err(),
                "connect resolved the host name on the runtime's thread"
            );
            let mut bind = pin!(UdpSocket::bind(("localhost", 0)));
            assert!(
                !first_poll_completes(bind.as_mut()),
                "bind resolved the host name on the runtime's thread"
            );
            gate.open().await;
            let stream = rt::time::timeout(PATIENCE, connect)
                .await
                .expect("connect finished once the pool was free")
                .unwrap();
            let (accepted, _) = listener.accept().await.unwrap();
            assert_eq!(stream.local_addr().unwrap(), accepted.peer_addr().unwrap());

            let receiver = bind.await.unwrap();
            let sender = UdpSocket::bind("localhost:0").await.unwrap();
            let target = format!("localhost:{}", receiver.local_addr().unwrap().port());
            sender.connect(target.as_str()).await.unwrap();
            sender.send_to(b"by name", target).await.unwrap();
            let mut buf = [0u8; 16];
            let (n, from) = rt::time::timeout(PATIENCE, receiver.recv_from(&mut buf))
                .await
                .expect("the datagram arrived")
                .unwrap();
            assert_eq!(&buf[..n], b"by name");
            assert_eq!(from, sender.local_addr().unwrap());
        });
    });
}

/// A literal IP address (`"127.0.0.1:PORT"`, `("::1", PORT)`, a
/// `SocketAddr`) is parsed, not resolved: Tokio answers it at once, without
/// the blocking pool, so it works even when the pool has no free thread.
#[test]
fn a_literal_address_needs_no_blocking_thread() {
    limit("literal addresses", || {
        let runtime = shim::runtime_with_blocking_threads(1);
        runtime.block_on(async {
            let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
            let port = listener.local_addr().unwrap().port();
            let gate = BlockingGate::close().await;
            let literals = [
                format!("127.0.0.1:{port}"),
                format!("[::1]:{port}"),
                format!("0.0.0.0:{port}"),
            ];
            for literal in &literals {
                let mut lookup = pin!(rt::net::lookup_host(literal.as_str()));
                assert!(
                    first_poll_completes(lookup.as_mut()),
                    "{literal} waited for the blocking pool"
                );
            }
            let mut pair = pin!(rt::net::lookup_host(("::1", port)));
            assert!(first_poll_completes(pair.as_mut()));
            let mut owned = pin!(rt::net::lookup_host((String::from("127.0.0.1"), port)));
            assert!(first_poll_completes(owned.as_mut()));

            // Whole operations finish with the pool still held.
            let stream = rt::time::timeout(PATIENCE, TcpStream::connect(&literals[0]))
                .await
                .expect("connect to a literal address needed the blocking pool")
                .unwrap();
            let (accepted, _) = listener.accept().await.unwrap();
            assert_eq!(stream.local_addr().unwrap(), accepted.peer_addr().unwrap());
            let socket = rt::time::timeout(PATIENCE, UdpSocket::bind("127.0.0.1:0"))
                .await
                .expect("bind to a literal address needed the blocking pool")
                .unwrap();
            let me = socket.local_addr().unwrap().to_string();
            rt::time::timeout(PATIENCE, socket.send_to(b"me", me.as_str()))
                .await
                .expect("send_to a literal address needed the blocking pool")
                .unwrap();
            gate.open().await;
        });
    });
}

/// Two UDP sockets on the loopback, each connected to the other.
async fn udp_pair() -> (UdpSocket, UdpSocket) {
    let a = UdpSocket::bind("127.0.0.1:0").await.unwrap();
    let b = UdpSocket::bind("127.0.0.1:0").await.unwrap();
    a.connect(b.local_addr().unwrap()).await.unwrap();
    b.connect(a.local_addr().unwrap()).await.unwrap();
    (a, b)
}

/// Tokio's `UdpSocket` has a poll method for each of its operations
/// (`poll_send_ready`, `poll_send`, `poll_send_to`, `poll_recv_ready`,
/// `poll_recv`, `poll_recv_from`, `poll_peek`, `poll_peek_from`,
/// `poll_peek_sender`): each returns `Pending` and wakes the task later if
/// the socket is not ready, and a peek leaves the datagram for the next
/// receive.
#[test]
fn udp_poll_methods_send_receive_and_peek() {
    use std::future::poll_fn;
    limit("udp poll methods", || {
        shim::runtime().block_on(async {
            let (a, b) = udp_pair().await;
            let (a_addr, b_addr) = (a.local_addr().unwrap(), b.local_addr().unwrap());
            let b = Arc::new(b);
            // A receive that waits: Pending first, woken by the send.
            let waiting = rt::spawn({
                let b = b.clone();
                async move {
                    poll_fn(|cx| b.poll_recv_ready(cx)).await.unwrap();
                    let mut buf = [0u8; 16];
                    let (n, from) = poll_fn(|cx| shim::udp_poll_peek_from(&b, cx, &mut buf))
                        .await
                        .unwrap();
                    assert_eq!((&buf[..n], from), (&b"to"[..], a_addr));
                    assert_eq!(poll_fn(|cx| b.poll_peek_sender(cx)).await.unwrap(), a_addr);
                    let mut buf = [0u8; 16];
                    let (n, from) = poll_fn(|cx| shim::udp_poll_recv_from(&b, cx, &mut buf))
                        .await
                        .unwrap();
                    assert_eq!((&buf[..n], from), (&b"to"[..], a_addr), "peek took it");
                }
            });
            for _ in 0..10 {
                rt::task::yield_now().await;
            }
            poll_fn(|cx| a.poll_send_ready(cx)).await.unwrap();
            let sent = poll_fn(|cx| a.poll_send_to(cx, b"to", b_addr)).await;
            assert_eq!(sent.unwrap(), 2);
            rt::time::timeout(PATIENCE, waiting)
                .await
                .expect("the waiting receive was woken")
                .unwrap();

            // The connected forms.
            assert_eq!(poll_fn(|cx| a.poll_send(cx, b"peer")).await.unwrap(), 4);
            let mut buf = [0u8; 16];
            let n = poll_fn(|cx| shim::udp_poll_peek(&b, cx, &mut buf))
                .await
                .unwrap();
            assert_eq!(&buf[..n], b"peer");
            let mut buf = [0u8; 16];
            let n = poll_fn(|cx| shim::udp_poll_recv(&b, cx, &mut buf))
                .await
                .unwrap();
            assert_eq!(&buf[..n], b"peer");
            // Nothing left: the poll says Pending.
            let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
            assert!(shim::udp_poll_recv(&b, &mut cx, &mut buf).is_pending());
        });
    });
}

/// On the multi-thread flavour, the other worker kept busy (spinning until
/// this is dropped), so that the tasks the test spawns next all share one
/// worker, as they do on the current-thread flavour.
struct OtherWorkerHeld {
    release: Arc<AtomicBool>,
}

impl OtherWorkerHeld {
    async fn hold() -> OtherWorkerHeld {
        let release = Arc::new(AtomicBool::new(false));
        if shim::MULTI_THREAD {
            let started = Arc::new(AtomicBool::new(false));
            // Not awaited: the runtime waits for it at shutdown, after the
            // drop below has released it.
            let _spinner = rt::spawn({
                let (started, release) = (started.clone(), release.clone());
                async move {
                    started.store(true, Ordering::Release);
                    while !release.load(Ordering::Acquire) {
                        std::hint::spin_loop();
                    }
                }
            });
            while !started.load(Ordering::Acquire) {
                rt::task::yield_now().await;
            }
        }
        OtherWorkerHeld { release }
    }
}

impl Drop for OtherWorkerHeld {
    fn drop(&mut self) {
        self.release.store(true, Ordering::Release);
    }
}

/// Tokio's UDP operations spend the task's cooperative budget (one unit
/// each, like every I/O resource: the budget is "consumed by I/O
/// readiness"), so a task looping on a socket that is always ready still
/// yields to the scheduler after a budget's worth of operations, and
/// another task on its worker, here one whose `select!` has a `yield_now()`
/// branch, gets to run while datagrams are still queued. The same for
/// `recv`, `poll_recv`, `send` and `poll_send`.
#[test]
fn a_loop_on_an_always_ready_udp_socket_lets_a_yield_now_branch_run() {
    use std::future::poll_fn;
    limit("udp budget", || {
        shim::runtime().block_on(async {
            let (a, b) = udp_pair().await;
            // Room for many datagrams: `b` stays readable for longer than
            // one budget's worth of receives.
            socket2::SockRef::from(&b)
                .set_recv_buffer_size(1 << 20)
                .unwrap();
            let (a, b) = (Arc::new(a), Arc::new(b));
            let held = OtherWorkerHeld::hold().await;
            // The task with the `yield_now()` branch: it counts its turns.
            let ticks = Arc::new(AtomicUsize::new(0));
            let (stop, mut stopped) = rt::sync::oneshot::channel::<()>();
            let ticker = rt::spawn({
                let ticks = ticks.clone();
                async move {
                    loop {
                        rt::select! {
                            _ = &mut stopped => break,
                            _ = rt::task::yield_now() => {
                                ticks.fetch_add(1, Ordering::Relaxed);
                            }
                        }
                    }
                }
            });
            while ticks.load(Ordering::Relaxed) == 0 {
                rt::task::yield_now().await;
            }

            for (what, by_poll) in [("recv", false), ("poll_recv", true)] {
                let queued = 300;
                for _ in 0..queued {
                    a.send(b"x").await.unwrap();
                }
                a.send(b"end").await.unwrap();
                let (b, ticks) = (b.clone(), ticks.clone());
                let (received, left) = rt::spawn(async move {
                    let mut buf = [0u8; 8];
                    // The first receive may wait for the driver to report
                    // the socket readable; from then on it stays readable.
                    b.recv(&mut buf).await.unwrap();
                    let before = ticks.load(Ordering::Relaxed);
                    let mut received = 1;
                    loop {
                        let n = if by_poll {
                            poll_fn(|cx| shim::udp_poll_recv(&b, cx, &mut buf)).await
                        } else {
                            b.recv(&mut buf).await
                        };
                        received += 1;
                        if &buf[..n.unwrap()] == b"end" || ticks.load(Ordering::Relaxed) > before {
                            break;
                        }
                    }
                    let mut left = 0;
                    while b.try_recv(&mut buf).is_ok() {
                        left += 1;
                    }
                    (received, left)
                })
                .await
                .unwrap();
                assert!(
                    left > 0,
                    "{what} took all {received} queued datagrams before the other task \
                     could run: it never ran out of budget"
                );
            }

            for (what, by_poll) in [("send", false), ("poll_send", true)] {
                let (a, ticks) = (a.clone(), ticks.clone());
                let sent = rt::spawn(async move {
                    // As for the receives: the first send may wait for the
                    // driver's first event.
                    a.send(b"y").await.unwrap();
                    let before = ticks.load(Ordering::Relaxed);
                    let mut sent = 1;
                    while ticks.load(Ordering::Relaxed) == before && sent < 100_000 {
                        let n = if by_poll {
                            poll_fn(|cx| a.poll_send(cx, b"y")).await
                        } else {
                            a.send(b"y").await
                        };
                        n.unwrap();
                        sent += 1;
                    }
                    sent
                })
                .await
                .unwrap();
                assert!(
                    sent < 100_000,
                    "{what} sent {sent} datagrams and the other task never ran"
                );
            }
            stop.send(()).unwrap();
            ticker.await.unwrap();
            drop(held);
        });
    });
}

/// Tokio's `UnixDatagram::pair` "creates an unnamed pair of connected
/// sockets": what one `send`s the other `recv`s, one whole datagram at a
/// time, in both directions; `try_recv` says `WouldBlock` when nothing
/// waits, `readable`/`writable` wait for readiness, and the poll forms
/// (`poll_send_ready`, `poll_send`, `poll_recv_ready`, `poll_recv`) work
/// through `poll_fn`, and a `recv` waiting on the empty socket is woken by
/// the peer's `send`.
#[test]
fn unix_datagram_pair_sends_and_receives_whole_datagrams() {
    use rt::net::UnixDatagram;
    use std::future::poll_fn;
    use std::task::Poll;
    limit("unix datagram pair", || {
        shim::runtime().block_on(async {
            let (a, b) = UnixDatagram::pair().unwrap();
            let mut buf = [0u8; 32];
            assert_eq!(
                b.try_recv(&mut buf).unwrap_err().kind(),
                std::io::ErrorKind::WouldBlock
            );
            a.writable().await.unwrap();
            assert_eq!(a.send(b"one").await.unwrap(), 3);
            assert_eq!(a.try_send(b"two").unwrap(), 3);
            b.readable().await.unwrap();
            let n = b.recv(&mut buf).await.unwrap();
            assert_eq!(&buf[..n], b"one");
            let n = b.try_recv(&mut buf).unwrap();
            assert_eq!(&buf[..n], b"two", "datagrams keep their boundaries");

            poll_fn(|cx| b.poll_send_ready(cx)).await.unwrap();
            assert_eq!(poll_fn(|cx| b.poll_send(cx, b"back")).await.unwrap(), 4);
            poll_fn(|cx| a.poll_recv_ready(cx)).await.unwrap();
            let n = poll_fn(|cx| shim::unix_poll_recv(&a, cx, &mut buf))
                .await
                .unwrap();
            assert_eq!(&buf[..n], b"back");

            let ready = a.ready(rt::io::Interest::WRITABLE).await.unwrap();
            assert!(ready.is_writable());
            assert!(a.local_addr().unwrap().is_unnamed());
            assert!(a.peer_addr().unwrap().is_unnamed());
            assert!(a.take_error().unwrap().is_none());

            // A receive that has to wait is woken by the send: the task
            // sees its `recv` pending (so it waits on the socket) before it
            // lets the sender go, and only a wake-up polls it again.
            let (waiting_tx, waiting_rx) = rt::sync::oneshot::channel();
            let b = Arc::new(b);
            let waiting = rt::spawn({
                let b = b.clone();
                async move {
                    let mut buf = [0u8; 32];
                    let n = {
                        let mut recv = pin!(b.recv(&mut buf));
                        let first = poll_fn(|cx| Poll::Ready(recv.as_mut().poll(cx))).await;
                        assert!(first.is_pending(), "nothing was sent yet");
                        waiting_tx.send(()).unwrap();
                        recv.await.unwrap()
                    };
                    buf[..n].to_vec()
                }
            });
            waiting_rx.await.unwrap();
            a.send(b"later").await.unwrap();
            let got = rt::time::timeout(PATIENCE, waiting)
                .await
                .expect("the waiting recv was not woken by the send")
                .unwrap();
            assert_eq!(got, b"later");
        });
    });
}

/// `UnixDatagram::bind` binds a socket to a path; `send_to` sends a
/// datagram to the socket bound at a path, and `recv_from` returns the
/// datagram and the sender's address (its path). The `try_` and `poll_`
/// forms (`try_send_to`, `try_recv_from`, `poll_send_to`,
/// `poll_recv_from`) do the same.
#[test]
fn unix_datagram_bind_send_to_and_recv_from_paths() {
    use rt::net::UnixDatagram;
    use std::future::poll_fn;
    limit("unix datagram paths", || {
        let dir = SocketDir::new("paths");
        let (path_a, path_b) = (dir.join("a.sock"), dir.join("b.sock"));
        shim::runtime().block_on(async {
            let a = UnixDatagram::bind(&path_a).unwrap();
            let b = UnixDatagram::bind(&path_b).unwrap();
            assert_eq!(
                a.local_addr().unwrap().as_pathname(),
                Some(path_a.as_path())
            );
            assert_eq!(a.send_to(b"hello", &path_b).await.unwrap(), 5);
            let mut buf = [0u8; 32];
            let (n, from) = b.recv_from(&mut buf).await.unwrap();
            assert_eq!(&buf[..n], b"hello");
            assert_eq!(from.as_pathname(), Some(path_a.as_path()));

            b.writable().await.unwrap();
            assert_eq!(b.try_send_to(b"hi", &path_a).unwrap(), 2);
            a.readable().await.unwrap();
            let (n, from) = a.try_recv_from(&mut buf).unwrap();
            assert_eq!(
                (&buf[..n], from.as_pathname()),
                (&b"hi"[..], Some(path_b.as_path()))
            );

            let sent = poll_fn(|cx| a.poll_send_to(cx, b"polled", &path_b)).await;
            assert_eq!(sent.unwrap(), 6);
            let (n, from) = poll_fn(|cx| shim::unix_poll_recv_from(&b, cx, &mut buf))
                .await
                .unwrap();
            assert_eq!(&buf[..n], b"polled");
            assert_eq!(from.as_deref(), Some(path_a.as_path()));

            let mut spare = Vec::with_capacity(16);
            a.send_to(b"into a Vec", &path_b).await.unwrap();
            let (n, from) = b.recv_buf_from(&mut spare).await.unwrap();
            assert_eq!((n, spare.as_slice()), (10, &b"into a Vec"[..]));
            assert_eq!(from.as_pathname(), Some(path_a.as_path()));
        });
    });
}

/// `UnixDatagram::unbound` creates a socket bound to no path: it can send
/// to a bound socket, whose `recv_from` then reports an unnamed sender
/// (a `net::unix::SocketAddr`), and its own `local_addr` is unnamed.
#[test]
fn an_unbound_unix_datagram_sends_as_an_unnamed_sender() {
    use rt::net::UnixDatagram;
    limit("unbound unix datagram", || {
        let dir = SocketDir::new("unbound");
        let path = dir.join("server.sock");
        shim::runtime().block_on(async {
            let server = UnixDatagram::bind(&path).unwrap();
            let client = UnixDatagram::unbound().unwrap();
            assert!(client.local_addr().unwrap().is_unnamed());
            client.send_to(b"anonymous", &path).await.unwrap();
            let mut buf = [0u8; 32];
            let (n, from): (usize, rt::net::unix::SocketAddr) =
                server.recv_from(&mut buf).await.unwrap();
            assert_eq!(&buf[..n], b"anonymous");
            assert!(from.is_unnamed());
            assert!(from.as_pathname().is_none());
        });
    });
}

/// `UnixDatagram::connect` sets the socket's default peer (a path): `send`
/// goes there and `recv` receives from it; `peer_addr` names it. A socket
/// moves to std and back with `into_std` and `from_std`, and
/// `shutdown(Write)` stops sending.
#[test]
fn connected_unix_datagrams_send_and_recv() {
    use rt::net::UnixDatagram;
    limit("connected unix datagrams", || {
        let dir = SocketDir::new("connected");
        let (path_a, path_b) = (dir.join("a.sock"), dir.join("b.sock"));
        shim::runtime().block_on(async {
            let a = UnixDatagram::bind(&path_a).unwrap();
            let b = UnixDatagram::bind(&path_b).unwrap();
            a.connect(&path_b).unwrap();
            b.connect(&path_a).unwrap();
            assert_eq!(a.peer_addr().unwrap().as_pathname(), Some(path_b.as_path()));
            a.send(b"ping").await.unwrap();
            let mut buf = [0u8; 32];
            let n = b.recv(&mut buf).await.unwrap();
            assert_eq!(&buf[..n], b"ping");
            b.send(b"pong").await.unwrap();
            let mut spare = Vec::with_capacity(16);
            let n = a.recv_buf(&mut spare).await.unwrap();
            assert_eq!((n, spare.as_slice()), (4, &b"pong"[..]));

            // Through std and back: the same socket, still connected.
            let std_a = a.into_std().unwrap();
            assert_eq!(
                std_a.local_addr().unwrap().as_pathname(),
                Some(path_a.as_path())
            );
            let a = UnixDatagram::from_std(std_a).unwrap();
            a.send(b"again").await.unwrap();
            let n = b.recv(&mut buf).await.unwrap();
            assert_eq!(&buf[..n], b"again");

            use std::os::fd::AsRawFd;
            assert!(a.as_raw_fd() >= 0);
            a.shutdown(std::net::Shutdown::Write).unwrap();
            assert!(a.send(b"after shutdown").await.is_err());
        });
    });
}

/// A datagram longer than the buffer is cut to fit and the rest is lost
/// (the next receive gets the next datagram), for `recv` and for
/// `recv_buf`, which has only the buffer's spare room; a `recv` dropped
/// while it waits takes nothing, as Tokio documents (cancel safe).
#[test]
fn a_unix_datagram_longer_than_the_buffer_is_cut_and_the_rest_lost() {
    use bytes::BufMut;
    use rt::net::UnixDatagram;
    limit("unix datagram truncation", || {
        shim::runtime().block_on(async {
            let (a, b) = UnixDatagram::pair().unwrap();
            {
                let mut buf = [0u8; 4];
                let mut recv = pin!(b.recv(&mut buf));
                let polled = std::future::poll_fn(|cx| {
                    std::task::Poll::Ready(recv.as_mut().poll(cx).is_pending())
                })
                .await;
                assert!(polled, "nothing was sent yet");
            }
            for datagram in [&b"0123456789"[..], b"next", b"abcdefgh", b"last"] {
                a.send(datagram).await.unwrap();
            }
            let mut small = [0u8; 4];
            let n = b.recv(&mut small).await.unwrap();
            assert_eq!(&small[..n], b"0123");
            let n = b.recv(&mut small).await.unwrap();
            assert_eq!(&small[..n], b"next", "the cut datagram's rest is gone");

            let mut spare = Vec::new();
            let n = b.recv_buf(&mut (&mut spare).limit(3)).await.unwrap();
            assert_eq!((n, spare.as_slice()), (3, &b"abc"[..]));
            let n = b.recv(&mut small).await.unwrap();
            assert_eq!(&small[..n], b"last");
        });
    });
}

/// The other addresses and conversions: `recv_buf_from` and
/// `try_recv_buf_from` report an unnamed sender (the other end of a pair,
/// an unbound socket) as unnamed; an unconnected socket has no
/// `peer_addr` (`NotConnected`); `send_to` a path where nothing is bound
/// fails; and `TryFrom` a std socket is `from_std`.
#[test]
fn unix_datagram_senders_without_a_path_and_conversions() {
    use rt::net::UnixDatagram;
    limit("unix datagram unnamed senders", || {
        let dir = SocketDir::new("unnamed");
        let path = dir.join("server.sock");
        shim::runtime().block_on(async {
            let (a, b) = UnixDatagram::pair().unwrap();
            a.send(b"from a pair").await.unwrap();
            let mut spare = Vec::with_capacity(32);
            let (n, from) = b.recv_buf_from(&mut spare).await.unwrap();
            assert_eq!(&spare[..n], b"from a pair");
            assert!(from.is_unnamed() && from.as_pathname().is_none());

            let server = UnixDatagram::bind(&path).unwrap();
            let client = UnixDatagram::unbound().unwrap();
            assert_eq!(
                client.peer_addr().unwrap_err().kind(),
                std::io::ErrorKind::NotConnected
            );
            client.send_to(b"unbound", &path).await.unwrap();
            server.readable().await.unwrap();
            let mut spare = Vec::with_capacity(32);
            let (n, from) = server.try_recv_buf_from(&mut spare).unwrap();
            assert_eq!(&spare[..n], b"unbound");
            assert!(from.is_unnamed());
            assert!(
                client
                    .send_to(b"nobody", dir.join("nobody.sock"))
                    .await
                    .is_err(),
                "nothing is bound at that path"
            );

            let std_socket = std::os::unix::net::UnixDatagram::unbound().unwrap();
            std_socket.set_nonblocking(true).unwrap();
            let converted = UnixDatagram::try_from(std_socket).unwrap();
            converted.send_to(b"converted", &path).await.unwrap();
            let mut buf = [0u8; 32];
            let (n, _) = rt::time::timeout(PATIENCE, server.recv_from(&mut buf))
                .await
                .expect("the converted socket's datagram never came")
                .unwrap();
            assert_eq!(&buf[..n], b"converted");
        });
    });
}

/// A sender bound to an abstract name (Linux's namespace of socket names
/// that are not files) is reported the same way by `recv_from` and by
/// `recv_buf_from`, which read the address through different calls.
#[cfg(target_os = "linux")]
#[test]
fn an_abstract_unix_datagram_sender_is_reported_alike_by_both_receives() {
    use rt::net::UnixDatagram;
    use std::os::linux::net::SocketAddrExt;
    limit("unix datagram abstract sender", || {
        let name = format!(
            "rt-behaviour-{}-{}-abstract",
            shim::NAME,
            std::process::id()
        );
        let dir = SocketDir::new("abstract");
        let path = dir.join("receiver.sock");
        shim::runtime().block_on(async {
            let addr = std::os::unix::net::SocketAddr::from_abstract_name(&name).unwrap();
            let std_sender = std::os::unix::net::UnixDatagram::bind_addr(&addr).unwrap();
            std_sender.set_nonblocking(true).unwrap();
            let sender = UnixDatagram::from_std(std_sender).unwrap();
            let receiver = UnixDatagram::bind(&path).unwrap();
            sender.send_to(b"one", &path).await.unwrap();
            sender.send_to(b"two", &path).await.unwrap();
            let mut buf = [0u8; 8];
            let (_, by_recv_from) = receiver.recv_from(&mut buf).await.unwrap();
            let mut spare = Vec::with_capacity(8);
            let (_, by_recv_buf_from) = receiver.recv_buf_from(&mut spare).await.unwrap();
            assert_eq!(format!("{by_recv_from:?}"), format!("{by_recv_buf_from:?}"));
            assert!(format!("{by_recv_from:?}").contains(&name));
            assert!(!by_recv_buf_from.is_unnamed());
            assert!(by_recv_buf_from.as_pathname().is_none());
        });
    });
}
