//! Tokio APIs that an audit of rt's public types against Tokio 1.54 found
//! missing, each checked against what Tokio documents:
//!
//! * `UdpSocket` and `TcpSocket`: `tos_v4`/`set_tos_v4` (and the deprecated `tos`/`set_tos`),
//!   `tclass_v6`/`set_tclass_v6` (IPv6 loopback only where the machine
//!   has it), `device`/`bind_device` (binding to `lo` either works or is
//!   refused for want of privilege; an interface that does not exist is
//!   an error; no binding reads `None`).
//! * `TcpSocket`'s `FromRawFd` and `IntoRawFd`: a descriptor given up and
//!   taken back still listens.
//! * `TcpStream::quickack`/`set_quickack`: the value set is read back.
//! * `poll_peek` on the read halves of a TCP stream (`ReadHalf`,
//!   `OwnedReadHalf`): the bytes copied and left for the next read.
//! * `UnixListener::bind_addr` and `UnixStream::connect_addr`, with a path
//!   and with an abstract name.
//! * `OnceCell::const_new_with`: a `static` that starts set; `set` refused,
//!   `get_or_init` not running its initialiser, `get_mut`, `take`,
//!   `into_inner`.
//! * `watch::Sender`'s `Default`: the default value, no receiver yet.
//! * `BufStream::get_pin_mut`, and `From<BufReader<BufWriter<_>>>` keeping
//!   what both buffers hold.
//! * The runtime's handles: `JoinHandle`, `AbortHandle`, `Runtime`,
//!   `Handle` and `RuntimeMetrics` are `UnwindSafe` and `RefUnwindSafe`; a
//!   cloned `AbortHandle` aborts the same task; `LocalSet::id` differs
//!   between sets and from the runtime's; `Builder` and `RuntimeMetrics`
//!   implement `Debug`.
//! * `Interest::ERROR`: an `AsyncFd` registered for errors alone wakes
//!   with `is_error()` when an error is queued on its socket, and a guard
//!   that clears it waits again for the next.
//! * `Interest::PRIORITY`: an `AsyncFd` registered for it wakes with
//!   `is_priority()` when TCP urgent data arrives.
//!
//! Written from Tokio's documentation; every test passes on Tokio 1.54.

use crate::behaviour::{SocketDir, limit, tcp_pair};
use crate::{rt, shim};
use rt::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader, BufStream, BufWriter};
use rt::net::{TcpSocket, UdpSocket, UnixListener, UnixStream};
use rt::sync::{OnceCell, SetError, watch};
use std::io::{self, ErrorKind};
use std::os::fd::{FromRawFd, IntoRawFd};
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

/// How long a step that should be quick may take before the test fails.
const PATIENCE: Duration = Duration::from_secs(10);

/// `IPTOS_LOWDELAY`, a type-of-service value any socket may set.
const LOW_DELAY: u32 = 0x10;

// ---------------------------------------------------------------------
// The IP options of UdpSocket and TcpSocket.

/// An IPv6 UDP socket on the loopback, or `None` on a machine without
/// IPv6.
async fn udp_v6() -> Option<UdpSocket> {
    UdpSocket::bind("[::1]:0").await.ok()
}

/// `set_tos_v4` then `tos_v4` reads the value back on an IPv4 socket.
#[test]
fn udp_tos_v4_round_trips() {
    limit("UdpSocket::tos_v4", || {
        shim::runtime().block_on(async {
            let socket = UdpSocket::bind("127.0.0.1:0").await.unwrap();
            socket.set_tos_v4(LOW_DELAY).unwrap();
            assert_eq!(socket.tos_v4().unwrap(), LOW_DELAY);
            socket.set_tos_v4(0).unwrap();
            assert_eq!(socket.tos_v4().unwrap(), 0);
        });
    });
}

