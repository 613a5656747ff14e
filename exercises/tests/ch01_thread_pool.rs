//! Tests for exercise ch01_thread_pool (`exercises/ch01/thread_pool.rs`).

#[cfg_attr(not(feature = "solutions"), path = "../ch01/thread_pool.rs")]
#[cfg_attr(feature = "solutions", path = "../solutions/ch01/thread_pool.rs")]
#[allow(dead_code, unused_variables, unused_imports)]
mod thread_pool;

mod ch01_thread_pool {
    use super::thread_pool::ThreadPool;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::mpsc;
    use std::sync::{Arc, Mutex};
    use std::thread;
    use std::time::{Duration, Instant};

    /// Generous: only a broken pool takes this long.
    const PATIENCE: Duration = Duration::from_secs(10);

    fn wait_until(what: &str, condition: impl Fn() -> bool) {
        let deadline = Instant::now() + PATIENCE;
        while !condition() {
            assert!(Instant::now() < deadline, "gave up waiting: {what}");
            thread::sleep(Duration::from_millis(1));
        }
    }

    #[test]
    fn every_job_runs_exactly_once() {
        let ran = Arc::new(Mutex::new(vec![0u32; 1000]));
        {
            let pool = ThreadPool::new(4, 16);
            for i in 0..1000 {
                let ran = Arc::clone(&ran);
                pool.execute(move || ran.lock().unwrap()[i] += 1);
            }
        }
        assert!(ran.lock().unwrap().iter().all(|&n| n == 1));
    }

    #[test]
    fn workers_run_jobs_at_the_same_time_but_never_more_than_workers() {
        let running = Arc::new(AtomicUsize::new(0));
        let peak = Arc::new(AtomicUsize::new(0));
        let pool = ThreadPool::new(3, 100);
        for _ in 0..30 {
            let (running, peak) = (Arc::clone(&running), Arc::clone(&peak));
            pool.execute(move || {
                let now = running.fetch_add(1, Ordering::SeqCst) + 1;
                peak.fetch_max(now, Ordering::SeqCst);
                // Hold the worker until three jobs overlap (or give up).
                let deadline = Instant::now() + PATIENCE;
                while peak.load(Ordering::SeqCst) < 3 && Instant::now() < deadline {
                    thread::sleep(Duration::from_millis(1));
                }
                running.fetch_sub(1, Ordering::SeqCst);
            });
        }
        drop(pool);
        assert_eq!(peak.load(Ordering::SeqCst), 3);
    }

    #[test]
    fn execute_blocks_while_the_queue_is_full() {
        let pool = Arc::new(ThreadPool::new(1, 1));
        let (release, blocked) = mpsc::channel::<()>();
        let blocked = Mutex::new(blocked);
        let started = Arc::new(AtomicUsize::new(0));
        {
            let started = Arc::clone(&started);
            // Occupies the only worker until released.
            pool.execute(move || {
                started.fetch_add(1, Ordering::SeqCst);
                let _ = blocked.lock().unwrap().recv();
            });
        }
        wait_until("the first job starts", || {
            started.load(Ordering::SeqCst) == 1
        });
        pool.execute(|| {}); // fills the queue of 1
        let submitted = Arc::new(AtomicUsize::new(0));
        let producer = {
            let (pool, submitted) = (Arc::clone(&pool), Arc::clone(&submitted));
            thread::spawn(move || {
                pool.execute(|| {}); // must wait for room
                submitted.fetch_add(1, Ordering::SeqCst);
            })
        };
        thread::sleep(Duration::from_millis(200));
        assert_eq!(
            submitted.load(Ordering::SeqCst),
            0,
            "execute returned although the queue was full"
        );
        release.send(()).unwrap();
        producer.join().unwrap();
        assert_eq!(submitted.load(Ordering::SeqCst), 1);
    }

    #[test]
    fn a_panicking_job_does_not_kill_its_worker() {
        let pool = ThreadPool::new(2, 10);
        for _ in 0..4 {
            pool.execute(|| panic!("this job fails on purpose"));
        }
        // Both workers must still be alive: two jobs that wait for each other
        // can only finish if they run at the same time.
        let together = Arc::new(AtomicUsize::new(0));
        let (done_tx, done_rx) = mpsc::channel();
        for _ in 0..2 {
            let (together, done_tx) = (Arc::clone(&together), done_tx.clone());
            pool.execute(move || {
                together.fetch_add(1, Ordering::SeqCst);
                let deadline = Instant::now() + PATIENCE;
                while together.load(Ordering::SeqCst) < 2 && Instant::now() < deadline {
                    thread::sleep(Duration::from_millis(1));
                }
                done_tx.send(together.load(Ordering::SeqCst)).unwrap();
            });
        }
        for _ in 0..2 {
            assert_eq!(done_rx.recv_timeout(PATIENCE * 2).unwrap(), 2);
        }
    }

    #[test]
    fn drop_runs_every_queued_job_first() {
        let count = Arc::new(AtomicUsize::new(0));
        let pool = ThreadPool::new(2, 500);
        for _ in 0..500 {
            let count = Arc::clone(&count);
            pool.execute(move || {
                count.fetch_add(1, Ordering::SeqCst);
            });
        }
        // The last job is slow: a drop that does not wait for the workers
        // returns before it has run.
        let slow = Arc::clone(&count);
        pool.execute(move || {
            thread::sleep(Duration::from_millis(300));
            slow.fetch_add(1, Ordering::SeqCst);
        });
        drop(pool);
        assert_eq!(count.load(Ordering::SeqCst), 501);
    }
}
