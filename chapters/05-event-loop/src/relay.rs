//! A small protocol with several steps, written with callbacks: a lookup
//! relay.
//!
//! A client connects to the relay and sends one key per line. For each
//! line, the relay
//!
//! 1. asks the **directory**, a second service, over a second connection
//!    that it opens on the first request and keeps (`GET key`);
//! 2. waits for the directory's one-line answer, at most
//!    [`BACKEND_TIMEOUT`];
//! 3. replies to the client `OK value` or `NOTFOUND`, or `ERR ...` when a
//!    step failed (the directory cannot be reached, it timed out, it said
//!    something malformed);
//!
//! and then moves to the client's next line. A client that sends nothing
//! for [`CLIENT_IDLE`] is told `ERR idle` and disconnected; a line longer
//! than [`MAX_LINE`] is an error too.
//!
//! In a thread-per-connection server this is fifteen straight lines. Here,
//! every step that waits becomes a callback registered with the loop, each
//! step's state must survive until its callback runs (so it lives behind
//! `Rc<RefCell<..>>`), every timeout is a timer that must be cancelled when
//! the answer wins the race (and whose callback must check that it still
//! matters), and an error at any step must be turned into a reply by hand.
//! That is callback hell, and this file is written straightforwardly on
//! purpose so the reader can feel it. Chapter 6 writes the same protocol as
//! a hand-written `Future` and then with `async`/`await`.
//!
//! The directory ([`serve_directory`]) answers `GET key` with
//! `VALUE <value>` from [`value_for`], optionally after a delay on a
//! timer, so clients can check every answer without sharing any state.
//!
//! Book: Chapter 5, "Callback hell".

use std::cell::RefCell;
use std::io;
use std::net::SocketAddr;
use std::rc::Rc;
use std::time::Duration;

use crate::event_loop::{Closed, ConnId, EventLoop, ListenerId};
use crate::timers::TimerId;

/// The longest line either side may send, newline included.
pub const MAX_LINE: usize = 1024;

/// How long the relay waits for the directory's answer.
pub const BACKEND_TIMEOUT: Duration = Duration::from_secs(2);

/// How long the relay waits to connect to the directory.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(2);

/// How long a client may stay silent between requests.
pub const CLIENT_IDLE: Duration = Duration::from_secs(30);

/// The value the directory holds for `key`: a 64-bit FNV-1a hash in hex,
/// or nothing for keys that start with `missing`.
pub fn value_for(key: &str) -> Option<String> {
    if key.starts_with("missing") {
        return None;
    }
    let hash = key.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    });
    Some(format!("{hash:016x}"))
}

/// The reply a client must get for `key`, newline included.
pub fn expected_reply(key: &str) -> String {
    match value_for(key) {
        Some(value) => format!("OK {value}\n"),
        None => "NOTFOUND\n".to_string(),
    }
}

/// Splits a byte stream into lines.
#[derive(Debug, Default)]
pub struct Lines {
    buffer: Vec<u8>,
}

/// A line longer than [`MAX_LINE`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LineTooLong;

impl Lines {
    /// Adds bytes that arrived.
    pub fn push(&mut self, data: &[u8]) {
        self.buffer.extend_from_slice(data);
    }

    /// The next complete line, without its newline (and without a `\r`
    /// before it), if one has arrived.
    pub fn next_line(&mut self) -> Option<Result<String, LineTooLong>> {
        match self.buffer.iter().position(|&b| b == b'\n') {
            Some(end) if end + 1 > MAX_LINE => Some(Err(LineTooLong)),
            Some(end) => {
                let mut line: Vec<u8> = self.buffer.drain(..=end).collect();
                line.pop();
                if line.last() == Some(&b'\r') {
                    line.pop();
                }
                Some(Ok(String::from_utf8_lossy(&line).into_owned()))
            }
            None if self.buffer.len() >= MAX_LINE => Some(Err(LineTooLong)),
            None => None,
        }
    }
}

