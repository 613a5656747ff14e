//! The loop each worker thread runs.
//!
//! ```text
//! loop:
//!     tick += 1
//!     every event_interval ticks: maintenance (shutdown? I/O and timers, part 2)
//!     task = every global_queue_interval ticks: inject queue first, then local
//!            otherwise: LIFO slot, local ring, then a batch from the inject queue
//!     else   steal half of a random victim's ring (searching), then inject again
//!     else   park until woken
//!     run the task, then up to 3 tasks from the LIFO slot
//! ```
//!
//! A worker's mutable state is its [`WorkerCore`]: its ring, its LIFO slot, its
//! tick, whether it is searching. The core sits in a `RefCell` in the
//! worker's thread-local [`WorkerContext`], so that a task being polled on this
//! thread can reach it when it wakes or spawns another task: that is how a
//! spawn from inside the runtime lands in the local queue (no lock, no
//! atomic read-modify-write) while a spawn from outside goes to the inject
//! queue.
//!
//! Yielding is a lower priority than everything else: a task that calls
//! `yield_now` leaves its waker in the worker's *defer list*, and the worker
//! wakes those tasks only when it has nothing else to run (or at its next
//! maintenance tick). A loop of yielding tasks therefore cannot keep a worker
//! from taking new work out of the inject queue in batches.
//!
//! The LIFO slot: when the running task wakes or spawns a task, that task
//! goes into the slot, and it runs as soon as the current poll returns,
//! ahead of the ring. A message passed to a waiting task is then handled
//! while it is still in cache, and a request/response pair of tasks
//! ping-pongs on one core without queueing behind everything else. Two
//! limits keep it from starving the ring: a task woken while the slot is
//! full pushes the older occupant to the back of the ring, and after three
//! LIFO polls in a row the slot is switched off until the next task from the
//! ring. The slot is never stolen, so its task waits if the current poll
//! blocks the thread (another reason not to block in a task).
//!
//! Book: Chapter 7, "The worker loop" and "The LIFO slot".

use super::queue::{self, Local};
use super::{MultiThread, WorkerTask};
use crate::io_driver::EVENTS_PER_TURN;
use crate::runtime::context;
use crate::scheduler::Scheduler;
use crate::scheduler::park::Parker;
use crate::scheduler::stats::WorkerStats;
use crate::scheduler::trace::TraceKind;
use crate::task::Task;
use crate::task::coop;
use crate::task::owned::RELEASE_BATCH;
use std::cell::{Cell, RefCell};
use std::sync::{Arc, PoisonError};
use std::task::Waker;
use std::time::Instant;

// ANCHOR: lifo_const
/// How many tasks in a row may run from the LIFO slot before it is switched
/// off for the rest of the tick. Enough for a message to be handed to the
/// task that waits for it and for that one to answer; small enough that a
/// pair of tasks ping-ponging forever cannot starve the ring.
pub(crate) const MAX_LIFO_POLLS_PER_TICK: usize = 3;
// ANCHOR_END: lifo_const

/// The room a busy worker's ring needs before it turns the driver: all the
/// events one turn can bring (under loom, whose ring has 4 slots, half of
/// it).
const ROOM_FOR_A_TURN: usize = if EVENTS_PER_TURN < queue::CAPACITY / 2 {
    EVENTS_PER_TURN
} else {
    queue::CAPACITY / 2
};

/// A worker's own state.
pub(crate) struct WorkerCore {
    index: usize,
    /// Incremented once per iteration of the worker loop.
    tick: u32,
    /// The task to run next, woken or spawned by the task that ran last.
    lifo_slot: Option<WorkerTask>,
    /// False after MAX_LIFO_POLLS_PER_TICK LIFO polls in a row.
    lifo_enabled: bool,
    run_queue: Local<WorkerTask>,
    /// Counted in `Idle`'s number of searchers.
    is_searching: bool,
    /// Since when the busy time was last brought up to date (metrics only).
    busy_since: Option<Instant>,
    /// True while this worker is inside the driver: the tasks it wakes there
    /// do not each wake a parked worker; one is woken afterwards if more
    /// than one task came out (`notify_after_driver`).
    in_driver: bool,
    is_shutdown: bool,
    rand: FastRand,
    /// Tasks that completed here, not spawned here lately, still in the
    /// owned list, taken out together when there are `RELEASE_BATCH` of
    /// them and at each maintenance tick. A parked worker keeps its last
    /// few until it wakes: releasing them on the way to sleep, while
    /// another thread spawns into the same shards, measured slower
    /// (`num_alive_tasks` leaves them out either way).
    completed: Vec<Task<Arc<MultiThread>>>,
}

