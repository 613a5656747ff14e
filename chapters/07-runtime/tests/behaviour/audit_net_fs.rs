//! Sockets and files, as Tokio documents them (second audit).
//!
//! Covers `tokio::net` (`TcpStream` and its halves, `TcpListener`,
//! `TcpSocket`, `UdpSocket`, `UnixStream`, `UnixListener`, `UnixDatagram`,
//! `lookup_host`, `ToSocketAddrs`) and `tokio::fs` (`File`, `OpenOptions`,
//! `DirBuilder`, `read_dir`, the whole-file functions, links, permissions):
//! shutdowns and EOF, `try_*` and `ready`, options, std conversions, and
//! the `io::Error` kinds of failures. Each test is written from Tokio
//! 1.54's documentation and was first made to pass against Tokio, which
//! compiles this same file in `behaviour_tokio.rs`: a failure in the Tokio
//! build is a wrong test, one in the rt build a place where rt departs
//! from Tokio. File tests work in a [`Scratch`] directory each.

use crate::behaviour::{Scratch, SocketDir, limit, tcp_pair};
use crate::{rt, shim};
use rt::fs::{self, File, OpenOptions};
use rt::io::{AsyncReadExt, AsyncSeekExt, AsyncWriteExt, Interest};
use rt::net::{TcpListener, TcpSocket, TcpStream, UdpSocket, UnixListener, UnixStream};
use std::io::{ErrorKind, SeekFrom};
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::time::Duration;

const PATIENCE: Duration = Duration::from_secs(5);

/// Waits for `stream` to be readable and `try_read`s into `buf`, again
/// after each `WouldBlock` (a readiness may be spurious), within
/// [`PATIENCE`]; the count read, 0 at end of stream. A macro, for TCP and
/// Unix streams alike.
macro_rules! try_read_when_readable {
    ($stream:expr, $buf:expr) => {
        rt::time::timeout(PATIENCE, async {
            loop {
                $stream.readable().await.unwrap();
                match $stream.try_read(&mut $buf) {
                    Ok(n) => return n,
                    Err(e) if e.kind() == ErrorKind::WouldBlock => continue,
                    Err(e) => panic!("{e}"),
                }
            }
        })
        .await
        .unwrap()
    };
}

/// Reads until end of stream, within [`PATIENCE`].
async fn read_all<R: rt::io::AsyncRead + Unpin>(reader: &mut R) -> Vec<u8> {
    let mut all = Vec::new();
    rt::time::timeout(PATIENCE, reader.read_to_end(&mut all))
        .await
        .expect("no end of stream")
        .unwrap();
    all
}

// ---------------------------------------------------------------- TCP

#[test]
fn tcp_shutdown_gives_the_peer_eof_and_keeps_the_read_direction() {
    limit("tcp shutdown half-close", || {
        shim::runtime().block_on(async {
            let (mut client, mut server) = tcp_pair().await;
            client.write_all(b"request").await.unwrap();
            client.shutdown().await.unwrap();
            assert_eq!(read_all(&mut server).await, b"request");
            // The client still reads what the server answers.
            server.write_all(b"answer").await.unwrap();
            drop(server);
            assert_eq!(read_all(&mut client).await, b"answer");
        });
    });
}

#[test]
fn tcp_dropping_the_owned_write_half_shuts_down_writing() {
    limit("tcp owned write half drop", || {
        shim::runtime().block_on(async {
            let (client, mut server) = tcp_pair().await;
            let (mut read, mut write) = client.into_split();
            write.write_all(b"bye").await.unwrap();
            drop(write);
            assert_eq!(read_all(&mut server).await, b"bye");
            // The read half still works.
            server.write_all(b"still here").await.unwrap();
            let mut buf = [0u8; 10];
            rt::time::timeout(PATIENCE, read.read_exact(&mut buf))
                .await
                .unwrap()
                .unwrap();
            assert_eq!(&buf, b"still here");
        });
    });
}

#[test]
fn tcp_reunite_keeps_the_stream_open_and_refuses_strangers() {
    limit("tcp reunite", || {
        shim::runtime().block_on(async {
            let (a, mut a_peer) = tcp_pair().await;
            let (b, _b_peer) = tcp_pair().await;
            let (a_read, a_write) = a.into_split();
            let (b_read, b_write) = b.into_split();
            let err = a_read.reunite(b_write).unwrap_err();
            let (a_read, b_write) = (err.0, err.1);
            let mut a = a_read.reunite(a_write).unwrap();
            let _b = b_write.reunite(b_read).unwrap();
            a.write_all(b"whole").await.unwrap();
            let mut buf = [0u8; 5];
            rt::time::timeout(PATIENCE, a_peer.read_exact(&mut buf))
                .await
                .unwrap()
                .unwrap();
            assert_eq!(&buf, b"whole");
        });
    });
}

#[test]
fn tcp_peek_leaves_the_bytes_for_read() {
    limit("tcp peek", || {
        shim::runtime().block_on(async {
            let (mut client, mut server) = tcp_pair().await;
            client.write_all(b"hello").await.unwrap();
            let mut peeked = [0u8; 5];
            let mut n = 0;
            while n < 5 {
                n = rt::time::timeout(PATIENCE, server.peek(&mut peeked))
                    .await
                    .unwrap()
                    .unwrap();
            }
            assert_eq!(&peeked, b"hello");
            let mut buf = [0u8; 5];
            server.read_exact(&mut buf).await.unwrap();
            assert_eq!(&buf, b"hello");
        });
    });
}

#[test]
fn tcp_try_read_would_block_then_reads_then_sees_eof() {
    limit("tcp try_read", || {
        shim::runtime().block_on(async {
            let (client, server) = tcp_pair().await;
            let mut buf = [0u8; 16];
            assert_eq!(
                server.try_read(&mut buf).unwrap_err().kind(),
                ErrorKind::WouldBlock
            );
            client.writable().await.unwrap();
            assert_eq!(client.try_write(b"abc").unwrap(), 3);
            let got = try_read_when_readable!(server, buf);
            assert_eq!(&buf[..got], b"abc");
            drop(client);
            let eof = try_read_when_readable!(server, buf);
            assert_eq!(eof, 0);
        });
    });
}

#[test]
fn tcp_try_vectored_and_try_read_buf() {
    limit("tcp vectored", || {
        shim::runtime().block_on(async {
            let (client, server) = tcp_pair().await;
            client.writable().await.unwrap();
            let n = client
                .try_write_vectored(&[std::io::IoSlice::new(b"ab"), std::io::IoSlice::new(b"cd")])
                .unwrap();
            assert_eq!(n, 4);
            let mut first = [0u8; 1];
            let mut second = [0u8; 1];
            let got = rt::time::timeout(PATIENCE, async {
                loop {
                    server.readable().await.unwrap();
                    let mut bufs = [
                        std::io::IoSliceMut::new(&mut first),
                        std::io::IoSliceMut::new(&mut second),
                    ];
                    match server.try_read_vectored(&mut bufs) {
                        Ok(n) => return n,
                        Err(e) if e.kind() == ErrorKind::WouldBlock => continue,
                        Err(e) => panic!("{e}"),
                    }
                }
            })
            .await
            .unwrap();
            assert_eq!(got, 2);
            assert_eq!((&first, &second), (b"a", b"b"));
            let mut rest = Vec::with_capacity(8);
            let n = server.try_read_buf(&mut rest).unwrap();
            assert_eq!(n, 2);
            assert_eq!(rest, b"cd");
        });
    });
}

