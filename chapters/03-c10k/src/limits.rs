//! The limits a thread-per-connection server meets before it meets memory.
//!
//! Ten thousand connections on threads need ten thousand of several things
//! the kernel counts and caps:
//!
//! * **file descriptors**: one per socket, capped per process by
//!   `RLIMIT_NOFILE` (`ulimit -n`; a soft limit the process may raise up to
//!   the hard limit, `ulimit -Hn`);
//! * **threads**: one task each, capped per user by `RLIMIT_NPROC`
//!   (`ulimit -u`), machine-wide by `/proc/sys/kernel/threads-max`, and by
//!   the number of process ids, `/proc/sys/kernel/pid_max` (a thread takes
//!   an id like a process does);
//! * **memory mappings**: a Rust thread takes four: its stack and the stack's
//!   guard page (from the C library), and the alternate signal stack Rust
//!   installs to report stack overflows, with its own guard page. A process
//!   may hold at most `/proc/sys/vm/max_map_count` mappings (65,530 by
//!   default), so this caps threads at about 16,000 per process: the limit
//!   this chapter's server meets first;
//! * **ephemeral ports**: every client connection from one source address
//!   takes a port from `/proc/sys/net/ipv4/ip_local_port_range`;
//! * **the accept backlog**: connections the kernel completed but the server
//!   has not accepted yet, capped by `/proc/sys/net/core/somaxconn`.
//!
//! [`raise_fd_limit`] lifts our own soft `RLIMIT_NOFILE` to the hard limit,
//! as every server and load generator in this book does at start-up, and
//! [`SystemLimits`] reads the rest for the reader.

use std::fs;
use std::io;

/// Memory mappings per Rust thread: stack, stack guard page, signal stack,
/// signal-stack guard page. (Counted in `/proc/<pid>/maps`: 1,000 threads add
/// about 4,000 lines.)
pub const MAPPINGS_PER_THREAD: u64 = 4;

/// Raises this process's soft open-file limit to its hard limit and returns
/// the new limit.
pub fn raise_fd_limit() -> io::Result<u64> {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: `limit` is a valid, writable rlimit.
    if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) } != 0 {
        return Err(io::Error::last_os_error());
    }
    if limit.rlim_cur < limit.rlim_max {
        limit.rlim_cur = limit.rlim_max;
        // SAFETY: `limit` is a valid rlimit; raising the soft limit up to
        // the hard limit needs no privilege.
        if unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &limit) } != 0 {
            return Err(io::Error::last_os_error());
        }
    }
    Ok(limit.rlim_cur)
}

/// Lowers (or raises, up to the hard limit) this process's soft open-file
/// limit to `limit`. Chapter 4's server uses it to run out of descriptors
/// on purpose.
pub fn set_fd_limit(limit: u64) -> io::Result<()> {
    let mut current = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: `current` is a valid, writable rlimit.
    if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut current) } != 0 {
        return Err(io::Error::last_os_error());
    }
    current.rlim_cur = limit.min(current.rlim_max);
    // SAFETY: `current` is a valid rlimit with the soft limit at most the hard.
    if unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &current) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// The soft and hard limits of `resource`, `None` meaning unlimited.
fn rlimit(resource: libc::__rlimit_resource_t) -> (Option<u64>, Option<u64>) {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: `limit` is a valid, writable rlimit.
    if unsafe { libc::getrlimit(resource, &mut limit) } != 0 {
        return (None, None);
    }
    let finite = |v: libc::rlim_t| (v != libc::RLIM_INFINITY).then_some(v);
    (finite(limit.rlim_cur), finite(limit.rlim_max))
}

fn read_number(path: &str) -> Option<u64> {
    fs::read_to_string(path)
        .ok()?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// The limits of this machine and process that bound a C10K server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SystemLimits {
    /// Open files per process, soft (`ulimit -n`).
    pub nofile_soft: Option<u64>,
    /// Open files per process, hard (`ulimit -Hn`).
    pub nofile_hard: Option<u64>,
    /// Processes and threads per user (`ulimit -u`).
    pub nproc_soft: Option<u64>,
    /// Threads on the machine (`/proc/sys/kernel/threads-max`).
    pub threads_max: Option<u64>,
    /// Process and thread ids (`/proc/sys/kernel/pid_max`).
    pub pid_max: Option<u64>,
    /// Memory mappings per process (`/proc/sys/vm/max_map_count`).
    pub max_map_count: Option<u64>,
    /// Size of the ephemeral port range.
    pub ephemeral_ports: Option<u64>,
    /// Accept backlog cap (`/proc/sys/net/core/somaxconn`).
    pub somaxconn: Option<u64>,
}