/// The thread-local state of a worker thread.
pub(crate) struct WorkerContext {
    handle: Arc<MultiThread>,
    index: usize,
    core: RefCell<Option<WorkerCore>>,
    /// Taken with the core when a task hands the core to another thread.
    parker: RefCell<Option<Parker>>,
    /// Wakers of tasks that yielded, woken when the worker runs dry.
    defer: RefCell<Vec<Waker>>,
}

thread_local! {
    /// The worker context of this thread, if it is a worker; null otherwise.
    static CURRENT: Cell<*const WorkerContext> = const { Cell::new(std::ptr::null()) };
}

/// Calls `f` with this thread's worker context and `item`, if this thread
/// is a worker (of any runtime); gives `item` back otherwise.
fn with_current_context<T, R>(item: T, f: impl FnOnce(&WorkerContext, T) -> R) -> Result<R, T> {
    let cx = CURRENT.with(Cell::get);
    if cx.is_null() {
        return Err(item);
    }
    // CURRENT is set by `run` to a WorkerContext on that thread's stack and
    // cleared before the context is dropped; we are on that thread.
    // SAFETY: non-null, so it points at this thread's live WorkerContext,
    // and the reference does not outlive `f`.
    let cx = unsafe { &*cx };
    Ok(f(cx, item))
}

/// The index of the worker this thread is, if it is one
/// (`runtime::worker_index`).
pub(crate) fn current_worker_index() -> Option<usize> {
    with_current_context((), |cx, ()| cx.index).ok()
}

/// Runs `f` with this thread's worker context and core, if this thread is a
/// worker of `handle`'s runtime and its core is free; gives `item` back
/// otherwise.
fn on_current_core<T>(
    handle: &MultiThread,
    item: T,
    f: impl FnOnce(&WorkerContext, &mut WorkerCore, T),
) -> Result<(), T> {
    with_current_context(item, |cx, item| {
        if !std::ptr::eq(&*cx.handle, handle) {
            return Err(item);
        }
        // The core is borrowed only between polls; during a poll (when
        // tasks wake each other, spawn or complete) it is free. If it is
        // taken (shutdown is dropping tasks), the caller falls back.
        let Ok(mut core) = cx.core.try_borrow_mut() else {
            return Err(item);
        };
        let Some(core) = core.as_mut() else {
            return Err(item);
        };
        f(cx, core, item);
        Ok(())
    })
    .unwrap_or_else(Err)
}

/// Tries to schedule `task` on the current thread's worker, if this thread
/// is a worker of `handle`'s runtime and its core is available. Gives the
/// task back otherwise (the caller uses the inject queue).
pub(crate) fn schedule_on_current_worker(
    handle: &MultiThread,
    task: WorkerTask,
    is_yield: bool,
) -> Result<(), WorkerTask> {
    on_current_core(handle, task, |_, core, task| {
        core.schedule_local(handle, task, is_yield);
    })
}

/// Keeps a task that completed on this worker, if this thread is a worker
/// of `handle`'s runtime with its core, to take it out of the owned list
/// with others ([`WorkerCore::release_completed`]). A full batch is
/// released first, so `task` itself is never freed here. Gives the task back
/// otherwise.
pub(crate) fn defer_release_on_current_worker(
    handle: &MultiThread,
    task: Task<Arc<MultiThread>>,
) -> Result<(), Task<Arc<MultiThread>>> {
    on_current_core(handle, task, |cx, core, task| {
        if core.completed.len() == RELEASE_BATCH {
            // With the worker's own handle: `handle` lives in `task`'s memory.
            core.release_completed(&cx.handle);
        }
        core.completed.push(task);
        cx.stats().set_unreleased(core.completed.len());
    })
}

