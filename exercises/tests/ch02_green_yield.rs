//! Tests for exercise ch02_green_yield (`exercises/ch02/green_yield.rs`).
//!
//! A small fiber runtime around the two functions under test: it gives each
//! fiber a stack and a prepared context, runs them until all are finished,
//! and records what happened.

#[cfg_attr(not(feature = "solutions"), path = "../ch02/green_yield.rs")]
#[cfg_attr(feature = "solutions", path = "../solutions/ch02/green_yield.rs")]
#[allow(dead_code, unused_variables, unused_imports)]
mod green_yield;

mod ch02_green_yield {
    use super::green_yield::{Context, Scheduler, Slot, State, next_ready, switch_to_next};
    use chapter_02::green::stack::Stack;
    use std::any::Any;
    use std::cell::{Cell, RefCell};
    use std::panic::{self, AssertUnwindSafe};
    use std::rc::Rc;

    type Start = Box<dyn FnOnce()>;

    thread_local! {
        static SCHEDULER: Cell<*mut Scheduler> = const { Cell::new(std::ptr::null_mut()) };
        static STARTS: RefCell<Vec<Option<Start>>> = const { RefCell::new(Vec::new()) };
        static PANIC: RefCell<Option<Box<dyn Any + Send>>> = const { RefCell::new(None) };
    }

    fn yield_now() {
        let scheduler = SCHEDULER.with(Cell::get);
        // SAFETY: set by `run` for the duration of the run; no borrow alive.
        unsafe { switch_to_next(scheduler, State::Ready) };
    }

    unsafe extern "C" fn fiber_entry(arg: *mut u8) -> ! {
        let scheduler = arg.cast::<Scheduler>();
        // SAFETY: a short read of the live scheduler.
        let me = unsafe { (*scheduler).current };
        let start = STARTS.with(|s| s.borrow_mut()[me].take());
        if let Some(start) = start
            && let Err(payload) = panic::catch_unwind(AssertUnwindSafe(start))
        {
            PANIC.with(|p| *p.borrow_mut() = Some(payload));
        }
        // SAFETY: as in `yield_now`; a finished fiber is never resumed.
        let _ = panic::catch_unwind(|| unsafe { switch_to_next(scheduler, State::Finished) });
        // A finished fiber that runs again, or a failed switch: abort rather
        // than return into the trampoline's trap.
        std::process::abort()
    }

    /// Runs `fibers` round-robin with slot 0 (this thread) taking part, and
    /// returns the final states.
    fn run(fibers: Vec<Start>) -> Vec<State> {
        let scheduler = Box::into_raw(Box::new(Scheduler {
            slots: vec![Slot {
                context: Context::default(),
                state: State::Running,
            }],
            current: 0,
        }));
        let mut stacks = Vec::new();
        STARTS.with(|s| *s.borrow_mut() = vec![None]);
        for fiber in fibers {
            let stack = Stack::new(64 * 1024).unwrap();
            // SAFETY: a fresh stack, kept alive in `stacks` until the end.
            let context = unsafe { Context::prepare(stack.top(), fiber_entry, scheduler.cast()) };
            stacks.push(stack);
            // SAFETY: nothing runs yet; a short borrow.
            unsafe { &mut *scheduler }.slots.push(Slot {
                context,
                state: State::Ready,
            });
            STARTS.with(|s| s.borrow_mut().push(Some(fiber)));
        }
        SCHEDULER.with(|s| s.set(scheduler));
        let states = |scheduler: *mut Scheduler| {
            // SAFETY: a short read while this slot runs.
            unsafe { &*scheduler }
                .slots
                .iter()
                .map(|s| s.state)
                .collect::<Vec<_>>()
        };
        while states(scheduler)[1..].iter().any(|&s| s != State::Finished) {
            // SAFETY: the scheduler is live; no borrow is held here.
            let switched = unsafe { switch_to_next(scheduler, State::Ready) };
            assert!(
                switched,
                "switch_to_next returned false while fibers were ready: {:?}",
                states(scheduler)
            );
        }
        SCHEDULER.with(|s| s.set(std::ptr::null_mut()));
        let final_states = states(scheduler);
        // SAFETY: every fiber has finished; nothing refers to the scheduler.
        drop(unsafe { Box::from_raw(scheduler) });
        drop(stacks);
        if let Some(payload) = PANIC.with(|p| p.borrow_mut().take()) {
            panic::resume_unwind(payload);
        }
        final_states
    }

