//! `spawn_blocking` when the OS refuses to start a thread: the call panics,
//! as `std::thread::spawn` does, rather than printing or handing back a
//! job that can never run.

use super::{expect_panic, here, limit};
use crate::shim;

/// Tokio's `spawn_blocking`, when its pool has no thread to take the job
/// and the OS refuses to start one, panics at the call with the OS's error
/// ("OS can't spawn worker thread: ..."), the way `std::thread::spawn`
/// panics; it neither writes to stderr nor returns a handle to a job that
/// no thread will run. A stack of one terabyte per thread
/// (`thread_stack_size`) makes the OS refuse.
#[test]
fn spawn_blocking_panics_at_the_call_when_no_thread_can_start() {
    // Current-thread only: on the multi-thread flavour the stack size
    // applies to the workers too, so building the runtime already fails.
    if shim::MULTI_THREAD {
        return;
    }
    limit("spawn_blocking with no thread to run it", || {
        let runtime = shim::builder()
            .thread_stack_size(1 << 40)
            .build()
            .expect("a current-thread runtime starts no thread");
        let caught = expect_panic("spawn_blocking", || runtime.spawn_blocking(|| 6 * 7));
        assert!(caught.message.contains("os error"), "{caught:?}");
        assert_eq!(caught.file, here().file(), "{caught:?}");
        drop(runtime);
    });
}
