//! `TcpListener` and `TcpStream`.

use super::{SocketDir, limit};
use crate::{rt, shim};
use rt::net::{TcpListener, TcpStream};
use std::io::ErrorKind;
use std::time::Duration;

const PATIENCE: Duration = Duration::from_secs(5);

#[test]
fn echo_round_trip() {
    limit("echo", || {
        let runtime = shim::runtime();
        runtime.block_on(async {
            let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
            let addr = listener.local_addr().unwrap();
            let server = rt::spawn(async move {
                let (mut stream, _) = listener.accept().await.unwrap();
                let mut buf = [0u8; 1024];
                loop {
                    let n = shim::read(&mut stream, &mut buf).await.unwrap();
                    if n == 0 {
                        break;
                    }
                    shim::write_all(&mut stream, &buf[..n]).await.unwrap();
                }
            });
            let mut client = TcpStream::connect(addr).await.unwrap();
            let message: Vec<u8> = (0..100_000u32).map(|i| i as u8).collect();
            let writer_msg = message.clone();
            let mut got = vec![0u8; message.len()];
            // Write and read at the same time: the echo would otherwise
            // fill both socket buffers.
            let (read_half_result, ()) = {
                let mut offset_w = 0;
                let mut offset_r = 0;
                let mut buf = [0u8; 4096];
                while offset_r < got.len() {
                    if offset_w < writer_msg.len() {
                        let end = (offset_w + 4096).min(writer_msg.len());
                        shim::write_all(&mut client, &writer_msg[offset_w..end])
                            .await
                            .unwrap();
                        offset_w = end;
                    }
                    let n = shim::read(&mut client, &mut buf).await.unwrap();
                    assert!(n > 0);
                    got[offset_r..offset_r + n].copy_from_slice(&buf[..n]);
                    offset_r += n;
                }
                (got, ())
            };
            assert!(read_half_result == message);
            shim::shutdown_write(&mut client).await.unwrap();
            rt::time::timeout(PATIENCE, server)
                .await
                .expect("server did not see EOF")
                .unwrap();
        });
    });
}

#[test]
fn read_returns_zero_when_the_peer_closes() {
    limit("read 0 on close", || {
        let runtime = shim::runtime();
        runtime.block_on(async {
            let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
            let addr = listener.local_addr().unwrap();
            let mut client = TcpStream::connect(addr).await.unwrap();
            let (mut server, _) = listener.accept().await.unwrap();
            shim::write_all(&mut server, b"last").await.unwrap();
            drop(server);
            let all = rt::time::timeout(PATIENCE, shim::read_to_end(&mut client))
                .await
                .expect("read did not see end of file")
                .unwrap();
            assert_eq!(all, b"last");
            let mut buf = [0u8; 4];
            assert_eq!(shim::read(&mut client, &mut buf).await.unwrap(), 0);
        });
    });
}

#[test]
fn a_pending_read_is_woken_by_the_peer_closing() {
    limit("pending read woken by close", || {
        let runtime = shim::runtime();
        runtime.block_on(async {
            let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
            let addr = listener.local_addr().unwrap();
            let mut client = TcpStream::connect(addr).await.unwrap();
            let (server, _) = listener.accept().await.unwrap();
            let reader = rt::spawn(async move {
                let mut buf = [0u8; 4];
                shim::read(&mut client, &mut buf).await
            });
            rt::time::sleep(Duration::from_millis(20)).await;
            drop(server);
            let n = rt::time::timeout(PATIENCE, reader)
                .await
                .expect("a waiting read was not woken by the peer's close")
                .unwrap()
                .unwrap();
            assert_eq!(n, 0);
        });
    });
}

#[test]
fn writing_to_a_reset_peer_errors() {
    limit("write after reset", || {
        let runtime = shim::runtime();
        runtime.block_on(async {
            let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
            let addr = listener.local_addr().unwrap();
            let mut client = TcpStream::connect(addr).await.unwrap();
            let (peer, _) = listener.accept().unwrap();
            super::set_linger_zero(&peer);
            drop(peer);
            rt::time::sleep(Duration::from_millis(20)).await;
            let chunk = [0u8; 1024];
            let mut failed = None;
            for _ in 0..1000 {
                match shim::write(&mut client, &chunk).await {
                    Ok(_) => rt::time::sleep(Duration::from_millis(1)).await,
                    Err(e) => {
                        failed = Some(e);
                        break;
                    }
                }
            }
            let e = failed.expect("writes to a reset peer kept succeeding");
            assert!(
                matches!(e.kind(), ErrorKind::ConnectionReset | ErrorKind::BrokenPipe),
                "{e:?}"
            );
        });
    });
}

#[test]
fn local_and_peer_addresses_match_across_the_connection() {
    limit("addrs", || {
        let runtime = shim::runtime();
        runtime.block_on(async {
            let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
            let addr = listener.local_addr().unwrap();
            assert!(addr.ip().is_loopback());
            assert_ne!(addr.port(), 0);
            let client = TcpStream::connect(addr).await.unwrap();
            let (server, peer) = listener.accept().await.unwrap();
            assert_eq!(client.peer_addr().unwrap(), addr);
            assert_eq!(server.local_addr().unwrap(), addr);
            assert_eq!(server.peer_addr().unwrap(), client.local_addr().unwrap());
            assert_eq!(peer, client.local_addr().unwrap());
        });
    });
}

