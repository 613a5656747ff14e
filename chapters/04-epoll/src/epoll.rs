//! A small safe wrapper over Linux's epoll, written against the raw system
//! calls.
//!
//! epoll keeps an *interest list* inside the kernel: the descriptors we care
//! about and, for each, the events we want (readable, writable, ...) and a
//! 64-bit tag of our choosing that comes back with every event. We change
//! the list with `epoll_ctl` (add, modify, delete) only when our interest
//! changes, and `epoll_wait` returns only the descriptors that are ready,
//! however many we watch. That is the difference with `select` and `poll`,
//! which take the whole list on every call and look at every entry.
//!
//! One detail has bitten real code: the layout of `struct epoll_event`. The
//! kernel's definition is `__attribute__((packed))` **on x86_64 only** (a
//! 32-bit `events` then a 64-bit `data`, 12 bytes), while every other
//! architecture lays it out naturally (16 bytes, `data` at offset 8). A
//! Rust definition that is packed everywhere, or nowhere, reads garbage
//! tags on half the machines. [`EpollEvent`] is packed only on x86_64, and a
//! test checks it against the `libc` crate's definition on whatever the
//! target is.
//!
//! Book: Chapter 4, "The epoll API".

use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::time::Duration;

/// One readiness event, laid out exactly as the kernel's `struct
/// epoll_event` on this architecture.
// ANCHOR: event
#[repr(C)]
#[cfg_attr(target_arch = "x86_64", repr(packed))]
#[derive(Clone, Copy)]
pub struct EpollEvent {
    events: u32,
    data: u64,
}
// ANCHOR_END: event

impl EpollEvent {
    /// The readiness flags (`EPOLLIN`, `EPOLLOUT`, ...). Read by value: a
    /// field of a packed struct must never be borrowed.
    pub fn flags(&self) -> u32 {
        self.events
    }

    /// The tag given at registration.
    pub fn token(&self) -> u64 {
        self.data
    }

    /// Whether any of `flags` is set.
    pub fn has(&self, flags: u32) -> bool {
        self.flags() & flags != 0
    }
}

impl std::fmt::Debug for EpollEvent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (events, data) = (self.events, self.data);
        f.debug_struct("EpollEvent")
            .field("events", &format_args!("{events:#x}"))
            .field("data", &data)
            .finish()
    }
}

/// The flags of the interest list, as `u32`s.
pub mod flags {
    /// Readable (or a peer that closed: a read will not block).
    pub const IN: u32 = libc::EPOLLIN as u32;
    /// Writable.
    pub const OUT: u32 = libc::EPOLLOUT as u32;
    /// The peer closed its writing side (half-close).
    pub const RDHUP: u32 = libc::EPOLLRDHUP as u32;
    /// Both directions closed. Always reported, never asked for.
    pub const HUP: u32 = libc::EPOLLHUP as u32;
    /// An error is pending on the socket. Always reported.
    pub const ERR: u32 = libc::EPOLLERR as u32;
    /// Edge-triggered: report a change of readiness once, not the state.
    pub const ET: u32 = libc::EPOLLET as u32;
}

/// Events returned by one `epoll_wait`, in a buffer reused between calls.
pub struct Events {
    buffer: Vec<EpollEvent>,
    len: usize,
}

impl Events {
    /// Room for `capacity` events per wait.
    pub fn with_capacity(capacity: usize) -> Events {
        Events {
            buffer: vec![EpollEvent { events: 0, data: 0 }; capacity.max(1)],
            len: 0,
        }
    }

    /// The events of the last wait.
    pub fn iter(&self) -> impl Iterator<Item = EpollEvent> + '_ {
        self.buffer[..self.len].iter().copied()
    }

    /// How many events the last wait returned.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the last wait timed out with nothing ready.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// An epoll instance: an interest list inside the kernel.
#[derive(Debug)]
pub struct Epoll {
    fd: OwnedFd,
}

fn check(rc: libc::c_int) -> io::Result<libc::c_int> {
    if rc < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(rc)
    }
}

impl Epoll {
    /// Creates an instance, closed automatically on `exec`.
    pub fn new() -> io::Result<Epoll> {
        // SAFETY: epoll_create1 takes only flags; on success it returns a new
        // descriptor that nothing else owns.
        let fd = check(unsafe { libc::epoll_create1(libc::EPOLL_CLOEXEC) })?;
        // SAFETY: `fd` was just returned by the kernel and is owned by no one.
        let fd = unsafe { OwnedFd::from_raw_fd(fd) };
        Ok(Epoll { fd })
    }

    fn ctl(&self, op: libc::c_int, fd: RawFd, flags: u32, token: u64) -> io::Result<()> {
        let mut event = EpollEvent {
            events: flags,
            data: token,
        };
        // SAFETY: `event` is a valid epoll_event for this architecture (see
        // the layout test) and outlives the call; the kernel copies it.
        // DEL ignores it, but kernels before 2.6.9 required it non-null.
        check(unsafe {
            libc::epoll_ctl(
                self.fd.as_raw_fd(),
                op,
                fd,
                (&raw mut event).cast::<libc::epoll_event>(),
            )
        })?;
        Ok(())
    }

    // ANCHOR: ctl
    /// Adds `fd` to the interest list with `flags`, tagged `token`.
    pub fn add(&self, fd: &impl AsRawFd, flags: u32, token: u64) -> io::Result<()> {
        self.ctl(libc::EPOLL_CTL_ADD, fd.as_raw_fd(), flags, token)
    }

