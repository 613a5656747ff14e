//! The echo server on the event loop, with an idle timeout per connection.
//!
//! With the loop doing the machinery, the application shrinks to its
//! protocol: on every accepted connection, echo whatever arrives. The part
//! that is new is the **idle timeout**, the defence against *slowloris*: a
//! client that opens a connection and then sends nothing, or one byte a
//! minute, holds a descriptor and a slot forever, and ten thousand such
//! clients use up a server without sending any load at all. A connection
//! that sends nothing for the idle timeout is closed.
//!
//! The timer is not reset on every message (that would cost a heap
//! insertion and a cancellation per message). The connection remembers when
//! it last heard from its client; when its single timer fires, it checks:
//! idle long enough, close; otherwise, set the timer again for the rest of
//! the time. At most one timer per connection is pending.
//!
//! Book: Chapter 5, "An echo server with an idle timeout".

use std::cell::Cell;
use std::io;
use std::net::SocketAddr;
use std::rc::Rc;
use std::time::{Duration, Instant};

use crate::event_loop::{ConnId, EventLoop, ListenerId};

// ANCHOR: echo
/// Starts echoing on `listener`; connections silent for `idle_timeout` are
/// closed.
pub fn serve(
    ev: &mut EventLoop,
    listener: std::net::TcpListener,
    idle_timeout: Option<Duration>,
) -> io::Result<ListenerId> {
    ev.listen(listener, move |ev, conn| {
        let last_heard = Rc::new(Cell::new(Instant::now()));
        {
            let last_heard = Rc::clone(&last_heard);
            ev.on_data(conn, move |ev, conn, data| {
                last_heard.set(Instant::now());
                ev.write(conn, data, None);
            });
        }
        if let Some(idle) = idle_timeout {
            watch_idle(ev, conn, last_heard, idle, idle);
        }
    })
}

/// Checks `conn` for silence in `after`; closes it after `idle` of it.
fn watch_idle(
    ev: &mut EventLoop,
    conn: ConnId,
    last_heard: Rc<Cell<Instant>>,
    idle: Duration,
    after: Duration,
) {
    ev.set_timeout(after, move |ev| {
        if !ev.is_open(conn) {
            return; // closed meanwhile: nothing to watch
        }
        let silent = last_heard.get().elapsed();
        if silent >= idle {
            ev.close(conn); // slowloris: gone
        } else {
            watch_idle(ev, conn, last_heard, idle, idle - silent);
        }
    });
}
// ANCHOR_END: echo

/// Runs the echo server on `addr` until the process is killed, printing
/// `listening on ADDR` (the C10K harness waits for that line).
pub fn run(addr: SocketAddr, idle_timeout: Option<Duration>) -> io::Result<()> {
    chapter_03::limits::raise_fd_limit()?;
    let listener = chapter_03::server::listener(addr)
        .map_err(|err| io::Error::new(err.kind(), format!("cannot bind {addr}: {err}")))?;
    let mut ev = EventLoop::new()?;
    let id = serve(&mut ev, listener, idle_timeout)?;
    chapter_03::server::announce(ev.local_addr(id)?)?;
    ev.run()
}
