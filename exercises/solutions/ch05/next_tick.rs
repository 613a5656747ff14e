//! Reference solution for ch05_next_tick.

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
        Ticks {
            queue: VecDeque::new(),
        }
    }

    /// Queues `tick` to run at the start of the next turn.
    pub fn next_tick(&mut self, tick: impl FnOnce(&mut Ticks) + 'static) {
        self.queue.push_back(Box::new(tick));
    }

    /// How many ticks are queued.
    pub fn queued(&self) -> usize {
        self.queue.len()
    }

    /// One turn: the ticks queued when it began, then `wait` with the
    /// timeout; returns the number of ticks run.
    pub fn turn(&mut self, wait: impl FnOnce(&mut Ticks, Option<Duration>)) -> usize {
        let due = self.queue.len();
        for _ in 0..due {
            // Each tick is taken out before it runs: it gets `&mut self`
            // and may push more, which go behind the ones counted in `due`.
            if let Some(tick) = self.queue.pop_front() {
                tick(self);
            }
        }
        let timeout = if self.queue.is_empty() {
            None
        } else {
            Some(Duration::ZERO)
        };
        wait(self, timeout);
        due
    }
}

impl Default for Ticks {
    fn default() -> Ticks {
        Ticks::new()
    }
}
