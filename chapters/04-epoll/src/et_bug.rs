//! The classic edge-triggered bug, reproduced and measured.
//!
//! Edge-triggered epoll reports a socket when it *becomes* readable, not
//! while it *is* readable. A handler written for level-triggered epoll reads
//! once per event: with a 4 KiB buffer and 64 KiB waiting, it takes 4 KiB
//! and returns, fully expecting to be told about the rest. Level-triggered
//! epoll does tell it, on the next wait. Edge-triggered epoll does not: no
//! new bytes arrive (the client is waiting for its echo), so no new edge,
//! so no event, ever. The connection hangs with 60 KiB sitting in the
//! kernel, and nothing anywhere reports an error.
//!
//! [`run`] plays the same exchange three ways, each with one client that
//! sends a message in one write and then waits for the whole echo:
//!
//! * edge-triggered, reading once per event (the bug);
//! * edge-triggered, reading until `WouldBlock` (the fix);
//! * level-triggered, reading once per event (correct, more wake-ups).
//!
//! Book: Chapter 4, "Level or edge".

use std::io::{self, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::thread;
use std::time::{Duration, Instant};

use crate::epoll::{Epoll, Events, flags};

/// The server's read buffer in this demo: small, so one read cannot take a
/// whole message.
pub const READ_BYTES: usize = 4096;

/// How long without any event counts as "stalled".
pub const STALL: Duration = Duration::from_millis(500);

/// The three ways to handle readiness.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Variant {
    /// Edge-triggered, one read per event.
    EdgeReadOnce,
    /// Edge-triggered, read until `WouldBlock`.
    EdgeDrain,
    /// Level-triggered, one read per event.
    LevelReadOnce,
}

/// What one variant did.
#[derive(Debug, Clone, Copy)]
pub struct Outcome {
    /// Which variant.
    pub variant: Variant,
    /// Bytes the client sent.
    pub sent: usize,
    /// Bytes echoed back before the exchange finished or stalled.
    pub echoed: usize,
    /// Whether it stopped with bytes still unread in the server's socket.
    pub stalled: bool,
    /// `epoll_wait` calls that returned an event.
    pub wakeups: u64,
    /// From the client's write to the last echoed byte (or to the stall).
    pub elapsed: Duration,
}

// ANCHOR: handler
/// Reads what this variant reads for one event and echoes it. Returns the
/// bytes echoed.
fn handle_event(stream: &mut TcpStream, variant: Variant) -> io::Result<usize> {
    let mut buf = [0u8; READ_BYTES];
    let mut echoed = 0;
    loop {
        let n = match stream.read(&mut buf) {
            Ok(0) => return Ok(echoed),
            Ok(n) => n,
            Err(err) if err.kind() == io::ErrorKind::WouldBlock => return Ok(echoed),
            Err(err) => return Err(err),
        };
        write_fully(stream, &buf[..n])?;
        echoed += n;
        if variant != Variant::EdgeDrain {
            return Ok(echoed); // "I'll be told about the rest" -- only if level-triggered
        }
    }
}
// ANCHOR_END: handler

/// Writes all of `data` to a non-blocking socket (the client reads
/// concurrently, so the wait is short).
fn write_fully(stream: &mut TcpStream, mut data: &[u8]) -> io::Result<()> {
    while !data.is_empty() {
        match stream.write(data) {
            Ok(n) => data = &data[n..],
            Err(err) if err.kind() == io::ErrorKind::WouldBlock => {
                thread::sleep(Duration::from_micros(50));
            }
            Err(err) => return Err(err),
        }
    }
    Ok(())
}

/// Plays one exchange of `message_bytes` with `variant`.
pub fn run_variant(variant: Variant, message_bytes: usize) -> io::Result<Outcome> {
    let listener = TcpListener::bind("127.0.0.1:0")?;
    let addr = listener.local_addr()?;
    let message: Vec<u8> = (0..message_bytes).map(|i| (i % 251) as u8).collect();
    let client = {
        let message = message.clone();
        thread::spawn(move || -> io::Result<usize> {
            let mut stream = TcpStream::connect(addr)?;
            stream.set_read_timeout(Some(STALL * 2))?;
            stream.write_all(&message)?; // one write: one burst
            let mut got = 0;
            let mut buf = vec![0u8; message.len()];
            while got < message.len() {
                match stream.read(&mut buf[got..]) {
                    Ok(0) => break,
                    Ok(n) => got += n,
                    Err(_) => break, // timed out: the server stalled
                }
            }
            Ok(got)
        })
    };
    let (mut stream, _) = listener.accept()?;
    stream.set_nonblocking(true)?;
    let epoll = Epoll::new()?;
    let trigger = match variant {
        Variant::LevelReadOnce => 0,
        Variant::EdgeReadOnce | Variant::EdgeDrain => flags::ET,
    };
    epoll.add(&stream, flags::IN | trigger, 0)?;
    let mut events = Events::with_capacity(4);
    let start = Instant::now();
    let (mut echoed, mut wakeups, mut last_progress) = (0, 0, start);
    let mut stalled = false;
    while echoed < message_bytes {
        if epoll.wait(&mut events, Some(STALL))? == 0 {
            stalled = true; // no event for STALL: nobody will ever tell us
            break;
        }
        wakeups += 1;
        echoed += handle_event(&mut stream, variant)?;
        last_progress = Instant::now();
    }
    let elapsed = if stalled {
        start.elapsed()
    } else {
        last_progress - start
    };
    drop(stream);
    let _ = client.join();
    Ok(Outcome {
        variant,
        sent: message_bytes,
        echoed,
        stalled,
        wakeups,
        elapsed,
    })
}

/// Plays all three variants.
pub fn run(message_bytes: usize) -> io::Result<[Outcome; 3]> {
    Ok([
        run_variant(Variant::EdgeReadOnce, message_bytes)?,
        run_variant(Variant::EdgeDrain, message_bytes)?,
        run_variant(Variant::LevelReadOnce, message_bytes)?,
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reading_once_per_edge_stalls_and_draining_does_not() {
        let [bug, fixed, level] = run(64 * 1024).unwrap();
        assert!(bug.stalled, "{bug:?}");
        assert!(bug.echoed < bug.sent, "{bug:?}");
        assert!(!fixed.stalled && fixed.echoed == fixed.sent, "{fixed:?}");
        assert!(!level.stalled && level.echoed == level.sent, "{level:?}");
        // Level-triggered needs one wake-up per 4 KiB read.
        assert!(
            level.wakeups >= (level.sent / READ_BYTES) as u64,
            "{level:?}"
        );
    }
}
