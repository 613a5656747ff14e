//! Tests for exercise ch06_counting_waker (`exercises/ch06/counting_waker.rs`).

#[cfg_attr(not(feature = "solutions"), path = "../ch06/counting_waker.rs")]
#[cfg_attr(feature = "solutions", path = "../solutions/ch06/counting_waker.rs")]
#[allow(dead_code, unused_variables, unused_imports)]
mod counting_waker;

mod ch06_counting_waker {
    use super::counting_waker::counting_waker;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn wakes_are_counted() {
        let counter = Arc::new(AtomicUsize::new(0));
        let waker = counting_waker(Arc::clone(&counter));
        waker.wake_by_ref();
        waker.wake_by_ref();
        let clone = waker.clone();
        clone.wake(); // a consuming wake on a clone
        waker.wake();
        assert_eq!(counter.load(Ordering::SeqCst), 4);
    }

    #[test]
    fn every_waker_owns_exactly_one_reference() {
        let counter = Arc::new(AtomicUsize::new(0));
        let waker = counting_waker(Arc::clone(&counter));
        assert_eq!(Arc::strong_count(&counter), 2);
        let clones: Vec<_> = (0..10).map(|_| waker.clone()).collect();
        assert_eq!(Arc::strong_count(&counter), 12);
        waker.wake_by_ref();
        assert_eq!(Arc::strong_count(&counter), 12);
        for clone in clones {
            clone.wake();
        }
        assert_eq!(Arc::strong_count(&counter), 2);
        drop(waker);
        assert_eq!(Arc::strong_count(&counter), 1);
        assert_eq!(counter.load(Ordering::SeqCst), 11);
    }

    #[test]
    fn clones_will_wake_the_same_thing() {
        let counter = Arc::new(AtomicUsize::new(0));
        let a = counting_waker(Arc::clone(&counter));
        let b = a.clone();
        assert!(a.will_wake(&b));
        let other = counting_waker(Arc::new(AtomicUsize::new(0)));
        assert!(!a.will_wake(&other));
    }

    #[test]
    fn wakers_work_from_other_threads() {
        let counter = Arc::new(AtomicUsize::new(0));
        let waker = counting_waker(Arc::clone(&counter));
        let threads: Vec<_> = (0..8)
            .map(|_| {
                let waker = waker.clone();
                std::thread::spawn(move || waker.wake())
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        assert_eq!(counter.load(Ordering::SeqCst), 8);
        drop(waker);
        assert_eq!(Arc::strong_count(&counter), 1);
    }
}
