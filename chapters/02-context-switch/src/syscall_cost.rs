//! The price of entering the kernel at all.
//!
//! Every kernel-level context switch starts with a system call (or an
//! interrupt): the CPU leaves user mode, jumps to the kernel's entry code,
//! saves the user registers on the kernel stack, does the work, and comes
//! back. To see that floor, we time the most trivial system call there is,
//! `getppid` (read one field of our own task), through `libc::syscall` so no
//! C library cache can answer it for us, against a plain function call that
//! the compiler is not allowed to inline away. Book: Chapter 2, "Crossing
//! into the kernel".

use chapter_01::measure::{Samples, time_batches};

/// How many batches of how many calls to time.
#[derive(Debug, Clone, Copy)]
pub struct SyscallConfig {
    /// Timed batches (the median batch is reported).
    pub batches: usize,
    /// Calls per batch.
    pub calls_per_batch: usize,
}

impl SyscallConfig {
    /// A stable figure in about a second.
    pub fn full() -> SyscallConfig {
        SyscallConfig {
            batches: 100,
            calls_per_batch: 20_000,
        }
    }

    /// A quick look.
    pub fn quick() -> SyscallConfig {
        SyscallConfig {
            batches: 20,
            calls_per_batch: 5_000,
        }
    }
}

/// Time per call, in ns, for each.
#[derive(Debug, Clone)]
pub struct SyscallCost {
    /// `syscall(SYS_getppid)`.
    pub syscall: Samples,
    /// A non-inlined Rust function doing comparable trivial work.
    pub function_call: Samples,
}

// ANCHOR: calls
/// The cheapest system call: the kernel returns one field of our task.
pub fn trivial_syscall() -> i64 {
    // SAFETY: getppid takes no arguments and cannot fail.
    unsafe { libc::syscall(libc::SYS_getppid) }
}

/// A function call that stays a call: `#[inline(never)]`, and its argument
/// and result pass through `black_box` so nothing is computed at compile time.
#[inline(never)]
pub fn trivial_function(x: i64) -> i64 {
    std::hint::black_box(x).wrapping_add(1)
}
// ANCHOR_END: calls

/// Times both.
pub fn measure(config: SyscallConfig) -> SyscallCost {
    let syscall = time_batches(config.batches, config.calls_per_batch, trivial_syscall);
    let mut x = 0;
    let function_call = time_batches(config.batches, config.calls_per_batch, || {
        x = trivial_function(x);
        x
    });
    SyscallCost {
        syscall,
        function_call,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_cost_something() {
        let cost = measure(SyscallConfig {
            batches: 3,
            calls_per_batch: 100,
        });
        assert!(cost.syscall.median_ns() > 0.0);
        assert!(cost.function_call.median_ns() > 0.0);
        assert_eq!(
            trivial_syscall(),
            i64::from(std::os::unix::process::parent_id())
        );
    }
}