/// Defers `waker` to this worker's defer list, if this thread is a worker
/// (of any runtime): the task is woken after the worker's next turn of the
/// driver. Returns false on a thread that is not a worker; a worker that
/// cannot defer (it handed its core away, or the list is in use) wakes the
/// waker at once and returns true.
pub(crate) fn defer(waker: &Waker) -> bool {
    with_current_context((), |cx, ()| {
        // A thread that handed its core away (block_in_place) will never
        // wake its defer list again: wake now.
        if cx.core.try_borrow().is_ok_and(|core| core.is_none()) {
            waker.wake_by_ref();
            return;
        }
        match cx.defer.try_borrow_mut() {
            Ok(mut defer) => {
                // The same task yielding twice in a row is deferred once.
                if !defer.last().is_some_and(|last| last.will_wake(waker)) {
                    defer.push(waker.clone());
                }
            }
            Err(_) => waker.wake_by_ref(),
        }
    })
    .is_ok()
}

/// Starts a worker thread running `core`, counted in the runtime's running
/// workers until it ends (even by panic). If the thread cannot start, the
/// core and the parker come back with the error.
pub(crate) fn spawn_thread(
    handle: Arc<MultiThread>,
    core: WorkerCore,
    parker: Parker,
    thread: std::thread::Builder,
) -> Result<std::thread::JoinHandle<()>, (WorkerCore, Parker, std::io::Error)> {
    /// Counts the thread out when it ends.
    struct Exit(Arc<MultiThread>);
    impl Drop for Exit {
        fn drop(&mut self) {
            self.0.worker_exited();
        }
    }
    // Handed over through a slot, so that a failed start can give it back.
    let slot = Arc::new(std::sync::Mutex::new(Some((core, parker))));
    let taken = slot.clone();
    handle.worker_started();
    let counted = Exit(handle.clone());
    let spawned = thread.spawn(move || {
        let _exit = counted;
        let parts = taken.lock().unwrap_or_else(PoisonError::into_inner).take();
        if let Some((core, parker)) = parts {
            let hooks = handle.resources.config.thread_hooks.clone();
            hooks.run(|| run(handle, core, parker));
        }
    });
    spawned.map_err(|error| {
        // The closure, and `counted` with it, was dropped: counted out.
        let (core, parker) = slot
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
            .expect("the thread never started");
        (core, parker, error)
    })
}

// ANCHOR: block_in_place
/// Runs `f`, which may block, on this thread; if this thread is a worker,
/// its core (run queue, LIFO slot, parker) first moves to a new thread, so
/// the worker's other tasks go on running while `f` blocks. See
/// [`task::block_in_place`](crate::task::block_in_place).
#[track_caller]
pub(crate) fn block_in_place<R>(f: impl FnOnce() -> R) -> R {
    let cx = CURRENT.with(Cell::get);
    if !cx.is_null() {
        // Not through `with_current_context`: a closure would hide the
        // caller's line from `hand_off_core`'s panic.
        // SAFETY: as in `with_current_context`.
        let cx = unsafe { &*cx };
        cx.hand_off_core();
    } else if !context::blocking_allowed()
        && (context::in_local_set()
            || context::with_current(|scheduler| {
                matches!(scheduler, Some(Scheduler::CurrentThread(_)))
            }))
    {
        panic!(
            "can call blocking only when running on the multi-threaded runtime: \
             block_in_place needs another worker to take over the tasks; use spawn_blocking"
        );
    }
    // `f` may block, and may even `block_on` (this thread runs no tasks
    // while it does).
    let _allowed = context::allow_blocking();
    f()
}
// ANCHOR_END: block_in_place

/// The body of a worker thread.
pub(crate) fn run(handle: Arc<MultiThread>, core: WorkerCore, parker: Parker) {
    let cx = WorkerContext {
        index: core.index,
        handle: handle.clone(),
        core: RefCell::new(Some(core)),
        parker: RefCell::new(Some(parker)),
        defer: RefCell::new(Vec::new()),
    };
    let _runtime = context::enter_worker(Scheduler::MultiThread(handle));
    CURRENT.with(|current| current.set(&cx));
    // Clears CURRENT even if something below panics.
    struct Reset;
    impl Drop for Reset {
        fn drop(&mut self) {
            CURRENT.with(|current| current.set(std::ptr::null()));
        }
    }
    let _reset = Reset;
    cx.run();
}

