//! How fast is a switch that never enters the kernel?
//!
//! Two measurements on the hand-written fibers of [`crate::green`]:
//!
//! * the raw switch: the main context and one fiber hand control back and
//!   forth with nothing but [`context::switch`], the ten instructions that
//!   save the frame pointer, rbx and a resume address and swap stack
//!   pointers (the compiler saves whatever else is live); the same with
//!   [`context::switch_saving_all`], which saves every callee-saved register
//!   and the control words by hand; and with the textbook
//!   [`context::switch_by_call`], whose `ret` the CPU mispredicts every
//!   time;
//! * a yield through the round-robin scheduler: two fibers and the main
//!   context take turns with [`yield_now`], which adds the bookkeeping (find
//!   the scheduler in a thread-local, pick the next ready fiber).
//!
//! Book: Chapter 2, "A switch in user space".

use std::cell::Cell;
use std::io;
use std::rc::Rc;
use std::time::Instant;

use crate::green::context::{self, Context};
use crate::green::scheduler::{Fibers, yield_now};
use crate::green::stack::Stack;

/// The two contexts of the raw benchmark.
struct RawPair {
    main: Context,
    fiber: Context,
}

/// Which switch routine a raw benchmark uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Routine {
    /// [`context::switch`]: inline, saves what the compiler cannot and
    /// lets it save the live registers, leaves with `jmp`.
    Inline,
    /// [`context::switch_saving_all`]: inline, saves every callee-saved
    /// register and the control words by hand, leaves with `jmp`.
    SavingAll,
    /// [`context::switch_by_call`]: a call to a naked function that saves
    /// what `SavingAll` saves, leaves with `ret`.
    ByCall,
    /// `SavingAll` without first clearing the main context's floating-point
    /// status flags (see [`clear_fp_status_flags`]): the two contexts'
    /// MXCSR values differ, and every restore changes the register.
    SavingAllFlagsDiffer,
}

/// The fibers of the raw benchmark: switch back to main, forever. They are
/// never resumed after the last round; the stack is then simply unmapped
/// (nothing on it needs dropping).
unsafe extern "C" fn bounce_inline(arg: *mut u8) -> ! {
    let pair = arg.cast::<RawPair>();
    loop {
        // SAFETY: `pair` outlives every switch into this fiber; `main` was
        // saved by the switch that resumed us.
        unsafe { context::switch(&raw mut (*pair).fiber, &raw const (*pair).main) };
    }
}

unsafe extern "C" fn bounce_saving_all(arg: *mut u8) -> ! {
    let pair = arg.cast::<RawPair>();
    loop {
        // SAFETY: as in `bounce_inline`.
        unsafe { context::switch_saving_all(&raw mut (*pair).fiber, &raw const (*pair).main) };
    }
}

unsafe extern "C" fn bounce_by_call(arg: *mut u8) -> ! {
    let pair = arg.cast::<RawPair>();
    loop {
        // SAFETY: as in `bounce_inline`.
        unsafe { context::switch_by_call(&raw mut (*pair).fiber, &raw const (*pair).main) };
    }
}

