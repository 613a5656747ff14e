//! Tests for exercise ch09_graceful (`exercises/ch09/graceful.rs`).

#[cfg_attr(not(feature = "solutions"), path = "../ch09/graceful.rs")]
#[cfg_attr(feature = "solutions", path = "../solutions/ch09/graceful.rs")]
#[allow(dead_code, unused_variables, unused_imports, unused_mut)]
mod graceful;

mod ch09_graceful {
    use super::graceful::serve;
    use bytes::Bytes;
    use futures::io::{AsyncReadExt, AsyncWriteExt};
    use http_body_util::Full;
    use hyper::body::Incoming;
    use hyper::service::service_fn;
    use hyper::{Request, Response};
    use rt::net::{TcpListener, TcpStream};
    use rt::sync::{Notify, watch};
    use std::convert::Infallible;
    use std::future::Future;
    use std::io;
    use std::net::SocketAddr;
    use std::sync::Arc;
    use std::time::Duration;

    /// How long any step may take before it counts as a hang.
    const PATIENCE: Duration = Duration::from_secs(20);

    /// `what`, which must finish within [`PATIENCE`].
    async fn bounded<T>(what: &str, future: impl Future<Output = T>) -> T {
        match rt::time::timeout(PATIENCE, future).await {
            Ok(value) => value,
            Err(_) => panic!("waited {PATIENCE:?} for {what}"),
        }
    }

    /// Runs `test` on a fresh two-worker runtime.
    fn run(test: impl Future<Output = ()> + Send + 'static) {
        let runtime = rt::Builder::new_multi_thread()
            .worker_threads(2)
            .build()
            .expect("runtime");
        runtime.block_on(test);
        runtime.shutdown_timeout(Duration::from_secs(5));
    }

    /// How the test holds a `/slow` request in flight: the handler says it
    /// has `started`, then waits for `release`.
    #[derive(Default)]
    struct Gate {
        started: Notify,
        release: Notify,
    }