impl WorkerContext {
    /// Gives this worker's core to a new thread (for `block_in_place`),
    /// unless it is gone already (a second call, or shutdown). Tasks that
    /// yielded are woken first, into the core's queue, so they move too.
    #[track_caller]
    fn hand_off_core(&self) {
        self.wake_deferred();
        let Some(core) = self.core.borrow_mut().take() else {
            return;
        };
        let parker = self
            .parker
            .borrow_mut()
            .take()
            .expect("a worker with its core has its parker");
        let index = core.index;
        let name = match &self.handle.resources.config.thread_name_fn {
            Some(name) => name(),
            None => format!("rt-worker-{index}"),
        };
        let thread = std::thread::Builder::new().name(name);
        if let Err((core, parker, error)) = spawn_thread(self.handle.clone(), core, parker, thread)
        {
            // No thread to take over: put the core back, so this worker's
            // other tasks are not lost, and fail the call at its caller's
            // line, as std::thread::spawn and Tokio's block_in_place do.
            *self.core.borrow_mut() = Some(core);
            *self.parker.borrow_mut() = Some(parker);
            panic!("rt: block_in_place could not start a thread to take over the worker: {error}");
        }
    }

    fn stats(&self) -> &WorkerStats {
        &self.handle.resources.stats[self.index]
    }

