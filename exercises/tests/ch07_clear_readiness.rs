//! Tests for exercise ch07_clear_readiness (`exercises/ch07/clear_readiness.rs`).

#[cfg_attr(not(feature = "solutions"), path = "../ch07/clear_readiness.rs")]
#[cfg_attr(feature = "solutions", path = "../solutions/ch07/clear_readiness.rs")]
#[allow(dead_code, unused_variables, unused_imports)]
mod clear_readiness;

mod ch07_clear_readiness {
    use super::clear_readiness::*;
    use std::sync::Arc;
    use std::sync::atomic::AtomicU64;

    #[test]
    fn set_adds_bits_and_stamps_the_tick() {
        let word = AtomicU64::new(0);
        set_readiness(&word, 1, READABLE);
        set_readiness(&word, 2, WRITABLE);
        assert_eq!(
            observe(&word),
            ReadyEvent {
                tick: 2,
                ready: READABLE | WRITABLE
            }
        );
        // A bit that is set already stays set when it comes again.
        set_readiness(&word, 3, READABLE);
        assert_eq!(
            observe(&word),
            ReadyEvent {
                tick: 3,
                ready: READABLE | WRITABLE
            }
        );
    }

    #[test]
    fn a_clear_with_the_current_tick_clears_only_what_was_seen() {
        let word = AtomicU64::new(0);
        set_readiness(&word, 7, READABLE | WRITABLE);
        clear_readiness(
            &word,
            ReadyEvent {
                tick: 7,
                ready: READABLE,
            },
        );
        assert_eq!(
            observe(&word),
            ReadyEvent {
                tick: 7,
                ready: WRITABLE
            }
        );
    }

    #[test]
    fn a_clear_after_a_new_edge_changes_nothing() {
        let word = AtomicU64::new(0);
        set_readiness(&word, 1, READABLE);
        let seen = observe(&word);
        // The task reads until WouldBlock; meanwhile a new edge arrives.
        set_readiness(&word, 2, READABLE);
        clear_readiness(&word, seen);
        assert_eq!(
            observe(&word),
            ReadyEvent {
                tick: 2,
                ready: READABLE
            },
            "the new edge was lost"
        );
    }

    #[test]
    fn ticks_wrap() {
        let word = AtomicU64::new(0);
        set_readiness(&word, u16::MAX, READABLE);
        let seen = observe(&word);
        set_readiness(&word, 0, READABLE);
        clear_readiness(&word, seen);
        assert_eq!(observe(&word).ready, READABLE);
    }

    #[test]
    fn a_racing_driver_never_loses_its_last_edge() {
        // A driver sets readable at ticks 1..=N while a task keeps seeing and
        // clearing. After both stop, if the driver's last set came after the
        // task's last look, the word must still be readable.
        for _ in 0..200 {
            let word = Arc::new(AtomicU64::new(0));
            let driver = {
                let word = word.clone();
                std::thread::spawn(move || {
                    for tick in 1..=50u16 {
                        set_readiness(&word, tick, READABLE);
                    }
                })
            };
            let mut last_seen_tick = 0;
            for _ in 0..50 {
                let seen = observe(&word);
                last_seen_tick = seen.tick;
                clear_readiness(&word, seen);
            }
            driver.join().unwrap();
            let end = observe(&word);
            assert_eq!(end.tick, 50);
            if last_seen_tick != 50 {
                assert_eq!(end.ready, READABLE, "the edge of tick 50 was erased");
            }
        }
    }
}