/// Starts the directory on `listener`: `GET key` answered with
/// `VALUE <value>` or `MISSING`, after `delay` if any.
pub fn serve_directory(
    ev: &mut EventLoop,
    listener: std::net::TcpListener,
    delay: Option<Duration>,
) -> io::Result<ListenerId> {
    ev.listen(listener, move |ev, conn| {
        let mut lines = Lines::default();
        ev.on_data(conn, move |ev, conn, data| {
            lines.push(data);
            while let Some(line) = lines.next_line() {
                let Ok(line) = line else {
                    ev.write(conn, b"ERROR line too long\n", None);
                    ev.close(conn);
                    return;
                };
                let answer = match line.strip_prefix("GET ").map(value_for) {
                    Some(Some(value)) => format!("VALUE {value}\n"),
                    Some(None) => "MISSING\n".to_string(),
                    None => "ERROR bad request\n".to_string(),
                };
                match delay {
                    None => {
                        ev.write(conn, answer.as_bytes(), None);
                    }
                    Some(delay) => {
                        ev.set_timeout(delay, move |ev| {
                            ev.write(conn, answer.as_bytes(), None);
                        });
                    }
                }
            }
        });
    })
}

// ANCHOR: session
/// What the relay keeps per client, between callbacks.
struct Session {
    client: ConnId,
    directory: SocketAddr,
    requests: Lines,
    /// A request is being looked up; later lines wait.
    busy: bool,
    /// The connection to the directory, once open.
    backend: Option<ConnId>,
    /// Its answers, split into lines.
    answers: Lines,
    /// The timer of the step in progress, to cancel when it completes.
    timer: Option<TimerId>,
    /// Bumped by every step, so a late timer can tell it is stale.
    step: u64,
    idle_timer: Option<TimerId>,
}

type Shared = Rc<RefCell<Session>>;
// ANCHOR_END: session

// ANCHOR: relay
// ANCHOR: serve_relay
/// Starts the relay on `listener`, looking keys up in `directory`.
pub fn serve_relay(
    ev: &mut EventLoop,
    listener: std::net::TcpListener,
    directory: SocketAddr,
) -> io::Result<ListenerId> {
    ev.listen(listener, move |ev, client| {
        let session = Rc::new(RefCell::new(Session {
            client,
            directory,
            requests: Lines::default(),
            busy: false,
            backend: None,
            answers: Lines::default(),
            timer: None,
            step: 0,
            idle_timer: None,
        }));
        rearm_idle(ev, &session);
        let on_data = Rc::clone(&session);
        ev.on_data(client, move |ev, _, data| {
            on_data.borrow_mut().requests.push(data);
            rearm_idle(ev, &on_data);
            next_request(ev, &on_data);
        });
        let on_close = Rc::clone(&session);
        ev.on_close(client, move |ev, _, _| {
            // The client is gone: so are its backend and its timers. Take
            // them out first: closing the backend runs its own callbacks,
            // which borrow the session too.
            let (backend, timers) = {
                let mut s = on_close.borrow_mut();
                (s.backend.take(), [s.timer.take(), s.idle_timer.take()])
            };
            for timer in timers.into_iter().flatten() {
                ev.cancel_timeout(timer);
            }
            if let Some(backend) = backend {
                ev.close(backend);
            }
        });
    })
}
// ANCHOR_END: serve_relay

// ANCHOR: next_request
/// Starts the next request, if one has arrived and none is in progress.
fn next_request(ev: &mut EventLoop, session: &Shared) {
    let line = {
        let mut s = session.borrow_mut();
        if s.busy {
            return;
        }
        match s.requests.next_line() {
            None => return,
            Some(line) => line,
        }
    };
    let key = match line {
        Ok(key) => key,
        Err(LineTooLong) => {
            let client = session.borrow().client;
            ev.write(client, b"ERR line too long\n", None);
            ev.close(client);
            return;
        }
    };
    session.borrow_mut().busy = true;
    with_backend(ev, session, move |ev, session, backend| match backend {
        Err(why) => reply(ev, session, &format!("ERR {why}\n")),
        Ok(backend) => {
            let request = format!("GET {key}\n");
            let session2 = Rc::clone(session);
            ev.write(
                backend,
                request.as_bytes(),
                Some(Box::new(move |ev, _, written| match written {
                    Err(_) => fail_backend(ev, &session2, "directory connection lost"),
                    Ok(()) => await_answer(ev, &session2),
                })),
            );
        }
    });
}
// ANCHOR_END: next_request

