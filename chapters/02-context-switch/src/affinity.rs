//! Pinning a thread to a CPU, so a context switch is really a switch.
//!
//! Two threads that hand a token back and forth on two different CPUs never
//! switch at all: each simply sleeps and is woken on its own CPU. To measure
//! the switch, both threads must share one CPU, so that every hand-off makes
//! the kernel save one thread and restore the other there. The kernel takes
//! such wishes through `sched_setaffinity(2)`: a set of CPUs a thread may run
//! on. We also read the set the process may use (a container or `taskset` may
//! have narrowed it), so we only ask for CPUs that are allowed.

use std::io;
use std::mem;

/// The CPUs this thread may run on, in ascending order.
pub fn allowed_cpus() -> io::Result<Vec<usize>> {
    // SAFETY: an all-zero cpu_set_t is a valid, empty set.
    let mut set: libc::cpu_set_t = unsafe { mem::zeroed() };
    // SAFETY: `set` is a valid cpu_set_t of the size we pass; pid 0 means the
    // calling thread.
    let rc = unsafe { libc::sched_getaffinity(0, mem::size_of::<libc::cpu_set_t>(), &mut set) };
    if rc != 0 {
        return Err(io::Error::last_os_error());
    }
    let max = 8 * mem::size_of::<libc::cpu_set_t>();
    // SAFETY: CPU_ISSET reads the set within its bounds (cpu < max).
    Ok((0..max)
        .filter(|&cpu| unsafe { libc::CPU_ISSET(cpu, &set) })
        .collect())
}

// ANCHOR: pin
/// Restricts the calling thread to one CPU.
pub fn pin_current_thread(cpu: usize) -> io::Result<()> {
    // SAFETY: an all-zero cpu_set_t is a valid, empty set.
    let mut set: libc::cpu_set_t = unsafe { mem::zeroed() };
    if cpu >= 8 * mem::size_of::<libc::cpu_set_t>() {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, "no such CPU"));
    }
    // SAFETY: CPU_SET writes inside the set: `cpu` is in range (checked).
    unsafe { libc::CPU_SET(cpu, &mut set) };
    // SAFETY: `set` is a valid cpu_set_t of the size we pass; pid 0 means the
    // calling thread (not the whole process).
    let rc = unsafe { libc::sched_setaffinity(0, mem::size_of::<libc::cpu_set_t>(), &set) };
    if rc != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}
// ANCHOR_END: pin

/// The CPU the calling thread is running on right now.
pub fn current_cpu() -> usize {
    // SAFETY: sched_getcpu has no preconditions.
    let cpu = unsafe { libc::sched_getcpu() };
    usize::try_from(cpu).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pinned_thread_runs_where_it_was_pinned() {
        let cpus = allowed_cpus().unwrap();
        assert!(!cpus.is_empty());
        let target = *cpus.last().unwrap();
        std::thread::spawn(move || {
            pin_current_thread(target).unwrap();
            assert_eq!(allowed_cpus().unwrap(), vec![target]);
            assert_eq!(current_cpu(), target);
        })
        .join()
        .unwrap();
    }

    #[test]
    fn an_absurd_cpu_is_an_error() {
        assert!(pin_current_thread(1 << 20).is_err());
    }
}
