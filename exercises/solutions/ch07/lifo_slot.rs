//! Reference solution for ch07_lifo_slot.

use std::collections::VecDeque;

/// LIFO polls in a row before the slot is switched off.
pub const MAX_LIFO_POLLS: usize = 3;

/// One worker's LIFO slot and ring.
#[derive(Debug, Default)]
pub struct LocalQueue {
    /// The slot.
    pub lifo: Option<u32>,
    /// The ring, oldest first.
    pub ring: VecDeque<u32>,
    /// LIFO polls in a row since the last task from the ring.
    pub lifo_polls: usize,
    /// False once the limit is reached, until the next task from the ring.
    pub lifo_disabled: bool,
}

impl LocalQueue {
    /// The running task woke or spawned `task`.
    pub fn schedule(&mut self, task: u32, is_yield: bool) {
        if is_yield || self.lifo_disabled {
            self.ring.push_back(task);
            return;
        }
        if let Some(previous) = self.lifo.replace(task) {
            self.ring.push_back(previous);
        }
    }

    /// The next task to poll, and whether it came from the slot.
    pub fn next(&mut self) -> Option<(u32, bool)> {
        if let Some(task) = self.lifo.take() {
            self.lifo_polls += 1;
            if self.lifo_polls >= MAX_LIFO_POLLS {
                self.lifo_disabled = true;
            }
            return Some((task, true));
        }
        let task = self.ring.pop_front()?;
        self.lifo_polls = 0;
        self.lifo_disabled = false;
        Some((task, false))
    }
}
