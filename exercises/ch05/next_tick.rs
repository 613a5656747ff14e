//! Exercise ch05_next_tick: callbacks deferred to the next turn, that
//! cannot starve the I/O.
//!
//! Chapter 5's loop lets a callback say "run this before you next wait":
//! `next_tick`. One turn of the loop runs the ticks, then waits for I/O
//! (and dispatches the events), and the next turn begins. Two rules make
//! ticks safe (Chapter 5, "Next tick"):
//!
//! * A turn runs only the ticks that were queued when it began, first
//!   queued first run. A tick queued during the turn, by a tick (even by
//!   itself), waits for the next turn, after the wait. Otherwise a tick
//!   that queues itself again would run forever, and no socket would be
//!   read again.
//! * While ticks are queued, the wait must not sleep: its timeout is zero.
//!   With none queued, the loop may sleep as long as it likes (`None`).
//!
//! A tick gets `&mut Ticks`, so that it can queue more ticks; so does the
//! wait, which stands for the loop's poll and its dispatch of events (an
//! event's callback may queue a tick too).
//!
//! Write [`Ticks::new`], [`Ticks::next_tick`], [`Ticks::queued`] and
//! [`Ticks::turn`]: run the ticks queued when the turn began, in order;
//! then call `wait` once with `Some(Duration::ZERO)` if ticks are queued at
//! that moment, or `None` if none is; return how many ticks ran.
//!
//! Check: `cargo run -p exercises -- check ch05_next_tick`. Hint:
//! `cargo run -p exercises -- hint ch05_next_tick`.

use std::collections::VecDeque;
use std::time::Duration;

/// A deferred callback.
pub type Tick = Box<dyn FnOnce(&mut Ticks)>;

/// The queue of next-tick callbacks.
pub struct Ticks {
    /// The ticks waiting for a turn, first queued at the front.
    queue: VecDeque<Tick>,
}

impl Ticks {
    /// No tick queued.
    pub fn new() -> Ticks {
        todo!()
    }

    /// Queues `tick` to run at the start of the next turn.
    pub fn next_tick(&mut self, tick: impl FnOnce(&mut Ticks) + 'static) {
        let _ = tick;
        todo!("push it at the back")
    }

    /// How many ticks are queued.
    pub fn queued(&self) -> usize {
        todo!()
    }

    /// One turn: the ticks queued when it began, then `wait` with the
    /// timeout; returns the number of ticks run.
    pub fn turn(&mut self, wait: impl FnOnce(&mut Ticks, Option<Duration>)) -> usize {
        let _ = wait;
        todo!("run only the ticks already queued, then wait")
    }
}

impl Default for Ticks {
    fn default() -> Ticks {
        Ticks::new()
    }
}