/// The deprecated `tos`/`set_tos` of both sockets are `tos_v4`/`set_tos_v4`
/// under their old names, as in Tokio 1.54.
#[test]
#[allow(deprecated)]
fn deprecated_tos_is_tos_v4() {
    limit("UdpSocket::tos, TcpSocket::tos", || {
        shim::runtime().block_on(async {
            let udp = UdpSocket::bind("127.0.0.1:0").await.unwrap();
            udp.set_tos(LOW_DELAY).unwrap();
            assert_eq!(udp.tos().unwrap(), LOW_DELAY);
            assert_eq!(udp.tos_v4().unwrap(), LOW_DELAY);
            let tcp = rt::net::TcpSocket::new_v4().unwrap();
            tcp.set_tos_v4(LOW_DELAY).unwrap();
            assert_eq!(tcp.tos().unwrap(), LOW_DELAY);
            tcp.set_tos(0).unwrap();
            assert_eq!(tcp.tos_v4().unwrap(), 0);
        });
    });
}

/// `set_tclass_v6` then `tclass_v6` reads the value back on an IPv6
/// socket; on an IPv4 socket both are errors.
#[test]
fn udp_tclass_v6_round_trips_and_needs_ipv6() {
    limit("UdpSocket::tclass_v6", || {
        shim::runtime().block_on(async {
            let v4 = UdpSocket::bind("127.0.0.1:0").await.unwrap();
            assert!(v4.tclass_v6().is_err());
            assert!(v4.set_tclass_v6(LOW_DELAY).is_err());
            let Some(v6) = udp_v6().await else {
                return; // No IPv6 loopback here.
            };
            v6.set_tclass_v6(LOW_DELAY).unwrap();
            assert_eq!(v6.tclass_v6().unwrap(), LOW_DELAY);
        });
    });
}

/// Checks `bind_device` on a socket whose `device` and `bind_device` are
/// `device` and `bind`: no binding at first; `lo` either bound (then read
/// back, and `None` unbinds, privilege allowing) or refused with
/// `PermissionDenied`; an interface that does not exist is an error.
fn check_bind_device(
    device: impl Fn() -> io::Result<Option<Vec<u8>>>,
    bind: impl Fn(Option<&[u8]>) -> io::Result<()>,
) {
    assert_eq!(device().unwrap(), None);
    assert!(bind(Some(b"no-such-if0")).is_err());
    match bind(Some(b"lo")) {
        Ok(()) => {
            assert_eq!(device().unwrap().as_deref(), Some(&b"lo"[..]));
            match bind(None) {
                Ok(()) => assert_eq!(device().unwrap(), None),
                Err(error) => assert_eq!(error.kind(), ErrorKind::PermissionDenied),
            }
        }
        Err(error) => assert_eq!(error.kind(), ErrorKind::PermissionDenied),
    }
}

/// `device` and `bind_device` on a UDP socket; bound to `lo` or not, a
/// datagram to itself on the loopback still arrives.
#[test]
fn udp_bind_device_binds_or_is_refused() {
    limit("UdpSocket::bind_device", || {
        shim::runtime().block_on(async {
            let socket = UdpSocket::bind("127.0.0.1:0").await.unwrap();
            check_bind_device(|| socket.device(), |name| socket.bind_device(name));
            let _ = socket.bind_device(Some(b"lo"));
            let me = socket.local_addr().unwrap();
            socket.send_to(b"to me", me).await.unwrap();
            let mut buf = [0u8; 8];
            let (n, from) = rt::time::timeout(PATIENCE, socket.recv_from(&mut buf))
                .await
                .expect("the datagram did not arrive")
                .unwrap();
            assert_eq!((&buf[..n], from), (&b"to me"[..], me));
        });
    });
}

/// The same options on a `TcpSocket`, before it connects.
#[test]
fn tcp_socket_ip_options() {
    limit("TcpSocket::tos_v4", || {
        shim::runtime().block_on(async {
            let socket = TcpSocket::new_v4().unwrap();
            socket.set_tos_v4(LOW_DELAY).unwrap();
            assert_eq!(socket.tos_v4().unwrap(), LOW_DELAY);
            assert!(socket.tclass_v6().is_err());
            check_bind_device(|| socket.device(), |name| socket.bind_device(name));
            if let Ok(v6) = TcpSocket::new_v6() {
                v6.set_tclass_v6(LOW_DELAY).unwrap();
                assert_eq!(v6.tclass_v6().unwrap(), LOW_DELAY);
            }
        });
    });
}

