//! A single-thread executor whose only source of wake-ups is the ring.
//!
//! The loop, one turn at a time:
//!
//! 1. poll every task that is ready. A task that starts an operation
//!    queues its submission entry (SQE) in the ring and returns `Pending`;
//! 2. one `io_uring_enter` hands the kernel every entry queued in step 1 at
//!    once and, if no task is ready, sleeps until a completion (CQE)
//!    arrives;
//! 3. each completion wakes the task whose operation it completes (found
//!    by the CQE's `user_data`), which puts it back in the ready queue.
//!
//! The whole batch of step 1 costs one system call, however many tasks
//! started operations: this is where completion-based I/O saves the calls
//! a readiness loop spends on `epoll_wait` *and* on each `read`.
//!
//! Tasks are `!Send` futures living on this thread. Only the ring wakes a
//! sleeping executor: a waker called from another thread queues the task,
//! but the executor notices only at its next completion.
//!
//! Book: Chapter 10, "Owned buffers and cancellation".

use std::cell::RefCell;
use std::collections::VecDeque;
use std::future::Future;
use std::io;
use std::pin::Pin;
use std::rc::Rc;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Wake, Waker};

use super::driver::{Driver, Stats};

/// Submission entries in the ring: how many operations one
/// `io_uring_enter` can carry. When the queue is full, the driver flushes
/// it early (one more `io_uring_enter`), so this bounds a batch, not the
/// number of operations in flight.
pub const DEFAULT_ENTRIES: u32 = 256;

/// The task id the future passed to [`Runtime::block_on`] is known by.
const MAIN: usize = usize::MAX;

type LocalTask = Pin<Box<dyn Future<Output = ()>>>;

/// How a [`Runtime`] is built.
#[derive(Debug, Clone, Copy)]
pub struct Options {
    /// Submission-queue entries ([`DEFAULT_ENTRIES`]).
    pub entries: u32,
    /// Submit `IORING_OP_ASYNC_CANCEL` when a future is dropped with its
    /// operation in flight (default `true`). Either way the buffer stays
    /// parked in the driver until the operation's completion arrives;
    /// without the cancel, that is whenever the operation ends by itself.
    pub cancel_on_drop: bool,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            entries: DEFAULT_ENTRIES,
            cancel_on_drop: true,
        }
    }
}

/// What tasks and operations share: the driver, and the tasks spawned
/// but not yet adopted by the loop.
pub(crate) struct Shared {
    pub(crate) driver: RefCell<Driver>,
    spawned: RefCell<Vec<LocalTask>>,
}

thread_local! {
    static CURRENT: RefCell<Option<Rc<Shared>>> = const { RefCell::new(None) };
}

/// The runtime running on this thread; panics outside one.
pub(crate) fn current() -> Rc<Shared> {
    CURRENT.with(|current| {
        current
            .borrow()
            .clone()
            .expect("owned operations must run inside owned::Runtime::block_on")
    })
}

/// Sets the thread's current runtime for a scope.
struct Enter(Option<Rc<Shared>>);

impl Enter {
    fn new(shared: &Rc<Shared>) -> Enter {
        Enter(CURRENT.with(|current| current.replace(Some(shared.clone()))))
    }
}

impl Drop for Enter {
    fn drop(&mut self) {
        let previous = self.0.take();
        CURRENT.with(|current| *current.borrow_mut() = previous);
    }
}

/// The queue of task ids to poll; what a waker pushes to.
#[derive(Default)]
struct ReadyQueue(Mutex<VecDeque<usize>>);

impl ReadyQueue {
    fn push(&self, id: usize) {
        self.0.lock().unwrap().push_back(id);
    }

    fn take_all(&self) -> VecDeque<usize> {
        std::mem::take(&mut *self.0.lock().unwrap())
    }

    fn is_empty(&self) -> bool {
        self.0.lock().unwrap().is_empty()
    }
}

struct TaskWaker {
    id: usize,
    ready: Arc<ReadyQueue>,
}

impl Wake for TaskWaker {
    fn wake(self: Arc<Self>) {
        self.ready.push(self.id);
    }
}

/// A single-thread executor driven by one io_uring.
pub struct Runtime {
    shared: Rc<Shared>,
    tasks: RefCell<Vec<Option<LocalTask>>>,
    ready: Arc<ReadyQueue>,
}

