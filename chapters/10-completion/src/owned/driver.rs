//! The driver: one io_uring, and a table of the operations in flight.
//!
//! Every operation gets a slot in the table; the slot's index is the
//! `user_data` of its submission entry (SQE), and the kernel copies it into
//! the completion entry (CQE), so a completion finds its slot in one index.
//! A slot is in one of four states:
//!
//! * `Waiting`: submitted, no completion yet; holds the waker of the task
//!   that awaits it;
//! * `Completed`: the completion arrived; holds the result until the task
//!   polls again and takes it (which frees the slot);
//! * `Parked`: the future that owned the operation was dropped while the
//!   kernel still held its buffer. The slot now owns the buffer, and frees
//!   it only when the completion arrives: the kernel may write into it
//!   until then. If the driver cancels on drop (the default), it also
//!   submits an `IORING_OP_ASYNC_CANCEL` for the operation, so a read on a
//!   silent socket ends now instead of whenever a byte arrives;
//! * `Free`.
//!
//! Entries are queued in the submission ring as tasks poll, and reach the
//! kernel in one `io_uring_enter` per turn of the executor
//! (`Driver::turn`), which also waits for at least one completion when
//! no task is ready to run.
//!
//! Dropping the driver cancels whatever is still parked and waits (a
//! bounded time) for those completions before freeing the buffers; a
//! buffer whose completion never comes is leaked, never freed under the
//! kernel.
//!
//! Book: Chapter 10, "Owned buffers and cancellation".

use std::any::Any;
use std::io;
use std::task::Waker;
use std::time::{Duration, Instant};

use io_uring::{IoUring, opcode, squeue, types};

/// Marks the `user_data` of a cancel request, so its completion is not
/// taken for the completion of the operation it cancels (slot indexes are
/// far below this bit).
const CANCEL_BIT: u64 = 1 << 63;

/// How long dropping the driver waits for parked operations to end.
const DRAIN_LIMIT: Duration = Duration::from_secs(2);

/// Counters of what the driver did, for tests and the book.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Stats {
    /// `io_uring_enter` calls (each submits a batch and may wait).
    pub enters: u64,
    /// Operations submitted (cancel requests not counted).
    pub submitted: u64,
    /// Completions of operations (cancel requests not counted).
    pub completed: u64,
    /// Operations whose future was dropped in flight: their buffer parked.
    pub parked: u64,
    /// Parked buffers freed, each after its operation's completion.
    pub parked_freed: u64,
    /// Cancel requests submitted.
    pub cancels: u64,
    /// Completions of cancel requests.
    pub cancels_completed: u64,
    /// The most entries one `io_uring_enter` submitted.
    pub largest_batch: u64,
}

/// Disposes of the result of an operation whose future is gone.
pub(crate) type Orphan = fn(i32);

/// One operation's place in the table.
enum Slot {
    Free,
    Waiting(Option<Waker>),
    Completed(i32),
    /// The buffer, boxed so any buffer type fits (`None` for the naive
    /// drop), and what to do with the result nobody will read (an accept's
    /// new descriptor must be closed).
    Parked(Option<Box<dyn Any>>, Option<Orphan>),
}

/// The ring and its table of operations.
pub(crate) struct Driver {
    ring: IoUring,
    slots: Vec<Slot>,
    free: Vec<usize>,
    cancel_on_drop: bool,
    stats: Stats,
}

impl Driver {
    /// A ring of `entries` submission entries.
    pub(crate) fn new(entries: u32, cancel_on_drop: bool) -> io::Result<Driver> {
        Ok(Driver {
            ring: IoUring::new(entries)?,
            slots: Vec::new(),
            free: Vec::new(),
            cancel_on_drop,
            stats: Stats::default(),
        })
    }

    pub(crate) fn stats(&self) -> Stats {
        self.stats
    }

    /// Operations the kernel still holds (waiting or parked).
    pub(crate) fn in_flight(&self) -> usize {
        self.slots
            .iter()
            .filter(|slot| matches!(slot, Slot::Waiting(_) | Slot::Parked(..)))
            .count()
    }

    /// Queues `entry` for the next `io_uring_enter`; returns its slot.
    ///
    /// # Safety
    ///
    /// Every buffer `entry` points to must stay valid, and not move, until
    /// this slot's completion has been reaped: the caller keeps it until
    /// [`Driver::take_result`] returns `Some`, or hands it to
    /// [`Driver::park`].
    pub(crate) unsafe fn submit(&mut self, entry: squeue::Entry, waker: &Waker) -> usize {
        let id = self.free.pop().unwrap_or_else(|| {
            self.slots.push(Slot::Free);
            self.slots.len() - 1
        });
        self.slots[id] = Slot::Waiting(Some(waker.clone()));
        // SAFETY: the caller guarantees the entry's buffers outlive the
        // operation (see above).
        unsafe { self.push(&entry.user_data(id as u64)) };
        self.stats.submitted += 1;
        id
    }

    /// Pushes an entry, first flushing the queue to the kernel if it is
    /// full.
    ///
    /// # Safety
    ///
    /// As for [`Driver::submit`].
    unsafe fn push(&mut self, entry: &squeue::Entry) {
        loop {
            // SAFETY: passed on from our caller.
            if unsafe { self.ring.submission().push(entry) }.is_ok() {
                return;
            }
            // Full: hand the queued entries to the kernel to make room.
            self.stats.enters += 1;
            if let Err(err) = self.ring.submit() {
                assert!(
                    err.kind() == io::ErrorKind::Interrupted
                        || err.raw_os_error() == Some(libc::EBUSY),
                    "io_uring_enter failed: {err}"
                );
                self.reap();
            }
        }
    }

