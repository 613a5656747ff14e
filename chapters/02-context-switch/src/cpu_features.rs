//! What the CPU and kernel do that changes the price of a switch.
//!
//! * **PCID** (process-context identifiers, x86_64; aarch64 has the
//!   equivalent ASIDs): TLB entries are tagged with the address space they
//!   belong to, so switching address spaces need not flush the TLB. Linux
//!   uses PCID whenever the CPU has it.
//! * **Meltdown mitigation (KPTI)**: on CPUs affected by Meltdown the kernel
//!   keeps its memory out of the user page tables and switches page tables on
//!   every system call, which makes each kernel entry dearer. The kernel
//!   reports it in `/sys/devices/system/cpu/vulnerabilities/meltdown`.
//! * The clock: with its frequency we can turn nanoseconds into cycles, the
//!   unit the classic claims are stated in. `/proc/cpuinfo` reports the
//!   current (on a virtual machine usually the nominal) frequency.

use std::fs;

/// The CPU facts this chapter reports.
#[derive(Debug, Clone, PartialEq)]
pub struct CpuFeatures {
    /// The CPU tags TLB entries by address space: `pcid` on x86_64, and
    /// always on aarch64 (ASIDs are part of the architecture).
    pub tagged_tlb: bool,
    /// The kernel's Meltdown status line, e.g. "Not affected" or
    /// "Mitigation: PTI".
    pub meltdown: String,
    /// Clock frequency in MHz, if the kernel reports one.
    pub mhz: Option<f64>,
}

impl CpuFeatures {
    /// Reads them from `/proc` and `/sys`; unknown facts are reported as such.
    pub fn current() -> CpuFeatures {
        let cpuinfo = fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
        CpuFeatures {
            tagged_tlb: cfg!(target_arch = "aarch64") || has_flag(&cpuinfo, "pcid"),
            meltdown: fs::read_to_string("/sys/devices/system/cpu/vulnerabilities/meltdown")
                .map(|s| s.trim().to_string())
                .unwrap_or_else(|_| "unknown".into()),
            mhz: cpuinfo
                .lines()
                .find_map(|line| line.strip_prefix("cpu MHz"))
                .and_then(|rest| rest.split(':').nth(1)?.trim().parse().ok()),
        }
    }

    /// Converts nanoseconds to cycles at the reported clock.
    pub fn cycles(&self, ns: f64) -> Option<f64> {
        self.mhz.map(|mhz| ns * mhz / 1000.0)
    }
}

/// Whether the first `flags` line of a cpuinfo text lists `flag`.
pub fn has_flag(cpuinfo: &str, flag: &str) -> bool {
    cpuinfo
        .lines()
        .find(|line| line.starts_with("flags"))
        .is_some_and(|line| line.split_whitespace().any(|f| f == flag))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_match_whole_words() {
        let text = "processor: 0\nflags\t\t: fpu invpcid sse2\n";
        assert!(!has_flag(text, "pcid"));
        assert!(has_flag(text, "invpcid"));
        assert!(has_flag(text, "sse2"));
    }

    #[test]
    fn cycles_follow_the_clock() {
        let cpu = CpuFeatures {
            tagged_tlb: true,
            meltdown: String::new(),
            mhz: Some(2000.0),
        };
        assert_eq!(cpu.cycles(10.0), Some(20.0));
    }
}
