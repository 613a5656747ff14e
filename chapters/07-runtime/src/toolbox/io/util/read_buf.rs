//! [`ReadBuf`]: Tokio's "double cursor" over a byte buffer, at Tokio's path
//! (`tokio::io::ReadBuf`) and with its methods, its panics and their words.
//!
//! The buffer has three regions: the *filled* bytes at the front (what a
//! read put there), then bytes that are *initialized* but not filled, then
//! the rest. Filled is always a prefix of initialized. A reader appends
//! with [`put_slice`](ReadBuf::put_slice), or fills
//! [`initialize_unfilled`](ReadBuf::initialize_unfilled) and then
//! [`advance`](ReadBuf::advance)s.
//!
//! rt's `AsyncRead` is the `futures::io` trait, whose `poll_read` takes a
//! plain `&mut [u8]` (see `io/mod.rs`), so no rt stream asks for a
//! `ReadBuf`: it is here for code that builds and inspects one as a Tokio
//! program does. Ours holds only initialized memory: [`ReadBuf::uninit`]
//! zeroes the bytes it is lent (and still reports none of them
//! initialized, as Tokio's does), so that every other method is safe code
//! over a `&mut [u8]`; the one `unsafe` block is that view of the zeroed
//! bytes. Tokio's two `unsafe` views of the raw memory (`inner_mut`,
//! `unfilled_mut`) and its `BufMut` impl are left out.

use std::fmt;
use std::mem::MaybeUninit;

/// A byte buffer filled a read at a time, which tracks how much of itself
/// is filled and how much initialized (`tokio::io::ReadBuf`).
///
/// ```text
/// [             capacity              ]
/// [ filled |         unfilled         ]
/// [    initialized    | uninitialized ]
/// ```
pub struct ReadBuf<'a> {
    buf: &'a mut [u8],
    /// How many bytes at the front are filled.
    filled: usize,
    /// How many bytes at the front count as initialized (at least
    /// `filled`).
    initialized: usize,
}

