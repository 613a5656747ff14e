//! What one wait costs when N descriptors are idle and one is ready, for
//! `poll(2)` and for epoll.
//!
//! `poll` takes the whole list of descriptors on every call: the kernel
//! copies the array in, asks every descriptor whether it is ready (and, when
//! none is, hooks a wait-queue entry onto each and unhooks them afterwards),
//! and copies the array back out. Its cost grows with N, however few are
//! ready. (`select` is the same with bit masks, capped at 1,024
//! descriptors.) epoll keeps the list in the kernel between calls, and each
//! descriptor puts itself on a ready list when it becomes ready, so
//! `epoll_wait` only looks at that ready list.
//!
//! The experiment registers N idle descriptors (UDP sockets nobody sends
//! to) and one `eventfd`. Each round makes the eventfd readable, waits, and
//! reads it again, so every wait returns exactly one ready descriptor. We
//! time rounds for N from 10 to 10,000.
//!
//! Book: Chapter 4, "Why not poll?".

use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};

use chapter_01::measure::time_batches;

use crate::epoll::{Epoll, Events, flags};

/// One N's figures.
#[derive(Debug, Clone, Copy)]
pub struct WaitCost {
    /// Idle descriptors registered besides the ready one.
    pub idle: usize,
    /// Median ns per round with `poll`.
    pub poll_ns: f64,
    /// Median ns per round with `epoll_wait`.
    pub epoll_ns: f64,
}

fn owned(fd: RawFd) -> io::Result<OwnedFd> {
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: `fd` was just returned by the kernel and is owned by no one.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

/// An idle descriptor: an unbound UDP socket, never readable.
fn idle_socket() -> io::Result<OwnedFd> {
    // SAFETY: socket takes plain integers and returns a new descriptor.
    owned(unsafe { libc::socket(libc::AF_INET, libc::SOCK_DGRAM | libc::SOCK_CLOEXEC, 0) })
}

/// The ready descriptor: an eventfd we make readable each round.
struct Signal(OwnedFd);

impl Signal {
    fn new() -> io::Result<Signal> {
        // SAFETY: eventfd takes an initial value and flags.
        owned(unsafe { libc::eventfd(0, libc::EFD_CLOEXEC | libc::EFD_NONBLOCK) }).map(Signal)
    }

    fn raise(&self) {
        let one = 1u64.to_ne_bytes();
        // SAFETY: writes 8 bytes from a valid buffer to our eventfd.
        unsafe { libc::write(self.0.as_raw_fd(), one.as_ptr().cast(), 8) };
    }

    fn clear(&self) {
        let mut value = [0u8; 8];
        // SAFETY: reads 8 bytes into a valid buffer from our eventfd.
        unsafe { libc::read(self.0.as_raw_fd(), value.as_mut_ptr().cast(), 8) };
    }
}

// ANCHOR: rounds
/// One round with `poll`: the whole array goes to the kernel every time.
fn poll_round(fds: &mut [libc::pollfd], signal: &Signal) -> usize {
    signal.raise();
    // SAFETY: `fds` is a valid array of `fds.len()` pollfds for the call.
    let ready = unsafe { libc::poll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, -1) };
    signal.clear();
    ready as usize
}

/// One round with epoll: the interest list is already in the kernel.
fn epoll_round(epoll: &Epoll, events: &mut Events, signal: &Signal) -> usize {
    signal.raise();
    let ready = epoll.wait(events, None).unwrap_or(0);
    signal.clear();
    ready
}
// ANCHOR_END: rounds

/// Times both for `idle` idle descriptors.
pub fn measure_one(idle: usize, batches: usize) -> io::Result<WaitCost> {
    chapter_03::limits::raise_fd_limit()?;
    let sockets = (0..idle)
        .map(|_| idle_socket())
        .collect::<io::Result<Vec<_>>>()?;
    let signal = Signal::new()?;

    let mut fds: Vec<libc::pollfd> = sockets
        .iter()
        .map(|s| s.as_raw_fd())
        .chain([signal.0.as_raw_fd()])
        .map(|fd| libc::pollfd {
            fd,
            events: libc::POLLIN,
            revents: 0,
        })
        .collect();
    let epoll = Epoll::new()?;
    for (i, socket) in sockets.iter().enumerate() {
        epoll.add(socket, flags::IN, i as u64)?;
    }
    epoll.add(&signal.0, flags::IN, u64::MAX)?;
    let mut events = Events::with_capacity(16);

    // Enough rounds per batch that each batch takes a millisecond or so.
    let per_batch = (200_000 / (idle + 50)).clamp(5, 5_000);
    let poll = time_batches(batches, per_batch, || poll_round(&mut fds, &signal));
    let epoll = time_batches(batches, per_batch, || {
        epoll_round(&epoll, &mut events, &signal)
    });
    Ok(WaitCost {
        idle,
        poll_ns: poll.median_ns(),
        epoll_ns: epoll.median_ns(),
    })
}

/// Times both for each count in `idle_counts`.
pub fn measure(
    idle_counts: &[usize],
    batches: usize,
    mut step: impl FnMut(),
) -> io::Result<Vec<WaitCost>> {
    idle_counts
        .iter()
        .map(|&n| {
            let cost = measure_one(n, batches);
            step();
            cost
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_report_the_one_ready_descriptor() {
        let signal = Signal::new().unwrap();
        let idle = idle_socket().unwrap();
        let mut fds = [idle.as_raw_fd(), signal.0.as_raw_fd()].map(|fd| libc::pollfd {
            fd,
            events: libc::POLLIN,
            revents: 0,
        });
        assert_eq!(poll_round(&mut fds, &signal), 1);
        assert_eq!(fds[1].revents & libc::POLLIN, libc::POLLIN);
        assert_eq!(fds[0].revents, 0);
        let epoll = Epoll::new().unwrap();
        epoll.add(&idle, flags::IN, 1).unwrap();
        epoll.add(&signal.0, flags::IN, 2).unwrap();
        let mut events = Events::with_capacity(4);
        assert_eq!(epoll_round(&epoll, &mut events, &signal), 1);
        assert_eq!(events.iter().next().unwrap().token(), 2);
    }

    #[test]
    fn costs_are_positive() {
        let cost = measure_one(20, 3).unwrap();
        assert!(cost.poll_ns > 0.0 && cost.epoll_ns > 0.0);
    }
}
