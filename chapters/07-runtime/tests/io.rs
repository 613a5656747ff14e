//! The I/O driver and the TCP types, on real loopback sockets: round trips,
//! many connections at once, half-close, reset, refused connections, and
//! deregistration. Each test ends by itself.
#![cfg(not(loom))]
#![cfg(not(miri))]

use futures::io::{AsyncReadExt, AsyncWriteExt};
use rt::net::{TcpListener, TcpStream};
use rt::{Builder, Runtime};
use std::io::{Read, Write};
use std::net::SocketAddr;
use std::time::Duration;

fn runtime() -> Runtime {
    Builder::new_multi_thread()
        .worker_threads(2)
        .build()
        .unwrap()
}

/// An echo server on the runtime; returns its address.
fn echo_server(rt: &Runtime) -> SocketAddr {
    rt.block_on(async {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        rt::spawn(async move {
            loop {
                let Ok((mut stream, _)) = listener.accept().await else {
                    continue;
                };
                rt::spawn(async move {
                    let mut buf = vec![0u8; 4096];
                    loop {
                        match stream.read(&mut buf).await {
                            Ok(0) | Err(_) => break,
                            Ok(n) => {
                                if stream.write_all(&buf[..n]).await.is_err() {
                                    break;
                                }
                            }
                        }
                    }
                });
            }
        });
        addr
    })
}

fn pattern(len: usize, seed: u8) -> Vec<u8> {
    (0..len)
        .map(|i| (i as u8).wrapping_mul(31).wrapping_add(seed))
        .collect()
}

#[test]
fn a_blocking_client_gets_every_byte_back() {
    let rt = runtime();
    let addr = echo_server(&rt);
    let mut client = std::net::TcpStream::connect(addr).unwrap();
    client
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    let data = pattern(1 << 20, 7);
    let writer = {
        let mut client = client.try_clone().unwrap();
        let data = data.clone();
        std::thread::spawn(move || client.write_all(&data).unwrap())
    };
    let mut back = vec![0u8; data.len()];
    client.read_exact(&mut back).unwrap();
    writer.join().unwrap();
    assert!(back == data, "the echo differs");
}

#[test]
fn five_hundred_async_clients_at_once() {
    let rt = runtime();
    let addr = echo_server(&rt);
    let ok = rt.block_on(async move {
        let clients: Vec<_> = (0..500u32)
            .map(|i| {
                rt::spawn(async move {
                    let mut stream = TcpStream::connect(addr).await.unwrap();
                    let data = pattern(10_000, i as u8);
                    stream.write_all(&data).await.unwrap();
                    let mut back = vec![0u8; data.len()];
                    stream.read_exact(&mut back).await.unwrap();
                    back == data
                })
            })
            .collect();
        let mut ok = 0;
        for client in clients {
            ok += usize::from(client.await.unwrap());
        }
        ok
    });
    assert_eq!(ok, 500);
}

#[test]
fn a_half_closed_client_still_gets_its_echo_then_end_of_stream() {
    let rt = runtime();
    let addr = echo_server(&rt);
    rt.block_on(async move {
        let mut stream = TcpStream::connect(addr).await.unwrap();
        stream.write_all(b"last words").await.unwrap();
        stream.close().await.unwrap(); // shutdown(Write)
        let mut back = Vec::new();
        stream.read_to_end(&mut back).await.unwrap();
        assert_eq!(back, b"last words");
    });
}

#[test]
fn a_reset_connection_does_not_disturb_the_server() {
    let rt = runtime();
    let addr = echo_server(&rt);
    for _ in 0..20 {
        let client = std::net::TcpStream::connect(addr).unwrap();
        let socket = socket_with_linger_zero(client);
        drop(socket); // RST instead of FIN
    }
    // Still serving.
    let mut client = std::net::TcpStream::connect(addr).unwrap();
    client
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    client.write_all(b"ping").unwrap();
    let mut back = [0u8; 4];
    client.read_exact(&mut back).unwrap();
    assert_eq!(&back, b"ping");
}

fn socket_with_linger_zero(stream: std::net::TcpStream) -> std::net::TcpStream {
    use std::os::fd::AsRawFd;
    let linger = libc_linger();
    // SAFETY: setsockopt on a valid descriptor with a correctly sized value.
    unsafe {
        libc::setsockopt(
            stream.as_raw_fd(),
            libc::SOL_SOCKET,
            libc::SO_LINGER,
            (&linger as *const libc::linger).cast(),
            std::mem::size_of::<libc::linger>() as libc::socklen_t,
        );
    }
    stream
}

fn libc_linger() -> libc::linger {
    libc::linger {
        l_onoff: 1,
        l_linger: 0,
    }
}

#[test]
fn connecting_to_a_closed_port_is_an_error_not_a_hang() {
    let rt = runtime();
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap()
    };
    let result = rt.block_on(TcpStream::connect(port));
    assert!(result.is_err());
}

#[test]
fn dropping_sockets_deregisters_them() {
    let rt = runtime();
    let before = rt.metrics().io_driver_registered_sockets();
    let addr = echo_server(&rt);
    rt.block_on(async move {
        let streams: Vec<_> =
            futures::future::join_all((0..50).map(|_| TcpStream::connect(addr))).await;
        assert!(streams.iter().all(Result::is_ok));
        drop(streams);
    });
    // The listener stays; the 50 clients and (once they see end of stream)
    // the 50 server-side streams go.
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while rt.metrics().io_driver_registered_sockets() > before + 1 {
        assert!(
            std::time::Instant::now() < deadline,
            "sockets were not deregistered"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
}

#[test]
fn a_socket_outside_a_runtime_panics_with_tokios_words() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let panic = std::panic::catch_unwind(move || {
        // Not unwrapped: the panic must come from `from_std` itself, as
        // Tokio's does, not from a caller that unwraps an error.
        let _ = TcpListener::from_std(listener);
    })
    .expect_err("a socket was made outside a runtime");
    let message = panic.downcast_ref::<String>().cloned().unwrap_or_default();
    assert!(message.contains("there is no reactor running"), "{message}");
}
