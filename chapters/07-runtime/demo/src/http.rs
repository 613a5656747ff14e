//! # One HTTP server, two runtimes
//!
//! The capstone's server: hyper 1.x speaking HTTP/1.1 (with keep-alive) or
//! HTTP/2 over cleartext with prior knowledge (h2c), with four routes:
//!
//! * `GET /`: a short text;
//! * `POST /echo`: the request body streamed back as it arrives;
//! * `GET /sleep?ms=N`: the answer after a timer of N ms (at most
//!   [`MAX_SLEEP_MS`]);
//! * `GET /json`: a small JSON document.
//!
//! The code is written once, generic over an [`HttpRuntime`]: how to accept a
//! connection, spawn a task, and which executor and timer hyper gets.
//! [`OnRt`] is our runtime through the adapter in [`crate::hyper_rt`]; the
//! Tokio side (`OnTokio`, with `hyper-util`'s `TokioIo`, `TokioExecutor` and
//! `TokioTimer`) lives in `examples/http.rs`, because Tokio is only a
//! dev-dependency of this package.
//!
//! Shutdown is graceful: when the `shutdown` future given to [`serve`]
//! completes, the accept loop stops, every connection is told to finish the
//! requests it has begun (hyper's `graceful_shutdown`: idle keep-alive
//! connections close at once), and `serve` returns when the last connection
//! task has ended, or after [`DRAIN_TIMEOUT`].
//!
//! Book: "Serving HTTP on the runtime we built" (ch09-http.md).

use crate::hyper_rt::{RtExecutor, RtIo, RtTimer};
use bytes::Bytes;
use futures::FutureExt;
use futures::StreamExt;
use futures::channel::{mpsc, oneshot};
use futures::future::{Either, Shared, select};
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::rt::bounds::Http2ServerConnExec;
use hyper::rt::{Read, Timer, Write};
use hyper::server::conn::{http1, http2};
use hyper::service::Service;
use hyper::{Method, Request, Response, StatusCode, header};
use std::convert::Infallible;
use std::future::Future;
use std::io;
use std::pin::{Pin, pin};
use std::sync::Arc;
use std::time::Duration;

/// The longest `/sleep` a client may ask for: long enough for any test of
/// timers under load, short enough that a typo cannot hold a connection for
/// hours.
pub const MAX_SLEEP_MS: u64 = 60_000;

/// How long [`serve`] waits, after the shutdown signal, for connections to
/// finish the requests they have begun. Past it, `serve` returns anyway and
/// the runtime's shutdown drops what is left.
pub const DRAIN_TIMEOUT: Duration = Duration::from_secs(10);

/// How long to wait before accepting again after `accept` fails (out of file
/// descriptors, typically): a retry at once would spin on the same error.
const ACCEPT_BACKOFF: Duration = Duration::from_millis(10);

/// Which protocol the server speaks on every connection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Protocol {
    /// HTTP/1.1, with keep-alive and pipelining.
    Http1,
    /// HTTP/2 over cleartext, the client starting with the preface
    /// ("prior knowledge"; no upgrade from HTTP/1).
    Http2,
}

/// The server's settings.
#[derive(Clone, Debug)]
pub struct Config {
    /// HTTP/1.1 or h2c.
    pub protocol: Protocol,
    /// HTTP/1: how long a client may take to send a request's headers,
    /// counted from its first byte (hyper's default is 30 s).
    pub header_read_timeout: Duration,
    /// HTTP/2: how many streams a client may open at once on a connection.
    pub max_concurrent_streams: u32,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            protocol: Protocol::Http1,
            header_read_timeout: Duration::from_secs(30),
            max_concurrent_streams: 256,
        }
    }
}

/// Every response body: a whole buffer or a streamed request body.
pub type Body = BoxBody<Bytes, hyper::Error>;

/// The future of one request's handler (boxed the same way on both runtimes).
pub type HandlerFuture = Pin<Box<dyn Future<Output = Result<Response<Body>, Infallible>> + Send>>;

// ANCHOR: runtime_trait
/// What the server needs from a runtime, beside hyper's own traits.
pub trait HttpRuntime: Send + Sync + 'static {
    /// The listening socket.
    type Listener: Send + Sync + 'static;
    /// One accepted connection, as hyper reads and writes it.
    type Io: Read + Write + Unpin + Send + 'static;
    /// What spawns HTTP/2's per-stream tasks.
    type Executor: Http2ServerConnExec<HandlerFuture, Body> + Send + Sync + 'static;
    /// What makes hyper's timeouts and our `/sleep`.
    type Timer: Timer + Clone + Send + Sync + 'static;

    /// Accepts the next connection.
    fn accept(listener: &Self::Listener) -> impl Future<Output = io::Result<Self::Io>> + Send;
    /// Spawns a detached task.
    fn spawn(future: impl Future<Output = ()> + Send + 'static);
    /// hyper's executor.
    fn executor() -> Self::Executor;
    /// hyper's timer.
    fn timer() -> Self::Timer;
}
// ANCHOR_END: runtime_trait

/// Our runtime, through the adapter of [`crate::hyper_rt`].
#[derive(Clone, Copy, Debug)]
pub struct OnRt;

impl HttpRuntime for OnRt {
    type Listener = rt::net::TcpListener;
    type Io = RtIo<rt::net::TcpStream>;
    type Executor = RtExecutor;
    type Timer = RtTimer;

    async fn accept(listener: &Self::Listener) -> io::Result<Self::Io> {
        let (stream, _) = listener.accept().await?;
        stream.set_nodelay(true)?;
        Ok(RtIo(stream))
    }

    fn spawn(future: impl Future<Output = ()> + Send + 'static) {
        drop(rt::spawn(future));
    }

    fn executor() -> RtExecutor {
        RtExecutor
    }

