//! A timer descriptor, so the driver can sleep in `epoll_wait` until a
//! timer's deadline with microsecond precision.
//!
//! `epoll_wait` takes its timeout in whole milliseconds (mio rounds up), so
//! a worker parked until a deadline wakes anywhere up to a millisecond after
//! it; added to the wheel's own rounding up to the millisecond, timers would
//! fire up to 2 ms late. Linux's `timerfd` counts in nanoseconds and becomes
//! readable when it expires: armed with the time left until the deadline and
//! registered with the same epoll, it ends the wait on time, and
//! `epoll_wait` itself can wait without a timeout.
//!
//! One system call per park with a timer pending (arm) buys that
//! precision; a park with no timer, and every zero-timeout maintenance
//! poll, uses none. Arming again resets the expiration count, so the
//! descriptor is never read: registered edge-triggered, each expiry is one
//! event, and a deadline left armed when a wait ends early costs at most
//! one early end of a later wait.
//!
//! Book: Chapter 7, "The timing wheel".

use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::time::Duration;

/// A non-blocking `CLOCK_MONOTONIC` timer descriptor (the clock `Instant`
/// uses on Linux).
pub(crate) struct TimerFd {
    fd: OwnedFd,
}

impl TimerFd {
    pub(crate) fn new() -> io::Result<TimerFd> {
        // SAFETY: timerfd_create takes no pointers; we check its result.
        let fd = unsafe {
            libc::timerfd_create(
                libc::CLOCK_MONOTONIC,
                libc::TFD_NONBLOCK | libc::TFD_CLOEXEC,
            )
        };
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: `fd` is a descriptor we just created and own alone.
        let fd = unsafe { OwnedFd::from_raw_fd(fd) };
        Ok(TimerFd { fd })
    }

    /// Makes the descriptor readable `after` from now (at least 1 ns: zero
    /// would disarm it).
    pub(crate) fn arm(&self, after: Duration) -> io::Result<()> {
        let after = after.max(Duration::from_nanos(1));
        let spec = libc::itimerspec {
            // One expiry, no period.
            it_interval: libc::timespec {
                tv_sec: 0,
                tv_nsec: 0,
            },
            it_value: libc::timespec {
                tv_sec: after.as_secs() as libc::time_t,
                tv_nsec: libc::c_long::from(after.subsec_nanos() as i32),
            },
        };
        // SAFETY: `spec` is a valid itimerspec for the duration of the call,
        // and the old-value pointer may be null.
        let result =
            unsafe { libc::timerfd_settime(self.fd.as_raw_fd(), 0, &spec, std::ptr::null_mut()) };
        if result < 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }

    pub(crate) fn raw(&self) -> RawFd {
        self.fd.as_raw_fd()
    }
}

// Not under Miri: the test waits on a real timerfd in epoll, and Miri
// implements no timerfd.
#[cfg(all(test, not(loom), not(miri)))]
mod tests {
    use super::*;
    use std::time::Instant;

    /// A timer registered with a new epoll under token 1, as the driver's.
    fn registered() -> (mio::Poll, TimerFd, mio::Events) {
        let poll = mio::Poll::new().unwrap();
        let timer = TimerFd::new().unwrap();
        poll.registry()
            .register(
                &mut mio::unix::SourceFd(&timer.raw()),
                mio::Token(1),
                mio::Interest::READABLE,
            )
            .unwrap();
        (poll, timer, mio::Events::with_capacity(4))
    }

    /// Arms `timer` for `after` and waits in `poll`: the wait ends with the
    /// timer's event, not before `after`.
    fn arm_and_wait(
        poll: &mut mio::Poll,
        timer: &TimerFd,
        events: &mut mio::Events,
        after: Duration,
    ) {
        let start = Instant::now();
        timer.arm(after).unwrap();
        poll.poll(events, Some(Duration::from_secs(30))).unwrap();
        assert!(start.elapsed() >= after);
        assert!(events.iter().any(|e| e.token() == mio::Token(1)));
    }

    #[test]
    fn it_expires_on_time_in_epoll() {
        let (mut poll, timer, mut events) = registered();
        arm_and_wait(&mut poll, &timer, &mut events, Duration::from_micros(1500));
    }

    /// The driver never reads the descriptor: each arming still gives one
    /// event when it expires (edge-triggered; arming resets the count),
    /// and no event comes before the deadline of the latest arming.
    #[test]
    fn every_arming_gives_one_event_without_a_read() {
        let (mut poll, timer, mut events) = registered();
        for _ in 0..3 {
            arm_and_wait(&mut poll, &timer, &mut events, Duration::from_micros(500));
        }
        // Expired and not read: no event is pending any more.
        poll.poll(&mut events, Some(Duration::ZERO)).unwrap();
        assert!(events.is_empty());
        // Armed far away, then re-armed near: the near one ends the wait.
        timer.arm(Duration::from_secs(3600)).unwrap();
        arm_and_wait(&mut poll, &timer, &mut events, Duration::from_micros(500));
    }
}
