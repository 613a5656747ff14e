//! The runtime's driver: the I/O driver and the timer wheel, parked in
//! together.
//!
//! One worker at a time holds the driver (a `try_lock`): when it has nothing
//! to run it sleeps in `epoll_wait` with the next timer's deadline as the
//! timeout, then fires the timers that are due; the other idle workers sleep
//! on their condition variables. A busy worker polls the driver with a zero
//! timeout every `event_interval` ticks, so I/O and timers are not starved
//! by a full run queue.
//!
//! ```text
//!  worker 0: no work ─> try_lock(driver) ✓ ─> epoll_wait(timeout = next timer)
//!  worker 1: no work ─> try_lock(driver) ✗ ─> condvar wait
//!  new task for a sleeper ─> unpark: condvar notify, or the driver's eventfd
//! ```
//!
//! Shutdown is one state, kept here because every leaf reaches the driver:
//! sockets and timers hold an `Arc` of this [`Shared`] (not of the whole
//! scheduler). Once [`Shared::shutdown`] has run, each leaf turns the state
//! into its own answer: a socket operation returns an `io::Error` saying the
//! runtime has shut down, a timer panics with a clear message (as Tokio's
//! do), and a thread blocked on either is woken to see it.
//!
//! Book: Chapter 7, "The I/O driver", "The timing wheel" and "Shutdown".

use crate::io::driver::{self as io_driver, IoDriver, IoHandle};
#[cfg(loom)]
use crate::loom::Condvar;
use crate::loom::{AtomicBool, Mutex, Ordering};
use crate::time::driver::TimeHandle;
use std::io;
use std::time::Duration;

/// The driver: held by one thread at a time.
pub(crate) struct Driver {
    io: IoDriver,
    /// Set once an `epoll_wait` failed for a reason other than a signal; the
    /// error is printed once, and parking falls back to the timer alone.
    failed: bool,
}

/// Everything about the driver that any thread may use.
pub(crate) struct Shared {
    /// Registering sockets, waking the driver.
    pub(crate) io: IoHandle,
    /// The clock and the wheel.
    pub(crate) time: TimeHandle,
    /// The driver itself, for whoever parks in it.
    pub(crate) driver: Mutex<Driver>,
    /// Under loom, `epoll_wait` is replaced by this flag and condition
    /// variable: loom cannot step through a thread blocked in the kernel,
    /// and the models check the hand-off of the driver between workers,
    /// not epoll.
    #[cfg(loom)]
    loom_woken: Mutex<bool>,
    #[cfg(loom)]
    loom_wake: Condvar,
    /// Set once, when the runtime shuts down; never cleared. (The I/O and
    /// time halves each record it again under their own lock, so that a
    /// registration racing with shutdown is either refused or woken.)
    is_shutdown: AtomicBool,
}

/// Creates the driver. `can_pause`: the clock may be paused (a
/// current-thread runtime); `start_paused`: it starts paused.
pub(crate) fn create(can_pause: bool, start_paused: bool) -> io::Result<Shared> {
    let (io, io_handle) = io_driver::create()?;
    Ok(Shared {
        io: io_handle,
        time: TimeHandle::new(crate::time::clock::Clock::new(can_pause, start_paused)),
        driver: Mutex::new(Driver { io, failed: false }),
        #[cfg(loom)]
        loom_woken: Mutex::new(false),
        #[cfg(loom)]
        loom_wake: Condvar::new(),
        is_shutdown: AtomicBool::new(false),
    })
}

impl Driver {
    /// Waits for I/O events or the next timer (at most `max`, `None` for no
    /// limit but the timers), delivers the events, fires due timers.
    // ANCHOR: park
    pub(crate) fn park(&mut self, shared: &Shared, max: Option<Duration>) {
        let timeout = shared.time.park_timeout(max);
        #[cfg(loom)]
        {
            let _ = &mut self.io;
            shared.loom_wait(timeout);
        }
        #[cfg(not(loom))]
        if self.failed {
            // No epoll to wait in; sleep until the next timer (bounded so a
            // new earlier timer is not missed by much).
            std::thread::sleep(
                timeout
                    .unwrap_or(Duration::from_millis(10))
                    .min(Duration::from_millis(10)),
            );
        } else if let Err(error) = self.io.turn(&shared.io, timeout) {
            eprintln!("rt: the I/O driver failed and stops: {error}");
            self.failed = true;
        }
        shared.time.process();
    }
    // ANCHOR_END: park
}

impl Shared {
    /// A zero-timeout turn, if no other thread holds the driver.
    // ANCHOR: poll_now
    pub(crate) fn poll_now(&self) {
        if let Some(mut driver) = self.driver.try_lock() {
            driver.park(self, Some(Duration::ZERO));
        }
    }
    // ANCHOR_END: poll_now

    /// Wakes the worker parked in the driver, if any.
    pub(crate) fn unpark(&self) {
        self.io.unpark();
        #[cfg(loom)]
        {
            *self.loom_woken.lock() = true;
            self.loom_wake.notify_all();
        }
    }

    /// Under loom: the wait that stands for `epoll_wait`.
    #[cfg(loom)]
    fn loom_wait(&self, timeout: Option<Duration>) {
        let mut woken = self.loom_woken.lock();
        match timeout {
            Some(Duration::ZERO) => {}
            Some(timeout) => {
                if !*woken {
                    woken = self.loom_wake.wait_timeout(woken, timeout);
                }
            }
            None => {
                while !*woken {
                    woken = self.loom_wake.wait(woken);
                }
            }
        }
        *woken = false;
    }

    /// The runtime shuts down: from now on sockets fail and timers panic,
    /// and everyone waiting on either is woken to find out. Idempotent.
    pub(crate) fn shutdown(&self) {
        if self.is_shutdown.swap(true, Ordering::AcqRel) {
            return;
        }
        self.io.shutdown();
        self.time.shutdown();
        // A worker may still sleep in epoll_wait (its runtime's threads were
        // not waited for): let it see the end.
        self.unpark();
    }
}

/// The error every socket operation returns once its runtime has shut down.
pub(crate) fn shut_down_error() -> io::Error {
    io::Error::other("the runtime this socket belongs to has shut down")
}