impl Runtime {
    /// A runtime with the default [`Options`]. Fails where the kernel
    /// refuses io_uring (too old, or forbidden by a seccomp filter or
    /// `kernel.io_uring_disabled`).
    pub fn new() -> io::Result<Runtime> {
        Runtime::with_options(Options::default())
    }

    /// A runtime built with `options`.
    pub fn with_options(options: Options) -> io::Result<Runtime> {
        Ok(Runtime {
            shared: Rc::new(Shared {
                driver: RefCell::new(Driver::new(options.entries, options.cancel_on_drop)?),
                spawned: RefCell::new(Vec::new()),
            }),
            tasks: RefCell::new(Vec::new()),
            ready: Arc::default(),
        })
    }

    /// What the driver has done so far.
    pub fn stats(&self) -> Stats {
        self.shared.driver.borrow().stats()
    }

    /// Operations the kernel still holds, parked ones included.
    pub fn in_flight(&self) -> usize {
        self.shared.driver.borrow().in_flight()
    }

    // ANCHOR: block_on
    /// Runs `future` to completion on this thread, with every task it
    /// spawns.
    pub fn block_on<F: Future>(&self, future: F) -> F::Output {
        let _enter = Enter::new(&self.shared);
        let mut future = std::pin::pin!(future);
        let main_waker = self.waker(MAIN);
        self.ready.push(MAIN);
        loop {
            // 1. Poll every ready task; their operations queue SQEs.
            for id in self.ready.take_all() {
                if id == MAIN {
                    let mut cx = Context::from_waker(&main_waker);
                    if let Poll::Ready(output) = future.as_mut().poll(&mut cx) {
                        return output;
                    }
                } else {
                    self.poll_task(id);
                }
            }
            self.adopt_spawned();
            // 2. One io_uring_enter for the whole batch; sleep in it only
            //    if nothing is ready. 3. Completions wake their tasks.
            let idle = self.ready.is_empty();
            let mut driver = self.shared.driver.borrow_mut();
            assert!(
                !idle || driver.in_flight() > 0,
                "every task waits, and no operation is in flight to wake one"
            );
            driver.turn(idle).expect("io_uring_enter failed");
        }
    }
    // ANCHOR_END: block_on

    fn poll_task(&self, id: usize) {
        // Take the task out while polling it, so it may spawn.
        let Some(mut task) = self.tasks.borrow_mut().get_mut(id).and_then(Option::take) else {
            return; // finished already; a late wake
        };
        let waker = self.waker(id);
        if task
            .as_mut()
            .poll(&mut Context::from_waker(&waker))
            .is_pending()
        {
            self.tasks.borrow_mut()[id] = Some(task);
        }
    }

    fn adopt_spawned(&self) {
        let spawned = std::mem::take(&mut *self.shared.spawned.borrow_mut());
        let mut tasks = self.tasks.borrow_mut();
        for task in spawned {
            let id = match tasks.iter().position(Option::is_none) {
                Some(id) => {
                    tasks[id] = Some(task);
                    id
                }
                None => {
                    tasks.push(Some(task));
                    tasks.len() - 1
                }
            };
            self.ready.push(id);
        }
    }

    fn waker(&self, id: usize) -> Waker {
        Waker::from(Arc::new(TaskWaker {
            id,
            ready: self.ready.clone(),
        }))
    }
}

impl Drop for Runtime {
    fn drop(&mut self) {
        // Drop every task inside the runtime, so that their operations
        // park their buffers in the driver; the driver, dropped last,
        // waits for those completions.
        let _enter = Enter::new(&self.shared);
        self.tasks.borrow_mut().clear();
        self.shared.spawned.borrow_mut().clear();
    }
}

/// Runs `future` as a task of the current runtime. Panics outside one.
pub fn spawn<F: Future<Output = ()> + 'static>(future: F) {
    current().spawned.borrow_mut().push(Box::pin(future));
}

/// Returns `Pending` once, after waking its own task: lets the other ready
/// tasks, and the ring, have a turn.
pub async fn yield_now() {
    let mut yielded = false;
    std::future::poll_fn(|cx| {
        if yielded {
            return Poll::Ready(());
        }
        yielded = true;
        cx.waker().wake_by_ref();
        Poll::Pending
    })
    .await
}
