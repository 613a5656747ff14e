//! Exercise ch02_pin: pin a thread to one CPU.
//!
//! To measure a context switch, Chapter 2 pins both threads of a ping-pong
//! to the same CPU, so that every hand-off makes the kernel switch. Linux
//! takes that wish through `sched_setaffinity(2)`: pid 0 means "the calling
//! thread", and the set is a `libc::cpu_set_t` bit mask filled with
//! `libc::CPU_ZERO` / `libc::CPU_SET`. Write both functions below with the
//! `libc` crate (every `unsafe` block needs a `// SAFETY:` comment saying why
//! it is sound):
//!
//! * [`allowed_cpus`]: the CPUs the calling thread may run on, ascending
//!   (`sched_getaffinity` and `libc::CPU_ISSET`);
//! * [`pin_current_thread`]: restrict the calling thread to `cpu`. A CPU
//!   number that does not fit in a `cpu_set_t` is an `InvalidInput` error (not
//!   a panic, and never a write outside the set); a CPU the kernel refuses
//!   is the OS error it returns (`io::Error::last_os_error()`).
//!
//! Check: `cargo run -p exercises -- check ch02_pin`. Hint:
//! `cargo run -p exercises -- hint ch02_pin`.

use std::io;

/// The CPUs the calling thread may run on, in ascending order.
pub fn allowed_cpus() -> io::Result<Vec<usize>> {
    todo!("ask sched_getaffinity")
}

/// Restricts the calling thread to `cpu`.
pub fn pin_current_thread(cpu: usize) -> io::Result<()> {
    todo!("pin to CPU {cpu} with sched_setaffinity")
}
