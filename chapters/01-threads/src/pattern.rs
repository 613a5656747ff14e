//! Bytes that prove themselves: the pattern every echo client in this book
//! sends and checks.
//!
//! An echo test that sends zeros cannot tell a correct server from one that
//! drops, duplicates or reorders bytes. So each connection sends a stream in
//! which byte `i` is a pseudo-random function of the connection's seed and of
//! `i` itself. Whatever goes wrong (a lost chunk shifts every later byte, a
//! chunk sent to the wrong connection carries another seed), the bytes that
//! come back no longer match what the client computes for those positions.
//!
//! The function is SplitMix64 over 8-byte words: cheap (a few instructions per
//! 8 bytes), and with no short period a bug could line up with.

/// One direction of one connection: the seed and how far the stream has got.
#[derive(Debug, Clone)]
pub struct PatternStream {
    seed: u64,
    offset: u64,
}

impl PatternStream {
    /// A stream for the connection with this seed, starting at byte 0.
    pub fn new(seed: u64) -> PatternStream {
        PatternStream { seed, offset: 0 }
    }

    /// Bytes produced (or checked) so far.
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// Fills `buf` with the next `buf.len()` bytes of the stream.
    pub fn fill(&mut self, buf: &mut [u8]) {
        self.walk(buf.len(), |at, expected| {
            buf[at..at + expected.len()].copy_from_slice(expected)
        });
    }

    /// Checks that `buf` holds the next `buf.len()` bytes of the stream and
    /// advances past them. Returns how many bytes differ (0 when all match).
    pub fn verify(&mut self, buf: &[u8]) -> u64 {
        let mut wrong = 0;
        self.walk(buf.len(), |at, expected| {
            let got = &buf[at..at + expected.len()];
            if got != expected {
                wrong += got.iter().zip(expected).filter(|(a, b)| a != b).count() as u64;
            }
        });
        wrong
    }

    /// Visits the next `len` bytes of the stream a word-aligned piece at a
    /// time, as `(index into the caller's buffer, expected bytes)`, and
    /// advances past them. One SplitMix64 call serves 8 bytes.
    fn walk(&mut self, len: usize, mut visit: impl FnMut(usize, &[u8])) {
        let mut at = 0;
        while at < len {
            let position = self.offset + at as u64;
            let word = word_at(self.seed, position / 8).to_le_bytes();
            let start = (position % 8) as usize;
            let n = (8 - start).min(len - at);
            visit(at, &word[start..start + n]);
            at += n;
        }
        self.offset += len as u64;
    }
}

/// Byte `offset` of the stream with `seed`.
pub fn pattern_byte(seed: u64, offset: u64) -> u8 {
    word_at(seed, offset / 8).to_le_bytes()[(offset % 8) as usize]
}

/// The 8-byte word number `index` of the stream with `seed`.
fn word_at(seed: u64, index: u64) -> u64 {
    splitmix64(seed ^ index.wrapping_mul(0x9E37_79B9_7F4A_7C15))
}

fn splitmix64(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_is_filled_verifies() {
        let mut tx = PatternStream::new(42);
        let mut rx = PatternStream::new(42);
        let mut buf = vec![0; 1000];
        for _ in 0..3 {
            tx.fill(&mut buf);
            assert_eq!(rx.verify(&buf), 0);
        }
        assert_eq!(rx.offset(), 3000);
    }

    #[test]
    fn chunking_does_not_matter() {
        let mut whole = vec![0; 64];
        PatternStream::new(7).fill(&mut whole);
        let mut parts = PatternStream::new(7);
        let mut a = vec![0; 13];
        let mut b = vec![0; 51];
        parts.fill(&mut a);
        parts.fill(&mut b);
        assert_eq!([a, b].concat(), whole);
    }

    #[test]
    fn word_pieces_agree_with_single_bytes() {
        let mut buf = vec![0; 37];
        let mut stream = PatternStream::new(99);
        stream.fill(&mut [0; 5]); // start mid-word
        stream.fill(&mut buf);
        for (i, &byte) in buf.iter().enumerate() {
            assert_eq!(byte, pattern_byte(99, 5 + i as u64));
        }
    }

    #[test]
    fn a_lost_byte_shifts_everything_after_it() {
        let mut buf = vec![0; 256];
        PatternStream::new(1).fill(&mut buf);
        buf.remove(10);
        let wrong = PatternStream::new(1).verify(&buf);
        // About 255/256 of the shifted bytes differ.
        assert!(wrong > 200, "only {wrong} bytes differ");
    }

    #[test]
    fn another_seed_is_another_stream() {
        let mut a = vec![0; 256];
        PatternStream::new(1).fill(&mut a);
        assert!(PatternStream::new(2).verify(&a) > 200);
    }
}
