//! Split TCP streams: borrowed halves in one task, owned halves in two,
//! `reunite` of matching and mismatched halves, and the write half's drop
//! shutting down writing (as Tokio's `OwnedWriteHalf` does). Loopback only;
//! each wait has a deadline.
#![cfg(not(loom))]
#![cfg(not(miri))]

use futures::io::{AsyncReadExt, AsyncWriteExt};
use rt::net::{TcpListener, TcpStream};
use rt::time::timeout;
use rt::{Builder, Runtime};
use std::time::Duration;

const PATIENCE: Duration = Duration::from_secs(5);

fn runtime() -> Runtime {
    Builder::new_multi_thread()
        .worker_threads(2)
        .build()
        .unwrap()
}

async fn pair() -> (TcpStream, TcpStream) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let client = TcpStream::connect(listener.local_addr().unwrap())
        .await
        .unwrap();
    let (server, _) = listener.accept().await.unwrap();
    (client, server)
}

#[test]
fn owned_halves_work_from_two_tasks_at_once() {
    runtime().block_on(async {
        let (client, server) = pair().await;
        // The server echoes with its two halves in two tasks.
        let (mut server_read, mut server_write) = server.into_split();
        let (tx, mut rx) = rt::sync::mpsc::channel::<Vec<u8>>(8);
        let reader = rt::spawn(async move {
            let mut buf = [0u8; 1024];
            loop {
                let n = server_read.read(&mut buf).await.unwrap();
                if n == 0 {
                    return server_read;
                }
                tx.send(buf[..n].to_vec()).await.unwrap();
            }
        });
        let writer = rt::spawn(async move {
            while let Some(bytes) = rx.recv().await {
                server_write.write_all(&bytes).await.unwrap();
            }
            server_write
        });
        let (mut client_read, mut client_write) = client.into_split();
        let sender = rt::spawn(async move {
            for _ in 0..100 {
                client_write.write_all(b"0123456789").await.unwrap();
            }
            client_write // not dropped yet: we reunite below
        });
        let mut echoed = vec![0u8; 1000];
        timeout(PATIENCE, client_read.read_exact(&mut echoed))
            .await
            .unwrap()
            .unwrap();
        assert_eq!(&echoed[..10], b"0123456789");
        let client_write = sender.await.unwrap();
        let client = client_write
            .reunite(client_read)
            .expect("halves of one stream");
        drop(client);
        let server_read = timeout(PATIENCE, reader).await.unwrap().unwrap();
        let server_write = timeout(PATIENCE, writer).await.unwrap().unwrap();
        server_read.reunite(server_write).unwrap();
    });
}

#[test]
fn reunite_refuses_halves_of_different_streams_and_hands_them_back() {
    runtime().block_on(async {
        let (a, _a_peer) = pair().await;
        let (b, _b_peer) = pair().await;
        let a_addr = a.local_addr().unwrap();
        let (a_read, _a_write) = a.into_split();
        let (_b_read, b_write) = b.into_split();
        let error = b_write.reunite(a_read).unwrap_err();
        assert!(
            error.to_string().contains("not from the same socket"),
            "{error}"
        );
        let rt::net::tcp::ReuniteError(read, _write) = error;
        assert_eq!(read.local_addr().unwrap(), a_addr, "the halves come back");
    });
}

#[test]
fn dropping_the_owned_write_half_shuts_down_writing_only() {
    runtime().block_on(async {
        let (client, mut server) = pair().await;
        let (mut client_read, client_write) = client.into_split();
        drop(client_write);
        // The peer reads end of stream...
        let mut rest = Vec::new();
        timeout(PATIENCE, server.read_to_end(&mut rest))
            .await
            .expect("end of stream after the write half dropped")
            .unwrap();
        assert!(rest.is_empty());
        // ...and can still send to the read half.
        server.write_all(b"still open").await.unwrap();
        let mut buf = [0u8; 10];
        timeout(PATIENCE, client_read.read_exact(&mut buf))
            .await
            .unwrap()
            .unwrap();
        assert_eq!(&buf, b"still open");
    });
}

#[test]
fn forget_keeps_the_write_direction_open() {
    runtime().block_on(async {
        let (client, mut server) = pair().await;
        let (_client_read, client_write) = client.into_split();
        client_write.forget();
        let mut buf = [0u8; 1];
        let read = timeout(Duration::from_millis(100), server.read(&mut buf)).await;
        assert!(read.is_err(), "no end of stream while the read half lives");
    });
}

#[test]
fn borrowed_halves_copy_both_ways_in_one_task() {
    runtime().block_on(async {
        let (mut client, mut server) = pair().await;
        let echo = rt::spawn(async move {
            let (mut read, mut write) = TcpStream::split(&mut server);
            futures::io::copy(&mut read, &mut write).await.unwrap()
        });
        // `client.split()` would pick futures' `AsyncReadExt::split(self)`.
        let (mut read, mut write) = TcpStream::split(&mut client);
        let send = async {
            write.write_all(b"split in one task").await.unwrap();
            write.close().await.unwrap();
        };
        let receive = async {
            let mut got = Vec::new();
            read.read_to_end(&mut got).await.unwrap();
            got
        };
        let ((), got) = timeout(PATIENCE, futures::future::join(send, receive))
            .await
            .unwrap();
        assert_eq!(got, b"split in one task");
        assert_eq!(timeout(PATIENCE, echo).await.unwrap().unwrap(), 17);
    });
}
