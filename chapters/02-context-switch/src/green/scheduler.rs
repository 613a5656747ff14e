//! Green threads: many fibers on one OS thread, taking turns.
//!
//! [`Fibers`] owns a set of fibers, each with its own [`Stack`] and saved
//! [`Context`]. [`Fibers::run`] turns the calling thread into one more
//! participant (slot 0) and lets the fibers run round-robin: whenever the
//! running fiber calls [`yield_now`], its registers are saved and the next
//! ready fiber resumes exactly where it last yielded. When a fiber's closure
//! returns, the fiber is finished and never resumed; its stack is unmapped
//! once `run` returns. The kernel sees none of this: to it, one thread is
//! running all along. That is the whole trick of green threads (and of
//! goroutines, minus Go's preemption and growable stacks).
//!
//! The scheduler state lives behind a raw pointer, reachable from the
//! thread-local `CURRENT` while `run` runs, because a fiber that calls
//! `yield_now` has no other way to find it. No reference into that state is
//! held across a switch: each step takes what it needs and lets go before
//! jumping, since the other fibers change the state while we are suspended.
//!
//! A panic inside a fiber cannot unwind through the assembly trampoline at
//! the bottom of its stack, so each fiber runs its closure inside
//! `catch_unwind`; `run` re-raises the first panic after every fiber has
//! finished.
//!
//! Book: Chapter 2, "A switch in user space".

use std::any::Any;
use std::cell::Cell;
use std::io;
use std::panic::{self, AssertUnwindSafe};
use std::ptr::{self, NonNull};

use super::context::{self, Context};
use super::stack::Stack;

/// The default usable stack per fiber. Small, because a fiber that only
/// yields needs little; a deep recursion would hit the guard page.
pub const DEFAULT_STACK_BYTES: usize = 64 * 1024;

/// Where a fiber is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum State {
    /// Waiting for its turn (or not started yet).
    Ready,
    /// The one that runs right now.
    Running,
    /// Its closure has returned (or panicked); it will not run again.
    Finished,
}

struct Slot {
    context: Context,
    state: State,
    /// Kept alive while the fiber may run; `None` for slot 0, the thread
    /// that called `run`.
    _stack: Option<Stack>,
    /// The closure, until the fiber starts and takes it.
    start: Option<Box<dyn FnOnce()>>,
}

struct Inner {
    slots: Vec<Slot>,
    current: usize,
    panic: Option<Box<dyn Any + Send>>,
}

thread_local! {
    /// The scheduler running on this thread, while `Fibers::run` runs.
    static CURRENT: Cell<*mut Inner> = const { Cell::new(ptr::null_mut()) };
}

/// A set of green threads that run round-robin on the calling OS thread.
pub struct Fibers {
    inner: NonNull<Inner>,
    stack_bytes: usize,
}

impl Default for Fibers {
    fn default() -> Fibers {
        Fibers::new(DEFAULT_STACK_BYTES)
    }
}

impl Fibers {
    /// An empty set whose fibers get `stack_bytes` of stack each.
    pub fn new(stack_bytes: usize) -> Fibers {
        let main = Slot {
            context: Context::default(),
            state: State::Running,
            _stack: None,
            start: None,
        };
        let inner = Box::new(Inner {
            slots: vec![main],
            current: 0,
            panic: None,
        });
        Fibers {
            inner: NonNull::from(Box::leak(inner)),
            stack_bytes: stack_bytes.max(16 * 1024),
        }
    }

    /// Adds a fiber that will run `f` when [`Fibers::run`] runs.
    pub fn spawn(&mut self, f: impl FnOnce() + 'static) -> io::Result<()> {
        let stack = Stack::new(self.stack_bytes + Context::INITIAL_FRAME_BYTES)?;
        // SAFETY: the stack is ours and unused; it lives in the slot, which
        // lives until `run` has finished every fiber (or the set is dropped
        // without ever starting this one). The argument is the scheduler
        // state, which outlives every fiber.
        let context =
            unsafe { Context::prepare(stack.top(), fiber_main, self.inner.as_ptr().cast()) };
        // SAFETY: not running (`run` takes `&mut self`, so we are outside
        // it): nobody else touches the state.
        let inner = unsafe { self.inner.as_mut() };
        inner.slots.push(Slot {
            context,
            state: State::Ready,
            _stack: Some(stack),
            start: Some(Box::new(f)),
        });
        Ok(())
    }

    /// Runs every fiber until all have finished. The calling thread takes
    /// part in the rotation as slot 0. Re-raises the first panic of a fiber.
    ///
    /// Panics if called from inside a fiber (runs do not nest).
    pub fn run(&mut self) {
        let inner = self.inner.as_ptr();
        let outer = CURRENT.with(|current| current.replace(inner));
        assert!(outer.is_null(), "Fibers::run does not nest");
        // SAFETY: the state is valid; no other reference to it is alive.
        unsafe {
            let state = &mut *inner;
            state.current = 0;
            state.slots[0].state = State::Running;
        }
        // Slot 0 takes turns like any fiber, and checks after each round
        // whether the others are done.
        // SAFETY: each check is a short borrow with no switch inside it.
        while unsafe {
            (&*inner).slots[1..]
                .iter()
                .any(|s| s.state != State::Finished)
        } {
            yield_now();
        }
        CURRENT.with(|current| current.set(ptr::null_mut()));
        // SAFETY: every fiber has finished, so no stack is in use, and no
        // other reference to the state is alive.
        let panic = unsafe {
            let state = &mut *inner;
            state.slots.truncate(1);
            state.panic.take()
        };
        if let Some(payload) = panic {
            panic::resume_unwind(payload);
        }
    }
}

