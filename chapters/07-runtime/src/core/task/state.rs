//! The task's state word: one `AtomicUsize` that every thread touching a task
//! agrees on.
//!
//! A task is touched from many places at once: a worker polls it, another
//! worker's I/O wakes it, its `JoinHandle` waits for it on a third thread, the
//! runtime shuts it down. Instead of a lock, all of them change one word with
//! atomic read-modify-writes; its low six bits say where the task is in its
//! life and its remaining bits count the references to its allocation:
//!
//! ```text
//!  63 ........................... 6   5    4     3     2    1    0
//! +--------------------------------+----+-----+-----+----+----+----+
//! |         reference count        | CA | JW  | JI  | NO | CO | RU |
//! +--------------------------------+----+-----+-----+----+----+----+
//!   RU RUNNING        a worker is polling the future (it owns the stage)
//!   CO COMPLETE       the future is gone; the output (or error) is stored
//!   NO NOTIFIED       the task has been woken and is, or will be, in a queue
//!   JI JOIN_INTEREST  a JoinHandle exists and may read the output
//!   JW JOIN_WAKER     the JoinHandle's waker is stored and belongs to the runtime
//!   CA CANCELLED      abort() or shutdown asked for the future to be dropped
//! ```
//!
//! Each transition below that must decide is one compare-and-swap loop that
//! reads the snapshot, decides, and publishes the next snapshot (completion
//! is one `fetch_xor`, a reference one `fetch_add` or `fetch_sub`); the
//! returned action
//! tells the caller what it now owns (the right to poll, to submit the task
//! to a queue, to free the memory). The rules they enforce:
//!
//! * only the thread that set RUNNING touches the future;
//! * a task is in at most one run queue: waking a task that is already
//!   NOTIFIED does nothing, and waking a RUNNING task only sets NOTIFIED (the
//!   worker requeues it when the poll returns);
//! * the thread that drops the last reference frees the allocation.
//!
//! Book: Chapter 7, "A task is one allocation and one word".

use crate::loom::{AtomicUsize, Ordering};
use std::fmt;

// ANCHOR: bits
/// A worker is polling the future.
const RUNNING: usize = 1 << 0;
/// The future has finished (or was cancelled) and its output is stored.
const COMPLETE: usize = 1 << 1;
/// The task has been woken; a `Notified` for it exists or is about to.
const NOTIFIED: usize = 1 << 2;
/// A `JoinHandle` still exists.
const JOIN_INTEREST: usize = 1 << 3;
/// The join waker is stored, and the runtime (not the handle) may read it.
const JOIN_WAKER: usize = 1 << 4;
/// `abort()` or shutdown asked for the future to be dropped.
const CANCELLED: usize = 1 << 5;

/// The reference count starts at bit 6.
const REF_SHIFT: usize = 6;
/// One reference.
const REF_ONE: usize = 1 << REF_SHIFT;

/// A new task has three references (the runtime's list of owned tasks, the
/// `Notified` that will be pushed to a run queue, and the `JoinHandle`), is
/// notified (it must be polled once), and has a `JoinHandle`.
const INITIAL: usize = (3 * REF_ONE) | NOTIFIED | JOIN_INTEREST;
// ANCHOR_END: bits

/// The atomic state word of one task.
pub(crate) struct State {
    value: AtomicUsize,
}

/// A copy of the state word at one instant.
#[derive(Copy, Clone, PartialEq, Eq)]
pub(crate) struct Snapshot(usize);

/// What a worker may do with a task it popped from a queue.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum TransitionToRunning {
    /// Poll it.
    Success,
    /// It was cancelled while queued: drop the future instead of polling it.
    Cancelled,
    /// Someone else runs or ran it (shutdown did); the queue's reference was dropped.
    Failed,
    /// As `Failed`, and that was the last reference: free the task.
    Dealloc,
}

