//! Which machine a figure was measured on.
//!
//! Every table in the book names its machine, because a context switch on a
//! laptop and on a cloud VM differ by an order of magnitude. The binaries
//! print the same description with their results, so a reader's own run is
//! labelled too.

use std::fs;

/// The facts about this machine that explain its figures.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Machine {
    /// CPU model name (`/proc/cpuinfo`).
    pub cpu: String,
    /// Logical CPUs this process may run on.
    pub logical_cpus: usize,
    /// Kernel release (`/proc/sys/kernel/osrelease`).
    pub kernel: String,
    /// Installed memory, in MiB (`/proc/meminfo`).
    pub memory_mib: u64,
}

impl Machine {
    /// Describes the machine we run on; fields that cannot be read say
    /// "unknown" (or 0) rather than failing the experiment.
    pub fn current() -> Machine {
        let cpu = fs::read_to_string("/proc/cpuinfo")
            .ok()
            .and_then(|text| {
                text.lines()
                    .find(|line| line.starts_with("model name"))
                    .and_then(|line| line.split_once(':'))
                    .map(|(_, name)| name.trim().to_string())
            })
            .unwrap_or_else(|| "unknown CPU".into());
        let kernel = fs::read_to_string("/proc/sys/kernel/osrelease")
            .map(|s| s.trim().to_string())
            .unwrap_or_else(|_| "unknown".into());
        let memory_mib = fs::read_to_string("/proc/meminfo")
            .ok()
            .and_then(|text| {
                text.lines()
                    .find_map(|line| line.strip_prefix("MemTotal:"))
                    .and_then(|rest| rest.split_whitespace().next()?.parse::<u64>().ok())
            })
            .map_or(0, |kib| kib / 1024);
        let logical_cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
        Machine {
            cpu,
            logical_cpus,
            kernel,
            memory_mib,
        }
    }

    /// One line: "AMD EPYC, 2 logical CPUs, 23.5 GiB, Linux 6.18.44".
    pub fn describe(&self) -> String {
        format!(
            "{}, {} logical CPU{}, {:.1} GiB, Linux {}",
            self.cpu,
            self.logical_cpus,
            if self.logical_cpus == 1 { "" } else { "s" },
            self.memory_mib as f64 / 1024.0,
            self.kernel
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn describes_this_machine() {
        let machine = Machine::current();
        assert!(machine.logical_cpus >= 1);
        assert!(machine.describe().contains("logical CPU"));
    }
}