#[test]
fn tcp_ready_reports_writable_on_a_fresh_stream() {
    limit("tcp ready", || {
        shim::runtime().block_on(async {
            let (client, _server) = tcp_pair().await;
            let ready = rt::time::timeout(
                PATIENCE,
                client.ready(Interest::READABLE | Interest::WRITABLE),
            )
            .await
            .unwrap()
            .unwrap();
            assert!(ready.is_writable());
            assert!(!ready.is_read_closed());
        });
    });
}

#[test]
fn tcp_binding_a_port_in_use_is_addr_in_use() {
    limit("tcp addr in use", || {
        shim::runtime().block_on(async {
            let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
            let addr = listener.local_addr().unwrap();
            let err = TcpListener::bind(addr).await.unwrap_err();
            assert_eq!(err.kind(), ErrorKind::AddrInUse);
        });
    });
}

#[test]
fn tcp_socket_options_round_trip() {
    limit("tcp options", || {
        shim::runtime().block_on(async {
            let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
            listener.set_ttl(42).unwrap();
            assert_eq!(listener.ttl().unwrap(), 42);
            let (client, _server) = tcp_pair().await;
            client.set_nodelay(true).unwrap();
            assert!(client.nodelay().unwrap());
            client.set_nodelay(false).unwrap();
            assert!(!client.nodelay().unwrap());
            client.set_ttl(17).unwrap();
            assert_eq!(client.ttl().unwrap(), 17);
            #[allow(deprecated)]
            {
                client.set_linger(Some(Duration::from_secs(3))).unwrap();
                assert_eq!(client.linger().unwrap(), Some(Duration::from_secs(3)));
                client.set_linger(None).unwrap();
                assert_eq!(client.linger().unwrap(), None);
            }
        });
    });
}

#[test]
fn tcp_into_std_is_non_blocking_and_from_std_works() {
    limit("tcp into_std", || {
        shim::runtime().block_on(async {
            let (client, mut server) = tcp_pair().await;
            let mut std_client = client.into_std().unwrap();
            let mut buf = [0u8; 4];
            let err = std::io::Read::read(&mut std_client, &mut buf).unwrap_err();
            assert_eq!(err.kind(), ErrorKind::WouldBlock);
            let mut client = TcpStream::from_std(std_client).unwrap();
            server.write_all(b"back").await.unwrap();
            rt::time::timeout(PATIENCE, client.read_exact(&mut buf))
                .await
                .unwrap()
                .unwrap();
            assert_eq!(&buf, b"back");

            let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
            let addr = listener.local_addr().unwrap();
            let std_listener = listener.into_std().unwrap();
            assert_eq!(
                std_listener.accept().unwrap_err().kind(),
                ErrorKind::WouldBlock
            );
            let listener = TcpListener::from_std(std_listener).unwrap();
            assert_eq!(listener.local_addr().unwrap(), addr);
            let (accepted, connected) = futures::join!(listener.accept(), TcpStream::connect(addr));
            let (accepted, peer) = accepted.unwrap();
            let connected = connected.unwrap();
            assert_eq!(peer, connected.local_addr().unwrap());
            assert_eq!(
                accepted.peer_addr().unwrap(),
                connected.local_addr().unwrap()
            );
        });
    });
}

#[test]
fn tcp_connect_to_localhost_by_name_reaches_an_ipv4_listener() {
    limit("tcp localhost", || {
        shim::runtime().block_on(async {
            let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
            let port = listener.local_addr().unwrap().port();
            let (connected, accepted) = futures::join!(
                rt::time::timeout(PATIENCE, TcpStream::connect(format!("localhost:{port}"))),
                listener.accept()
            );
            let stream = connected.unwrap().unwrap();
            assert_eq!(stream.peer_addr().unwrap().port(), port);
            accepted.unwrap();
            let pair = ("localhost", port);
            let (connected, accepted) = futures::join!(TcpStream::connect(pair), listener.accept());
            connected.unwrap();
            accepted.unwrap();
        });
    });
}

#[test]
fn to_socket_addrs_forms_are_accepted() {
    limit("to socket addrs forms", || {
        shim::runtime().block_on(async {
            let a = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).await.unwrap();
            let b = TcpListener::bind((IpAddr::V4(Ipv4Addr::LOCALHOST), 0))
                .await
                .unwrap();
            let c = TcpListener::bind(SocketAddr::from(([127, 0, 0, 1], 0)))
                .await
                .unwrap();
            let d = TcpListener::bind(String::from("127.0.0.1:0"))
                .await
                .unwrap();
            let e = TcpListener::bind(("127.0.0.1", 0)).await.unwrap();
            let f = TcpListener::bind((String::from("127.0.0.1"), 0u16))
                .await
                .unwrap();
            let taken = a.local_addr().unwrap();
            let free: SocketAddr = "127.0.0.1:0".parse().unwrap();
            let g = TcpListener::bind(&[taken, free][..]).await.unwrap();
            assert_ne!(g.local_addr().unwrap(), taken);
            for l in [&a, &b, &c, &d, &e, &f, &g] {
                assert!(l.local_addr().unwrap().ip().is_loopback());
            }
        });
    });
}

#[test]
fn lookup_host_resolves_and_rejects_a_missing_port() {
    limit("lookup_host", || {
        shim::runtime().block_on(async {
            let addrs: Vec<SocketAddr> = rt::net::lookup_host("localhost:4242")
                .await
                .unwrap()
                .collect();
            assert!(!addrs.is_empty());
            assert!(
                addrs
                    .iter()
                    .all(|a| a.port() == 4242 && a.ip().is_loopback())
            );
            let literal: Vec<SocketAddr> =
                rt::net::lookup_host("127.0.0.1:9").await.unwrap().collect();
            assert_eq!(literal, vec!["127.0.0.1:9".parse::<SocketAddr>().unwrap()]);
            let err = match rt::net::lookup_host("localhost").await {
                Ok(_) => panic!("a host without a port resolved"),
                Err(err) => err,
            };
            assert_eq!(err.kind(), ErrorKind::InvalidInput);
        });
    });
}

#[test]
fn tcp_socket_binds_listens_and_connects() {
    limit("tcp socket", || {
        shim::runtime().block_on(async {
            let socket = TcpSocket::new_v4().unwrap();
            socket.set_reuseaddr(true).unwrap();
            assert!(socket.reuseaddr().unwrap());
            socket.set_reuseport(true).unwrap();
            assert!(socket.reuseport().unwrap());
            socket.set_send_buffer_size(64 * 1024).unwrap();
            assert!(socket.send_buffer_size().unwrap() >= 64 * 1024);
            socket.set_recv_buffer_size(64 * 1024).unwrap();
            assert!(socket.recv_buffer_size().unwrap() >= 64 * 1024);
            socket.bind("127.0.0.1:0".parse().unwrap()).unwrap();
            let addr = socket.local_addr().unwrap();
            assert_ne!(addr.port(), 0);
            let listener = socket.listen(16).unwrap();
            assert_eq!(listener.local_addr().unwrap(), addr);
            let client = TcpSocket::new_v4().unwrap();
            let (connected, accepted) = futures::join!(client.connect(addr), listener.accept());
            let mut connected = connected.unwrap();
            let (mut accepted, _) = accepted.unwrap();
            connected.write_all(b"x").await.unwrap();
            let mut one = [0u8; 1];
            accepted.read_exact(&mut one).await.unwrap();
            assert_eq!(&one, b"x");
        });
    });
}