/// What a worker does after a poll returned `Pending`.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum TransitionToIdle {
    /// Nothing: the task waits for a wake-up; the worker's reference was dropped.
    Ok,
    /// The task was woken during the poll: requeue it, handing over the
    /// worker's reference to the new `Notified`.
    OkNotified,
    /// As `Ok`, and that was the last reference: free the task.
    OkDealloc,
    /// The task was cancelled during the poll: drop the future now.
    Cancelled,
}

/// What a waker does.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum TransitionToNotified {
    /// The task is running, queued or complete: nothing to submit.
    DoNothing,
    /// Submit the task to its scheduler (a reference was made for it).
    Submit,
    /// The waker held the last reference: free the task.
    Dealloc,
}

/// What the JoinHandle's drop must clean up.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct TransitionToJoinHandleDropped {
    /// The task completed and nobody else will drop the output.
    pub(crate) drop_output: bool,
    /// The join waker is ours again and must be dropped.
    pub(crate) drop_waker: bool,
}

impl State {
    /// The state of a task just spawned.
    pub(crate) fn new() -> State {
        State {
            value: AtomicUsize::new(INITIAL),
        }
    }

    /// Reads the current state.
    pub(crate) fn load(&self) -> Snapshot {
        Snapshot(self.value.load(Ordering::Acquire))
    }

    /// The compare-and-swap loop every transition is written with: `decide`
    /// looks at a snapshot and returns the caller's action and the snapshot to
    /// publish (`None` publishes nothing).
    fn transition<T>(&self, mut decide: impl FnMut(Snapshot) -> (T, Option<Snapshot>)) -> T {
        let mut current = self.load();
        loop {
            let (action, next) = decide(current);
            let Some(next) = next else {
                return action;
            };
            match self.value.compare_exchange_weak(
                current.0,
                next.0,
                Ordering::AcqRel,
                Ordering::Acquire,
            ) {
                Ok(_) => return action,
                Err(actual) => current = Snapshot(actual),
            }
        }
    }

    /// A worker popped the task's `Notified` and wants to poll it.
    ///
    /// The queue's reference becomes the worker's reference for the poll.
    pub(crate) fn transition_to_running(&self) -> TransitionToRunning {
        self.transition(|mut s| {
            if s.is_running() || s.is_complete() {
                // Shutdown took the task while it sat in a queue: this
                // Notified is stale. Drop its reference.
                s.ref_dec();
                let action = if s.ref_count() == 0 {
                    TransitionToRunning::Dealloc
                } else {
                    TransitionToRunning::Failed
                };
                return (action, Some(s));
            }
            s.0 |= RUNNING;
            s.0 &= !NOTIFIED;
            let action = if s.is_cancelled() {
                TransitionToRunning::Cancelled
            } else {
                TransitionToRunning::Success
            };
            (action, Some(s))
        })
    }

    // ANCHOR: to_idle
    /// The poll returned `Pending`.
    pub(crate) fn transition_to_idle(&self) -> TransitionToIdle {
        self.transition(|mut s| {
            debug_assert!(s.is_running());
            if s.is_cancelled() {
                // Keep RUNNING: the worker still owns the future and drops it.
                return (TransitionToIdle::Cancelled, None);
            }
            s.0 &= !RUNNING;
            let action = if s.is_notified() {
                // Woken while running: the worker's reference moves to the
                // Notified it will push, so the count does not change.
                TransitionToIdle::OkNotified
            } else {
                s.ref_dec();
                if s.ref_count() == 0 {
                    TransitionToIdle::OkDealloc
                } else {
                    TransitionToIdle::Ok
                }
            };
            (action, Some(s))
        })
    }
    // ANCHOR_END: to_idle

    /// The future finished (or was dropped): flip RUNNING off and COMPLETE on
    /// in one step, and return the new state so the caller sees whether a
    /// JoinHandle and its waker were there at that instant.
    pub(crate) fn transition_to_complete(&self) -> Snapshot {
        let previous = Snapshot(self.value.fetch_xor(RUNNING | COMPLETE, Ordering::AcqRel));
        debug_assert!(previous.is_running() && !previous.is_complete());
        Snapshot(previous.0 ^ (RUNNING | COMPLETE))
    }

