//! Near miss of ch07_park_token: `park` checks for an unpark on its fast
//! path, then takes the mutex and stores PARKED without checking again. An
//! unpark between the two finds EMPTY, leaves NOTIFIED and signals nobody;
//! the store then overwrites NOTIFIED, and `park` waits for ever. Loom
//! explores that order, so the tests must catch it
//! (`an_unpark_racing_the_park_is_not_lost`).

#[cfg(loom)]
use loom::sync::{
    Condvar, Mutex,
    atomic::{AtomicUsize, Ordering},
};
#[cfg(not(loom))]
use std::sync::{
    Condvar, Mutex,
    atomic::{AtomicUsize, Ordering},
};

/// Nobody is parked and no unpark is waiting.
pub const EMPTY: usize = 0;
/// The owner is parked (or about to wait).
pub const PARKED: usize = 1;
/// An unpark is waiting for the next `park`.
pub const NOTIFIED: usize = 2;

/// One worker's parker.
#[derive(Debug)]
pub struct Parker {
    state: AtomicUsize,
    mutex: Mutex<()>,
    condvar: Condvar,
}

impl Parker {
    /// A parker with no unpark waiting.
    #[allow(clippy::new_without_default)]
    pub fn new() -> Parker {
        Parker {
            state: AtomicUsize::new(EMPTY),
            mutex: Mutex::new(()),
            condvar: Condvar::new(),
        }
    }

    /// Blocks until unparked, or returns at once if an unpark is waiting.
    /// Only the parker's owner calls it.
    pub fn park(&self) {
        // Fast path: an unpark is already waiting.
        if self
            .state
            .compare_exchange(NOTIFIED, EMPTY, Ordering::SeqCst, Ordering::SeqCst)
            .is_ok()
        {
            return;
        }
        let mut guard = self.mutex.lock().unwrap();
        // Nobody else parks, and the fast path found no unpark.
        self.state.store(PARKED, Ordering::SeqCst);
        loop {
            guard = self.condvar.wait(guard).unwrap();
            if self
                .state
                .compare_exchange(NOTIFIED, EMPTY, Ordering::SeqCst, Ordering::SeqCst)
                .is_ok()
            {
                return;
            }
            // Woken without an unpark (condvars may): wait again.
        }
    }

    /// Makes the owner's current `park` return, or its next one if it is
    /// not parked.
    pub fn unpark(&self) {
        // Always leave NOTIFIED: a state the next park finds, not an event
        // that only a thread already waiting could see.
        match self.state.swap(NOTIFIED, Ordering::SeqCst) {
            EMPTY | NOTIFIED => {}
            PARKED => {
                // The owner set PARKED holding the mutex and holds it until
                // it waits: taking the mutex here means it is waiting now,
                // so the notify cannot fall between its check and its wait.
                drop(self.mutex.lock().unwrap());
                self.condvar.notify_one();
            }
            actual => panic!("unpark: unknown state {actual}"),
        }
    }
}