// ANCHOR: with_backend
/// Gives `then` the directory connection, opening it first if needed.
fn with_backend(
    ev: &mut EventLoop,
    session: &Shared,
    then: impl FnOnce(&mut EventLoop, &Shared, Result<ConnId, &str>) + 'static,
) {
    // Copy the id out: `then` runs callbacks that borrow the session, and
    // a borrow held across it would make them panic.
    let backend = session.borrow().backend;
    if let Some(backend) = backend {
        then(ev, session, Ok(backend));
        return;
    }
    let directory = session.borrow().directory;
    let step = bump(session);
    let on_connect = Rc::clone(session);
    let connected = ev.connect(directory, move |ev, result| {
        let timer = on_connect.borrow_mut().timer.take();
        if let Some(timer) = timer {
            ev.cancel_timeout(timer);
        }
        match result {
            Err(_) => then(ev, &on_connect, Err("directory unreachable")),
            Ok(backend) => {
                on_connect.borrow_mut().backend = Some(backend);
                let answers = Rc::clone(&on_connect);
                ev.on_data(backend, move |ev, _, data| {
                    answers.borrow_mut().answers.push(data);
                    on_answer(ev, &answers);
                });
                let closed = Rc::clone(&on_connect);
                ev.on_close(backend, move |ev, _, why| {
                    let (was_busy, timer) = {
                        let mut s = closed.borrow_mut();
                        s.backend = None;
                        (s.busy, s.timer.take())
                    };
                    // The answer will not come: its timer must not fire
                    // into a later request.
                    if let Some(timer) = timer {
                        ev.cancel_timeout(timer);
                    }
                    if was_busy && !matches!(why, Closed::Local) {
                        fail_backend(ev, &closed, "directory connection lost");
                    }
                });
                then(ev, &on_connect, Ok(backend));
            }
        }
    });
    match connected {
        Err(_) => reply(ev, session, "ERR directory unreachable\n"),
        Ok(pending) => {
            let on_timeout = Rc::clone(session);
            let timer = ev.set_timeout(CONNECT_TIMEOUT, move |ev| {
                if on_timeout.borrow().step != step {
                    return; // the connect finished first
                }
                on_timeout.borrow_mut().timer = None;
                ev.close(pending); // never calls on_connect
                reply(ev, &on_timeout, "ERR directory unreachable\n");
            });
            session.borrow_mut().timer = Some(timer);
        }
    }
}
// ANCHOR_END: with_backend

// ANCHOR: answer
/// Arms the answer timeout; the answer itself arrives in `on_answer`.
fn await_answer(ev: &mut EventLoop, session: &Shared) {
    let step = bump(session);
    let on_timeout = Rc::clone(session);
    let timer = ev.set_timeout(BACKEND_TIMEOUT, move |ev| {
        if on_timeout.borrow().step != step {
            return; // answered in time
        }
        on_timeout.borrow_mut().timer = None;
        fail_backend(ev, &on_timeout, "directory timed out");
    });
    session.borrow_mut().timer = Some(timer);
    // The answer may already be here.
    on_answer(ev, session);
}

