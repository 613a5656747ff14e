//! Reference solution for ch02_sattolo.

/// The chain over `n` lines: `next[i]` is the line after line `i`, and the
/// whole is one cycle through every line.
pub fn sattolo(n: usize, random_below: &mut impl FnMut(usize) -> usize) -> Vec<usize> {
    let mut next: Vec<usize> = (0..n).collect();
    for i in (1..n).rev() {
        let j = random_below(i);
        next.swap(i, j);
    }
    next
}

/// The number of steps from `start` back to `start` along `next`, or
/// `None` if the walk does not come back within `next.len()` steps.
pub fn lap_length(next: &[usize], start: usize) -> Option<usize> {
    let mut at = start;
    for steps in 1..=next.len() {
        at = *next.get(at)?;
        if at == start {
            return Some(steps);
        }
    }
    None
}
