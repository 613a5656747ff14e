//! Tests for exercise ch07_counter (`exercises/ch07/counter.rs`).

#[cfg_attr(not(feature = "solutions"), path = "../ch07/counter.rs")]
#[cfg_attr(feature = "solutions", path = "../solutions/ch07/counter.rs")]
#[allow(dead_code, unused_variables, unused_imports)]
mod counter;

mod ch07_counter {
    use super::counter::{Counter, WorkerCounters};
    use std::sync::Arc;

    #[test]
    fn counts() {
        let counter = Counter::default();
        for _ in 0..10 {
            counter.incr();
        }
        assert_eq!(counter.get(), 10);
    }

    #[test]
    fn a_reader_sees_the_count_only_grow_and_the_writer_loses_nothing() {
        let counters = Arc::new(WorkerCounters::default());
        let writer = {
            let counters = counters.clone();
            std::thread::spawn(move || {
                for _ in 0..1_000_000 {
                    counters.polls.incr();
                }
            })
        };
        let mut last = 0;
        while !writer.is_finished() {
            let now = counters.polls.get();
            assert!(now >= last, "went back from {last} to {now}");
            last = now;
        }
        writer.join().unwrap();
        assert_eq!(counters.polls.get(), 1_000_000);
    }

    #[test]
    fn two_workers_counters_never_share_a_cache_line() {
        assert_eq!(std::mem::align_of::<WorkerCounters>(), 128);
        let two = [WorkerCounters::default(), WorkerCounters::default()];
        let a = &two[0] as *const WorkerCounters as usize;
        let b = &two[1] as *const WorkerCounters as usize;
        assert!(b - a >= 128);
        two[0].steals.incr();
        assert_eq!(two[0].steals.get(), 1);
    }
}
