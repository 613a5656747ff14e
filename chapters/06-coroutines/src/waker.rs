//! Wakers, by hand and with `std::task::Wake`.
//!
//! A future that cannot finish yet returns `Poll::Pending`, but only after
//! it has arranged to be polled again: it keeps a clone of the `Waker` from
//! its `Context` and calls `wake` when what it waits for has happened. What
//! `wake` does is the executor's business; ours puts the task's id back on
//! the run queue and, if the executor is asleep on another thread's behalf,
//! wakes it.
//!
//! A `Waker` is a type-erased handle: a data pointer and a table of four
//! functions (clone, wake, wake by reference, drop), the `RawWakerVTable`.
//! [`raw_waker`] writes that table out by hand for a [`WakeHandle`] kept in
//! an `Arc`: the data pointer is the `Arc`'s raw pointer, clone increments
//! the strong count, drop decrements it, wake consumes one reference. Every
//! function must keep the count exact, or the handle leaks or is freed while
//! a waker still points at it. [`arc_waker`] builds the same waker from
//! `std::task::Wake`, which writes exactly this vtable for us. The tests run
//! under Miri, which catches a count that is off by one in either direction.
//!
//! Book: Chapter 6, "Wakers by hand".

#[cfg(loom)]
use loom::sync::atomic::AtomicBool;
use std::sync::Arc;
#[cfg(not(loom))]
use std::sync::atomic::AtomicBool;
use std::sync::atomic::{AtomicU64, Ordering};
use std::task::{RawWaker, RawWakerVTable, Wake, Waker};

/// What a wake-up does: the executor implements it.
pub trait Schedule: Send + Sync + 'static {
    /// Puts task `id` back on the run queue (and wakes the executor if it
    /// sleeps).
    fn schedule(&self, id: usize);
}

/// The data behind one task's wakers: which task, and where to schedule it.
pub struct WakeHandle {
    id: usize,
    /// Set by the first wake, cleared by the executor just before it polls
    /// the task: any number of wakes in between schedule it once.
    scheduled: AtomicBool,
    /// Wakes received, for the tests and the book.
    wakes: AtomicU64,
    scheduler: Arc<dyn Schedule>,
}

impl std::fmt::Debug for WakeHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WakeHandle")
            .field("id", &self.id)
            .field("scheduled", &self.scheduled.load(Ordering::Relaxed))
            .finish()
    }
}

impl WakeHandle {
    /// A handle for task `id`, not yet scheduled.
    pub fn new(id: usize, scheduler: Arc<dyn Schedule>) -> Arc<WakeHandle> {
        Arc::new(WakeHandle {
            id,
            scheduled: AtomicBool::new(false),
            wakes: AtomicU64::new(0),
            scheduler,
        })
    }

    /// The task's id.
    pub fn id(&self) -> usize {
        self.id
    }

    /// Schedules the task unless it already is.
    pub fn wake_task(&self) {
        self.wakes.fetch_add(1, Ordering::Relaxed);
        if !self.scheduled.swap(true, Ordering::AcqRel) {
            self.scheduler.schedule(self.id);
        }
    }

    /// Called by the executor right before polling: a wake from now on
    /// schedules the task again.
    ///
    /// A read-modify-write, not a plain store: the poll that follows reads
    /// what the waker wrote before it woke us. With a `Release` store, the
    /// processor may let those reads run before the store is visible (store
    /// buffering): the waker's swap still sees "scheduled" and does nothing,
    /// while the poll sees stale state and returns `Pending`. Nobody polls
    /// the task again. The swap orders the two: either our swap comes first
    /// in the flag's history (and the waker's swap sees `false` and
    /// schedules), or the waker's does (and our `Acquire` half makes its
    /// writes visible to the poll). The loom model `loom_clear_then_poll`
    /// checks both cases.
    // ANCHOR: clear_scheduled
    pub fn clear_scheduled(&self) {
        self.scheduled.swap(false, Ordering::AcqRel);
    }
    // ANCHOR_END: clear_scheduled

    /// Marks the task scheduled without queueing it (a new task is queued
    /// by `spawn` itself).
    pub fn mark_scheduled(&self) {
        self.scheduled.store(true, Ordering::Release);
    }

    /// How many times it was woken.
    pub fn wakes(&self) -> u64 {
        self.wakes.load(Ordering::Relaxed)
    }
}

// ANCHOR: vtable
/// The four functions behind every waker made by [`raw_waker`]. `data` is
/// always a pointer obtained from `Arc::<WakeHandle>::into_raw`, and each
/// waker owns exactly one strong reference.
static VTABLE: RawWakerVTable = RawWakerVTable::new(clone, wake, wake_by_ref, drop_waker);

/// A new waker sharing the handle: one more reference.
unsafe fn clone(data: *const ()) -> RawWaker {
    // SAFETY: `data` came from `Arc::into_raw` and the waker being cloned
    // still owns a reference, so the allocation is alive.
    unsafe { Arc::increment_strong_count(data.cast::<WakeHandle>()) };
    RawWaker::new(data, &VTABLE)
}

/// Wakes, consuming the waker: its reference is released.
unsafe fn wake(data: *const ()) {
    // SAFETY: the waker owned one reference; from_raw takes it back and
    // drops it at the end of this function.
    let handle = unsafe { Arc::from_raw(data.cast::<WakeHandle>()) };
    handle.wake_task();
}

