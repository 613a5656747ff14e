//! The signal handler and the pipe it writes to.
//!
//! The handler is installed for each signal the first time a future asks
//! for it (SIGINT for `ctrl_c`, any other for `unix::signal`). It does two
//! async-signal-safe things: it bumps that signal's atomic counter
//! (`DELIVERED`) and `write`s one byte to the write end of a
//! non-blocking Unix socket pair (errno saved and restored around it, as a
//! handler must; a full pipe drops the byte, which loses nothing, since the
//! counter holds the truth and the pipe only has to become readable).
//!
//! The read end is shared by every waiting `ctrl_c()` future, each through
//! its own duplicate of the descriptor registered with its own runtime's
//! driver. Whichever future is woken first drains the pipe and wakes all the
//! others through the waiter list here: with edge triggering, a drained pipe
//! is no longer reported to the epoll instances that had not collected the
//! event yet, so the wake-up must not depend on them.
//!
//! Book: Chapter 8, "Signals and a graceful shutdown".

use std::io;
use std::os::fd::AsRawFd;
use std::os::unix::net::UnixStream;
use std::sync::Mutex;
use std::sync::atomic::{AtomicI32, AtomicU64, Ordering};
use std::task::Waker;

/// Signal numbers are below this (Linux has 64, numbered from 1).
pub(super) const SIGNALS: usize = 65;

/// Per signal number, the signals delivered since its handler was
/// installed.
static DELIVERED: [AtomicU64; SIGNALS] = [const { AtomicU64::new(0) }; SIGNALS];

/// The pipe's write end, for the handler (-1 until installed).
static WRITE_FD: AtomicI32 = AtomicI32::new(-1);

/// The pipe and the futures waiting on it.
static STATE: Mutex<Option<State>> = Mutex::new(None);

struct State {
    reader: UnixStream,
    /// Never closed: the handler may write to it at any moment.
    _writer: UnixStream,
    /// The futures waiting on the pipe (for any signal: a wake-up makes
    /// each look at its own signal's count).
    waiters: Waiters,
    /// Bit n: the handler is installed for signal n (up to 64).
    installed: u128,
}

// ANCHOR: handler
/// Runs on whichever thread the kernel picked, between two instructions of
/// whatever it was doing: only async-signal-safe calls here.
extern "C" fn on_signal(signal: libc::c_int) {
    if let Some(count) = usize::try_from(signal).ok().and_then(|n| DELIVERED.get(n)) {
        count.fetch_add(1, Ordering::SeqCst);
    }
    let fd = WRITE_FD.load(Ordering::SeqCst);
    if fd < 0 {
        return;
    }
    // SAFETY: `__errno_location` returns this thread's errno slot, valid for
    // the thread's life; we save it because `write` below may change it
    // under the interrupted code's feet.
    let errno = unsafe { *libc::__errno_location() };
    let byte = 1u8;
    // SAFETY: write(2) is async-signal-safe; `fd` is the pipe's write end,
    // which is never closed (it lives in `STATE` for the process's life),
    // and the buffer is one byte on this stack frame.
    unsafe { libc::write(fd, std::ptr::from_ref(&byte).cast(), 1) };
    // SAFETY: as above: this thread's errno slot.
    unsafe { *libc::__errno_location() = errno };
}
// ANCHOR_END: handler

/// Installs the pipe, once per process, and the handler for `signal`, once
/// per signal.
fn install(state: &mut Option<State>, signal: libc::c_int) -> io::Result<&mut State> {
    if state.is_none() {
        let (reader, writer) = UnixStream::pair()?;
        reader.set_nonblocking(true)?;
        writer.set_nonblocking(true)?;
        WRITE_FD.store(writer.as_raw_fd(), Ordering::SeqCst);
        *state = Some(State {
            reader,
            _writer: writer,
            waiters: Waiters::default(),
            installed: 0,
        });
    }
    let state = state.as_mut().expect("installed above");
    let bit = 1u128 << signal;
    if state.installed & bit == 0 {
        // SAFETY: an all-zero `sigaction` is a valid value (no flags, empty
        // mask, default handler); we then fill in the fields we need.
        let mut action: libc::sigaction = unsafe { std::mem::zeroed() };
        action.sa_sigaction = on_signal as extern "C" fn(libc::c_int) as libc::sighandler_t;
        // Restart system calls the signal interrupts, rather than failing
        // them with EINTR in code that does not expect it.
        action.sa_flags = libc::SA_RESTART;
        // SAFETY: `sa_mask` is a valid sigset_t we own; sigemptyset only
        // writes to it.
        unsafe { libc::sigemptyset(&mut action.sa_mask) };
        // SAFETY: `action` is fully initialised and its handler is an
        // `extern "C" fn(c_int)` that only makes async-signal-safe calls;
        // the old action is not asked for (null).
        if unsafe { libc::sigaction(signal, &action, std::ptr::null_mut()) } != 0 {
            return Err(io::Error::last_os_error());
        }
        state.installed |= bit;
    }
    Ok(state)
}

fn lock() -> std::sync::MutexGuard<'static, Option<State>> {
    STATE
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Installs the handler for `signal` if needed; returns the signals of
/// that number delivered so far and a new descriptor for the pipe's read
/// end. `signal` must be in `1..SIGNALS` (the caller checks).
pub(super) fn subscribe(signal: libc::c_int) -> io::Result<(u64, UnixStream)> {
    let mut state = lock();
    let state = install(&mut state, signal)?;
    // Read the count under the lock that installation took, so it is the
    // count at this call: a later signal moves it.
    let seen = delivered(signal);
    Ok((seen, state.reader.try_clone()?))
}

