//! A single-threaded executor: tasks, a run queue, `spawn`, `block_on`.
//!
//! An executor owns futures and polls them when they are ready to make
//! progress. Here:
//!
//! * a **task** is a pinned, boxed future (`Pin<Box<dyn Future<Output =
//!   ()>>>`) in a slab, with a [`WakeHandle`] that knows the task's id;
//! * the **run queue** holds the ids of tasks that were woken. It is a
//!   lock-free queue (`crossbeam-queue`) because wakers may be called from
//!   any thread, though the tasks themselves never leave this one;
//! * [`Executor::block_on`] polls the main future and every woken task until
//!   the main future is ready;
//! * when nothing is ready, it **sleeps in the reactor**: Chapter 5's event
//!   loop waits in `epoll_wait` for I/O, for the next timer, or for a wake-up
//!   from another thread. (An executor without I/O sleeps with
//!   `thread::park` instead; the tests that run under Miri use that.)
//!
//! **No lost wake-up.** The classic bug: the executor sees an empty queue,
//! decides to sleep, and a waker on another thread queues a task and
//! signals *before* the executor is asleep; the signal is lost and the task
//! waits forever. Here the signal is not a one-off event but a state that
//! persists until consumed: `mio::Waker` writes an `eventfd` (a counter),
//! and `thread::unpark` sets a token. A wake that happens before the sleep
//! makes the sleep return at once. And a task's `scheduled` flag is cleared
//! *before* it is polled, so a wake during its own poll queues it again.
//!
//! **Fairness.** A batch polls only the tasks queued when it began; a task
//! that wakes itself (say, with [`yield_now`]) runs again in the next batch,
//! after the reactor has been asked, without waiting, for I/O events. A task
//! that yields cannot starve the sockets.
//!
//! Book: Chapter 6, "A first executor".

use std::cell::RefCell;
use std::future::Future;
use std::io;
use std::pin::{Pin, pin};
use std::rc::Rc;
use std::sync::Arc;
use std::task::{Context, Poll, Waker};
use std::thread::{self, Thread, ThreadId};
use std::time::Duration;

use chapter_05::event_loop::{EventLoop, Remote};
use chapter_05::slab::{Key, Slab};
use crossbeam_queue::SegQueue;

use crate::waker::{Schedule, WakeHandle, raw_waker};

/// The main future's id in the run queue.
const MAIN: usize = usize::MAX;

/// How a sleeping executor is woken from another thread.
enum Unpark {
    Reactor(Remote),
    Thread(Thread),
}

/// What wakers share with the executor: the run queue and the way to wake
/// it.
struct Shared {
    queue: SegQueue<usize>,
    owner: ThreadId,
    unpark: Unpark,
}

// ANCHOR: schedule
impl Schedule for Shared {
    fn schedule(&self, id: usize) {
        self.queue.push(id);
        // On the executor's own thread the executor is awake (it is running
        // a task or a reactor callback); from elsewhere it may be asleep.
        if thread::current().id() != self.owner {
            match &self.unpark {
                Unpark::Reactor(remote) => remote.wake(),
                Unpark::Thread(thread) => thread.unpark(),
            }
        }
    }
}
// ANCHOR_END: schedule

struct Task {
    future: Option<Pin<Box<dyn Future<Output = ()>>>>,
    waker: Waker,
    handle: Arc<WakeHandle>,
}

/// Counters, for tests and the book.
#[derive(Debug, Default, Clone, Copy)]
pub struct ExecutorStats {
    /// Tasks spawned.
    pub spawned: u64,
    /// Polls of tasks (the main future included).
    pub polls: u64,
    /// Times the executor went to sleep with nothing to run.
    pub parks: u64,
}

/// The executor's state, reachable from `spawn` and the leaf futures
/// through a thread-local while `block_on` runs.
pub(crate) struct Core {
    tasks: RefCell<Slab<Task>>,
    shared: Arc<Shared>,
    /// Chapter 5's event loop, when the executor does I/O.
    pub(crate) reactor: Option<RefCell<EventLoop>>,
    stats: RefCell<ExecutorStats>,
}

