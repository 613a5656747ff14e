//! Reference solution for ch02_green_yield.

pub use chapter_02::green::context::{self, Context};
pub use chapter_02::green::scheduler::State;

/// One green thread (or slot 0, the OS thread) as the scheduler sees it.
#[derive(Debug)]
pub struct Slot {
    /// Where its registers are while it is not running.
    pub context: Context,
    /// Ready, Running or Finished.
    pub state: State,
}

/// Everything the scheduler knows. Exactly one slot is `Running`: the one
/// at `current`.
#[derive(Debug)]
pub struct Scheduler {
    /// Slot 0 is the OS thread that runs the fibers.
    pub slots: Vec<Slot>,
    /// The running slot.
    pub current: usize,
}

/// The first `Ready` slot after `current`, going round; never `current`.
pub fn next_ready(slots: &[Slot], current: usize) -> Option<usize> {
    let n = slots.len();
    (1..n)
        .map(|offset| (current + offset) % n)
        .find(|&i| slots[i].state == State::Ready)
}

/// Marks the running slot `leaving_as` and resumes the next ready slot.
/// Returns `false` at once, changing nothing, if no other slot is ready;
/// otherwise `true` when this slot runs again.
///
/// # Safety
///
/// `scheduler` points to this thread's live scheduler, no reference into it
/// is alive, and every `Ready` slot's context was saved by a switch or
/// prepared with `Context::prepare` on a stack that is still alive.
pub unsafe fn switch_to_next(scheduler: *mut Scheduler, leaving_as: State) -> bool {
    // SAFETY: the caller guarantees the scheduler is valid and unaliased;
    // this borrow ends before the switch.
    let (from, to) = unsafe {
        let state = &mut *scheduler;
        let current = state.current;
        let Some(next) = next_ready(&state.slots, current) else {
            return false;
        };
        state.slots[current].state = leaving_as;
        state.slots[next].state = State::Running;
        state.current = next;
        let slots = state.slots.as_mut_ptr();
        (
            &raw mut (*slots.add(current)).context,
            &raw const (*slots.add(next)).context,
        )
    };
    // SAFETY: `to` is a Ready slot's context, saved or prepared on a live
    // stack (the caller's guarantee); no borrow of the scheduler is alive.
    unsafe { context::switch(from, to) };
    true
}
