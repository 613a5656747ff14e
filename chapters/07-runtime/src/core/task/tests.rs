//! Tests of the task machinery on a toy scheduler (a locked queue drained by
//! the test itself), so that each transition can be driven by hand. They run
//! under Miri, which checks every pointer cast, reference count and drop of
//! the harness; the `loom` module runs the racy ones under loom.

use super::owned::OwnedTasks;
use super::{JoinHandle, Notified, Schedule, Task};
use crate::loom::{Arc, Mutex};
use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::{Context, Poll, Waker};

/// A scheduler whose run queue is drained by the test.
pub(crate) struct ToyScheduler {
    queue: Mutex<VecDeque<Notified<Arc<ToyScheduler>>>>,
    pub(crate) owned: OwnedTasks<Arc<ToyScheduler>>,
    next_id: AtomicUsize,
    /// With `batched`: completed tasks kept, still listed, until
    /// `release_batch`, as a multi-thread worker keeps them.
    batch: Option<Mutex<Vec<Task<Arc<ToyScheduler>>>>>,
}

impl Schedule for Arc<ToyScheduler> {
    fn schedule(&self, task: Notified<Self>) {
        self.queue.lock().push_back(task);
    }

    fn release(&self, task: &Task<Self>) -> Option<Task<Self>> {
        self.owned.remove(task)
    }

    fn defer_release(&self, task: Task<Self>) -> Option<Task<Self>> {
        match &self.batch {
            Some(batch) => {
                batch.lock().push(task);
                None
            }
            None => Some(task),
        }
    }
}

impl ToyScheduler {
    pub(crate) fn new() -> Arc<ToyScheduler> {
        ToyScheduler::build(None)
    }

    /// A toy scheduler that releases completed tasks in batches.
    pub(crate) fn batched() -> Arc<ToyScheduler> {
        ToyScheduler::build(Some(Mutex::new(Vec::new())))
    }

    fn build(batch: Option<Mutex<Vec<Task<Arc<ToyScheduler>>>>>) -> Arc<ToyScheduler> {
        Arc::new(ToyScheduler {
            queue: Mutex::new(VecDeque::new()),
            owned: OwnedTasks::new(4),
            next_id: AtomicUsize::new(1),
            batch,
        })
    }

    /// Takes the completed tasks kept so far out of the owned list.
    pub(crate) fn release_batch(&self) {
        if let Some(batch) = &self.batch {
            let mut tasks = std::mem::take(&mut *batch.lock());
            self.owned.release_batch(&mut tasks);
        }
    }

    /// Runs one queued task; false if the queue was empty.
    pub(crate) fn tick(&self) -> bool {
        let task = self.queue.lock().pop_front();
        match task {
            Some(task) => {
                task.run();
                true
            }
            None => false,
        }
    }

    /// Runs until the queue is empty.
    pub(crate) fn drain(&self) {
        while self.tick() {}
    }

    #[cfg_attr(loom, allow(dead_code))]
    pub(crate) fn queued(&self) -> usize {
        self.queue.lock().len()
    }

    /// Shuts down every task and drops whatever is still queued.
    pub(crate) fn shutdown(&self) {
        self.owned.close_and_shutdown_all();
        // Tasks that shutdown completed went to the batch: release them, as
        // a worker releases its own after shutting down.
        self.release_batch();
        let queued: Vec<_> = self.queue.lock().drain(..).collect();
        drop(queued);
        assert!(self.owned.is_empty());
    }
}

/// Spawning onto the toy scheduler (a trait, because loom's `Arc` cannot be
/// a method receiver).
pub(crate) trait ToySpawn {
    fn spawn<F>(&self, future: F) -> JoinHandle<F::Output>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static;
}

impl ToySpawn for Arc<ToyScheduler> {
    #[track_caller]
    fn spawn<F>(&self, future: F) -> JoinHandle<F::Output>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed) as u64;
        self.owned
            .spawn(future, self, id, std::panic::Location::caller())
    }
}

/// Counts how many times futures and outputs of one test were dropped.
#[derive(Clone, Default)]
pub(crate) struct DropCounter(std::sync::Arc<AtomicUsize>);

impl DropCounter {
    pub(crate) fn token(&self) -> DropToken {
        DropToken(self.0.clone())
    }

