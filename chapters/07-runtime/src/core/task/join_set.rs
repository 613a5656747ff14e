//! [`JoinSet`]: a set of tasks whose outputs come back in the order the
//! tasks finish.
//!
//! The naive `join_next` polls every `JoinHandle` in the set each time it is
//! woken: with 100,000 tasks that is 100,000 polls per finished task. Ours
//! gives each entry a waker of its own, which, when its task finishes,
//! puts the entry's index at the back of a *ready list* and wakes the set's
//! caller. `join_next` then polls only the entries on that list, from the
//! front: O(1) per finished task, and in the order the tasks finished, as
//! Tokio documents ("the tasks will be returned in the order they
//! complete"), also for tasks that finished before anyone asked. For that
//! the waker is installed when the task joins the set (one poll of its
//! handle), not at the first `join_next`; a task that finished already
//! gives its output to that poll, which the entry keeps until it is joined.
//!
//! Dropping the set aborts every task still in it, as Tokio's does: a
//! `JoinSet` owns its tasks, where a dropped `JoinHandle` only detaches one.
//!
//! Book: Chapter 8, "Task handles: JoinSet, abort, ids and task-locals".

use super::{AbortHandle, Id, JoinError, JoinHandle, LocalSet};
use crate::runtime::Handle as RuntimeHandle;
use std::collections::VecDeque;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll, Wake, Waker};

// ANCHOR: join_set_struct
/// A set of tasks spawned on a runtime, joined in the order they finish.
pub struct JoinSet<T> {
    /// The tasks, each at a stable index (`None`: a free slot).
    entries: Vec<Option<Entry<T>>>,
    free: Vec<usize>,
    len: usize,
    ready: Arc<Finished>,
}

struct Entry<T> {
    /// A task of the runtime, or of a `LocalSet` (`spawn_local`).
    handle: JoinHandle<T>,
    waker: Waker,
    /// The output, if the task had finished when it joined the set. Boxed:
    /// that is the rare case, and every entry pays only a pointer for it.
    output: Option<Box<Result<T, JoinError>>>,
}

/// The entries whose tasks may have finished, and who waits for them.
struct Finished {
    inner: Mutex<FinishedList>,
}

#[derive(Default)]
struct FinishedList {
    /// In the order the tasks finished: pushed at the back, joined from
    /// the front.
    indices: VecDeque<usize>,
    waker: Option<Waker>,
}
// ANCHOR_END: join_set_struct

/// The waker given to one entry's task.
struct EntryWaker {
    index: usize,
    ready: Arc<Finished>,
}

// ANCHOR: entry_waker
impl Wake for EntryWaker {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        let waker = {
            let mut inner = self.ready.lock();
            inner.indices.push_back(self.index);
            inner.waker.take()
        };
        if let Some(waker) = waker {
            waker.wake();
        }
    }
}
// ANCHOR_END: entry_waker

impl Finished {
    fn lock(&self) -> std::sync::MutexGuard<'_, FinishedList> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl<T> Entry<T> {
    /// Polls the task's handle with the entry's own waker, unbudgeted (a
    /// handle refused for lack of budget would wake its entry at once, and
    /// the set would spin on it).
    fn poll_handle(&mut self) -> Poll<Result<T, JoinError>> {
        let mut cx = Context::from_waker(&self.waker);
        super::coop::with_budget(None, || Pin::new(&mut self.handle).poll(&mut cx))
    }
}

impl<T> JoinSet<T> {
    /// An empty set.
    pub fn new() -> JoinSet<T> {
        JoinSet {
            entries: Vec::new(),
            free: Vec::new(),
            len: 0,
            ready: Arc::new(Finished {
                inner: Mutex::new(FinishedList::default()),
            }),
        }
    }

    /// Tasks in the set (finished ones not yet joined included).
    pub fn len(&self) -> usize {
        self.len
    }

    /// True if the set holds no task.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Adds a task already spawned.
    fn insert(&mut self, handle: JoinHandle<T>) -> AbortHandle {
        let abort = handle.abort_handle();
        let index = self.free.pop().unwrap_or_else(|| {
            self.entries.push(None);
            self.entries.len() - 1
        });
        let waker = Waker::from(Arc::new(EntryWaker {
            index,
            ready: self.ready.clone(),
        }));
        let mut entry = Entry {
            handle,
            waker,
            output: None,
        };
        // Install the entry's waker in the task now, so that the ready list
        // follows the order the tasks finish in. A task that finished
        // already returns its output instead: keep it, and list it now.
        if let Poll::Ready(output) = entry.poll_handle() {
            entry.output = Some(Box::new(output));
            self.ready.lock().indices.push_back(index);
        }
        self.entries[index] = Some(entry);
        self.len += 1;
        abort
    }

