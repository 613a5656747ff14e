//! Exercise ch07_steal_half: the steal, on a ring with no threads.
//!
//! Chapter 7's run queue is a ring of slots indexed by `u32` counters that
//! only ever grow (wrapping at `u32::MAX`): the task at position `i` lives
//! in slot `i % CAPACITY`, the queue holds positions `head..tail`, and its
//! length is `tail.wrapping_sub(head)`. [`Ring`] is that ring without the
//! atomics; `push` and `pop` are written for you.
//!
//! Write [`Ring::steal_half`]: a thief with its own ring takes work from
//! `self` (the victim):
//!
//! * if the thief's ring holds more than `CAPACITY / 2` tasks, steal nothing
//!   (it has work, and half the victim's might not fit);
//! * otherwise take `n - n / 2` tasks (half, rounded up) from the victim's
//!   head, the oldest ones;
//! * append all but the last of them to the thief's ring, in their order,
//!   and return the last one (the thief runs it at once);
//! * return `None` if the victim is empty.
//!
//! Positions wrap: the tests start the counters near `u32::MAX`, so use
//! `wrapping_add`/`wrapping_sub`, never `+`/`-`, on them.
//!
//! Check: `cargo run -p exercises -- check ch07_steal_half`. Hint:
//! `cargo run -p exercises -- hint ch07_steal_half`.

/// Slots per ring (a power of two).
pub const CAPACITY: usize = 8;

/// A single-threaded ring of task ids.
#[derive(Debug, Clone)]
pub struct Ring {
    /// The slots; `None` where no task is.
    pub slots: [Option<u32>; CAPACITY],
    /// Position of the oldest task.
    pub head: u32,
    /// Position after the newest task.
    pub tail: u32,
}

impl Ring {
    /// An empty ring whose counters start at `start`.
    pub fn starting_at(start: u32) -> Ring {
        Ring {
            slots: [None; CAPACITY],
            head: start,
            tail: start,
        }
    }

    /// Tasks in the ring.
    pub fn len(&self) -> usize {
        self.tail.wrapping_sub(self.head) as usize
    }

    /// True if the ring holds no task.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Appends a task; gives it back if the ring is full.
    pub fn push(&mut self, task: u32) -> Result<(), u32> {
        if self.len() == CAPACITY {
            return Err(task);
        }
        self.slots[self.tail as usize % CAPACITY] = Some(task);
        self.tail = self.tail.wrapping_add(1);
        Ok(())
    }

    /// Takes the oldest task.
    pub fn pop(&mut self) -> Option<u32> {
        if self.is_empty() {
            return None;
        }
        let task = self.slots[self.head as usize % CAPACITY].take();
        self.head = self.head.wrapping_add(1);
        task
    }

    /// Steals half of `self`'s tasks (rounded up) into `thief`, returning
    /// the last stolen one.
    pub fn steal_half(&mut self, thief: &mut Ring) -> Option<u32> {
        todo!("take n - n/2 from self's head; all but the last go to thief's tail")
    }
}