impl SystemLimits {
    /// Reads them; a limit that cannot be read is `None`.
    pub fn current() -> SystemLimits {
        let (nofile_soft, nofile_hard) = rlimit(libc::RLIMIT_NOFILE);
        let (nproc_soft, _) = rlimit(libc::RLIMIT_NPROC);
        let ephemeral_ports = fs::read_to_string("/proc/sys/net/ipv4/ip_local_port_range")
            .ok()
            .and_then(|text| {
                let mut parts = text.split_whitespace().map(|p| p.parse::<u64>().ok());
                let (low, high) = (parts.next()??, parts.next()??);
                Some(high.saturating_sub(low) + 1)
            });
        SystemLimits {
            nofile_soft,
            nofile_hard,
            nproc_soft,
            threads_max: read_number("/proc/sys/kernel/threads-max"),
            pid_max: read_number("/proc/sys/kernel/pid_max"),
            max_map_count: read_number("/proc/sys/vm/max_map_count"),
            ephemeral_ports,
            somaxconn: read_number("/proc/sys/net/core/somaxconn"),
        }
    }

    // ANCHOR: thread_ceiling
    /// The most threads this process could hope to start, and which limit
    /// says so: the smallest of the thread limits and of a quarter of the
    /// mapping limit ([`MAPPINGS_PER_THREAD`]).
    pub fn thread_ceiling(&self) -> Option<(u64, &'static str)> {
        [
            (self.nproc_soft, "ulimit -u"),
            (self.threads_max, "kernel.threads-max"),
            (self.pid_max, "kernel.pid_max"),
            (
                self.max_map_count.map(|m| m / MAPPINGS_PER_THREAD),
                "vm.max_map_count / 4",
            ),
        ]
        .into_iter()
        .filter_map(|(value, name)| Some((value?, name)))
        .min_by_key(|&(value, _)| value)
    }
    // ANCHOR_END: thread_ceiling
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_soft_limit_can_be_raised_to_the_hard_one() {
        let raised = raise_fd_limit().unwrap();
        let limits = SystemLimits::current();
        assert_eq!(Some(raised), limits.nofile_soft);
        assert_eq!(limits.nofile_soft, limits.nofile_hard);
    }

    #[test]
    fn a_thread_takes_four_mappings() {
        let maps = || {
            std::fs::read_to_string("/proc/self/maps")
                .unwrap()
                .lines()
                .count()
        };
        let gate = std::sync::Arc::new(std::sync::Barrier::new(101));
        let before = maps();
        let threads: Vec<_> = (0..100)
            .map(|_| {
                let gate = std::sync::Arc::clone(&gate);
                std::thread::spawn(move || {
                    gate.wait();
                    gate.wait();
                })
            })
            .collect();
        gate.wait();
        let during = maps();
        gate.wait();
        for t in threads {
            t.join().unwrap();
        }
        // Other tests' threads come and go meanwhile: allow some slack.
        let per_thread = (during as f64 - before as f64) / 100.0;
        assert!(
            (3.0..=5.0).contains(&per_thread),
            "{per_thread} mappings per thread"
        );
    }

    #[test]
    fn the_thread_ceiling_is_the_smallest_limit() {
        let limits = SystemLimits {
            nofile_soft: None,
            nofile_hard: None,
            nproc_soft: Some(50_000),
            threads_max: Some(190_000),
            pid_max: Some(32_768),
            max_map_count: Some(65_530),
            ephemeral_ports: Some(28_232),
            somaxconn: Some(4096),
        };
        assert_eq!(
            limits.thread_ceiling(),
            Some((16_382, "vm.max_map_count / 4"))
        );
    }
}
