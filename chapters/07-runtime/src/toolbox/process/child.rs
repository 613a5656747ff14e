//! [`Child`]: a running program, its exit awaited through a pidfd on the
//! I/O driver.
//!
//! A `Child` is in one of two states. While the program has not been
//! reaped, a [`Process`] holds the `std` child (its pid, and `waitpid`
//! through `try_wait`), the way its exit is watched, and the
//! `kill_on_drop` flag. Once a wait has collected the exit status, the
//! `Process` is dropped and only the [`ExitStatus`] stays, so `id()` says
//! `None` (the pid may already belong to another program) and every later
//! wait returns the same status.
//!
//! The exit is watched with a *pidfd* (`pidfd_open(2)`, Linux 5.3): a
//! descriptor that refers to this one process (never to a later process
//! that reuses its pid) and becomes readable when it exits. It is
//! registered for reading like a pipe, and a wait is the driver's usual
//! loop: ready, try (`try_wait`, a `waitpid(WNOHANG)`), and if the program
//! has not exited after all, clear and wait again. Without `pidfd_open`
//! (an older kernel), or if the pidfd's runtime has shut down, a wait asks
//! `try_wait` on a timer instead.
//!
//! Dropping a `Process` that has not been reaped kills the program if
//! `kill_on_drop` is set, then gives the `std` child to the background
//! reaper (`reaper.rs`) unless it has already exited.

use super::pipes::{ChildStderr, ChildStdin, ChildStdout};
use super::reaper;
use crate::io::AsyncReadExt;
use crate::io_driver::registered_source::RegisteredSource;
use crate::io_driver::scheduled_io::Direction;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::process::{ExitStatus, Output};
use std::time::Duration;

/// A program started by [`Command::spawn`](super::Command::spawn).
///
/// Dropping it does not stop the program (unless the command set
/// [`kill_on_drop`](super::Command::kill_on_drop)); the program is reaped
/// in the background once it exits, on a best-effort basis (see the module
/// documentation). Take a stream out with `child.stdout.take()` to use it
/// while still calling methods on the `Child`.
#[derive(Debug)]
pub struct Child {
    state: State,
    /// The child's stdin, if it was piped: write to it, drop it to close it.
    /// [`wait`](Child::wait) drops it first.
    pub stdin: Option<ChildStdin>,
    /// The child's stdout, if it was piped.
    pub stdout: Option<ChildStdout>,
    /// The child's stderr, if it was piped.
    pub stderr: Option<ChildStderr>,
}

#[derive(Debug)]
enum State {
    /// Not reaped yet.
    Running(Process),
    /// Reaped, with this status.
    Done(ExitStatus),
}

/// A program not reaped yet.
#[derive(Debug)]
struct Process {
    /// `Some` until `drop` hands it to the reaper.
    std: Option<std::process::Child>,
    exit: ExitWatch,
    kill_on_drop: bool,
}

/// How a wait learns that the program has exited.
#[derive(Debug)]
enum ExitWatch {
    /// Its pidfd, readable once it has exited.
    Pidfd(RegisteredSource<Pidfd>),
    /// `try_wait` on a timer.
    Polling,
}

/// The owner of a pidfd, which the driver watches through its number.
#[derive(Debug)]
pub(super) struct Pidfd(OwnedFd);

impl Pidfd {
    /// A pidfd for `pid`, which must be a child of this process not reaped
    /// yet (so the number is still its own); `None` if the kernel has no
    /// `pidfd_open` or refuses (out of descriptors).
    pub(super) fn open(pid: u32) -> Option<Pidfd> {
        let pid = libc::pid_t::try_from(pid).ok()?;
        // SAFETY: pidfd_open takes a pid and a flags word and touches no
        // memory of ours; it returns a new descriptor or -1.
        let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) };
        let fd = RawFd::try_from(fd).ok().filter(|&fd| fd >= 0)?;
        // SAFETY: `fd` was just returned by pidfd_open, so it is an open
        // descriptor that nothing else owns.
        Some(Pidfd(unsafe { OwnedFd::from_raw_fd(fd) }))
    }
}

