//! Which workers are asleep, and how many are looking for work.
//!
//! Waking a parked thread costs a system call (a futex wake) on the waker's
//! side and a context switch on the sleeper's, a few microseconds in all
//! (Chapter 2 measured it). A runtime that woke a worker for every new task
//! would spend more time waking than working; one that never woke them would
//! leave cores idle while work waits. The policy in between:
//!
//! * A worker with nothing to do first *searches* (steals from the others,
//!   checks the inject queue) before it parks. At most half of the workers
//!   search at once: more would spend their time contending on the same
//!   queues.
//! * New work wakes a parked worker only if *nobody is searching*: a
//!   searcher will find the work anyway. The woken worker starts out
//!   searching, so a burst of spawns wakes one worker, not one per task.
//! * When a searcher finds work it stops searching; if it was the last
//!   searcher, it wakes another worker, so that the rest of the burst is
//!   found too. Work spreads one worker at a time, as fast as it is found.
//! * The last searcher to give up and park checks every queue once more
//!   after saying so; a task pushed just before is then not missed.
//!
//! The counters live in one atomic word (unparked workers in the high bits,
//! searching workers in the low 16 bits) so both are read in one load. The
//! list of sleepers sits behind a mutex that is taken only to park and to
//! wake, which cost a system call anyway.
//!
//! Book: Chapter 7, "Stealing, searching and parking".

use crate::loom::{AtomicUsize, Mutex, Ordering, fence};

const SEARCHING_MASK: usize = (1 << 16) - 1;
const UNPARKED_SHIFT: usize = 16;
const UNPARKED_ONE: usize = 1 << UNPARKED_SHIFT;

pub(crate) struct Idle {
    /// Unparked workers (high bits) and searching workers (low 16 bits).
    state: AtomicUsize,
    /// Indices of parked workers.
    sleepers: Mutex<Vec<usize>>,
    num_workers: usize,
}

fn searching(state: usize) -> usize {
    state & SEARCHING_MASK
}

fn unparked(state: usize) -> usize {
    state >> UNPARKED_SHIFT
}

impl Idle {
    /// All workers start unparked and not searching.
    pub(crate) fn new(num_workers: usize) -> Idle {
        assert!(num_workers < SEARCHING_MASK, "too many workers");
        Idle {
            state: AtomicUsize::new(num_workers << UNPARKED_SHIFT),
            sleepers: Mutex::new(Vec::with_capacity(num_workers)),
            num_workers,
        }
    }

    /// New work was queued: returns the parked worker to wake, if one should
    /// be. The caller published the work before calling.
    // ANCHOR: notify
    pub(crate) fn worker_to_notify(&self) -> Option<usize> {
        if !self.should_notify() {
            return None;
        }
        let mut sleepers = self.sleepers.lock();
        // Check again under the lock: another waker may have beaten us.
        if !self.should_notify() {
            return None;
        }
        // The woken worker counts as unparked and searching from now on, so
        // the next task pushed does not wake yet another worker.
        self.state.fetch_add(UNPARKED_ONE | 1, Ordering::SeqCst);
        sleepers.pop()
    }
    // ANCHOR_END: notify

    fn should_notify(&self) -> bool {
        // Pairs with the fence in `transition_worker_to_parked`'s caller:
        // either we see the worker parked, or it sees our task.
        fence(Ordering::SeqCst);
        let state = self.state.load(Ordering::SeqCst);
        searching(state) == 0 && unparked(state) < self.num_workers
    }

    /// A worker with no work wants to search; false if half are already
    /// searching (it should park instead).
    // ANCHOR: to_searching
    pub(crate) fn transition_worker_to_searching(&self) -> bool {
        let state = self.state.load(Ordering::SeqCst);
        if 2 * searching(state) >= self.num_workers {
            return false;
        }
        // Several may pass the check at once and slightly exceed half; the
        // limit is a heuristic, not an invariant.
        self.state.fetch_add(1, Ordering::SeqCst);
        true
    }
    // ANCHOR_END: to_searching

    /// A searching worker found work; returns true if it was the last
    /// searcher (then it must wake another worker).
    pub(crate) fn transition_worker_from_searching(&self) -> bool {
        let previous = self.state.fetch_sub(1, Ordering::SeqCst);
        debug_assert!(searching(previous) > 0);
        searching(previous) == 1
    }

    /// A worker parks; returns true if it was the last searcher (then it
    /// must check the queues once more before sleeping).
    pub(crate) fn transition_worker_to_parked(&self, worker: usize, is_searching: bool) -> bool {
        let mut sleepers = self.sleepers.lock();
        let previous = self
            .state
            .fetch_sub(UNPARKED_ONE | usize::from(is_searching), Ordering::SeqCst);
        sleepers.push(worker);
        is_searching && searching(previous) == 1
    }

    /// A worker came out of a park with tasks in its own queue (it woke them
    /// itself, in the I/O driver). Takes it off the sleepers list if it is
    /// still there, and returns whether it must count itself as searching.
    ///
    /// If a notifier already took it off the list, that notifier counted it
    /// as unparked *and searching* (`worker_to_notify`), and only a worker
    /// that knows it is searching ever brings that count down: so it
    /// searches. `Worker::transition_from_parked` and the loom model
    /// `loom_driver_wake_and_remote_wake_coincide` both call this function.
    // ANCHOR: woke_with_local_work
    pub(crate) fn transition_worker_woke_with_local_work(&self, worker: usize) -> bool {
        #[cfg(not(rt_bug_searching))]
        {
            let was_still_parked = self.unpark_worker_by_id(worker);
            !was_still_parked
        }
        // The old one-line decision, kept so that the loom model can be seen
        // to catch it: the result is ignored and the worker never searches,
        // so a count a notifier added is never taken back.
        #[cfg(rt_bug_searching)]
        {
            self.unpark_worker_by_id(worker);
            false
        }
    }
    // ANCHOR_END: woke_with_local_work

