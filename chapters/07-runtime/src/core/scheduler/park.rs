//! Putting an idle worker to sleep, and waking it, without losing a wake-up.
//!
//! The race to beat: a worker decides to sleep because every queue looked
//! empty; between that look and the moment it blocks, another thread pushes
//! a task and tries to wake it. If that wake-up is delivered before the
//! worker blocks and then forgotten, the worker sleeps on a queued task.
//!
//! The fix is a small state machine in one atomic word, next to a mutex and
//! a condition variable:
//!
//! ```text
//!            park()                         unpark()
//!   EMPTY ──────────> PARKED ──wait──┐     any ──> NOTIFIED
//!     ^                 │            │      (if it was PARKED: lock, notify_one)
//!     │                 <────────────┘
//!     └── park() returns after consuming NOTIFIED
//! ```
//!
//! `unpark` always leaves NOTIFIED behind, so a wake-up that arrives early is
//! kept and the next `park` returns at once; `park` publishes PARKED under
//! the mutex, and `unpark` takes the mutex before signalling, so the signal
//! cannot fall between the check and the wait. Spurious condvar wake-ups
//! loop back to waiting.
//!
//! There is a second way to sleep: the first idle worker to get the driver
//! parks inside it (`epoll_wait`, with the next timer as timeout) instead of
//! on the condvar, in state PARKED_DRIVER; unparking it writes to the
//! driver's eventfd, which makes `epoll_wait` return.
//!
//! Book: Chapter 7, "Stealing, searching and parking".

use crate::driver;
use crate::loom::{Arc, AtomicUsize, Condvar, Mutex, Ordering};
use std::time::Duration;

const EMPTY: usize = 0;
const PARKED: usize = 1;
const NOTIFIED: usize = 2;
const PARKED_DRIVER: usize = 3;

struct ParkSignal {
    state: AtomicUsize,
    mutex: Mutex<()>,
    condvar: Condvar,
    /// The runtime's driver, for workers (block_on threads have none).
    driver: Option<std::sync::Arc<driver::DriverHandle>>,
}

/// The sleeping side, owned by one thread.
pub(crate) struct Parker {
    inner: Arc<ParkSignal>,
}

/// The waking side; any thread, any number of clones.
#[derive(Clone)]
pub(crate) struct Unparker {
    inner: Arc<ParkSignal>,
}

impl Parker {
    /// A parker that sleeps on its condition variable only.
    pub(crate) fn new() -> Parker {
        Parker::with_driver(None)
    }

    /// A worker's parker: it sleeps in the driver when it can get it.
    pub(crate) fn with_driver(driver: Option<std::sync::Arc<driver::DriverHandle>>) -> Parker {
        Parker {
            inner: Arc::new(ParkSignal {
                state: AtomicUsize::new(EMPTY),
                mutex: Mutex::new(()),
                condvar: Condvar::new(),
                driver,
            }),
        }
    }

    pub(crate) fn unparker(&self) -> Unparker {
        Unparker {
            inner: self.inner.clone(),
        }
    }

    /// Blocks until unparked (or returns at once if an unpark came first).
    pub(crate) fn park(&self) {
        self.park_inner(None);
    }

    /// Blocks until unparked or until `timeout` passes.
    fn park_inner(&self, timeout: Option<Duration>) {
        let inner = &*self.inner;
        // Fast path: a notification is already waiting.
        if inner
            .state
            .compare_exchange(NOTIFIED, EMPTY, Ordering::SeqCst, Ordering::SeqCst)
            .is_ok()
        {
            return;
        }
        if timeout == Some(Duration::ZERO) {
            return;
        }
        if let Some(shared) = &inner.driver
            && let Some(mut driver) = shared.driver.try_lock()
        {
            match inner.state.compare_exchange(
                EMPTY,
                PARKED_DRIVER,
                Ordering::SeqCst,
                Ordering::SeqCst,
            ) {
                Ok(_) => {}
                Err(NOTIFIED) => {
                    inner.state.store(EMPTY, Ordering::SeqCst);
                    return;
                }
                Err(actual) => unreachable!("parker in state {actual} while its owner parks"),
            }
            driver.park(shared, timeout);
            // PARKED_DRIVER, or NOTIFIED if an unpark woke us: either way
            // we are awake now.
            inner.state.store(EMPTY, Ordering::SeqCst);
            return;
        }
        // ANCHOR: park_condvar
        let mut guard = inner.mutex.lock();
        match inner
            .state
            .compare_exchange(EMPTY, PARKED, Ordering::SeqCst, Ordering::SeqCst)
        {
            Ok(_) => {}
            Err(NOTIFIED) => {
                // Arrived between the fast path and the lock.
                inner.state.store(EMPTY, Ordering::SeqCst);
                return;
            }
            Err(actual) => unreachable!("parker in state {actual} while its owner parks"),
        }
        // ANCHOR_END: park_condvar
        loop {
            guard = match timeout {
                None => inner.condvar.wait(guard),
                Some(timeout) => inner.condvar.wait_timeout(guard, timeout),
            };
            if inner
                .state
                .compare_exchange(NOTIFIED, EMPTY, Ordering::SeqCst, Ordering::SeqCst)
                .is_ok()
            {
                return;
            }
            if timeout.is_some() {
                // Timed out (or spurious): stop parking either way.
                inner.state.store(EMPTY, Ordering::SeqCst);
                return;
            }
        }
    }
}

