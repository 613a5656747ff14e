//! The naive cancellation, kept to be caught: a read whose future, dropped
//! in flight, frees its buffer at once, although the kernel may still
//! write into it.
//!
//! Compiled only with the `naive-drop` feature, which only the test build
//! turns on (`tests/cancel.rs`, through the package's dev-dependency on
//! itself). The test runs it with a buffer from an arena that poisons and
//! reuses freed slots, and shows the kernel's bytes landing in the next
//! owner's slot.
//!
//! Book: Chapter 10, "Owned buffers and cancellation".

use std::io;
use std::os::fd::RawFd;

use super::buf::IoBufMut;
use super::op::{self, OnDrop};

/// [`crate::owned::read`], except that dropping it in flight frees `buf`.
pub async fn read<B: IoBufMut>(fd: RawFd, buf: B) -> (io::Result<usize>, B) {
    op::read_with(fd, buf, OnDrop::Free).await
}