    /// Takes a specific worker off the sleepers list (it found work in its
    /// own queue after a wake-up meant for someone else). Returns false if it
    /// was not parked.
    pub(crate) fn unpark_worker_by_id(&self, worker: usize) -> bool {
        let mut sleepers = self.sleepers.lock();
        match sleepers.iter().position(|&w| w == worker) {
            Some(position) => {
                sleepers.swap_remove(position);
                self.state.fetch_add(UNPARKED_ONE, Ordering::SeqCst);
                true
            }
            None => false,
        }
    }

    /// True if the worker is on the sleepers list (its wake-up was spurious).
    pub(crate) fn is_parked(&self, worker: usize) -> bool {
        self.sleepers.lock().contains(&worker)
    }

    /// Workers currently searching (for metrics and tests).
    pub(crate) fn num_searching(&self) -> usize {
        searching(self.state.load(Ordering::SeqCst))
    }

    /// Workers currently parked (for metrics and tests).
    pub(crate) fn num_parked(&self) -> usize {
        self.num_workers - unparked(self.state.load(Ordering::SeqCst))
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn a_burst_of_work_wakes_one_worker_at_a_time() {
        let idle = Idle::new(4);
        for worker in 0..4 {
            assert!(!idle.transition_worker_to_parked(worker, false));
        }
        assert_eq!(idle.num_parked(), 4);
        let first = idle.worker_to_notify().expect("someone to wake");
        // The woken worker is searching: more work does not wake another.
        assert_eq!(idle.worker_to_notify(), None);
        assert_eq!(idle.num_searching(), 1);
        assert!(!idle.is_parked(first));
        // It finds work; being the last searcher, it must wake the next.
        assert!(idle.transition_worker_from_searching());
        assert!(idle.worker_to_notify().is_some());
    }

    #[test]
    fn at_most_half_of_the_workers_search() {
        let idle = Idle::new(4);
        assert!(idle.transition_worker_to_searching());
        assert!(idle.transition_worker_to_searching());
        assert!(!idle.transition_worker_to_searching());
        assert!(!idle.transition_worker_from_searching());
        assert!(idle.transition_worker_from_searching());
    }

    #[test]
    fn a_worker_a_notifier_already_woke_searches() {
        let idle = Idle::new(2);
        assert!(!idle.transition_worker_to_parked(0, false));
        // Still on the list: it takes itself off and does not search.
        assert!(!idle.transition_worker_woke_with_local_work(0));
        assert!(!idle.transition_worker_to_parked(0, false));
        // A notifier takes it off first and counts it as searching.
        assert_eq!(idle.worker_to_notify(), Some(0));
        assert!(idle.transition_worker_woke_with_local_work(0));
        assert_eq!(idle.num_searching(), 1);
    }

    #[test]
    fn the_last_searcher_to_park_is_told_so() {
        let idle = Idle::new(2);
        assert!(idle.transition_worker_to_searching());
        assert!(idle.transition_worker_to_parked(0, true));
        assert!(!idle.transition_worker_to_parked(1, false));
        assert!(idle.unpark_worker_by_id(1));
        assert!(!idle.unpark_worker_by_id(1));
    }
}

#[cfg(all(test, loom))]
mod loom_idle {
    use super::*;
    use crate::loom::{Arc, AtomicBool, thread};

    /// The last searcher parks while a task arrives from outside: either its
    /// last look at the queues sees the task, or the spawner wakes it.
    #[test]
    fn loom_last_searcher_parks_while_work_arrives() {
        loom::model(|| {
            let idle = Arc::new(Idle::new(1));
            let work = Arc::new(AtomicBool::new(false));
            let (idle2, work2) = (idle.clone(), work.clone());
            let spawner = thread::spawn(move || {
                work2.store(true, Ordering::SeqCst);
                idle2.worker_to_notify()
            });
            // Worker 0 found nothing: it searched, and now parks.
            assert!(idle.transition_worker_to_searching());
            let saw_work = idle.transition_worker_to_parked(0, true) && {
                fence(Ordering::SeqCst);
                work.load(Ordering::SeqCst)
            };
            let woken = spawner.join().unwrap();
            assert!(saw_work || woken == Some(0), "a wake-up was lost");
        });
    }

    /// The bug of `Worker::transition_from_parked`: worker 0 comes out of the
    /// driver with tasks in its own queue just as a spawner from outside
    /// picks it to wake (counting it as searching). Every worker the count
    /// calls searching must know it is, or the count never comes down and no
    /// parked worker is woken again.
    #[test]
    fn loom_driver_wake_and_remote_wake_coincide() {
        loom::model(|| {
            let idle = Arc::new(Idle::new(2));
            idle.transition_worker_to_parked(1, false);
            idle.transition_worker_to_parked(0, false);
            let idle2 = idle.clone();
            let spawner = thread::spawn(move || idle2.worker_to_notify());
            // Worker 0, woken by the driver with local tasks, makes the
            // decision `Worker::transition_from_parked` makes, by calling the
            // same function.
            let mut searching = usize::from(idle.transition_worker_woke_with_local_work(0));
            let mut woke_other = None;
            if searching == 1 {
                // It runs its first task and stops searching; the last
                // searcher wakes another worker.
                searching = 0;
                if idle.transition_worker_from_searching() {
                    woke_other = idle.worker_to_notify();
                }
            }
            let picked = spawner.join().unwrap();
            // Worker 1, if picked, wakes knowing it is searching.
            let told = [picked, woke_other]
                .iter()
                .filter(|w| **w == Some(1))
                .count();
            assert_eq!(idle.num_searching(), searching + told);
        });
    }
}