thread_local! {
    static CURRENT: RefCell<Option<Rc<Core>>> = const { RefCell::new(None) };
}

/// The executor running on this thread, if any.
pub(crate) fn current() -> Option<Rc<Core>> {
    CURRENT.with(|c| c.borrow().clone())
}

/// Runs `f` with the reactor of the executor running on this thread.
/// `None` if there is no such executor, it has no reactor, or the reactor
/// is busy (its own callbacks are running): callers must cope.
pub(crate) fn with_reactor<R>(f: impl FnOnce(&mut EventLoop) -> R) -> Option<R> {
    let core = current()?;
    let reactor = core.reactor.as_ref()?;
    let mut ev = reactor.try_borrow_mut().ok()?;
    Some(f(&mut ev))
}

/// A single-threaded executor.
pub struct Executor {
    core: Rc<Core>,
}

impl Executor {
    /// An executor whose reactor is Chapter 5's event loop: tasks can use
    /// [`crate::net`] and [`crate::time`].
    pub fn new() -> io::Result<Executor> {
        let ev = EventLoop::new()?;
        let remote = ev.remote();
        Ok(Executor::with(Unpark::Reactor(remote), Some(ev)))
    }

    /// An executor without I/O: it sleeps with `thread::park`. Leaf futures
    /// of [`crate::net`] and [`crate::time`] cannot run on it.
    pub fn without_io() -> Executor {
        Executor::with(Unpark::Thread(thread::current()), None)
    }

    fn with(unpark: Unpark, reactor: Option<EventLoop>) -> Executor {
        Executor {
            core: Rc::new(Core {
                tasks: RefCell::new(Slab::new()),
                shared: Arc::new(Shared {
                    queue: SegQueue::new(),
                    owner: thread::current().id(),
                    unpark,
                }),
                reactor: reactor.map(RefCell::new),
                stats: RefCell::new(ExecutorStats::default()),
            }),
        }
    }

    /// Counters so far.
    pub fn stats(&self) -> ExecutorStats {
        *self.core.stats.borrow()
    }

    /// Runs callbacks on the reactor directly (Chapter 5's servers can share
    /// the loop with this executor's tasks).
    pub fn reactor<R>(&self, f: impl FnOnce(&mut EventLoop) -> R) -> Option<R> {
        let reactor = self.core.reactor.as_ref()?;
        Some(f(&mut reactor.borrow_mut()))
    }

    // ANCHOR: block_on
    /// Runs `future` to completion, and every task it spawns meanwhile.
    /// Tasks still pending when it completes are dropped.
    ///
    /// Panics if called from inside a task: see [`nested block_on`](crate::colouring).
    pub fn block_on<F: Future>(&self, future: F) -> F::Output {
        let outer = CURRENT.with(|c| c.replace(Some(Rc::clone(&self.core))));
        if outer.is_some() {
            CURRENT.with(|c| *c.borrow_mut() = outer);
            panic!(
                "block_on inside a task: the outer executor could run none of its tasks until \
                 this returns, so if the inner future waits for one of them it waits forever. \
                 Use .await instead"
            );
        }
        let _reset = ResetCurrent;
        let shared = &self.core.shared;
        let main = WakeHandle::new(MAIN, Arc::clone(shared) as Arc<dyn Schedule>);
        let main_waker = raw_waker(Arc::clone(&main));
        let mut future = pin!(future);
        shared.queue.push(MAIN);
        loop {
            // One batch: the tasks queued now, each polled once.
            let batch = shared.queue.len();
            for _ in 0..batch {
                let Some(id) = shared.queue.pop() else { break };
                self.core.stats.borrow_mut().polls += 1;
                if id != MAIN {
                    self.poll_task(id);
                    continue;
                }
                main.clear_scheduled();
                if let Poll::Ready(output) =
                    future.as_mut().poll(&mut Context::from_waker(&main_waker))
                {
                    self.drop_all_tasks();
                    return output;
                }
            }
            // Then I/O: without sleeping if work is queued, else until
            // something happens.
            let idle = shared.queue.is_empty();
            if idle {
                self.core.stats.borrow_mut().parks += 1;
            }
            self.park(if idle { None } else { Some(Duration::ZERO) });
        }
    }
    // ANCHOR_END: block_on

