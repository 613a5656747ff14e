//! Reference solution for ch03_conn_cap.

use std::io;
use std::net::TcpStream;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::thread;

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
        Cap {
            active: Arc::new(AtomicUsize::new(0)),
            max,
        }
    }

    /// Takes a seat, or `None` if all `max` are taken.
    pub fn try_admit(&self) -> Option<Seat> {
        self.active
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |taken| {
                (taken < self.max).then_some(taken + 1)
            })
            .ok()?;
        Some(Seat {
            active: Arc::clone(&self.active),
        })
    }

    /// The seats taken now.
    pub fn active(&self) -> usize {
        self.active.load(Ordering::Acquire)
    }
}

impl Drop for Seat {
    fn drop(&mut self) {
        self.active.fetch_sub(1, Ordering::AcqRel);
    }
}

/// Serves `stream` on a new thread if a seat is free (`Ok(true)`), or
/// closes it at once (`Ok(false)`).
pub fn serve_or_refuse(
    cap: &Cap,
    stream: TcpStream,
    serve: impl FnOnce(TcpStream) + Send + 'static,
) -> io::Result<bool> {
    let Some(seat) = cap.try_admit() else {
        // Dropping the stream closes it: the client reads end of stream now.
        return Ok(false);
    };
    // The closure owns the seat and the stream: if the thread cannot start,
    // both are dropped here; if it runs, the seat goes back when `serve`
    // returns or unwinds.
    thread::Builder::new().spawn(move || {
        let _seat = seat;
        serve(stream);
    })?;
    Ok(true)
}
