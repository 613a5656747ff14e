//! A start line for a crowd of threads.
//!
//! Experiments that need many threads doing something *at the same time*
//! (parked, or connected) start them one by one, wait until every one has
//! arrived at the gate, measure or start the load, then open the gate.
//! `std::sync::Barrier` needs the exact count up front and hangs if one
//! thread fails to start; this gate counts arrivals instead, so the spawner
//! can wait for exactly the threads that did start.

use std::sync::{Condvar, Mutex, MutexGuard};

/// Threads arrive and wait; the owner waits for arrivals, then opens.
#[derive(Debug, Default)]
pub struct Gate {
    state: Mutex<GateState>,
    changed: Condvar,
}

#[derive(Debug, Default)]
struct GateState {
    arrived: usize,
    open: bool,
}

impl Gate {
    /// A closed gate with no one at it.
    pub fn new() -> Gate {
        Gate::default()
    }

    fn lock(&self) -> MutexGuard<'_, GateState> {
        // The state is two plain fields: a panic elsewhere cannot leave it
        // half-written, so a poisoned lock is still usable.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Records this thread's arrival, then blocks until the gate opens.
    pub fn arrive_and_wait(&self) {
        let mut state = self.lock();
        state.arrived += 1;
        self.changed.notify_all();
        while !state.open {
            state = self.changed.wait(state).unwrap_or_else(|e| e.into_inner());
        }
    }

    /// Blocks until `count` threads have arrived.
    pub fn wait_for_arrivals(&self, count: usize) {
        let mut state = self.lock();
        while state.arrived < count {
            state = self.changed.wait(state).unwrap_or_else(|e| e.into_inner());
        }
    }

    /// Lets every waiting thread, and every later arrival, through.
    pub fn open(&self) {
        self.lock().open = true;
        self.changed.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn nobody_passes_before_the_gate_opens() {
        let gate = Arc::new(Gate::new());
        let passed = Arc::new(AtomicUsize::new(0));
        let threads: Vec<_> = (0..8)
            .map(|_| {
                let (gate, passed) = (Arc::clone(&gate), Arc::clone(&passed));
                std::thread::spawn(move || {
                    gate.arrive_and_wait();
                    passed.fetch_add(1, Ordering::SeqCst);
                })
            })
            .collect();
        gate.wait_for_arrivals(8);
        assert_eq!(passed.load(Ordering::SeqCst), 0);
        gate.open();
        for t in threads {
            t.join().unwrap();
        }
        assert_eq!(passed.load(Ordering::SeqCst), 8);
    }
}