#[test]
fn tcp_socket_connect_to_a_closed_port_is_refused() {
    limit("tcp socket refused", || {
        shim::runtime().block_on(async {
            let addr = {
                let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
                l.local_addr().unwrap()
            };
            let socket = TcpSocket::new_v4().unwrap();
            let err = rt::time::timeout(PATIENCE, socket.connect(addr))
                .await
                .unwrap()
                .unwrap_err();
            assert_eq!(err.kind(), ErrorKind::ConnectionRefused);
        });
    });
}

// ---------------------------------------------------------------- UDP

async fn udp_bound() -> UdpSocket {
    UdpSocket::bind("127.0.0.1:0").await.unwrap()
}

#[test]
fn udp_recv_into_a_small_buffer_truncates_and_drops_the_rest() {
    limit("udp truncation", || {
        shim::runtime().block_on(async {
            let a = udp_bound().await;
            let b = udp_bound().await;
            let b_addr = b.local_addr().unwrap();
            a.send_to(b"0123456789", b_addr).await.unwrap();
            a.send_to(b"next", b_addr).await.unwrap();
            let mut small = [0u8; 4];
            let (n, from) = rt::time::timeout(PATIENCE, b.recv_from(&mut small))
                .await
                .unwrap()
                .unwrap();
            assert_eq!(n, 4);
            assert_eq!(&small, b"0123");
            assert_eq!(from, a.local_addr().unwrap());
            let mut big = [0u8; 32];
            let (n, _) = rt::time::timeout(PATIENCE, b.recv_from(&mut big))
                .await
                .unwrap()
                .unwrap();
            assert_eq!(&big[..n], b"next");
        });
    });
}

#[test]
fn udp_an_empty_datagram_is_received_as_zero_bytes() {
    limit("udp empty datagram", || {
        shim::runtime().block_on(async {
            let a = udp_bound().await;
            let b = udp_bound().await;
            a.connect(b.local_addr().unwrap()).await.unwrap();
            b.connect(a.local_addr().unwrap()).await.unwrap();
            assert_eq!(a.send(b"").await.unwrap(), 0);
            a.send(b"after").await.unwrap();
            let mut buf = [0u8; 8];
            let n = rt::time::timeout(PATIENCE, b.recv(&mut buf))
                .await
                .unwrap()
                .unwrap();
            assert_eq!(n, 0);
            let n = rt::time::timeout(PATIENCE, b.recv(&mut buf))
                .await
                .unwrap()
                .unwrap();
            assert_eq!(&buf[..n], b"after");
        });
    });
}

#[test]
fn udp_unconnected_send_and_peer_addr_fail() {
    limit("udp unconnected", || {
        shim::runtime().block_on(async {
            let a = udp_bound().await;
            assert!(
                rt::time::timeout(PATIENCE, a.send(b"nowhere"))
                    .await
                    .unwrap()
                    .is_err()
            );
            assert!(a.try_send(b"nowhere").is_err());
            assert_eq!(a.peer_addr().unwrap_err().kind(), ErrorKind::NotConnected);
            let mut buf = [0u8; 4];
            assert_eq!(
                a.try_recv(&mut buf).unwrap_err().kind(),
                ErrorKind::WouldBlock
            );
            assert_eq!(
                a.try_recv_from(&mut buf).unwrap_err().kind(),
                ErrorKind::WouldBlock
            );
        });
    });
}

#[test]
fn udp_connected_socket_only_hears_its_peer() {
    limit("udp connected filter", || {
        shim::runtime().block_on(async {
            let receiver = udp_bound().await;
            let friend = udp_bound().await;
            let stranger = udp_bound().await;
            let to = receiver.local_addr().unwrap();
            receiver
                .connect(friend.local_addr().unwrap())
                .await
                .unwrap();
            assert_eq!(receiver.peer_addr().unwrap(), friend.local_addr().unwrap());
            stranger.send_to(b"stranger", to).await.unwrap();
            friend.send_to(b"friend", to).await.unwrap();
            let mut buf = [0u8; 16];
            let n = rt::time::timeout(PATIENCE, receiver.recv(&mut buf))
                .await
                .unwrap()
                .unwrap();
            assert_eq!(&buf[..n], b"friend");
        });
    });
}

#[test]
fn udp_peek_from_leaves_the_datagram() {
    limit("udp peek_from", || {
        shim::runtime().block_on(async {
            let a = udp_bound().await;
            let b = udp_bound().await;
            a.send_to(b"peekaboo", b.local_addr().unwrap())
                .await
                .unwrap();
            let mut buf = [0u8; 4];
            let (n, from) = rt::time::timeout(PATIENCE, b.peek_from(&mut buf))
                .await
                .unwrap()
                .unwrap();
            assert_eq!((n, &buf), (4, b"peek"));
            assert_eq!(from, a.local_addr().unwrap());
            assert_eq!(b.peek_sender().await.unwrap(), from);
            let mut whole = [0u8; 16];
            let (n, from2) = b.recv_from(&mut whole).await.unwrap();
            assert_eq!(&whole[..n], b"peekaboo");
            assert_eq!(from2, from);
            assert_eq!(
                b.try_recv(&mut whole).unwrap_err().kind(),
                ErrorKind::WouldBlock
            );
        });
    });
}

#[test]
fn udp_option_setters_round_trip() {
    limit("udp options", || {
        shim::runtime().block_on(async {
            let s = UdpSocket::bind("0.0.0.0:0").await.unwrap();
            s.set_broadcast(true).unwrap();
            assert!(s.broadcast().unwrap());
            s.set_broadcast(false).unwrap();
            assert!(!s.broadcast().unwrap());
            s.set_ttl(9).unwrap();
            assert_eq!(s.ttl().unwrap(), 9);
            s.set_multicast_loop_v4(false).unwrap();
            assert!(!s.multicast_loop_v4().unwrap());
            s.set_multicast_ttl_v4(5).unwrap();
            assert_eq!(s.multicast_ttl_v4().unwrap(), 5);
        });
    });
}

#[test]
fn udp_into_std_and_back() {
    limit("udp std", || {
        shim::runtime().block_on(async {
            let a = udp_bound().await;
            let addr = a.local_addr().unwrap();
            let std_a = a.into_std().unwrap();
            let mut buf = [0u8; 4];
            assert_eq!(
                std_a.recv(&mut buf).unwrap_err().kind(),
                ErrorKind::WouldBlock
            );
            let a = UdpSocket::from_std(std_a).unwrap();
            assert_eq!(a.local_addr().unwrap(), addr);
            let b = udp_bound().await;
            b.send_to(b"ok", addr).await.unwrap();
            let (n, _) = rt::time::timeout(PATIENCE, a.recv_from(&mut buf))
                .await
                .unwrap()
                .unwrap();
            assert_eq!(&buf[..n], b"ok");
        });
    });
}

// ---------------------------------------------------------------- Unix

#[test]
fn unix_connect_to_a_missing_path_is_not_found() {
    limit("unix missing", || {
        let dir = SocketDir::new("audit-missing");
        let path = dir.join("nobody");
        shim::runtime().block_on(async move {
            let err = UnixStream::connect(&path).await.unwrap_err();
            assert_eq!(err.kind(), ErrorKind::NotFound);
        });
    });
}

