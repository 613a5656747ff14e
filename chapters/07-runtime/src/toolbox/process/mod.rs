//! Child processes, with Tokio's names (`tokio::process`): a [`Command`]
//! builds and starts a program, a [`Child`] is the running program, and
//! its standard streams, when piped, are [`ChildStdin`] (an `AsyncWrite`),
//! [`ChildStdout`] and [`ChildStderr`] (`AsyncRead`s).
//!
//! ```no_run
//! # async fn run() -> std::io::Result<()> {
//! use rt::process::Command;
//!
//! let out = Command::new("echo").arg("hi").output().await?;
//! assert_eq!(out.stdout, b"hi\n");
//! # Ok(()) }
//! ```
//!
//! Starting the program is `std`'s job: [`Command`] wraps a
//! [`std::process::Command`] and `spawn` calls it (a `fork` and an `exec`,
//! which do not wait on anything worth a task switch). What a runtime adds
//! is waiting without a thread per child, for two things:
//!
//! * **the pipes** (`pipes.rs`): each piped stream is made non-blocking and
//!   registered with the I/O driver, as a socket is, so reading a child's
//!   output parks the task until epoll says there are bytes;
//! * **the exit** (`child.rs`): Linux (5.3 and later) hands out a *pidfd*
//!   for a process, a descriptor that becomes readable when the process
//!   exits. It goes on the I/O driver like a pipe; when it is readable,
//!   `waitpid(pid, WNOHANG)` (through [`std::process::Child::try_wait`])
//!   collects the status and frees the process table entry. A kernel
//!   without `pidfd_open` makes [`Child::wait`] check with `try_wait` on a
//!   timer instead, every few milliseconds at first and at most every
//!   100 ms.
//!
//! Tokio instead counts `SIGCHLD` deliveries and checks its children at
//! each one, with the pidfd as its fast path on Linux; a runtime that runs
//! only on Linux needs only the pidfd.
//!
//! # Zombies and dropped children
//!
//! A Unix process that has exited stays in the process table (a *zombie*)
//! until its parent collects its status. Dropping a [`Child`] does not kill
//! the program (as in `std` and Tokio), unless the command asked for it with
//! [`Command::kill_on_drop`]; either way the program must still be reaped
//! once it exits. A dropped `Child` whose program has not been reaped yet is
//! handed to a single background thread (`reaper.rs`, started the first time
//! it is needed), which watches the orphans' pidfds with an epoll instance
//! of its own and reaps each one when it exits. It belongs to no runtime, so
//! an orphan is reaped even after the runtime that spawned it has shut
//! down. Like Tokio's, this is best effort: if that thread cannot be
//! started, an orphan stays a zombie until this process exits. Awaiting
//! [`Child::wait`] is the way to be sure.
//!
//! # Where rt differs from Tokio
//!
//! Only in the I/O traits, as everywhere in rt (see [`crate::io`]): the
//! streams implement `futures::io::{AsyncRead, AsyncWrite}`, so
//! [`AsyncReadExt`](crate::io::AsyncReadExt) and
//! [`AsyncWriteExt`](crate::io::AsyncWriteExt) give them the same `read`,
//! `read_to_end`, `write_all` methods as Tokio's.
//!
//! Book: Chapter 8, "Writing programs".

mod child;
mod pipes;
mod reaper;

pub use child::Child;
pub use pipes::{ChildStderr, ChildStdin, ChildStdout};

use std::ffi::OsStr;
use std::future::Future;
use std::io;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{ExitStatus, Output, Stdio};

/// A program to run, with its arguments, environment, working directory and
/// standard streams: [`std::process::Command`] with `spawn`, `status` and
/// `output` that return a [`Child`] whose waits are futures.
///
/// As in `std`, a new command inherits this process's environment, working
/// directory and standard streams (but [`output`](Command::output) pipes
/// stdout and stderr), and a program name without a `/` is looked up in
/// `PATH`.
#[derive(Debug)]
pub struct Command {
    std: std::process::Command,
    kill_on_drop: bool,
}

impl Command {
    /// A command that runs `program` with no arguments.
    pub fn new<S: AsRef<OsStr>>(program: S) -> Command {
        Command::from(std::process::Command::new(program))
    }

    /// The `std` command underneath.
    pub fn as_std(&self) -> &std::process::Command {
        &self.std
    }

    /// The `std` command underneath, to set what this type has no method
    /// for.
    pub fn as_std_mut(&mut self) -> &mut std::process::Command {
        &mut self.std
    }

