//! Tests for exercise ch09_hyper_write (`exercises/ch09/hyper_write.rs`).

#[cfg_attr(not(feature = "solutions"), path = "../ch09/hyper_write.rs")]
#[cfg_attr(feature = "solutions", path = "../solutions/ch09/hyper_write.rs")]
#[allow(dead_code, unused_variables, unused_imports, unused_mut)]
mod hyper_write;

mod ch09_hyper_write {
    use super::hyper_write::HyperWrite;
    use std::collections::VecDeque;
    use std::io::{self, IoSlice};
    use std::pin::Pin;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::task::{Context, Poll, Wake, Waker};

    use futures::io::AsyncWrite;
    use hyper::rt::Write;

    /// One step of a [`Script`]ed stream: the answer to its next call.
    enum Step {
        /// A write takes at most this many bytes; a flush or close is done.
        Take(usize),
        /// Not yet: keep the waker and return `Pending`.
        Pending,
        /// `Ready(Err(_))` of this kind.
        Fail(io::ErrorKind),
        /// A buggy stream: a write claims one byte more than it was offered.
        Lie,
    }

    /// A stream that answers each call with the next step of its script, and
    /// records what it was given.
    #[derive(Default)]
    struct Script {
        steps: VecDeque<Step>,
        written: Vec<u8>,
        /// Calls of `poll_write`.
        plain: usize,
        /// The buffers of each `poll_write_vectored` call.
        vectored: Vec<Vec<Vec<u8>>>,
        flushes: usize,
        closes: usize,
        /// The waker of each call that returned `Pending`.
        wakers: Vec<Waker>,
    }

    impl Script {
        fn next(&mut self, cx: &Context<'_>) -> Poll<io::Result<usize>> {
            match self
                .steps
                .pop_front()
                .expect("called past the end of the script")
            {
                Step::Take(n) => Poll::Ready(Ok(n)),
                Step::Pending => {
                    self.wakers.push(cx.waker().clone());
                    Poll::Pending
                }
                Step::Fail(kind) => Poll::Ready(Err(io::Error::new(kind, "scripted failure"))),
                Step::Lie => Poll::Ready(Ok(usize::MAX)),
            }
        }

        /// Takes up to what the step allows from `bytes`; a lie takes
        /// nothing and claims one byte more than offered.
        fn take(&mut self, cx: &Context<'_>, bytes: &[u8]) -> Poll<io::Result<usize>> {
            match self.next(cx) {
                Poll::Ready(Ok(usize::MAX)) => Poll::Ready(Ok(bytes.len() + 1)),
                Poll::Ready(Ok(limit)) => {
                    let n = limit.min(bytes.len());
                    self.written.extend_from_slice(&bytes[..n]);
                    Poll::Ready(Ok(n))
                }
                other => other,
            }
        }

        fn done(&mut self, cx: &Context<'_>) -> Poll<io::Result<()>> {
            self.next(cx).map_ok(|_| ())
        }
    }

    impl AsyncWrite for Script {
        fn poll_write(
            self: Pin<&mut Self>,
            cx: &mut Context<'_>,
            buf: &[u8],
        ) -> Poll<io::Result<usize>> {
            let this = self.get_mut();
            this.plain += 1;
            this.take(cx, buf)
        }

        fn poll_write_vectored(
            self: Pin<&mut Self>,
            cx: &mut Context<'_>,
            bufs: &[IoSlice<'_>],
        ) -> Poll<io::Result<usize>> {
            let this = self.get_mut();
            this.vectored
                .push(bufs.iter().map(|buf| buf.to_vec()).collect());
            let all: Vec<u8> = bufs.iter().flat_map(|buf| buf.iter().copied()).collect();
            this.take(cx, &all)
        }

        fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
            let this = self.get_mut();
            this.flushes += 1;
            this.done(cx)
        }

        fn poll_close(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
            let this = self.get_mut();
            this.closes += 1;
            this.done(cx)
        }
    }

    fn script(steps: Vec<Step>) -> HyperWrite<Script> {
        HyperWrite {
            stream: Script {
                steps: steps.into(),
                ..Script::default()
            },
            vectored: true,
        }
    }

    /// Counts its wakes.
    #[derive(Default)]
    struct Wakes(AtomicUsize);