    /// Drops `count` references at once after completion; returns true when
    /// they were the last ones and the caller must free the task.
    pub(crate) fn transition_to_terminal(&self, count: usize) -> bool {
        let previous = Snapshot(self.value.fetch_sub(count * REF_ONE, Ordering::AcqRel));
        debug_assert!(previous.ref_count() >= count, "reference count underflow");
        previous.ref_count() == count
    }

    // ANCHOR: notified_by_val
    /// `Waker::wake`: the waker's own reference is consumed.
    pub(crate) fn transition_to_notified_by_val(&self) -> TransitionToNotified {
        self.transition(|mut s| {
            if s.is_running() {
                // The worker requeues the task after the poll; the worker's
                // own reference keeps the task alive, so ours can go.
                s.0 |= NOTIFIED;
                s.ref_dec();
                debug_assert!(s.ref_count() > 0);
                (TransitionToNotified::DoNothing, Some(s))
            } else if s.is_complete() || s.is_notified() {
                s.ref_dec();
                let action = if s.ref_count() == 0 {
                    TransitionToNotified::Dealloc
                } else {
                    TransitionToNotified::DoNothing
                };
                (action, Some(s))
            } else {
                // Idle: our reference becomes the Notified's.
                s.0 |= NOTIFIED;
                (TransitionToNotified::Submit, Some(s))
            }
        })
    }
    // ANCHOR_END: notified_by_val

    /// `Waker::wake_by_ref`: the waker keeps its reference, so submitting
    /// the task needs a new one.
    pub(crate) fn transition_to_notified_by_ref(&self) -> TransitionToNotified {
        self.transition(|mut s| {
            if s.is_complete() || s.is_notified() {
                (TransitionToNotified::DoNothing, None)
            } else if s.is_running() {
                s.0 |= NOTIFIED;
                (TransitionToNotified::DoNothing, Some(s))
            } else {
                s.0 |= NOTIFIED;
                s.ref_inc_in_snapshot();
                (TransitionToNotified::Submit, Some(s))
            }
        })
    }

    // ANCHOR: notified_and_cancel
    /// `JoinHandle::abort`: mark the task cancelled; returns true when the
    /// caller must submit it (with the new reference made for it) so that a
    /// worker drops the future.
    pub(crate) fn transition_to_notified_and_cancel(&self) -> bool {
        self.transition(|mut s| {
            if s.is_cancelled() || s.is_complete() {
                (false, None)
            } else if s.is_running() {
                // The worker sees CANCELLED when the poll returns.
                s.0 |= NOTIFIED | CANCELLED;
                (false, Some(s))
            } else if s.is_notified() {
                // Already queued: the worker sees CANCELLED when it pops it.
                s.0 |= CANCELLED;
                (false, Some(s))
            } else {
                s.0 |= NOTIFIED | CANCELLED;
                s.ref_inc_in_snapshot();
                (true, Some(s))
            }
        })
    }
    // ANCHOR_END: notified_and_cancel

    /// Runtime shutdown: mark the task cancelled, and take the right to drop
    /// the future if nobody is polling it. Returns true when the caller now
    /// owns the future (it set RUNNING).
    pub(crate) fn transition_to_shutdown(&self) -> bool {
        self.transition(|mut s| {
            let idle = !s.is_running() && !s.is_complete();
            if idle {
                s.0 |= RUNNING;
            }
            s.0 |= CANCELLED;
            (idle, Some(s))
        })
    }

    /// The JoinHandle's drop when nothing happened yet: the task was spawned
    /// and not yet polled. One CAS instead of the slow path.
    pub(crate) fn drop_join_handle_fast(&self) -> bool {
        self.value
            .compare_exchange(
                INITIAL,
                (INITIAL - REF_ONE) & !JOIN_INTEREST,
                Ordering::Release,
                Ordering::Relaxed,
            )
            .is_ok()
    }

