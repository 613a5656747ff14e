//! The capstone's HTTP server on `rt`, driven by clients it did not write:
//! hyper's own client on Tokio, raw sockets for what a polite client never
//! does (pipelining, a body cut short, headers that never end, garbage), and
//! `curl` when the machine has it. Each test starts its own server in-process
//! on a loopback port; every wait has a deadline.

// Real sockets and threads: Miri runs the library's tests only.
#![cfg(not(miri))]
#![cfg(not(loom))]

use bytes::Bytes;
use chapter_07::http::{Config, OnRt, Protocol, serve};
use futures::channel::oneshot;
use http_body_util::{BodyExt, Full};
use hyper::{Method, Request, StatusCode};
use hyper_util::rt::{TokioExecutor, TokioIo};
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

/// How long any step may take before it counts as a hang.
const PATIENCE: Duration = Duration::from_secs(20);

/// An `rt` runtime serving HTTP on a free loopback port; shut down (the
/// graceful way) when dropped.
struct RtServer {
    addr: SocketAddr,
    stop: Option<oneshot::Sender<()>>,
    runtime: Option<rt::Runtime>,
}

impl RtServer {
    fn start(config: Config) -> RtServer {
        let runtime = rt::Builder::new_multi_thread()
            .worker_threads(2)
            .build()
            .expect("runtime");
        let listener = runtime
            .block_on(rt::net::TcpListener::bind("127.0.0.1:0"))
            .expect("bind");
        let addr = listener.local_addr().unwrap();
        let (stop, stopped) = oneshot::channel::<()>();
        drop(runtime.spawn(serve::<OnRt>(listener, config, async {
            let _ = stopped.await;
        })));
        RtServer {
            addr,
            stop: Some(stop),
            runtime: Some(runtime),
        }
    }

    fn http1() -> RtServer {
        RtServer::start(Config::default())
    }

    /// A raw connection with read and write deadlines.
    fn raw(&self) -> TcpStream {
        let stream = TcpStream::connect(self.addr).unwrap();
        stream.set_read_timeout(Some(PATIENCE)).unwrap();
        stream.set_write_timeout(Some(PATIENCE)).unwrap();
        stream
    }

    /// One `GET /` on a fresh connection succeeds: the server still serves.
    fn still_serves(&self) {
        let mut stream = self.raw();
        stream
            .write_all(b"GET / HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
            .unwrap();
        let mut response = String::new();
        stream.read_to_string(&mut response).unwrap();
        assert!(response.starts_with("HTTP/1.1 200"), "{response}");
        assert!(response.ends_with("Hello from hyper\n"), "{response}");
    }
}

impl Drop for RtServer {
    fn drop(&mut self) {
        drop(self.stop.take());
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_timeout(Duration::from_secs(5));
        }
    }
}

/// A current-thread Tokio runtime for the client side.
fn tokio() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

fn get(path: &str) -> Request<Full<Bytes>> {
    Request::get(path)
        .header("host", "t")
        .body(Full::new(Bytes::new()))
        .unwrap()
}