impl<'a> ReadBuf<'a> {
    /// A `ReadBuf` over a buffer that is all initialized: nothing filled,
    /// everything initialized.
    pub fn new(buf: &'a mut [u8]) -> ReadBuf<'a> {
        let initialized = buf.len();
        ReadBuf {
            buf,
            filled: 0,
            initialized,
        }
    }

    /// A `ReadBuf` over a buffer that may be uninitialized: nothing filled,
    /// nothing counted as initialized. Ours writes zeros over the buffer
    /// first (see the module's comment).
    pub fn uninit(buf: &'a mut [MaybeUninit<u8>]) -> ReadBuf<'a> {
        for byte in buf.iter_mut() {
            byte.write(0);
        }
        // The view borrows `buf` for all of `'a` and only ever stores `u8`
        // values into it, so the bytes are still initialized when the
        // caller's borrow is given back.
        // SAFETY: every element was written just above, and `MaybeUninit<u8>`
        // has the size, alignment and layout of `u8`.
        let buf = unsafe { &mut *(buf as *mut [MaybeUninit<u8>] as *mut [u8]) };
        ReadBuf {
            buf,
            filled: 0,
            initialized: 0,
        }
    }

    /// The size of the whole buffer.
    pub fn capacity(&self) -> usize {
        self.buf.len()
    }

    /// The filled part of the buffer.
    pub fn filled(&self) -> &[u8] {
        &self.buf[..self.filled]
    }

    /// The filled part of the buffer, mutably.
    pub fn filled_mut(&mut self) -> &mut [u8] {
        &mut self.buf[..self.filled]
    }

    /// A new `ReadBuf` over the first `n` bytes of the unfilled part (all
    /// of it if `n` is larger), with nothing filled and nothing counted as
    /// initialized.
    pub fn take(&mut self, n: usize) -> ReadBuf<'_> {
        let max = self.remaining().min(n);
        let start = self.filled;
        ReadBuf {
            buf: &mut self.buf[start..start + max],
            filled: 0,
            initialized: 0,
        }
    }

    /// The initialized part of the buffer, which includes the filled part.
    pub fn initialized(&self) -> &[u8] {
        &self.buf[..self.initialized]
    }

    /// The initialized part of the buffer, mutably.
    pub fn initialized_mut(&mut self) -> &mut [u8] {
        &mut self.buf[..self.initialized]
    }

    /// The whole unfilled part, initialized first (with zeros) where it
    /// was not.
    pub fn initialize_unfilled(&mut self) -> &mut [u8] {
        self.initialize_unfilled_to(self.remaining())
    }

    /// The first `n` bytes of the unfilled part, initialized first (with
    /// zeros) where they were not.
    ///
    /// # Panics
    ///
    /// If `n` is more than [`remaining`](Self::remaining) ("n overflows
    /// remaining", as Tokio's), at the caller's line.
    #[track_caller]
    pub fn initialize_unfilled_to(&mut self, n: usize) -> &mut [u8] {
        assert!(self.remaining() >= n, "n overflows remaining");
        let end = self.filled + n;
        if self.initialized < end {
            self.buf[self.initialized..end].fill(0);
            self.initialized = end;
        }
        &mut self.buf[self.filled..end]
    }

    /// How many bytes are not yet filled.
    pub fn remaining(&self) -> usize {
        self.capacity() - self.filled
    }

    /// Empties the filled part; what is initialized, and the bytes
    /// themselves, stay as they are.
    pub fn clear(&mut self) {
        self.filled = 0;
    }

    /// Counts `n` more bytes as filled; what is initialized does not
    /// change.
    ///
    /// # Panics
    ///
    /// If the filled part would become larger than the initialized part
    /// ("filled must not become larger than initialized", as Tokio's), at
    /// the caller's line.
    #[track_caller]
    pub fn advance(&mut self, n: usize) {
        let new = self.filled.checked_add(n).expect("filled overflow");
        self.set_filled(new);
    }

    /// Sets how many bytes are filled, which may also shrink the filled
    /// part; what is initialized does not change.
    ///
    /// # Panics
    ///
    /// If `n` is larger than the initialized part, at the caller's line.
    #[track_caller]
    pub fn set_filled(&mut self, n: usize) {
        assert!(
            n <= self.initialized,
            "filled must not become larger than initialized"
        );
        self.filled = n;
    }

    /// Counts the first `n` unfilled bytes as initialized; fewer than are
    /// already counted changes nothing.
    ///
    /// # Safety
    ///
    /// The caller promises those bytes were initialized, as for Tokio's.
    /// Ours never lends out memory that is not initialized, so the promise
    /// costs nothing here, but code written for Tokio keeps it.
    pub unsafe fn assume_init(&mut self, n: usize) {
        let new = (self.filled + n).min(self.capacity());
        if new > self.initialized {
            self.initialized = new;
        }
    }

    /// Appends `buf` to the filled part, and to the initialized part where
    /// it reaches past it.
    ///
    /// # Panics
    ///
    /// If `buf` is longer than [`remaining`](Self::remaining), at the
    /// caller's line, with Tokio's words ("buf.len() must fit in
    /// remaining()").
    #[track_caller]
    pub fn put_slice(&mut self, buf: &[u8]) {
        assert!(
            self.remaining() >= buf.len(),
            "buf.len() must fit in remaining(); buf.len() = {}, remaining() = {}",
            buf.len(),
            self.remaining()
        );
        let end = self.filled + buf.len();
        self.buf[self.filled..end].copy_from_slice(buf);
        self.initialized = self.initialized.max(end);
        self.filled = end;
    }
}

impl fmt::Debug for ReadBuf<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ReadBuf")
            .field("filled", &self.filled)
            .field("initialized", &self.initialized)
            .field("capacity", &self.capacity())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::ReadBuf;
    use std::mem::MaybeUninit;

    /// The one `unsafe` view, under Miri: a buffer lent uninitialized is
    /// read and written only through initialized bytes, and what a read put
    /// there is still there once the borrow is given back.
    #[test]
    fn a_buffer_lent_uninitialized_is_read_and_written_safely() {
        let mut memory = [MaybeUninit::<u8>::uninit(); 8];
        let mut buf = ReadBuf::uninit(&mut memory);
        assert_eq!((buf.capacity(), buf.initialized().len()), (8, 0));
        buf.put_slice(b"abc");
        assert_eq!(buf.filled(), b"abc");
        assert_eq!(buf.initialize_unfilled_to(2), [0, 0]);
        assert_eq!(buf.initialized().len(), 5);
        buf.initialize_unfilled()[0] = b'd';
        buf.advance(1);
        assert_eq!(buf.filled(), b"abcd");
        let bytes: Vec<u8> = memory
            .iter()
            // SAFETY: `uninit` wrote every byte (and the reads above some).
            .map(|byte| unsafe { byte.assume_init() })
            .collect();
        assert_eq!(&bytes[..4], b"abcd");
    }
}