    /// The JoinHandle is dropped: give up interest in the output. If the task
    /// has not completed, also take back the join waker (the runtime must not
    /// use it any more).
    pub(crate) fn transition_to_join_handle_dropped(&self) -> TransitionToJoinHandleDropped {
        self.transition(|s| {
            debug_assert!(s.is_join_interested());
            let mut next = s;
            next.0 &= !JOIN_INTEREST;
            if !s.is_complete() {
                next.0 &= !JOIN_WAKER;
            }
            let action = TransitionToJoinHandleDropped {
                // Complete while we were interested: the completer left the
                // output for us.
                drop_output: s.is_complete(),
                // With JOIN_WAKER clear the waker slot is ours.
                drop_waker: !next.is_join_waker_set(),
            };
            (action, Some(next))
        })
    }

    /// The JoinHandle stored its waker; hand the slot to the runtime. Fails
    /// (returning the snapshot) if the task completed meanwhile.
    pub(crate) fn set_join_waker(&self) -> Result<Snapshot, Snapshot> {
        self.transition(|mut s| {
            debug_assert!(s.is_join_interested() && !s.is_join_waker_set());
            if s.is_complete() {
                return (Err(s), None);
            }
            s.0 |= JOIN_WAKER;
            (Ok(s), Some(s))
        })
    }

    /// The JoinHandle wants to replace its waker: take the slot back. Fails if
    /// the task completed (the runtime may be reading the waker).
    pub(crate) fn unset_join_waker(&self) -> Result<Snapshot, Snapshot> {
        self.transition(|mut s| {
            debug_assert!(s.is_join_interested() && s.is_join_waker_set());
            if s.is_complete() {
                return (Err(s), None);
            }
            s.0 &= !JOIN_WAKER;
            (Ok(s), Some(s))
        })
    }

    /// After waking the JoinHandle the completer gives the waker slot back;
    /// returns the state before, so the completer knows whether the handle
    /// was dropped meanwhile (then the waker is the completer's to drop).
    pub(crate) fn unset_join_waker_after_complete(&self) -> Snapshot {
        let previous = Snapshot(self.value.fetch_and(!JOIN_WAKER, Ordering::AcqRel));
        debug_assert!(previous.is_complete() && previous.is_join_waker_set());
        previous
    }

    /// Adds a reference (a cloned waker).
    pub(crate) fn ref_inc(&self) {
        // Relaxed is enough: the caller already holds a reference, so the
        // task cannot be freed under us, and nothing is published here.
        let previous = self.value.fetch_add(REF_ONE, Ordering::Relaxed);
        // A reference count this large means leaked wakers; continuing would
        // wrap the count and free a live task.
        if previous > isize::MAX as usize {
            std::process::abort();
        }
    }

    /// Drops a reference; returns true when it was the last one.
    pub(crate) fn ref_dec(&self) -> bool {
        let previous = Snapshot(self.value.fetch_sub(REF_ONE, Ordering::AcqRel));
        debug_assert!(previous.ref_count() >= 1, "reference count underflow");
        previous.ref_count() == 1
    }
}

/// A snapshot's flag tests: for each `name: FLAG`, `name(self)` is true
/// when the flag is set.
macro_rules! flag_tests {
    ($($name:ident: $flag:ident;)*) => {$(
        pub(crate) fn $name(self) -> bool {
            self.0 & $flag != 0
        }
    )*};
}

impl Snapshot {
    flag_tests! {
        is_running: RUNNING;
        is_complete: COMPLETE;
        is_notified: NOTIFIED;
        is_join_interested: JOIN_INTEREST;
        is_join_waker_set: JOIN_WAKER;
        is_cancelled: CANCELLED;
    }

    pub(crate) fn ref_count(self) -> usize {
        self.0 >> REF_SHIFT
    }

