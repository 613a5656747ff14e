//! Near miss of ch06_counting_waker: `clone` takes a reference on the counter
//! but `drop` gives none back, so every waker ever cloned leaks the counter;
//! the tests must catch it because each waker must own exactly one reference,
//! released when it is dropped.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::{RawWaker, RawWakerVTable, Waker};

static VTABLE: RawWakerVTable = RawWakerVTable::new(clone, wake, wake_by_ref, drop_waker);

unsafe fn clone(data: *const ()) -> RawWaker {
    // SAFETY: `data` came from `Arc::into_raw` and the waker being cloned
    // still owns its reference, so the counter is alive.
    unsafe { Arc::increment_strong_count(data.cast::<AtomicUsize>()) };
    RawWaker::new(data, &VTABLE)
}

unsafe fn wake(data: *const ()) {
    // SAFETY: the consumed waker owned one reference: take it back; it is
    // released when `counter` goes out of scope.
    let counter = unsafe { Arc::from_raw(data.cast::<AtomicUsize>()) };
    counter.fetch_add(1, Ordering::SeqCst);
}

unsafe fn wake_by_ref(data: *const ()) {
    // SAFETY: the waker still owns its reference for this borrow.
    let counter = unsafe { &*data.cast::<AtomicUsize>() };
    counter.fetch_add(1, Ordering::SeqCst);
}

unsafe fn drop_waker(_data: *const ()) {
    // MISTAKE: nothing to do, it seems; the reference is never released.
}

/// A waker that counts its wake-ups in `counter`.
pub fn counting_waker(counter: Arc<AtomicUsize>) -> Waker {
    let data = Arc::into_raw(counter).cast::<()>();
    // SAFETY: the vtable keeps one strong reference per waker, as the
    // RawWaker contract requires, and AtomicUsize is Send + Sync.
    unsafe { Waker::from_raw(RawWaker::new(data, &VTABLE)) }
}
