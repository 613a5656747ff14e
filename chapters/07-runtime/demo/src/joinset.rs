//! `joinset`: a hundred thousand tasks in a `JoinSet`, joined, then cancelled.
//!
//! The page on task handles asks how a program waits for many tasks and
//! cancels the rest. Each round runs three scenes on one runtime, each from
//! inside a spawned task (so the budget is in force, as in a real program):
//!
//! * **one fails**: `tasks` tasks go into a set; every even-numbered one
//!   returns at once, every odd-numbered one waits forever (a request that
//!   will never answer), and the last one spawned fails after yielding
//!   twice. The caller joins until it sees the failure, calls
//!   `abort_all`, and joins the rest. It counts what came back: outputs,
//!   the one failure, cancellations, and, through a guard moved into each
//!   waiting future, on which thread each future was dropped and whether
//!   `task::try_id()` named the task in its destructor;
//! * **dropped**: the same waiting tasks, and the set simply dropped; the
//!   clock runs until the last future's guard has been dropped;
//! * **all succeed**: `tasks` tasks that return their index, spawned and
//!   joined, timed separately.
//!
//! Memory is the growth of the process's resident set while the first
//! round's tasks are spawned (later rounds reuse what the allocator kept).
//!
//! Book: Chapter 8, "Task handles: JoinSet, abort, ids and task-locals".

use crate::experiments::Outcome;
use chapter_01::console::{Console, Report, group_thousands, human_duration_ns};
use chapter_01::experiments::add_machine;
use chapter_01::machine::Machine;
use rt::sync::Notify;
use rt::task::{self, JoinSet};
use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

/// What the waiting futures' guards saw when they were dropped.
#[derive(Default)]
struct Drops {
    total: AtomicUsize,
    on_workers: AtomicUsize,
    with_own_id: AtomicUsize,
    /// The drop count at which `done` is notified.
    target: AtomicUsize,
    done: Notify,
}

/// Moved into each waiting future; its drop is the future's drop.
struct Guard {
    drops: Arc<Drops>,
    id: Option<task::Id>,
}

impl Drop for Guard {
    fn drop(&mut self) {
        let drops = &self.drops;
        let on_worker = std::thread::current()
            .name()
            .is_some_and(|name| name.starts_with("rt-worker"));
        if on_worker {
            drops.on_workers.fetch_add(1, Ordering::Relaxed);
        }
        // Named: some task id is published, and it is this task's if the
        // future ran far enough to learn its own.
        let current = task::try_id();
        if current.is_some() && (self.id.is_none() || current == self.id) {
            drops.with_own_id.fetch_add(1, Ordering::Relaxed);
        }
        let total = drops.total.fetch_add(1, Ordering::AcqRel) + 1;
        if total == drops.target.load(Ordering::Acquire) {
            drops.done.notify_one();
        }
    }
}

/// A task that never finishes on its own: it waits for nothing. The guard
/// is made before the first poll, so that a task cancelled before it ever
/// ran still counts its drop.
fn wait_forever(drops: Arc<Drops>) -> impl Future<Output = Result<(), String>> + Send {
    let mut guard = Guard { drops, id: None };
    async move {
        guard.id = task::try_id();
        std::future::pending::<()>().await;
        drop(guard);
        Ok(())
    }
}

/// One round's measurements.
#[derive(Debug, Clone, Copy, Default)]
struct Round {
    spawn_ns: f64,
    completed: usize,
    failed: usize,
    cancelled: usize,
    abort_call_ns: f64,
    abort_to_all_joined_ns: f64,
    dropped_on_workers: usize,
    dropped_with_own_id: usize,
    dropped: usize,
    drop_call_ns: f64,
    drop_to_all_dropped_ns: f64,
    all_succeed_spawn_ns: f64,
    all_succeed_join_ns: f64,
    rss_growth_kib: f64,
}

/// The process's resident set, in KiB (0 if /proc cannot be read).
fn rss_kib() -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|status| {
            let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
            line.split_whitespace().nth(1)?.parse().ok()
        })
        .unwrap_or(0.0)
}