    /// Starts a span of `kind` in the trace, ended when it is dropped.
    fn traced(&self, kind: TraceKind) -> TracedSpan<'_> {
        let began = self
            .handle
            .resources
            .tracer
            .as_ref()
            .map(|tracer| tracer.now());
        TracedSpan {
            worker: self,
            kind,
            began,
        }
    }

    fn run(&self) {
        if let Some(core) = self.core.borrow_mut().as_mut() {
            core.start_busy(&self.handle);
        }
        // SAFETY: gettid takes no arguments and cannot fail.
        let tid = unsafe { libc::gettid() };
        self.stats()
            .tid
            .store(tid as u64, std::sync::atomic::Ordering::Relaxed);
        // ANCHOR: run_loop
        loop {
            let maintenance_due = {
                let mut core = self.core.borrow_mut();
                // A task handed the core to another thread (block_in_place):
                // this thread is no longer a worker, and leaves the loop.
                let Some(core) = core.as_mut() else {
                    drop(core);
                    // Whatever the last task deferred goes to the queues.
                    self.wake_deferred();
                    return;
                };
                core.tick = core.tick.wrapping_add(1);
                let due = core
                    .tick
                    .is_multiple_of(self.handle.resources.config.event_interval);
                if due {
                    core.maintenance(&self.handle);
                }
                if core.is_shutdown {
                    break;
                }
                due
            };
            if maintenance_due {
                // I/O events, timers and yielded tasks get their turn at
                // least this often, however busy the queues are.
                self.park_yield();
            }
            let task = {
                let mut core = self.core.borrow_mut();
                let core = core.as_mut().expect("the worker owns its core");
                core.next_task(&self.handle).or_else(|| {
                    // Out of local work: from here until the next poll the
                    // worker searches, polls the driver or parks, and none
                    // of that time belongs to the task it polled last.
                    self.stats().set_current(None);
                    core.steal_work(&self.handle)
                })
            };
            match task {
                Some(task) => self.run_task(task),
                // Nothing else to do: poll the driver without blocking, then
                // the tasks that yielded (or ran out of budget) run again.
                None if self.has_deferred() => self.park_yield(),
                None => self.park(),
            }
        }
        self.shutdown();
        // ANCHOR_END: run_loop
    }

    // ANCHOR: park_yield
    /// A zero-timeout turn of the driver, then the deferred tasks. Tasks
    /// woken here go to the back of the ring, in the order their events
    /// came. The driver is turned only if the ring has room for all a turn
    /// can bring (`EVENTS_PER_TURN`); otherwise the events wait in the
    /// kernel, in order, for a later turn, and the timers with them. A
    /// ring that overflowed would send half its tasks to the inject queue,
    /// which a worker kept busy by its ring takes from only one task every
    /// `global_queue_interval` ticks: under a steady load they would wait
    /// there far longer than any other.
    fn park_yield(&self) {
        self.stats().set_current(None);
        let mut room = true;
        if let Some(core) = self.core.borrow_mut().as_mut() {
            core.lifo_enabled = false;
            core.in_driver = true;
            room = core.run_queue.remaining_slots() >= ROOM_FOR_A_TURN;
        }
        if room {
            let _traced = self.traced(TraceKind::Driver);
            self.handle.resources.driver.poll_now();
        }
        self.wake_deferred();
        if let Some(core) = self.core.borrow_mut().as_mut() {
            core.in_driver = false;
            core.notify_after_driver(&self.handle);
        }
    }
    // ANCHOR_END: park_yield

    fn has_deferred(&self) -> bool {
        !self.defer.borrow().is_empty()
    }

    /// Wakes every deferred task; each goes to this worker's queue.
    fn wake_deferred(&self) {
        let mut wakers = std::mem::take(&mut *self.defer.borrow_mut());
        if wakers.is_empty() {
            return;
        }
        // They yielded: they go to the back of the ring, not to the LIFO
        // slot (run_task switches the slot back on for the next task).
        if let Some(core) = self.core.borrow_mut().as_mut() {
            core.lifo_enabled = false;
        }
        for waker in wakers.drain(..) {
            waker.wake();
        }
        // Keep the allocation for next time.
        let mut defer = self.defer.borrow_mut();
        if defer.is_empty() {
            *defer = wakers;
        }
    }

    /// Polls `task`, then whatever it put in the LIFO slot, up to the limit,
    /// all on one cooperative budget.
    fn run_task(&self, task: WorkerTask) {
        {
            let mut core = self.core.borrow_mut();
            let core = core.as_mut().expect("the worker owns its core");
            core.transition_from_searching(&self.handle);
            core.lifo_enabled = !self.handle.resources.config.disable_lifo_slot;
        }
        let budget = if self.handle.resources.config.disable_coop_budget {
            None
        } else {
            Some(coop::BUDGET)
        };
        // ANCHOR: lifo_loop
        coop::with_budget(budget, || {
            self.poll(task, false);

            let mut lifo_polls = 0;
            loop {
                let task = {
                    let mut core = self.core.borrow_mut();
                    // Handed off during the poll (block_in_place).
                    let Some(core) = core.as_mut() else {
                        return;
                    };
                    let Some(task) = core.lifo_slot.take() else {
                        return;
                    };
                    if !coop::has_budget_remaining() {
                        // LIFO polls share the parent's budget: with none
                        // left, the task waits in the ring like the others.
                        core.push_back(&self.handle, task);
                        return;
                    }
                    lifo_polls += 1;
                    if lifo_polls >= MAX_LIFO_POLLS_PER_TICK {
                        // This is the last LIFO poll: what it wakes goes to the ring.
                        core.lifo_enabled = false;
                    }
                    task
                };
                self.poll(task, true);
            }
        });
        // ANCHOR_END: lifo_loop
    }

    /// Polls one task, keeping the counters and publishing which task is
    /// being polled (for the long-poll detector).
    fn poll(&self, task: WorkerTask, from_lifo: bool) {
        let stats = self.stats();
        stats.incr(&stats.polls);
        if from_lifo {
            stats.incr(&stats.lifo_polls);
        }
        stats.set_current(Some(task.location()));
        // The task hooks: one branch when none is set.
        match &self.handle.resources.config.task_hooks.poll {
            None => self.run_measured(task),
            Some(hooks) => hooks.around(task.id(), task.location(), || self.run_measured(task)),
        }
        if coop::is_exhausted() {
            stats.incr(&stats.budget_forced_yields);
        }
    }

    /// Runs one poll of `task`, traced or timed if the builder asked.
    #[inline(always)]
    fn run_measured(&self, task: WorkerTask) {
        if let Some(tracer) = &self.handle.resources.tracer {
            let task_id = crate::task::Id(task.id());
            let began = tracer.now();
            task.run();
            tracer.span(self.index, began, TraceKind::Poll { task: task_id });
        } else if self.handle.resources.config.poll_time_histogram {
            let start = Instant::now();
            task.run();
            let stats = self.stats();
            stats.record_poll_time(start.elapsed());
        } else {
            task.run();
        }
    }

    /// Parks until woken with work to do, or until shutdown.
    fn park(&self) {
        {
            let mut core = self.core.borrow_mut();
            let core = core.as_mut().expect("the worker owns its core");
            if !core.transition_to_parked(&self.handle) {
                return;
            }
            // Tasks woken by the driver while we sleep in it go to the ring.
            core.lifo_enabled = false;
            core.in_driver = true;
            let stats = self.stats();
            stats.set(&stats.queue_depth, 0);
            core.account_busy(&self.handle);
            // Parked time is not busy time.
            core.busy_since = None;
        }
        let stats = self.stats();
        stats.set_current(None);
        stats.incr(&stats.parks);
        stats
            .parked
            .store(true, std::sync::atomic::Ordering::Relaxed);
        let _traced = self.traced(TraceKind::Park);
        // `Builder::on_thread_park` now, `on_thread_unpark` on the way out.
        let _unparked = self.handle.resources.config.thread_hooks.parking();
        loop {
            self.parker
                .borrow()
                .as_ref()
                .expect("a worker with its core has its parker")
                .park();
            let mut core = self.core.borrow_mut();
            let core = core.as_mut().expect("the worker owns its core");
            core.in_driver = false;
            core.maintenance(&self.handle);
            if core.is_shutdown {
                return;
            }
            if core.transition_from_parked(&self.handle) {
                core.notify_after_driver(&self.handle);
                stats.incr(&stats.unparks);
                // Before `worker_unparked`'s fence: the watchdog, if it
                // sleeps until a worker unparks, sees this or is woken.
                stats
                    .parked
                    .store(false, std::sync::atomic::Ordering::Relaxed);
                self.handle.watchdog.worker_unparked();
                core.start_busy(&self.handle);
                return;
            }
            core.in_driver = true;
        }
    }

    /// The loop saw shutdown: cancel every task (every worker tries; the
    /// first does the work), then hand the core in.
    fn shutdown(&self) {
        self.handle.owned.close_and_shutdown_all();
        // Each deferred waker holds a reference to a task now cancelled.
        drop(std::mem::take(&mut *self.defer.borrow_mut()));
        let mut core = self
            .core
            .borrow_mut()
            .take()
            .expect("the worker owns its core");
        // Shutdown took them out of the list: only our references go.
        core.release_completed(&self.handle);
        self.handle.shutdown_core(core);
    }
}