// ANCHOR: raw
/// Nanoseconds per raw one-way switch, over `round_trips` round trips.
pub fn raw_switch_ns(round_trips: u64, routine: Routine) -> io::Result<f64> {
    let stack = Stack::new(16 * 1024)?;
    let pair = Box::into_raw(Box::new(RawPair {
        main: Context::default(),
        fiber: Context::default(),
    }));
    // SAFETY: the stack is ours and unused; `pair` stays allocated until
    // after the last switch. Each routine gets the frame it pops.
    unsafe {
        (*pair).fiber = match routine {
            Routine::Inline => Context::prepare(stack.top(), bounce_inline, pair.cast()),
            Routine::SavingAll | Routine::SavingAllFlagsDiffer => {
                Context::prepare_full(stack.top(), bounce_saving_all, pair.cast())
            }
            Routine::ByCall => Context::prepare_full(stack.top(), bounce_by_call, pair.cast()),
        }
    };
    if matches!(routine, Routine::SavingAll | Routine::ByCall) {
        clear_fp_status_flags();
    }
    let start = Instant::now();
    for _ in 0..round_trips {
        // SAFETY: `fiber` is fresh or was saved by its bounce loop; its
        // stack is alive.
        unsafe {
            match routine {
                Routine::Inline => context::switch(&raw mut (*pair).main, &raw const (*pair).fiber),
                Routine::SavingAll | Routine::SavingAllFlagsDiffer => {
                    context::switch_saving_all(&raw mut (*pair).main, &raw const (*pair).fiber)
                }
                Routine::ByCall => {
                    context::switch_by_call(&raw mut (*pair).main, &raw const (*pair).fiber)
                }
            }
        }
    }
    let elapsed = start.elapsed();
    // SAFETY: the fiber is suspended for good; nothing refers to `pair`.
    drop(unsafe { Box::from_raw(pair) });
    drop(stack);
    Ok(elapsed.as_nanos() as f64 / (2 * round_trips) as f64)
}
// ANCHOR_END: raw

/// Clears MXCSR's six status flags (sticky bits that record that some
/// floating-point operation was inexact, overflowed, and so on), leaving its
/// control bits alone. Any earlier arithmetic that rounded has set the
/// "precision" flag in the main context, while a fresh fiber starts with
/// none set: the two MXCSR values then differ, and a switch that restores
/// MXCSR changes it every time, which on some machines costs far more than
/// the rest of the switch. The routines that restore MXCSR are timed with
/// equal values on both sides, except `SavingAllFlagsDiffer`, which shows
/// the difference.
#[cfg(target_arch = "x86_64")]
fn clear_fp_status_flags() {
    let mut mxcsr: u32 = 0;
    // SAFETY: `stmxcsr` stores four bytes into a local we own.
    unsafe { core::arch::asm!("stmxcsr [{}]", in(reg) &raw mut mxcsr, options(nostack)) };
    mxcsr &= !0x3F;
    // SAFETY: only the status flags change. Rust forbids changing MXCSR's
    // control bits (exception masks, rounding mode, denormals-are-zero),
    // which keep their values.
    unsafe { core::arch::asm!("ldmxcsr [{}]", in(reg) &raw const mxcsr, options(nostack)) };
}

/// aarch64's switches do not save the floating-point status register.
#[cfg(target_arch = "aarch64")]
fn clear_fp_status_flags() {}

/// Nanoseconds per `yield_now` when two fibers and the main context take
/// turns, `yields_per_fiber` times each.
pub fn scheduler_yield_ns(yields_per_fiber: u64) -> io::Result<f64> {
    let yields = Rc::new(Cell::new(0u64));
    let mut fibers = Fibers::default();
    for _ in 0..2 {
        let yields = Rc::clone(&yields);
        fibers.spawn(move || {
            for _ in 0..yields_per_fiber {
                yield_now();
                yields.set(yields.get() + 1);
            }
        })?;
    }
    let start = Instant::now();
    fibers.run();
    let elapsed = start.elapsed();
    // The main context yields once per round too: one round is three yields
    // for every two the fibers count.
    let total = yields.get() * 3 / 2;
    Ok(elapsed.as_nanos() as f64 / total.max(1) as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn switches_cost_something_finite() {
        for routine in [
            Routine::Inline,
            Routine::SavingAll,
            Routine::ByCall,
            Routine::SavingAllFlagsDiffer,
        ] {
            let raw = raw_switch_ns(10_000, routine).unwrap();
            assert!(raw.is_finite() && raw > 0.0);
        }
        let scheduled = scheduler_yield_ns(10_000).unwrap();
        assert!(scheduled.is_finite() && scheduled > 0.0);
    }
}
