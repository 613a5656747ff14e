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
//! Book: Chapter 7, "The I/O driver" and "The timing wheel".

use crate::io::driver::{self as io_driver, IoDriver, IoHandle};
use crate::time::driver::TimeHandle;
use std::io;
use std::sync::Mutex;
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
}

/// Creates the driver.
pub(crate) fn create() -> io::Result<Shared> {
    let (io, io_handle) = io_driver::create()?;
    Ok(Shared {
        io: io_handle,
        time: TimeHandle::new(),
        driver: Mutex::new(Driver { io, failed: false }),
    })
}

impl Driver {
    /// Waits for I/O events or the next timer (at most `max`, `None` for no
    /// limit but the timers), delivers the events, fires due timers.
    // ANCHOR: park
    pub(crate) fn park(&mut self, shared: &Shared, max: Option<Duration>) {
        let timeout = shared.time.park_timeout(max);
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
        if let Ok(mut driver) = self.driver.try_lock() {
            driver.park(self, Some(Duration::ZERO));
        }
    }
    // ANCHOR_END: poll_now

    /// Wakes the worker parked in the driver, if any.
    pub(crate) fn unpark(&self) {
        self.io.unpark();
    }
}