#[test]
fn keep_alive_serves_several_requests_on_one_connection() {
    let server = RtServer::http1();
    tokio().block_on(async {
        let stream = tokio::net::TcpStream::connect(server.addr).await.unwrap();
        let (mut sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
            .await
            .unwrap();
        let connection = tokio::spawn(connection);
        for path in ["/", "/json", "/sleep?ms=20", "/", "/nope"] {
            let response = tokio::time::timeout(PATIENCE, sender.send_request(get(path)))
                .await
                .unwrap()
                .unwrap();
            let expected = if path == "/nope" {
                StatusCode::NOT_FOUND
            } else {
                StatusCode::OK
            };
            assert_eq!(response.status(), expected, "{path}");
            let body = response.into_body().collect().await.unwrap().to_bytes();
            if path == "/json" {
                let value: serde_json::Value = serde_json::from_slice(&body).unwrap();
                assert_eq!(value["message"], "Hello from hyper");
            }
        }
        drop(sender);
        connection.await.unwrap().unwrap();
    });
}

#[test]
fn pipelined_requests_get_both_responses_in_order() {
    let server = RtServer::http1();
    let mut stream = server.raw();
    stream
        .write_all(b"GET /json HTTP/1.1\r\nHost: t\r\n\r\nGET / HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
        .unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    assert_eq!(response.matches("HTTP/1.1 200 OK").count(), 2, "{response}");
    let json = response.find("\"message\"").expect("the first response");
    let text = response.rfind("Hello from hyper\n").unwrap();
    assert!(json < text, "responses out of order: {response}");
}

#[test]
fn echo_streams_ten_mib_back() {
    let server = RtServer::http1();
    let body: Vec<u8> = (0..10 << 20).map(|i: u32| (i % 251) as u8).collect();
    let body = Bytes::from(body);
    tokio().block_on(async {
        let stream = tokio::net::TcpStream::connect(server.addr).await.unwrap();
        let (mut sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
            .await
            .unwrap();
        tokio::spawn(connection);
        let request = Request::builder()
            .method(Method::POST)
            .uri("/echo")
            .header("host", "t")
            .body(Full::new(body.clone()))
            .unwrap();
        let echoed = tokio::time::timeout(PATIENCE, async {
            let response = sender.send_request(request).await.unwrap();
            assert_eq!(response.status(), StatusCode::OK);
            response.into_body().collect().await.unwrap().to_bytes()
        })
        .await
        .expect("the echo in time");
        assert_eq!(echoed.len(), body.len());
        assert!(echoed == body, "the echo differs");
    });
}

#[test]
fn a_client_leaving_mid_body_does_not_stop_the_server() {
    let server = RtServer::http1();
    for _ in 0..3 {
        let mut stream = server.raw();
        stream
            .write_all(b"POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 1000000\r\n\r\n")
            .unwrap();
        stream.write_all(&[b'x'; 10_000]).unwrap();
        drop(stream);
    }
    server.still_serves();
}

#[test]
fn headers_that_never_finish_hit_the_header_read_timeout() {
    let server = RtServer::start(Config {
        header_read_timeout: Duration::from_millis(300),
        ..Config::default()
    });
    let mut stream = server.raw();
    stream
        .write_all(b"GET / HTTP/1.1\r\nHost: t\r\nX-Slow:")
        .unwrap();
    let started = Instant::now();
    let mut response = Vec::new();
    // The server answers 408 or just closes; either way the read ends.
    let _ = stream.read_to_end(&mut response);
    let waited = started.elapsed();
    assert!(
        waited >= Duration::from_millis(250),
        "closed after {waited:?}"
    );
    assert!(waited < Duration::from_secs(10), "no timeout: {waited:?}");
    let response = String::from_utf8_lossy(&response);
    assert!(
        response.is_empty() || response.starts_with("HTTP/1.1 408"),
        "{response}"
    );
    server.still_serves();
}

#[test]
fn http2_serves_a_hundred_concurrent_streams() {
    let server = RtServer::start(Config {
        protocol: Protocol::Http2,
        ..Config::default()
    });
    tokio().block_on(async {
        let stream = tokio::net::TcpStream::connect(server.addr).await.unwrap();
        let (sender, connection) =
            hyper::client::conn::http2::handshake(TokioExecutor::new(), TokioIo::new(stream))
                .await
                .unwrap();
        tokio::spawn(connection);
        let started = Instant::now();
        let requests: Vec<_> = (0..100)
            .map(|i| {
                let mut sender = sender.clone();
                tokio::spawn(async move {
                    let path = if i % 2 == 0 { "/sleep?ms=200" } else { "/json" };
                    let request = Request::get(format!("http://t{path}"))
                        .body(Full::new(Bytes::new()))
                        .unwrap();
                    let response = sender.send_request(request).await.unwrap();
                    assert_eq!(response.status(), StatusCode::OK);
                    assert_eq!(response.version(), hyper::Version::HTTP_2);
                    response.into_body().collect().await.unwrap().to_bytes()
                })
            })
            .collect();
        for request in requests {
            tokio::time::timeout(PATIENCE, request)
                .await
                .unwrap()
                .unwrap();
        }
        // Fifty 200 ms sleeps on one connection overlapped: far under 50 x 200 ms.
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "{:?}",
            started.elapsed()
        );
    });
}

#[test]
fn a_malformed_request_gets_400_and_the_server_keeps_serving() {
    let server = RtServer::http1();
    let mut stream = server.raw();
    stream.write_all(b"GARBAGE\x01 / HTTP/9\r\n\r\n").unwrap();
    let mut response = Vec::new();
    let _ = stream.read_to_end(&mut response);
    let response = String::from_utf8_lossy(&response);
    assert!(response.starts_with("HTTP/1.1 400"), "{response}");
    server.still_serves();
}

#[test]
fn curl_gets_every_route() {
    let Ok(version) = std::process::Command::new("curl").arg("--version").output() else {
        eprintln!("skipped: curl is not installed");
        return;
    };
    assert!(version.status.success());
    let server = RtServer::http1();
    let base = format!("http://{}", server.addr);
    let curl = |args: &[&str]| {
        let output = std::process::Command::new("curl")
            .args(["-sS", "--max-time", "10"])
            .args(args)
            .output()
            .unwrap();
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        String::from_utf8(output.stdout).unwrap()
    };
    assert_eq!(curl(&[&format!("{base}/")]), "Hello from hyper\n");
    assert!(curl(&[&format!("{base}/json")]).contains("\"routes\""));
    assert_eq!(curl(&[&format!("{base}/sleep?ms=10")]), "slept 10 ms\n");
    assert_eq!(
        curl(&["--data-binary", "ping", &format!("{base}/echo")]),
        "ping"
    );
    // Two URLs on one command line: curl reuses the connection (keep-alive).
    assert_eq!(
        curl(&[&format!("{base}/"), &format!("{base}/")]),
        "Hello from hyper\n".repeat(2)
    );
}
