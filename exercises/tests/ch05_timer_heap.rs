//! Tests for exercise ch05_timer_heap (`exercises/ch05/timer_heap.rs`).

#[cfg_attr(not(feature = "solutions"), path = "../ch05/timer_heap.rs")]
#[cfg_attr(feature = "solutions", path = "../solutions/ch05/timer_heap.rs")]
#[allow(dead_code, unused_variables, unused_imports)]
mod timer_heap;

mod ch05_timer_heap {
    use super::timer_heap::Timers;
    use std::time::{Duration, Instant};

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn due_timers_pop_earliest_first_and_ties_in_insertion_order() {
        let t0 = Instant::now();
        let mut timers = Timers::default();
        let c = timers.insert(t0 + ms(30));
        let a = timers.insert(t0 + ms(10));
        let b1 = timers.insert(t0 + ms(20));
        let b2 = timers.insert(t0 + ms(20));
        assert_eq!(timers.len(), 4);
        assert!(!timers.is_empty());
        assert_eq!(timers.pop_expired(t0 + ms(5)), None);
        let now = t0 + ms(25);
        assert_eq!(timers.pop_expired(now), Some(a));
        assert_eq!(timers.pop_expired(now), Some(b1));
        assert_eq!(timers.pop_expired(now), Some(b2));
        assert_eq!(timers.pop_expired(now), None);
        assert_eq!(timers.next_deadline(), Some(t0 + ms(30)));
        assert_eq!(timers.pop_expired(t0 + ms(30)), Some(c));
        assert!(timers.is_empty());
        assert_eq!(timers.next_deadline(), None);
    }

    #[test]
    fn cancelled_timers_neither_fire_nor_set_the_deadline() {
        let t0 = Instant::now();
        let mut timers = Timers::default();
        let first = timers.insert(t0 + ms(1));
        let second = timers.insert(t0 + ms(2));
        assert!(timers.cancel(first));
        assert!(!timers.cancel(first));
        assert_eq!(timers.len(), 1);
        assert!(!timers.is_empty(), "one timer is still pending");
        assert_eq!(timers.next_deadline(), Some(t0 + ms(2)));
        assert_eq!(timers.pop_expired(t0 + ms(10)), Some(second));
        assert!(!timers.cancel(second), "a fired timer is not pending");
        assert!(!timers.cancel(12345), "an unknown id is not pending");
    }

    #[test]
    fn ids_are_never_reused() {
        let t0 = Instant::now();
        let mut timers = Timers::default();
        let mut seen = std::collections::HashSet::new();
        for i in 0..100 {
            let id = timers.insert(t0 + ms(i));
            assert!(seen.insert(id));
            if i % 2 == 0 {
                timers.cancel(id);
            } else {
                timers.pop_expired(t0 + ms(1000));
            }
        }
        assert!(timers.is_empty());
    }

    #[test]
    fn many_timers_come_out_sorted() {
        let t0 = Instant::now();
        let mut timers = Timers::default();
        let mut x = 12345u64;
        let mut ids = Vec::new();
        for _ in 0..1000 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ids.push((
                x % 100_000,
                timers.insert(t0 + Duration::from_micros(x % 100_000)),
            ));
        }
        let mut last = Duration::ZERO;
        let end = t0 + ms(1000);
        let mut count = 0;
        while let Some(id) = timers.pop_expired(end) {
            assert!(count < 1000, "more timers fired than were set");
            let at = ids.iter().find(|(_, i)| *i == id).unwrap().0;
            assert!(Duration::from_micros(at) >= last);
            last = Duration::from_micros(at);
            count += 1;
        }
        assert_eq!(count, 1000);
    }
}
