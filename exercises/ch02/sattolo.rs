//! Exercise ch02_sattolo: a pointer-chase chain that is one single cycle.
//!
//! Chapter 2 measures what a switch costs in cache misses by walking a
//! working set as a chain: each cache line holds the index of the next, in
//! a random order, so that every load waits for the one before and the
//! prefetchers have nothing to predict. The walk must visit *every* line
//! once per lap. A chain made with the usual shuffle (Fisher-Yates) is a
//! random permutation, which almost always falls apart into several
//! smaller cycles: a walk started in one never sees the others, and the
//! working set it measures is smaller than the one it was given.
//!
//! Sattolo's algorithm is the shuffle that always yields one single cycle.
//! Start from the identity, `next[i] = i`. Then for `i` from `n - 1` down
//! to 1, pick `j` uniformly at random with `0 <= j < i` (strictly below
//! `i`: allowing `j == i` is Fisher-Yates) and swap `next[i]` and
//! `next[j]`. Every one of the `(n - 1)!` single cycles through `n` lines
//! comes out with the same chance.
//!
//! Write:
//!
//! * [`sattolo`]: the chain over `n` lines, as `next`, where `next[i]` is
//!   the line after line `i`. Randomness comes from `random_below`:
//!   `random_below(bound)` returns a number in `0..bound`. Call it exactly
//!   once per swap, with bounds `n - 1`, `n - 2`, ..., 1 in that order (so
//!   `n - 1` calls in all, none for `n` of 0 or 1), and use what it returns
//!   as `j`. `n` of 0 gives an empty chain; `n` of 1 the line that points
//!   to itself.
//! * [`lap_length`]: starting at `start`, follow `next` until you are back
//!   at `start`, and return how many steps that took (the cycle's length);
//!   `None` if the walk takes more than `next.len()` steps without coming
//!   back (then `start` is not on a cycle) or leaves the slice.
//!
//! Check: `cargo run -p exercises -- check ch02_sattolo`. Hint:
//! `cargo run -p exercises -- hint ch02_sattolo`.

/// The chain over `n` lines: `next[i]` is the line after line `i`, and the
/// whole is one cycle through every line.
pub fn sattolo(n: usize, random_below: &mut impl FnMut(usize) -> usize) -> Vec<usize> {
    todo!("Sattolo's shuffle of 0..{n}, with random_below")
}

/// The number of steps from `start` back to `start` along `next`, or
/// `None` if the walk does not come back within `next.len()` steps.
pub fn lap_length(next: &[usize], start: usize) -> Option<usize> {
    todo!("walk {} lines from {start}", next.len())
}