impl WorkerCore {
    pub(crate) fn new(index: usize, run_queue: Local<WorkerTask>) -> WorkerCore {
        WorkerCore {
            index,
            tick: 0,
            lifo_slot: None,
            lifo_enabled: true,
            run_queue,
            is_searching: false,
            in_driver: false,
            busy_since: None,
            is_shutdown: false,
            rand: FastRand::new(index),
            completed: Vec::with_capacity(RELEASE_BATCH),
        }
    }

    /// The next task from this worker's own queues, or a batch from the
    /// inject queue.
    // ANCHOR: next_task
    fn next_task(&mut self, handle: &MultiThread) -> Option<WorkerTask> {
        if self
            .tick
            .is_multiple_of(handle.resources.config.global_queue_interval)
        {
            // Fairness: every so often the inject queue goes first, so tasks
            // from outside are not starved by a worker that keeps itself busy.
            if let Some(task) = handle.inject.pop() {
                let stats = &handle.resources.stats[self.index];
                stats.incr(&stats.inject_pulls);
                return Some(task);
            }
            return self.next_local_task();
        }
        self.next_local_task()
            .or_else(|| self.refill_from_inject(handle))
    }
    // ANCHOR_END: next_task

    fn next_local_task(&mut self) -> Option<WorkerTask> {
        self.lifo_slot.take().or_else(|| self.run_queue.pop())
    }

    /// Takes a fair share of the inject queue into the local ring, returning
    /// one task to run now. The share is the queue's length divided by the
    /// number of workers (plus one), so one worker does not take it all
    /// while others are waking up to help; at most half a ring.
    fn refill_from_inject(&mut self, handle: &MultiThread) -> Option<WorkerTask> {
        if handle.inject.is_empty() {
            return None;
        }
        let room = self.run_queue.remaining_slots().min(queue::CAPACITY / 2);
        let want = (handle.inject.len() / handle.num_workers() + 1).min(room + 1);
        let mut first = None;
        let mut spilled = Vec::new();
        let run_queue = &mut self.run_queue;
        let taken = handle.inject.pop_n(want, |task| {
            if first.is_none() {
                first = Some(task);
            } else if let Err(task) = run_queue.push_back_if_room(task) {
                // Cannot happen (we asked for at most `room` more), but the
                // inject lock is held here, so overflowing would deadlock.
                spilled.push(task);
            }
        });
        if !spilled.is_empty() {
            handle.inject.push_batch(spilled.into_iter());
        }
        let stats = &handle.resources.stats[self.index];
        stats.add(&stats.inject_pulls, taken as u64);
        first
    }