    pub(crate) fn count(&self) -> usize {
        self.0.load(Ordering::SeqCst)
    }

    /// `future`, counting its drop (after it completes, or unfinished).
    pub(crate) fn counted<F: Future>(&self, future: F) -> impl Future<Output = F::Output> + use<F> {
        let token = self.token();
        async move {
            let _token = token;
            future.await
        }
    }
}

/// Adds one to its counter when dropped.
pub(crate) struct DropToken(std::sync::Arc<AtomicUsize>);

impl Drop for DropToken {
    fn drop(&mut self) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

/// Where a waiting future leaves its waker.
pub(crate) type Slot = std::sync::Arc<Mutex<Option<Waker>>>;

/// A future that is `Pending` until woken `ready_after` times through the
/// waker it leaves in `slot`.
pub(crate) struct WaitForWakes {
    slot: Slot,
    polls: usize,
    ready_after: usize,
}

impl WaitForWakes {
    /// Ready at the poll after `ready_after` wakes.
    pub(crate) fn new(slot: &Slot, ready_after: usize) -> WaitForWakes {
        WaitForWakes {
            slot: Slot::clone(slot),
            polls: 0,
            ready_after,
        }
    }

    /// Never ready.
    pub(crate) fn forever(slot: &Slot) -> WaitForWakes {
        WaitForWakes::new(slot, usize::MAX)
    }
}

/// Spawns a task that waits for one wake through the waker it leaves in the
/// slot returned, and is ready (with 2, its polls) at the poll after.
pub(crate) fn spawn_waiting_for_a_wake(sched: &Arc<ToyScheduler>) -> (JoinHandle<usize>, Slot) {
    let slot = Slot::default();
    (sched.spawn(WaitForWakes::new(&slot, 1)), slot)
}

impl Future for WaitForWakes {
    type Output = usize;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<usize> {
        self.polls += 1;
        if self.polls > self.ready_after {
            return Poll::Ready(self.polls);
        }
        *self.slot.lock() = Some(cx.waker().clone());
        Poll::Pending
    }
}

/// Polls a JoinHandle once with the given waker.
pub(crate) fn poll_join<T>(
    join: &mut JoinHandle<T>,
    waker: &Waker,
) -> Poll<Result<T, super::JoinError>> {
    Pin::new(join).poll(&mut Context::from_waker(waker))
}

/// The error of a task that has ended with one, which `join` now reports.
pub(crate) fn join_error<T>(join: &mut JoinHandle<T>) -> super::JoinError {
    let Poll::Ready(Err(error)) = poll_join(join, Waker::noop()) else {
        panic!("expected a JoinError");
    };
    error
}

/// A waker that counts its wakes.
pub(crate) fn counting_waker() -> (Waker, std::sync::Arc<AtomicUsize>) {
    struct WakeCounter(std::sync::Arc<AtomicUsize>);
    impl std::task::Wake for WakeCounter {
        fn wake(self: std::sync::Arc<Self>) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }
    let count = std::sync::Arc::new(AtomicUsize::new(0));
    (
        Waker::from(std::sync::Arc::new(WakeCounter(count.clone()))),
        count,
    )
}

#[cfg(not(loom))]
mod unit {
    use super::*;

    #[test]
    fn a_task_runs_once_and_its_output_reaches_the_join_handle() {
        let sched = ToyScheduler::new();
        let mut join = sched.spawn(async { 6 * 7 });
        assert_eq!(sched.queued(), 1);
        assert!(!join.is_finished());
        sched.drain();
        assert!(join.is_finished());
        assert_eq!(
            poll_join(&mut join, Waker::noop()).map(Result::unwrap),
            Poll::Ready(42)
        );
        assert_eq!(sched.owned.alive(), 0);
        drop(join);
        sched.shutdown();
    }

    #[test]
    fn a_waiting_join_handle_is_woken_when_the_task_completes() {
        let sched = ToyScheduler::new();
        let (mut join, slot) = spawn_waiting_for_a_wake(&sched);
        sched.drain();
        let (waker, woken) = counting_waker();
        assert!(poll_join(&mut join, &waker).is_pending());
        // Polling again with an equivalent waker keeps the stored one.
        assert!(poll_join(&mut join, &waker).is_pending());
        slot.lock().take().unwrap().wake();
        assert_eq!(woken.load(Ordering::SeqCst), 0, "not before the task runs");
        sched.drain();
        assert_eq!(woken.load(Ordering::SeqCst), 1);
        assert_eq!(
            poll_join(&mut join, &waker).map(Result::unwrap),
            Poll::Ready(2)
        );
        sched.shutdown();
    }