/// A `TcpSocket` given up as a raw descriptor and taken back keeps its
/// options, and listens and accepts.
#[test]
fn tcp_socket_raw_fd_round_trip() {
    limit("TcpSocket::from_raw_fd", || {
        shim::runtime().block_on(async {
            let socket = TcpSocket::new_v4().unwrap();
            socket.set_reuseaddr(true).unwrap();
            let fd = socket.into_raw_fd();
            // SAFETY: `fd` was just given up by the socket and nothing
            // else owns it.
            let socket = unsafe { TcpSocket::from_raw_fd(fd) };
            assert!(socket.reuseaddr().unwrap());
            socket.bind("127.0.0.1:0".parse().unwrap()).unwrap();
            let listener = socket.listen(8).unwrap();
            let addr = listener.local_addr().unwrap();
            let (client, accepted) = rt::time::timeout(
                PATIENCE,
                futures::future::join(rt::net::TcpStream::connect(addr), listener.accept()),
            )
            .await
            .expect("the connection was not made");
            assert_eq!(client.unwrap().local_addr().unwrap(), accepted.unwrap().1);
        });
    });
}

/// `set_quickack` then `quickack` reads the value back, either way.
#[test]
fn tcp_quickack_round_trips() {
    limit("TcpStream::quickack", || {
        shim::runtime().block_on(async {
            let (client, _server) = tcp_pair().await;
            client.set_quickack(true).unwrap();
            assert!(client.quickack().unwrap());
            client.set_quickack(false).unwrap();
            assert!(!client.quickack().unwrap());
        });
    });
}

// ---------------------------------------------------------------------
// poll_peek on the read halves of a TCP stream.