    /// Looks for work elsewhere: steals from the other workers, starting at a
    /// random one, then checks the inject queue. Only if allowed to search.
    // ANCHOR: steal_work
    fn steal_work(&mut self, handle: &MultiThread) -> Option<WorkerTask> {
        if !self.transition_to_searching(handle) {
            return None;
        }
        let workers = handle.num_workers();
        let start = self.rand.below(workers);
        for i in 0..workers {
            let victim = (start + i) % workers;
            if victim == self.index {
                continue;
            }
            let before = self.run_queue.len();
            if let Some(task) = handle.remotes[victim].steal.steal_into(&mut self.run_queue) {
                let stats = &handle.resources.stats[self.index];
                let stolen = (self.run_queue.len() - before + 1) as u64;
                stats.incr(&stats.steal_operations);
                stats.add(&stats.steals, stolen);
                if let Some(tracer) = &handle.resources.tracer {
                    tracer.instant(self.index, TraceKind::Steal { tasks: stolen });
                }
                return Some(task);
            }
        }
        self.refill_from_inject(handle)
    }
    // ANCHOR_END: steal_work

    /// Schedules a task woken or spawned on this worker.
    // ANCHOR: schedule_local
    fn schedule_local(&mut self, handle: &MultiThread, task: WorkerTask, is_yield: bool) {
        let stats = &handle.resources.stats[self.index];
        stats.incr(&stats.local_schedules);
        let pushed_to_ring = if is_yield || !self.lifo_enabled {
            self.push_back(handle, task);
            true
        } else {
            match self.lifo_slot.replace(task) {
                // The previous occupant waits at the back of the ring.
                Some(previous) => {
                    self.push_back(handle, previous);
                    true
                }
                None => false,
            }
        };
        // A task in the ring can be stolen: wake a worker to steal it if
        // nobody is searching. (The LIFO slot cannot be stolen, so putting a
        // task there wakes nobody; nor does a task the driver wakes, see
        // `notify_after_driver`.)
        if pushed_to_ring && !self.in_driver {
            handle.notify_parked();
        }
    }
    // ANCHOR_END: schedule_local

    /// After a turn of the driver: if it left more than one task here, and
    /// we are not searching (a searcher wakes another when it finds work),
    /// wake one parked worker to share them. One wake-up per batch of
    /// events, not one per task.
    fn notify_after_driver(&self, handle: &MultiThread) {
        if !self.is_searching && usize::from(self.lifo_slot.is_some()) + self.run_queue.len() > 1 {
            handle.notify_parked();
        }
    }

    pub(crate) fn push_back(&mut self, handle: &MultiThread, task: WorkerTask) {
        if self.run_queue.push_back_or_overflow(task, &handle.inject) {
            let stats = &handle.resources.stats[self.index];
            stats.incr(&stats.overflows);
        }
    }

    /// Takes the tasks that completed on this worker out of the owned list,
    /// under one lock per shard, and frees those nobody else holds.
    fn release_completed(&mut self, handle: &MultiThread) {
        if self.completed.is_empty() {
            return;
        }
        // Zero first: a count of live tasks that reads the list and then
        // this (`MultiThread::alive_tasks`) must not subtract tasks the
        // list no longer holds.
        handle.resources.stats[self.index].set_unreleased(0);
        handle.owned.release_batch(&mut self.completed);
    }

    fn maintenance(&mut self, handle: &MultiThread) {
        self.release_completed(handle);
        if !self.is_shutdown {
            self.is_shutdown = handle.inject.is_closed();
        }
        let stats = &handle.resources.stats[self.index];
        stats.set(&stats.queue_depth, self.run_queue.len() as u64);
        let now = self.account_busy(handle);
        // The long-poll detector's look, if one is due: a load when it is
        // not (the clock was just read for the busy time, when the worker
        // was busy).
        if let Some(detector) = &handle.detector {
            detector.worker_turn(handle, self.index, now);
        }
    }

