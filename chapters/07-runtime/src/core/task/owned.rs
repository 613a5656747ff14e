//! The runtime's list of every task it owns, so that shutdown can find and
//! cancel them all, even those no queue and no waker points to.
//!
//! Each task holds one reference for this list from its spawn until it
//! leaves the list after completing: at once, or, on a multi-thread worker,
//! with a batch of the worker's completed tasks ([`OwnedTasks::release_batch`]),
//! so that the thread that spawns and the worker that completes do not take
//! a shard's lock turn about for every task. (A task the same worker
//! spawned lately leaves at once: its shard's lines have not moved.) The
//! list is split into shards, each a mutex around a slab (a vector of slots
//! and a free list), and a task goes to the shard its id selects: spawns
//! and completions on different workers rarely contend for the same lock,
//! and insert and remove are O(1) with no allocation once the slab has
//! grown. The task remembers its slot in its header.
//!
//! Closing the list (at shutdown) marks every shard closed under its lock, so
//! a task spawned after that is cancelled at once instead of being leaked.
//!
//! The counts the metrics report (tasks alive, tasks spawned) are kept in
//! each shard, under the lock that insert and remove take anyway, rather
//! than in runtime-wide atomics: a shared counter would be one more cache
//! line that the spawning thread and every completing worker write to, on
//! every task. Reading the counts takes each shard's lock in turn, which
//! only the metrics do.
//!
//! Book: Chapter 7, "Shutdown: every future dropped exactly once".

use super::{JoinHandle, Notified, Schedule, Task};
use crate::loom::{Mutex, Ordering};
use std::future::Future;

/// Every live task of one runtime.
pub(crate) struct OwnedTasks<S: 'static> {
    shards: Box<[Mutex<Shard<S>>]>,
    mask: usize,
}

struct Shard<S: 'static> {
    slots: Vec<Option<Task<S>>>,
    free: Vec<usize>,
    closed: bool,
    /// Tasks in `slots`.
    alive: usize,
    /// Tasks ever inserted here.
    spawned: u64,
}

/// The most completed tasks [`OwnedTasks::release_batch`] takes at once.
pub(crate) const RELEASE_BATCH: usize = 32;

impl<S: 'static> Shard<S> {
    /// Takes `task` out of its slot, unless shutdown took it already.
    fn take(&mut self, task: &Task<S>) -> Option<Task<S>> {
        // SAFETY: the index is only read or written under this shard's lock,
        // which the caller holds (it has the shard by `&mut`).
        let index = task.header().owned_index.with(|ptr| unsafe { *ptr });
        let slot = self.slots.get_mut(index)?;
        if slot.as_ref().map(Task::raw) != Some(task.raw()) {
            return None;
        }
        let removed = slot.take();
        self.free.push(index);
        self.alive -= 1;
        removed
    }
}

impl<S: Schedule> OwnedTasks<S> {
    /// A list with at least `shards` shards (rounded up to a power of two).
    pub(crate) fn new(shards: usize) -> OwnedTasks<S> {
        let count = shards.max(1).next_power_of_two();
        OwnedTasks {
            shards: (0..count)
                .map(|_| {
                    Mutex::new(Shard {
                        slots: Vec::new(),
                        free: Vec::new(),
                        closed: false,
                        alive: 0,
                        spawned: 0,
                    })
                })
                .collect(),
            mask: count - 1,
        }
    }

    /// Creates a task, adds it to the list and queues it on `scheduler`
    /// (unless the list is closed, when it is cancelled on the spot): a
    /// spawn, the same for every scheduler.
    pub(crate) fn spawn<T>(
        &self,
        future: T,
        scheduler: &S,
        id: u64,
        location: &'static std::panic::Location<'static>,
    ) -> JoinHandle<T::Output>
    where
        S: Clone,
        T: Future + Send + 'static,
        T::Output: Send + 'static,
    {
        let (join, notified) = self.bind(future, scheduler.clone(), id, location);
        if let Some(notified) = notified {
            scheduler.schedule(notified);
        }
        join
    }