/// `poll_peek` with the length of what it copied, whatever buffer type the
/// runtime's takes (as in api_gaps.rs): Tokio's fills a `ReadBuf`, rt's
/// takes the bytes.
trait PeekLen {
    fn peek_len(&mut self, cx: &mut Context<'_>, buf: &mut [u8]) -> Poll<io::Result<usize>>;
}

macro_rules! peek_len_tokio {
    ($($half:ty),*) => {$(
        impl PeekLen for $half {
            fn peek_len(&mut self, cx: &mut Context<'_>, buf: &mut [u8]) -> Poll<io::Result<usize>> {
                let mut read_buf = tokio::io::ReadBuf::new(buf);
                let n = std::task::ready!(self.poll_peek(cx, &mut read_buf))?;
                assert_eq!(read_buf.filled().len(), n, "poll_peek advances the ReadBuf");
                Poll::Ready(Ok(n))
            }
        }
    )*};
}

macro_rules! peek_len_rt {
    ($($half:ty),*) => {$(
        impl PeekLen for $half {
            fn peek_len(&mut self, cx: &mut Context<'_>, buf: &mut [u8]) -> Poll<io::Result<usize>> {
                self.poll_peek(cx, buf)
            }
        }
    )*};
}

peek_len_tokio!(
    tokio::net::tcp::ReadHalf<'_>,
    tokio::net::tcp::OwnedReadHalf
);
peek_len_rt!(::rt::net::tcp::ReadHalf<'_>, ::rt::net::tcp::OwnedReadHalf);

/// Peeks until `want` bytes are there, and returns them.
async fn peek_all(half: &mut impl PeekLen, want: usize) -> Vec<u8> {
    rt::time::timeout(PATIENCE, async {
        let mut buf = [0u8; 32];
        loop {
            let n = std::future::poll_fn(|cx| half.peek_len(cx, &mut buf))
                .await
                .unwrap();
            if n >= want {
                return buf[..n].to_vec();
            }
            rt::task::yield_now().await;
        }
    })
    .await
    .expect("the bytes did not arrive")
}

/// `ReadHalf::poll_peek` copies what has arrived and leaves it for the
/// next read.
#[test]
fn tcp_read_half_poll_peek_leaves_the_bytes() {
    limit("tcp::ReadHalf::poll_peek", || {
        shim::runtime().block_on(async {
            let (mut client, mut server) = tcp_pair().await;
            shim::write_all(&mut client, b"half").await.unwrap();
            let (mut read, _write) = rt::net::TcpStream::split(&mut server);
            assert_eq!(peek_all(&mut read, 4).await, b"half");
            let mut got = [0u8; 4];
            read.read_exact(&mut got).await.unwrap();
            assert_eq!(&got, b"half");
        });
    });
}

/// `OwnedReadHalf::poll_peek` likewise, and `Ok(0)` once the peer has shut
/// down its writing and every byte is read.
#[test]
fn tcp_owned_read_half_poll_peek_leaves_the_bytes() {
    limit("tcp::OwnedReadHalf::poll_peek", || {
        shim::runtime().block_on(async {
            let (mut client, server) = tcp_pair().await;
            shim::write_all(&mut client, b"owned").await.unwrap();
            let (mut read, _write) = server.into_split();
            assert_eq!(peek_all(&mut read, 5).await, b"owned");
            let mut got = [0u8; 5];
            read.read_exact(&mut got).await.unwrap();
            assert_eq!(&got, b"owned");
            drop(client);
            let mut buf = [0u8; 4];
            let n = rt::time::timeout(
                PATIENCE,
                std::future::poll_fn(|cx| read.peek_len(cx, &mut buf)),
            )
            .await
            .expect("end of stream was not seen")
            .unwrap();
            assert_eq!(n, 0);
        });
    });
}

// ---------------------------------------------------------------------
// UnixListener::bind_addr and UnixStream::connect_addr.

/// The runtime's `net::unix::SocketAddr` for a std one: Tokio's wraps
/// std's (hence `From`), rt's is std's own (hence the lint).
#[allow(clippy::useless_conversion)]
fn unix_addr(addr: std::os::unix::net::SocketAddr) -> rt::net::unix::SocketAddr {
    addr.into()
}

/// Listens on `addr`, connects to it, and sends a few bytes across.
async fn unix_addr_round_trip(addr: std::os::unix::net::SocketAddr) {
    let addr = unix_addr(addr);
    let listener = UnixListener::bind_addr(&addr).unwrap();
    let (client, accepted) = rt::time::timeout(
        PATIENCE,
        futures::future::join(UnixStream::connect_addr(&addr), listener.accept()),
    )
    .await
    .expect("the connection was not made");
    let (mut client, (mut server, _)) = (client.unwrap(), accepted.unwrap());
    client.write_all(b"by address").await.unwrap();
    let mut got = [0u8; 10];
    server.read_exact(&mut got).await.unwrap();
    assert_eq!(&got, b"by address");
}

/// A path given as a `SocketAddr`: the listener binds it, the stream
/// connects to it, and the listener's address is that path.
#[test]
fn unix_bind_addr_and_connect_addr_with_a_path() {
    limit("UnixListener::bind_addr", || {
        let dir = SocketDir::new("api-audit-bind-addr");
        let path = dir.join("sock");
        shim::runtime().block_on(async move {
            let std_addr = std::os::unix::net::SocketAddr::from_pathname(&path).unwrap();
            unix_addr_round_trip(std_addr).await;
            assert!(path.exists(), "bind_addr made the socket file");
            let addr = unix_addr(std::os::unix::net::SocketAddr::from_pathname(&path).unwrap());
            let error = UnixListener::bind_addr(&addr).unwrap_err();
            assert_eq!(error.kind(), ErrorKind::AddrInUse);
        });
    });
}

/// An abstract name (Linux): no file, and the connection works.
#[test]
fn unix_bind_addr_and_connect_addr_with_an_abstract_name() {
    use std::os::linux::net::SocketAddrExt;
    limit("UnixStream::connect_addr", || {
        shim::runtime().block_on(async {
            let name = format!("rt-api-audit-{}-{}", shim::NAME, std::process::id());
            let std_addr = std::os::unix::net::SocketAddr::from_abstract_name(name).unwrap();
            unix_addr_round_trip(std_addr).await;
        });
    });
}

/// Connecting to a path nobody listens on fails (`NotFound`).
#[test]
fn unix_connect_addr_to_nothing_fails() {
    limit("UnixStream::connect_addr nowhere", || {
        let dir = SocketDir::new("api-audit-connect-addr");
        let path = dir.join("nobody");
        shim::runtime().block_on(async move {
            let addr = unix_addr(std::os::unix::net::SocketAddr::from_pathname(&path).unwrap());
            let error = UnixStream::connect_addr(&addr).await.unwrap_err();
            assert_eq!(error.kind(), ErrorKind::NotFound);
        });
    });
}

// ---------------------------------------------------------------------
// OnceCell::const_new_with.

static PRESET: OnceCell<u32> = OnceCell::const_new_with(7);

/// A `static` made with `const_new_with` is set from the start: `set`
/// gives its value back, and `get_or_init` returns the preset value
/// without running its initialiser.
#[test]
fn once_cell_const_new_with_starts_set() {
    limit("OnceCell::const_new_with", || {
        shim::runtime().block_on(async {
            assert!(PRESET.initialized());
            assert_eq!(PRESET.get(), Some(&7));
            assert_eq!(PRESET.set(8), Err(SetError::AlreadyInitializedError(8)));
            let value = PRESET
                .get_or_init(|| async { panic!("the initialiser ran") })
                .await;
            assert_eq!(*value, 7);
            let value: Result<&u32, ()> = PRESET
                .get_or_try_init(|| async { panic!("the initialiser ran") })
                .await;
            assert_eq!(value, Ok(&7));
        });
    });
}

/// A preset cell's value can be changed through `get_mut`, taken (the
/// cell is then empty and takes a new value) and moved out.
#[test]
fn once_cell_const_new_with_get_mut_take_into_inner() {
    limit("OnceCell::const_new_with take", || {
        let mut cell = OnceCell::const_new_with(String::from("a"));
        cell.get_mut().unwrap().push('b');
        assert_eq!(cell.get().map(String::as_str), Some("ab"));
        assert_eq!(cell.clone().into_inner().as_deref(), Some("ab"));
        assert_eq!(cell.take().as_deref(), Some("ab"));
        assert!(!cell.initialized());
        cell.set(String::from("c")).unwrap();
        assert_eq!(cell.into_inner().as_deref(), Some("c"));
        assert_eq!(
            OnceCell::const_new_with(3).into_inner(),
            Some(3),
            "into_inner of a preset cell"
        );
    });
}

// ---------------------------------------------------------------------
// watch::Sender: Default.

/// A default sender holds the type's default value and has no receiver:
/// `send` fails until one subscribes, `send_replace` still stores.
#[test]
fn watch_sender_default() {
    limit("watch::Sender::default", || {
        shim::runtime().block_on(async {
            let tx: watch::Sender<u32> = watch::Sender::default();
            assert_eq!(*tx.borrow(), 0);
            assert_eq!(tx.receiver_count(), 0);
            assert!(tx.send(1).is_err());
            assert_eq!(tx.send_replace(2), 0);
            let mut rx = tx.subscribe();
            assert_eq!(*rx.borrow_and_update(), 2);
            tx.send(3).unwrap();
            rt::time::timeout(PATIENCE, rx.changed())
                .await
                .expect("the change was not seen")
                .unwrap();
            assert_eq!(*rx.borrow(), 3);
        });
    });
}

// ---------------------------------------------------------------------
// BufStream: get_pin_mut and From.

/// `get_pin_mut` reaches the stream `get_ref` sees.
#[test]
fn buf_stream_get_pin_mut_is_the_stream() {
    limit("BufStream::get_pin_mut", || {
        shim::runtime().block_on(async {
            let (a, _b) = rt::io::duplex(64);
            let mut stream = BufStream::new(a);
            let pinned: *const rt::io::DuplexStream = &*Pin::new(&mut stream).get_pin_mut();
            assert!(std::ptr::eq(pinned, stream.get_ref()));
        });
    });
}

/// A `BufStream` made from a `BufReader` around a `BufWriter` keeps the
/// bytes the reader had read ahead and those the writer had not flushed.
#[test]
fn buf_stream_from_reader_keeps_both_buffers() {
    limit("BufStream::from", || {
        shim::runtime().block_on(async {
            let (a, mut peer) = rt::io::duplex(64);
            peer.write_all(b"one\ntwo\n").await.unwrap();
            let mut reader = BufReader::new(BufWriter::new(a));
            let mut line = String::new();
            reader.read_line(&mut line).await.unwrap();
            assert_eq!(line, "one\n");
            assert_eq!(reader.buffer(), b"two\n", "the rest was read ahead");
            reader.write_all(b"unflushed").await.unwrap();

            let mut stream = BufStream::from(reader);
            line.clear();
            stream.read_line(&mut line).await.unwrap();
            assert_eq!(line, "two\n");
            stream.flush().await.unwrap();
            let mut got = [0u8; 9];
            rt::time::timeout(PATIENCE, peer.read_exact(&mut got))
                .await
                .expect("the flushed bytes did not arrive")
                .unwrap();
            assert_eq!(&got, b"unflushed");
        });
    });
}

/// Tokio's handles can be used inside `catch_unwind` without wrapping:
/// each is `UnwindSafe` and `RefUnwindSafe`.
#[test]
fn the_runtime_handles_are_unwind_safe() {
    fn unwind_safe<T: std::panic::UnwindSafe + std::panic::RefUnwindSafe>() {}
    unwind_safe::<rt::task::JoinHandle<String>>();
    unwind_safe::<rt::task::AbortHandle>();
    unwind_safe::<rt::runtime::Runtime>();
    unwind_safe::<rt::runtime::Handle>();
    unwind_safe::<rt::runtime::RuntimeMetrics>();
    // And so a handle crosses `catch_unwind` as it is.
    limit("catch_unwind with a handle", || {
        let runtime = shim::runtime();
        let handle = runtime.handle().clone();
        let caught = std::panic::catch_unwind(|| handle.spawn(async { 7 }));
        let task = caught.expect("spawning does not panic");
        assert_eq!(runtime.block_on(task).unwrap(), 7);
    });
}

/// `AbortHandle` is `Clone`; any clone cancels the same task.
#[test]
fn a_cloned_abort_handle_aborts_the_same_task() {
    limit("AbortHandle::clone", || {
        shim::runtime().block_on(async {
            let task = rt::spawn(std::future::pending::<()>());
            let first = task.abort_handle();
            let second = first.clone();
            assert_eq!(first.id(), second.id());
            drop(first);
            second.abort();
            let error = rt::time::timeout(PATIENCE, task)
                .await
                .expect("the aborted task did not end")
                .unwrap_err();
            assert!(error.is_cancelled());
            assert!(second.is_finished());
        });
    });
}

/// `LocalSet::id`: each set has its own, none equal to a runtime's.
#[test]
fn local_sets_have_ids_of_their_own() {
    limit("LocalSet::id", || {
        let runtime = shim::runtime();
        let (one, two) = (rt::task::LocalSet::new(), rt::task::LocalSet::new());
        assert_ne!(one.id(), two.id());
        assert_eq!(one.id(), one.id());
        assert_ne!(one.id(), runtime.handle().id());
        assert!(!one.id().to_string().is_empty());
    });
}

/// `Builder` and `RuntimeMetrics` print with `{:?}`.
#[test]
fn the_builder_and_the_metrics_implement_debug() {
    limit("Builder and RuntimeMetrics Debug", || {
        let mut builder = rt::runtime::Builder::new_multi_thread();
        builder.worker_threads(2);
        assert!(format!("{builder:?}").starts_with("Builder"));
        let runtime = shim::runtime();
        assert!(format!("{:?}", runtime.metrics()).starts_with("RuntimeMetrics"));
    });
}

/// `Interest::ERROR` on an `AsyncFd`: a UDP socket that asked for
/// `IP_RECVERR` sends to a port nobody listens on; the loopback answers
/// with ICMP "port unreachable", which the kernel queues on the socket as
/// an error. The `AsyncFd`, registered for errors alone, wakes with
/// `is_error()`; the error is `ConnectionRefused`; once read and the
/// readiness cleared, the next wait needs a new error.
#[test]
fn async_fd_wakes_for_an_error_queued_on_its_socket() {
    use std::os::fd::AsRawFd;
    limit("Interest::ERROR", || {
        shim::runtime().block_on(async {
            let closed = std::net::UdpSocket::bind("127.0.0.1:0")
                .unwrap()
                .local_addr()
                .unwrap();
            let socket = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
            socket.set_nonblocking(true).unwrap();
            let on: libc::c_int = 1;
            // SAFETY: an open descriptor, and an int option of its size.
            let set = unsafe {
                libc::setsockopt(
                    socket.as_raw_fd(),
                    libc::SOL_IP,
                    libc::IP_RECVERR,
                    (&raw const on).cast(),
                    size_of::<libc::c_int>() as libc::socklen_t,
                )
            };
            assert_eq!(set, 0, "setsockopt(IP_RECVERR)");
            let interest = rt::io::Interest::ERROR;
            assert!(interest.is_error() && !interest.is_readable() && !interest.is_writable());
            use rt::io::unix::AsyncFd;
            // SAFETY: the AsyncFd owns the socket, which stays open and the
            // same while it does.
            let registered = unsafe { AsyncFd::register_with_interest(socket, interest) };
            let fd = registered.unwrap();
            fd.get_ref().send_to(b"anyone there?", closed).unwrap();
            let mut guard = fd.ready(interest).await.unwrap();
            assert!(guard.ready().is_error(), "{:?}", guard.ready());
            let error = fd
                .get_ref()
                .take_error()
                .unwrap()
                .expect("an error is queued");
            assert_eq!(error.kind(), ErrorKind::ConnectionRefused);
            // Drain the error queue, then clear: no error is left to wake for.
            let mut buf = [0u8; 256];
            // SAFETY: an open descriptor and a buffer of the length given.
            let drained = unsafe {
                libc::recv(
                    fd.as_raw_fd(),
                    buf.as_mut_ptr().cast(),
                    buf.len(),
                    libc::MSG_ERRQUEUE | libc::MSG_DONTWAIT,
                )
            };
            assert!(drained >= 0, "{}", io::Error::last_os_error());
            guard.clear_ready();
            let again = rt::time::timeout(Duration::from_millis(50), fd.ready(interest)).await;
            assert!(again.is_err(), "ready again with no new error");
            // A second unanswered datagram: a second error, a second wake.
            fd.get_ref().send_to(b"still nobody?", closed).unwrap();
            let guard = fd.ready(interest).await.unwrap();
            assert!(guard.ready().is_error());
        });
    });
}

/// `Interest::PRIORITY`: TCP's urgent byte (`send` with `MSG_OOB`) is
/// priority data; an `AsyncFd` over the receiving stream, registered for
/// priority alone, wakes with `is_priority()`, and the byte reads back
/// with `MSG_OOB`.
#[test]
fn async_fd_wakes_for_priority_data() {
    use std::os::fd::AsRawFd;
    limit("Interest::PRIORITY", || {
        shim::runtime().block_on(async {
            let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
            let sender = std::net::TcpStream::connect(listener.local_addr().unwrap()).unwrap();
            let (receiver, _) = listener.accept().unwrap();
            receiver.set_nonblocking(true).unwrap();
            let interest = rt::io::Interest::PRIORITY;
            assert!(interest.is_priority() && !interest.is_readable());
            assert_eq!(
                format!("{:?}", rt::io::Interest::READABLE | interest),
                "READABLE | PRIORITY"
            );
            // SAFETY: the AsyncFd owns the stream, which stays open and the
            // same while it does.
            let fd = unsafe { rt::io::unix::AsyncFd::register_with_interest(receiver, interest) }
                .unwrap();
            let (urgent, fd_out) = (b"!".as_ptr().cast(), sender.as_raw_fd());
            // SAFETY: an open descriptor and one byte to send.
            let sent = unsafe { libc::send(fd_out, urgent, 1, libc::MSG_OOB) };
            assert_eq!(sent, 1, "{}", io::Error::last_os_error());
            let guard = fd.ready(interest).await.unwrap();
            assert!(guard.ready().is_priority(), "{:?}", guard.ready());
            assert!(rt::io::Ready::ALL.is_priority());
            let mut byte = [0u8; 1];
            // SAFETY: an open descriptor and a buffer of the length given.
            let read = unsafe {
                libc::recv(
                    fd.as_raw_fd(),
                    byte.as_mut_ptr().cast(),
                    1,
                    libc::MSG_OOB | libc::MSG_DONTWAIT,
                )
            };
            assert_eq!((read, byte), (1, *b"!"));
        });
    });
}
