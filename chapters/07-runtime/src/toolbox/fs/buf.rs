//! The buffer a [`File`](super::File) lends to the blocking pool.
//!
//! A pool job cannot borrow the caller's `&mut [u8]`: the caller's poll
//! returns `Pending` and the slice may be gone before the job ends. So a
//! `File` owns one buffer, moves it into each job and gets it back with the
//! job's result. A read fills it on the pool and the task copies out of it;
//! a write copies into it on the task and the pool writes it out. At any
//! moment the buffer holds either bytes read and not yet handed out
//! (`bytes[pos..end]`) or nothing.
//!
//! `bytes` only grows (to the largest request, at most the file's
//! `max_buf_size`): its length is how much of it has been zeroed, so a
//! read reuses the zeroed space instead of zeroing 2 MiB per call.
//!
//! Book: Chapter 7, "The budget and the blocking pool", section "Files:
//! why they go to the blocking pool".

use std::io::{self, IoSlice, Read, Write};

/// One file's buffer; see the module header.
#[derive(Debug, Default)]
pub(super) struct Buf {
    /// Zeroed or written storage; only ever grows.
    bytes: Vec<u8>,
    /// The unread bytes are `bytes[pos..end]`.
    pos: usize,
    end: usize,
}

impl Buf {
    /// True when no read byte is waiting to be handed out.
    pub(super) fn is_empty(&self) -> bool {
        self.pos == self.end
    }

    /// Makes `bytes` at least `n` long.
    fn reserve(&mut self, n: usize) {
        if self.bytes.len() < n {
            self.bytes.resize(n, 0);
        }
    }

    /// Hands out up to `dst.len()` unread bytes; returns how many.
    pub(super) fn copy_to(&mut self, dst: &mut [u8]) -> usize {
        let n = dst.len().min(self.end - self.pos);
        dst[..n].copy_from_slice(&self.bytes[self.pos..self.pos + n]);
        self.pos += n;
        n
    }

    /// Drops the unread bytes and says how many there were: the file's
    /// cursor is that far ahead of what the reader has seen, so a write or
    /// a seek must first move it back by this much.
    pub(super) fn discard_unread(&mut self) -> i64 {
        let unread = self.end - self.pos;
        (self.pos, self.end) = (0, 0);
        i64::try_from(unread).expect("a buffer is at most max_buf_size")
    }

    /// Takes up to `max` bytes of `src` to be written; returns how many.
    /// The buffer must be empty (`discard_unread` first).
    pub(super) fn copy_from(&mut self, src: &[u8], max: usize) -> usize {
        self.copy_from_slices(&[IoSlice::new(src)], max)
    }

    /// Takes up to `max` bytes from the slices, in order; returns how many.
    pub(super) fn copy_from_slices(&mut self, srcs: &[IoSlice<'_>], max: usize) -> usize {
        debug_assert!(self.is_empty(), "unread bytes would be written out");
        let total = srcs.iter().map(|s| s.len()).sum::<usize>().min(max);
        self.reserve(total);
        let mut n = 0;
        for src in srcs {
            let take = src.len().min(total - n);
            self.bytes[n..n + take].copy_from_slice(&src[..take]);
            n += take;
            if n == total {
                break;
            }
        }
        (self.pos, self.end) = (0, n);
        n
    }

    /// On the pool: one `read` of at most `max` bytes from `file` into the
    /// buffer (retried if a signal interrupted it). Returns the count; 0 is
    /// the end of the file.
    pub(super) fn read_from(&mut self, mut file: &std::fs::File, max: usize) -> io::Result<usize> {
        debug_assert!(self.is_empty(), "unread bytes would be overwritten");
        self.reserve(max);
        let result = loop {
            match file.read(&mut self.bytes[..max]) {
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                other => break other,
            }
        };
        (self.pos, self.end) = (0, *result.as_ref().unwrap_or(&0));
        result
    }

    /// On the pool: writes every byte taken by `copy_from` to `file`. The
    /// buffer is empty afterwards, whether or not the write succeeded.
    pub(super) fn write_to(&mut self, mut file: &std::fs::File) -> io::Result<()> {
        let result = file.write_all(&self.bytes[self.pos..self.end]);
        (self.pos, self.end) = (0, 0);
        result
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copy_from_caps_at_max_and_copy_to_hands_out_in_order() {
        let mut buf = Buf::default();
        assert_eq!(buf.copy_from(b"abcdef", 4), 4);
        let mut two = [0u8; 2];
        assert_eq!(buf.copy_to(&mut two), 2);
        assert_eq!(&two, b"ab");
        assert_eq!(buf.discard_unread(), 2);
        assert!(buf.is_empty());
    }

    #[test]
    fn copy_from_slices_joins_the_slices_up_to_max() {
        let mut buf = Buf::default();
        let srcs = [IoSlice::new(b"ab"), IoSlice::new(b""), IoSlice::new(b"cde")];
        assert_eq!(buf.copy_from_slices(&srcs, 4), 4);
        let mut out = [0u8; 8];
        assert_eq!(buf.copy_to(&mut out), 4);
        assert_eq!(&out[..4], b"abcd");
    }
}