impl Drop for Fibers {
    fn drop(&mut self) {
        // SAFETY: `inner` came from `Box::leak` in `new`. `run` cannot be
        // active (it borrows `self`), so every started fiber has finished
        // and the rest never ran: no stack is in use.
        drop(unsafe { Box::from_raw(self.inner.as_ptr()) });
    }
}

// ANCHOR: yield_now
/// Suspends the running fiber and resumes the next ready one, round-robin.
/// Returns when this fiber's turn comes again: at once if no other fiber is
/// ready. Returns `false` (and does nothing) outside [`Fibers::run`].
pub fn yield_now() -> bool {
    let inner = CURRENT.with(Cell::get);
    if inner.is_null() {
        return false;
    }
    // SAFETY: `inner` is the live scheduler of this thread; `step` holds no
    // reference across the switch.
    unsafe { switch_to_next(inner, State::Ready) };
    true
}

/// Marks the current fiber `leaving_as`, picks the next ready fiber after it
/// and switches to it.
///
/// # Safety
///
/// `inner` must be this thread's running scheduler, and no reference into
/// it may be alive.
unsafe fn switch_to_next(inner: *mut Inner, leaving_as: State) {
    // SAFETY: the caller guarantees `inner` is valid and unaliased; the
    // borrow ends before the switch.
    let (from, to) = unsafe {
        let state = &mut *inner;
        let current = state.current;
        let Some(next) = next_ready(&state.slots, current) else {
            return; // nobody else is ready: keep running
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
    // SAFETY: `to` was saved by an earlier switch or prepared for a fiber
    // that has not started; its stack lives in its slot. The slot vector is
    // not resized while fibers run (`spawn` needs `&mut Fibers`).
    unsafe { context::switch(from, to) };
}

/// The first ready slot after `current`, going round.
fn next_ready(slots: &[Slot], current: usize) -> Option<usize> {
    let n = slots.len();
    (1..n)
        .map(|offset| (current + offset) % n)
        .find(|&i| slots[i].state == State::Ready)
}
// ANCHOR_END: yield_now

/// Where every fiber starts (through the trampoline): run the closure, then
/// leave for good.
unsafe extern "C" fn fiber_main(arg: *mut u8) -> ! {
    let inner = arg.cast::<Inner>();
    // SAFETY: `arg` is the scheduler state given to `Context::prepare`; a
    // short borrow to take our closure.
    let start = unsafe {
        let state = &mut *inner;
        let current = state.current;
        state.slots[current].start.take()
    };
    if let Some(start) = start
        && let Err(payload) = panic::catch_unwind(AssertUnwindSafe(start))
    {
        // SAFETY: a short borrow, no switch inside.
        unsafe { (&mut *inner).panic.get_or_insert(payload) };
    }
    // SAFETY: as above. Slot 0 is never finished while fibers run, so there
    // is always a next fiber, and a finished fiber is never resumed.
    unsafe { switch_to_next(inner, State::Finished) };
    // Only a scheduler bug could bring us here; running on would return into
    // the trampoline's trap. Fail loudly instead.
    std::process::abort()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::RefCell;
    use std::rc::Rc;

    #[test]
    fn fibers_take_turns_in_order() {
        let trace = Rc::new(RefCell::new(Vec::new()));
        let mut fibers = Fibers::default();
        for id in 0..3 {
            let trace = Rc::clone(&trace);
            fibers
                .spawn(move || {
                    for step in 0..3 {
                        trace.borrow_mut().push(format!("fiber {id} step {step}"));
                        yield_now();
                    }
                })
                .unwrap();
        }
        fibers.run();
        let trace = trace.borrow();
        assert_eq!(trace.len(), 9);
        assert_eq!(trace[0], "fiber 0 step 0");
        assert_eq!(trace[1], "fiber 1 step 0");
        assert_eq!(trace[3], "fiber 0 step 1");
    }

    #[test]
    fn yield_outside_a_run_does_nothing() {
        assert!(!yield_now());
    }

    #[test]
    fn a_fiber_that_is_never_run_is_dropped_cleanly() {
        let dropped = Rc::new(Cell::new(false));
        struct Flag(Rc<Cell<bool>>);
        impl Drop for Flag {
            fn drop(&mut self) {
                self.0.set(true);
            }
        }
        let flag = Flag(Rc::clone(&dropped));
        let mut fibers = Fibers::default();
        fibers.spawn(move || drop(flag)).unwrap();
        drop(fibers);
        assert!(dropped.get());
    }

    #[test]
    fn a_panicking_fiber_lets_the_others_finish_then_reraises() {
        let finished = Rc::new(Cell::new(0));
        let mut fibers = Fibers::default();
        fibers.spawn(|| panic!("fiber failure")).unwrap();
        for _ in 0..2 {
            let finished = Rc::clone(&finished);
            fibers
                .spawn(move || {
                    yield_now();
                    finished.set(finished.get() + 1);
                })
                .unwrap();
        }
        let result = panic::catch_unwind(AssertUnwindSafe(|| fibers.run()));
        let payload = result.unwrap_err();
        assert_eq!(payload.downcast_ref::<&str>(), Some(&"fiber failure"));
        assert_eq!(finished.get(), 2);
    }

    #[test]
    fn a_set_can_run_again() {
        let count = Rc::new(Cell::new(0));
        let mut fibers = Fibers::default();
        for round in 0..3 {
            let count = Rc::clone(&count);
            fibers
                .spawn(move || count.set(count.get() + round))
                .unwrap();
            fibers.run();
        }
        assert_eq!(count.get(), 3);
    }
}