impl Unparker {
    /// Wakes the parker, now or at its next park.
    // ANCHOR: unpark
    pub(crate) fn unpark(&self) {
        let inner = &*self.inner;
        match inner.state.swap(NOTIFIED, Ordering::SeqCst) {
            EMPTY | NOTIFIED => {}
            PARKED => {
                // The parker holds the mutex from its check until it waits;
                // taking it here means it is waiting when we signal.
                drop(inner.mutex.lock());
                inner.condvar.notify_one();
            }
            PARKED_DRIVER => {
                if let Some(shared) = &inner.driver {
                    shared.unpark();
                }
            }
            actual => unreachable!("parker in unknown state {actual}"),
        }
    }
    // ANCHOR_END: unpark
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn an_early_unpark_is_not_lost() {
        let parker = Parker::new();
        parker.unparker().unpark();
        parker.park();
    }

    #[test]
    #[cfg_attr(miri, ignore = "sleeps")]
    fn park_timeout_returns_without_an_unpark() {
        let parker = Parker::new();
        parker.park_inner(Some(Duration::from_millis(1)));
        // And the state is EMPTY again: an unpark still works.
        parker.unparker().unpark();
        parker.park();
    }

    #[test]
    fn unpark_from_another_thread() {
        let parker = Parker::new();
        let unparker = parker.unparker();
        let thread = std::thread::spawn(move || unparker.unpark());
        parker.park();
        thread.join().unwrap();
    }
}

#[cfg(all(test, loom))]
mod loom_park {
    use super::*;
    use crate::loom::{AtomicBool, thread};

    /// The classic lost wake-up: a flag set and an unpark sent while the
    /// worker checks the flag and parks. The worker must always see the flag.
    #[test]
    fn loom_park_unpark_no_lost_wakeup() {
        loom::model(|| {
            let parker = Parker::new();
            let unparker = parker.unparker();
            let work = Arc::new(AtomicBool::new(false));
            let work2 = work.clone();
            let producer = thread::spawn(move || {
                work2.store(true, Ordering::SeqCst);
                unparker.unpark();
            });
            while !work.load(Ordering::SeqCst) {
                parker.park();
            }
            producer.join().unwrap();
        });
    }

    /// Two workers park with one driver between them: one wins it (a
    /// `try_lock`) and sleeps in it, the other sleeps on its condition
    /// variable. Unparking both, in any interleaving with their parking,
    /// wakes both: the driver's holder through the driver's wake-up, the
    /// other through its condvar, and neither wake-up goes to the wrong one.
    #[test]
    fn loom_two_workers_hand_off_the_driver() {
        loom::model(|| {
            let shared = std::sync::Arc::new(driver::create(false, false).unwrap());
            let parkers = [
                Parker::with_driver(Some(shared.clone())),
                Parker::with_driver(Some(shared.clone())),
            ];
            let unparkers: Vec<Unparker> = parkers.iter().map(Parker::unparker).collect();
            let workers: Vec<_> = parkers
                .into_iter()
                .map(|parker| thread::spawn(move || parker.park()))
                .collect();
            for unparker in &unparkers {
                unparker.unpark();
            }
            for worker in workers {
                worker.join().unwrap();
            }
            // The driver is free again for whoever parks next.
            assert!(shared.driver.try_lock().is_some());
        });
    }

    /// Two unparks and two parks in any order: both parks return.
    #[test]
    fn loom_park_unpark_twice() {
        loom::model(|| {
            let parker = Parker::new();
            let unparker = parker.unparker();
            let count = Arc::new(AtomicUsize::new(0));
            let count2 = count.clone();
            let producer = thread::spawn(move || {
                for _ in 0..2 {
                    count2.fetch_add(1, Ordering::SeqCst);
                    unparker.unpark();
                }
            });
            while count.load(Ordering::SeqCst) < 2 {
                parker.park();
            }
            producer.join().unwrap();
        });
    }
}
