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
//! sockets and timers hold an `Arc` of this [`DriverHandle`] (not of the whole
//! scheduler). Once [`DriverHandle::shutdown`] has run, each leaf turns the state
//! into its own answer: a socket operation returns an `io::Error` saying the
//! runtime has shut down, a timer panics with a clear message (as Tokio's
//! do), and a thread blocked on either is woken to see it.
//!
//! Book: Chapter 7, "The I/O driver", "The timing wheel" and "Shutdown".

use crate::io_driver::{self as io_driver, IoDriver, IoHandle};
#[cfg(loom)]
use crate::loom::Condvar;
use crate::loom::{AtomicBool, Mutex, Ordering};
use crate::time::clock::{AutoAdvanceHold, Clock, ParkPlan};
use crate::time::driver::TimeHandle;
use std::io;
use std::time::Duration;

/// The driver: held by one thread at a time.
pub(crate) struct Driver {
    io: IoDriver,
}

/// Everything about the driver that any thread may use.
pub(crate) struct DriverHandle {
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
pub(crate) fn create(can_pause: bool, start_paused: bool) -> io::Result<DriverHandle> {
    let (io, io_handle) = io_driver::create()?;
    Ok(DriverHandle {
        io: io_handle,
        time: TimeHandle::new(crate::time::clock::Clock::new(can_pause, start_paused)),
        driver: Mutex::new(Driver { io }),
        #[cfg(loom)]
        loom_woken: Mutex::new(false),
        #[cfg(loom)]
        loom_wake: Condvar::new(),
        is_shutdown: AtomicBool::new(false),
    })
}

impl Driver {
    /// Waits for I/O events or the next timer (at most `max`, `None` for no
    /// limit but the timers), delivers the events, fires due timers. With
    /// the clock paused it follows the clock's rule (`time/clock.rs`): it
    /// may turn without waiting and move the clock to the next timer
    /// instead of sleeping until then.
    // ANCHOR: park
    pub(crate) fn park(&mut self, shared: &DriverHandle, max: Option<Duration>) {
        let clock = shared.time.clock();
        match clock.plan_park(shared.time.park_timeout(max)) {
            ParkPlan::Wait(timeout) => self.turn(shared, timeout),
            ParkPlan::TurnThenJump(wait) => {
                let by = shared.time.jump_to_next().unwrap_or(wait);
                self.turn(shared, Some(Duration::ZERO));
                clock.jump_unless_woken(by);
            }
        }
        shared.time.process();
    }
    // ANCHOR_END: park

    /// One turn of the I/O driver: wait for events at most `timeout`
    /// (`None`: until one comes or a wake), and deliver them.
    fn turn(&mut self, shared: &DriverHandle, timeout: Option<Duration>) {
        #[cfg(loom)]
        {
            let _ = &mut self.io;
            shared.loom_wait(timeout);
        }
        // An epoll_wait that fails for a reason other than a signal (which
        // `turn` absorbs) means the epoll or timer descriptor is gone: no
        // socket can be woken again, so every I/O future would hang. A clear
        // panic, as Tokio's driver panics, instead of a silent hang.
        #[cfg(not(loom))]
        if let Err(error) = self.io.turn(&shared.io, timeout) {
            panic!("rt: the I/O driver cannot wait for events: {error}");
        }
    }
}

impl DriverHandle {
    /// A zero-timeout turn, if no other thread holds the driver.
    // ANCHOR: poll_now
    pub(crate) fn poll_now(&self) {
        if let Some(mut driver) = self.driver.try_lock() {
            driver.park(self, Some(Duration::ZERO));
        }
    }
    // ANCHOR_END: poll_now

    /// The current-thread runtime's sleep: the driver is its alone (it
    /// holds the runtime's core), and it waits until an event, the next
    /// timer, or a wake.
    pub(crate) fn park(&self) {
        self.driver.lock().park(self, None);
    }

    /// The current-thread runtime's turn without waiting.
    pub(crate) fn turn_now(&self) {
        self.driver.lock().park(self, Some(Duration::ZERO));
    }

    /// A wake that does not need to reach the driver (the thread that
    /// would sleep in it is awake): only the paused clock must know.
    pub(crate) fn note_wake(&self) {
        self.time.clock().note_wake();
    }

    /// Work outside the runtime's tasks begins: a paused clock must not
    /// jump until the hold is released.
    pub(crate) fn hold_auto_advance(self: &std::sync::Arc<Self>) -> AutoAdvanceHold {
        Clock::hold(self)
    }

    /// Wakes the worker parked in the driver, if any.
    pub(crate) fn unpark(&self) {
        self.note_wake();
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

/// What the error of an operation on a runtime that has shut down says:
/// Tokio's words first (a program's tests may match them, and
/// [`is_rt_shutdown_err`](crate::runtime::is_rt_shutdown_err) does), then
/// ours.
pub(crate) const SHUT_DOWN: &str = "A Tokio 1.x context was found, but it is being shutdown. \
     (the runtime this socket belongs to has shut down)";

/// The error every socket operation returns once its runtime has shut down.
pub(crate) fn shut_down_error() -> io::Error {
    io::Error::other(SHUT_DOWN)
}