impl mio::event::Source for Pidfd {
    fn register(
        &mut self,
        registry: &mio::Registry,
        token: mio::Token,
        interest: mio::Interest,
    ) -> io::Result<()> {
        mio::unix::SourceFd(&self.0.as_raw_fd()).register(registry, token, interest)
    }

    fn reregister(
        &mut self,
        registry: &mio::Registry,
        token: mio::Token,
        interest: mio::Interest,
    ) -> io::Result<()> {
        mio::unix::SourceFd(&self.0.as_raw_fd()).reregister(registry, token, interest)
    }

    fn deregister(&mut self, registry: &mio::Registry) -> io::Result<()> {
        mio::unix::SourceFd(&self.0.as_raw_fd()).deregister(registry)
    }
}

/// The first and the longest pause between two `try_wait`s of a wait
/// without a pidfd.
const FIRST_POLL: Duration = Duration::from_millis(1);
const LONGEST_POLL: Duration = Duration::from_millis(100);

impl Process {
    fn std(&mut self) -> &mut std::process::Child {
        self.std
            .as_mut()
            .expect("the std child is there until drop")
    }

    // ANCHOR: process_wait
    /// Waits until the program has exited and reaps it.
    async fn wait(&mut self) -> io::Result<ExitStatus> {
        if let ExitWatch::Pidfd(pidfd) = &self.exit {
            let std = self
                .std
                .as_mut()
                .expect("the std child is there until drop");
            // `try_wait`'s own error is the wait's; an error of the driver
            // (its runtime has shut down) sends us to the timer below.
            let reaped = pidfd
                .async_io(Direction::Read, |_| match std.try_wait() {
                    Ok(Some(status)) => Ok(Ok(status)),
                    Ok(None) => Err(io::ErrorKind::WouldBlock.into()),
                    Err(error) => Ok(Err(error)),
                })
                .await;
            match reaped {
                Ok(result) => return result,
                Err(_) => self.exit = ExitWatch::Polling,
            }
        }
        let mut pause = FIRST_POLL;
        loop {
            if let Some(status) = self.std().try_wait()? {
                return Ok(status);
            }
            crate::time::sleep(pause).await;
            pause = (pause * 2).min(LONGEST_POLL);
        }
    }
    // ANCHOR_END: process_wait
}

impl Drop for Process {
    fn drop(&mut self) {
        let Some(mut std) = self.std.take() else {
            return;
        };
        if let Ok(Some(_)) = std.try_wait() {
            return;
        }
        if self.kill_on_drop {
            // Not reaped, so the pid is still this program's.
            let _ = std.kill();
        }
        reaper::adopt(std);
    }
}

impl Child {
    /// A `Child` for a program `std` has just started: its piped streams
    /// and its pidfd go on the current runtime's driver.
    pub(super) fn from_std(mut std: std::process::Child, kill_on_drop: bool) -> io::Result<Child> {
        let stdin = std.stdin.take();
        let stdout = std.stdout.take();
        let stderr = std.stderr.take();
        let exit = match Pidfd::open(std.id()) {
            Some(pidfd) => {
                RegisteredSource::new(pidfd, mio::Interest::READABLE).map(ExitWatch::Pidfd)
            }
            None => Ok(ExitWatch::Polling),
        };
        // From here on, an error drops the `Process`, which kills the
        // program if asked to and leaves it to the reaper.
        let process = Process {
            std: Some(std),
            exit: ExitWatch::Polling,
            kill_on_drop,
        };
        let mut child = Child {
            state: State::Running(process),
            stdin: None,
            stdout: None,
            stderr: None,
        };
        if let State::Running(process) = &mut child.state {
            process.exit = exit?;
        }
        child.stdin = stdin.map(ChildStdin::from_std).transpose()?;
        child.stdout = stdout.map(ChildStdout::from_std).transpose()?;
        child.stderr = stderr.map(ChildStderr::from_std).transpose()?;
        Ok(child)
    }

