//! The indirect cost of a switch: coming back to caches someone else filled.
//!
//! Saving and restoring registers is quick. But while a thread is switched
//! out, the thread that ran in its place filled the CPU's caches (and TLB)
//! with *its* data. When the first thread resumes, its data is gone from the
//! nearest caches and every access it makes goes further out, to L2, L3 or
//! memory, until it has warmed them up again.
//!
//! The experiment: two threads pinned to one CPU, each owning a working set of
//! `W` bytes. Thread A walks its set once with no switch in between (warm), and
//! once right after a switch during which thread B walked *its* set. Each walk
//! is a pointer chase through a random cyclic permutation of the set's cache
//! lines: every load depends on the previous one and the order defeats the
//! prefetchers, so the time per access is the latency of wherever the line
//! was found. Sweeping `W` from 4 KiB to 32 MiB, the "after a switch" curve
//! leaves the "no switch" curve once two working sets no longer fit in L1,
//! and joins it again once even one set no longer fits in the last-level
//! cache.
//!
//! Book: Chapter 2, "The cost you do not see".

use std::io;
use std::sync::Arc;
use std::sync::atomic::AtomicU32;
use std::thread;
use std::time::Instant;

use chapter_01::measure::Samples;

use crate::affinity;
use crate::futex::Scope;
use crate::ping_pong::{self, FutexSide, Placement, Side};

/// One cache line of a chain: the index of the next line to visit.
#[repr(C, align(64))]
struct Line {
    next: usize,
    _pad: [usize; 7],
}

/// A working set of `bytes` bytes, linked in a random cycle through all its
/// cache lines (Sattolo's algorithm: a single cycle, so a walk visits every
/// line once per lap).
pub struct Chain {
    lines: Vec<Line>,
}

impl Chain {
    /// A chain over `bytes` bytes (at least one line), shuffled with `seed`.
    pub fn new(bytes: usize, seed: u64) -> Chain {
        let n = (bytes / std::mem::size_of::<Line>()).max(1);
        let mut order: Vec<usize> = (0..n).collect();
        let mut rng = seed | 1;
        for i in (1..n).rev() {
            // xorshift64: plenty for shuffling, no dependency needed.
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            let j = (rng % i as u64) as usize; // j < i: Sattolo, one cycle
            order.swap(i, j);
        }
        let mut lines: Vec<Line> = (0..n)
            .map(|_| Line {
                next: 0,
                _pad: [0; 7],
            })
            .collect();
        for k in 0..n {
            lines[order[k]].next = order[(k + 1) % n];
        }
        Chain { lines }
    }

    /// Number of cache lines.
    pub fn len(&self) -> usize {
        self.lines.len()
    }

    /// Always false: a chain has at least one line.
    pub fn is_empty(&self) -> bool {
        false
    }

    // ANCHOR: walk
    /// Visits every line once, each load depending on the one before.
    pub fn walk(&self) -> usize {
        let mut at = 0;
        for _ in 0..self.lines.len() {
            at = self.lines[at].next;
        }
        std::hint::black_box(at)
    }
    // ANCHOR_END: walk

    /// Times one walk; returns nanoseconds per access.
    pub fn timed_walk(&self) -> f64 {
        let start = Instant::now();
        self.walk();
        start.elapsed().as_nanos() as f64 / self.lines.len() as f64
    }
}

/// One point of the sweep.
#[derive(Debug, Clone, Copy)]
pub struct SweepPoint {
    /// The working set of each thread, in KiB.
    pub working_set_kib: u64,
    /// Median ns per access on the first walk after a switch.
    pub ns_per_access_after_switch: f64,
    /// Median ns per access on a walk right after another walk.
    pub ns_per_access_no_switch: f64,
}

impl SweepPoint {
    /// Extra time one switch cost this working set, in ns: the slowdown per
    /// access times the number of lines walked.
    pub fn extra_ns_per_switch(&self) -> f64 {
        let lines = (self.working_set_kib * 1024 / 64) as f64;
        (self.ns_per_access_after_switch - self.ns_per_access_no_switch).max(0.0) * lines
    }
}

