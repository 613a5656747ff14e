//! Tests for exercise ch02_pin (`exercises/ch02/pin.rs`).

#[cfg_attr(not(feature = "solutions"), path = "../ch02/pin.rs")]
#[cfg_attr(feature = "solutions", path = "../solutions/ch02/pin.rs")]
#[allow(dead_code, unused_variables, unused_imports)]
mod pin;

mod ch02_pin {
    use super::pin::{allowed_cpus, pin_current_thread};
    use std::io;
    use std::thread;

    /// What the kernel says about the calling thread, asked independently of
    /// the code under test.
    fn kernel_view() -> (Vec<usize>, usize) {
        let status = std::fs::read_to_string("/proc/thread-self/status").unwrap();
        let list = status
            .lines()
            .find_map(|l| l.strip_prefix("Cpus_allowed_list:"))
            .unwrap()
            .trim()
            .to_string();
        let mut cpus = Vec::new();
        for part in list.split(',') {
            match part.split_once('-') {
                Some((a, b)) => cpus.extend(a.parse::<usize>().unwrap()..=b.parse().unwrap()),
                None => cpus.push(part.parse().unwrap()),
            }
        }
        // SAFETY: sched_getcpu has no preconditions.
        let now = unsafe { libc::sched_getcpu() } as usize;
        (cpus, now)
    }

    #[test]
    fn allowed_cpus_agrees_with_the_kernel() {
        thread::spawn(|| {
            let (kernel, _) = kernel_view();
            assert_eq!(allowed_cpus().unwrap(), kernel);
        })
        .join()
        .unwrap();
    }

    #[test]
    fn a_pinned_thread_runs_only_where_it_was_pinned() {
        let cpus = thread::spawn(|| allowed_cpus().unwrap()).join().unwrap();
        for &cpu in &cpus {
            thread::spawn(move || {
                pin_current_thread(cpu).unwrap();
                for _ in 0..100 {
                    thread::yield_now();
                    let (allowed, now) = kernel_view();
                    assert_eq!(allowed, vec![cpu]);
                    assert_eq!(now, cpu);
                }
                assert_eq!(allowed_cpus().unwrap(), vec![cpu]);
            })
            .join()
            .unwrap();
        }
    }

    #[test]
    fn pinning_affects_only_the_calling_thread() {
        let before = kernel_view().0;
        let cpus = before.clone();
        thread::spawn(move || pin_current_thread(cpus[0]).unwrap())
            .join()
            .unwrap();
        assert_eq!(kernel_view().0, before);
    }

    #[test]
    fn a_cpu_beyond_the_set_is_invalid_input() {
        let err = thread::spawn(|| pin_current_thread(1_000_000).unwrap_err())
            .join()
            .unwrap();
        assert_eq!(err.kind(), io::ErrorKind::InvalidInput);
    }

    #[test]
    fn a_cpu_the_kernel_refuses_is_its_error() {
        // CPU 1023 fits in a cpu_set_t but exists on no machine this runs on.
        let err = thread::spawn(|| pin_current_thread(1023).unwrap_err())
            .join()
            .unwrap();
        assert_eq!(err.raw_os_error(), Some(libc::EINVAL));
    }
}
