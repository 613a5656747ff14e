//! Buffers an operation can own.
//!
//! A completion-based read hands the kernel an address and a length, and
//! the kernel writes there *later*, after the call that submitted the read
//! has returned. The buffer therefore has to stay where it is, and stay
//! alive, until the completion arrives, whoever holds it meanwhile. Two
//! promises make that possible:
//!
//! * **the bytes do not move when the owner moves.** A `Vec<u8>` keeps its
//!   bytes on the heap: moving the `Vec` (into a future, into the driver,
//!   back to the caller) moves three words, not the bytes the kernel holds
//!   a pointer to. A `[u8; 4096]` on the stack would move with its owner,
//!   and the kernel would write into the old place;
//! * **the owner decides when the bytes are freed.** The operation takes
//!   the buffer by value, so nobody else can drop it while the kernel may
//!   write; the operation gives it back with the result.
//!
//! The traits are `unsafe` to implement because the ring trusts both
//! promises with memory the kernel writes.
//!
//! Book: Chapter 10, "Owned buffers and cancellation".

/// A buffer whose filled bytes an operation may send (a write).
///
/// # Safety
///
/// `as_ptr` must return the same address, valid for `filled()` bytes, for
/// as long as the value lives, however often the value itself is moved;
/// the bytes are freed only when the value is dropped.
pub unsafe trait IoBuf: 'static {
    /// The start of the bytes; unchanged when `self` moves.
    fn as_ptr(&self) -> *const u8;
    /// How many bytes, from the start, hold data (what a write sends).
    fn filled(&self) -> usize;
}

/// A buffer an operation may fill (a read): the kernel writes from the
/// start, up to [`room`](IoBufMut::room) bytes.
///
/// # Safety
///
/// As for [`IoBuf`], and `as_mut_ptr` must be valid for writes of `room()`
/// bytes for as long as the value lives.
pub unsafe trait IoBufMut: IoBuf {
    /// The start of the bytes the kernel may write; unchanged when `self`
    /// moves.
    fn as_mut_ptr(&mut self) -> *mut u8;
    /// How many bytes the kernel may write.
    fn room(&self) -> usize;
    /// Records that the first `n` bytes hold data.
    ///
    /// # Safety
    ///
    /// The first `n` bytes must have been written, and `n <= room()`.
    unsafe fn set_filled(&mut self, n: usize);
}

// SAFETY: a Vec's bytes live on the heap and do not move when the Vec does;
// they are freed only by dropping (or growing) the Vec, which needs the Vec
// itself, and the operation holds it.
unsafe impl IoBuf for Vec<u8> {
    fn as_ptr(&self) -> *const u8 {
        Vec::as_ptr(self)
    }

    fn filled(&self) -> usize {
        self.len()
    }
}

// SAFETY: as above; the room is the Vec's capacity, all of it allocated.
unsafe impl IoBufMut for Vec<u8> {
    fn as_mut_ptr(&mut self) -> *mut u8 {
        // The inherent method: the whole allocation, not a slice of `len`.
        Vec::as_mut_ptr(self)
    }

    fn room(&self) -> usize {
        self.capacity()
    }

    unsafe fn set_filled(&mut self, n: usize) {
        // SAFETY: the caller promises the first n bytes were written and
        // n <= capacity.
        unsafe { self.set_len(n) }
    }
}