#[test]
fn unix_addresses_of_pairs_and_listeners() {
    limit("unix addrs", || {
        let dir = SocketDir::new("audit-addrs");
        let path = dir.join("sock");
        shim::runtime().block_on(async move {
            let (a, _b) = UnixStream::pair().unwrap();
            assert!(a.peer_addr().unwrap().is_unnamed());
            assert!(a.local_addr().unwrap().as_pathname().is_none());
            let listener = UnixListener::bind(&path).unwrap();
            assert_eq!(listener.local_addr().unwrap().as_pathname(), Some(&*path));
            let err = UnixListener::bind(&path).unwrap_err();
            assert_eq!(err.kind(), ErrorKind::AddrInUse);
            let (client, accepted) = futures::join!(UnixStream::connect(&path), listener.accept());
            let client = client.unwrap();
            let (server, peer) = accepted.unwrap();
            assert!(peer.is_unnamed());
            assert_eq!(client.peer_addr().unwrap().as_pathname(), Some(&*path));
            assert_eq!(server.local_addr().unwrap().as_pathname(), Some(&*path));
        });
    });
}

#[test]
fn unix_shutdown_and_owned_write_half_drop_give_eof() {
    limit("unix half close", || {
        shim::runtime().block_on(async {
            let (mut a, mut b) = UnixStream::pair().unwrap();
            a.write_all(b"one").await.unwrap();
            a.shutdown().await.unwrap();
            assert_eq!(read_all(&mut b).await, b"one");
            b.write_all(b"reply").await.unwrap();
            let mut buf = [0u8; 5];
            rt::time::timeout(PATIENCE, a.read_exact(&mut buf))
                .await
                .unwrap()
                .unwrap();
            assert_eq!(&buf, b"reply");

            let (c, mut d) = UnixStream::pair().unwrap();
            let (_c_read, mut c_write) = c.into_split();
            c_write.write_all(b"two").await.unwrap();
            drop(c_write);
            assert_eq!(read_all(&mut d).await, b"two");
        });
    });
}

// ---------------------------------------------------------------- fs

#[test]
fn fs_open_options_append_truncate_and_create_new() {
    limit("fs open options", || {
        let s = Scratch::new("audit-netfs", "options");
        let path = s.join("f");
        shim::runtime().block_on(async move {
            fs::write(&path, b"start").await.unwrap();
            let mut f = OpenOptions::new().append(true).open(&path).await.unwrap();
            f.write_all(b"+more").await.unwrap();
            f.flush().await.unwrap();
            drop(f);
            assert_eq!(fs::read(&path).await.unwrap(), b"start+more");
            let err = OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&path)
                .await
                .unwrap_err();
            assert_eq!(err.kind(), ErrorKind::AlreadyExists);
            assert_eq!(
                File::create_new(&path).await.unwrap_err().kind(),
                ErrorKind::AlreadyExists
            );
            let f = File::options()
                .write(true)
                .truncate(true)
                .open(&path)
                .await
                .unwrap();
            assert_eq!(f.metadata().await.unwrap().len(), 0);
            let err = OpenOptions::new()
                .write(true)
                .open(s.join("absent"))
                .await
                .unwrap_err();
            assert_eq!(err.kind(), ErrorKind::NotFound);
        });
    });
}

#[test]
fn fs_file_seek_from_end_and_current_and_before_start() {
    limit("fs seek forms", || {
        let s = Scratch::new("audit-netfs", "seek-forms");
        let path = s.join("f");
        shim::runtime().block_on(async move {
            fs::write(&path, b"0123456789").await.unwrap();
            let mut f = File::open(&path).await.unwrap();
            assert_eq!(f.seek(SeekFrom::End(-3)).await.unwrap(), 7);
            let mut one = [0u8; 1];
            f.read_exact(&mut one).await.unwrap();
            assert_eq!(&one, b"7");
            assert_eq!(f.seek(SeekFrom::Current(-5)).await.unwrap(), 3);
            f.read_exact(&mut one).await.unwrap();
            assert_eq!(&one, b"3");
            let err = f.seek(SeekFrom::Current(-100)).await.unwrap_err();
            assert_eq!(err.kind(), ErrorKind::InvalidInput);
            let mut rest = Vec::new();
            f.read_to_end(&mut rest).await.unwrap();
            assert_eq!(rest, b"456789");
        });
    });
}

#[test]
fn fs_into_std_waits_for_the_write_in_flight() {
    limit("fs into_std", || {
        let s = Scratch::new("audit-netfs", "into-std");
        let path = s.join("f");
        shim::runtime().block_on(async move {
            let mut f = File::create(&path).await.unwrap();
            f.write_all(b"written before into_std").await.unwrap();
            let mut std_file = f.into_std().await;
            std::io::Write::write_all(&mut std_file, b"!").unwrap();
            drop(std_file);
            assert_eq!(std::fs::read(&path).unwrap(), b"written before into_std!");
            let f = File::open(&path).await.unwrap();
            let std_file = f.try_into_std().expect("an idle file converts");
            let mut f = File::from_std(std_file);
            let mut text = String::new();
            f.read_to_string(&mut text).await.unwrap();
            assert_eq!(text, "written before into_std!");
        });
    });
}

#[test]
fn fs_file_set_len_sync_and_metadata() {
    limit("fs set_len", || {
        let s = Scratch::new("audit-netfs", "set-len");
        let path = s.join("f");
        shim::runtime().block_on(async move {
            let mut f = File::create(&path).await.unwrap();
            f.write_all(b"0123456789").await.unwrap();
            f.flush().await.unwrap();
            f.sync_all().await.unwrap();
            assert_eq!(f.metadata().await.unwrap().len(), 10);
            f.set_len(4).await.unwrap();
            f.sync_data().await.unwrap();
            assert_eq!(f.metadata().await.unwrap().len(), 4);
            assert!(f.metadata().await.unwrap().is_file());
            drop(f);
            assert_eq!(fs::read(&path).await.unwrap(), b"0123");
        });
    });
}

#[test]
fn fs_write_then_read_on_the_same_file_sees_the_write() {
    limit("fs write then read", || {
        let s = Scratch::new("audit-netfs", "write-read");
        let path = s.join("f");
        shim::runtime().block_on(async move {
            let mut f = OpenOptions::new()
                .read(true)
                .write(true)
                .create(true)
                .truncate(true)
                .open(&path)
                .await
                .unwrap();
            f.write_all(b"abc").await.unwrap();
            // At the end of the file: a read after the write sees no more.
            let mut buf = [0u8; 8];
            assert_eq!(f.read(&mut buf).await.unwrap(), 0);
            f.write_all(b"def").await.unwrap();
            f.flush().await.unwrap();
            assert_eq!(std::fs::read(&path).unwrap(), b"abcdef");
        });
    });
}

#[test]
fn fs_directory_operations_and_their_errors() {
    limit("fs dirs", || {
        let s = Scratch::new("audit-netfs", "dirs");
        let root = s.path().to_path_buf();
        shim::runtime().block_on(async move {
            let a = root.join("a");
            fs::create_dir(&a).await.unwrap();
            assert_eq!(
                fs::create_dir(&a).await.unwrap_err().kind(),
                ErrorKind::AlreadyExists
            );
            fs::create_dir_all(&a).await.unwrap();
            fs::create_dir_all(a.join("b/c")).await.unwrap();
            fs::write(a.join("b/c/f"), b"x").await.unwrap();
            assert_eq!(
                fs::remove_dir(&a).await.unwrap_err().kind(),
                ErrorKind::DirectoryNotEmpty
            );
            assert_eq!(
                fs::create_dir(root.join("no/such"))
                    .await
                    .unwrap_err()
                    .kind(),
                ErrorKind::NotFound
            );
            assert_eq!(
                fs::remove_file(root.join("nope")).await.unwrap_err().kind(),
                ErrorKind::NotFound
            );
            fs::remove_dir_all(&a).await.unwrap();
            assert!(!fs::try_exists(&a).await.unwrap());
            fs::create_dir(&a).await.unwrap();
            fs::remove_dir(&a).await.unwrap();
            assert!(!fs::try_exists(&a).await.unwrap());
        });
    });
}