    /// The `std` command underneath, taken out (the
    /// [`kill_on_drop`](Command::kill_on_drop) setting is lost).
    pub fn into_std(self) -> std::process::Command {
        self.std
    }

    /// Adds one argument (passed as is: no shell splits or expands it).
    pub fn arg<S: AsRef<OsStr>>(&mut self, arg: S) -> &mut Command {
        self.std.arg(arg);
        self
    }

    /// Adds several arguments, in order.
    pub fn args<I, S>(&mut self, args: I) -> &mut Command
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        self.std.args(args);
        self
    }

    /// Sets an environment variable for the program.
    pub fn env<K, V>(&mut self, key: K, val: V) -> &mut Command
    where
        K: AsRef<OsStr>,
        V: AsRef<OsStr>,
    {
        self.std.env(key, val);
        self
    }

    /// Sets several environment variables for the program.
    pub fn envs<I, K, V>(&mut self, vars: I) -> &mut Command
    where
        I: IntoIterator<Item = (K, V)>,
        K: AsRef<OsStr>,
        V: AsRef<OsStr>,
    {
        self.std.envs(vars);
        self
    }

    /// Removes a variable from the environment the program gets.
    pub fn env_remove<K: AsRef<OsStr>>(&mut self, key: K) -> &mut Command {
        self.std.env_remove(key);
        self
    }

    /// Starts the program with an empty environment (plus what
    /// [`env`](Command::env) adds afterwards).
    pub fn env_clear(&mut self) -> &mut Command {
        self.std.env_clear();
        self
    }

    /// The working directory of the program.
    pub fn current_dir<P: AsRef<Path>>(&mut self, dir: P) -> &mut Command {
        self.std.current_dir(dir);
        self
    }

    /// The program's standard input: `Stdio::piped()` for a
    /// [`ChildStdin`] in [`Child::stdin`], `Stdio::null()`, or inherited
    /// (the default).
    pub fn stdin<T: Into<Stdio>>(&mut self, cfg: T) -> &mut Command {
        self.std.stdin(cfg);
        self
    }

    /// The program's standard output: `Stdio::piped()` for a
    /// [`ChildStdout`] in [`Child::stdout`]. Inherited by default.
    pub fn stdout<T: Into<Stdio>>(&mut self, cfg: T) -> &mut Command {
        self.std.stdout(cfg);
        self
    }

    /// The program's standard error: `Stdio::piped()` for a
    /// [`ChildStderr`] in [`Child::stderr`]. Inherited by default.
    pub fn stderr<T: Into<Stdio>>(&mut self, cfg: T) -> &mut Command {
        self.std.stderr(cfg);
        self
    }

    /// Whether dropping the [`Child`] (or the future of
    /// [`status`](Command::status) or [`output`](Command::output)) before
    /// the program has been reaped kills it with `SIGKILL`. Off by default,
    /// as in `std`: a dropped child runs on.
    ///
    /// Killing is immediate, but the killed program still has to be reaped,
    /// which a destructor cannot wait for: the module's background reaper
    /// does it (see the module documentation). Await [`Child::kill`] or
    /// [`Child::wait`] to be sure it is gone.
    pub fn kill_on_drop(&mut self, kill_on_drop: bool) -> &mut Command {
        self.kill_on_drop = kill_on_drop;
        self
    }

    /// What [`kill_on_drop`](Command::kill_on_drop) was set to (`false`
    /// unless it was called).
    pub fn get_kill_on_drop(&self) -> bool {
        self.kill_on_drop
    }

    /// The user id the program runs as (`setuid` in the child).
    pub fn uid(&mut self, id: u32) -> &mut Command {
        self.std.uid(id);
        self
    }

    /// The group id the program runs as (`setgid` in the child).
    pub fn gid(&mut self, id: u32) -> &mut Command {
        self.std.gid(id);
        self
    }

    /// What the program sees as `argv[0]` (by default the program's name as
    /// given to [`new`](Command::new)).
    pub fn arg0<S: AsRef<OsStr>>(&mut self, arg: S) -> &mut Command {
        self.std.arg0(arg);
        self
    }

    /// Puts the program in process group `pgroup` (`0`: a new group whose id
    /// is the program's pid), so that a terminal's Ctrl-C, sent to the
    /// foreground group, does not reach it.
    pub fn process_group(&mut self, pgroup: i32) -> &mut Command {
        self.std.process_group(pgroup);
        self
    }

    /// Runs `f` in the child between `fork` and `exec`; an error it returns
    /// fails the spawn with that error. See
    /// [`std::os::unix::process::CommandExt::pre_exec`].
    ///
    /// # Safety
    ///
    /// As for `std`'s: `f` runs in a copy of this process in which only the
    /// forking thread exists, so it must not take a lock (another thread
    /// may have held it at the fork, and never will release it here) or
    /// allocate, and must not break the invariants of the descriptors and
    /// memory the child inherits.
    pub unsafe fn pre_exec<F>(&mut self, f: F) -> &mut Command
    where
        F: FnMut() -> io::Result<()> + Send + Sync + 'static,
    {
        // SAFETY: the caller accepts `std`'s contract, which is this
        // method's.
        unsafe { self.std.pre_exec(f) };
        self
    }

    /// Starts the program and returns its [`Child`]; the piped streams are
    /// registered with the runtime's I/O driver, and so is the child's
    /// pidfd (see the module documentation).
    ///
    /// A program that cannot be started is an error at once (`NotFound`
    /// for a missing program, `PermissionDenied` for a file that is not
    /// executable, `WouldBlock` when the system's process limit is reached).
    /// Dropping the returned `Child` does not stop the program, unless
    /// [`kill_on_drop`](Command::kill_on_drop) is set; the program is reaped
    /// in the background once it exits, on a best-effort basis.
    ///
    /// # Panics
    ///
    /// Outside a runtime (in a task, in `block_on`, under
    /// [`Handle::enter`](crate::runtime::Handle::enter)), as Tokio's panics:
    /// the child's waits belong to a runtime's I/O driver. (rt's I/O driver
    /// is always enabled, so Tokio's other panic, a runtime built without
    /// `enable_io`, cannot happen.) Unlike Tokio, the check comes before the
    /// program starts, so no program is left running by the panic.
    #[track_caller]
    pub fn spawn(&mut self) -> io::Result<Child> {
        require_runtime("rt::process::Command::spawn");
        let std = self.std.spawn()?;
        Child::from_std(std, self.kill_on_drop)
    }

    /// Starts the program (now, not when the future is first polled),
    /// closes the parent's ends of any pipes it was given (so a program
    /// reading a piped stdin sees end of file), and waits for it to exit.
    ///
    /// The standard streams are inherited unless set otherwise. Dropping
    /// the future before the program exits kills it if
    /// [`kill_on_drop`](Command::kill_on_drop) is set, and otherwise leaves
    /// it running.
    ///
    /// # Panics
    ///
    /// Outside a runtime, as [`spawn`](Command::spawn).
    #[track_caller]
    pub fn status(&mut self) -> impl Future<Output = io::Result<ExitStatus>> + use<> {
        let spawned = self.spawn();
        async move {
            let mut child = spawned?;
            // Closed before waiting: a program that reads its stdin or fills
            // a pipe nobody reads would otherwise never exit.
            drop(child.stdin.take());
            drop(child.stdout.take());
            drop(child.stderr.take());
            child.wait().await
        }
    }

    /// Starts the program (now, not when the future is first polled) with
    /// its stdout and stderr piped, whatever they were set to before (unlike
    /// `std`, as in Tokio), and collects both and the exit status; see
    /// [`Child::wait_with_output`].
    ///
    /// The program's stdin stays as set (inherited by default). Dropping the
    /// future before the program exits kills it if
    /// [`kill_on_drop`](Command::kill_on_drop) is set.
    ///
    /// # Panics
    ///
    /// Outside a runtime, as [`spawn`](Command::spawn).
    #[track_caller]
    pub fn output(&mut self) -> impl Future<Output = io::Result<Output>> + use<> {
        self.std.stdout(Stdio::piped());
        self.std.stderr(Stdio::piped());
        let spawned = self.spawn();
        async move { spawned?.wait_with_output().await }
    }
}

impl From<std::process::Command> for Command {
    /// Wraps a `std` command, with [`kill_on_drop`](Command::kill_on_drop)
    /// off.
    fn from(std: std::process::Command) -> Command {
        Command {
            std,
            kill_on_drop: false,
        }
    }
}

/// Panics, naming `what`, unless this thread is in a runtime: Tokio panics
/// there too (its registration asks for the current runtime's handle).
#[track_caller]
fn require_runtime(what: &str) {
    if crate::runtime::Handle::try_current().is_err() {
        panic!(
            "{what} must be called inside an rt runtime (in a task, in block_on, or under \
             Handle::enter): a child's pipes and its exit are watched by the runtime's I/O driver"
        );
    }
}
