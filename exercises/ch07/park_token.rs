//! Exercise ch07_park_token: find and fix the lost wake-ups in a worker's
//! parker.
//!
//! An idle worker *parks* (sleeps until another thread *unparks* it). The
//! race to beat: the worker finds every queue empty and decides to park;
//! before it blocks, another thread pushes a task and unparks it. If that
//! unpark is forgotten, the worker sleeps on a queued task.
//!
//! The parker is a state word beside a mutex and a condition variable:
//!
//! * `EMPTY`: nobody is parked and no unpark is waiting;
//! * `PARKED`: the owner is parked, or about to wait on the condvar;
//! * `NOTIFIED`: an unpark is waiting for the next `park` to consume it.
//!
//! [`Parker::park`] (the owner only) consumes a waiting `NOTIFIED` and
//! returns at once; otherwise, holding the mutex, it moves `EMPTY` to
//! `PARKED` and waits on the condvar until it finds `NOTIFIED`.
//! [`Parker::unpark`] (any thread) must make the owner's current or next
//! `park` return.
//!
//! What must hold, in every interleaving: **an unpark is never lost.** If
//! it comes before the `park`, that `park` returns at once; if it comes
//! during the `park`, the owner wakes. (A condvar's `notify_one` wakes only
//! a thread already waiting: on its own it is an event, forgotten if nobody
//! waits. The state word is what lasts.)
//!
//! `park` below is right. `unpark` compiles, and loses wake-ups. The tests
//! are [loom] models: loom runs each once per interleaving of its threads,
//! and a lost unpark shows as every thread finished or blocked while `park`
//! still waits. Fix `unpark`, and only `unpark` (more than one interleaving
//! may fail: fix one, and loom shows the next).
//!
//! Book: Chapter 7, "Parking without losing a wake-up" (7.2) and "Every
//! interleaving, with loom" (7.8).
//! Check: `cargo run -p exercises -- check ch07_park_token` (it builds with
//! `--cfg loom`, in release, in its own target directory).
//! Hint: `cargo run -p exercises -- hint ch07_park_token`.
//!
//! [loom]: https://docs.rs/loom

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
        match self
            .state
            .compare_exchange(EMPTY, PARKED, Ordering::SeqCst, Ordering::SeqCst)
        {
            Ok(_) => {}
            // An unpark came since the fast path: consume it.
            Err(NOTIFIED) => {
                self.state.store(EMPTY, Ordering::SeqCst);
                return;
            }
            Err(actual) => panic!("park: state {actual} while its owner parks"),
        }
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
        // Only a parked owner needs waking.
        if self
            .state
            .compare_exchange(PARKED, NOTIFIED, Ordering::SeqCst, Ordering::SeqCst)
            .is_ok()
        {
            self.condvar.notify_one();
        }
    }
}