    fn park(&self, max_wait: Option<Duration>) {
        match &self.core.reactor {
            Some(reactor) => {
                // An error of the poller itself cannot be recovered here.
                reactor
                    .borrow_mut()
                    .turn_at_most(max_wait)
                    .expect("the reactor's poll failed");
            }
            None if max_wait.is_none() => thread::park(),
            None => {}
        }
    }

    // ANCHOR: poll_task
    fn poll_task(&self, id: usize) {
        let key = Key::from_usize(id);
        let (future, waker, handle) = {
            let mut tasks = self.core.tasks.borrow_mut();
            let Some(task) = tasks.get_mut(key) else {
                return; // finished already: a late wake
            };
            (
                task.future.take(),
                task.waker.clone(),
                Arc::clone(&task.handle),
            )
        };
        let Some(mut future) = future else { return };
        // Cleared before the poll: a wake during the poll queues it again.
        handle.clear_scheduled();
        // The slab is not borrowed during the poll, so the task can spawn.
        match future.as_mut().poll(&mut Context::from_waker(&waker)) {
            Poll::Ready(()) => {
                let finished = self.core.tasks.borrow_mut().remove(key);
                drop(finished); // outside the borrow: dropping may wake others
                drop(future);
            }
            Poll::Pending => {
                if let Some(task) = self.core.tasks.borrow_mut().get_mut(key) {
                    task.future = Some(future);
                }
            }
        }
    }
    // ANCHOR_END: poll_task

    fn drop_all_tasks(&self) {
        loop {
            let keys = self.core.tasks.borrow().keys();
            if keys.is_empty() {
                return;
            }
            for key in keys {
                let task = self.core.tasks.borrow_mut().remove(key);
                drop(task); // may spawn or wake; hence the outer loop
            }
        }
    }
}

/// Clears the thread-local executor when `block_on` ends, even by a panic.
struct ResetCurrent;

impl Drop for ResetCurrent {
    fn drop(&mut self) {
        CURRENT.with(|c| *c.borrow_mut() = None);
    }
}

/// The output of a spawned task, as a future.
pub struct JoinHandle<T> {
    state: Rc<RefCell<JoinState<T>>>,
}

struct JoinState<T> {
    output: Option<T>,
    waker: Option<Waker>,
}

impl<T> Future for JoinHandle<T> {
    type Output = T;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<T> {
        let mut state = self.state.borrow_mut();
        match state.output.take() {
            Some(output) => Poll::Ready(output),
            None => {
                state.waker = Some(cx.waker().clone());
                Poll::Pending
            }
        }
    }
}

impl<T> JoinHandle<T> {
    /// Whether the task has finished (and its output waits here).
    pub fn is_finished(&self) -> bool {
        self.state.borrow().output.is_some()
    }
}

// ANCHOR: spawn
/// Starts `future` as a task of the executor running on this thread; its
/// output comes back through the returned handle. Dropping the handle does
/// not stop the task.
///
/// Panics outside `block_on`.
pub fn spawn<F>(future: F) -> JoinHandle<F::Output>
where
    F: Future + 'static,
    F::Output: 'static,
{
    let core = current().expect("spawn outside block_on: there is no executor to run the task");
    let state = Rc::new(RefCell::new(JoinState {
        output: None,
        waker: None,
    }));
    let task_state = Rc::clone(&state);
    let task = async move {
        let output = future.await;
        let waker = {
            let mut state = task_state.borrow_mut();
            state.output = Some(output);
            state.waker.take()
        };
        if let Some(waker) = waker {
            waker.wake();
        }
    };
    let mut tasks = core.tasks.borrow_mut();
    let key = tasks.next_key();
    let handle = WakeHandle::new(
        key.to_usize(),
        Arc::clone(&core.shared) as Arc<dyn Schedule>,
    );
    handle.mark_scheduled();
    tasks.insert(Task {
        future: Some(Box::pin(task)),
        waker: raw_waker(Arc::clone(&handle)),
        handle,
    });
    core.shared.queue.push(key.to_usize());
    core.stats.borrow_mut().spawned += 1;
    JoinHandle { state }
}
// ANCHOR_END: spawn