#[test]
fn fs_rename_copy_and_hard_link() {
    limit("fs rename copy link", || {
        let s = Scratch::new("audit-netfs", "rename");
        let root = s.path().to_path_buf();
        shim::runtime().block_on(async move {
            let a = root.join("a");
            let b = root.join("b");
            fs::write(&a, b"first").await.unwrap();
            fs::write(&b, b"second, longer").await.unwrap();
            fs::rename(&a, &b).await.unwrap();
            assert_eq!(fs::read(&b).await.unwrap(), b"first");
            assert!(!fs::try_exists(&a).await.unwrap());
            assert_eq!(
                fs::rename(&a, &b).await.unwrap_err().kind(),
                ErrorKind::NotFound
            );
            let c = root.join("c");
            assert_eq!(fs::copy(&b, &c).await.unwrap(), 5);
            assert_eq!(fs::read_to_string(&c).await.unwrap(), "first");
            let d = root.join("d");
            fs::hard_link(&c, &d).await.unwrap();
            {
                use std::os::unix::fs::MetadataExt;
                assert_eq!(fs::metadata(&d).await.unwrap().nlink(), 2);
            }
            assert_eq!(
                fs::hard_link(&c, &d).await.unwrap_err().kind(),
                ErrorKind::AlreadyExists
            );
            // fs::write replaces a longer file entirely.
            fs::write(&d, b"x").await.unwrap();
            assert_eq!(fs::read(&c).await.unwrap(), b"x");
        });
    });
}

#[test]
fn fs_symlinks_metadata_canonicalize_and_read_link() {
    limit("fs symlinks", || {
        let s = Scratch::new("audit-netfs", "symlinks");
        let root = s.path().to_path_buf();
        shim::runtime().block_on(async move {
            let target = root.join("target");
            let link = root.join("link");
            fs::write(&target, b"12345").await.unwrap();
            fs::symlink(&target, &link).await.unwrap();
            assert_eq!(fs::read_link(&link).await.unwrap(), target);
            assert!(fs::metadata(&link).await.unwrap().is_file());
            assert_eq!(fs::metadata(&link).await.unwrap().len(), 5);
            assert!(
                fs::symlink_metadata(&link)
                    .await
                    .unwrap()
                    .file_type()
                    .is_symlink()
            );
            let canonical = fs::canonicalize(root.join("./sub/../link").as_path())
                .await
                .map(Some)
                .or_else(|e| {
                    // "sub" does not exist: canonicalize reports NotFound.
                    assert_eq!(e.kind(), ErrorKind::NotFound);
                    Ok::<_, std::io::Error>(None)
                })
                .unwrap();
            assert!(canonical.is_none());
            let canonical = fs::canonicalize(&link).await.unwrap();
            assert_eq!(canonical, std::fs::canonicalize(&target).unwrap());
            assert_eq!(
                fs::read_link(&target).await.unwrap_err().kind(),
                ErrorKind::InvalidInput
            );
            let dangling = root.join("dangling");
            fs::symlink(root.join("missing"), &dangling).await.unwrap();
            assert!(!fs::try_exists(&dangling).await.unwrap());
            assert_eq!(
                fs::metadata(&dangling).await.unwrap_err().kind(),
                ErrorKind::NotFound
            );
        });
    });
}

#[test]
fn fs_read_dir_entries_describe_themselves_without_following_links() {
    limit("fs read_dir entries", || {
        let s = Scratch::new("audit-netfs", "read-dir");
        let root = s.path().to_path_buf();
        shim::runtime().block_on(async move {
            fs::write(root.join("file"), b"abc").await.unwrap();
            fs::create_dir(root.join("dir")).await.unwrap();
            fs::symlink(root.join("file"), root.join("link"))
                .await
                .unwrap();
            let mut entries = fs::read_dir(&root).await.unwrap();
            let mut seen = Vec::new();
            while let Some(entry) = entries.next_entry().await.unwrap() {
                let name = entry.file_name().into_string().unwrap();
                assert_eq!(entry.path(), root.join(&name));
                let ft = entry.file_type().await.unwrap();
                let md = entry.metadata().await.unwrap();
                match name.as_str() {
                    "file" => {
                        assert!(ft.is_file());
                        assert_eq!(md.len(), 3);
                    }
                    "dir" => assert!(ft.is_dir() && md.is_dir()),
                    "link" => {
                        assert!(ft.is_symlink());
                        assert!(md.file_type().is_symlink());
                    }
                    other => panic!("unexpected entry {other}"),
                }
                seen.push(name);
            }
            seen.sort();
            assert_eq!(seen, ["dir", "file", "link"]);
            assert!(entries.next_entry().await.unwrap().is_none());
            assert_eq!(
                fs::read_dir(root.join("file")).await.unwrap_err().kind(),
                ErrorKind::NotADirectory
            );
        });
    });
}

#[test]
fn fs_set_permissions_read_only_and_read_errors() {
    limit("fs permissions", || {
        let s = Scratch::new("audit-netfs", "perms");
        let root = s.path().to_path_buf();
        shim::runtime().block_on(async move {
            use std::os::unix::fs::PermissionsExt;
            let path = root.join("f");
            fs::write(&path, b"data").await.unwrap();
            fs::set_permissions(&path, std::fs::Permissions::from_mode(0o400))
                .await
                .unwrap();
            let perms = fs::metadata(&path).await.unwrap().permissions();
            assert_eq!(perms.mode() & 0o777, 0o400);
            assert!(perms.readonly());
            let f = File::open(&path).await.unwrap();
            f.set_permissions(std::fs::Permissions::from_mode(0o640))
                .await
                .unwrap();
            assert_eq!(
                fs::metadata(&path).await.unwrap().permissions().mode() & 0o777,
                0o640
            );
            assert_eq!(
                fs::read(&root).await.unwrap_err().kind(),
                ErrorKind::IsADirectory
            );
            let mut dir = File::open(&root).await.unwrap();
            let mut buf = Vec::new();
            assert_eq!(
                dir.read_to_end(&mut buf).await.unwrap_err().kind(),
                ErrorKind::IsADirectory
            );
        });
    });
}

// ---------------------------------------------------------------- more edges

#[test]
fn tcp_dropping_a_borrowed_write_half_does_not_shut_down() {
    limit("tcp borrowed write half drop", || {
        shim::runtime().block_on(async {
            let (mut client, mut server) = tcp_pair().await;
            {
                let (_read, mut write) = client.split();
                write.write_all(b"in half ").await.unwrap();
            }
            // Still open for writing: the peer sees both writes, then EOF
            // only when the stream itself is shut down.
            client.write_all(b"and whole").await.unwrap();
            client.shutdown().await.unwrap();
            assert_eq!(read_all(&mut server).await, b"in half and whole");
        });
    });
}

#[test]
fn tcp_forgotten_write_half_closes_with_the_read_half() {
    limit("tcp forget", || {
        shim::runtime().block_on(async {
            let (client, mut server) = tcp_pair().await;
            let (read, mut write) = client.into_split();
            write.write_all(b"kept").await.unwrap();
            write.forget();
            drop(read);
            assert_eq!(read_all(&mut server).await, b"kept");
        });
    });
}

