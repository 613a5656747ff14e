//! Near miss of ch01_fork_wait: `decode` takes `status & 0xff` as the
//! signal instead of `WTERMSIG`, the low seven bits. The eighth bit (0x80)
//! says a core was dumped, so a child killed by SIGABRT with a core dump
//! reads as signal 134; the tests must catch it
//! (`a_signal_status_is_the_signal_even_with_a_core_dump`).

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
    if libc::WIFEXITED(status) {
        Some(Ended::Exited(libc::WEXITSTATUS(status) as u8))
    } else if libc::WIFSIGNALED(status) {
        Some(Ended::Killed(status & 0xff))
    } else {
        None
    }
}

/// Waits for the child `pid` and returns how it ended.
pub fn reap(pid: libc::pid_t) -> io::Result<Ended> {
    let mut status: libc::c_int = 0;
    loop {
        // SAFETY: `status` is a valid, writable c_int for the whole call;
        // waitpid has no other memory-safety requirement.
        let rc = unsafe { libc::waitpid(pid, &mut status, 0) };
        if rc == pid {
            return decode(status).ok_or_else(|| {
                io::Error::other(format!("child {pid}: unexpected wait status {status:#x}"))
            });
        }
        let err = io::Error::last_os_error();
        if err.kind() != io::ErrorKind::Interrupted {
            return Err(err);
        }
    }
}

/// Forks a child that does `what`, reaps it, and returns how it ended.
pub fn run_child(what: Child) -> io::Result<Ended> {
    // SAFETY: fork has no memory-safety preconditions. The child of this
    // multi-threaded process calls only async-signal-safe functions below.
    let pid = unsafe { libc::fork() };
    match pid {
        -1 => Err(io::Error::last_os_error()),
        0 => {
            if let Child::Signal(sig) = what {
                // SAFETY: getpid and kill are async-signal-safe and take no
                // pointers.
                unsafe { libc::kill(libc::getpid(), sig) };
            }
            let code = match what {
                Child::Exit(code) => libc::c_int::from(code),
                Child::Signal(_) => 127,
            };
            // SAFETY: `_exit` is async-signal-safe; it ends the child at once,
            // running no exit handlers and flushing no buffers copied from
            // the parent.
            unsafe { libc::_exit(code) }
        }
        child => reap(child),
    }
}