#[test]
fn connecting_to_a_closed_port_is_connection_refused() {
    limit("refused", || {
        let runtime = shim::runtime();
        runtime.block_on(async {
            // A port that was just free: bind, read the port, close.
            let addr = {
                let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
                l.local_addr().unwrap()
            };
            let e = TcpStream::connect(addr).await.unwrap_err();
            assert_eq!(e.kind(), ErrorKind::ConnectionRefused, "{e:?}");
        });
    });
}

#[test]
fn accept_waits_for_a_connection() {
    limit("accept waits", || {
        let runtime = shim::runtime();
        runtime.block_on(async {
            let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
            let addr = listener.local_addr().unwrap();
            let acceptor = rt::spawn(async move { listener.accept().await.map(|(_, a)| a) });
            rt::time::sleep(Duration::from_millis(20)).await;
            assert!(!acceptor.is_finished());
            let client = TcpStream::connect(addr).await.unwrap();
            let peer = rt::time::timeout(PATIENCE, acceptor)
                .await
                .expect("accept not woken")
                .unwrap()
                .unwrap();
            assert_eq!(peer, client.local_addr().unwrap());
        });
    });
}

#[test]
fn many_connections_are_all_served() {
    limit("many connections", || {
        let runtime = shim::runtime();
        runtime.block_on(async {
            let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
            let addr = listener.local_addr().unwrap();
            rt::spawn(async move {
                loop {
                    let (mut s, _) = listener.accept().await.unwrap();
                    rt::spawn(async move {
                        let mut b = [0u8; 1];
                        shim::read_exact(&mut s, &mut b).await.unwrap();
                        shim::write_all(&mut s, &[b[0] + 1]).await.unwrap();
                    });
                }
            });
            let clients: Vec<_> = (0..50u8)
                .map(|i| {
                    rt::spawn(async move {
                        let mut c = TcpStream::connect(addr).await.unwrap();
                        shim::write_all(&mut c, &[i]).await.unwrap();
                        let mut b = [0u8; 1];
                        shim::read_exact(&mut c, &mut b).await.unwrap();
                        b[0]
                    })
                })
                .collect();
            for (i, c) in clients.into_iter().enumerate() {
                assert_eq!(c.await.unwrap(), i as u8 + 1);
            }
        });
    });
}

#[test]
fn a_listener_from_std_accepts() {
    limit("from_std", || {
        let runtime = shim::runtime();
        runtime.block_on(async {
            let std_listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
            std_listener.set_nonblocking(true).unwrap();
            let addr = std_listener.local_addr().unwrap();
            let listener = TcpListener::from_std(std_listener).unwrap();
            let _c = TcpStream::connect(addr).await.unwrap();
            rt::time::timeout(PATIENCE, listener.accept())
                .await
                .expect("accept on a from_std listener hung")
                .unwrap();
        });
    });
}

/// Every socket type converts from its `std` socket with `TryFrom`, as
/// Tokio's do (it is `from_std` under the standard name), and the result
/// works: a TCP and a Unix listener accept, a UDP socket receives.
#[test]
fn every_socket_type_converts_from_std_with_try_from() {
    use rt::net::{UdpSocket, UnixListener, UnixStream};
    limit("try_from std", || {
        let dir = SocketDir::new("try-from");
        let path = dir.join("listener.sock");
        shim::runtime().block_on(async {
            // Tokio asks for non-blocking sockets (and checks, in debug
            // builds); rt sets it itself.
            let std_listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
            std_listener.set_nonblocking(true).unwrap();
            let addr = std_listener.local_addr().unwrap();
            let listener = TcpListener::try_from(std_listener).unwrap();
            let std_stream = std::net::TcpStream::connect(addr).unwrap();
            std_stream.set_nonblocking(true).unwrap();
            let _stream = TcpStream::try_from(std_stream).unwrap();
            rt::time::timeout(PATIENCE, listener.accept())
                .await
                .expect("accept on a TryFrom listener hung")
                .unwrap();

            let std_udp = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
            std_udp.set_nonblocking(true).unwrap();
            let udp = UdpSocket::try_from(std_udp).unwrap();
            let sender = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
            sender.send_to(b"hi", udp.local_addr().unwrap()).unwrap();
            let mut buf = [0u8; 8];
            let n = rt::time::timeout(PATIENCE, udp.recv(&mut buf))
                .await
                .expect("recv on a TryFrom UDP socket hung")
                .unwrap();
            assert_eq!(&buf[..n], b"hi");

            let std_unix = std::os::unix::net::UnixListener::bind(&path).unwrap();
            std_unix.set_nonblocking(true).unwrap();
            let unix = UnixListener::try_from(std_unix).unwrap();
            let std_client = std::os::unix::net::UnixStream::connect(&path).unwrap();
            std_client.set_nonblocking(true).unwrap();
            let _client = UnixStream::try_from(std_client).unwrap();
            rt::time::timeout(PATIENCE, unix.accept())
                .await
                .expect("accept on a TryFrom Unix listener hung")
                .unwrap();
        });
    });
}
