//! The task hooks (`Builder::on_task_spawn`, `on_before_task_poll`,
//! `on_after_task_poll`, `on_task_terminate`): how many times each runs,
//! for which tasks, and on which thread, on both flavours.
#![cfg(not(loom))]
#![cfg(not(miri))]

use rt::runtime::{Builder, Runtime};
use rt::task::Id;
use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::thread::ThreadId;

/// Which hook ran.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Hook {
    Spawn,
    Before,
    After,
    Terminate,
}

/// Every hook call, in one order across threads (the lock's).
#[derive(Clone, Default)]
struct Log(Arc<Mutex<Vec<(Hook, Id, ThreadId)>>>);

impl Log {
    fn record(&self, hook: Hook, id: Id) {
        let thread = std::thread::current().id();
        self.0.lock().unwrap().push((hook, id, thread));
    }

    fn calls(&self) -> Vec<(Hook, Id, ThreadId)> {
        self.0.lock().unwrap().clone()
    }

    /// How many times `hook` ran for each task.
    fn count(&self, hook: Hook) -> HashMap<Id, usize> {
        let mut counts = HashMap::new();
        for (h, id, _) in self.calls() {
            if h == hook {
                *counts.entry(id).or_default() += 1;
            }
        }
        counts
    }

    /// All four hooks of `builder` write here.
    fn install(&self, builder: &mut Builder) -> Runtime {
        let (spawn, before, after, terminate) =
            (self.clone(), self.clone(), self.clone(), self.clone());
        builder
            .on_task_spawn(move |meta| spawn.record(Hook::Spawn, meta.id()))
            .on_before_task_poll(move |meta| before.record(Hook::Before, meta.id()))
            .on_after_task_poll(move |meta| after.record(Hook::After, meta.id()))
            .on_task_terminate(move |meta| terminate.record(Hook::Terminate, meta.id()))
            .build()
            .unwrap()
    }

    /// On each thread, the poll hooks alternate before, after, before, ...
    /// and each after names the task its before named: a poll's two hooks
    /// run on one thread, with no other poll between them.
    fn assert_polls_pair_up(&self) {
        let mut open: HashMap<ThreadId, Option<Id>> = HashMap::new();
        for (hook, id, thread) in self.calls() {
            let slot = open.entry(thread).or_default();
            match hook {
                Hook::Before => {
                    assert_eq!(*slot, None, "task {id}'s poll began inside another's");
                    *slot = Some(id);
                }
                Hook::After => {
                    assert_eq!(
                        *slot,
                        Some(id),
                        "an after-poll hook with no before on its thread"
                    );
                    *slot = None;
                }
                Hook::Spawn | Hook::Terminate => {}
            }
        }
        assert!(open.values().all(Option::is_none), "a poll never ended");
    }
}

/// Tasks that each yield twice (three polls), spawned from `block_on`.
/// The runtime is dropped before the log is read, so every hook has run.
fn three_polls_each(log: &Log, runtime: Runtime, tasks: usize) -> HashSet<Id> {
    let ids = runtime.block_on(async {
        let handles: Vec<_> = (0..tasks)
            .map(|_| {
                rt::spawn(async {
                    rt::task::yield_now().await;
                    rt::task::yield_now().await;
                })
            })
            .collect();
        let ids: HashSet<Id> = handles.iter().map(|h| h.id()).collect();
        for handle in handles {
            handle.await.unwrap();
        }
        ids
    });
    drop(runtime);
    // The block_on future is no task: the hooks saw exactly the spawned ones.
    let seen: HashSet<Id> = log.calls().iter().map(|&(_, id, _)| id).collect();
    assert_eq!(seen, ids);
    ids
}

fn each_hook_runs_the_documented_number_of_times(builder: &mut Builder) {
    let log = Log::default();
    let runtime = log.install(builder);
    let ids = three_polls_each(&log, runtime, 100);
    let main = std::thread::current().id();
    for (hook, times) in [
        (Hook::Spawn, 1),
        (Hook::Before, 3),
        (Hook::After, 3),
        (Hook::Terminate, 1),
    ] {
        let counts = log.count(hook);
        assert_eq!(counts.len(), ids.len(), "{hook:?} missed a task");
        for id in &ids {
            assert_eq!(counts[id], times, "{hook:?} for task {id}");
        }
    }
    // Spawned from block_on's thread: the spawn hook ran there, and before
    // the task's first poll.
    let calls = log.calls();
    for id in &ids {
        let mine: Vec<_> = calls.iter().filter(|c| c.1 == *id).collect();
        assert_eq!(mine[0].0, Hook::Spawn);
        assert_eq!(mine[0].2, main);
    }
    log.assert_polls_pair_up();
}

#[test]
fn each_hook_runs_the_documented_number_of_times_on_the_multi_thread_runtime() {
    each_hook_runs_the_documented_number_of_times(Builder::new_multi_thread().worker_threads(2));
}