#[test]
fn tcp_ready_after_the_peer_shuts_down_is_read_closed() {
    limit("tcp read closed", || {
        shim::runtime().block_on(async {
            let (mut client, server) = tcp_pair().await;
            client.shutdown().await.unwrap();
            let ready = rt::time::timeout(PATIENCE, async {
                loop {
                    let ready = server.ready(Interest::READABLE).await.unwrap();
                    if ready.is_read_closed() {
                        return ready;
                    }
                    rt::task::yield_now().await;
                }
            })
            .await
            .expect("read-closed never reported");
            assert!(ready.is_readable());
            let mut buf = [0u8; 4];
            assert_eq!(server.try_read(&mut buf).unwrap(), 0);
        });
    });
}

#[test]
fn tcp_writing_after_shutdown_is_broken_pipe() {
    limit("tcp write after shutdown", || {
        shim::runtime().block_on(async {
            let (mut client, _server) = tcp_pair().await;
            client.shutdown().await.unwrap();
            let err = client.write_all(b"late").await.unwrap_err();
            assert_eq!(err.kind(), ErrorKind::BrokenPipe);
            assert_eq!(
                client.try_write(b"late").unwrap_err().kind(),
                ErrorKind::BrokenPipe
            );
        });
    });
}

#[test]
fn tcp_a_reset_peer_makes_read_fail_with_connection_reset() {
    limit("tcp reset read", || {
        shim::runtime().block_on(async {
            let (mut client, server) = tcp_pair().await;
            server.set_zero_linger().unwrap();
            drop(server);
            let mut buf = [0u8; 4];
            let err = rt::time::timeout(PATIENCE, client.read(&mut buf))
                .await
                .unwrap()
                .unwrap_err();
            assert_eq!(err.kind(), ErrorKind::ConnectionReset);
        });
    });
}

#[test]
fn connect_and_send_to_with_no_address_are_invalid_input() {
    limit("no address", || {
        shim::runtime().block_on(async {
            let none: &[SocketAddr] = &[];
            let err = TcpStream::connect(none).await.unwrap_err();
            assert_eq!(err.kind(), ErrorKind::InvalidInput);
            let err = TcpListener::bind(none).await.unwrap_err();
            assert_eq!(err.kind(), ErrorKind::InvalidInput);
            let s = udp_bound().await;
            let err = s.send_to(b"x", none).await.unwrap_err();
            assert_eq!(err.kind(), ErrorKind::InvalidInput);
            let err = s.connect(none).await.unwrap_err();
            assert_eq!(err.kind(), ErrorKind::InvalidInput);
        });
    });
}

#[test]
fn udp_connected_to_a_closed_port_reports_connection_refused() {
    limit("udp refused", || {
        shim::runtime().block_on(async {
            let closed = {
                let s = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
                s.local_addr().unwrap()
            };
            let s = udp_bound().await;
            s.connect(closed).await.unwrap();
            s.send(b"anyone?").await.unwrap();
            let mut buf = [0u8; 8];
            let err = rt::time::timeout(PATIENCE, s.recv(&mut buf))
                .await
                .expect("the ICMP error never arrived")
                .unwrap_err();
            assert_eq!(err.kind(), ErrorKind::ConnectionRefused);
        });
    });
}

#[test]
fn udp_binding_a_port_in_use_is_addr_in_use() {
    limit("udp addr in use", || {
        shim::runtime().block_on(async {
            let a = udp_bound().await;
            let err = UdpSocket::bind(a.local_addr().unwrap()).await.unwrap_err();
            assert_eq!(err.kind(), ErrorKind::AddrInUse);
        });
    });
}

#[test]
fn unix_datagram_unconnected_errors() {
    limit("unix datagram unconnected", || {
        let dir = SocketDir::new("audit-dgram");
        let path = dir.join("nobody");
        shim::runtime().block_on(async move {
            let d = rt::net::UnixDatagram::unbound().unwrap();
            assert_eq!(d.peer_addr().unwrap_err().kind(), ErrorKind::NotConnected);
            assert!(d.send(b"x").await.is_err());
            assert_eq!(d.connect(&path).unwrap_err().kind(), ErrorKind::NotFound);
            let err = d.send_to(b"x", &path).await.unwrap_err();
            assert_eq!(err.kind(), ErrorKind::NotFound);
            let mut buf = [0u8; 4];
            assert_eq!(
                d.try_recv(&mut buf).unwrap_err().kind(),
                ErrorKind::WouldBlock
            );
        });
    });
}

#[test]
fn unix_a_dropped_listener_leaves_its_path_behind() {
    limit("unix listener path", || {
        let dir = SocketDir::new("audit-leftover");
        let path = dir.join("sock");
        shim::runtime().block_on(async move {
            let listener = UnixListener::bind(&path).unwrap();
            drop(listener);
            assert!(path.exists());
            assert_eq!(
                UnixStream::connect(&path).await.unwrap_err().kind(),
                ErrorKind::ConnectionRefused
            );
            assert_eq!(
                UnixListener::bind(&path).unwrap_err().kind(),
                ErrorKind::AddrInUse
            );
            std::fs::remove_file(&path).unwrap();
            let _again = UnixListener::bind(&path).unwrap();
        });
    });
}

#[test]
fn unix_owned_halves_reunite() {
    limit("unix reunite", || {
        shim::runtime().block_on(async {
            let (a, mut b) = UnixStream::pair().unwrap();
            let (r, w) = a.into_split();
            let mut a = r.reunite(w).unwrap();
            a.write_all(b"one piece").await.unwrap();
            a.shutdown().await.unwrap();
            assert_eq!(read_all(&mut b).await, b"one piece");
        });
    });
}

#[test]
fn fs_read_dir_lists_a_large_directory_exactly_once() {
    limit("fs read_dir large", || {
        let s = Scratch::new("audit-netfs", "large-dir");
        let root = s.path().to_path_buf();
        shim::runtime().block_on(async move {
            for i in 0..150 {
                std::fs::write(root.join(format!("f{i:03}")), b"").unwrap();
            }
            let mut entries = fs::read_dir(&root).await.unwrap();
            let mut names = Vec::new();
            while let Some(e) = entries.next_entry().await.unwrap() {
                names.push(e.file_name().into_string().unwrap());
            }
            names.sort();
            let want: Vec<String> = (0..150).map(|i| format!("f{i:03}")).collect();
            assert_eq!(names, want);
        });
    });
}

#[test]
fn fs_max_buf_size_bounds_each_read_and_write() {
    limit("fs max_buf_size", || {
        let s = Scratch::new("audit-netfs", "max-buf");
        let path = s.join("f");
        shim::runtime().block_on(async move {
            let mut f = OpenOptions::new()
                .read(true)
                .write(true)
                .create(true)
                .truncate(true)
                .open(&path)
                .await
                .unwrap();
            f.set_max_buf_size(4);
            assert_eq!(f.max_buf_size(), 4);
            assert_eq!(f.write(b"0123456789").await.unwrap(), 4);
            f.write_all(b"456789").await.unwrap();
            f.rewind().await.unwrap();
            let mut buf = [0u8; 10];
            assert_eq!(f.read(&mut buf).await.unwrap(), 4);
            assert_eq!(&buf[..4], b"0123");
        });
    });
}

