//! Exercise ch03_conn_cap: stay below the thread ceiling, and say no at once.
//!
//! Chapter 3 found the wall a thread-per-connection server hits first: a
//! process may hold about 16,000 threads (four memory mappings each), and
//! one thread too many can abort the whole process from inside the
//! standard library, where no error reaches the accept loop. The only
//! defence is not to get there: count the connections being served, and
//! when the count is at the cap, accept the next connection and close it
//! at once, so its client learns immediately instead of waiting in the
//! backlog.
//!
//! Build that count as a guard. [`Cap::try_admit`] takes one of `max`
//! seats, or returns `None` when all are taken; the [`Seat`] it returns
//! gives the seat back when it is dropped, however its owner ends (a
//! normal return, a panic, a thread that never started). Several threads
//! may call `try_admit` at once, and the count must never pass `max`, not
//! even for a moment: a check followed by a separate increment lets two
//! threads both see `max - 1` and both get in. A refused attempt leaves
//! the count as it was.
//!
//! Write:
//!
//! * [`Cap::new`], [`Cap::try_admit`], [`Cap::active`] (the seats taken
//!   now), and `Drop` for [`Seat`];
//! * [`serve_or_refuse`]: with a seat, start a thread with
//!   `std::thread::Builder::spawn` (never `thread::spawn`, which panics when
//!   the system refuses a thread) that runs `serve(stream)` and holds the
//!   seat until `serve` has returned or panicked, and return `Ok(true)`.
//!   Without a seat, close the stream at once and return `Ok(false)`. If
//!   the thread cannot be started, return the error; the seat must come
//!   back and the stream be closed.
//!
//! Check: `cargo run -p exercises -- check ch03_conn_cap`. Hint:
//! `cargo run -p exercises -- hint ch03_conn_cap`.

use std::io;
use std::net::TcpStream;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

/// At most `max` connections served at once.
#[derive(Debug)]
pub struct Cap {
    /// The seats taken now, shared with every [`Seat`].
    active: Arc<AtomicUsize>,
    /// The most seats that may be taken at once.
    max: usize,
}

/// One seat, given back when dropped.
#[derive(Debug)]
pub struct Seat {
    /// The count this seat was taken from.
    active: Arc<AtomicUsize>,
}

impl Cap {
    /// A cap of `max` seats, none taken.
    pub fn new(max: usize) -> Cap {
        todo!("a cap of {max}")
    }

    /// Takes a seat, or `None` if all `max` are taken.
    pub fn try_admit(&self) -> Option<Seat> {
        todo!("compare_exchange the count up by one, unless it is at max")
    }

    /// The seats taken now.
    pub fn active(&self) -> usize {
        todo!()
    }
}

impl Drop for Seat {
    fn drop(&mut self) {
        todo!("give the seat back")
    }
}

/// Serves `stream` on a new thread if a seat is free (`Ok(true)`), or
/// closes it at once (`Ok(false)`).
pub fn serve_or_refuse(
    cap: &Cap,
    stream: TcpStream,
    serve: impl FnOnce(TcpStream) + Send + 'static,
) -> io::Result<bool> {
    let _ = (cap, stream, serve);
    todo!("try_admit; spawn a thread that owns the seat, or drop the stream")
}