    #[test]
    fn a_join_handle_moved_to_another_waker_wakes_the_new_one() {
        let sched = ToyScheduler::new();
        let (mut join, slot) = spawn_waiting_for_a_wake(&sched);
        sched.drain();
        let (first, first_woken) = counting_waker();
        let (second, second_woken) = counting_waker();
        assert!(poll_join(&mut join, &first).is_pending());
        assert!(poll_join(&mut join, &second).is_pending());
        slot.lock().take().unwrap().wake();
        sched.drain();
        assert_eq!(first_woken.load(Ordering::SeqCst), 0);
        assert_eq!(second_woken.load(Ordering::SeqCst), 1);
        drop(join);
        sched.shutdown();
    }

    #[test]
    fn a_panic_becomes_a_join_error_and_the_future_is_dropped() {
        let sched = ToyScheduler::new();
        let drops = DropCounter::default();
        let mut join = sched.spawn(drops.counted(async { panic!("boom") }));
        sched.drain();
        assert_eq!(drops.count(), 1);
        let error = join_error(&mut join);
        assert!(error.is_panic() && !error.is_cancelled());
        // The handle names its task in the error, as Tokio's does.
        assert_eq!(error.id(), join.id());
        assert_eq!(
            error.to_string(),
            format!("task {} panicked with message \"boom\"", join.id())
        );
        let payload = error.into_panic();
        assert_eq!(payload.downcast_ref::<&str>(), Some(&"boom"));
        sched.shutdown();
    }

    #[test]
    fn abort_before_the_first_poll_drops_the_future_unpolled() {
        let sched = ToyScheduler::new();
        let drops = DropCounter::default();
        let polled = std::sync::Arc::new(AtomicUsize::new(0));
        let polled2 = polled.clone();
        let mut join = sched.spawn(drops.counted(async move {
            polled2.fetch_add(1, Ordering::SeqCst);
        }));
        join.abort();
        sched.drain();
        assert_eq!(polled.load(Ordering::SeqCst), 0);
        assert_eq!(drops.count(), 1);
        assert!(join_error(&mut join).is_cancelled());
        sched.shutdown();
    }

    #[test]
    fn abort_of_a_waiting_task_schedules_it_to_be_dropped() {
        let sched = ToyScheduler::new();
        let drops = DropCounter::default();
        let slot: Slot = Default::default();
        let mut join = sched.spawn(drops.counted(WaitForWakes::forever(&slot)));
        sched.drain();
        assert_eq!(sched.queued(), 0);
        join.abort();
        assert_eq!(sched.queued(), 1, "abort submits the idle task");
        sched.drain();
        assert_eq!(drops.count(), 1);
        assert!(join_error(&mut join).is_cancelled());
        // The future's stored waker outlives the task: waking it is harmless.
        slot.lock().take().unwrap().wake();
        assert_eq!(sched.queued(), 0);
        sched.shutdown();
    }

    #[test]
    fn a_wake_during_the_poll_requeues_the_task_once() {
        let sched = ToyScheduler::new();
        let join = sched.spawn(async {
            crate::task::yield_now().await;
            crate::task::yield_now().await;
        });
        assert!(sched.tick());
        assert_eq!(sched.queued(), 1, "yield_now requeued it");
        assert!(sched.tick());
        assert_eq!(sched.queued(), 1);
        assert!(sched.tick());
        assert_eq!(sched.queued(), 0);
        assert!(join.is_finished());
        sched.shutdown();
    }

