//! `task::block_in_place`: a task blocks its thread without stalling the
//! worker's other tasks, because the worker moves to a new thread.
#![cfg(not(loom))]
#![cfg(not(miri))]

use rt::runtime::Builder;
use rt::task;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

/// Runs `body` on its own thread; a hang fails after 20 s.
fn limit(body: impl FnOnce() + Send + 'static) {
    let (done, finished) = std::sync::mpsc::channel();
    let thread = std::thread::spawn(move || {
        body();
        let _ = done.send(());
    });
    match finished.recv_timeout(Duration::from_secs(20)) {
        Ok(()) => thread.join().unwrap(),
        Err(_) if thread.is_finished() => {
            if let Err(panic) = thread.join() {
                std::panic::resume_unwind(panic);
            }
        }
        Err(_) => panic!("the test hung"),
    }
}

// ANCHOR: single_worker
#[test]
fn the_other_tasks_run_while_one_blocks_in_place_on_the_only_worker() {
    limit(|| {
        let rt = Builder::new_multi_thread()
            .worker_threads(1)
            .build()
            .unwrap();
        rt.block_on(async {
            let released = Arc::new(AtomicBool::new(false));
            let blocker = {
                let released = released.clone();
                rt::spawn(async move {
                    task::block_in_place(|| {
                        // Blocks this thread until another task, which can
                        // only run on the worker's new thread, says so.
                        while !released.load(Ordering::SeqCst) {
                            std::thread::sleep(Duration::from_millis(1));
                        }
                    });
                    // After the closure the task goes on, and may yield.
                    task::yield_now().await;
                    7
                })
            };
            // Let the blocker start blocking.
            rt::time::sleep(Duration::from_millis(20)).await;
            let other = rt::spawn({
                let released = released.clone();
                async move {
                    released.store(true, Ordering::SeqCst);
                }
            });
            other.await.unwrap();
            assert_eq!(blocker.await.unwrap(), 7);
        });
        // The runtime still works, with its one worker, and shuts down.
        let count = Arc::new(AtomicUsize::new(0));
        rt.block_on(async {
            for _ in 0..100 {
                let count = count.clone();
                rt::spawn(async move {
                    count.fetch_add(1, Ordering::SeqCst);
                })
                .await
                .unwrap();
            }
        });
        assert_eq!(count.load(Ordering::SeqCst), 100);
        drop(rt);
    });
}
// ANCHOR_END: single_worker

#[test]
fn block_on_works_inside_block_in_place() {
    limit(|| {
        let rt = Builder::new_multi_thread()
            .worker_threads(2)
            .build()
            .unwrap();
        let value = rt.block_on(async {
            rt::spawn(async {
                task::block_in_place(|| {
                    rt::runtime::Handle::current().block_on(async {
                        rt::time::sleep(Duration::from_millis(1)).await;
                        5
                    })
                })
            })
            .await
            .unwrap()
        });
        assert_eq!(value, 5);
    });
}

#[test]
fn outside_a_runtime_it_just_runs_and_on_current_thread_it_panics() {
    assert_eq!(task::block_in_place(|| 3), 3);
    let rt = Builder::new_current_thread().build().unwrap();
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        rt.block_on(async { task::block_in_place(|| 1) })
    }));
    assert!(
        result.is_err(),
        "block_in_place on the current-thread runtime must panic"
    );
}

#[test]
fn many_tasks_block_in_place_at_once() {
    limit(|| {
        let rt = Builder::new_multi_thread()
            .worker_threads(2)
            .build()
            .unwrap();
        let total = rt.block_on(async {
            let handles: Vec<_> = (0..20u64)
                .map(|i| {
                    rt::spawn(async move {
                        let v = task::block_in_place(|| {
                            std::thread::sleep(Duration::from_millis(2));
                            i
                        });
                        task::yield_now().await;
                        v
                    })
                })
                .collect();
            let mut total = 0;
            for handle in handles {
                total += handle.await.unwrap();
            }
            total
        });
        assert_eq!(total, 190);
    });
}

/// Runs `block_in_place` on the only worker of a runtime built with
/// `builder`, and returns the name of the thread on which a task spawned
/// meanwhile ran: the new thread that took the worker's core.
fn name_of_the_thread_that_takes_over(mut builder: Builder) -> String {
    let rt = builder.worker_threads(1).build().unwrap();
    rt.block_on(async {
        rt::spawn(async {
            task::block_in_place(|| {
                let (tx, rx) = std::sync::mpsc::channel();
                rt::spawn(async move {
                    let name = std::thread::current().name().map(str::to_string);
                    tx.send(name).unwrap();
                });
                rx.recv_timeout(Duration::from_secs(10))
                    .expect("the spawned task ran on the worker's new thread")
            })
        })
        .await
        .unwrap()
        .expect("the runtime's threads have names")
    })
}

#[test]
fn the_thread_that_takes_over_a_worker_has_the_runtimes_thread_name() {
    limit(|| {
        let mut builder = Builder::new_multi_thread();
        builder.thread_name("custom");
        assert_eq!(name_of_the_thread_that_takes_over(builder), "custom");
        let mut builder = Builder::new_multi_thread();
        builder.thread_name_fn(|| "from-fn".to_string());
        assert_eq!(name_of_the_thread_that_takes_over(builder), "from-fn");
        // Without a name, the new thread carries the worker's number.
        let builder = Builder::new_multi_thread();
        assert_eq!(name_of_the_thread_that_takes_over(builder), "rt-worker-0");
    });
}
