//! The inject queue: the one queue every thread can push to.
//!
//! Tasks spawned or woken from outside the runtime's workers (the thread in
//! `block_on`, a plain `std::thread`, a timer or I/O event delivered to a
//! parked runtime) cannot touch a worker's local ring, which has a single
//! producer. They go here, as do the overflow batches of full rings.
//!
//! It is a `VecDeque` behind a mutex, with its length mirrored in an atomic
//! so that the hot path, "is there anything?", costs one load and no lock.
//! Workers take from it in batches (see `worker.rs`), so the lock is taken
//! once per batch, not once per task. Once closed (at shutdown) it refuses
//! new tasks, which are dropped instead (each drop releases one reference
//! to a task that shutdown cancels).
//!
//! Book: Chapter 7, "The inject queue and its interval".

use super::multi_thread::queue::Overflow;
use crate::loom::{AtomicBool, AtomicUsize, Mutex, Ordering};
use std::collections::VecDeque;

/// The shared queue.
pub(crate) struct Inject<T> {
    queue: Mutex<Queue<T>>,
    len: AtomicUsize,
    closed: AtomicBool,
}

/// What the mutex guards: the tasks, and how many were pushed one by one
/// from outside the workers (a metric, counted under the lock the push
/// takes anyway instead of in a shared atomic of its own).
struct Queue<T> {
    tasks: VecDeque<T>,
    remote_pushes: u64,
}

impl<T> Inject<T> {
    pub(crate) fn new() -> Inject<T> {
        Inject {
            queue: Mutex::new(Queue {
                tasks: VecDeque::new(),
                remote_pushes: 0,
            }),
            len: AtomicUsize::new(0),
            closed: AtomicBool::new(false),
        }
    }

    /// Tasks waiting (a snapshot, without the lock).
    pub(crate) fn len(&self) -> usize {
        self.len.load(Ordering::Acquire)
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Closes the queue; returns true the first time.
    pub(crate) fn close(&self) -> bool {
        // Under the lock, so that no push that saw "open" lands after the
        // drain that follows a close.
        let _queue = self.queue.lock();
        !self.closed.swap(true, Ordering::AcqRel)
    }

    pub(crate) fn is_closed(&self) -> bool {
        self.closed.load(Ordering::Acquire)
    }

    /// Pushes a task; a closed queue drops it.
    pub(crate) fn push(&self, task: T) {
        self.push_one(task, false);
    }

    /// Pushes a task scheduled from outside the workers, and counts it.
    /// Returns true if the queue was empty before (under the lock): the
    /// first task of a run. A consumer that takes everything the queue
    /// holds before it sleeps needs to be told only about that one; the
    /// tasks pushed behind it are taken with it, or find the queue empty
    /// again and are first in turn.
    pub(crate) fn push_remote(&self, task: T) -> bool {
        self.push_one(task, true)
    }

    fn push_one(&self, task: T, remote: bool) -> bool {
        let mut queue = self.queue.lock();
        if self.closed.load(Ordering::Acquire) {
            drop(queue);
            drop(task);
            return false;
        }
        let was_empty = queue.tasks.is_empty();
        queue.tasks.push_back(task);
        queue.remote_pushes += u64::from(remote);
        self.len.store(queue.tasks.len(), Ordering::Release);
        was_empty
    }

    /// Tasks pushed with `push_remote` so far.
    pub(crate) fn remote_pushes(&self) -> u64 {
        self.queue.lock().remote_pushes
    }

    /// Pushes many tasks under one lock.
    pub(crate) fn push_batch(&self, tasks: impl Iterator<Item = T>) {
        let mut queue = self.queue.lock();
        if self.closed.load(Ordering::Acquire) {
            drop(queue);
            tasks.for_each(drop);
            return;
        }
        queue.tasks.extend(tasks);
        self.len.store(queue.tasks.len(), Ordering::Release);
    }

    /// Pops one task.
    pub(crate) fn pop(&self) -> Option<T> {
        if self.is_empty() {
            return None;
        }
        let mut queue = self.queue.lock();
        let task = queue.tasks.pop_front();
        self.len.store(queue.tasks.len(), Ordering::Release);
        task
    }

    /// Pops up to `max` tasks under one lock, handing each to `f` in
    /// order. Returns how many were popped.
    pub(crate) fn pop_n(&self, max: usize, mut f: impl FnMut(T)) -> usize {
        if self.is_empty() || max == 0 {
            return 0;
        }
        let mut queue = self.queue.lock();
        let n = max.min(queue.tasks.len());
        queue.tasks.drain(..n).for_each(&mut f);
        self.len.store(queue.tasks.len(), Ordering::Release);
        n
    }

    /// Moves every task waiting here to the back of `dest`, in order, and
    /// returns how many. Into an empty `dest` this is a swap of the two
    /// buffers under the lock (`dest`'s spare capacity stays here for the
    /// next pushes), so the lock is held for a constant time however long
    /// the queue.
    pub(crate) fn take_all_into(&self, dest: &mut VecDeque<T>) -> usize {
        if self.is_empty() {
            return 0;
        }
        let mut queue = self.queue.lock();
        let n = queue.tasks.len();
        if dest.is_empty() {
            std::mem::swap(dest, &mut queue.tasks);
        } else {
            dest.append(&mut queue.tasks);
        }
        self.len.store(0, Ordering::Release);
        n
    }

    /// Takes everything (at shutdown).
    pub(crate) fn drain(&self) -> Vec<T> {
        let mut queue = self.queue.lock();
        self.len.store(0, Ordering::Release);
        queue.tasks.drain(..).collect()
    }
}

impl<T> Overflow<T> for Inject<T> {
    fn push(&self, task: T) {
        Inject::push(self, task);
    }

    fn push_batch(&self, tasks: impl Iterator<Item = T>) {
        Inject::push_batch(self, tasks);
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn fifo_batches_and_close() {
        let inject = Inject::new();
        assert!(inject.push_remote(1), "the first task of a run");
        assert!(!inject.push_remote(7), "behind the first");
        assert_eq!(inject.pop(), Some(1));
        assert_eq!(inject.pop(), Some(7));
        inject.push_remote(1);
        inject.push_batch([2, 3, 4].into_iter());
        assert_eq!(inject.len(), 4);
        assert_eq!(inject.remote_pushes(), 3);
        assert_eq!(inject.pop(), Some(1));
        let mut popped = Vec::new();
        assert_eq!(inject.pop_n(2, |t| popped.push(t)), 2);
        assert_eq!(popped, vec![2, 3]);
        inject.push_batch([5, 6].into_iter());
        let mut dest = VecDeque::from([1]);
        assert_eq!(inject.take_all_into(&mut dest), 3);
        assert_eq!(dest, [1, 4, 5, 6]);
        assert!(inject.is_empty());
        inject.push(4);
        assert!(inject.close());
        assert!(!inject.close());
        inject.push(5);
        assert_eq!(inject.drain(), vec![4]);
        assert!(inject.is_empty());
    }
}
