//! Exercise ch02_green_yield: the heart of a green-thread scheduler.
//!
//! Chapter 2 runs many fibers on one OS thread. Each has a [`Slot`]: its
//! saved [`Context`] and its [`State`]. Slot 0 is the OS thread itself, which
//! takes turns like any fiber. You are given the raw switch routine,
//! `chapter_02::green::context::switch(from, to)`, which saves the running
//! registers into `*from` and resumes `*to`. Write the two functions that
//! decide who runs next and hand over:
//!
//! * [`next_ready`]: the first slot after `current` whose state is
//!   `Ready`, going round (after the last slot comes slot 0); never `current`
//!   itself; `None` if no other slot is ready.
//! * [`switch_to_next`]: mark the running slot `leaving_as` (`Ready` for a
//!   yield, `Finished` when a fiber ends), mark the next ready slot
//!   `Running`, make it `current`, and switch to it. When nobody else is
//!   ready, change nothing and return `false` at once. Otherwise return
//!   `true`, which happens only when this slot's turn comes round again.
//!
//! The trap: while you are switched out, other fibers run this same
//! function and change the scheduler. So no reference into `*scheduler`
//! (`&mut`, `&`, or one into `slots`) may be alive across the call to
//! `switch`. Take what you need through short borrows, keep raw pointers to
//! the two contexts, let the borrows end, then switch.
//!
//! Check: `cargo run -p exercises -- check ch02_green_yield`. Hint:
//! `cargo run -p exercises -- hint ch02_green_yield`.

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
    todo!("search the {} slots after {current}", slots.len())
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
    let _ = (scheduler, leaving_as);
    todo!("pick, update the states, switch")
}
