//! Four common claims about context switches, weighed against this run.
//!
//! Articles on asynchronous I/O repeat a story about switches: the register
//! save and restore costs tens to hundreds of cycles; a switch between
//! processes flushes the TLB; the largest cost is indirect, the cache
//! pollution afterwards; and a switch in user space costs a few to a few tens
//! of nanoseconds. Each verdict below is computed from the figures just
//! measured, so a reader's machine may well disagree with ours.

use crate::cache_pollution::SweepPoint;
use crate::cpu_features::CpuFeatures;

/// The figures the verdicts need, all in nanoseconds.
#[derive(Debug, Clone)]
pub struct Figures {
    /// A trivial system call.
    pub syscall_ns: f64,
    /// Thread hand-off on one CPU (futex).
    pub thread_switch_ns: f64,
    /// Process hand-off on one CPU (futex).
    pub process_switch_ns: f64,
    /// The hand-written fiber switch.
    pub green_switch_ns: f64,
    /// Resuming a future.
    pub future_resume_ns: f64,
    /// The cache sweep.
    pub sweep: Vec<SweepPoint>,
    /// The last-level cache, in KiB, if known.
    pub llc_kib: Option<u64>,
    /// PCID, KPTI and the clock.
    pub cpu: CpuFeatures,
}

/// How a claim fared.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// The figures support it.
    Holds,
    /// Part of it holds; the sentence says which part.
    Partly,
    /// The figures contradict it.
    DoesNotHold,
}

impl Outcome {
    /// "holds", "partly holds", "does not hold".
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Holds => "holds",
            Outcome::Partly => "partly holds",
            Outcome::DoesNotHold => "does not hold",
        }
    }
}

/// One claim and its verdict.
#[derive(Debug, Clone)]
pub struct Verdict {
    /// The claim, as usually stated.
    pub claim: &'static str,
    /// The verdict.
    pub outcome: Outcome,
    /// One sentence with the figures behind it.
    pub evidence: String,
}

fn cycles(cpu: &CpuFeatures, ns: f64) -> String {
    match cpu.cycles(ns) {
        Some(c) => format!("{c:.0} cycles"),
        None => format!("{ns:.1} ns"),
    }
}

/// Weighs the four claims.
pub fn judge(f: &Figures) -> Vec<Verdict> {
    let mut verdicts = Vec::new();

    // 1. Registers. Our fiber switch saves and restores only the registers a
    // call must preserve that the code around it still needs (the compiler
    // saves those it chose; the switch itself saves rbp, rbx and its resume
    // address); the kernel saves more (all general registers, the vector
    // state) but its whole switch is the upper bound.
    let green_cycles = f.cpu.cycles(f.green_switch_ns);
    let in_range = green_cycles.is_none_or(|c| (10.0..=1000.0).contains(&c));
    verdicts.push(Verdict {
        claim: "Saving and restoring registers costs tens to hundreds of cycles",
        outcome: if in_range {
            Outcome::Holds
        } else {
            Outcome::Partly
        },
        evidence: format!(
            "saving and restoring the live callee-saved registers and switching stacks took {} \
             ({:.1} ns) in our fiber switch, while a whole kernel switch between threads took {} \
             ({:.0} ns): the register work is a small part of a kernel switch",
            cycles(&f.cpu, f.green_switch_ns),
            f.green_switch_ns,
            cycles(&f.cpu, f.thread_switch_ns),
            f.thread_switch_ns
        ),
    });

    // 2. TLB. With tagged TLBs, a process switch need not flush.
    let extra = f.process_switch_ns - f.thread_switch_ns;
    let extra_pct = 100.0 * extra / f.thread_switch_ns;
    let (outcome, why) = if f.cpu.tagged_tlb && extra_pct < 25.0 {
        (
            Outcome::DoesNotHold,
            "this CPU tags TLB entries by address space (PCID), so Linux switches page tables \
             without flushing the TLB",
        )
    } else if f.cpu.tagged_tlb {
        (
            Outcome::Partly,
            "this CPU has PCID, so the TLB is not flushed, yet switching address spaces still \
             costs noticeably more",
        )
    } else {
        (
            Outcome::Holds,
            "this CPU does not tag TLB entries, so a switch of address space flushes them",
        )
    };
    verdicts.push(Verdict {
        claim: "A switch between processes flushes the TLB, which makes it much dearer",
        outcome,
        evidence: format!(
            "{why}; a process switch took {:.0} ns against {:.0} ns between threads ({extra_pct:+.0}%)",
            f.process_switch_ns, f.thread_switch_ns
        ),
    });

    // 3. Cache pollution: the refill after a switch against the switch
    // itself. Only working sets that fit in the last-level cache twice over
    // say something about pollution; beyond that, even the warm walk misses.
    let fits = |p: &&SweepPoint| f.llc_kib.is_none_or(|llc| 2 * p.working_set_kib <= llc);
    let worst = f
        .sweep
        .iter()
        .filter(fits)
        .max_by(|a, b| a.extra_ns_per_switch().total_cmp(&b.extra_ns_per_switch()));
    let threshold = f
        .sweep
        .iter()
        .filter(fits)
        .find(|p| p.extra_ns_per_switch() > f.thread_switch_ns);
    let smallest = f.sweep.first();
    const CLAIM_3: &str = "The biggest cost of a switch is indirect: the caches are polluted";
    let verdict = match (worst, smallest) {
        (Some(worst), Some(smallest)) => {
            let ratio = worst.extra_ns_per_switch() / f.thread_switch_ns;
            let from = match threshold {
                Some(p) => format!(
                    "from a {} KiB working set up, refilling the caches after a switch cost more \
                     than the {:.1} µs switch itself",
                    p.working_set_kib,
                    f.thread_switch_ns / 1e3
                ),
                None => format!(
                    "for no working set did the refill cost more than the {:.1} µs switch",
                    f.thread_switch_ns / 1e3
                ),
            };
            Verdict {
                claim: CLAIM_3,
                outcome: if threshold.is_some() {
                    Outcome::Holds
                } else {
                    Outcome::DoesNotHold
                },
                evidence: format!(
                    "{from} (at {} KiB, {:.1} µs: {ratio:.0}x), while a thread with a {} KiB working \
                     set paid {:.2} µs: the indirect cost depends on how much data the thread \
                     needs back",
                    worst.working_set_kib,
                    worst.extra_ns_per_switch() / 1e3,
                    smallest.working_set_kib,
                    smallest.extra_ns_per_switch() / 1e3
                ),
            }
        }
        _ => Verdict {
            claim: CLAIM_3,
            outcome: Outcome::Partly,
            evidence: "the cache sweep did not run".into(),
        },
    };
    verdicts.push(verdict);

    // 4. User-space switches.
    let fastest = f.green_switch_ns.min(f.future_resume_ns);
    let slowest = f.green_switch_ns.max(f.future_resume_ns);
    verdicts.push(Verdict {
        claim: "A switch in user space costs a few to a few tens of nanoseconds",
        outcome: if slowest <= 50.0 && fastest >= 0.5 {
            Outcome::Holds
        } else if slowest <= 50.0 {
            Outcome::Partly
        } else {
            Outcome::DoesNotHold
        },
        evidence: format!(
            "a fiber switch took {:.1} ns and resuming a future {:.1} ns, {:.0} and {:.0} times \
             less than a thread switch",
            f.green_switch_ns,
            f.future_resume_ns,
            f.thread_switch_ns / f.green_switch_ns,
            f.thread_switch_ns / f.future_resume_ns
        ),
    });
    verdicts
}

