//! The echo server, shut down gracefully: on Ctrl-C (SIGINT) it stops
//! accepting, lets the connections it has finish, cuts those still open
//! when a deadline passes, and exits 0 with a summary.
//!
//! Killing a server mid-request loses the replies in flight; never stopping
//! it is not an option either. The usual compromise, and the one here:
//!
//! 1. race `accept` against `rt::signal::ctrl_c()`; when the signal wins,
//!    drop the listener, so new connections are refused at once;
//! 2. wait for the open connections' tasks, each of which ends when its
//!    client closes, but for no longer than the deadline;
//! 3. abort the tasks still running, and report what happened.
//!
//! `ctrl_c()` is armed (polled once, which installs the SIGINT handler)
//! before the server prints `listening on ADDR`, so a signal sent as soon as
//! that line appears is caught rather than killing the process.
//!
//! Book: Chapter 8, "Signals and a graceful shutdown".

use crate::echo;
use futures::future::{Either, select};
use rt::net::TcpListener;
use rt::runtime::Builder;
use rt::task::JoinHandle;
use std::future::Future;
use std::io::{self, Write};
use std::net::SocketAddr;
use std::pin::pin;
use std::task::Poll;
use std::time::Duration;

/// How long open connections get to finish after Ctrl-C, by default.
pub const DEFAULT_DEADLINE: Duration = Duration::from_secs(5);

/// What a graceful run did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Summary {
    /// Connections accepted.
    pub accepted: u64,
    /// Connections open when the signal came.
    pub open_at_signal: u64,
    /// Of those, the ones that finished before the deadline.
    pub finished_in_time: u64,
    /// The ones cut at the deadline.
    pub cut: u64,
}

/// Runs the graceful echo server on `addr` until Ctrl-C; prints `listening
/// on ADDR`, then a line when it stops accepting and a summary at the end.
pub fn run(addr: SocketAddr, workers: Option<usize>, deadline: Duration) -> io::Result<Summary> {
    let mut builder = Builder::new_multi_thread();
    if let Some(workers) = workers {
        builder.worker_threads(workers);
    }
    let rt = builder.build()?;
    let summary = rt.block_on(async {
        let listener = TcpListener::bind(addr)
            .await
            .map_err(|err| io::Error::new(err.kind(), format!("cannot bind {addr}: {err}")))?;
        // Arm the signal before telling anyone where we listen.
        let mut ctrl_c = pin!(rt::signal::ctrl_c());
        if let Poll::Ready(result) = futures::poll!(ctrl_c.as_mut()) {
            result?;
        }
        chapter_03::server::announce(listener.local_addr()?)?;
        serve_until(listener, ctrl_c, deadline).await
    })?;
    say(&format!(
        "shut down: {} accepted, {} open at Ctrl-C, {} finished in time, {} cut at the deadline",
        summary.accepted, summary.open_at_signal, summary.finished_in_time, summary.cut
    ))?;
    Ok(summary)
}

// ANCHOR: serve_until
/// Echoes every connection `listener` accepts until `shutdown` completes;
/// then stops accepting and gives the open connections `deadline` to end.
pub async fn serve_until(
    listener: TcpListener,
    shutdown: impl Future<Output = io::Result<()>>,
    deadline: Duration,
) -> io::Result<Summary> {
    let mut shutdown = pin!(shutdown);
    let mut connections: Vec<JoinHandle<io::Result<u64>>> = Vec::new();
    let mut summary = Summary::default();
    loop {
        let accept = pin!(listener.accept());
        match select(shutdown.as_mut(), accept).await {
            Either::Left((signal, _)) => {
                signal?;
                break;
            }
            Either::Right((Ok((stream, _)), _)) => {
                summary.accepted += 1;
                connections.retain(|task| !task.is_finished());
                connections.push(rt::spawn(echo::echo(stream)));
            }
            Either::Right((Err(err), _)) if chapter_01::echo_server::is_transient(&err) => {}
            Either::Right((Err(err), _)) => return Err(err),
        }
    }
    drop(listener); // new connections are refused from here on
    connections.retain(|task| !task.is_finished());
    summary.open_at_signal = connections.len() as u64;
    say(&format!(
        "Ctrl-C: stopped accepting; waiting up to {deadline:?} for {} open connection(s)",
        connections.len()
    ))?;
    let all = futures::future::join_all(connections.iter_mut());
    if rt::time::timeout(deadline, all).await.is_err() {
        for task in &connections {
            if !task.is_finished() {
                task.abort();
                summary.cut += 1;
            }
        }
    }
    summary.finished_in_time = summary.open_at_signal - summary.cut;
    Ok(summary)
}
// ANCHOR_END: serve_until

/// One line on stdout, flushed (a parent process may be reading it).
fn say(line: &str) -> io::Result<()> {
    let mut out = io::stdout().lock();
    writeln!(out, "{line}")?;
    out.flush()
}