    fn slots(states: &[State]) -> Vec<Slot> {
        states
            .iter()
            .map(|&state| Slot {
                context: Context::default(),
                state,
            })
            .collect()
    }

    #[test]
    fn next_ready_goes_round_and_skips_the_others() {
        use State::{Finished as F, Ready as R, Running as U};
        assert_eq!(next_ready(&slots(&[U, R, R]), 0), Some(1));
        assert_eq!(next_ready(&slots(&[R, R, U]), 2), Some(0));
        assert_eq!(next_ready(&slots(&[R, F, U, F]), 2), Some(0));
        assert_eq!(next_ready(&slots(&[F, U, F, R]), 1), Some(3));
        assert_eq!(next_ready(&slots(&[F, U, F]), 1), None);
        // A Ready `current` is still not "next".
        assert_eq!(next_ready(&slots(&[R]), 0), None);
    }

    #[test]
    fn with_nobody_ready_switch_to_next_changes_nothing() {
        let scheduler = Box::into_raw(Box::new(Scheduler {
            slots: slots(&[State::Running, State::Finished]),
            current: 0,
        }));
        // SAFETY: the scheduler is valid; with no ready slot no switch happens.
        assert!(!unsafe { switch_to_next(scheduler, State::Ready) });
        // SAFETY: came from Box::into_raw above.
        let scheduler = unsafe { Box::from_raw(scheduler) };
        assert_eq!(scheduler.current, 0);
        assert_eq!(scheduler.slots[0].state, State::Running);
    }

    #[test]
    fn fibers_take_turns_round_robin() {
        let trace = Rc::new(RefCell::new(Vec::new()));
        let fibers: Vec<Start> = (0..3)
            .map(|id| {
                let trace = Rc::clone(&trace);
                Box::new(move || {
                    for step in 0..2 {
                        trace.borrow_mut().push((id, step));
                        yield_now();
                    }
                }) as Start
            })
            .collect();
        let states = run(fibers);
        assert_eq!(
            *trace.borrow(),
            [(0, 0), (1, 0), (2, 0), (0, 1), (1, 1), (2, 1)]
        );
        assert_eq!(
            states,
            [
                State::Running,
                State::Finished,
                State::Finished,
                State::Finished
            ]
        );
    }

    #[test]
    fn finished_fibers_are_skipped() {
        let trace = Rc::new(RefCell::new(String::new()));
        let fibers: Vec<Start> = (0..3)
            .map(|id| {
                let trace = Rc::clone(&trace);
                Box::new(move || {
                    for _ in 0..=id {
                        trace.borrow_mut().push(char::from(b'a' + id as u8));
                        yield_now();
                    }
                }) as Start
            })
            .collect();
        run(fibers);
        assert_eq!(*trace.borrow(), "abcbcc");
    }

    #[test]
    fn state_survives_many_switches() {
        let sums = Rc::new(RefCell::new(Vec::new()));
        let fibers: Vec<Start> = (1..=20u64)
            .map(|id| {
                let sums = Rc::clone(&sums);
                Box::new(move || {
                    let mut sum = 0;
                    for i in 0..500 {
                        sum += i * id;
                        yield_now();
                    }
                    sums.borrow_mut().push((id, sum));
                }) as Start
            })
            .collect();
        run(fibers);
        let mut sums = sums.borrow().clone();
        sums.sort();
        for (id, sum) in sums {
            assert_eq!(sum, id * (0..500).sum::<u64>(), "fiber {id}");
        }
    }
}