    fn transition_to_searching(&mut self, handle: &MultiThread) -> bool {
        if !self.is_searching {
            self.is_searching = handle.idle.transition_worker_to_searching();
        }
        self.is_searching
    }

    fn transition_from_searching(&mut self, handle: &MultiThread) {
        if !self.is_searching {
            return;
        }
        self.is_searching = false;
        if handle.idle.transition_worker_from_searching() {
            // We were the last searcher and found work: there may be more
            // where this came from, so wake someone to look.
            handle.notify_parked();
        }
    }

    /// Returns false if the worker has work after all and must not park.
    fn transition_to_parked(&mut self, handle: &MultiThread) -> bool {
        if self.lifo_slot.is_some() || !self.run_queue.is_empty() {
            return false;
        }
        let was_last_searcher = handle
            .idle
            .transition_worker_to_parked(self.index, self.is_searching);
        self.is_searching = false;
        if was_last_searcher {
            handle.notify_if_work_pending();
        }
        true
    }

    /// After a wake-up: returns true if the worker should run again.
    // ANCHOR: from_parked
    fn transition_from_parked(&mut self, handle: &MultiThread) -> bool {
        if self.lifo_slot.is_some() || !self.run_queue.is_empty() {
            // Tasks we woke ourselves while in the driver. If we are still on
            // the sleepers list, take ourselves off it and run them, not
            // searching. If a notifier already took us off, it counted us as
            // searching, and searching we are: otherwise that count would
            // never come down, and no parked worker would be woken again.
            // The loom model of this race calls the same function.
            self.is_searching = handle
                .idle
                .transition_worker_woke_with_local_work(self.index);
            return true;
        }
        if handle.idle.is_parked(self.index) {
            // Spurious: nobody took us off the sleepers list.
            return false;
        }
        // `worker_to_notify` counted us as searching when it woke us.
        self.is_searching = true;
        true
    }
    // ANCHOR_END: from_parked

    /// Adds the time since the last update to the busy counter; returns
    /// the clock's reading, if it read it (only while counting busy time).
    fn account_busy(&mut self, handle: &MultiThread) -> Option<Instant> {
        let since = self.busy_since.take()?;
        let now = Instant::now();
        let stats = &handle.resources.stats[self.index];
        stats.add(&stats.busy_ns, now.duration_since(since).as_nanos() as u64);
        self.busy_since = Some(now);
        Some(now)
    }

    /// Starts counting busy time (after a park, or at start).
    fn start_busy(&mut self, handle: &MultiThread) {
        if handle.resources.config.metrics {
            self.busy_since = Some(Instant::now());
        }
    }

    /// At shutdown, after every task was cancelled: drop what the queues hold.
    pub(crate) fn drain_queues(&mut self) {
        drop(self.lifo_slot.take());
        while let Some(task) = self.run_queue.pop() {
            drop(task);
        }
    }
}

/// A small, fast pseudo-random generator (xorshift64*) for picking the first
/// victim to steal from. Quality hardly matters; spreading thieves does.
struct FastRand(u64);

impl FastRand {
    fn new(index: usize) -> FastRand {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.subsec_nanos())
            .unwrap_or(0);
        let seed = (index as u64)
            .wrapping_add(1)
            .wrapping_mul(0x9E37_79B9_7F4A_7C15)
            ^ u64::from(nanos);
        FastRand(seed | 1)
    }

    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A number in `0..n`.
    fn below(&mut self, n: usize) -> usize {
        (((self.next() >> 32) * n as u64) >> 32) as usize
    }
}

/// Records a park span when the park ends, whichever way it returns.
/// A span of the worker's trace, from its creation to its drop (so a span
/// ends even if what it times returns early); nothing when not tracing.
struct TracedSpan<'a> {
    worker: &'a WorkerContext,
    kind: TraceKind,
    began: Option<std::time::Instant>,
}

impl Drop for TracedSpan<'_> {
    fn drop(&mut self) {
        if let (Some(tracer), Some(began)) = (&self.worker.handle.resources.tracer, self.began) {
            tracer.span(self.worker.index, began, self.kind);
        }
    }
}
