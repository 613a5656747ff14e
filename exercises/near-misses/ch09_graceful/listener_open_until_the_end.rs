//! Near miss of ch09_graceful: the listener is not dropped at the signal but
//! at the end of `serve`, after every connection has ended, so while a
//! request is in flight new clients still connect (into the backlog) and
//! wait unserved; the tests must catch it because a server that is shutting
//! down must refuse new connections at once.

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
    let mut connections = JoinSet::new();
    let mut accepted = 0;
    loop {
        // `wait_for` is Ok(guard) for `true` and Err once the sender is
        // gone: either way, stop. The guard, and the borrow of `shutdown`,
        // end with this statement.
        let stream = match select(
            pin!(listener.accept()),
            pin!(shutdown.wait_for(|&stop| stop)),
        )
        .await
        {
            Either::Left((Ok((stream, _)), _)) => stream,
            // A failed accept (a connection reset before it was taken, say)
            // ends nothing.
            Either::Left((Err(_), _)) => continue,
            Either::Right(_) => break,
        };
        accepted += 1;
        let (service, mut stop) = (service.clone(), shutdown.clone());
        connections.spawn(async move {
            let connection = http1::Builder::new().serve_connection(RtIo(stream), service);
            let mut connection = pin!(connection);
            let stopped = matches!(
                select(connection.as_mut(), pin!(stop.wait_for(|&stop| stop))).await,
                Either::Right(_)
            );
            if stopped {
                // Finish the request in flight (or close at once if idle).
                connection.as_mut().graceful_shutdown();
                let _ = connection.await;
            }
        });
        // Reap the tasks already done, so a long-lived server does not keep
        // one finished entry per connection it ever served.
        while connections.try_join_next().is_some() {}
    }
    // MISTAKE: the listener stays open until `serve` returns.
    while connections.join_next().await.is_some() {}
    accepted
}