#[test]
fn fs_errors_of_whole_file_functions() {
    limit("fs whole-file errors", || {
        let s = Scratch::new("audit-netfs", "whole-errors");
        let root = s.path().to_path_buf();
        shim::runtime().block_on(async move {
            assert_eq!(
                fs::write(root.join("no/such/file"), b"x")
                    .await
                    .unwrap_err()
                    .kind(),
                ErrorKind::NotFound
            );
            assert_eq!(
                fs::copy(root.join("missing"), root.join("to"))
                    .await
                    .unwrap_err()
                    .kind(),
                ErrorKind::NotFound
            );
            assert!(!fs::try_exists(root.join("to")).await.unwrap());
            assert_eq!(
                fs::read_to_string(root.join("missing"))
                    .await
                    .unwrap_err()
                    .kind(),
                ErrorKind::NotFound
            );
            assert_eq!(
                fs::canonicalize(root.join("missing"))
                    .await
                    .unwrap_err()
                    .kind(),
                ErrorKind::NotFound
            );
            assert_eq!(
                fs::symlink_metadata(root.join("missing"))
                    .await
                    .unwrap_err()
                    .kind(),
                ErrorKind::NotFound
            );
            assert_eq!(
                fs::remove_dir_all(root.join("missing"))
                    .await
                    .unwrap_err()
                    .kind(),
                ErrorKind::NotFound
            );
            let f = root.join("f");
            fs::write(&f, b"x").await.unwrap();
            assert_eq!(
                fs::remove_dir(&f).await.unwrap_err().kind(),
                ErrorKind::NotADirectory
            );
            assert_eq!(
                fs::remove_file(&root).await.unwrap_err().kind(),
                ErrorKind::IsADirectory
            );
        });
    });
}

#[test]
fn fs_a_file_from_std_keeps_its_position() {
    limit("fs from_std position", || {
        let s = Scratch::new("audit-netfs", "from-std");
        let path = s.join("f");
        shim::runtime().block_on(async move {
            std::fs::write(&path, b"abcdef").unwrap();
            let mut std_file = std::fs::File::open(&path).unwrap();
            std::io::Seek::seek(&mut std_file, SeekFrom::Start(2)).unwrap();
            let mut f = File::from_std(std_file);
            assert_eq!(f.stream_position().await.unwrap(), 2);
            let mut rest = String::new();
            f.read_to_string(&mut rest).await.unwrap();
            assert_eq!(rest, "cdef");
            let f2 = f.try_clone().await.unwrap();
            let mut f2 = f2;
            assert_eq!(f2.stream_position().await.unwrap(), 6);
        });
    });
}

#[test]
fn tcp_a_listener_rebinds_a_port_left_in_time_wait() {
    limit("tcp rebind", || {
        shim::runtime().block_on(async {
            let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
            let addr = listener.local_addr().unwrap();
            let (client, accepted) = futures::join!(TcpStream::connect(addr), listener.accept());
            let mut client = client.unwrap();
            let (server, _) = accepted.unwrap();
            // The server closes first, so its side of the port is in
            // TIME_WAIT when the listener is bound again.
            drop(server);
            assert!(read_all(&mut client).await.is_empty());
            drop(client);
            drop(listener);
            let again = TcpListener::bind(addr).await.unwrap();
            assert_eq!(again.local_addr().unwrap(), addr);
        });
    });
}

#[test]
fn tcp_socket_listen_without_bind_and_more_options() {
    limit("tcp socket options", || {
        shim::runtime().block_on(async {
            let socket = TcpSocket::new_v4().unwrap();
            socket.set_keepalive(true).unwrap();
            assert!(socket.keepalive().unwrap());
            socket.set_nodelay(true).unwrap();
            assert!(socket.nodelay().unwrap());
            let listener = socket.listen(8).unwrap();
            assert_ne!(listener.local_addr().unwrap().port(), 0);
            let (client, _server) = tcp_pair().await;
            client.set_zero_linger().unwrap();
            #[allow(deprecated)]
            let linger = client.linger().unwrap();
            assert_eq!(linger, Some(Duration::ZERO));
        });
    });
}

#[test]
fn owned_halves_report_the_stream_addresses() {
    limit("owned half addresses", || {
        shim::runtime().block_on(async {
            let (client, server) = tcp_pair().await;
            let local = client.local_addr().unwrap();
            let peer = client.peer_addr().unwrap();
            let (r, w) = client.into_split();
            assert_eq!(r.local_addr().unwrap(), local);
            assert_eq!(w.peer_addr().unwrap(), peer);
            let stream: &TcpStream = r.as_ref();
            assert_eq!(stream.peer_addr().unwrap(), server.local_addr().unwrap());
        });
    });
}

#[test]
fn udp_recv_buf_appends_to_a_vec() {
    limit("udp recv_buf", || {
        shim::runtime().block_on(async {
            let a = udp_bound().await;
            let b = udp_bound().await;
            a.connect(b.local_addr().unwrap()).await.unwrap();
            b.connect(a.local_addr().unwrap()).await.unwrap();
            a.send(b"datagram").await.unwrap();
            let mut vec = Vec::with_capacity(64);
            vec.extend_from_slice(b">");
            let n = rt::time::timeout(PATIENCE, b.recv_buf(&mut vec))
                .await
                .unwrap()
                .unwrap();
            assert_eq!(n, 8);
            assert_eq!(vec, b">datagram");
            a.send(b"again").await.unwrap();
            let mut vec = Vec::new();
            let (n, from) = rt::time::timeout(PATIENCE, b.recv_buf_from(&mut vec))
                .await
                .unwrap()
                .unwrap();
            assert_eq!((n, &vec[..]), (5, &b"again"[..]));
            assert_eq!(from, a.local_addr().unwrap());
        });
    });
}

#[test]
fn unix_connect_and_bind_errors_of_the_file_system() {
    limit("unix fs errors", || {
        let dir = SocketDir::new("audit-fs-errors");
        let file = dir.join("plain");
        std::fs::write(&file, b"not a socket").unwrap();
        let missing_dir = dir.join("no-dir/sock");
        shim::runtime().block_on(async move {
            assert_eq!(
                UnixStream::connect(&file).await.unwrap_err().kind(),
                ErrorKind::ConnectionRefused
            );
            assert_eq!(
                UnixListener::bind(&missing_dir).unwrap_err().kind(),
                ErrorKind::NotFound
            );
            let (a, b) = rt::net::UnixDatagram::pair().unwrap();
            assert!(a.peer_addr().unwrap().is_unnamed());
            assert!(b.local_addr().unwrap().is_unnamed());
        });
    });
}

#[test]
fn fs_dir_builder_and_open_options_mode() {
    limit("fs dir builder", || {
        let s = Scratch::new("audit-netfs", "dir-builder");
        let root = s.path().to_path_buf();
        shim::runtime().block_on(async move {
            use std::os::unix::fs::PermissionsExt;
            let deep = root.join("x/y/z");
            let err = fs::DirBuilder::new().create(&deep).await.unwrap_err();
            assert_eq!(err.kind(), ErrorKind::NotFound);
            fs::DirBuilder::new()
                .recursive(true)
                .mode(0o700)
                .create(&deep)
                .await
                .unwrap();
            assert_eq!(
                fs::metadata(&deep).await.unwrap().permissions().mode() & 0o777,
                0o700
            );
            fs::DirBuilder::new()
                .recursive(true)
                .create(&deep)
                .await
                .unwrap();
            assert_eq!(
                fs::DirBuilder::new()
                    .create(&deep)
                    .await
                    .unwrap_err()
                    .kind(),
                ErrorKind::AlreadyExists
            );
            let f = root.join("private");
            let file = OpenOptions::new()
                .write(true)
                .create(true)
                .truncate(false)
                .mode(0o600)
                .open(&f)
                .await
                .unwrap();
            drop(file);
            assert_eq!(
                fs::metadata(&f).await.unwrap().permissions().mode() & 0o777,
                0o600
            );
            assert_eq!(
                OpenOptions::new()
                    .create(true)
                    .truncate(false)
                    .open(root.join("w"))
                    .await
                    .unwrap_err()
                    .kind(),
                ErrorKind::InvalidInput
            );
            assert_eq!(
                File::create(root.join("no/such")).await.unwrap_err().kind(),
                ErrorKind::NotFound
            );
        });
    });
}

