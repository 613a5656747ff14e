//! Exercise ch09_graceful: stop an HTTP server without cutting a request.
//!
//! Chapter 8's graceful echo server ("Signals and a graceful shutdown")
//! stops accepting and waits for its clients to leave, and leaves out one
//! step: telling each connection that a shutdown has begun. An echo
//! connection has no request boundary; an HTTP/1.1 connection has one, and
//! hyper can act on it. `graceful_shutdown()` on a connection (the
//! capstone's `serve`, "Serving HTTP on the runtime we built", does it for
//! every connection on Ctrl-C) lets the request in flight finish, answers it
//! with `connection: close`, and then closes; a keep-alive connection that
//! is idle between requests closes at once.
//!
//! Write [`serve`]:
//!
//! * **Accept** connections on `listener` until the **signal**: the value
//!   in `shutdown` is `true`, or its sender is gone (no one could ever send
//!   `true` then). `Receiver::wait_for(|&stop| stop)` waits for the first
//!   and returns an error on the second: both mean stop. A signal already
//!   given before `serve` starts means accept nothing.
//! * **Serve** each connection in its own task (an `rt::task::JoinSet`
//!   keeps them together), with hyper's HTTP/1.1 server:
//!   `http1::Builder::new().serve_connection(RtIo(stream), service.clone())`
//!   (`RtIo` is the chapter's adapter). Errors of a connection (a client
//!   that hangs up) are its own: ignore them.
//! * **On the signal**, drop the listener at once, so that new connections
//!   are refused, and tell every connection: each task watches its own clone
//!   of `shutdown`, and when the signal comes it calls
//!   `graceful_shutdown()` on its pinned connection and then drives the
//!   connection to its end (a connection dropped instead would lose the
//!   response in flight).
//! * **Return** once every connection's task has ended, with the number of
//!   connections accepted.
//!
//! One trap: `wait_for` returns a guard that holds the channel's lock for
//! reading while it lives. Drop it (do not keep it in a `match` scrutinee
//! while you await the connection), or a `send` would wait on it.
//!
//! The tests run `serve` on `rt` with loopback clients: a request in flight
//! when the signal comes (its handler waits until the test lets it go),
//! keep-alive connections idle at the signal, a signal given before the
//! first connection, and a sender that goes away. Every wait is bounded by
//! `rt::time::timeout`.
//!
//! Check: `cargo run -p exercises -- check ch09_graceful`. Hint:
//! `cargo run -p exercises -- hint ch09_graceful`.

use bytes::Bytes;
use chapter_07::hyper_rt::RtIo;
use futures::future::{Either, select};
use http_body_util::Full;
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper::service::Service;
use hyper::{Request, Response};
use rt::net::TcpListener;
use rt::sync::watch;
use rt::task::JoinSet;
use std::convert::Infallible;
use std::pin::pin;

/// Serves HTTP/1.1 on `listener` with `service` until `shutdown` says stop
/// (`true`, or the sender dropped); then refuses new connections, lets every
/// connection finish the request it has begun, and returns the number of
/// connections accepted once all have ended.
pub async fn serve<S>(
    listener: TcpListener,
    service: S,
    mut shutdown: watch::Receiver<bool>,
) -> usize
where
    S: Service<Request<Incoming>, Response = Response<Full<Bytes>>, Error = Infallible>
        + Clone
        + Send
        + 'static,
    S::Future: Send + 'static,
{
    todo!("accept until the signal; each connection a task that calls graceful_shutdown on it")
}