/// Signals number `signal` delivered since its handler was installed.
pub(super) fn delivered(signal: libc::c_int) -> u64 {
    usize::try_from(signal)
        .ok()
        .and_then(|n| DELIVERED.get(n))
        .map_or(0, |count| count.load(Ordering::SeqCst))
}

/// Leaves `waker` in the waiter list (at `slot`, taking a slot if needed).
pub(super) fn wait(slot: &mut Option<usize>, waker: &Waker) {
    if let Some(state) = lock().as_mut() {
        state.waiters.wait(slot, waker);
    }
}

/// Gives up a slot (the future completed or was dropped).
pub(super) fn leave(slot: &mut Option<usize>) {
    if let Some(index) = slot.take()
        && let Some(state) = lock().as_mut()
    {
        state.waiters.leave(index);
    }
}

/// Wakes every waiting future (their slots stay theirs; each leaves a new
/// waker when polled again).
pub(super) fn wake_all() {
    let wakers = match lock().as_mut() {
        Some(state) => state.waiters.take_all(),
        None => Vec::new(),
    };
    // Outside the lock: a wake may run scheduler code.
    wakers.into_iter().for_each(Waker::wake);
}

/// The waiting `ctrl_c()` futures, each at the slot it holds; `None` is a
/// free slot.
#[derive(Default)]
struct Waiters {
    list: Vec<Option<Waiter>>,
}

/// One waiting future's slot. Its waker is taken when woken, but the slot
/// stays the future's until it leaves.
struct Waiter {
    waker: Option<Waker>,
}

impl Waiters {
    fn wait(&mut self, slot: &mut Option<usize>, waker: &Waker) {
        match *slot {
            Some(index) => {
                let waiter = self.list[index]
                    .as_mut()
                    .expect("a slot is its future's until it leaves");
                if !waiter
                    .waker
                    .as_ref()
                    .is_some_and(|old| old.will_wake(waker))
                {
                    waiter.waker = Some(waker.clone());
                }
            }
            None => {
                let waiter = Some(Waiter {
                    waker: Some(waker.clone()),
                });
                let index = match self.list.iter().position(Option::is_none) {
                    Some(free) => {
                        self.list[free] = waiter;
                        free
                    }
                    None => {
                        self.list.push(waiter);
                        self.list.len() - 1
                    }
                };
                *slot = Some(index);
            }
        }
    }

    fn leave(&mut self, index: usize) {
        self.list[index] = None;
        // Keep the list as short as its last waiter.
        while self.list.last().is_some_and(Option::is_none) {
            self.list.pop();
        }
    }

    fn take_all(&mut self) -> Vec<Waker> {
        self.list
            .iter_mut()
            .flatten()
            .filter_map(|waiter| waiter.waker.take())
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A woken future keeps its slot: another future leaving (which trims
    /// free slots off the end) must not take it away, nor may a newcomer be
    /// given it. (The first version kept only `Option<Waker>`, so a woken
    /// slot looked free, and a test on two runtimes indexed past the end.)
    #[test]
    fn a_woken_waiter_keeps_its_slot() {
        let mut waiters = Waiters::default();
        let (mut a, mut b, mut c) = (None, None, None);
        waiters.wait(&mut a, Waker::noop());
        waiters.wait(&mut b, Waker::noop());
        assert_eq!(waiters.take_all().len(), 2, "both woken");
        // b leaves; the trim must stop at a's slot, woken but still a's.
        waiters.leave(b.take().unwrap());
        waiters.wait(&mut c, Waker::noop());
        assert_ne!(c, a, "a newcomer took a woken waiter's slot");
        waiters.wait(&mut a, Waker::noop()); // a is polled again: its slot
        assert_eq!(waiters.take_all().len(), 2);
        waiters.leave(a.take().unwrap());
        waiters.leave(c.take().unwrap());
        assert!(waiters.list.is_empty(), "the list shrinks when all leave");
    }

    /// The handler's unsafe calls (errno saved and restored, one byte
    /// written from its stack to the pipe), run by calling it directly:
    /// Miri has no signals, but runs the handler's body as a delivery
    /// would. The pair is blocking: Miri cannot make a socket pair
    /// non-blocking (`ioctl(FIONBIO)`), and one byte never blocks.
    #[test]
    #[cfg_attr(
        not(miri),
        ignore = "points the handler at its own socket pair, which would take the byte of \
                  ctrl_c's test running in this process; that test runs the handler for real"
    )]
    fn the_handler_counts_writes_a_byte_and_keeps_errno() {
        use std::io::Read;
        // A signal number no test raises.
        let signal = libc::SIGWINCH;
        let (reader, writer) = UnixStream::pair().expect("a socket pair");
        // Read as a file (read(2)): Miri's socket pair has no recv(2).
        let mut reader = std::fs::File::from(std::os::fd::OwnedFd::from(reader));
        let _state = lock();
        let old = WRITE_FD.swap(writer.as_raw_fd(), Ordering::SeqCst);
        let before = delivered(signal);
        // SAFETY: this thread's errno slot.
        unsafe { *libc::__errno_location() = libc::EINTR };
        on_signal(signal);
        // SAFETY: as above.
        let errno = unsafe { *libc::__errno_location() };
        WRITE_FD.store(old, Ordering::SeqCst);
        assert_eq!(errno, libc::EINTR, "the handler changed errno");
        assert_eq!(delivered(signal), before + 1);
        let mut byte = [0u8; 1];
        assert_eq!(reader.read(&mut byte).expect("the handler's byte"), 1);
    }
}