/// The working sets the full sweep visits: 4 KiB to 32 MiB, doubling.
pub fn full_sizes_kib() -> Vec<u64> {
    (2..=15).map(|p| 1 << p).collect()
}

/// A sparser sweep for quick runs; still spans 4 KiB to 32 MiB.
pub fn quick_sizes_kib() -> Vec<u64> {
    vec![4, 16, 64, 256, 1024, 4096, 32768]
}

// ANCHOR: measure
/// Measures each working-set size `repetitions` times.
pub fn sweep(
    sizes_kib: &[u64],
    repetitions: usize,
    mut step: impl FnMut(),
) -> io::Result<Vec<SweepPoint>> {
    let (cpu, _) = ping_pong::cpus_for(Placement::SameCpu)?.expect("one CPU is allowed");
    let mut points = Vec::with_capacity(sizes_kib.len());
    for &kib in sizes_kib {
        let bytes = kib as usize * 1024;
        let turn = Arc::new(AtomicU32::new(0));
        // Thread B: whenever it gets the token, walks its own set (evicting
        // A's), then hands the token back.
        let polluter = {
            let turn = Arc::clone(&turn);
            thread::spawn(move || -> io::Result<()> {
                affinity::pin_current_thread(cpu)?;
                let chain = Chain::new(bytes, 0xB0B);
                let me = FutexSide {
                    turn: &turn,
                    me: 1,
                    scope: Scope::Private,
                };
                for _ in 0..repetitions {
                    me.wait()?;
                    chain.walk();
                    me.pass()?;
                }
                Ok(())
            })
        };
        // Thread A: a warm walk timed, then a walk timed after B's turn.
        let measurer = {
            let turn = Arc::clone(&turn);
            thread::spawn(move || -> io::Result<(Samples, Samples)> {
                affinity::pin_current_thread(cpu)?;
                let chain = Chain::new(bytes, 0xA11CE);
                let me = FutexSide {
                    turn: &turn,
                    me: 0,
                    scope: Scope::Private,
                };
                let (mut warm, mut after) = (Vec::new(), Vec::new());
                for _ in 0..repetitions {
                    chain.walk();
                    warm.push(chain.timed_walk());
                    me.pass()?;
                    me.wait()?;
                    after.push(chain.timed_walk());
                }
                Ok((Samples::from_ns(warm), Samples::from_ns(after)))
            })
        };
        let (warm, after) = measurer
            .join()
            .expect("the measuring thread does not panic")?;
        polluter
            .join()
            .expect("the polluting thread does not panic")?;
        points.push(SweepPoint {
            working_set_kib: kib,
            ns_per_access_after_switch: after.median_ns(),
            ns_per_access_no_switch: warm.median_ns(),
        });
        step();
    }
    Ok(points)
}
// ANCHOR_END: measure

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_chain_is_one_cycle_through_every_line() {
        let chain = Chain::new(64 * 100, 7);
        assert_eq!(chain.len(), 100);
        let mut seen = [false; 100];
        let mut at = 0;
        for _ in 0..100 {
            assert!(!seen[at], "line {at} visited twice");
            seen[at] = true;
            at = chain.lines[at].next;
        }
        assert_eq!(at, 0, "the walk returns to its start");
        assert!(seen.iter().all(|&s| s));
    }

    #[test]
    fn the_sweep_gives_finite_positive_figures() {
        let points = sweep(&[4, 64], 2, || {}).unwrap();
        assert_eq!(points.len(), 2);
        for p in points {
            assert!(p.ns_per_access_after_switch.is_finite() && p.ns_per_access_after_switch > 0.0);
            assert!(p.ns_per_access_no_switch.is_finite() && p.ns_per_access_no_switch > 0.0);
        }
    }
}