    #[test]
    fn the_output_is_dropped_once_whether_or_not_the_join_handle_reads_it() {
        let sched = ToyScheduler::new();
        let drops = DropCounter::default();

        // Handle dropped before completion: the completer drops the output.
        let token = drops.token();
        let join = sched.spawn(async move { token });
        drop(join);
        sched.drain();
        assert_eq!(drops.count(), 1);

        // Handle dropped after completion: the handle drops the output.
        let token = drops.token();
        let join = sched.spawn(async move { token });
        sched.drain();
        assert_eq!(drops.count(), 1);
        drop(join);
        assert_eq!(drops.count(), 2);

        // Handle reads it: the reader owns it.
        let token = drops.token();
        let mut join = sched.spawn(async move { token });
        sched.drain();
        let Poll::Ready(Ok(token)) = poll_join(&mut join, Waker::noop()) else {
            panic!("expected the output");
        };
        drop(join);
        assert_eq!(drops.count(), 2);
        drop(token);
        assert_eq!(drops.count(), 3);
        sched.shutdown();
    }

    #[test]
    fn shutdown_drops_every_future_exactly_once() {
        let sched = ToyScheduler::new();
        let drops = DropCounter::default();
        let mut joins = Vec::new();
        let mut slots = Vec::new();
        for i in 0..20 {
            let slot: Slot = Default::default();
            slots.push(slot.clone());
            joins.push(sched.spawn(drops.counted(WaitForWakes::forever(&slot))));
            // Half of them are polled once (waiting), half still queued.
            if i % 2 == 0 {
                sched.tick();
            }
        }
        sched.shutdown();
        assert_eq!(drops.count(), 20);
        for join in &mut joins {
            assert!(join_error(join).is_cancelled());
        }
        // Wakers still held by the dead futures' owners are harmless.
        for slot in slots {
            if let Some(waker) = slot.lock().take() {
                waker.wake();
            }
        }
        assert_eq!(sched.queued(), 0);
    }

    #[test]
    fn a_task_spawned_after_shutdown_is_cancelled_at_once() {
        let sched = ToyScheduler::new();
        sched.shutdown();
        let drops = DropCounter::default();
        let mut join = sched.spawn(drops.counted(async {}));
        assert_eq!(drops.count(), 1);
        assert_eq!(sched.queued(), 0);
        assert!(join_error(&mut join).is_cancelled());
    }

    #[test]
    fn a_future_that_panics_when_dropped_still_completes() {
        struct PanicOnDrop;
        impl Drop for PanicOnDrop {
            fn drop(&mut self) {
                panic!("drop panicked");
            }
        }
        let sched = ToyScheduler::new();
        let mut join = sched.spawn(async {
            let _bomb = PanicOnDrop;
            std::future::pending::<()>().await;
        });
        sched.drain();
        join.abort();
        sched.drain();
        let error = join_error(&mut join);
        assert!(
            error.is_panic(),
            "a panic while dropping is reported as a panic"
        );
        sched.shutdown();
    }

    #[test]
    fn batched_release_frees_each_task_once_and_counts_it_out() {
        let sched = ToyScheduler::batched();
        let drops = DropCounter::default();
        let joins: Vec<_> = (0..5)
            .map(|i| sched.spawn(drops.counted(async move { i })))
            .collect();
        sched.drain();
        // Completed, their futures dropped, and still listed until released.
        assert_eq!(drops.count(), 5);
        assert_eq!(sched.owned.alive(), 5);
        sched.release_batch();
        assert_eq!(sched.owned.alive(), 0);
        for (i, mut join) in joins.into_iter().enumerate() {
            assert!(matches!(poll_join(&mut join, Waker::noop()), Poll::Ready(Ok(n)) if n == i));
        }
        sched.shutdown();
    }

    #[test]
    fn wakers_keep_the_task_memory_alive_after_completion() {
        let sched = ToyScheduler::new();
        let (join, slot) = spawn_waiting_for_a_wake(&sched);
        drop(join);
        sched.drain();
        let waker = slot.lock().take().unwrap();
        let clone = waker.clone();
        waker.wake();
        sched.drain();
        // The task is complete and only `clone` keeps it allocated.
        clone.wake_by_ref();
        assert_eq!(sched.queued(), 0);
        drop(clone);
        sched.shutdown();
    }
}

#[cfg(loom)]
mod loom_task {
    use super::*;
    use loom::thread;

    /// Runs `test` under loom on a new toy scheduler, and shuts the
    /// scheduler down once `test` has returned (and dropped its handles).
    fn model(test: impl Fn(&Arc<ToyScheduler>) + Sync + Send + 'static) {
        loom::model(move || {
            let sched = ToyScheduler::new();
            test(&sched);
            sched.shutdown();
        });
    }

