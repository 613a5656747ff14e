//! Exercise ch01_fork_wait: fork a child, reap it, and read how it ended.
//!
//! Chapter 1 times `fork` + `waitpid`: the classic way to get a second
//! flow of control before threads. `fork(2)` returns twice: -1 on failure,
//! 0 in the child, and the child's pid in the parent. The parent then
//! *reaps* the child with `waitpid(2)`, which fills a C `int`, the *wait
//! status*, saying how the child ended: it exited with a code (0 to 255),
//! or a signal killed it. Decode it with `libc::WIFEXITED`,
//! `libc::WEXITSTATUS`, `libc::WIFSIGNALED` and `libc::WTERMSIG`; the raw
//! number is not the exit code (a child that exits with 3 gives 768).
//!
//! After `fork` in a process with threads (a test binary has several), the
//! child has only the thread that called `fork`, and a lock another thread
//! held stays locked forever. So the child may call only
//! *async-signal-safe* functions: no allocation, no `println!`, no
//! `std::process::exit` (it runs exit handlers). `libc::_exit`,
//! `libc::kill` and `libc::getpid` are safe.
//!
//! Write, with the `libc` crate (every `unsafe` block needs a `// SAFETY:`
//! comment saying why it is sound):
//!
//! * [`decode`]: a wait status as an [`Ended`], or `None` for a status that
//!   says neither "exited" nor "killed" (a stopped child, say);
//! * [`reap`]: wait for the child `pid` with `waitpid(pid, &mut status, 0)`,
//!   never `-1` (that reaps *any* child, perhaps another thread's). A call
//!   interrupted by a signal (`ErrorKind::Interrupted`) is retried; any
//!   other failure is returned (`io::Error::last_os_error()`), for instance
//!   `ECHILD` for a pid that is not our child. A status that [`decode`]
//!   cannot read is an `io::ErrorKind::Other` error.
//! * [`run_child`]: fork; in the child do what [`Child`] says and nothing
//!   else (for `Signal`, send the signal to yourself with `kill(getpid(),
//!   sig)`, and `_exit(127)` in case it did not kill you); in the parent,
//!   [`reap`] the child. A failed `fork` is `io::Error::last_os_error()`.
//!
//! Check: `cargo run -p exercises -- check ch01_fork_wait`. Hint:
//! `cargo run -p exercises -- hint ch01_fork_wait`.

use std::io;

/// What the child does, and nothing else.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Child {
    /// Exit at once with this code (`libc::_exit`).
    Exit(u8),
    /// Send itself this signal (`libc::kill(libc::getpid(), sig)`).
    Signal(libc::c_int),
}

/// How a child ended, from its wait status.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ended {
    /// It exited with this code.
    Exited(u8),
    /// This signal killed it.
    Killed(libc::c_int),
}

/// The wait status as an [`Ended`]; `None` if it is neither.
pub fn decode(status: libc::c_int) -> Option<Ended> {
    todo!("WIFEXITED / WEXITSTATUS, WIFSIGNALED / WTERMSIG on {status:#x}")
}

/// Waits for the child `pid` and returns how it ended.
pub fn reap(pid: libc::pid_t) -> io::Result<Ended> {
    todo!("waitpid({pid}), retrying Interrupted")
}

/// Forks a child that does `what`, reaps it, and returns how it ended.
pub fn run_child(what: Child) -> io::Result<Ended> {
    todo!("fork; the child does {what:?}; the parent reaps it")
}
