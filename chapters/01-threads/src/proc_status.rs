//! Reading what the kernel knows about a process: `/proc/<pid>/status`.
//!
//! Linux keeps a process control block (`struct task_struct`) for every
//! thread, and `/proc/<pid>/status` prints a part of it as text, one
//! `Name:\tvalue` line per field:
//!
//! ```text
//! VmSize:    12345 kB     virtual memory: every mapping, touched or not
//! VmRSS:      2345 kB     resident: pages really in RAM right now
//! Threads:       3        threads in the process
//! voluntary_ctxt_switches:       17    the thread gave up the CPU (blocked)
//! nonvoluntary_ctxt_switches:     2    the scheduler took the CPU away
//! ```
//!
//! The memory experiments of Chapters 1 and 3 compare these figures before and
//! after creating threads or connections; the C10K harness of Chapter 3 reads
//! a child server's file the same way. (The kernel writes "kB" but means
//! KiB, 1024 bytes.)
//!
//! One trap: the two switch counters in `/proc/<pid>/status` belong to the
//! process's *main thread* only. A thread-per-connection server does its work
//! on other threads, so [`ProcStatus::of_pid`] sums the counters of every
//! thread in `/proc/<pid>/task/*/status` instead. Threads that have already
//! exited are not counted, so sample while the threads of interest live.

use std::fmt;
use std::fs;
use std::io;

/// The fields of `/proc/<pid>/status` this book uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ProcStatus {
    /// Virtual memory size, in KiB (`VmSize`).
    pub vm_size_kib: u64,
    /// Resident set size, in KiB (`VmRSS`).
    pub vm_rss_kib: u64,
    /// Peak resident set size, in KiB (`VmHWM`).
    pub vm_hwm_kib: u64,
    /// Page tables, in KiB (`VmPTE`): kernel memory, outside `VmRSS`.
    pub vm_pte_kib: u64,
    /// Number of threads (`Threads`).
    pub threads: u64,
    /// Context switches where a thread blocked and gave the CPU up, summed over
    /// the threads still alive (`voluntary_ctxt_switches`).
    pub voluntary_switches: u64,
    /// Context switches where the scheduler preempted a runnable thread
    /// (`nonvoluntary_ctxt_switches`).
    pub involuntary_switches: u64,
}

/// What went wrong reading a status file.
#[derive(Debug)]
pub enum StatusError {
    /// The file could not be read (the process is gone, or this is not Linux).
    Io(io::Error),
    /// A field this book needs is absent or not a number.
    Field(&'static str),
}

impl fmt::Display for StatusError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StatusError::Io(err) => write!(f, "cannot read process status: {err}"),
            StatusError::Field(name) => write!(f, "process status has no usable {name} field"),
        }
    }
}

impl std::error::Error for StatusError {}

impl From<io::Error> for StatusError {
    fn from(err: io::Error) -> StatusError {
        StatusError::Io(err)
    }
}

impl ProcStatus {
    /// Reads this process's status, with switches summed over its threads.
    pub fn current() -> Result<ProcStatus, StatusError> {
        ProcStatus::read("/proc/self")
    }

    /// Reads the status of process `pid`, with switches summed over its
    /// threads.
    pub fn of_pid(pid: u32) -> Result<ProcStatus, StatusError> {
        ProcStatus::read(&format!("/proc/{pid}"))
    }

    // ANCHOR: per_thread
    fn read(proc_dir: &str) -> Result<ProcStatus, StatusError> {
        let mut status = ProcStatus::parse(&fs::read_to_string(format!("{proc_dir}/status"))?)?;
        let (mut voluntary, mut involuntary) = (0, 0);
        for entry in fs::read_dir(format!("{proc_dir}/task"))? {
            // A thread may exit between listing and reading: skip it.
            let Ok(text) = fs::read_to_string(entry?.path().join("status")) else {
                continue;
            };
            if let Ok(thread) = ProcStatus::parse_switches(&text) {
                voluntary += thread.0;
                involuntary += thread.1;
            }
        }
        status.voluntary_switches = voluntary;
        status.involuntary_switches = involuntary;
        Ok(status)
    }
    // ANCHOR_END: per_thread

    /// The (voluntary, involuntary) switch counters of one status text.
    fn parse_switches(text: &str) -> Result<(u64, u64), StatusError> {
        Ok((
            field(text, "voluntary_ctxt_switches")?,
            field(text, "nonvoluntary_ctxt_switches")?,
        ))
    }