    fn timer() -> RtTimer {
        RtTimer
    }
}

// ANCHOR: handler
/// The routes, shared by every connection of one server.
#[derive(Clone, Debug)]
pub struct Handler<T> {
    timer: T,
}

impl<T: Timer + Clone + Send + Sync + 'static> Service<Request<Incoming>> for Handler<T> {
    type Response = Response<Body>;
    type Error = Infallible;
    type Future = HandlerFuture;

    fn call(&self, request: Request<Incoming>) -> HandlerFuture {
        Box::pin(handle(request, self.timer.clone()))
    }
}

async fn handle<T: Timer>(
    request: Request<Incoming>,
    timer: T,
) -> Result<Response<Body>, Infallible> {
    Ok(match (request.method(), request.uri().path()) {
        (&Method::GET, "/") => text(StatusCode::OK, "Hello from hyper\n"),
        // The body streams back frame by frame: hyper reads a frame from the
        // request while it writes the previous one to the response.
        (&Method::POST, "/echo") => Response::new(request.into_body().boxed()),
        (&Method::GET, "/sleep") => match sleep_ms(request.uri().query()) {
            Some(ms) => {
                timer.sleep(Duration::from_millis(ms)).await;
                text(StatusCode::OK, format!("slept {ms} ms\n"))
            }
            None => text(
                StatusCode::BAD_REQUEST,
                "expected /sleep?ms=N, N <= 60000\n",
            ),
        },
        (&Method::GET, "/json") => {
            let document = serde_json::json!({
                "message": "Hello from hyper",
                "routes": ["/", "/echo", "/sleep?ms=N", "/json"],
            });
            let mut response = text(StatusCode::OK, document.to_string());
            response.headers_mut().insert(
                header::CONTENT_TYPE,
                header::HeaderValue::from_static("application/json"),
            );
            response
        }
        _ => text(StatusCode::NOT_FOUND, "not found\n"),
    })
}
// ANCHOR_END: handler

/// The `N` of `ms=N` in a query string, if it is a number up to
/// [`MAX_SLEEP_MS`].
fn sleep_ms(query: Option<&str>) -> Option<u64> {
    let ms = query?
        .split('&')
        .find_map(|pair| pair.strip_prefix("ms="))?
        .parse()
        .ok()?;
    (ms <= MAX_SLEEP_MS).then_some(ms)
}

fn text(status: StatusCode, body: impl Into<Bytes>) -> Response<Body> {
    let mut response = Response::new(
        Full::new(body.into())
            .map_err(|never| match never {})
            .boxed(),
    );
    *response.status_mut() = status;
    response
}

/// The signal every connection watches: it completes when [`serve`] stops.
type Stop = Shared<oneshot::Receiver<()>>;

// ANCHOR: serve
/// Accepts connections on `listener` and serves each in its own task, until
/// `shutdown` completes; then drains them (see the module header).
pub async fn serve<R: HttpRuntime>(
    listener: R::Listener,
    config: Config,
    shutdown: impl Future<Output = ()>,
) {
    let config = Arc::new(config);
    // Dropping `stop` tells every connection; each holds a clone of `alive`,
    // so `all_done` yields `None` once the last connection task has ended.
    let (stop, stop_signal) = oneshot::channel::<()>();
    let stop_signal = stop_signal.shared();
    let (alive, mut all_done) = mpsc::channel::<()>(0);
    let mut shutdown = pin!(shutdown);
    loop {
        let accepted = match select(pin!(R::accept(&listener)), shutdown.as_mut()).await {
            Either::Left((accepted, _)) => accepted,
            Either::Right(_) => break,
        };
        let io = match accepted {
            Ok(io) => io,
            Err(error) => {
                eprintln!("accept: {error}");
                R::timer().sleep(ACCEPT_BACKOFF).await;
                continue;
            }
        };
        let (config, stop_signal, alive) = (config.clone(), stop_signal.clone(), alive.clone());
        R::spawn(async move {
            // Errors are the client's (a reset, a malformed request that hyper
            // already answered with 400, a header timeout): nothing to do.
            let _ = serve_connection::<R>(io, &config, stop_signal).await;
            drop(alive);
        });
    }
    drop((listener, stop, alive));
    let _ = select(all_done.next(), R::timer().sleep(DRAIN_TIMEOUT)).await;
}

/// Serves one connection until the client leaves or `stop` fires.
async fn serve_connection<R: HttpRuntime>(
    io: R::Io,
    config: &Config,
    stop: Stop,
) -> Result<(), hyper::Error> {
    let handler = Handler { timer: R::timer() };
    match config.protocol {
        Protocol::Http1 => {
            let connection = http1::Builder::new()
                .timer(R::timer())
                .header_read_timeout(config.header_read_timeout)
                .keep_alive(true)
                .serve_connection(io, handler);
            until_stopped(connection, stop, |c| c.graceful_shutdown()).await
        }
        Protocol::Http2 => {
            let connection = http2::Builder::new(R::executor())
                .timer(R::timer())
                .max_concurrent_streams(config.max_concurrent_streams)
                .serve_connection(io, handler);
            until_stopped(connection, stop, |c| c.graceful_shutdown()).await
        }
    }
}

/// Drives `connection`; if `stop` fires first, asks it to finish gracefully
/// (`graceful`) and drives it to the end.
async fn until_stopped<C: Future>(
    connection: C,
    stop: Stop,
    graceful: impl FnOnce(Pin<&mut C>),
) -> C::Output {
    let mut connection = pin!(connection);
    match select(connection.as_mut(), stop).await {
        Either::Left((output, _)) => output,
        Either::Right(_) => {
            graceful(connection.as_mut());
            connection.await
        }
    }
}
// ANCHOR_END: serve