// ANCHOR: one_fails
/// Joins until a task fails, then aborts the rest and joins them too.
async fn one_fails(tasks: usize, drops: Arc<Drops>, round: &mut Round) {
    let mut set = JoinSet::new();
    let rss_before = rss_kib();
    let start = Instant::now();
    for i in 0..tasks {
        if i == tasks - 1 {
            set.spawn(async {
                task::yield_now().await;
                task::yield_now().await;
                Err("the last task failed".to_string())
            });
        } else if i % 2 == 0 {
            set.spawn(async { Ok(()) });
        } else {
            set.spawn(wait_forever(drops.clone()));
        }
    }
    round.spawn_ns = start.elapsed().as_nanos() as f64;
    round.rss_growth_kib = rss_kib() - rss_before;

    let mut abort_started = None;
    while let Some(joined) = set.join_next().await {
        match joined {
            Ok(Ok(())) => round.completed += 1,
            Ok(Err(_failure)) => {
                round.failed += 1;
                let t = Instant::now();
                set.abort_all(); // marks every task; drops nothing yet
                round.abort_call_ns = t.elapsed().as_nanos() as f64;
                abort_started = Some(t);
            }
            Err(error) if error.is_cancelled() => round.cancelled += 1,
            Err(error) => panic!("a task panicked: {error}"),
        }
    }
    if let Some(t) = abort_started {
        round.abort_to_all_joined_ns = t.elapsed().as_nanos() as f64;
    }
}
// ANCHOR_END: one_fails

/// Fills a set with waiting tasks and drops it; waits for the last drop.
async fn dropped(tasks: usize, drops: Arc<Drops>, round: &mut Round) {
    drops.total.store(0, Ordering::Relaxed);
    drops.target.store(tasks, Ordering::Release);
    let mut set = JoinSet::new();
    for _ in 0..tasks {
        set.spawn(wait_forever(drops.clone()));
    }
    // Install the set's wakers (each entry's handle polled once), and let
    // the workers start polling the tasks.
    assert!(set.try_join_next().is_none(), "a waiting task returned");
    task::yield_now().await;
    let start = Instant::now();
    drop(set);
    round.drop_call_ns = start.elapsed().as_nanos() as f64;
    drops.done.notified().await;
    round.drop_to_all_dropped_ns = start.elapsed().as_nanos() as f64;
}

/// Spawns tasks that return their index, and joins them.
async fn all_succeed(tasks: usize, round: &mut Round) {
    let start = Instant::now();
    let mut set = JoinSet::new();
    for i in 0..tasks as u64 {
        set.spawn(async move { i });
    }
    round.all_succeed_spawn_ns = start.elapsed().as_nanos() as f64;
    let start = Instant::now();
    let mut sum = 0;
    while let Some(output) = set.join_next().await {
        sum += output.expect("a task failed");
    }
    round.all_succeed_join_ns = start.elapsed().as_nanos() as f64;
    assert_eq!(sum, (tasks as u64) * (tasks as u64 - 1) / 2);
}

async fn one_round(tasks: usize) -> Round {
    let mut round = Round::default();
    let drops = Arc::new(Drops::default());
    one_fails(tasks, drops.clone(), &mut round).await;
    round.dropped_on_workers = drops.on_workers.swap(0, Ordering::Relaxed);
    round.dropped_with_own_id = drops.with_own_id.swap(0, Ordering::Relaxed);
    round.dropped = drops.total.load(Ordering::Relaxed);
    dropped(tasks / 2, drops, &mut round).await;
    all_succeed(tasks, &mut round).await;
    round
}

/// One reported figure: its key, its label, and how to read it off a round.
type Column<T> = (&'static str, &'static str, fn(&Round) -> T);

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

