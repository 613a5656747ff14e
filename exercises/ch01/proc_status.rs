//! Exercise ch01_proc_status: read a process's memory from `/proc`.
//!
//! Chapter 1 measures memory by reading `/proc/self/status`, a text file with
//! one `Name:<whitespace>value` line per field, for example:
//!
//! ```text
//! Name:   chapter-01
//! VmSize:    18000 kB
//! VmRSS:      4000 kB
//! Threads:    3
//! ```
//!
//! Write [`parse_memory`], which finds three fields in such a text. The
//! rules, each checked by a test (`cargo run -p exercises -- check
//! ch01_proc_status`):
//!
//! * fields may appear in any order, and other fields are ignored;
//! * a field's name must match exactly: `VmRSS` is not `VmRSSX`;
//! * `VmSize` and `VmRSS` carry the unit `kB` (which the kernel uses for KiB)
//!   and anything else is [`ParseError::Malformed`]; `Threads` has no unit;
//! * a missing field is [`ParseError::Missing`] with the field's name (kernel
//!   threads, for instance, have no `VmRSS`);
//! * a value that is not a whole number is [`ParseError::Malformed`].
//!
//! Run `cargo run -p exercises -- hint ch01_proc_status` if you are stuck.

/// The memory figures of one process.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Memory {
    /// Virtual memory (`VmSize`), in KiB.
    pub size_kib: u64,
    /// Resident memory (`VmRSS`), in KiB.
    pub rss_kib: u64,
    /// Number of threads (`Threads`).
    pub threads: u64,
}

/// Why a status text could not be parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ParseError {
    /// The field with this name is absent.
    Missing(&'static str),
    /// The field is present but its value (or unit) is not what it should be.
    Malformed {
        /// The field's name.
        field: &'static str,
        /// The whole offending line.
        line: String,
    },
}

/// Finds `VmSize`, `VmRSS` and `Threads` in the text of a
/// `/proc/<pid>/status` file.
pub fn parse_memory(status: &str) -> Result<Memory, ParseError> {
    todo!("parse {} bytes of status text", status.len())
}