    /// The program's pid while it has not been reaped; `None` once a wait
    /// has collected its status (the number may then belong to another
    /// program).
    pub fn id(&self) -> Option<u32> {
        match &self.state {
            State::Running(process) => process.std.as_ref().map(std::process::Child::id),
            State::Done(_) => None,
        }
    }

    /// Sends `SIGKILL` to the program and returns without waiting for it to
    /// die; it still has to be reaped ([`wait`](Child::wait),
    /// [`try_wait`](Child::try_wait)). Does nothing once it has been reaped.
    pub fn start_kill(&mut self) -> io::Result<()> {
        match &mut self.state {
            State::Running(process) => process.std().kill(),
            State::Done(_) => Ok(()),
        }
    }

    /// Sends `SIGKILL` and waits for the program to exit, reaping it
    /// ([`start_kill`](Child::start_kill) then [`wait`](Child::wait)).
    /// Unlike `std`'s `kill`, this waits.
    pub async fn kill(&mut self) -> io::Result<()> {
        self.start_kill()?;
        self.wait().await?;
        Ok(())
    }

    /// Waits for the program to exit, reaps it and returns its status; once
    /// it has, every later call returns the same status at once.
    ///
    /// Drops [`stdin`](Child::stdin) first, so a program that reads its
    /// input to the end (`cat`) sees end of file instead of waiting for
    /// input while we wait for it; take `stdin` out beforehand to keep it
    /// open.
    ///
    /// Cancel safe: a wait dropped half way loses nothing, and the next one
    /// picks up where it left off.
    pub async fn wait(&mut self) -> io::Result<ExitStatus> {
        drop(self.stdin.take());
        let status = match &mut self.state {
            State::Done(status) => return Ok(*status),
            State::Running(process) => process.wait().await?,
        };
        self.reaped(status);
        Ok(status)
    }

    /// The program's status if it has exited (reaping it), `None` if it is
    /// still running; never waits, and does not arrange a wake-up. Unlike
    /// [`wait`](Child::wait), it leaves stdin open.
    pub fn try_wait(&mut self) -> io::Result<Option<ExitStatus>> {
        let status = match &mut self.state {
            State::Done(status) => return Ok(Some(*status)),
            State::Running(process) => process.std().try_wait()?,
        };
        if let Some(status) = status {
            self.reaped(status);
        }
        Ok(status)
    }

    /// The program was reaped with `status`: its `Process` goes (nothing
    /// left to kill, watch or adopt).
    fn reaped(&mut self, status: ExitStatus) {
        if let State::Running(process) = &mut self.state {
            process.kill_on_drop = false;
        }
        self.state = State::Done(status);
    }

    /// Waits for the program to exit while reading all of its stdout and
    /// stderr (those that were piped; the others come back empty), and
    /// returns the three. Drops stdin first, as [`wait`](Child::wait).
    ///
    /// Set `Stdio::piped()` for stdout and stderr on the command to collect
    /// them; [`Command::output`](super::Command::output) does.
    pub async fn wait_with_output(mut self) -> io::Result<Output> {
        async fn read_all<R: crate::io::AsyncRead + Unpin>(
            stream: &mut Option<R>,
        ) -> io::Result<Vec<u8>> {
            let mut bytes = Vec::new();
            if let Some(stream) = stream {
                stream.read_to_end(&mut bytes).await?;
            }
            Ok(bytes)
        }

        let mut stdout = self.stdout.take();
        let mut stderr = self.stderr.take();
        let (status, stdout_bytes, stderr_bytes) =
            futures::future::try_join3(self.wait(), read_all(&mut stdout), read_all(&mut stderr))
                .await?;
        Ok(Output {
            status,
            stdout: stdout_bytes,
            stderr: stderr_bytes,
        })
    }
}
