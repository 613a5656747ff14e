//! Reference solution for ch01_proc_status.
//!
//! One helper finds a field's line by exact name (strip the name, then
//! require the colon right after it) and splits the rest into the number and
//! the optional unit. Everything else is checking the pieces.

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
    Ok(Memory {
        size_kib: field(status, "VmSize", Some("kB"))?,
        rss_kib: field(status, "VmRSS", Some("kB"))?,
        threads: field(status, "Threads", None)?,
    })
}

/// The value of field `name`, which must be followed by exactly `unit`.
fn field(status: &str, name: &'static str, unit: Option<&str>) -> Result<u64, ParseError> {
    let line = status
        .lines()
        .find(|line| {
            line.strip_prefix(name)
                .is_some_and(|rest| rest.starts_with(':'))
        })
        .ok_or(ParseError::Missing(name))?;
    let malformed = || ParseError::Malformed {
        field: name,
        line: line.to_string(),
    };
    let mut words = line[name.len() + 1..].split_whitespace();
    let value = words
        .next()
        .and_then(|v| v.parse().ok())
        .ok_or_else(malformed)?;
    if words.next() != unit || words.next().is_some() {
        return Err(malformed());
    }
    Ok(value)
}