#[cfg(test)]
mod tests {
    use super::*;

    fn figures(process_switch_ns: f64, tagged_tlb: bool) -> Figures {
        Figures {
            syscall_ns: 100.0,
            thread_switch_ns: 2000.0,
            process_switch_ns,
            green_switch_ns: 5.0,
            future_resume_ns: 2.0,
            sweep: vec![
                SweepPoint {
                    working_set_kib: 4,
                    ns_per_access_after_switch: 1.0,
                    ns_per_access_no_switch: 1.0,
                },
                SweepPoint {
                    working_set_kib: 1024,
                    ns_per_access_after_switch: 30.0,
                    ns_per_access_no_switch: 5.0,
                },
            ],
            llc_kib: Some(32768),
            cpu: CpuFeatures {
                tagged_tlb,
                meltdown: "Not affected".into(),
                mhz: Some(2000.0),
            },
        }
    }

    #[test]
    fn four_claims_are_judged() {
        let verdicts = judge(&figures(2100.0, true));
        assert_eq!(verdicts.len(), 4);
        // 5 ns at 2 GHz is 10 cycles: inside "tens to hundreds".
        assert_eq!(verdicts[0].outcome, Outcome::Holds);
        // PCID and +5%: no flush.
        assert_eq!(verdicts[1].outcome, Outcome::DoesNotHold);
        // 16,384 lines x 25 ns = 410 µs against a 2 µs switch.
        assert_eq!(verdicts[2].outcome, Outcome::Holds);
        assert!(
            verdicts[2]
                .evidence
                .contains("from a 1024 KiB working set up")
        );
        assert_eq!(verdicts[3].outcome, Outcome::Holds);
    }

    #[test]
    fn sets_too_big_for_the_last_level_cache_are_left_out() {
        let mut f = figures(2100.0, true);
        f.llc_kib = Some(1024); // 2 x 1024 KiB does not fit
        let verdicts = judge(&f);
        assert_eq!(verdicts[2].outcome, Outcome::DoesNotHold);
    }

    #[test]
    fn without_pcid_the_tlb_claim_holds() {
        let verdicts = judge(&figures(3000.0, false));
        assert_eq!(verdicts[1].outcome, Outcome::Holds);
    }
}
