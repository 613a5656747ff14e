//! `UdpSocket` on the driver: round trips, `connect` filtering, the
//! readiness API, and many tasks sharing one socket. Loopback only; each
//! wait has a deadline.
#![cfg(not(loom))]
#![cfg(not(miri))]

use rt::net::UdpSocket;
use rt::time::timeout;
use rt::{Builder, Runtime};
use std::io;
use std::sync::Arc;
use std::time::Duration;

const PATIENCE: Duration = Duration::from_secs(5);

fn runtime() -> Runtime {
    Builder::new_multi_thread()
        .worker_threads(2)
        .build()
        .unwrap()
}

#[test]
fn a_datagram_goes_there_and_back() {
    runtime().block_on(async {
        let server = UdpSocket::bind("127.0.0.1:0").await.unwrap();
        let client = UdpSocket::bind("127.0.0.1:0").await.unwrap();
        let server_addr = server.local_addr().unwrap();
        let echo = rt::spawn(async move {
            let mut buf = [0u8; 64];
            let (n, from) = server.recv_from(&mut buf).await.unwrap();
            server.send_to(&buf[..n], from).await.unwrap();
            from
        });
        assert_eq!(client.send_to(b"ping", server_addr).await.unwrap(), 4);
        let mut buf = [0u8; 64];
        let (n, from) = timeout(PATIENCE, client.recv_from(&mut buf))
            .await
            .unwrap()
            .unwrap();
        assert_eq!((&buf[..n], from), (&b"ping"[..], server_addr));
        assert_eq!(echo.await.unwrap(), client.local_addr().unwrap());
    });
}

#[test]
fn a_connected_socket_only_hears_its_peer() {
    runtime().block_on(async {
        let receiver = UdpSocket::bind("127.0.0.1:0").await.unwrap();
        let peer = UdpSocket::bind("127.0.0.1:0").await.unwrap();
        let stranger = UdpSocket::bind("127.0.0.1:0").await.unwrap();
        let receiver_addr = receiver.local_addr().unwrap();
        assert_eq!(
            receiver.peer_addr().unwrap_err().kind(),
            io::ErrorKind::NotConnected
        );
        receiver.connect(peer.local_addr().unwrap()).await.unwrap();
        assert_eq!(receiver.peer_addr().unwrap(), peer.local_addr().unwrap());
        // The stranger's datagram is dropped by the kernel; the peer's arrives.
        stranger.send_to(b"stranger", receiver_addr).await.unwrap();
        peer.send_to(b"peer", receiver_addr).await.unwrap();
        let mut buf = [0u8; 64];
        let n = timeout(PATIENCE, receiver.recv(&mut buf))
            .await
            .unwrap()
            .unwrap();
        assert_eq!(&buf[..n], b"peer");
        // send goes to the peer without an address.
        receiver.send(b"reply").await.unwrap();
        let (n, from) = timeout(PATIENCE, peer.recv_from(&mut buf))
            .await
            .unwrap()
            .unwrap();
        assert_eq!((&buf[..n], from), (&b"reply"[..], receiver_addr));
    });
}

#[test]
fn try_recv_would_block_until_readable() {
    runtime().block_on(async {
        let a = UdpSocket::bind("127.0.0.1:0").await.unwrap();
        let b = UdpSocket::bind("127.0.0.1:0").await.unwrap();
        a.connect(b.local_addr().unwrap()).await.unwrap();
        b.connect(a.local_addr().unwrap()).await.unwrap();
        let mut buf = [0u8; 16];
        assert_eq!(
            a.try_recv(&mut buf).unwrap_err().kind(),
            io::ErrorKind::WouldBlock
        );
        timeout(PATIENCE, b.writable()).await.unwrap().unwrap();
        assert_eq!(b.try_send(b"one").unwrap(), 3);
        let n = timeout(PATIENCE, async {
            loop {
                a.readable().await.unwrap();
                match a.try_recv(&mut buf) {
                    Err(e) if e.kind() == io::ErrorKind::WouldBlock => continue,
                    other => break other.unwrap(),
                }
            }
        })
        .await
        .unwrap();
        assert_eq!(&buf[..n], b"one");
        // peek_from leaves the datagram in place.
        b.send(b"two").await.unwrap();
        let (n, _) = timeout(PATIENCE, a.peek_from(&mut buf))
            .await
            .unwrap()
            .unwrap();
        assert_eq!(&buf[..n], b"two");
        let (n, _) = a.try_recv_from(&mut buf).unwrap();
        assert_eq!(&buf[..n], b"two");
    });
}

#[test]
fn many_tasks_receive_on_one_shared_socket() {
    runtime().block_on(async {
        let server = Arc::new(UdpSocket::bind("127.0.0.1:0").await.unwrap());
        let addr = server.local_addr().unwrap();
        let receivers: Vec<_> = (0..4)
            .map(|_| {
                let server = server.clone();
                rt::spawn(async move {
                    let mut buf = [0u8; 8];
                    server.recv_from(&mut buf).await.unwrap().0
                })
            })
            .collect();
        rt::time::sleep(Duration::from_millis(20)).await;
        let client = UdpSocket::bind("127.0.0.1:0").await.unwrap();
        for _ in 0..4 {
            client.send_to(b"x", addr).await.unwrap();
        }
        for receiver in receivers {
            assert_eq!(timeout(PATIENCE, receiver).await.unwrap().unwrap(), 1);
        }
    });
}
