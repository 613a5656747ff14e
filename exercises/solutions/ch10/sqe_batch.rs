//! Reference solution for ch10_sqe_batch.

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
    for (tag, &fd) in fds.iter().enumerate() {
        while !ring.queue_read(fd, len, tag as u64) {
            ring.enter(0)?;
        }
    }
    let mut results: Vec<Option<io::Result<Vec<u8>>>> = fds.iter().map(|_| None).collect();
    let mut missing = fds.len();
    loop {
        while let Some((tag, result)) = ring.next_completion() {
            let slot = usize::try_from(tag)
                .ok()
                .and_then(|index| results.get_mut(index))
                .filter(|slot| slot.is_none())
                .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidData, "stray completion"))?;
            *slot = Some(result);
            missing -= 1;
        }
        if missing == 0 {
            return Ok(results.into_iter().flatten().collect());
        }
        ring.enter(missing)?;
    }
}