    /// Creates a task and adds it to the list. Returns its JoinHandle and the
    /// Notified to push to a run queue, or no Notified if the list is closed
    /// (the task was cancelled on the spot).
    pub(crate) fn bind<T>(
        &self,
        future: T,
        scheduler: S,
        id: u64,
        location: &'static std::panic::Location<'static>,
    ) -> (JoinHandle<T::Output>, Option<Notified<S>>)
    where
        T: Future + Send + 'static,
        T::Output: Send + 'static,
    {
        let (task, notified, join) = super::new_task(future, scheduler, id, location);
        let mut shard = self.shards[id as usize & self.mask].lock();
        if shard.closed {
            drop(shard);
            // Cancel it now: the future is dropped, the JoinHandle sees a
            // cancelled error, and the stale Notified only drops a reference.
            task.shutdown();
            drop(notified);
            return (join, None);
        }
        let index = match shard.free.pop() {
            Some(index) => index,
            None => {
                shard.slots.push(None);
                shard.slots.len() - 1
            }
        };
        // SAFETY: the index is only read or written under this shard's lock,
        // which we hold.
        task.header()
            .owned_index
            .with_mut(|ptr| unsafe { *ptr = index });
        // The slot is free, so its old value (`None`) needs no drop: write
        // without reading it. Reading it would wait for the cache line that
        // the completing thread wrote last; a store waits for nothing.
        debug_assert!(shard.slots[index].is_none(), "a free slot holds a task");
        std::mem::forget(shard.slots[index].replace(task));
        shard.alive += 1;
        shard.spawned += 1;
        (join, Some(notified))
    }

    fn shard_of(&self, task: &Task<S>) -> usize {
        task.header().id as usize & self.mask
    }

    /// Takes a completed task out of the list. Returns `None` if shutdown
    /// already took it.
    pub(crate) fn remove(&self, task: &Task<S>) -> Option<Task<S>> {
        self.shards[self.shard_of(task)].lock().take(task)
    }

    // ANCHOR: release_batch
    /// Takes completed tasks out of the list, at most [`RELEASE_BATCH`] at
    /// once, and drops each one's reference in `tasks` with the list's.
    /// Sorted by shard first, so that each shard's lock is taken once for
    /// all of its tasks: a worker that releases its completed tasks this
    /// way takes a lock, and pulls a shard's cache lines away from the
    /// threads that spawn, once per batch instead of once per task.
    pub(crate) fn release_batch(&self, tasks: &mut Vec<Task<S>>) {
        assert!(tasks.len() <= RELEASE_BATCH, "a release batch is too long");
        tasks.sort_unstable_by_key(|task| self.shard_of(task));
        let mut listed: [Option<Task<S>>; RELEASE_BATCH] = std::array::from_fn(|_| None);
        let mut next = 0;
        while next < tasks.len() {
            let index = self.shard_of(&tasks[next]);
            let mut shard = self.shards[index].lock();
            while next < tasks.len() && self.shard_of(&tasks[next]) == index {
                listed[next] = shard.take(&tasks[next]);
                next += 1;
            }
        }
        // Outside the locks: freeing a task drops what it still holds.
        for (task, listed) in tasks.drain(..).zip(listed) {
            task.release_with(listed);
        }
    }
    // ANCHOR_END: release_batch

    // ANCHOR: close
    /// Closes the list and shuts down every task in it: each future is
    /// dropped exactly once, by this call or by the worker polling it.
    pub(crate) fn close_and_shutdown_all(&self) {
        for shard in self.shards.iter() {
            // Take the tasks out under the lock, cancel them outside it:
            // dropping a future runs user code, which may spawn or wake.
            let tasks: Vec<Task<S>> = {
                let mut shard = shard.lock();
                shard.closed = true;
                shard.free.clear();
                shard.alive = 0;
                shard.slots.drain(..).flatten().collect()
            };
            for task in tasks {
                task.shutdown();
            }
        }
    }
    // ANCHOR_END: close

    /// Tasks spawned and not yet completed (each shard's count under its
    /// lock, one shard after another: a snapshot, not an atomic total).
    pub(crate) fn alive(&self) -> usize {
        self.shards.iter().map(|shard| shard.lock().alive).sum()
    }

    /// Tasks added to the list since it was created (a snapshot, as above).
    pub(crate) fn spawned(&self) -> u64 {
        self.shards.iter().map(|shard| shard.lock().spawned).sum()
    }

    /// Calls `f` with the id, spawn location and poll count of every live
    /// task (for `top`), one shard lock at a time.
    pub(crate) fn for_each(
        &self,
        mut f: impl FnMut(u64, &'static std::panic::Location<'static>, u64),
    ) {
        for shard in self.shards.iter() {
            let shard = shard.lock();
            for task in shard.slots.iter().flatten() {
                let header = task.header();
                f(
                    header.id,
                    header.location,
                    header.polls.load(Ordering::Relaxed),
                );
            }
        }
    }

    /// True if no task is in the list.
    #[cfg(test)]
    pub(crate) fn is_empty(&self) -> bool {
        self.shards
            .iter()
            .all(|shard| shard.lock().slots.iter().all(Option::is_none))
    }
}