/// Turns a complete answer line from the directory into the reply.
fn on_answer(ev: &mut EventLoop, session: &Shared) {
    let answer = {
        let mut s = session.borrow_mut();
        if !s.busy || s.timer.is_none() {
            return; // not waiting for an answer (yet)
        }
        match s.answers.next_line() {
            None => return,
            Some(line) => line,
        }
    };
    let timer = session.borrow_mut().timer.take();
    if let Some(timer) = timer {
        ev.cancel_timeout(timer);
    }
    bump(session);
    match answer
        .as_deref()
        .map(|a| a.split_once(' ').unwrap_or((a, "")))
    {
        Ok(("VALUE", value)) => reply(ev, session, &format!("OK {value}\n")),
        Ok(("MISSING", _)) => reply(ev, session, "NOTFOUND\n"),
        _ => fail_backend(ev, session, "directory said something malformed"),
    }
}
// ANCHOR_END: answer
// ANCHOR_END: relay

// ANCHOR: reply
/// The directory failed mid-request: drop that connection, tell the client.
fn fail_backend(ev: &mut EventLoop, session: &Shared, why: &str) {
    let backend = session.borrow_mut().backend.take();
    if let Some(backend) = backend {
        ev.close(backend); // runs the backend's on_close: no borrow held here
    }
    session.borrow_mut().answers = Lines::default();
    reply(ev, session, &format!("ERR {why}\n"));
}

/// Sends a reply and moves on to the next request.
fn reply(ev: &mut EventLoop, session: &Shared, text: &str) {
    let client = {
        let mut s = session.borrow_mut();
        if !s.busy {
            return;
        }
        s.busy = false;
        s.client
    };
    bump(session);
    ev.write(client, text.as_bytes(), None);
    let session = Rc::clone(session);
    ev.next_tick(move |ev| next_request(ev, &session));
}

/// Marks the start of a new step; returns its number.
fn bump(session: &Shared) -> u64 {
    let mut s = session.borrow_mut();
    s.step += 1;
    s.step
}
// ANCHOR_END: reply

/// (Re)starts the client's idle timer.
fn rearm_idle(ev: &mut EventLoop, session: &Shared) {
    let timer = session.borrow_mut().idle_timer.take();
    if let Some(timer) = timer {
        ev.cancel_timeout(timer);
    }
    let on_idle = Rc::clone(session);
    let timer = ev.set_timeout(CLIENT_IDLE, move |ev| {
        let client = {
            let mut s = on_idle.borrow_mut();
            s.idle_timer = None;
            s.client
        };
        ev.write(client, b"ERR idle\n", None);
        ev.close(client);
    });
    session.borrow_mut().idle_timer = Some(timer);
}

/// Runs a directory and a relay in one loop, until the process is killed.
/// Prints `listening on ADDR` for the relay.
pub fn run(addr: SocketAddr, delay: Option<Duration>) -> io::Result<()> {
    chapter_03::limits::raise_fd_limit()?;
    let mut ev = EventLoop::new()?;
    let directory = serve_directory(&mut ev, std::net::TcpListener::bind("127.0.0.1:0")?, delay)?;
    let directory_addr = ev.local_addr(directory)?;
    let listener = chapter_03::server::listener(addr)
        .map_err(|err| io::Error::new(err.kind(), format!("cannot bind {addr}: {err}")))?;
    let relay = serve_relay(&mut ev, listener, directory_addr)?;
    chapter_03::server::announce(ev.local_addr(relay)?)?;
    ev.run()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_split_and_bounded() {
        let mut lines = Lines::default();
        lines.push(b"alpha\r\nbe");
        assert_eq!(lines.next_line(), Some(Ok("alpha".into())));
        assert_eq!(lines.next_line(), None);
        lines.push(b"ta\n");
        assert_eq!(lines.next_line(), Some(Ok("beta".into())));
        lines.push(&[b'x'; MAX_LINE]);
        assert_eq!(lines.next_line(), Some(Err(LineTooLong)));
    }

    #[test]
    fn values_are_deterministic_and_some_keys_are_missing() {
        assert_eq!(value_for("a"), value_for("a"));
        assert_ne!(value_for("a"), value_for("b"));
        assert_eq!(value_for("missing-7"), None);
        assert_eq!(expected_reply("missing-7"), "NOTFOUND\n");
        assert!(expected_reply("k").starts_with("OK "));
    }
}
