//! Tests for exercise ch07_steal_half (`exercises/ch07/steal_half.rs`).

#[cfg_attr(not(feature = "solutions"), path = "../ch07/steal_half.rs")]
#[cfg_attr(feature = "solutions", path = "../solutions/ch07/steal_half.rs")]
#[allow(dead_code, unused_variables, unused_imports)]
mod steal_half;

mod ch07_steal_half {
    use super::steal_half::{CAPACITY, Ring};

    fn ring(start: u32, tasks: impl IntoIterator<Item = u32>) -> Ring {
        let mut ring = Ring::starting_at(start);
        for task in tasks {
            ring.push(task).unwrap();
        }
        ring
    }

    /// Pops until the ring says it is empty; a ring that hands out more
    /// tasks than it can hold fails here rather than looping forever.
    fn drain(ring: &mut Ring) -> Vec<u32> {
        let tasks: Vec<u32> = std::iter::from_fn(|| ring.pop())
            .take(CAPACITY + 1)
            .collect();
        assert!(tasks.len() <= CAPACITY, "popped more than a ring holds");
        tasks
    }

    #[test]
    fn steals_half_rounded_up_from_the_head() {
        let mut victim = ring(0, 1..=7);
        let mut thief = Ring::starting_at(100);
        assert_eq!(victim.steal_half(&mut thief), Some(4));
        assert_eq!(drain(&mut thief), vec![1, 2, 3]);
        assert_eq!(drain(&mut victim), vec![5, 6, 7]);
    }

    #[test]
    fn one_task_is_stolen_and_returned() {
        let mut victim = ring(0, [42]);
        let mut thief = Ring::starting_at(0);
        assert_eq!(victim.steal_half(&mut thief), Some(42));
        assert!(thief.is_empty() && victim.is_empty());
    }

    #[test]
    fn an_empty_victim_gives_nothing() {
        let mut victim = Ring::starting_at(5);
        let mut thief = Ring::starting_at(9);
        assert_eq!(victim.steal_half(&mut thief), None);
        assert!(thief.is_empty());
    }

    #[test]
    fn a_thief_more_than_half_full_does_not_steal() {
        let mut victim = ring(0, 1..=6);
        let mut thief = ring(0, 100..100 + CAPACITY as u32 / 2 + 1);
        assert_eq!(victim.steal_half(&mut thief), None);
        assert_eq!(victim.len(), 6);
        assert_eq!(thief.len(), CAPACITY / 2 + 1);
    }

    #[test]
    fn a_thief_exactly_half_full_still_steals_into_the_rest() {
        let mut victim = ring(0, 1..=8);
        let mut thief = ring(0, 100..100 + CAPACITY as u32 / 2);
        assert_eq!(victim.steal_half(&mut thief), Some(4));
        assert_eq!(drain(&mut thief), vec![100, 101, 102, 103, 1, 2, 3]);
    }

    #[test]
    fn positions_wrap_around_u32_max() {
        let mut victim = ring(u32::MAX - 2, 1..=6);
        let mut thief = ring(u32::MAX, [50]);
        assert_eq!(victim.steal_half(&mut thief), Some(3));
        assert_eq!(drain(&mut thief), vec![50, 1, 2]);
        assert_eq!(drain(&mut victim), vec![4, 5, 6]);
        assert!(victim.is_empty());
    }

    #[test]
    fn repeated_steals_move_everything_exactly_once() {
        let mut victim = ring(u32::MAX - 3, 0..8);
        let mut seen = Vec::new();
        let mut steals = 0;
        while !victim.is_empty() {
            steals += 1;
            assert!(steals <= 8, "eight tasks, and still not empty");
            let mut thief = Ring::starting_at(7);
            seen.extend(victim.steal_half(&mut thief));
            seen.extend(drain(&mut thief));
        }
        seen.sort_unstable();
        assert_eq!(seen, (0..8).collect::<Vec<_>>());
    }
}
