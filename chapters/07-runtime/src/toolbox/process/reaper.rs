//! The orphan reaper: one background thread that reaps the programs whose
//! [`Child`](super::Child) was dropped before they were reaped.
//!
//! A destructor cannot wait for a program to exit, and a runtime task would
//! die with its runtime (and show up in its task counts), so orphans go to a
//! thread of their own, started the first time a `Child` is dropped early.
//! It has its own `mio::Poll`: [`adopt`] opens a pidfd for the orphan and
//! registers it there (a `Registry` may be used from any thread while the
//! reaper sleeps in `poll`), and when a pidfd turns readable the thread
//! reaps that program with `try_wait` and forgets it. An orphan without a
//! pidfd (a kernel without `pidfd_open`, or no descriptors left) is checked
//! with `try_wait` once a second instead, so the thread wakes on a timer
//! only while such orphans exist.
//!
//! Best effort, as Tokio's: if the thread or its `Poll` cannot be created,
//! an orphan is simply dropped, and stays a zombie until this process exits.

use super::child::Pidfd;
use std::collections::HashMap;
use std::io;
use std::process::Child;
use std::sync::{Mutex, OnceLock, PoisonError};
use std::time::Duration;

/// The token of the reaper's waker; the orphans' tokens count up from 1.
const WAKE: mio::Token = mio::Token(0);

/// How often orphans without a pidfd are checked.
const SWEEP: Duration = Duration::from_secs(1);

/// The reaper thread's side that [`adopt`] reaches: its registry and the
/// orphans.
struct Reaper {
    registry: mio::Registry,
    /// Wakes the thread when an orphan without a pidfd arrives, so that it
    /// starts sweeping.
    waker: mio::Waker,
    orphans: Mutex<Orphans>,
}

#[derive(Default)]
struct Orphans {
    /// The last token given out (never reused).
    last_token: usize,
    /// Orphans watched through their pidfd, by token.
    watched: HashMap<mio::Token, (Child, Pidfd)>,
    /// Orphans checked on the timer.
    swept: Vec<Child>,
}

/// The reaper, started on first use; `None` if it could not be.
fn reaper() -> Option<&'static Reaper> {
    static REAPER: OnceLock<Option<Reaper>> = OnceLock::new();
    REAPER.get_or_init(|| start().ok()).as_ref()
}

/// Makes the `Poll`, hands it to a new thread, and returns the rest.
fn start() -> io::Result<Reaper> {
    let poll = mio::Poll::new()?;
    let reaper = Reaper {
        registry: poll.registry().try_clone()?,
        waker: mio::Waker::new(poll.registry(), WAKE)?,
        orphans: Mutex::new(Orphans::default()),
    };
    std::thread::Builder::new()
        .name("rt-process-reaper".into())
        .stack_size(64 * 1024)
        .spawn(move || run(poll))?;
    Ok(reaper)
}

/// The thread: sleeps until a pidfd is readable (or the sweep is due),
/// reaps what has exited, and so on for the life of the process.
fn run(mut poll: mio::Poll) {
    let mut events = mio::Events::with_capacity(64);
    // Blocks until the `OnceLock` that started this thread is set.
    let Some(reaper) = reaper() else {
        return;
    };
    loop {
        let timeout = if reaper.lock().swept.is_empty() {
            None
        } else {
            Some(SWEEP)
        };
        if let Err(error) = poll.poll(&mut events, timeout)
            && error.kind() != io::ErrorKind::Interrupted
        {
            // Nothing sensible left to do: the orphans stay zombies.
            return;
        }
        let mut orphans = reaper.lock();
        for event in &events {
            if event.token() == WAKE {
                continue;
            }
            let exited = match orphans.watched.get_mut(&event.token()) {
                Some((child, _)) => !matches!(child.try_wait(), Ok(None)),
                None => false,
            };
            if exited && let Some((_, mut pidfd)) = orphans.watched.remove(&event.token()) {
                let _ = reaper.registry.deregister(&mut pidfd);
            }
        }
        orphans
            .swept
            .retain_mut(|child| matches!(child.try_wait(), Ok(None)));
    }
}

impl Reaper {
    fn lock(&self) -> std::sync::MutexGuard<'_, Orphans> {
        self.orphans.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// Takes over a program that has not been reaped and whose `Child` is being
/// dropped, and reaps it once it exits.
pub(super) fn adopt(child: Child) {
    let Some(reaper) = reaper() else {
        return;
    };
    let pidfd = Pidfd::open(child.id());
    let mut orphans = reaper.lock();
    if let Some(mut pidfd) = pidfd {
        orphans.last_token += 1;
        let token = mio::Token(orphans.last_token);
        // Registered under the lock, so the thread cannot see the event
        // before the orphan is in the map. A pidfd of a program that has
        // already exited is readable at once, and reported.
        if reaper
            .registry
            .register(&mut pidfd, token, mio::Interest::READABLE)
            .is_ok()
        {
            orphans.watched.insert(token, (child, pidfd));
            return;
        }
    }
    orphans.swept.push(child);
    drop(orphans);
    let _ = reaper.waker.wake();
}