/// Gives the other tasks a turn: pending once, ready when polled again.
pub fn yield_now() -> chapter_02::future_switch::YieldNow {
    chapter_02::future_switch::YieldNow::default()
}

/// Runs `future` on a new executor with I/O.
pub fn block_on<F: Future>(future: F) -> F::Output {
    Executor::new()
        .expect("creating the reactor (epoll and an eventfd) failed")
        .block_on(future)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;

    #[test]
    fn spawned_tasks_run_and_return_their_output() {
        let ex = Executor::without_io();
        let sum = ex.block_on(async {
            let handles: Vec<_> = (0..10u64).map(|i| spawn(async move { i * i })).collect();
            let mut sum = 0;
            for handle in handles {
                sum += handle.await;
            }
            sum
        });
        assert_eq!(sum, (0..10u64).map(|i| i * i).sum::<u64>());
        assert_eq!(ex.stats().spawned, 10);
    }

    #[test]
    fn yielding_tasks_interleave() {
        let ex = Executor::without_io();
        let trace = Rc::new(RefCell::new(String::new()));
        ex.block_on(async {
            let tasks: Vec<_> = ['a', 'b', 'c']
                .into_iter()
                .map(|name| {
                    let trace = Rc::clone(&trace);
                    spawn(async move {
                        for _ in 0..3 {
                            trace.borrow_mut().push(name);
                            yield_now().await;
                        }
                    })
                })
                .collect();
            for task in tasks {
                task.await;
            }
        });
        assert_eq!(*trace.borrow(), "abcabcabc");
    }

    #[test]
    fn a_wake_from_another_thread_is_never_lost() {
        // Many rounds of: the task waits; another thread wakes it at a
        // random moment, possibly just as the executor decides to sleep.
        let ex = Executor::without_io();
        let rounds = if cfg!(miri) { 20 } else { 2_000 };
        ex.block_on(async {
            for round in 0..rounds {
                let woken = Rc::new(Cell::new(false));
                let woken2 = Rc::clone(&woken);
                std::future::poll_fn(move |cx| {
                    if woken2.get() {
                        return Poll::Ready(());
                    }
                    woken2.set(true);
                    let waker = cx.waker().clone();
                    thread::spawn(move || {
                        if round % 2 == 0 {
                            thread::yield_now();
                        }
                        waker.wake();
                    });
                    Poll::Pending
                })
                .await;
                assert!(woken.get());
            }
        });
    }

    #[test]
    fn unfinished_tasks_are_dropped_when_block_on_returns() {
        struct Flag(Rc<Cell<u32>>);
        impl Drop for Flag {
            fn drop(&mut self) {
                self.0.set(self.0.get() + 1);
            }
        }
        let dropped = Rc::new(Cell::new(0));
        let ex = Executor::without_io();
        ex.block_on(async {
            for _ in 0..5 {
                let flag = Flag(Rc::clone(&dropped));
                spawn(async move {
                    let _flag = flag;
                    std::future::pending::<()>().await;
                });
            }
            yield_now().await; // let them start
        });
        assert_eq!(dropped.get(), 5);
    }

    #[test]
    #[should_panic(expected = "block_on inside a task")]
    fn nested_block_on_is_refused() {
        let ex = Executor::without_io();
        ex.block_on(async {
            Executor::without_io().block_on(async {});
        });
    }
}