    /// Spawns `future` on the current runtime and adds it to the set.
    ///
    /// # Panics
    ///
    /// If called outside a runtime.
    #[track_caller]
    pub fn spawn<F>(&mut self, future: F) -> AbortHandle
    where
        F: Future<Output = T> + Send + 'static,
        T: Send + 'static,
    {
        self.insert(crate::spawn(future))
    }

    /// Spawns `future` on the runtime of `handle` and adds it to the set.
    #[track_caller]
    pub fn spawn_on<F>(&mut self, future: F, handle: &RuntimeHandle) -> AbortHandle
    where
        F: Future<Output = T> + Send + 'static,
        T: Send + 'static,
    {
        self.insert(handle.spawn(future))
    }

    /// Runs `f` on the current runtime's blocking pool and adds it.
    ///
    /// # Panics
    ///
    /// If called outside a runtime.
    #[track_caller]
    pub fn spawn_blocking<F>(&mut self, f: F) -> AbortHandle
    where
        F: FnOnce() -> T + Send + 'static,
        T: Send + 'static,
    {
        self.insert(crate::task::spawn_blocking(f))
    }

    /// Runs `f` on the blocking pool of the runtime of `handle` and adds it.
    #[track_caller]
    pub fn spawn_blocking_on<F>(&mut self, f: F, handle: &RuntimeHandle) -> AbortHandle
    where
        F: FnOnce() -> T + Send + 'static,
        T: Send + 'static,
    {
        self.insert(handle.spawn_blocking(f))
    }

    /// Spawns a task that need not be `Send` on the [`LocalSet`] being run
    /// on this thread, and adds it. The set's outputs then come back only
    /// while that `LocalSet` runs.
    ///
    /// # Panics
    ///
    /// Outside a `LocalSet`, as [`spawn_local`](super::spawn_local).
    #[track_caller]
    pub fn spawn_local<F>(&mut self, future: F) -> AbortHandle
    where
        F: Future<Output = T> + 'static,
        T: 'static,
    {
        self.insert(super::spawn_local(future))
    }

    /// Spawns a task that need not be `Send` on `local_set`, and adds it.
    #[track_caller]
    pub fn spawn_local_on<F>(&mut self, future: F, local_set: &LocalSet) -> AbortHandle
    where
        F: Future<Output = T> + 'static,
        T: 'static,
    {
        self.insert(local_set.spawn_local(future))
    }

    /// Waits for the next task to finish and returns its output, or `None`
    /// if the set is empty.
    ///
    /// Cancel safety: cancel-safe; a task that finished stays in the set
    /// until a `join_next` returns it.
    pub async fn join_next(&mut self) -> Option<Result<T, JoinError>> {
        std::future::poll_fn(|cx| self.poll_join_next(cx)).await
    }

    /// [`join_next`](Self::join_next), with the id of the task that
    /// finished (the id [`AbortHandle::id`] gave when it was spawned; a
    /// [`JoinError`] carries it too, in [`JoinError::id`]).
    ///
    /// Cancel safety: as [`join_next`](Self::join_next).
    pub async fn join_next_with_id(&mut self) -> Option<Result<(Id, T), JoinError>> {
        std::future::poll_fn(|cx| self.poll_join_next_with_id(cx)).await
    }

    /// Takes the output of a task that has finished, without waiting:
    /// `None` if none has (or the set is empty).
    pub fn try_join_next(&mut self) -> Option<Result<T, JoinError>> {
        self.try_join_next_with_id()
            .map(|output| output.map(|(_, value)| value))
    }

    /// [`try_join_next`](Self::try_join_next), with the task's id.
    pub fn try_join_next_with_id(&mut self) -> Option<Result<(Id, T), JoinError>> {
        // Spends no budget: it never waits, so it cannot hog the worker.
        let noop = &mut Context::from_waker(Waker::noop());
        match self.poll_ready_entries(noop) {
            Poll::Ready(output) => Some(output),
            Poll::Pending => None,
        }
    }

    /// Polls for the next finished task; see [`join_next`](Self::join_next).
    /// `Ready(None)` if the set is empty; when `Pending`, `cx`'s waker is
    /// woken once a task finishes.
    pub fn poll_join_next(&mut self, cx: &mut Context<'_>) -> Poll<Option<Result<T, JoinError>>> {
        self.poll_join_next_with_id(cx)
            .map(|output| output.map(|output| output.map(|(_, value)| value)))
    }

