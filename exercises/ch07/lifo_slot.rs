//! Exercise ch07_lifo_slot: the LIFO slot's policy, without threads.
//!
//! A worker keeps, beside its ring, one *LIFO slot* for the task most
//! recently woken or spawned by the task it is running; that task runs next
//! (Chapter 7, "The LIFO slot"). [`LocalQueue`] models one worker's slot and
//! ring with task ids. Write its two methods:
//!
//! * [`LocalQueue::schedule`]`(task, is_yield)`: the running task woke or
//!   spawned `task`.
//!   - A task that yielded (`is_yield`), or any task while the slot is
//!     switched off, goes to the back of the ring.
//!   - Otherwise it goes into the slot; the slot's previous occupant, if
//!     any, moves to the back of the ring.
//! * [`LocalQueue::next`]: the worker picks the next task to poll, and says
//!   whether it came from the slot.
//!   - If the slot holds a task, take it and count one more LIFO poll in a
//!     row; when the count reaches [`MAX_LIFO_POLLS`], switch the slot off,
//!     so that whatever this task wakes goes to the ring.
//!   - Otherwise take the ring's oldest task; that starts afresh: the count
//!     goes back to zero and the slot is switched on again.
//!   - `None` if both are empty.
//!
//! Why the limit: two tasks that wake each other forever would otherwise
//! keep the slot busy and starve everything in the ring.
//!
//! Check: `cargo run -p exercises -- check ch07_lifo_slot`. Hint:
//! `cargo run -p exercises -- hint ch07_lifo_slot`.

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
        todo!("the slot, evicting its occupant to the ring; or the ring for yields and when off")
    }

    /// The next task to poll, and whether it came from the slot.
    pub fn next(&mut self) -> Option<(u32, bool)> {
        todo!("the slot (counting LIFO polls, switching off at the limit), else the ring")
    }
}