    /// Parses the text of a status file.
    // ANCHOR: parse_fn
    pub fn parse(text: &str) -> Result<ProcStatus, StatusError> {
        Ok(ProcStatus {
            vm_size_kib: field(text, "VmSize")?,
            vm_rss_kib: field(text, "VmRSS")?,
            vm_hwm_kib: field(text, "VmHWM")?,
            vm_pte_kib: field(text, "VmPTE")?,
            threads: field(text, "Threads")?,
            voluntary_switches: field(text, "voluntary_ctxt_switches")?,
            involuntary_switches: field(text, "nonvoluntary_ctxt_switches")?,
        })
    }
    // ANCHOR_END: parse_fn
}

// ANCHOR: field
/// The first number on the line `name:` of a `/proc` text file.
fn field(text: &str, name: &'static str) -> Result<u64, StatusError> {
    text.lines()
        .find_map(|line| line.strip_prefix(name)?.strip_prefix(':'))
        .and_then(|rest| rest.split_whitespace().next()?.parse().ok())
        .ok_or(StatusError::Field(name))
}
// ANCHOR_END: field

/// Kernel memory used for the kernel-side stacks of every thread on the
/// machine, in KiB (`KernelStack` in `/proc/meminfo`). Each thread has one
/// (16 KiB on x86_64), and it never shows up in the process's own RSS.
pub fn kernel_stack_kib() -> Result<u64, StatusError> {
    field(&fs::read_to_string("/proc/meminfo")?, "KernelStack")
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = "Name:\tchapter-01\nState:\tS (sleeping)\nVmPeak:\t  20000 kB\n\
        VmSize:\t   18000 kB\nVmHWM:\t    4100 kB\nVmRSS:\t    4000 kB\nVmPTE:\t      52 kB\nThreads:\t3\n\
        voluntary_ctxt_switches:\t17\nnonvoluntary_ctxt_switches:\t2\n";

    #[test]
    fn parses_the_fields() {
        let status = ProcStatus::parse(SAMPLE).unwrap();
        assert_eq!(
            status,
            ProcStatus {
                vm_size_kib: 18000,
                vm_rss_kib: 4000,
                vm_hwm_kib: 4100,
                vm_pte_kib: 52,
                threads: 3,
                voluntary_switches: 17,
                involuntary_switches: 2,
            }
        );
    }

    #[test]
    fn a_prefix_is_not_a_field() {
        // "VmSize" must not match "VmSizeX:", and "voluntary" must not match
        // "nonvoluntary".
        let text = SAMPLE.replace("VmSize:", "VmSizeX:");
        assert!(matches!(
            ProcStatus::parse(&text),
            Err(StatusError::Field("VmSize"))
        ));
    }

    #[test]
    fn switches_are_summed_over_threads() {
        // A fake /proc/<pid> directory: the main thread has 17 + 2 switches,
        // a worker thread 100 + 5; the process total is their sum.
        let dir = std::env::temp_dir().join(format!("ch01-proc-{}", std::process::id()));
        let worker = SAMPLE
            .replace(
                "voluntary_ctxt_switches:\t17",
                "voluntary_ctxt_switches:\t100",
            )
            .replace(
                "nonvoluntary_ctxt_switches:\t2",
                "nonvoluntary_ctxt_switches:\t5",
            );
        fs::create_dir_all(dir.join("task/1")).unwrap();
        fs::create_dir_all(dir.join("task/2")).unwrap();
        fs::write(dir.join("status"), SAMPLE).unwrap();
        fs::write(dir.join("task/1/status"), SAMPLE).unwrap();
        fs::write(dir.join("task/2/status"), worker).unwrap();
        let status = ProcStatus::read(dir.to_str().unwrap());
        fs::remove_dir_all(&dir).unwrap();
        let status = status.unwrap();
        assert_eq!(status.voluntary_switches, 117);
        assert_eq!(status.involuntary_switches, 7);
        assert_eq!(status.vm_rss_kib, 4000);
    }

    #[test]
    fn reads_this_process() {
        let status = ProcStatus::current().unwrap();
        assert!(status.threads >= 1);
        assert!(status.vm_rss_kib > 0);
        assert!(status.vm_size_kib >= status.vm_rss_kib);
    }
}
