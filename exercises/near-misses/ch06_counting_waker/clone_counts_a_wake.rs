//! Near miss of ch06_counting_waker: `clone` bumps the wake count as well as
//! the reference count, mixing up the two counters, so a waker that is cloned
//! and never woken reports a wake-up; the tests must catch it because the
//! count must be the number of wake-ups and nothing else.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::{RawWaker, RawWakerVTable, Waker};

static VTABLE: RawWakerVTable = RawWakerVTable::new(clone, wake, wake_by_ref, drop_waker);

unsafe fn clone(data: *const ()) -> RawWaker {
    // SAFETY: `data` came from `Arc::into_raw` and the waker being cloned
    // still owns its reference, so the counter is alive.
    unsafe { Arc::increment_strong_count(data.cast::<AtomicUsize>()) };
    // MISTAKE: a clone is not a wake-up.
    // SAFETY: the reference just taken keeps the counter alive.
    unsafe { &*data.cast::<AtomicUsize>() }.fetch_add(1, Ordering::SeqCst);
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

unsafe fn drop_waker(data: *const ()) {
    // SAFETY: the dropped waker owned one reference: release it.
    unsafe { Arc::decrement_strong_count(data.cast::<AtomicUsize>()) };
}

/// A waker that counts its wake-ups in `counter`.
pub fn counting_waker(counter: Arc<AtomicUsize>) -> Waker {
    let data = Arc::into_raw(counter).cast::<()>();
    // SAFETY: the vtable keeps one strong reference per waker, as the
    // RawWaker contract requires, and AtomicUsize is Send + Sync.
    unsafe { Waker::from_raw(RawWaker::new(data, &VTABLE)) }
}