    fn ref_inc_in_snapshot(&mut self) {
        assert!(
            self.0 <= isize::MAX as usize,
            "task reference count overflow"
        );
        self.0 += REF_ONE;
    }

    fn ref_dec(&mut self) {
        debug_assert!(self.ref_count() > 0);
        self.0 -= REF_ONE;
    }
}

impl fmt::Debug for Snapshot {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Snapshot")
            .field("running", &self.is_running())
            .field("complete", &self.is_complete())
            .field("notified", &self.is_notified())
            .field("join_interest", &self.is_join_interested())
            .field("join_waker", &self.is_join_waker_set())
            .field("cancelled", &self.is_cancelled())
            .field("refs", &self.ref_count())
            .finish()
    }
}

impl fmt::Debug for State {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.load().fmt(f)
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn a_new_task_is_notified_joinable_and_has_three_references() {
        let s = State::new().load();
        assert!(s.is_notified() && s.is_join_interested());
        assert!(!s.is_running() && !s.is_complete() && !s.is_cancelled());
        assert_eq!(s.ref_count(), 3);
    }

    #[test]
    fn wake_while_running_sets_notified_and_requeues_after_the_poll() {
        let state = State::new();
        assert_eq!(state.transition_to_running(), TransitionToRunning::Success);
        // A waker made during the poll: 3 refs + 1.
        state.ref_inc();
        assert_eq!(
            state.transition_to_notified_by_val(),
            TransitionToNotified::DoNothing
        );
        assert!(state.load().is_notified());
        assert_eq!(state.transition_to_idle(), TransitionToIdle::OkNotified);
        let s = state.load();
        assert!(!s.is_running() && s.is_notified());
        // The worker's reference moved to the new Notified.
        assert_eq!(s.ref_count(), 3);
    }

    #[test]
    fn waking_a_queued_task_twice_submits_it_once() {
        let state = State::new();
        assert_eq!(state.transition_to_running(), TransitionToRunning::Success);
        assert_eq!(state.transition_to_idle(), TransitionToIdle::Ok);
        assert_eq!(
            state.transition_to_notified_by_ref(),
            TransitionToNotified::Submit
        );
        assert_eq!(
            state.transition_to_notified_by_ref(),
            TransitionToNotified::DoNothing
        );
        assert_eq!(state.load().ref_count(), 3);
    }

    #[test]
    fn abort_of_an_idle_task_submits_it_cancelled() {
        let state = State::new();
        assert_eq!(state.transition_to_running(), TransitionToRunning::Success);
        assert_eq!(state.transition_to_idle(), TransitionToIdle::Ok);
        assert!(state.transition_to_notified_and_cancel());
        assert!(
            !state.transition_to_notified_and_cancel(),
            "second abort is a no-op"
        );
        assert_eq!(
            state.transition_to_running(),
            TransitionToRunning::Cancelled
        );
    }

    #[test]
    fn shutdown_of_a_queued_task_makes_its_notified_stale() {
        let state = State::new();
        assert!(state.transition_to_shutdown());
        // The Notified is popped later: it must not poll.
        assert_eq!(state.transition_to_running(), TransitionToRunning::Failed);
        assert_eq!(state.load().ref_count(), 2);
    }

    #[test]
    fn join_handle_fast_drop_only_from_the_initial_state() {
        let state = State::new();
        assert!(state.drop_join_handle_fast());
        let s = state.load();
        assert!(!s.is_join_interested());
        assert_eq!(s.ref_count(), 2);
        assert!(!state.drop_join_handle_fast());
    }

    #[test]
    fn join_waker_cannot_be_set_after_completion() {
        let state = State::new();
        assert_eq!(state.transition_to_running(), TransitionToRunning::Success);
        let done = state.transition_to_complete();
        assert!(done.is_complete() && !done.is_running());
        assert!(state.set_join_waker().is_err());
    }
}
