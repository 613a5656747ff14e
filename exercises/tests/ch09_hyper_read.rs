//! Tests for exercise ch09_hyper_read (`exercises/ch09/hyper_read.rs`).

#[cfg_attr(not(feature = "solutions"), path = "../ch09/hyper_read.rs")]
#[cfg_attr(feature = "solutions", path = "../solutions/ch09/hyper_read.rs")]
#[allow(dead_code, unused_variables, unused_imports, unused_mut)]
mod hyper_read;

mod ch09_hyper_read {
    use super::hyper_read::HyperIo;
    use std::collections::VecDeque;
    use std::io;
    use std::mem::MaybeUninit;
    use std::pin::Pin;
    use std::sync::Arc;
    use std::task::{Context, Poll, Wake, Waker};

    use futures::io::{AsyncRead, AsyncWrite};
    use hyper::rt::{Read, ReadBuf, Write};

    /// One step of a [`Script`]ed stream.
    enum Step {
        /// Deliver these bytes (as many as fit; the rest stays for the next
        /// read).
        Data(Vec<u8>),
        /// Not yet: keep the waker and return `Pending`.
        Pending,
        /// The end of the stream: `Ready(Ok(0))`.
        End,
        /// `Ready(Err(_))` of this kind.
        Fail(io::ErrorKind),
        /// A buggy stream: claims one byte more than it was given room for.
        Lie,
    }

    /// A stream that answers each read with the next step of its script,
    /// and records what it was asked and what was written to it.
    #[derive(Default)]
    struct Script {
        steps: VecDeque<Step>,
        /// The length of the buffer each read was given.
        asked: Vec<usize>,
        /// The waker of each read that returned `Pending`.
        wakers: Vec<Waker>,
        written: Vec<u8>,
        flushes: usize,
        closes: usize,
    }

    fn script(steps: Vec<Step>) -> HyperIo<Script> {
        HyperIo(Script {
            steps: steps.into(),
            ..Script::default()
        })
    }

    fn data(bytes: &[u8]) -> Step {
        Step::Data(bytes.to_vec())
    }

    impl AsyncRead for Script {
        fn poll_read(
            self: Pin<&mut Self>,
            cx: &mut Context<'_>,
            buf: &mut [u8],
        ) -> Poll<io::Result<usize>> {
            let this = self.get_mut();
            this.asked.push(buf.len());
            match this
                .steps
                .pop_front()
                .expect("read past the end of the script")
            {
                Step::Data(mut bytes) => {
                    let n = bytes.len().min(buf.len());
                    buf[..n].copy_from_slice(&bytes[..n]);
                    if n < bytes.len() {
                        this.steps.push_front(Step::Data(bytes.split_off(n)));
                    }
                    Poll::Ready(Ok(n))
                }
                Step::Pending => {
                    this.wakers.push(cx.waker().clone());
                    Poll::Pending
                }
                Step::End => Poll::Ready(Ok(0)),
                Step::Fail(kind) => Poll::Ready(Err(io::Error::new(kind, "scripted failure"))),
                Step::Lie => Poll::Ready(Ok(buf.len() + 1)),
            }
        }
    }

    impl AsyncWrite for Script {
        fn poll_write(
            self: Pin<&mut Self>,
            _: &mut Context<'_>,
            buf: &[u8],
        ) -> Poll<io::Result<usize>> {
            self.get_mut().written.extend_from_slice(buf);
            Poll::Ready(Ok(buf.len()))
        }

        fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
            self.get_mut().flushes += 1;
            Poll::Ready(Ok(()))
        }