    impl Wake for Wakes {
        fn wake(self: Arc<Self>) {
            self.wake_by_ref();
        }
        fn wake_by_ref(self: &Arc<Self>) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }

    fn noop() -> Context<'static> {
        Context::from_waker(Waker::noop())
    }

    fn write(io: &mut HyperWrite<Script>, buf: &[u8]) -> Poll<io::Result<usize>> {
        Write::poll_write(Pin::new(io), &mut noop(), buf)
    }

    fn write_vectored(io: &mut HyperWrite<Script>, bufs: &[&[u8]]) -> Poll<io::Result<usize>> {
        let slices: Vec<IoSlice<'_>> = bufs.iter().map(|buf| IoSlice::new(buf)).collect();
        Write::poll_write_vectored(Pin::new(io), &mut noop(), &slices)
    }

    fn ready_count(poll: Poll<io::Result<usize>>) -> usize {
        match poll {
            Poll::Ready(Ok(n)) => n,
            other => panic!("expected Ready(Ok(n)), got {other:?}"),
        }
    }

    fn error_kind<T: std::fmt::Debug>(poll: Poll<io::Result<T>>) -> io::ErrorKind {
        match poll {
            Poll::Ready(Err(error)) => error.kind(),
            other => panic!("expected Ready(Err(_)), got {other:?}"),
        }
    }

    #[test]
    fn a_write_returns_what_the_stream_took_even_when_it_took_less() {
        let mut io = script(vec![Step::Take(3), Step::Take(100), Step::Take(0)]);
        assert_eq!(
            ready_count(write(&mut io, b"0123456789")),
            3,
            "the stream took 3 of 10 bytes: say 3, and hyper writes the rest"
        );
        assert_eq!(
            ready_count(write(&mut io, b"3456789")),
            7,
            "the stream took all 7 bytes"
        );
        assert_eq!(
            ready_count(write(&mut io, b"more")),
            0,
            "a write of 0 is the stream's answer, not an error of ours"
        );
        assert_eq!(io.stream.written, b"0123456789");
        assert_eq!(io.stream.plain, 3, "one stream write per poll_write");
        assert!(io.stream.vectored.is_empty(), "poll_write is a plain write");
        assert_eq!((io.stream.flushes, io.stream.closes), (0, 0));
    }

    #[test]
    fn a_vectored_write_hands_every_buffer_to_the_stream() {
        let head: &[u8] = b"HTTP/1.1 200 OK\r\ncontent-length: 5\r\n\r\n";
        let mut io = script(vec![Step::Take(1000), Step::Take(10)]);
        assert_eq!(
            ready_count(write_vectored(&mut io, &[head, b"", b"hello"])),
            head.len() + 5,
            "the stream took every byte of every buffer"
        );
        assert_eq!(
            io.stream.vectored,
            vec![vec![head.to_vec(), Vec::new(), b"hello".to_vec()]],
            "one poll_write_vectored of the stream, with all three buffers as they were"
        );
        assert_eq!(io.stream.plain, 0, "not a plain write of the first buffer");
        assert_eq!(
            ready_count(write_vectored(&mut io, &[b"abc", b"defghijklmn"])),
            10,
            "a partial vectored write says how much the stream took"
        );
        assert_eq!(io.stream.vectored.len(), 2);
        assert_eq!(&io.stream.written[head.len()..], b"helloabcdefghij");
    }

    #[test]
    fn is_write_vectored_says_what_the_caller_said() {
        let mut io = script(Vec::new());
        assert!(io.is_write_vectored(), "vectored: true");
        io.vectored = false;
        assert!(!io.is_write_vectored(), "vectored: false");
    }

    #[test]
    fn flush_is_the_streams_flush_and_shutdown_is_its_close() {
        let mut io = script(vec![Step::Take(0), Step::Take(0), Step::Take(0)]);
        let mut cx = noop();
        assert!(matches!(
            Write::poll_flush(Pin::new(&mut io), &mut cx),
            Poll::Ready(Ok(()))
        ));
        assert_eq!(
            (io.stream.flushes, io.stream.closes),
            (1, 0),
            "poll_flush flushes"
        );
        assert!(matches!(
            Write::poll_shutdown(Pin::new(&mut io), &mut cx),
            Poll::Ready(Ok(()))
        ));
        assert_eq!(
            (io.stream.flushes, io.stream.closes),
            (1, 1),
            "poll_shutdown is poll_close, and only that"
        );
        assert_eq!(io.stream.plain + io.stream.vectored.len(), 0);
    }

    #[test]
    fn pending_passes_through_with_the_callers_waker() {
        let mut io = script(vec![
            Step::Pending,
            Step::Pending,
            Step::Pending,
            Step::Pending,
            Step::Take(4),
        ]);
        let wakes = Arc::new(Wakes::default());
        let waker = Waker::from(wakes.clone());
        let mut cx = Context::from_waker(&waker);
        assert!(Write::poll_write(Pin::new(&mut io), &mut cx, b"late").is_pending());
        assert!(
            Write::poll_write_vectored(Pin::new(&mut io), &mut cx, &[IoSlice::new(b"late")])
                .is_pending()
        );
        assert!(Write::poll_flush(Pin::new(&mut io), &mut cx).is_pending());
        assert!(Write::poll_shutdown(Pin::new(&mut io), &mut cx).is_pending());
        assert_eq!(
            io.stream.wakers.len(),
            4,
            "each call must have reached the stream"
        );
        for waker in io.stream.wakers.drain(..) {
            waker.wake();
        }
        assert_eq!(
            wakes.0.load(Ordering::SeqCst),
            4,
            "the stream must get the caller's waker, to wake hyper when it can take more"
        );
        assert_eq!(
            ready_count(Write::poll_write(Pin::new(&mut io), &mut cx, b"late")),
            4
        );
        assert_eq!(io.stream.written, b"late", "Pending wrote nothing");
    }

    #[test]
    fn errors_pass_through_unchanged() {
        let mut io = script(vec![
            Step::Fail(io::ErrorKind::BrokenPipe),
            Step::Fail(io::ErrorKind::ConnectionReset),
            Step::Fail(io::ErrorKind::WriteZero),
            Step::Fail(io::ErrorKind::NotConnected),
        ]);
        let mut cx = noop();
        assert_eq!(error_kind(write(&mut io, b"x")), io::ErrorKind::BrokenPipe);
        assert_eq!(
            error_kind(write_vectored(&mut io, &[b"x", b"y"])),
            io::ErrorKind::ConnectionReset
        );
        assert_eq!(
            error_kind(Write::poll_flush(Pin::new(&mut io), &mut cx)),
            io::ErrorKind::WriteZero
        );
        assert_eq!(
            error_kind(Write::poll_shutdown(Pin::new(&mut io), &mut cx)),
            io::ErrorKind::NotConnected
        );
    }

    #[test]
    fn a_stream_that_claims_more_than_it_was_offered_is_an_error() {
        let mut io = script(vec![Step::Lie, Step::Lie, Step::Lie]);
        assert_eq!(
            error_kind(write(&mut io, b"0123456789")),
            io::ErrorKind::InvalidData,
            "11 bytes written of 10: hyper would advance past its buffer"
        );
        assert_eq!(
            error_kind(write_vectored(&mut io, &[b"abc", b"defg"])),
            io::ErrorKind::InvalidData,
            "8 bytes written of 3 + 4"
        );
        assert_eq!(
            error_kind(write_vectored(&mut io, &[b"", b"abcdefgh", b"ij"])),
            io::ErrorKind::InvalidData,
            "11 bytes written of 0 + 8 + 2"
        );
    }

    /// hyper's server over `rt`'s sockets, writing through `HyperWrite`.
    mod served {
        use super::HyperWrite;
        use bytes::Bytes;
        use futures::FutureExt;
        use futures::io::AsyncWrite;
        use http_body_util::{BodyExt, Full};
        use hyper::body::Incoming;
        use hyper::rt::{Read, ReadBufCursor, Write};
        use hyper::server::conn::http1;
        use hyper::service::service_fn;
        use hyper::{Method, Request, Response};
        use std::io::{self, BufRead, BufReader, IoSlice, Read as _, Write as _};
        use std::net::{SocketAddr, TcpStream};
        use std::panic::AssertUnwindSafe;
        use std::pin::Pin;
        use std::sync::Arc;
        use std::sync::atomic::{AtomicUsize, Ordering};
        use std::sync::mpsc::{self, Receiver};
        use std::task::{Context, Poll};
        use std::time::Duration;

        /// How long any step may take before it counts as a hang.
        const PATIENCE: Duration = Duration::from_secs(20);

        #[derive(Default, Debug)]
        struct Counts {
            /// Writes that reached the socket and sent bytes.
            writes: AtomicUsize,
            /// Those of them that were one writev(2) of several buffers.
            writevs: AtomicUsize,
        }

        /// A socket that counts its writes. With `writev` false its
        /// `poll_write_vectored` is `AsyncWrite`'s default: the first
        /// non-empty buffer, by `poll_write`.
        struct Counted {
            stream: rt::net::TcpStream,
            writev: bool,
            counts: Arc<Counts>,
        }

        impl Counted {
            fn count(&self, poll: &Poll<io::Result<usize>>, buffers: usize) {
                if let Poll::Ready(Ok(n)) = poll
                    && *n > 0
                {
                    self.counts.writes.fetch_add(1, Ordering::SeqCst);
                    if buffers > 1 {
                        self.counts.writevs.fetch_add(1, Ordering::SeqCst);
                    }
                }
            }
        }

        impl AsyncWrite for Counted {
            fn poll_write(
                mut self: Pin<&mut Self>,
                cx: &mut Context<'_>,
                buf: &[u8],
            ) -> Poll<io::Result<usize>> {
                let poll = Pin::new(&mut self.stream).poll_write(cx, buf);
                self.count(&poll, 1);
                poll
            }

            fn poll_write_vectored(
                mut self: Pin<&mut Self>,
                cx: &mut Context<'_>,
                bufs: &[IoSlice<'_>],
            ) -> Poll<io::Result<usize>> {
                if !self.writev {
                    let first = bufs.iter().find(|buf| !buf.is_empty());
                    return self.poll_write(cx, first.map_or(&[][..], |buf| &**buf));
                }
                let poll = Pin::new(&mut self.stream).poll_write_vectored(cx, bufs);
                let buffers = bufs.iter().filter(|buf| !buf.is_empty()).count();
                self.count(&poll, buffers);
                poll
            }

            fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
                Pin::new(&mut self.stream).poll_flush(cx)
            }

            fn poll_close(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
                Pin::new(&mut self.stream).poll_close(cx)
            }
        }

        /// The connection hyper serves: reads as the chapter's `RtIo` does
        /// (into hyper's buffer as it is), writes through `HyperWrite`.
        struct Connection(HyperWrite<Counted>);

        impl Read for Connection {
            fn poll_read(
                self: Pin<&mut Self>,
                cx: &mut Context<'_>,
                mut buf: ReadBufCursor<'_>,
            ) -> Poll<io::Result<()>> {
                // SAFETY: recv(2) writes only bytes that arrived.
                let dst = unsafe { buf.as_mut() };
                let len = dst.len();
                let n = std::task::ready!(self.0.stream.stream.poll_read_uninit(cx, dst))?;
                assert!(n <= len);
                // SAFETY: recv(2) wrote the first `n` bytes, `n <= len`.
                unsafe { buf.advance(n) };
                Poll::Ready(Ok(()))
            }
        }

        impl Write for Connection {
            fn poll_write(
                mut self: Pin<&mut Self>,
                cx: &mut Context<'_>,
                buf: &[u8],
            ) -> Poll<io::Result<usize>> {
                Pin::new(&mut self.0).poll_write(cx, buf)
            }
            fn poll_write_vectored(
                mut self: Pin<&mut Self>,
                cx: &mut Context<'_>,
                bufs: &[IoSlice<'_>],
            ) -> Poll<io::Result<usize>> {
                Pin::new(&mut self.0).poll_write_vectored(cx, bufs)
            }
            fn is_write_vectored(&self) -> bool {
                self.0.is_write_vectored()
            }
            fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
                Pin::new(&mut self.0).poll_flush(cx)
            }
            fn poll_shutdown(
                mut self: Pin<&mut Self>,
                cx: &mut Context<'_>,
            ) -> Poll<io::Result<()>> {
                Pin::new(&mut self.0).poll_shutdown(cx)
            }
        }

        /// What the server saw of one connection, once it was over.
        #[derive(Debug)]
        struct Finished {
            outcome: Result<(), String>,
            writes: usize,
            writevs: usize,
        }

        /// `GET /` is a greeting; `POST /echo` sends the body back.
        async fn respond(
            request: Request<Incoming>,
        ) -> Result<Response<Full<Bytes>>, hyper::Error> {
            let body = match (request.method(), request.uri().path()) {
                (&Method::POST, "/echo") => request.into_body().collect().await?.to_bytes(),
                _ => Bytes::from_static(b"hello from rt\n"),
            };
            Ok(Response::new(Full::new(body)))
        }

        /// hyper's HTTP/1.1 server on an `rt` runtime, on a free loopback
        /// port, every connection's stream `Counted` with `writev` and
        /// wrapped with `vectored`.
        struct Server {
            addr: SocketAddr,
            finished: Receiver<Finished>,
            runtime: Option<rt::Runtime>,
        }

        impl Server {
            fn start(writev: bool, vectored: bool) -> Server {
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
                        stream.set_nodelay(true).unwrap();
                        let report = report.clone();
                        drop(rt::spawn(async move {
                            let counts = Arc::new(Counts::default());
                            let io = Connection(HyperWrite {
                                stream: Counted {
                                    stream,
                                    writev,
                                    counts: counts.clone(),
                                },
                                vectored,
                            });
                            let connection =
                                http1::Builder::new().serve_connection(io, service_fn(respond));
                            let outcome = match AssertUnwindSafe(connection).catch_unwind().await {
                                Ok(result) => result.map_err(|error| error.to_string()),
                                Err(_) => Err("panicked".to_string()),
                            };
                            let _ = report.send(Finished {
                                outcome,
                                writes: counts.writes.load(Ordering::SeqCst),
                                writevs: counts.writevs.load(Ordering::SeqCst),
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

            fn connect(&self) -> TcpStream {
                let stream = TcpStream::connect(self.addr).unwrap();
                stream.set_read_timeout(Some(PATIENCE)).unwrap();
                stream.set_write_timeout(Some(PATIENCE)).unwrap();
                stream
            }

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
        /// `content-length`).
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

        /// One `GET /` on a fresh connection; what the server's side of it
        /// counted.
        fn one_get(server: &Server) -> Finished {
            let mut client = server.connect();
            client
                .write_all(b"GET / HTTP/1.1\r\nHost: t\r\n\r\n")
                .unwrap();
            let mut reader = BufReader::new(client.try_clone().unwrap());
            let (status, body) = read_response(&mut reader);
            assert_eq!(
                (status.as_str(), &body[..]),
                ("HTTP/1.1 200 OK", &b"hello from rt\n"[..])
            );
            drop((client, reader));
            let finished = server.next_finished();
            assert_eq!(finished.outcome, Ok(()), "{finished:?}");
            finished
        }

        #[test]
        fn a_writev_stream_sends_each_response_in_one_vectored_write() {
            let server = Server::start(true, true);
            let finished = one_get(&server);
            assert_eq!(
                (finished.writes, finished.writevs),
                (1, 1),
                "head and body in one writev: is_write_vectored must be true and \
                 poll_write_vectored must pass every buffer on ({finished:?})"
            );
        }

        #[test]
        fn a_stream_without_writev_still_sends_each_response_in_one_write() {
            let server = Server::start(false, false);
            let finished = one_get(&server);
            assert_eq!(
                finished.writes, 1,
                "told the stream's vectored write is the default, hyper flattens head and \
                 body into one buffer: one write ({finished:?})"
            );
        }

        #[test]
        fn a_one_mebibyte_echo_arrives_intact() {
            let server = Server::start(true, true);
            let payload: Vec<u8> = (0..1usize << 20).map(|i| (i % 253) as u8).collect();
            let mut client = server.connect();
            let mut reader = BufReader::new(client.try_clone().unwrap());
            let head = format!(
                "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: {}\r\n\r\n",
                payload.len()
            );
            client.write_all(head.as_bytes()).unwrap();
            client.write_all(&payload).unwrap();
            let (status, body) = read_response(&mut reader);
            assert_eq!(status, "HTTP/1.1 200 OK");
            assert_eq!(body.len(), payload.len(), "the echo's length");
            assert!(body == payload, "the echo differs from what was sent");
            drop((client, reader));
            let finished = server.next_finished();
            assert_eq!(finished.outcome, Ok(()), "{finished:?}");
        }
    }
}
