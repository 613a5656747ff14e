//! Tests for exercise ch01_fork_wait (`exercises/ch01/fork_wait.rs`).

#[cfg_attr(not(feature = "solutions"), path = "../ch01/fork_wait.rs")]
#[cfg_attr(feature = "solutions", path = "../solutions/ch01/fork_wait.rs")]
#[allow(dead_code, unused_variables, unused_imports)]
mod fork_wait;

mod ch01_fork_wait {
    use super::fork_wait::{Child, Ended, decode, reap, run_child};

    #[test]
    fn an_exit_status_is_the_code_not_the_raw_number() {
        // The layout Linux uses: the code in bits 8-15, the low byte zero.
        assert_eq!(decode(0), Some(Ended::Exited(0)));
        assert_eq!(decode(3 << 8), Some(Ended::Exited(3)));
        assert_eq!(decode(255 << 8), Some(Ended::Exited(255)));
    }

    #[test]
    fn a_signal_status_is_the_signal_even_with_a_core_dump() {
        assert_eq!(decode(libc::SIGKILL), Some(Ended::Killed(libc::SIGKILL)));
        assert_eq!(decode(libc::SIGTERM), Some(Ended::Killed(libc::SIGTERM)));
        // 0x80 is the "core dumped" bit: still killed by SIGABRT (6).
        assert_eq!(
            decode(libc::SIGABRT | 0x80),
            Some(Ended::Killed(libc::SIGABRT))
        );
    }

    #[test]
    fn a_stopped_child_is_neither_exited_nor_killed() {
        // Stopped by SIGSTOP: 0x7f in the low byte, the signal above it.
        assert_eq!(decode((libc::SIGSTOP << 8) | 0x7f), None);
        // Continued (SIGCONT): 0xffff.
        assert_eq!(decode(0xffff), None);
    }

    #[test]
    fn a_child_that_exits_is_reaped_with_its_code() {
        assert_eq!(run_child(Child::Exit(0)).unwrap(), Ended::Exited(0));
        assert_eq!(run_child(Child::Exit(3)).unwrap(), Ended::Exited(3));
        assert_eq!(run_child(Child::Exit(255)).unwrap(), Ended::Exited(255));
    }

    #[test]
    fn a_child_killed_by_a_signal_is_reported_so() {
        assert_eq!(
            run_child(Child::Signal(libc::SIGKILL)).unwrap(),
            Ended::Killed(libc::SIGKILL)
        );
        assert_eq!(
            run_child(Child::Signal(libc::SIGTERM)).unwrap(),
            Ended::Killed(libc::SIGTERM)
        );
    }

    #[test]
    fn a_child_the_signal_did_not_kill_exits_with_127() {
        // Signal 0 only checks that the process exists: nothing is sent.
        assert_eq!(run_child(Child::Signal(0)).unwrap(), Ended::Exited(127));
    }

    #[test]
    fn many_children_at_once_are_each_reaped_by_their_own_parent() {
        // Eight threads fork at the same time: a parent that waited for any
        // child (-1) would steal another thread's child, which then finds
        // nothing to reap.
        let threads: Vec<_> = (0..8u8)
            .map(|i| {
                std::thread::spawn(move || {
                    for round in 0..10u8 {
                        let code = i * 10 + round;
                        assert_eq!(run_child(Child::Exit(code)).unwrap(), Ended::Exited(code));
                    }
                })
            })
            .collect();
        for thread in threads {
            thread.join().unwrap();
        }
    }

    #[test]
    fn reaping_a_process_that_is_not_our_child_is_echild() {
        let me = std::process::id() as libc::pid_t;
        let err = reap(me).unwrap_err();
        assert_eq!(err.raw_os_error(), Some(libc::ECHILD));
    }
}
