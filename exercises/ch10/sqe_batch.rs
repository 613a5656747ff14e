//! Exercise ch10_sqe_batch: many reads, one system call.
//!
//! A readiness loop pays one system call per `read`, plus the
//! `epoll_wait`. io_uring lets a program queue many operations in the
//! submission ring and hand them all to the kernel in one `io_uring_enter`,
//! then take the results from the completion ring, *in whatever order the
//! kernel finished them*. Each result carries the `user_data` tag its
//! submission had; that tag is how a result finds its operation.
//!
//! Write [`read_batch`]: read at most `len` bytes from each of `fds`, and
//! return one result per descriptor, in the order of `fds`:
//!
//! * queue every read with `ring.queue_read(fd, len, tag)`, tagging each
//!   with its index in `fds`; when the queue is full (`false`), call
//!   `ring.enter(0)` (submit what is queued, wait for nothing) and queue the
//!   same read again;
//! * then collect: take every ready completion with `next_completion` and
//!   put its result at the index its tag names; while some are missing,
//!   `ring.enter(missing)` submits the rest and waits for them. With a
//!   queue large enough for every read, that is **one** `enter` in all;
//! * a tag that names no read, or a read already answered, is a broken
//!   ring: return `Err` with `io::ErrorKind::InvalidData`. An error from
//!   `enter` is returned as is. A failed *read* is not an error of the
//!   batch: it is that read's `Err` in the result.
//!
//! No descriptors: no system call at all, an empty result.
//!
//! Check: `cargo run -p exercises -- check ch10_sqe_batch`. Hint:
//! `cargo run -p exercises -- hint ch10_sqe_batch`.

use std::io;
use std::os::fd::RawFd;

/// The ring as the batch sees it. The tests give two: a real io_uring and a
/// scripted one that completes operations out of order.
pub trait Ring {
    /// Queues a read of at most `len` bytes from `fd`, tagged `user_data`
    /// (the kernel copies the tag into the completion). Returns `false`,
    /// queuing nothing, when the submission queue is full.
    fn queue_read(&mut self, fd: RawFd, len: usize, user_data: u64) -> bool;
    /// One `io_uring_enter`: hands the kernel every queued read, then
    /// sleeps until at least `want` completions are ready to be taken.
    fn enter(&mut self, want: usize) -> io::Result<()>;
    /// Takes one ready completion, if any: its tag, and the bytes read or
    /// the error.
    fn next_completion(&mut self) -> Option<(u64, io::Result<Vec<u8>>)>;
}

/// Reads from every descriptor in as few `enter`s as the queue allows.
pub fn read_batch(
    ring: &mut impl Ring,
    fds: &[RawFd],
    len: usize,
) -> io::Result<Vec<io::Result<Vec<u8>>>> {
    let _ = (ring, fds, len);
    todo!("queue all, enter once, place each completion by its tag")
}
