//! Provided buffers: a ring of buffers the kernel picks from.
//!
//! With one buffer per connection, ten thousand idle connections pin ten
//! thousand buffers that wait for bytes that may never come. A **buffer
//! ring** (`IORING_REGISTER_PBUF_RING`, Linux 5.19) turns that around: the
//! server registers one pool of buffers, each receive carries
//! `IOSQE_BUFFER_SELECT` and a group id instead of a buffer, and the kernel
//! takes a buffer from the pool only when bytes arrive. The completion says
//! which buffer it took ([`Completion::buffer_id`](super::Completion::buffer_id));
//! the server gives it back ([`BufRing::recycle`]) once the echo has been
//! sent. If the pool is empty, the receive fails with `ENOBUFS`.
//!
//! The ring itself is an array of `{addr, len, bid}` entries in memory the
//! kernel reads, with a tail the process advances (the kernel keeps the
//! head). It must be page-aligned, so it comes from `mmap`.
//!
//! Book: Chapter 10, "Measured steps".

use std::io;
use std::sync::atomic::{AtomicU16, Ordering};

use io_uring::types::BufRingEntry;

use super::Ring;

/// A registered pool of equal buffers.
#[derive(Debug)]
pub struct BufRing {
    /// The page-aligned ring of entries, `entries` long.
    ring: *mut BufRingEntry,
    ring_bytes: usize,
    /// The buffers, one after another.
    buffers: Box<[u8]>,
    entries: u16,
    buffer_bytes: u32,
    group: u16,
    /// The next tail to publish (the kernel sees it after `publish`).
    tail: u16,
}

impl BufRing {
    // ANCHOR: register
    /// Registers `entries` buffers (a power of two, at most 32,768) of
    /// `buffer_bytes` each as group `group` of `ring`, all available.
    pub fn register(
        ring: &Ring,
        group: u16,
        entries: u16,
        buffer_bytes: u32,
    ) -> io::Result<BufRing> {
        if !entries.is_power_of_two() || entries > 32_768 {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "a buffer ring's size must be a power of two up to 32768",
            ));
        }
        let ring_bytes = usize::from(entries) * std::mem::size_of::<BufRingEntry>();
        // SAFETY: an anonymous private mapping: no file, no aliasing; the
        // result is checked before use.
        let memory = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                ring_bytes,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_ANONYMOUS | libc::MAP_PRIVATE,
                -1,
                0,
            )
        };
        if memory == libc::MAP_FAILED {
            return Err(io::Error::last_os_error());
        }
        let mut pool = BufRing {
            ring: memory.cast(),
            ring_bytes,
            buffers: vec![0u8; usize::from(entries) * buffer_bytes as usize].into_boxed_slice(),
            entries,
            buffer_bytes,
            group,
            tail: 0,
        };
        // SAFETY: the ring memory is page-aligned (mmap), `entries` long,
        // and lives until `Drop` unregisters it before unmapping.
        unsafe {
            ring.submitter()
                .register_buf_ring_with_flags(memory as u64, entries, group, 0)?;
        }
        for bid in 0..entries {
            pool.add(bid);
        }
        pool.publish();
        Ok(pool)
    }
    // ANCHOR_END: register

    /// The group id receives name.
    pub fn group(&self) -> u16 {
        self.group
    }

    /// Bytes in each buffer.
    pub fn buffer_bytes(&self) -> u32 {
        self.buffer_bytes
    }

    /// The first `len` bytes of buffer `bid`, as the kernel filled them.
    pub fn buffer(&self, bid: u16, len: usize) -> &[u8] {
        let start = usize::from(bid) * self.buffer_bytes as usize;
        &self.buffers[start..start + len.min(self.buffer_bytes as usize)]
    }

    // ANCHOR: recycle
    /// Gives buffer `bid` back to the kernel.
    pub fn recycle(&mut self, bid: u16) {
        self.add(bid);
        self.publish();
    }

    /// Writes buffer `bid` into the entry at the tail (not yet visible).
    fn add(&mut self, bid: u16) {
        let mask = self.entries - 1;
        let addr = self.buffers[usize::from(bid) * self.buffer_bytes as usize..].as_ptr();
        // SAFETY: `tail & mask` < `entries`, inside the mapping; the kernel
        // reads entries only up to the published tail, which this one is past.
        let entry = unsafe { &mut *self.ring.add(usize::from(self.tail & mask)) };
        entry.set_addr(addr as u64);
        entry.set_len(self.buffer_bytes);
        entry.set_bid(bid);
        self.tail = self.tail.wrapping_add(1);
    }

    /// Makes the entries added so far visible to the kernel.
    fn publish(&self) {
        // SAFETY: the tail field overlays the first entry's reserved word, in
        // the mapping; the kernel reads it, we are its only writer, and the
        // release store orders the entries' writes before it.
        unsafe {
            let tail = BufRingEntry::tail(self.ring).cast::<AtomicU16>();
            (*tail).store(self.tail, Ordering::Release);
        }
    }
    // ANCHOR_END: recycle

    /// Unregisters the pool from `ring`; after this the kernel no longer
    /// reads it, and dropping it is safe.
    pub fn unregister(&self, ring: &Ring) -> io::Result<()> {
        ring.submitter().unregister_buf_ring(self.group)
    }
}

impl Drop for BufRing {
    fn drop(&mut self) {
        // SAFETY: the mapping is ours, of this size; the owner unregistered
        // the pool (or closed the ring) before dropping it.
        unsafe { libc::munmap(self.ring.cast(), self.ring_bytes) };
    }
}

// SAFETY: the raw pointer is to a private mapping only this value touches
// (and the kernel, through the ring it was registered with); moving the
// value to another thread moves that sole ownership with it.
unsafe impl Send for BufRing {}
