//! Where an unbiased `select!` starts polling: a small random number
//! generator, one per thread.
//!
//! `select!` in a loop, with one branch that is always ready, would pick
//! that branch every time if it always polled in the order written: the
//! branches after it would starve. Starting at a random branch on every
//! poll gives each ready branch an equal chance (`biased;` turns this off,
//! for code that wants the order written). The numbers need to be cheap and
//! spread out, not unpredictable: a xorshift generator (Marsaglia, 2003)
//! does it in three shifts and three xors, seeded once per thread from the
//! standard library's randomly keyed hasher.
//!
//! Book: Chapter 8, "join!, select! and cancellation".

use std::cell::Cell;
use std::hash::{BuildHasher, Hasher};

thread_local! {
    /// The generator's state; never zero (xorshift would stay at zero).
    static STATE: Cell<u64> = Cell::new(seed());
}

fn seed() -> u64 {
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u64(0x9e37_79b9_7f4a_7c15);
    hasher.finish() | 1
}

/// A number in `0..n`, roughly uniform (`n` must be above 0).
pub fn random_below(n: usize) -> usize {
    STATE.with(|state| {
        // xorshift64: a full-period generator over the non-zero u64s.
        let mut x = state.get();
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        state.set(x);
        // Scale to 0..n by multiplying (Lemire), with no division and no
        // bias worth measuring for the handful of branches a select! has.
        ((u128::from(x) * n as u128) >> 64) as usize
    })
}

#[cfg(test)]
mod tests {
    use super::random_below;

    #[test]
    fn every_branch_gets_picked_about_as_often() {
        let mut counts = [0u32; 4];
        for _ in 0..4_000 {
            counts[random_below(4)] += 1;
        }
        for count in counts {
            assert!((800..1_200).contains(&count), "{counts:?}");
        }
    }
}