    /// `GET /slow` waits at the gate; any other path is answered at once.
    /// Every answer's body is `done PATH\n`.
    fn service(
        gate: Arc<Gate>,
    ) -> impl hyper::service::Service<
        Request<Incoming>,
        Response = Response<Full<Bytes>>,
        Error = Infallible,
        Future = impl Send + 'static,
    > + Clone
    + Send
    + 'static {
        service_fn(move |request: Request<Incoming>| {
            let gate = gate.clone();
            async move {
                let path = request.uri().path().to_string();
                if path == "/slow" {
                    gate.started.notify_one();
                    gate.release.notified().await;
                }
                Ok(Response::new(Full::new(Bytes::from(format!(
                    "done {path}\n"
                )))))
            }
        })
    }

    /// A server on a free loopback port, its signal, and its gate.
    async fn start() -> (
        SocketAddr,
        watch::Sender<bool>,
        Arc<Gate>,
        rt::task::JoinHandle<usize>,
    ) {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let addr = listener.local_addr().unwrap();
        let (signal, shutdown) = watch::channel(false);
        let gate = Arc::new(Gate::default());
        let server = rt::spawn(serve(listener, service(gate.clone()), shutdown));
        (addr, signal, gate, server)
    }

    async fn send_get(stream: &mut TcpStream, path: &str) {
        let request = format!("GET {path} HTTP/1.1\r\nHost: t\r\n\r\n");
        bounded("writing a request", stream.write_all(request.as_bytes()))
            .await
            .expect("writing a request");
    }

    /// One response: its head (lowercased) and its body, framed by
    /// `content-length`.
    async fn read_response(stream: &mut TcpStream) -> (String, String) {
        let mut bytes = Vec::new();
        let mut chunk = [0u8; 1024];
        let head_end = loop {
            if let Some(at) = bytes.windows(4).position(|w| w == b"\r\n\r\n") {
                break at + 4;
            }
            let n = bounded("a response", stream.read(&mut chunk))
                .await
                .expect("reading a response");
            assert!(
                n > 0,
                "the connection closed before a response: {:?}",
                String::from_utf8_lossy(&bytes)
            );
            bytes.extend_from_slice(&chunk[..n]);
        };
        let head = String::from_utf8_lossy(&bytes[..head_end]).to_lowercase();
        let length: usize = head
            .lines()
            .find_map(|line| line.strip_prefix("content-length:"))
            .expect("a content-length header")
            .trim()
            .parse()
            .unwrap();
        while bytes.len() < head_end + length {
            let n = bounded("a response body", stream.read(&mut chunk))
                .await
                .expect("reading a body");
            assert!(n > 0, "the connection closed in the middle of a body");
            bytes.extend_from_slice(&chunk[..n]);
        }
        let body = String::from_utf8_lossy(&bytes[head_end..]).into_owned();
        (head, body)
    }

    /// Waits for the server to close `stream`.
    async fn closed(stream: &mut TcpStream, what: &str) {
        let mut chunk = [0u8; 64];
        match bounded(what, stream.read(&mut chunk)).await {
            Ok(0) => {}
            Ok(n) => panic!("{what}: {n} unexpected bytes"),
            Err(error) => assert_eq!(
                error.kind(),
                io::ErrorKind::ConnectionReset,
                "{what}: {error}"
            ),
        }
    }

    /// A keep-alive connection that has made one request and is now idle.
    async fn idle_connection(addr: SocketAddr) -> TcpStream {
        let mut stream = bounded("connecting", TcpStream::connect(addr))
            .await
            .expect("connect");
        send_get(&mut stream, "/").await;
        let (head, body) = read_response(&mut stream).await;
        assert!(head.starts_with("http/1.1 200"), "{head}");
        assert!(
            !head.contains("connection: close"),
            "before the signal, connections are kept alive: {head}"
        );
        assert_eq!(body, "done /\n");
        stream
    }

    #[test]
    fn a_request_in_flight_finishes_and_new_connections_are_refused() {
        run(async {
            let (addr, signal, gate, server) = start().await;
            let mut client = TcpStream::connect(addr).await.expect("connect");
            send_get(&mut client, "/slow").await;
            bounded("the /slow handler to start", gate.started.notified()).await;

            signal.send(true).expect("the server holds the receiver");
            bounded("the listener to close", async {
                loop {
                    match TcpStream::connect(addr).await {
                        Err(error) if error.kind() == io::ErrorKind::ConnectionRefused => break,
                        // Still in the backlog when the listener closed.
                        Err(error) if error.kind() == io::ErrorKind::ConnectionReset => {}
                        Err(error) => panic!("connecting after the signal: {error}"),
                        Ok(probe) => {
                            drop(probe);
                            rt::time::sleep(Duration::from_millis(10)).await;
                        }
                    }
                }
            })
            .await;
            // The handler is still held at the gate: serve cannot be done.
            rt::time::sleep(Duration::from_millis(50)).await;
            assert!(
                !server.is_finished(),
                "serve returned while a request was still in flight"
            );

            gate.release.notify_one();
            let (head, body) = read_response(&mut client).await;
            assert!(head.starts_with("http/1.1 200"), "{head}");
            assert_eq!(
                body, "done /slow\n",
                "the request in flight gets its answer"
            );
            assert!(
                head.contains("connection: close"),
                "after the signal, the answer says the connection closes: {head}"
            );
            closed(&mut client, "the connection to close after its last answer").await;
            let accepted = bounded("serve to return", server).await.expect("serve");
            assert!(accepted >= 1, "serve accepted {accepted} connections");
        });
    }

    #[test]
    fn idle_keep_alive_connections_close_at_the_signal_and_serve_counts_them() {
        run(async {
            let (addr, signal, _gate, server) = start().await;
            let mut idle = Vec::new();
            for _ in 0..3 {
                idle.push(idle_connection(addr).await);
            }
            // A fourth comes and goes before the signal.
            drop(idle_connection(addr).await);

            signal.send(true).expect("the server holds the receiver");
            for stream in &mut idle {
                closed(
                    stream,
                    "an idle keep-alive connection to close at the signal",
                )
                .await;
            }
            let accepted = bounded("serve to return", server).await.expect("serve");
            assert_eq!(accepted, 4, "four connections were accepted");
        });
    }

    #[test]
    fn a_signal_before_the_first_connection_accepts_nothing() {
        run(async {
            let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
            let addr = listener.local_addr().unwrap();
            let (signal, shutdown) = watch::channel(true);
            let gate = Arc::new(Gate::default());
            let accepted = bounded(
                "serve to return at once",
                serve(listener, service(gate), shutdown),
            )
            .await;
            assert_eq!(accepted, 0);
            let refused = TcpStream::connect(addr)
                .await
                .expect_err("the listener is gone");
            assert_eq!(refused.kind(), io::ErrorKind::ConnectionRefused);
            drop(signal);
        });
    }

    #[test]
    fn a_sender_that_goes_away_is_a_signal_too() {
        run(async {
            let (addr, signal, gate, server) = start().await;
            let mut idle = idle_connection(addr).await;
            let mut busy = TcpStream::connect(addr).await.expect("connect");
            send_get(&mut busy, "/slow").await;
            bounded("the /slow handler to start", gate.started.notified()).await;

            drop(signal);
            closed(
                &mut idle,
                "the idle connection to close when the sender goes",
            )
            .await;
            gate.release.notify_one();
            let (head, body) = read_response(&mut busy).await;
            assert_eq!(body, "done /slow\n", "{head}");
            closed(&mut busy, "the busy connection to close after its answer").await;
            let accepted = bounded("serve to return", server).await.expect("serve");
            assert_eq!(accepted, 2);
        });
    }
}