#[test]
fn fs_append_ignores_seeks_and_a_seek_past_the_end_leaves_a_hole() {
    limit("fs append and holes", || {
        let s = Scratch::new("audit-netfs", "append-holes");
        let root = s.path().to_path_buf();
        shim::runtime().block_on(async move {
            let a = root.join("a");
            fs::write(&a, b"abc").await.unwrap();
            let mut f = OpenOptions::new().append(true).open(&a).await.unwrap();
            f.seek(SeekFrom::Start(0)).await.unwrap();
            f.write_all(b"def").await.unwrap();
            f.flush().await.unwrap();
            assert_eq!(fs::read(&a).await.unwrap(), b"abcdef");

            let h = root.join("h");
            let mut f = File::create(&h).await.unwrap();
            f.write_all(b"x").await.unwrap();
            assert_eq!(f.seek(SeekFrom::Start(4)).await.unwrap(), 4);
            f.write_all(b"y").await.unwrap();
            f.flush().await.unwrap();
            assert_eq!(fs::read(&h).await.unwrap(), b"x\0\0\0y");
        });
    });
}

#[test]
fn fs_dir_entry_metadata_of_a_removed_file_is_not_found() {
    limit("fs dir entry removed", || {
        let s = Scratch::new("audit-netfs", "entry-removed");
        let root = s.path().to_path_buf();
        shim::runtime().block_on(async move {
            fs::write(root.join("only"), b"1").await.unwrap();
            let mut entries = fs::read_dir(&root).await.unwrap();
            let entry = entries.next_entry().await.unwrap().unwrap();
            {
                use std::os::unix::fs::MetadataExt;
                let md = entry.metadata().await.unwrap();
                assert_eq!(entry.ino(), md.ino());
            }
            fs::remove_file(entry.path()).await.unwrap();
            assert_eq!(
                entry.metadata().await.unwrap_err().kind(),
                ErrorKind::NotFound
            );
            assert!(entries.next_entry().await.unwrap().is_none());
        });
    });
}

#[test]
fn fs_remove_dir_all_on_a_link_keeps_the_target() {
    limit("fs remove_dir_all link", || {
        let s = Scratch::new("audit-netfs", "rm-link");
        let root = s.path().to_path_buf();
        shim::runtime().block_on(async move {
            let target = root.join("target");
            fs::create_dir(&target).await.unwrap();
            fs::write(target.join("keep"), b"k").await.unwrap();
            let link = root.join("link");
            fs::symlink(&target, &link).await.unwrap();
            let mut via_link = fs::read_dir(&link).await.unwrap();
            let e = via_link.next_entry().await.unwrap().unwrap();
            assert_eq!(e.path(), link.join("keep"));
            fs::remove_dir_all(&link).await.unwrap();
            assert!(fs::symlink_metadata(&link).await.is_err());
            assert_eq!(fs::read(target.join("keep")).await.unwrap(), b"k");
        });
    });
}

#[test]
fn fs_file_set_times_sets_access_and_modification_times() {
    limit("fs set_times", || {
        let s = Scratch::new("audit-netfs", "set-times");
        let path = s.join("f");
        shim::runtime().block_on(async move {
            let mut f = File::create(&path).await.unwrap();
            f.write_all(b"data").await.unwrap();
            let accessed = std::time::UNIX_EPOCH + Duration::from_secs(1_000_000);
            let modified = std::time::UNIX_EPOCH + Duration::from_secs(2_000_000);
            let times = fs::FileTimes::new()
                .set_accessed(accessed)
                .set_modified(modified);
            // Waits for the write in flight, which would otherwise move
            // the modification time again.
            f.set_times(times.clone()).await.unwrap();
            let md = fs::metadata(&path).await.unwrap();
            assert_eq!(md.accessed().unwrap(), accessed);
            assert_eq!(md.modified().unwrap(), modified);
            assert_eq!(md.len(), 4);
            let later = modified + Duration::from_secs(5);
            f.set_times(fs::FileTimes::new().set_modified(later))
                .await
                .unwrap();
            let md = f.metadata().await.unwrap();
            assert_eq!(md.modified().unwrap(), later);
            assert_eq!(md.accessed().unwrap(), accessed);
            let _default = fs::FileTimes::default();
            let _ = format!("{times:?}");
        });
    });
}

#[test]
fn fs_set_len_waits_for_the_unflushed_write() {
    limit("fs set_len after write", || {
        let s = Scratch::new("audit-netfs", "set-len-order");
        let path = s.join("f");
        shim::runtime().block_on(async move {
            let mut f = File::create(&path).await.unwrap();
            f.write_all(b"0123456789").await.unwrap();
            // No flush: set_len runs after the write, not before it.
            f.set_len(4).await.unwrap();
            f.flush().await.unwrap();
            assert_eq!(fs::read(&path).await.unwrap(), b"0123");
        });
    });
}

#[test]
fn udp_try_methods_after_readable() {
    limit("udp try methods", || {
        shim::runtime().block_on(async {
            let a = udp_bound().await;
            let b = udp_bound().await;
            let b_addr = b.local_addr().unwrap();
            a.writable().await.unwrap();
            assert_eq!(a.try_send_to(b"tried", b_addr).unwrap(), 5);
            let mut buf = [0u8; 16];
            let (n, from) = rt::time::timeout(PATIENCE, async {
                loop {
                    b.readable().await.unwrap();
                    match b.try_peek_from(&mut buf) {
                        Ok(got) => return got,
                        Err(e) if e.kind() == ErrorKind::WouldBlock => continue,
                        Err(e) => panic!("{e}"),
                    }
                }
            })
            .await
            .unwrap();
            assert_eq!((&buf[..n], from), (&b"tried"[..], a.local_addr().unwrap()));
            assert_eq!(b.try_peek_sender().unwrap(), from);
            let (n, from) = b.try_recv_from(&mut buf).unwrap();
            assert_eq!((&buf[..n], from), (&b"tried"[..], a.local_addr().unwrap()));
            assert_eq!(
                b.try_recv_from(&mut buf).unwrap_err().kind(),
                ErrorKind::WouldBlock
            );
        });
    });
}

#[test]
fn unix_stream_try_read_and_try_write() {
    limit("unix try", || {
        shim::runtime().block_on(async {
            let (a, b) = UnixStream::pair().unwrap();
            let mut buf = [0u8; 8];
            assert_eq!(
                b.try_read(&mut buf).unwrap_err().kind(),
                ErrorKind::WouldBlock
            );
            a.writable().await.unwrap();
            assert_eq!(a.try_write(b"unix").unwrap(), 4);
            let n = try_read_when_readable!(b, buf);
            assert_eq!(&buf[..n], b"unix");
            drop(a);
            let ready = rt::time::timeout(PATIENCE, b.ready(Interest::READABLE))
                .await
                .unwrap()
                .unwrap();
            assert!(ready.is_readable() || ready.is_read_closed());
            assert_eq!(b.try_read(&mut buf).unwrap(), 0);
        });
    });
}