    /// Drains `sched` on another thread, as a worker would.
    fn drain_on_a_worker(sched: &Arc<ToyScheduler>) -> thread::JoinHandle<()> {
        let sched = sched.clone();
        thread::spawn(move || sched.drain())
    }

    /// A task waiting on a waker is woken from another thread while a
    /// worker is still inside its first poll: the wake must not be lost.
    #[test]
    fn loom_wake_while_running() {
        model(|sched| {
            let (mut join, slot) = spawn_waiting_for_a_wake(sched);
            let worker = drain_on_a_worker(sched);
            let waker = loop {
                if let Some(waker) = slot.lock().take() {
                    break waker;
                }
                thread::yield_now();
            };
            waker.wake();
            worker.join().unwrap();
            sched.drain();
            assert!(matches!(
                poll_join(&mut join, Waker::noop()),
                Poll::Ready(Ok(2))
            ));
        });
    }

    /// A waker held by another thread wakes (and drops) after the task
    /// completed and the JoinHandle is gone: whoever drops the last reference
    /// frees the task, once.
    #[test]
    fn loom_wake_after_complete() {
        model(|sched| {
            let (join, slot) = spawn_waiting_for_a_wake(sched);
            drop(join);
            sched.drain();
            let waker = slot.lock().take().unwrap();
            let clone = waker.clone();
            let other = thread::spawn(move || clone.wake());
            waker.wake();
            sched.drain();
            other.join().unwrap();
            sched.drain();
        });
    }

    /// The JoinHandle registers its waker while a worker completes the task:
    /// either it reads the output at once, or its waker is woken.
    #[test]
    fn loom_join_waker_set_while_completing() {
        model(|sched| {
            let mut join = sched.spawn(async { 7 });
            let worker = drain_on_a_worker(sched);
            let (waker, woken) = counting_waker();
            let first = poll_join(&mut join, &waker);
            worker.join().unwrap();
            match first {
                Poll::Ready(output) => assert_eq!(output.unwrap(), 7),
                Poll::Pending => {
                    assert_eq!(woken.load(Ordering::SeqCst), 1, "lost join wake-up");
                    assert!(matches!(poll_join(&mut join, &waker), Poll::Ready(Ok(7))));
                }
            }
        });
    }

    /// abort() races with a poll: the future is dropped exactly once, and the
    /// JoinHandle reports the task cancelled.
    #[test]
    fn loom_abort_while_running() {
        model(|sched| {
            let drops = DropCounter::default();
            let slot: Slot = Default::default();
            let mut join = sched.spawn(drops.counted(WaitForWakes::forever(&slot)));
            let worker = drain_on_a_worker(sched);
            join.abort();
            worker.join().unwrap();
            sched.drain();
            assert_eq!(drops.count(), 1);
            assert!(join_error(&mut join).is_cancelled());
        });
    }

    /// Shutdown races with a worker that completes a task and keeps it in
    /// its batch, then releases the batch: the future is dropped once, and
    /// the task's memory is freed once (loom reports the scheduler `Arc` in
    /// a leaked task, and a reference count that goes below zero).
    #[test]
    fn loom_shutdown_while_a_completed_task_waits_in_a_batch() {
        loom::model(|| {
            let sched = ToyScheduler::batched();
            let drops = DropCounter::default();
            let join = sched.spawn(drops.counted(async { 7 }));
            let sched2 = sched.clone();
            let worker = thread::spawn(move || {
                sched2.tick();
                sched2.release_batch();
            });
            sched.owned.close_and_shutdown_all();
            sched.release_batch();
            worker.join().unwrap();
            drop(join);
            sched.shutdown();
            assert_eq!(drops.count(), 1);
        });
    }

    /// Shutdown races with a worker polling a task that keeps waking itself.
    #[test]
    fn loom_shutdown_while_running() {
        model(|sched| {
            let drops = DropCounter::default();
            let join = sched.spawn(drops.counted(crate::task::yield_now()));
            let sched2 = sched.clone();
            let worker = thread::spawn(move || {
                sched2.tick();
            });
            sched.owned.close_and_shutdown_all();
            worker.join().unwrap();
            sched.drain();
            assert_eq!(drops.count(), 1);
            assert!(join.is_finished());
        });
    }
}
