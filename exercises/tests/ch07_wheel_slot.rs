//! Tests for exercise ch07_wheel_slot (`exercises/ch07/wheel_slot.rs`).

#[cfg_attr(not(feature = "solutions"), path = "../ch07/wheel_slot.rs")]
#[cfg_attr(feature = "solutions", path = "../solutions/ch07/wheel_slot.rs")]
#[allow(dead_code, unused_variables, unused_imports)]
mod wheel_slot;

mod ch07_wheel_slot {
    use super::wheel_slot::{level_and_slot, slot_start};

    #[test]
    fn near_timers_are_level_zero_one_slot_per_millisecond() {
        assert_eq!(level_and_slot(0, 1), (0, 1));
        assert_eq!(level_and_slot(0, 63), (0, 63));
        assert_eq!(level_and_slot(100, 120), (0, 120 % 64));
    }

    #[test]
    fn farther_timers_go_up_a_level_per_six_bits() {
        assert_eq!(level_and_slot(0, 64), (1, 1));
        assert_eq!(level_and_slot(0, 4095), (1, 63));
        assert_eq!(level_and_slot(0, 4096), (2, 1));
        assert_eq!(level_and_slot(0, 1 << 30), (5, 1));
    }

    #[test]
    fn a_short_distance_across_a_block_boundary_is_a_higher_level() {
        // 63 and 64 differ in bit 6: a 1 ms timer on level 1.
        assert_eq!(level_and_slot(63, 64), (1, 1));
        // 4095 -> 4096 crosses a level-1 boundary: level 2.
        assert_eq!(level_and_slot(4095, 4096), (2, 1));
    }

    #[test]
    fn the_slot_start_is_never_after_the_deadline_and_within_one_slot() {
        for (now, deadline) in [
            (0u64, 70u64),
            (5, 5_000),
            (123_456, 987_654),
            (1 << 20, (1 << 20) + 333),
        ] {
            let (level, slot) = level_and_slot(now, deadline);
            let start = slot_start(now, level, slot);
            let width = 1u64 << (6 * level);
            assert!(
                start <= deadline && deadline < start + width,
                "{now} {deadline}: {level}/{slot} at {start}"
            );
            assert!(
                start > now || level == 0,
                "a higher-level slot starts in the future"
            );
        }
    }

    #[test]
    fn slot_starts() {
        assert_eq!(slot_start(10, 0, 20), 20);
        assert_eq!(slot_start(100, 1, 2), 128);
        assert_eq!(slot_start(5_000, 2, 1), 4_096);
    }
}
