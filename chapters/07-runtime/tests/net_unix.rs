//! Unix-domain streams on the driver: an echo through a listener at a path,
//! a socket pair with the readiness API, and the borrowed split; and a
//! `UnixDatagram` made outside a runtime. Each wait has a deadline; socket
//! files go in a fresh temporary directory.
#![cfg(not(loom))]
#![cfg(not(miri))]

use futures::io::{AsyncReadExt, AsyncWriteExt};
use rt::net::{UnixListener, UnixStream};
use rt::time::timeout;
use rt::{Builder, Runtime};
use std::io;
use std::path::PathBuf;
use std::time::Duration;

const PATIENCE: Duration = Duration::from_secs(5);

fn runtime() -> Runtime {
    Builder::new_multi_thread()
        .worker_threads(2)
        .build()
        .unwrap()
}

/// A socket path unique to this test, removed first if left over.
fn socket_path(name: &str) -> PathBuf {
    let path = std::env::temp_dir().join(format!("rt-{}-{name}.sock", std::process::id()));
    let _ = std::fs::remove_file(&path);
    path
}

#[test]
fn a_unix_echo_server_echoes() {
    let path = socket_path("echo");
    runtime().block_on(async {
        let listener = UnixListener::bind(&path).unwrap();
        let server = rt::spawn(async move {
            let (mut stream, _) = listener.accept().await.unwrap();
            let (mut read, mut write) = UnixStream::split(&mut stream);
            futures::io::copy(&mut read, &mut write).await.unwrap()
        });
        let mut client = timeout(PATIENCE, UnixStream::connect(&path))
            .await
            .unwrap()
            .unwrap();
        client.write_all(b"over a unix socket").await.unwrap();
        client.close().await.unwrap();
        let mut echoed = Vec::new();
        timeout(PATIENCE, client.read_to_end(&mut echoed))
            .await
            .unwrap()
            .unwrap();
        assert_eq!(echoed, b"over a unix socket");
        assert_eq!(timeout(PATIENCE, server).await.unwrap().unwrap(), 18);
    });
    std::fs::remove_file(&path).unwrap();
}

#[test]
fn a_pair_speaks_the_readiness_api() {
    runtime().block_on(async {
        let (a, b) = UnixStream::pair().unwrap();
        let mut buf = [0u8; 8];
        assert_eq!(
            a.try_read(&mut buf).unwrap_err().kind(),
            io::ErrorKind::WouldBlock
        );
        timeout(PATIENCE, b.writable()).await.unwrap().unwrap();
        assert_eq!(b.try_write(b"hey").unwrap(), 3);
        timeout(PATIENCE, a.readable()).await.unwrap().unwrap();
        assert_eq!(a.try_read(&mut buf).unwrap(), 3);
        assert_eq!(&buf[..3], b"hey");
    });
}

#[test]
fn connecting_to_a_missing_path_fails() {
    let path = socket_path("missing");
    runtime().block_on(async {
        let error = timeout(PATIENCE, UnixStream::connect(&path))
            .await
            .unwrap()
            .unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::NotFound);
    });
}

#[test]
fn a_vectored_write_sends_every_buffer_at_once() {
    runtime().block_on(async {
        let (mut a, mut b) = UnixStream::pair().unwrap();
        let parts = [io::IoSlice::new(b"head "), io::IoSlice::new(b"body")];
        assert_eq!(a.write_vectored(&parts).await.unwrap(), 9);
        let (_, mut half) = UnixStream::split(&mut a);
        assert_eq!(half.write_vectored(&parts).await.unwrap(), 9);
        let mut got = [0u8; 18];
        timeout(Duration::from_secs(5), b.read_exact(&mut got))
            .await
            .unwrap()
            .unwrap();
        assert_eq!(&got, b"head bodyhead body");
    });
}

/// A `UnixDatagram` needs the runtime's driver, as every socket does: made
/// outside a runtime it panics with Tokio's words, as Tokio's does, never a
/// socket that no driver watches.
#[test]
fn a_unix_datagram_outside_a_runtime_panics() {
    fn panic_of(f: impl FnOnce() + std::panic::UnwindSafe) -> String {
        let payload = std::panic::catch_unwind(f).expect_err("made outside a runtime");
        payload
            .downcast_ref::<String>()
            .cloned()
            .unwrap_or_default()
    }
    let (std_socket, _peer) = std::os::unix::net::UnixDatagram::pair().unwrap();
    let message = panic_of(move || {
        let _ = rt::net::UnixDatagram::from_std(std_socket);
    });
    assert!(message.contains("there is no reactor running"), "{message}");
    let message = panic_of(|| {
        let _ = rt::net::UnixDatagram::pair();
    });
    assert!(message.contains("there is no reactor running"), "{message}");
}
