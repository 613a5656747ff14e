//! Wakers made from task pointers: no allocation per waker, one reference
//! count per clone.
//!
//! A `Waker` is a data pointer plus a table of four functions (clone, wake,
//! wake by reference, drop); Chapter 6 wrote one by hand. Here the data
//! pointer is the task's header, and the four functions are the task's own
//! reference counting and notification transitions, so cloning a waker is
//! one atomic add and waking it is one compare-and-swap (plus a push to a run
//! queue if the task was idle).
//!
//! While a worker polls a task it already holds a reference, so the waker in
//! the `Context` borrows that reference ([`WakerRef`]) instead of making one:
//! a future that never clones its waker costs no reference-count traffic.
//!
//! Book: Chapter 7, "Wakers are task pointers".

use super::core::Header;
use super::harness::RawTask;
use std::mem::ManuallyDrop;
use std::ops::Deref;
use std::ptr::NonNull;
use std::task::{RawWaker, RawWakerVTable, Waker};

/// One table for every task: the functions reach the typed code through the
/// header's own vtable.
static WAKER_VTABLE: RawWakerVTable =
    RawWakerVTable::new(clone_waker, wake_by_val, wake_by_ref, drop_waker);

/// A waker that borrows a reference the caller holds: never dropped.
pub(crate) struct WakerRef {
    waker: ManuallyDrop<Waker>,
}

impl WakerRef {
    /// The caller holds a reference to `task` for as long as this lives.
    pub(crate) fn new(task: RawTask) -> WakerRef {
        let raw = RawWaker::new(task.header_ptr().as_ptr() as *const (), &WAKER_VTABLE);
        // SAFETY: the vtable's functions uphold RawWaker's contract for a
        // pointer to a live task header: clone adds a reference, drop removes
        // one, wake consumes one. This waker is never dropped (ManuallyDrop),
        // matching the borrowed reference it stands for.
        let waker = unsafe { Waker::from_raw(raw) };
        WakerRef {
            waker: ManuallyDrop::new(waker),
        }
    }
}

impl Deref for WakerRef {
    type Target = Waker;

    fn deref(&self) -> &Waker {
        &self.waker
    }
}

/// # Safety
///
/// `ptr` is the data pointer of one of our wakers: a live task header on
/// which the waker holds (or borrows) a reference.
unsafe fn raw_task(ptr: *const ()) -> RawTask {
    // SAFETY: per the caller's contract the pointer is a non-null header.
    unsafe { RawTask::from_raw(NonNull::new_unchecked(ptr as *mut Header)) }
}

// ANCHOR: clone_wake
unsafe fn clone_waker(ptr: *const ()) -> RawWaker {
    // SAFETY: called by Waker::clone on one of our wakers.
    unsafe { raw_task(ptr) }.ref_inc();
    RawWaker::new(ptr, &WAKER_VTABLE)
}

unsafe fn wake_by_val(ptr: *const ()) {
    // SAFETY: called by Waker::wake, which gives up the waker's reference.
    unsafe { raw_task(ptr) }.wake_by_val();
}

unsafe fn wake_by_ref(ptr: *const ()) {
    // SAFETY: called by Waker::wake_by_ref on a live waker.
    unsafe { raw_task(ptr) }.wake_by_ref();
}
// ANCHOR_END: clone_wake

unsafe fn drop_waker(ptr: *const ()) {
    // SAFETY: called by Waker's drop, which gives up the waker's reference.
    unsafe { raw_task(ptr) }.drop_reference();
}