/// Runs `rounds` rounds with `tasks` tasks on `workers` workers.
pub fn joinset(console: &Console, tasks: usize, rounds: usize, workers: usize) -> Outcome {
    if tasks < 4 {
        return Err(format!("--tasks must be at least 4, not {tasks}").into());
    }
    console.say(format!(
        "{} tasks in a JoinSet on {workers} workers, {rounds} rounds: half return at once, \
         half wait forever, the last one fails; then abort_all",
        group_thousands(tasks as f64)
    ));
    let runtime = rt::Builder::new_multi_thread()
        .worker_threads(workers)
        .build()?;
    let mut all = Vec::new();
    for _ in 0..rounds {
        let round = runtime.block_on(async move {
            rt::spawn(one_round(tasks))
                .await
                .map_err(|error| format!("the round's task failed: {error}"))
        })?;
        all.push(round);
    }
    let first = all[0];
    let waiting = (tasks - 1) / 2;
    let mut report = Report::new("joinset");
    report
        .add("tasks", "tasks in the set", tasks)
        .add("rounds", "rounds", rounds)
        .add("workers", "worker threads", workers)
        .add("waiting_tasks", "tasks that wait forever", waiting);
    // Counts: every round's, as min and max.
    let counts: [Column<usize>; 6] = [
        ("completed", "outputs returned", |r| r.completed),
        ("failed", "failures returned", |r| r.failed),
        ("cancelled", "cancelled (JoinError::is_cancelled)", |r| {
            r.cancelled
        }),
        ("dropped", "waiting futures dropped", |r| r.dropped),
        ("dropped_on_workers", "dropped on a worker thread", |r| {
            r.dropped_on_workers
        }),
        (
            "dropped_with_own_id",
            "dropped with task::try_id() naming it",
            |r| r.dropped_with_own_id,
        ),
    ];
    for (key, label, get) in counts {
        let values: Vec<usize> = all.iter().map(get).collect();
        let (min, max) = (
            *values.iter().min().unwrap_or(&0),
            *values.iter().max().unwrap_or(&0),
        );
        console.say(format!("  {label:<40} {min} to {max}"));
        report
            .add(&format!("{key}_min"), &format!("{label}, fewest"), min)
            .add(&format!("{key}_max"), &format!("{label}, most"), max);
    }
    // Times: median and range over rounds.
    let times: [Column<f64>; 7] = [
        ("spawn", "spawn them all (one fails)", |r| r.spawn_ns),
        ("abort_call", "abort_all() call", |r| r.abort_call_ns),
        ("abort_to_all_joined", "abort_all() to last joined", |r| {
            r.abort_to_all_joined_ns
        }),
        ("drop_call", "drop(set) call (half as many)", |r| {
            r.drop_call_ns
        }),
        (
            "drop_to_all_dropped",
            "drop(set) to last future dropped",
            |r| r.drop_to_all_dropped_ns,
        ),
        ("all_succeed_spawn", "all succeed: spawn", |r| {
            r.all_succeed_spawn_ns
        }),
        ("all_succeed_join", "all succeed: join", |r| {
            r.all_succeed_join_ns
        }),
    ];
    for (key, label, get) in times {
        let values: Vec<f64> = all.iter().map(get).collect();
        let min = values.iter().copied().fold(f64::INFINITY, f64::min);
        let max = values.iter().copied().fold(0.0, f64::max);
        let mid = median(values);
        console.say(format!(
            "  {label:<40} {:>9}  (rounds {} to {})",
            human_duration_ns(mid),
            human_duration_ns(min),
            human_duration_ns(max)
        ));
        report
            .add(
                &format!("{key}_ms"),
                &format!("{label}, median (ms)"),
                ms(mid),
            )
            .add(
                &format!("{key}_ms_min"),
                &format!("{label}, fastest (ms)"),
                ms(min),
            )
            .add(
                &format!("{key}_ms_max"),
                &format!("{label}, slowest (ms)"),
                ms(max),
            );
    }
    let per_task = first.rss_growth_kib * 1024.0 / tasks as f64;
    console.say(format!(
        "  resident set grew {:.0} KiB while the first round spawned: {per_task:.0} bytes per task",
        first.rss_growth_kib
    ));
    report
        .add(
            "rss_growth_kib",
            "resident set growth while spawning, first round (KiB)",
            first.rss_growth_kib,
        )
        .add(
            "bytes_per_task",
            "resident bytes per task in the set",
            per_task.round(),
        );
    add_machine(&mut report, &Machine::current());
    Ok(report)
}

fn ms(ns: f64) -> f64 {
    (ns / 1e4).round() / 100.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_task_is_accounted_for_and_every_waiting_future_dropped() {
        let runtime = rt::Builder::new_multi_thread()
            .worker_threads(2)
            .build()
            .unwrap();
        let tasks = 1000;
        let round = runtime
            .block_on(async move { rt::spawn(one_round(tasks)).await })
            .unwrap();
        assert_eq!(round.failed, 1);
        assert_eq!(round.completed + round.failed + round.cancelled, tasks);
        assert!(round.cancelled >= (tasks - 1) / 2, "{round:?}");
        assert_eq!(round.dropped, (tasks - 1) / 2);
        assert_eq!(round.dropped_on_workers, round.dropped);
        assert_eq!(round.dropped_with_own_id, round.dropped);
    }
}