/// Wakes, keeping the waker: no reference changes hands.
unsafe fn wake_by_ref(data: *const ()) {
    // SAFETY: the waker still owns its reference, so the handle is alive
    // for the duration of this borrow.
    let handle = unsafe { &*data.cast::<WakeHandle>() };
    handle.wake_task();
}

/// Drops the waker: its reference is released.
unsafe fn drop_waker(data: *const ()) {
    // SAFETY: the waker owned one reference; this releases it.
    unsafe { Arc::decrement_strong_count(data.cast::<WakeHandle>()) };
}

/// A waker for `handle`, with the vtable written by hand.
pub fn raw_waker(handle: Arc<WakeHandle>) -> Waker {
    let data = Arc::into_raw(handle).cast::<()>();
    // SAFETY: the vtable's functions uphold the RawWaker contract for this
    // data pointer: each waker owns one strong reference, which clone adds,
    // and wake and drop release; the handle is Send + Sync.
    unsafe { Waker::from_raw(RawWaker::new(data, &VTABLE)) }
}
// ANCHOR_END: vtable

// ANCHOR: wake_trait
/// The same waker through `std::task::Wake`: the standard library writes
/// the vtable above for any `Arc<impl Wake>`.
impl Wake for WakeHandle {
    fn wake(self: Arc<Self>) {
        self.wake_task();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.wake_task();
    }
}

/// A waker for `handle`, through `Wake`.
pub fn arc_waker(handle: Arc<WakeHandle>) -> Waker {
    Waker::from(handle)
}
// ANCHOR_END: wake_trait

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    /// Records what was scheduled.
    #[derive(Default)]
    struct Recorder(Mutex<Vec<usize>>);

    impl Schedule for Recorder {
        fn schedule(&self, id: usize) {
            self.0.lock().unwrap().push(id);
        }
    }

    fn handle(recorder: &Arc<Recorder>) -> Arc<WakeHandle> {
        WakeHandle::new(7, Arc::clone(recorder) as Arc<dyn Schedule>)
    }

    /// Every way to make, copy, use and drop a waker keeps the count exact.
    fn exercise(make: fn(Arc<WakeHandle>) -> Waker) {
        let recorder = Arc::new(Recorder::default());
        let handle = handle(&recorder);
        let waker = make(Arc::clone(&handle));
        assert_eq!(Arc::strong_count(&handle), 2);
        let clones: Vec<Waker> = (0..5).map(|_| waker.clone()).collect();
        assert_eq!(Arc::strong_count(&handle), 7);
        waker.wake_by_ref();
        assert_eq!(Arc::strong_count(&handle), 7);
        drop(clones);
        assert_eq!(Arc::strong_count(&handle), 2);
        waker.wake(); // consumes its reference
        assert_eq!(Arc::strong_count(&handle), 1);
        // Two wakes, one schedule: the task was not polled in between.
        assert_eq!(*recorder.0.lock().unwrap(), [7]);
        assert_eq!(handle.wakes(), 2);
        handle.clear_scheduled();
        make(Arc::clone(&handle)).wake();
        assert_eq!(*recorder.0.lock().unwrap(), [7, 7]);
        assert_eq!(Arc::strong_count(&handle), 1);
    }

    #[test]
    fn the_hand_written_vtable_counts_references_exactly() {
        exercise(raw_waker);
    }

    #[test]
    fn the_wake_trait_does_the_same() {
        exercise(arc_waker);
    }

    #[test]
    fn wakers_cross_threads() {
        let recorder = Arc::new(Recorder::default());
        let handle = handle(&recorder);
        let waker = raw_waker(Arc::clone(&handle));
        let threads: Vec<_> = (0..4)
            .map(|_| {
                let waker = waker.clone();
                std::thread::spawn(move || waker.wake())
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        assert_eq!(recorder.0.lock().unwrap().len(), 1);
        assert_eq!(handle.wakes(), 4);
        drop(waker);
        assert_eq!(Arc::strong_count(&handle), 1);
    }

    #[test]
    fn will_wake_sees_the_same_handle() {
        let recorder = Arc::new(Recorder::default());
        let a = raw_waker(handle(&recorder));
        let b = a.clone();
        assert!(a.will_wake(&b));
        let c = raw_waker(handle(&recorder));
        assert!(!a.will_wake(&c));
    }
}

#[cfg(all(test, loom))]
mod loom_wake {
    use super::*;
    use loom::sync::atomic::AtomicUsize;
    use loom::thread;

    struct Count(AtomicUsize);

    impl Schedule for Count {
        fn schedule(&self, _id: usize) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }

    /// The executor clears the flag and polls (reads the future's state)
    /// while another thread makes the future ready and wakes it. Either the
    /// poll sees the state, or the wake schedules the task again: never
    /// neither (a lost wake-up).
    #[test]
    fn loom_clear_then_poll() {
        loom::model(|| {
            let scheduler = Arc::new(Count(AtomicUsize::new(0)));
            let handle = WakeHandle::new(0, scheduler.clone());
            // Queued, about to be polled.
            handle.mark_scheduled();
            let ready = loom::sync::Arc::new(AtomicBool::new(false));
            let waker = {
                let handle = handle.clone();
                let ready = ready.clone();
                thread::spawn(move || {
                    ready.store(true, Ordering::Relaxed);
                    handle.wake_task();
                })
            };
            handle.clear_scheduled();
            let saw_ready = ready.load(Ordering::Relaxed);
            waker.join().unwrap();
            assert!(
                saw_ready || scheduler.0.load(Ordering::SeqCst) == 1,
                "the poll saw Pending and the wake scheduled nothing: a lost wake-up"
            );
        });
    }
}
