//! Reference solution for ch07_steal_half.

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
        if thief.len() > CAPACITY / 2 {
            return None;
        }
        let available = self.len();
        let n = available - available / 2;
        if n == 0 {
            return None;
        }
        for _ in 0..n - 1 {
            let task = self.pop().expect("counted above");
            thief
                .push(task)
                .expect("the thief had room for half a ring");
        }
        self.pop()
    }
}