    /// The result of slot `id` if it has completed (freeing the slot);
    /// otherwise remembers `waker` and returns `None`.
    pub(crate) fn take_result(&mut self, id: usize, waker: &Waker) -> Option<i32> {
        match &mut self.slots[id] {
            Slot::Completed(result) => {
                let result = *result;
                self.release(id);
                Some(result)
            }
            Slot::Waiting(stored) => {
                if !stored.as_ref().is_some_and(|w| w.will_wake(waker)) {
                    *stored = Some(waker.clone());
                }
                None
            }
            Slot::Free | Slot::Parked(..) => unreachable!("slot {id} polled but not waiting"),
        }
    }

    // ANCHOR: park
    /// The future of slot `id` was dropped with the operation in flight:
    /// the driver keeps `buf` until the kernel says it is done with it.
    pub(crate) fn park(&mut self, id: usize, buf: Option<Box<dyn Any>>, orphan: Option<Orphan>) {
        match self.slots[id] {
            // The completion is already here: nothing will write any more.
            Slot::Completed(result) => {
                self.release(id);
                orphan.inspect(|dispose| dispose(result));
            }
            Slot::Waiting(_) => {
                self.slots[id] = Slot::Parked(buf, orphan);
                self.stats.parked += 1;
                if self.cancel_on_drop {
                    self.cancel(id);
                }
            }
            Slot::Free | Slot::Parked(..) => unreachable!("slot {id} dropped twice"),
        }
    }
    // ANCHOR_END: park

    /// Asks the kernel to cancel slot `id`'s operation. Both the cancel
    /// request and the operation complete; only the operation's completion
    /// frees the slot.
    fn cancel(&mut self, id: usize) {
        let entry = opcode::AsyncCancel::new(id as u64)
            .build()
            .user_data(CANCEL_BIT | id as u64);
        // SAFETY: a cancel request points to no buffer.
        unsafe { self.push(&entry) };
        self.stats.cancels += 1;
    }

    /// One `io_uring_enter`: submits every queued entry and, if `wait`,
    /// sleeps until at least one completion is ready; then reaps them all.
    pub(crate) fn turn(&mut self, wait: bool) -> io::Result<()> {
        let result = if wait {
            self.ring.submit_and_wait(1)
        } else {
            self.ring.submit()
        };
        self.stats.enters += 1;
        match result {
            Ok(submitted) => {
                self.stats.largest_batch = self.stats.largest_batch.max(submitted as u64);
            }
            // A signal, or completions waiting to be reaped: reap and go on.
            Err(err)
                if err.kind() == io::ErrorKind::Interrupted
                    || err.raw_os_error() == Some(libc::EBUSY) => {}
            Err(err) => return Err(err),
        }
        self.reap();
        Ok(())
    }

    // ANCHOR: reap
    /// Takes every completion off the ring and routes it by `user_data`.
    fn reap(&mut self) {
        let mut wakers = Vec::new();
        let completions: Vec<(u64, i32)> = self
            .ring
            .completion()
            .map(|cqe| (cqe.user_data(), cqe.result()))
            .collect();
        for (user_data, result) in completions {
            if user_data & CANCEL_BIT != 0 {
                self.stats.cancels_completed += 1;
                continue;
            }
            self.stats.completed += 1;
            let id = user_data as usize;
            match std::mem::replace(&mut self.slots[id], Slot::Completed(result)) {
                Slot::Waiting(waker) => wakers.extend(waker),
                // The kernel is done with the buffer: now it may go.
                Slot::Parked(buf, orphan) => {
                    self.release(id);
                    self.stats.parked_freed += 1;
                    orphan.inspect(|dispose| dispose(result));
                    drop(buf);
                }
                Slot::Free | Slot::Completed(_) => unreachable!("stray completion {id}"),
            }
        }
        for waker in wakers {
            waker.wake();
        }
    }
    // ANCHOR_END: reap

    fn release(&mut self, id: usize) {
        self.slots[id] = Slot::Free;
        self.free.push(id);
    }
}

impl Drop for Driver {
    fn drop(&mut self) {
        // Only parked operations can remain: a waiting one belongs to a
        // future, and every future holds the driver alive.
        let parked: Vec<usize> = (0..self.slots.len())
            .filter(|&id| matches!(self.slots[id], Slot::Parked(..)))
            .collect();
        for &id in &parked {
            if !self.cancel_on_drop {
                self.cancel(id);
            }
        }
        let deadline = Instant::now() + DRAIN_LIMIT;
        while self.in_flight() > 0 && Instant::now() < deadline {
            let timeout = types::Timespec::new().nsec(50_000_000);
            let args = types::SubmitArgs::new().timespec(&timeout);
            self.stats.enters += 1;
            // A timeout (ETIME) or a signal only means: look again.
            let _ = self.ring.submitter().submit_with_args(1, &args);
            self.reap();
        }
        // Whatever the kernel never finished with is leaked, not freed.
        for slot in &mut self.slots {
            if let Slot::Parked(buf, _) = slot {
                std::mem::forget(buf.take());
            }
        }
    }
}
