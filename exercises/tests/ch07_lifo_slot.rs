//! Tests for exercise ch07_lifo_slot (`exercises/ch07/lifo_slot.rs`).

#[cfg_attr(not(feature = "solutions"), path = "../ch07/lifo_slot.rs")]
#[cfg_attr(feature = "solutions", path = "../solutions/ch07/lifo_slot.rs")]
#[allow(dead_code, unused_variables, unused_imports)]
mod lifo_slot;

mod ch07_lifo_slot {
    use super::lifo_slot::{LocalQueue, MAX_LIFO_POLLS};

    fn queue(ring: impl IntoIterator<Item = u32>) -> LocalQueue {
        LocalQueue {
            ring: ring.into_iter().collect(),
            ..LocalQueue::default()
        }
    }

    #[test]
    fn a_spawned_task_runs_next_from_the_slot() {
        let mut q = queue([1, 2]);
        assert_eq!(q.next(), Some((1, false)));
        q.schedule(10, false);
        assert_eq!(q.next(), Some((10, true)));
        assert_eq!(q.next(), Some((2, false)));
        assert_eq!(q.next(), None);
    }

    #[test]
    fn a_newer_task_evicts_the_older_to_the_back_of_the_ring() {
        let mut q = queue([1, 2]);
        assert_eq!(q.next(), Some((1, false)));
        q.schedule(10, false);
        q.schedule(11, false);
        assert_eq!(q.lifo, Some(11));
        assert_eq!(q.ring, [2, 10]);
        assert_eq!(q.next(), Some((11, true)));
    }

    #[test]
    fn a_yielding_task_goes_to_the_back_of_the_ring() {
        let mut q = queue([1, 2]);
        assert_eq!(q.next(), Some((1, false)));
        q.schedule(1, true);
        assert_eq!(q.lifo, None);
        assert_eq!(q.next(), Some((2, false)));
        assert_eq!(q.next(), Some((1, false)));
    }

    #[test]
    fn after_three_lifo_polls_the_ring_gets_its_turn() {
        // Task 1 starts a chain: each task spawns the next.
        let mut q = queue([1, 99]);
        let mut order = Vec::new();
        let mut next_id = 2;
        while let Some((task, from_slot)) = q.next() {
            order.push((task, from_slot));
            assert!(order.len() <= 9, "nine tasks, and still polling: {order:?}");
            if task != 99 && next_id < 9 {
                q.schedule(next_id, false);
                next_id += 1;
            }
        }
        assert_eq!(MAX_LIFO_POLLS, 3);
        assert_eq!(
            &order[..6],
            &[
                (1, false),
                (2, true),
                (3, true),
                (4, true),
                (99, false),
                (5, false)
            ],
            "task 5 was spawned while the slot was off, so it queued behind 99"
        );
    }

    #[test]
    fn a_ping_pong_pair_cannot_starve_the_ring() {
        // Tasks 1 and 2 wake each other forever; 50 waits in the ring.
        let mut q = queue([1, 50]);
        let mut polls = 0;
        loop {
            let (task, _) = q.next().expect("never empty");
            polls += 1;
            if task == 50 {
                break;
            }
            q.schedule(if task == 1 { 2 } else { 1 }, false);
            assert!(polls < 10, "the ring's task never ran");
        }
        assert_eq!(polls, 1 + MAX_LIFO_POLLS + 1);
    }

    #[test]
    fn a_task_from_the_ring_switches_the_slot_back_on() {
        let mut q = queue([1, 2, 3, 4, 5]);
        assert_eq!(q.next(), Some((1, false)));
        for id in 10..13 {
            q.schedule(id, false);
            assert_eq!(q.next(), Some((id, true)));
        }
        // Off now.
        q.schedule(20, false);
        assert_eq!(q.lifo, None);
        assert_eq!(q.next(), Some((2, false)));
        q.schedule(21, false);
        assert_eq!(q.next(), Some((21, true)));
    }
}
