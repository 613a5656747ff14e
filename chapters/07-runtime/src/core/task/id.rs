//! [`Id`]: a task's process-wide number, and which task is running now.
//!
//! Every task gets the next number of one counter for the whole process
//! when it is spawned ([`next`]), whichever runtime it is spawned on, as in
//! Tokio: an id "uniquely identifies a task relative to all other currently
//! running tasks", so the ids of two runtimes' tasks can key one map. While
//! a task's future is being polled, its id is published in a thread-local,
//! so that code deep inside the future can ask [`id`] or [`try_id`] which
//! task it runs in (to label a log line, say), as Tokio's `task::id()`
//! allows.
//!
//! Book: Chapter 7, "A task is one allocation and one word".

use crate::scheduler::CachePadded;
use std::cell::Cell;
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};

/// A task's id: unique among the tasks alive in the process, on every
/// runtime.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Id(pub(crate) u64);

/// The next task id (never 0, which [`try_id`] reads as "no task").
///
/// One counter for the whole process would be one atomic read-modify-write
/// per spawn, on a line every spawning thread writes. Each thread instead
/// takes a block of [`ID_BLOCK`] numbers from the counter at once and hands
/// them out one by one: ids stay unique in the process and increase on each
/// thread, but two threads' ids interleave in blocks. The counter sits on a
/// cache line of its own. It is `std`'s atomic even under loom: a static
/// needs a `const` constructor, and ids take no part in the orderings loom
/// checks.
pub(crate) fn next() -> u64 {
    static NEXT: CachePadded<AtomicU64> = CachePadded(AtomicU64::new(1));
    BLOCK
        .try_with(|block| {
            let (next, end) = block.get();
            if next < end {
                block.set((next + 1, end));
                return next;
            }
            let start = NEXT.fetch_add(ID_BLOCK, Ordering::Relaxed);
            block.set((start + 1, start + ID_BLOCK));
            start
        })
        // A spawn from a thread-local's destructor, after this one is gone.
        .unwrap_or_else(|_| NEXT.fetch_add(1, Ordering::Relaxed))
}

/// How many ids a thread takes from the process-wide counter at a time.
const ID_BLOCK: u64 = 256;

thread_local! {
    /// The next id this thread hands out, and the end of its block.
    static BLOCK: Cell<(u64, u64)> = const { Cell::new((0, 0)) };
}

// ANCHOR: spawned_here
/// Whether `id` was handed out by this thread from the block it is handing
/// out now: the task was spawned on this thread, at most [`ID_BLOCK`]
/// spawns ago. False negatives only (an older task, a task spawned before
/// the block changed); never true for another thread's task, since blocks
/// never overlap.
pub(crate) fn spawned_here_lately(id: u64) -> bool {
    BLOCK
        .try_with(|block| {
            let (next, end) = block.get();
            id < next && id >= end.saturating_sub(ID_BLOCK)
        })
        .unwrap_or(false)
}
// ANCHOR_END: spawned_here

impl Id {
    /// The number behind the id (not part of Tokio's API: for our metrics
    /// and the book's examples).
    pub fn as_u64(self) -> u64 {
        self.0
    }
}

impl fmt::Display for Id {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl fmt::Debug for Id {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Id({})", self.0)
    }
}

// ANCHOR: current
thread_local! {
    /// The task being polled on this thread (0: none; ids start at 1).
    static CURRENT: Cell<u64> = const { Cell::new(0) };
}

/// Publishes `id` as the running task until the guard drops.
pub(crate) fn enter(id: u64) -> Guard {
    Guard(CURRENT.with(|current| current.replace(id)))
}

/// Restores the task that was running before (a nested `block_on`).
pub(crate) struct Guard(u64);

impl Drop for Guard {
    fn drop(&mut self) {
        CURRENT.with(|current| current.set(self.0));
    }
}
// ANCHOR_END: current

/// The id of the task this is called from.
///
/// # Panics
///
/// If called outside a task (in `block_on`'s own future, say), with
/// Tokio's words: "Can't get a task id when not inside a task".
#[track_caller]
pub fn id() -> Id {
    match try_id() {
        Some(id) => id,
        // Tokio's words first (a program's tests may match them).
        None => panic!(
            "Can't get a task id when not inside a task: rt::task::id() was called outside a \
             task (block_on's own future is not a task); task::try_id() returns None there"
        ),
    }
}

/// The id of the task this is called from, if any.
pub fn try_id() -> Option<Id> {
    let id = CURRENT.with(Cell::get);
    (id != 0).then_some(Id(id))
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn an_id_is_spawned_here_lately_only_on_its_thread_and_within_its_block() {
        let first = next();
        assert!(spawned_here_lately(first), "the id just handed out");
        let other = std::thread::spawn(next).join().unwrap();
        assert!(!spawned_here_lately(other), "another thread's id");
        assert!(!spawned_here_lately(first + 1), "an id not handed out yet");
        // The block held `first` and at most ID_BLOCK - 1 more: this many
        // spawns take the thread to a new block.
        let mut last = first;
        for _ in 0..ID_BLOCK {
            last = next();
        }
        assert!(spawned_here_lately(last));
        assert!(!spawned_here_lately(first), "an id from an older block");
    }
}