#[test]
fn each_hook_runs_the_documented_number_of_times_on_the_current_thread_runtime() {
    each_hook_runs_the_documented_number_of_times(&mut Builder::new_current_thread());
}

#[test]
fn the_current_thread_runtime_polls_on_the_thread_in_block_on() {
    let log = Log::default();
    let runtime = log.install(&mut Builder::new_current_thread());
    three_polls_each(&log, runtime, 10);
    let main = std::thread::current().id();
    assert!(log.calls().iter().all(|&(_, _, thread)| thread == main));
}

#[test]
fn a_panicking_task_is_polled_and_terminates_once() {
    for mut builder in [Builder::new_multi_thread(), Builder::new_current_thread()] {
        let log = Log::default();
        let runtime = log.install(builder.worker_threads(2));
        let id = runtime.block_on(async {
            let handle = rt::spawn(async { panic!("this task panics on purpose") });
            let id = handle.id();
            assert!(handle.await.unwrap_err().is_panic());
            id
        });
        drop(runtime);
        assert_eq!(log.count(Hook::Before)[&id], 1);
        assert_eq!(log.count(Hook::After)[&id], 1);
        assert_eq!(log.count(Hook::Terminate)[&id], 1);
        log.assert_polls_pair_up();
    }
}

#[test]
fn cancelled_tasks_terminate_once_whether_aborted_or_dropped_at_shutdown() {
    for mut builder in [Builder::new_multi_thread(), Builder::new_current_thread()] {
        let log = Log::default();
        let runtime = log.install(builder.worker_threads(2));
        let (aborted, left) = runtime.block_on(async {
            let aborted = rt::spawn(std::future::pending::<()>());
            rt::task::yield_now().await;
            aborted.abort();
            let id = aborted.id();
            assert!(aborted.await.unwrap_err().is_cancelled());
            let left = rt::spawn(std::future::pending::<()>());
            (id, left.id())
        });
        drop(runtime);
        let terminated = log.count(Hook::Terminate);
        assert_eq!(terminated[&aborted], 1);
        assert_eq!(terminated[&left], 1, "the task dropped at shutdown");
        assert_eq!(log.count(Hook::Spawn).len(), 2);
        log.assert_polls_pair_up();
    }
}

#[test]
fn blocking_jobs_run_only_the_terminate_hook_as_in_tokio() {
    let log = Log::default();
    let runtime = log.install(Builder::new_multi_thread().worker_threads(2));
    let id = runtime.block_on(async {
        let job = rt::task::spawn_blocking(|| 7);
        let id = job.id();
        assert_eq!(job.await.unwrap(), 7);
        id
    });
    drop(runtime);
    assert_eq!(log.calls().len(), 1);
    assert_eq!(log.calls()[0].0, Hook::Terminate);
    assert_eq!(log.calls()[0].1, id);
}

#[test]
fn local_set_tasks_run_no_hooks_as_in_tokio() {
    let log = Log::default();
    let runtime = log.install(&mut Builder::new_current_thread());
    let local = rt::task::LocalSet::new();
    local.block_on(&runtime, async {
        let shared = std::rc::Rc::new(3);
        let task = rt::task::spawn_local(async move {
            rt::task::yield_now().await;
            *shared
        });
        assert_eq!(task.await.unwrap(), 3);
    });
    drop(runtime);
    assert!(log.calls().is_empty());
}

#[test]
fn task_meta_names_the_line_that_spawned_the_task() {
    let lines = Arc::new(Mutex::new(Vec::new()));
    let seen = lines.clone();
    let runtime = Builder::new_current_thread()
        .on_task_spawn(move |meta| seen.lock().unwrap().push(*meta.spawned_at()))
        .build()
        .unwrap();
    let line = line!() + 1;
    runtime.block_on(async { rt::spawn(async {}).await.unwrap() });
    let lines = lines.lock().unwrap();
    assert_eq!(lines.len(), 1);
    assert_eq!(lines[0].file(), file!());
    assert_eq!(lines[0].line(), line);
}

#[test]
fn poll_hooks_run_in_the_runtime_context_and_a_panicking_terminate_hook_is_contained() {
    let outside = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counter = outside.clone();
    let runtime = Builder::new_multi_thread()
        .worker_threads(2)
        .on_before_task_poll(move |_| {
            // Not a panic here: it would end the worker, not the test.
            if rt::runtime::Handle::try_current().is_err() {
                counter.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            }
        })
        .on_task_terminate(|_| panic!("a terminate hook that panics, on purpose"))
        .build()
        .unwrap();
    let value = runtime.block_on(async {
        let inner = rt::spawn(async { rt::spawn(async { 5 }).await.unwrap() });
        inner.await.unwrap()
    });
    assert_eq!(value, 5);
    drop(runtime);
    assert_eq!(outside.load(std::sync::atomic::Ordering::Relaxed), 0);
}