    /// [`poll_join_next`](Self::poll_join_next), with the task's id.
    // ANCHOR: poll_join_next
    pub fn poll_join_next_with_id(
        &mut self,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<(Id, T), JoinError>>> {
        if self.len == 0 {
            return Poll::Ready(None);
        }
        // One unit of the caller's budget per output returned. The entries'
        // own handles are polled unbudgeted (`Entry::poll_handle`).
        let budget = std::task::ready!(super::coop::poll_proceed(cx));
        let output = std::task::ready!(self.poll_ready_entries(cx));
        budget.made_progress();
        Poll::Ready(Some(output))
    }

    /// Polls the entries on the ready list until one has finished; if none
    /// has, leaves `cx`'s waker for the entries' wakers.
    fn poll_ready_entries(&mut self, cx: &mut Context<'_>) -> Poll<Result<(Id, T), JoinError>> {
        loop {
            let index = {
                let mut ready = self.ready.lock();
                match ready.indices.pop_front() {
                    Some(index) => index,
                    None => {
                        // Nothing ready: leave our waker for the entries'.
                        ready.waker = Some(cx.waker().clone());
                        return Poll::Pending;
                    }
                }
            };
            // A stale index (its entry was joined already) is skipped.
            let Some(entry) = self.entries.get_mut(index).and_then(Option::as_mut) else {
                continue;
            };
            let polled = match entry.output.take() {
                Some(output) => Poll::Ready(*output),
                None => entry.poll_handle(),
            };
            if let Poll::Ready(output) = polled {
                let id = entry.handle.id();
                self.entries[index] = None;
                self.free.push(index);
                self.len -= 1;
                return Poll::Ready(output.map(|value| (id, value)));
            }
            // Woken but not finished: its waker is in the task again, and
            // will put it back on the list.
        }
    }
    // ANCHOR_END: poll_join_next

    /// Waits for every task and returns their outputs in the order they
    /// finished.
    ///
    /// # Panics
    ///
    /// If a task panicked (the panic is resumed here) or was cancelled.
    pub async fn join_all(mut self) -> Vec<T> {
        let mut outputs = Vec::with_capacity(self.len);
        while let Some(output) = self.join_next().await {
            match output {
                Ok(output) => outputs.push(output),
                Err(error) if error.is_panic() => std::panic::resume_unwind(error.into_panic()),
                Err(error) => panic!("{error}"),
            }
        }
        outputs
    }

    /// Aborts every task in the set; they stay in it until joined.
    pub fn abort_all(&mut self) {
        for entry in self.entries.iter().flatten() {
            entry.handle.abort();
        }
    }

    /// Lets every task go on without the set: they are no longer aborted
    /// when the set is dropped.
    pub fn detach_all(&mut self) {
        self.entries.clear();
        self.free.clear();
        self.len = 0;
        self.ready.lock().indices.clear();
    }

    /// Aborts every task and waits until all have stopped.
    pub async fn shutdown(&mut self) {
        self.abort_all();
        while self.join_next().await.is_some() {}
    }
}

/// Spawns every future of the iterator on the current runtime, as
/// Tokio's does (`futures.into_iter().collect::<JoinSet<_>>()`).
///
/// # Panics
///
/// If called outside a runtime.
impl<T, F> FromIterator<F> for JoinSet<T>
where
    F: Future<Output = T> + Send + 'static,
    T: Send + 'static,
{
    fn from_iter<I: IntoIterator<Item = F>>(iter: I) -> JoinSet<T> {
        let mut set = JoinSet::new();
        set.extend(iter);
        set
    }
}

/// Spawns every future of the iterator on the current runtime and adds it.
///
/// # Panics
///
/// If called outside a runtime.
impl<T, F> Extend<F> for JoinSet<T>
where
    F: Future<Output = T> + Send + 'static,
    T: Send + 'static,
{
    fn extend<I: IntoIterator<Item = F>>(&mut self, iter: I) {
        for future in iter {
            self.spawn(future);
        }
    }
}

impl<T> Default for JoinSet<T> {
    fn default() -> JoinSet<T> {
        JoinSet::new()
    }
}

// ANCHOR: drop
impl<T> Drop for JoinSet<T> {
    fn drop(&mut self) {
        self.abort_all();
    }
}
// ANCHOR_END: drop

impl<T> fmt::Debug for JoinSet<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("JoinSet").field("len", &self.len).finish()
    }
}