        fn poll_close(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
            self.get_mut().closes += 1;
            Poll::Ready(Ok(()))
        }
    }

    /// Counts its wakes.
    #[derive(Default)]
    struct Wakes(std::sync::atomic::AtomicUsize);

    impl Wake for Wakes {
        fn wake(self: Arc<Self>) {
            self.wake_by_ref();
        }
        fn wake_by_ref(self: &Arc<Self>) {
            self.0.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        }
    }

    /// One `Read::poll_read` into the free end of `buf`, with `cx`.
    fn poll_once(
        io: &mut HyperIo<Script>,
        buf: &mut ReadBuf<'_>,
        cx: &mut Context<'_>,
    ) -> Poll<io::Result<()>> {
        Read::poll_read(Pin::new(io), cx, buf.unfilled())
    }

    fn noop() -> Context<'static> {
        Context::from_waker(Waker::noop())
    }

    #[test]
    fn trickled_bytes_fill_the_cursor_by_exactly_what_arrived() {
        let mut io = script(vec![
            data(b"GET"),
            Step::Pending,
            data(b" /"),
            Step::Pending,
            Step::Pending,
            data(b" HTTP/1.1\r\n"),
            data(b"H"),
        ]);
        // hyper's buffers are uninitialized memory; so is this one.
        let mut backing = [MaybeUninit::<u8>::uninit(); 64];
        let mut buf = ReadBuf::uninit(&mut backing);
        let mut cx = noop();
        let mut expected = Vec::new();
        for (poll, arrives) in [
            Some(&b"GET"[..]),
            None,
            Some(b" /"),
            None,
            None,
            Some(b" HTTP/1.1\r\n"),
            Some(b"H"),
        ]
        .into_iter()
        .enumerate()
        {
            let room = 64 - expected.len();
            match (poll_once(&mut io, &mut buf, &mut cx), arrives) {
                (Poll::Ready(Ok(())), Some(bytes)) => expected.extend_from_slice(bytes),
                (Poll::Pending, None) => {}
                (got, arrives) => panic!(
                    "poll {poll}: expected {}, got {got:?}",
                    if arrives.is_some() {
                        "Ready(Ok(()))"
                    } else {
                        "Pending"
                    }
                ),
            }
            assert_eq!(
                buf.filled(),
                &expected[..],
                "after poll {poll}, the cursor must hold exactly the bytes that arrived"
            );
            let asked = io.0.asked[poll];
            assert!(
                (room.min(8192)..=room).contains(&asked),
                "poll {poll}: the stream was lent {asked} bytes with {room} free in the cursor"
            );
        }
        assert_eq!(io.0.asked.len(), 7, "one stream read per poll_read");
    }

    #[test]
    fn pending_fills_nothing_and_passes_the_waker_through() {
        let mut io = script(vec![Step::Pending, data(b"late")]);
        let wakes = Arc::new(Wakes::default());
        let waker = Waker::from(wakes.clone());
        let mut cx = Context::from_waker(&waker);
        let mut backing = [MaybeUninit::<u8>::uninit(); 16];
        let mut buf = ReadBuf::uninit(&mut backing);
        assert!(poll_once(&mut io, &mut buf, &mut cx).is_pending());
        assert_eq!(buf.filled(), b"", "Pending must fill nothing");
        assert_eq!(io.0.wakers.len(), 1, "the stream must have been polled");
        // Waking what the stream kept must wake the caller. (Counted rather
        // than compared with `will_wake`, which compares vtable addresses:
        // Miri may give each use of a vtable its own address, and did.)
        io.0.wakers.pop().unwrap().wake();
        assert_eq!(
            wakes.0.load(std::sync::atomic::Ordering::SeqCst),
            1,
            "the stream must get the caller's waker, to wake hyper when bytes come"
        );
        assert!(matches!(
            poll_once(&mut io, &mut buf, &mut cx),
            Poll::Ready(Ok(()))
        ));
        assert_eq!(buf.filled(), b"late");
    }

    #[test]
    fn the_end_of_the_stream_is_ready_with_nothing_filled() {
        let mut io = script(vec![data(b"last words"), Step::End, Step::End]);
        let mut backing = [MaybeUninit::<u8>::uninit(); 32];
        let mut buf = ReadBuf::uninit(&mut backing);
        let mut cx = noop();
        assert!(matches!(
            poll_once(&mut io, &mut buf, &mut cx),
            Poll::Ready(Ok(()))
        ));
        assert_eq!(buf.filled(), b"last words");
        for _ in 0..2 {
            assert!(
                matches!(poll_once(&mut io, &mut buf, &mut cx), Poll::Ready(Ok(()))),
                "the end is Ready(Ok(())), not Pending and not an error"
            );
            assert_eq!(buf.filled(), b"last words", "the end fills nothing");
        }
        assert!(
            io.0.asked.iter().all(|&asked| asked > 0),
            "a read lent 0 bytes cannot tell the end from an empty buffer: {:?}",
            io.0.asked
        );
    }

    #[test]
    fn an_error_passes_through_and_fills_nothing() {
        let mut io = script(vec![
            data(b"ab"),
            Step::Fail(io::ErrorKind::ConnectionReset),
        ]);
        let mut backing = [MaybeUninit::<u8>::uninit(); 8];
        let mut buf = ReadBuf::uninit(&mut backing);
        let mut cx = noop();
        assert!(matches!(
            poll_once(&mut io, &mut buf, &mut cx),
            Poll::Ready(Ok(()))
        ));
        match poll_once(&mut io, &mut buf, &mut cx) {
            Poll::Ready(Err(error)) => {
                assert_eq!(error.kind(), io::ErrorKind::ConnectionReset);
                assert_eq!(
                    error.to_string(),
                    "scripted failure",
                    "the stream's own error"
                );
            }
            other => panic!("expected the stream's error, got {other:?}"),
        }
        assert_eq!(buf.filled(), b"ab", "an error fills nothing");
    }

    #[test]
    fn a_read_never_overruns_the_cursor_and_can_fill_it_exactly() {
        let mut io = script(vec![data(b"hello, world"), data(b"!")]);
        let mut cx = noop();
        // Five bytes of room for twelve on offer: exactly five arrive.
        let mut small = [0u8; 5];
        let mut buf = ReadBuf::new(&mut small);
        assert!(matches!(
            poll_once(&mut io, &mut buf, &mut cx),
            Poll::Ready(Ok(()))
        ));
        assert_eq!(io.0.asked, [5], "lend the stream all of a small cursor");
        assert_eq!(buf.filled(), b"hello", "a full cursor is a good read");
        // The rest comes with the next read, into a fresh buffer.
        let mut large = Box::<[u8]>::new_uninit_slice(1 << 20);
        let mut buf = ReadBuf::uninit(&mut large);
        assert!(matches!(
            poll_once(&mut io, &mut buf, &mut cx),
            Poll::Ready(Ok(()))
        ));
        assert_eq!(buf.filled(), b", world");
        let asked = io.0.asked[1];
        assert!(
            (8192..=1 << 20).contains(&asked),
            "with 1 MiB free, lend the stream at least 8 KiB and at most 1 MiB, not {asked}"
        );
    }

    #[test]
    fn a_stream_that_claims_more_than_it_was_given_is_an_error() {
        let mut io = script(vec![data(b"ok"), Step::Lie]);
        let mut backing = [0u8; 16];
        let mut buf = ReadBuf::new(&mut backing);
        let mut cx = noop();
        assert!(matches!(
            poll_once(&mut io, &mut buf, &mut cx),
            Poll::Ready(Ok(()))
        ));
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            poll_once(&mut io, &mut buf, &mut cx)
        }));
        match result {
            Ok(Poll::Ready(Err(error))) => {
                assert_eq!(error.kind(), io::ErrorKind::InvalidData, "{error}")
            }
            Ok(other) => panic!("a stream that lies about n must be an error, got {other:?}"),
            Err(_) => panic!("a stream that lies about n must be an error, not a panic"),
        }
        assert_eq!(buf.filled(), b"ok", "nothing may be marked filled");
    }

    #[test]
    fn both_halves_reach_the_stream() {
        let mut io = script(vec![data(b"ping")]);
        let mut backing = [MaybeUninit::<u8>::uninit(); 8];
        let mut buf = ReadBuf::uninit(&mut backing);
        let mut cx = noop();
        assert!(matches!(
            poll_once(&mut io, &mut buf, &mut cx),
            Poll::Ready(Ok(()))
        ));
        assert_eq!(buf.filled(), b"ping");
        // The Write half was written for you; this checks it still forwards.
        assert!(matches!(
            Write::poll_write(Pin::new(&mut io), &mut cx, b"pong"),
            Poll::Ready(Ok(4))
        ));
        assert!(matches!(
            Write::poll_flush(Pin::new(&mut io), &mut cx),
            Poll::Ready(Ok(()))
        ));
        assert!(matches!(
            Write::poll_shutdown(Pin::new(&mut io), &mut cx),
            Poll::Ready(Ok(()))
        ));
        assert_eq!(
            (&io.0.written[..], io.0.flushes, io.0.closes),
            (&b"pong"[..], 1, 1)
        );
    }

    #[cfg(not(miri))]
    mod http {
        //! hyper's HTTP/1.1 server, over the adapter, on `rt`'s sockets;
        //! the clients are plain blocking sockets that write raw HTTP.

        use super::super::hyper_read::HyperIo;
        use bytes::Bytes;
        use futures::FutureExt;
        use futures::io::{AsyncRead, AsyncWrite};
        use http_body_util::{BodyExt, Full};
        use hyper::body::Incoming;
        use hyper::server::conn::http1;
        use hyper::service::service_fn;
        use hyper::{Method, Request, Response, StatusCode};
        use std::io::{self, BufRead, BufReader, Read, Write};
        use std::net::{Shutdown, SocketAddr, TcpStream};
        use std::panic::AssertUnwindSafe;
        use std::pin::Pin;
        use std::sync::Arc;
        use std::sync::atomic::{AtomicUsize, Ordering};
        use std::sync::mpsc::{self, Receiver};
        use std::task::{Context, Poll};
        use std::time::Duration;

        /// How long any step may take before it counts as a hang.
        const PATIENCE: Duration = Duration::from_secs(20);

        /// What the server saw of one connection, once it was over.
        #[derive(Debug)]
        struct Finished {
            /// `serve_connection`'s result, or "panicked".
            outcome: Result<(), String>,
            /// Reads of the socket that returned bytes.
            reads: usize,
            /// Reads of the socket that returned `Pending`.
            pendings: usize,
        }

        #[derive(Default)]
        struct Counts {
            reads: AtomicUsize,
            pendings: AtomicUsize,
        }

        /// A socket that counts how its reads went.
        struct Counted {
            stream: rt::net::TcpStream,
            counts: Arc<Counts>,
        }

        impl AsyncRead for Counted {
            fn poll_read(
                mut self: Pin<&mut Self>,
                cx: &mut Context<'_>,
                buf: &mut [u8],
            ) -> Poll<io::Result<usize>> {
                let poll = Pin::new(&mut self.stream).poll_read(cx, buf);
                match poll {
                    Poll::Ready(Ok(n)) if n > 0 => &self.counts.reads,
                    Poll::Pending => &self.counts.pendings,
                    _ => return poll,
                }
                .fetch_add(1, Ordering::SeqCst);
                poll
            }
        }

        impl AsyncWrite for Counted {
            fn poll_write(
                mut self: Pin<&mut Self>,
                cx: &mut Context<'_>,
                buf: &[u8],
            ) -> Poll<io::Result<usize>> {
                Pin::new(&mut self.stream).poll_write(cx, buf)
            }
            fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
                Pin::new(&mut self.stream).poll_flush(cx)
            }
            fn poll_close(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
                Pin::new(&mut self.stream).poll_close(cx)
            }
        }

        /// `GET /` is a greeting; `POST /echo` sends the body back, once it
        /// has all arrived.
        async fn respond(
            request: Request<Incoming>,
        ) -> Result<Response<Full<Bytes>>, hyper::Error> {
            let body = match (request.method(), request.uri().path()) {
                (&Method::GET, "/") => Bytes::from_static(b"hello from rt\n"),
                (&Method::POST, "/echo") => request.into_body().collect().await?.to_bytes(),
                _ => {
                    let mut response = Response::new(Full::new(Bytes::new()));
                    *response.status_mut() = StatusCode::NOT_FOUND;
                    return Ok(response);
                }
            };
            Ok(Response::new(Full::new(body)))
        }

        /// hyper's HTTP/1.1 server on an `rt` runtime, on a free loopback
        /// port; each connection it served is reported on `finished`.
        struct Server {
            addr: SocketAddr,
            finished: Receiver<Finished>,
            runtime: Option<rt::Runtime>,
        }

        impl Server {
            fn start() -> Server {
                let runtime = rt::Builder::new_multi_thread()
                    .worker_threads(2)
                    .build()
                    .expect("runtime");
                let listener = runtime
                    .block_on(rt::net::TcpListener::bind("127.0.0.1:0"))
                    .expect("bind");
                let addr = listener.local_addr().unwrap();
                let (report, finished) = mpsc::channel();
                drop(runtime.spawn(async move {
                    while let Ok((stream, _)) = listener.accept().await {
                        let report = report.clone();
                        drop(rt::spawn(async move {
                            let counts = Arc::new(Counts::default());
                            let io = HyperIo(Counted {
                                stream,
                                counts: counts.clone(),
                            });
                            let connection =
                                http1::Builder::new().serve_connection(io, service_fn(respond));
                            let outcome = match AssertUnwindSafe(connection).catch_unwind().await {
                                Ok(result) => result.map_err(|error| error.to_string()),
                                Err(_) => Err("panicked".to_string()),
                            };
                            let _ = report.send(Finished {
                                outcome,
                                reads: counts.reads.load(Ordering::SeqCst),
                                pendings: counts.pendings.load(Ordering::SeqCst),
                            });
                        }));
                    }
                }));
                Server {
                    addr,
                    finished,
                    runtime: Some(runtime),
                }
            }

            /// A client connection with read and write deadlines.
            fn connect(&self) -> TcpStream {
                let stream = TcpStream::connect(self.addr).unwrap();
                stream.set_read_timeout(Some(PATIENCE)).unwrap();
                stream.set_write_timeout(Some(PATIENCE)).unwrap();
                stream
            }

            /// The report of the next connection to end.
            fn next_finished(&self) -> Finished {
                self.finished
                    .recv_timeout(PATIENCE)
                    .expect("the connection never ended on the server")
            }
        }

        impl Drop for Server {
            fn drop(&mut self) {
                if let Some(runtime) = self.runtime.take() {
                    runtime.shutdown_timeout(Duration::from_secs(5));
                }
            }
        }

        /// Reads one response: its status line and its body (framed by
        /// `content-length`, which hyper sets for a `Full` body).
        fn read_response(reader: &mut BufReader<TcpStream>) -> (String, Vec<u8>) {
            let mut status = String::new();
            let mut length = None;
            let mut line = String::new();
            loop {
                line.clear();
                let n = reader.read_line(&mut line).expect("reading the response");
                assert!(n > 0, "the server closed the connection before a response");
                let line = line.trim_end();
                if line.is_empty() {
                    break;
                }
                if status.is_empty() {
                    status = line.to_string();
                } else if let Some((name, value)) = line.split_once(':')
                    && name.eq_ignore_ascii_case("content-length")
                {
                    length = Some(value.trim().parse::<usize>().unwrap());
                }
            }
            let mut body = vec![0; length.expect("a content-length header")];
            reader.read_exact(&mut body).expect("reading the body");
            (status, body)
        }

        fn get_root() -> &'static [u8] {
            b"GET / HTTP/1.1\r\nHost: t\r\n\r\n"
        }

        fn post_echo_head(length: usize) -> Vec<u8> {
            format!("POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: {length}\r\n\r\n")
                .into_bytes()
        }

        #[test]
        fn a_get_gets_its_body() {
            let server = Server::start();
            let mut client = server.connect();
            client.write_all(get_root()).unwrap();
            let mut reader = BufReader::new(client.try_clone().unwrap());
            let (status, body) = read_response(&mut reader);
            assert_eq!(status, "HTTP/1.1 200 OK");
            assert_eq!(body, b"hello from rt\n");
            drop((client, reader));
            let finished = server.next_finished();
            assert_eq!(
                finished.outcome,
                Ok(()),
                "the client left between requests: a clean end ({finished:?})"
            );
        }

        #[test]
        fn a_one_mebibyte_post_is_echoed_intact_over_many_reads() {
            let server = Server::start();
            let payload: Vec<u8> = (0..1usize << 20).map(|i| (i % 251) as u8).collect();
            let mut client = server.connect();
            client.write_all(&post_echo_head(payload.len())).unwrap();
            let (first, second) = payload.split_at(payload.len() / 2);
            client.write_all(first).unwrap();
            // A gap in the middle of the body: the server drains what it has
            // and must then wait (Pending) for the rest.
            std::thread::sleep(Duration::from_millis(100));
            client.write_all(second).unwrap();
            let mut reader = BufReader::new(client.try_clone().unwrap());
            let (status, body) = read_response(&mut reader);
            assert_eq!(status, "HTTP/1.1 200 OK");
            assert_eq!(body.len(), payload.len(), "the echo's length");
            assert!(body == payload, "the echo differs from what was sent");
            drop((client, reader));
            let finished = server.next_finished();
            assert_eq!(finished.outcome, Ok(()), "{finished:?}");
            assert!(
                finished.reads >= 2 && finished.pendings >= 1,
                "the body should have come in several reads with a wait between: {finished:?}"
            );
        }

        #[test]
        fn keep_alive_serves_two_requests_on_one_connection() {
            let server = Server::start();
            let mut client = server.connect();
            let mut reader = BufReader::new(client.try_clone().unwrap());
            client.write_all(get_root()).unwrap();
            let (status, body) = read_response(&mut reader);
            assert_eq!(
                (status.as_str(), &body[..]),
                ("HTTP/1.1 200 OK", &b"hello from rt\n"[..])
            );
            client.write_all(&post_echo_head(6)).unwrap();
            client.write_all(b"second").unwrap();
            let (status, body) = read_response(&mut reader);
            assert_eq!(
                (status.as_str(), &body[..]),
                ("HTTP/1.1 200 OK", &b"second"[..])
            );
            drop((client, reader));
            let finished = server.next_finished();
            assert_eq!(finished.outcome, Ok(()), "{finished:?}");
            assert!(
                server.finished.try_recv().is_err(),
                "both requests went over the one connection"
            );
        }

        #[test]
        fn a_client_that_hangs_up_mid_request_ends_its_connection_without_a_panic() {
            let server = Server::start();
            // Half a request line, then gone.
            let mut client = server.connect();
            client.write_all(b"GET / HT").unwrap();
            client.shutdown(Shutdown::Both).unwrap();
            drop(client);
            let finished = server.next_finished();
            assert!(
                matches!(&finished.outcome, Err(e) if e != "panicked"),
                "a request cut short is hyper's error, not a panic and not a success: {finished:?}"
            );
            // The headers and 10 bytes of a 1000-byte body, then gone.
            let mut client = server.connect();
            client.write_all(&post_echo_head(1000)).unwrap();
            client.write_all(&[b'x'; 10]).unwrap();
            client.shutdown(Shutdown::Both).unwrap();
            drop(client);
            let finished = server.next_finished();
            assert!(
                matches!(&finished.outcome, Err(e) if e != "panicked"),
                "a body cut short is hyper's error, not a panic and not a success: {finished:?}"
            );
            // And the server still serves.
            let mut client = server.connect();
            client.write_all(get_root()).unwrap();
            let mut reader = BufReader::new(client);
            let (status, body) = read_response(&mut reader);
            assert_eq!(
                (status.as_str(), &body[..]),
                ("HTTP/1.1 200 OK", &b"hello from rt\n"[..])
            );
        }
    }
}
