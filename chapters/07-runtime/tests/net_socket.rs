//! `TcpSocket`: options set before `bind`/`listen`/`connect` take effect.
//! Loopback only; each wait has a deadline.
#![cfg(not(loom))]
#![cfg(not(miri))]

use futures::io::{AsyncReadExt, AsyncWriteExt};
use rt::net::TcpSocket;
use rt::time::timeout;
use rt::{Builder, Runtime};
use std::net::SocketAddr;
use std::time::Duration;

const PATIENCE: Duration = Duration::from_secs(5);

fn runtime() -> Runtime {
    Builder::new_multi_thread()
        .worker_threads(2)
        .build()
        .unwrap()
}

fn any_port() -> SocketAddr {
    "127.0.0.1:0".parse().unwrap()
}

#[test]
fn a_reuseaddr_socket_listens_and_connects() {
    runtime().block_on(async {
        let socket = TcpSocket::new_v4().unwrap();
        socket.set_reuseaddr(true).unwrap();
        assert!(socket.reuseaddr().unwrap());
        socket.bind(any_port()).unwrap();
        let addr = socket.local_addr().unwrap();
        let listener = socket.listen(128).unwrap();
        assert_eq!(listener.local_addr().unwrap(), addr);

        let client = TcpSocket::new_v4().unwrap();
        client.set_nodelay(true).unwrap();
        let mut stream = timeout(PATIENCE, client.connect(addr))
            .await
            .unwrap()
            .unwrap();
        assert!(stream.nodelay().unwrap(), "options survive the connect");
        let (mut server, _) = listener.accept().await.unwrap();
        stream.write_all(b"hi").await.unwrap();
        let mut buf = [0u8; 2];
        server.read_exact(&mut buf).await.unwrap();
        assert_eq!(&buf, b"hi");
    });
}

#[test]
fn reuseaddr_binds_a_port_left_in_time_wait() {
    runtime().block_on(async {
        // A server that closes first leaves its port in TIME_WAIT.
        let first = TcpSocket::new_v4().unwrap();
        first.set_reuseaddr(true).unwrap();
        first.bind(any_port()).unwrap();
        let addr = first.local_addr().unwrap();
        let listener = first.listen(16).unwrap();
        let client = TcpSocket::new_v4().unwrap().connect(addr).await.unwrap();
        let (server, _) = listener.accept().await.unwrap();
        drop(server); // the server closes first
        drop(listener);
        drop(client);
        rt::time::sleep(Duration::from_millis(20)).await;
        let again = TcpSocket::new_v4().unwrap();
        again.set_reuseaddr(true).unwrap();
        again.bind(addr).expect("SO_REUSEADDR rebinds the port");
        again.listen(16).unwrap();
    });
}

#[test]
fn reuseport_lets_two_listeners_share_a_port() {
    runtime().block_on(async {
        let a = TcpSocket::new_v4().unwrap();
        a.set_reuseport(true).unwrap();
        a.bind(any_port()).unwrap();
        let addr = a.local_addr().unwrap();
        let b = TcpSocket::new_v4().unwrap();
        b.set_reuseport(true).unwrap();
        assert!(b.reuseport().unwrap());
        b.bind(addr)
            .expect("a second SO_REUSEPORT socket binds the same port");
        let (_a, _b) = (a.listen(16).unwrap(), b.listen(16).unwrap());
        // Without the option, the port is taken.
        let c = TcpSocket::new_v4().unwrap();
        assert!(c.bind(addr).is_err());
    });
}

#[test]
fn buffer_sizes_are_set_before_connecting() {
    runtime().block_on(async {
        let socket = TcpSocket::new_v4().unwrap();
        socket.set_send_buffer_size(64 * 1024).unwrap();
        socket.set_recv_buffer_size(64 * 1024).unwrap();
        // Linux doubles the value it stores (half is its bookkeeping).
        assert!(socket.send_buffer_size().unwrap() >= 64 * 1024);
        assert!(socket.recv_buffer_size().unwrap() >= 64 * 1024);
        let v6 = TcpSocket::new_v6();
        assert!(v6.is_ok() || v6.is_err(), "IPv6 may be absent; no panic");
    });
}

#[test]
fn connecting_to_a_closed_port_fails() {
    runtime().block_on(async {
        // Find a free port, then close it.
        let probe = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = probe.local_addr().unwrap();
        drop(probe);
        let result = timeout(PATIENCE, TcpSocket::new_v4().unwrap().connect(addr))
            .await
            .expect("refused, not hung");
        assert_eq!(
            result.unwrap_err().kind(),
            std::io::ErrorKind::ConnectionRefused
        );
    });
}