    /// Changes what we want from `fd`.
    pub fn modify(&self, fd: &impl AsRawFd, flags: u32, token: u64) -> io::Result<()> {
        self.ctl(libc::EPOLL_CTL_MOD, fd.as_raw_fd(), flags, token)
    }

    /// Removes `fd` from the interest list. (Closing the last descriptor of
    /// a file removes it too.)
    pub fn delete(&self, fd: &impl AsRawFd) -> io::Result<()> {
        self.ctl(libc::EPOLL_CTL_DEL, fd.as_raw_fd(), 0, 0)
    }
    // ANCHOR_END: ctl

    // ANCHOR: wait
    /// Waits until at least one registered descriptor is ready, or
    /// `timeout` passes (`None`: forever). Retries on `EINTR`.
    pub fn wait(&self, events: &mut Events, timeout: Option<Duration>) -> io::Result<usize> {
        let timeout_ms = match timeout {
            None => -1,
            // Round up, so a 0.5 ms timeout does not become a busy 0.
            Some(t) => t.as_nanos().div_ceil(1_000_000).min(i32::MAX as u128) as libc::c_int,
        };
        loop {
            // SAFETY: the buffer holds `buffer.len()` valid, writable
            // epoll_events laid out as the kernel expects; the kernel
            // writes at most that many.
            let rc = unsafe {
                libc::epoll_wait(
                    self.fd.as_raw_fd(),
                    events.buffer.as_mut_ptr().cast::<libc::epoll_event>(),
                    events.buffer.len() as libc::c_int,
                    timeout_ms,
                )
            };
            match check(rc) {
                Ok(n) => {
                    events.len = n as usize;
                    return Ok(events.len);
                }
                Err(err) if err.kind() == io::ErrorKind::Interrupted => continue,
                Err(err) => return Err(err),
            }
        }
    }
    // ANCHOR_END: wait
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;
    use std::os::unix::net::UnixStream;

    #[test]
    fn the_layout_matches_the_kernels_on_this_architecture() {
        assert_eq!(
            std::mem::size_of::<EpollEvent>(),
            std::mem::size_of::<libc::epoll_event>()
        );
        assert_eq!(
            std::mem::align_of::<EpollEvent>(),
            std::mem::align_of::<libc::epoll_event>()
        );
        assert_eq!(
            std::mem::offset_of!(EpollEvent, data),
            std::mem::offset_of!(libc::epoll_event, u64)
        );
        if cfg!(target_arch = "x86_64") {
            assert_eq!(std::mem::size_of::<EpollEvent>(), 12);
        } else {
            assert_eq!(std::mem::size_of::<EpollEvent>(), 16);
        }
    }

    #[test]
    fn only_ready_descriptors_are_reported_with_their_tokens() {
        let epoll = Epoll::new().unwrap();
        let (mut a, b) = UnixStream::pair().unwrap();
        let (_c, d) = UnixStream::pair().unwrap();
        epoll.add(&b, flags::IN, 7).unwrap();
        epoll.add(&d, flags::IN, u64::MAX - 1).unwrap();
        let mut events = Events::with_capacity(8);
        assert_eq!(epoll.wait(&mut events, Some(Duration::ZERO)).unwrap(), 0);
        a.write_all(b"x").unwrap();
        assert_eq!(
            epoll
                .wait(&mut events, Some(Duration::from_secs(5)))
                .unwrap(),
            1
        );
        let event = events.iter().next().unwrap();
        assert_eq!(event.token(), 7);
        assert!(event.has(flags::IN));
    }

    #[test]
    fn level_triggered_repeats_edge_triggered_does_not() {
        let (mut a, b) = UnixStream::pair().unwrap();
        a.write_all(b"unread").unwrap();
        let mut events = Events::with_capacity(4);
        let lt = Epoll::new().unwrap();
        lt.add(&b, flags::IN, 1).unwrap();
        for _ in 0..3 {
            assert_eq!(lt.wait(&mut events, Some(Duration::ZERO)).unwrap(), 1);
        }
        let et = Epoll::new().unwrap();
        et.add(&b, flags::IN | flags::ET, 1).unwrap();
        assert_eq!(et.wait(&mut events, Some(Duration::ZERO)).unwrap(), 1);
        // Nothing new arrived: no new edge, no event, although unread data
        // is still there.
        assert_eq!(et.wait(&mut events, Some(Duration::ZERO)).unwrap(), 0);
        a.write_all(b"more").unwrap();
        assert_eq!(et.wait(&mut events, Some(Duration::ZERO)).unwrap(), 1);
    }

    #[test]
    fn modify_and_delete_change_the_interest_list() {
        let epoll = Epoll::new().unwrap();
        let (_a, b) = UnixStream::pair().unwrap();
        let mut events = Events::with_capacity(4);
        epoll.add(&b, flags::IN, 1).unwrap();
        assert_eq!(epoll.wait(&mut events, Some(Duration::ZERO)).unwrap(), 0);
        epoll.modify(&b, flags::OUT, 2).unwrap();
        assert_eq!(epoll.wait(&mut events, Some(Duration::ZERO)).unwrap(), 1);
        assert_eq!(events.iter().next().unwrap().token(), 2);
        epoll.delete(&b).unwrap();
        assert_eq!(epoll.wait(&mut events, Some(Duration::ZERO)).unwrap(), 0);
        assert_eq!(
            epoll
                .add(&b, flags::IN, 1)
                .and_then(|()| epoll.add(&b, flags::IN, 1))
                .unwrap_err()
                .raw_os_error(),
            Some(libc::EEXIST)
        );
    }
}
