//! The current-thread scheduler: the runtime runs on the thread that is in
//! `block_on`.
//!
//! It has no thread of its own. What a thread needs to run the tasks, the
//! *core* (the run queue of tasks woken on the runtime's own thread, and
//! the tick that paces it), lies in a slot of the runtime's shared state,
//! and `block_on` takes it out:
//!
//! ```text
//!  block_on(f):  take the core ──> drive: loop {
//!                     │                 poll f, if it was woken
//!                     │                 run up to 61 tasks (event_interval)
//!                     │                 turn the driver: without waiting if
//!                     │                   anything is left to do, else sleep
//!                     │                   in epoll until an event, a timer
//!                     │                   or a wake
//!                     │             }   until f is ready; put the core back
//!                     │                 and wake the block_on calls waiting
//!                     └─ taken by another thread: wait for f *or* for the
//!                        core to come back, whichever is first
//! ```
//!
//! Three rules keep one thread fair to everything on it, the three of
//! Tokio's current-thread scheduler (with one difference, in the second):
//!
//! * **The driver turns at least every `event_interval` tasks**, however
//!   full the queue, so timers and sockets are served beside busy tasks.
//! * **A task that yields (or runs out of budget) is deferred**: its waker
//!   waits in a list that is woken only after the next turn of the driver,
//!   and only once the tasks waiting in the inject queue have moved to the
//!   back of the core's queue, so the deferred tasks go behind them. A
//!   task looping on `yield_now` therefore lets everything else that is
//!   ready run first, tasks from other threads and the driver's events
//!   included; so does a `block_on` future that yields. (Tokio's
//!   current-thread scheduler wakes its deferred tasks after the driver's
//!   turn too, but leaves the inject queue's tasks where they are, so a
//!   task yielding in a loop runs again every `event_interval` ticks
//!   however many of them wait:
//!   `tokio/src/runtime/scheduler/current_thread/mod.rs`, `park_internal`
//!   and `next_task`.)
//! * **Every `global_queue_interval` ticks the queue of tasks from other
//!   threads goes first**, so a thread whose own tasks keep each other busy
//!   still takes in work from outside (31 ticks, Tokio's default for its
//!   current-thread scheduler, `DEFAULT_GLOBAL_QUEUE_INTERVAL` in the same
//!   file). When the core's queue is empty, the whole inject queue moves
//!   to it under one lock.
//!
//! A task woken on the driving thread (by another task, by the future, or
//! by an event the driver delivers there) goes to the core's queue with no
//! lock and no atomic read-modify-write; a wake from another thread goes
//! through the inject queue and wakes the driving thread if it sleeps
//! (one atomic word, [`CurrentThread::notify`], the same protocol as the
//! parker's). With the clock paused, the driver's sleep follows the one
//! rule stated in `time/clock.rs`.
//!
//! Book: Chapter 7, "Many workers, one runtime" (the current-thread
//! flavour) and "Writing programs on the runtime" (the paused clock).

use super::inject::Inject;
use super::trace::TraceKind;
use super::{Resources, RuntimeConfig};
use crate::blocking;
use crate::driver::DriverHandle;
use crate::loom::{AtomicBool, AtomicUsize, Mutex, Ordering};
use crate::task::coop;
use crate::task::owned::OwnedTasks;
use crate::task::{self, Schedule, Task};
use std::cell::RefCell;
use std::collections::VecDeque;
use std::future::Future;
use std::pin::{Pin, pin};
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};

/// A task ready to run on the current-thread runtime.
pub(crate) type ReadyTask = task::Notified<Arc<CurrentThread>>;

/// The driving thread sleeps in the driver (or is about to): whoever
/// publishes work must wake it.
const PARKED: usize = 1;
/// Work was published since the driving thread last looked.
const NOTIFIED: usize = 2;

/// The shared state of a current-thread runtime; every task holds an
/// `Arc` of it as its scheduler.
pub(crate) struct CurrentThread {
    pub(crate) resources: Resources,
    pub(crate) owned: OwnedTasks<Arc<CurrentThread>>,
    /// Tasks woken or spawned on other threads (or on this one while no
    /// `block_on` drives the runtime).
    pub(crate) inject: Inject<ReadyTask>,
    /// The core, while no thread drives the runtime; and the `block_on`
    /// calls waiting for it.
    slot: Mutex<CoreSlot>,
    /// `PARKED` and `NOTIFIED`. One word, changed only by
    /// read-modify-writes, so the two sides' updates are totally ordered:
    /// either the driving thread sees `NOTIFIED` and does not sleep, or the
    /// publisher sees `PARKED` and wakes it. While the thread runs, a wake
    /// from another thread costs one uncontended atomic and no system call.
    state: AtomicUsize,
    /// The future of the `block_on` that drives the runtime was woken.
    woken: AtomicBool,
}

/// What a thread holds while it runs the tasks.
pub(crate) struct CurrentThreadCore {
    /// Tasks woken on the driving thread, in the order they were woken.
    tasks: VecDeque<ReadyTask>,
    /// Tasks taken from a queue so far; paces the inject queue's turn.
    tick: u32,
}

/// The core's resting place between two `block_on`s.
struct CoreSlot {
    core: Option<Box<CurrentThreadCore>>,
    /// `block_on` calls on other threads, each waiting for the core (or
    /// for its own future).
    waiting: Vec<Waker>,
}

/// The state of the thread that drives a current-thread runtime, in a
/// thread-local for as long as its `block_on` runs, so that a task polled
/// there can reach the core's queue when it wakes or spawns another task.
struct Driving {
    /// Which runtime: compared by address, never dereferenced.
    scheduler: *const CurrentThread,
    core: Box<CurrentThreadCore>,
    /// Wakers of tasks that yielded or spent their budget, woken after the
    /// next turn of the driver.
    defer: Vec<Waker>,
}

thread_local! {
    /// The runtime this thread drives, if any (an inner one, for another
    /// runtime, shadows an outer one until it returns).
    static DRIVING: RefCell<Option<Driving>> = const { RefCell::new(None) };
}

/// True if this thread holds the core of a current-thread runtime: it runs
/// that runtime's `block_on` (`runtime::worker_index` is then `Some(0)`).
pub(crate) fn drives_a_runtime() -> bool {
    DRIVING
        .try_with(|driving| match driving.try_borrow() {
            Ok(driving) => driving.is_some(),
            // Borrowed: the core is in use on this thread right now.
            Err(_) => true,
        })
        .unwrap_or(false)
}

/// Runs `f` on the core this thread holds for `scheduler`, if it holds it
/// and nothing on this thread borrows it now.
fn with_core<R>(scheduler: &CurrentThread, f: impl FnOnce(&mut Driving) -> R) -> Option<R> {
    DRIVING
        .try_with(|driving| {
            let mut driving = driving.try_borrow_mut().ok()?;
            let driving = driving.as_mut()?;
            std::ptr::eq(driving.scheduler, scheduler).then(|| f(driving))
        })
        .ok()
        .flatten()
}

/// Defers `waker` to the list of the current-thread runtime this thread
/// drives; false if it drives none.
pub(crate) fn defer(waker: &Waker) -> bool {
    DRIVING
        .try_with(|driving| {
            let Ok(mut driving) = driving.try_borrow_mut() else {
                return false;
            };
            let Some(driving) = driving.as_mut() else {
                return false;
            };
            // The same task yielding twice in a row is deferred once.
            if !driving
                .defer
                .last()
                .is_some_and(|last| last.will_wake(waker))
            {
                driving.defer.push(waker.clone());
            }
            true
        })
        .unwrap_or(false)
}

impl CurrentThread {
    pub(crate) fn new(
        config: RuntimeConfig,
        driver: Arc<DriverHandle>,
        blocking: blocking::Spawner,
    ) -> Arc<CurrentThread> {
        Arc::new(CurrentThread {
            resources: Resources::new(config, driver, blocking, 1),
            owned: OwnedTasks::new(1),
            inject: Inject::new(),
            slot: Mutex::new(CoreSlot {
                core: Some(Box::new(CurrentThreadCore {
                    tasks: VecDeque::new(),
                    tick: 0,
                })),
                waiting: Vec::new(),
            }),
            state: AtomicUsize::new(0),
            woken: AtomicBool::new(false),
        })
    }

    /// Work was published for the driving thread (a task queued from
    /// another thread, the `block_on` future woken): tell it, waking it if
    /// it sleeps in the driver.
    // ANCHOR: notify_current_thread
    pub(crate) fn notify(&self) {
        self.resources.driver.note_wake();
        if self.state.fetch_or(NOTIFIED, Ordering::AcqRel) & PARKED != 0 {
            self.resources.driver.unpark();
        }
    }
    // ANCHOR_END: notify_current_thread

    // ANCHOR: block_on_current_thread
    /// Runs `future` to completion on this thread, driving the runtime
    /// while it holds the core. If another thread holds it, waits for the
    /// future or for the core, whichever comes first, and drives from then
    /// on.
    pub(crate) fn block_on<F: Future>(self: &Arc<Self>, future: F) -> F::Output {
        let mut future = pin!(future);
        let core = match self.take_core(None) {
            Some(core) => core,
            None => {
                let waited = crate::runtime::block_on::block_on(std::future::poll_fn(|cx| {
                    if let Poll::Ready(output) = future.as_mut().poll(cx) {
                        return Poll::Ready(Waited::Output(output));
                    }
                    match self.take_core(Some(cx.waker())) {
                        Some(core) => Poll::Ready(Waited::Core(core)),
                        None => Poll::Pending,
                    }
                }));
                match waited {
                    Waited::Output(output) => return output,
                    Waited::Core(core) => core,
                }
            }
        };
        self.drive(core, future.as_mut())
    }
    // ANCHOR_END: block_on_current_thread

    /// Takes the core if it is free; otherwise, given a waker, registers it
    /// to be woken when the core comes back.
    // ANCHOR: take_core
    fn take_core(&self, waiter: Option<&Waker>) -> Option<Box<CurrentThreadCore>> {
        let mut slot = self.slot.lock();
        if let Some(core) = slot.core.take() {
            return Some(core);
        }
        if let Some(waker) = waiter
            && !slot.waiting.iter().any(|waiting| waiting.will_wake(waker))
        {
            slot.waiting.push(waker.clone());
        }
        None
    }

    /// Puts the core back and wakes every `block_on` waiting for it: one of
    /// them takes it, the others find it taken and wait again. (After
    /// shutdown the tasks still queued are dropped: each was cancelled.)
    fn put_back_core(&self, mut core: Box<CurrentThreadCore>) {
        let stale = if self.inject.is_closed() {
            std::mem::take(&mut core.tasks)
        } else {
            VecDeque::new()
        };
        let waiting = {
            let mut slot = self.slot.lock();
            slot.core = Some(core);
            std::mem::take(&mut slot.waiting)
        };
        drop(stale);
        waiting.into_iter().for_each(Waker::wake);
    }
    // ANCHOR_END: take_core

    /// The loop of the thread that holds the core.
    // ANCHOR: drive
    fn drive<F: Future>(
        self: &Arc<Self>,
        core: Box<CurrentThreadCore>,
        mut future: Pin<&mut F>,
    ) -> F::Output {
        let _driving = DrivingGuard::enter(self, core);
        let waker = Waker::from(self.clone());
        let mut cx = Context::from_waker(&waker);
        let config = &self.resources.config;
        let budget = (!config.disable_coop_budget).then_some(coop::BUDGET);
        // The future is polled first.
        self.woken.store(true, Ordering::Relaxed);
        loop {
            if self.woken.swap(false, Ordering::AcqRel)
                && let Poll::Ready(output) =
                    coop::with_budget(budget, || future.as_mut().poll(&mut cx))
            {
                return output;
            }
            let ran_dry = self.run_tasks(config.event_interval, budget);
            if !ran_dry || self.has_pending_work() {
                // Busy, or only deferred work left: let I/O and timers in
                // without sleeping, then the deferred tasks.
                self.turn_driver_now();
            } else {
                self.park();
            }
        }
    }
    // ANCHOR_END: drive

    /// Runs up to `limit` tasks, each with a fresh budget. True if the
    /// queues ran dry before that.
    fn run_tasks(&self, limit: u32, budget: Option<u8>) -> bool {
        let stats = &self.resources.stats[0];
        for _ in 0..limit {
            let Some(task) = self.next_task() else {
                return true;
            };
            stats.incr(&stats.polls);
            coop::with_budget(budget, || {
                // The task hooks: one branch when none is set.
                match &self.resources.config.task_hooks.poll {
                    None => self.run_traced(task),
                    Some(hooks) => {
                        hooks.around(task.id(), task.location(), || self.run_traced(task));
                    }
                }
                if coop::is_exhausted() {
                    stats.incr(&stats.budget_forced_yields);
                }
            });
        }
        false
    }

    /// Runs one poll of `task`, traced if the builder asked.
    #[inline(always)]
    fn run_traced(&self, task: ReadyTask) {
        match &self.resources.tracer {
            Some(tracer) => {
                let id = crate::task::Id(task.id());
                let began = tracer.now();
                task.run();
                tracer.span(0, began, TraceKind::Poll { task: id });
            }
            None => task.run(),
        }
    }

    /// The next task: the core's own queue first, except every
    /// `global_queue_interval` ticks, when the inject queue goes first.
    /// When the core's queue is empty, everything in the inject queue moves
    /// over at once (one lock, not one per task).
    // ANCHOR: next_task_current_thread
    fn next_task(&self) -> Option<ReadyTask> {
        let interval = self.resources.config.global_queue_interval;
        let (task, pulled) = with_core(self, |driving| {
            let core = &mut driving.core;
            core.tick = core.tick.wrapping_add(1);
            if core.tick.is_multiple_of(interval)
                && let Some(task) = self.inject.pop()
            {
                return (Some(task), 1);
            }
            if core.tasks.is_empty() {
                let pulled = self.inject.take_all_into(&mut core.tasks);
                return (core.tasks.pop_front(), pulled);
            }
            (core.tasks.pop_front(), 0)
        })?;
        if pulled > 0 {
            let stats = &self.resources.stats[0];
            stats.add(&stats.inject_pulls, pulled as u64);
        }
        task
    }
    // ANCHOR_END: next_task_current_thread

    /// Anything to do besides sleeping: the future was woken, or a task
    /// was deferred.
    fn has_pending_work(&self) -> bool {
        self.woken.load(Ordering::Acquire)
            || with_core(self, |driving| {
                !driving.defer.is_empty() || !driving.core.tasks.is_empty()
            })
            .unwrap_or(false)
    }

    /// A turn of the driver without waiting, then the deferred tasks.
    fn turn_driver_now(&self) {
        let tracer = self.resources.tracer.as_ref();
        let began = tracer.map(|tracer| tracer.now());
        self.resources.driver.turn_now();
        if let (Some(tracer), Some(began)) = (tracer, began) {
            tracer.span(0, began, TraceKind::Driver);
        }
        self.wake_deferred();
    }

    /// Nothing to run: sleep in the driver until an event, a timer, or a
    /// wake; then the deferred tasks.
    // ANCHOR: park_current_thread
    fn park(&self) {
        let stats = &self.resources.stats[0];
        stats.incr(&stats.parks);
        // Announce the sleep and learn, in the same atomic step, whether
        // work was published since we last looked.
        if self.state.swap(PARKED, Ordering::AcqRel) & NOTIFIED == 0 {
            // `Builder::on_thread_park` now, `on_thread_unpark` once awake.
            let _unparked = self.resources.config.thread_hooks.parking();
            let tracer = self.resources.tracer.as_ref();
            let began = tracer.map(|tracer| tracer.now());
            self.resources.driver.park();
            if let (Some(tracer), Some(began)) = (tracer, began) {
                tracer.span(0, began, TraceKind::Park);
            }
            stats.incr(&stats.unparks);
        } else {
            // Work came as we decided to sleep: no sleep, but a turn of the
            // driver all the same, or a runtime woken over and over would
            // never look at its sockets and timers.
            self.resources.driver.turn_now();
        }
        // Awake: clear both bits. Reading a NOTIFIED here synchronizes with
        // its publisher, so the loop that follows sees what was published;
        // a later notification finds the word clear and stays for the next
        // park.
        self.state.swap(0, Ordering::AcqRel);
        self.wake_deferred();
    }
    // ANCHOR_END: park_current_thread

    /// After a turn of the driver: moves the tasks waiting in the inject
    /// queue to the core's queue, then wakes every deferred task, which
    /// goes to the back of it. A task that yielded therefore runs after
    /// every task that was ready at that turn, whichever thread woke it.
    // ANCHOR: wake_deferred_current_thread
    fn wake_deferred(&self) {
        let Some((pulled, deferred)) = with_core(self, |driving| {
            let pulled = if driving.defer.is_empty() {
                0
            } else {
                self.inject.take_all_into(&mut driving.core.tasks)
            };
            (pulled, std::mem::take(&mut driving.defer))
        }) else {
            return;
        };
        if pulled > 0 {
            let stats = &self.resources.stats[0];
            stats.add(&stats.inject_pulls, pulled as u64);
        }
        for waker in deferred {
            waker.wake();
        }
    }
    // ANCHOR_END: wake_deferred_current_thread

    /// Shutdown, first step: refuse tasks from other threads. (The runtime
    /// then cancels every task and calls [`drain`](Self::drain).)
    pub(crate) fn close(&self) {
        self.inject.close();
    }

    /// Shutdown: drops what the queues hold. Every task was cancelled
    /// first, so each queued task only releases a reference. A core held
    /// by a `block_on` on another thread is drained when it comes back.
    pub(crate) fn drain(&self) {
        drop(self.inject.drain());
        let queued = self
            .slot
            .lock()
            .core
            .as_mut()
            .map(|core| std::mem::take(&mut core.tasks));
        drop(queued);
    }
}

/// What a `block_on` waiting for the core got first.
enum Waited<T> {
    Core(Box<CurrentThreadCore>),
    Output(T),
}

/// The waker of the future given to `block_on`: marks it woken and, if
/// the driving thread sleeps in the driver, wakes it.
impl Wake for CurrentThread {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        if !self.woken.swap(true, Ordering::AcqRel) {
            self.notify();
        }
    }
}

impl Schedule for Arc<CurrentThread> {
    // ANCHOR: schedule_current_thread
    fn schedule(&self, task: ReadyTask) {
        let mut task = Some(task);
        with_core(self, |driving| {
            driving
                .core
                .tasks
                .push_back(task.take().expect("queued once"));
        });
        match task {
            None => {
                // The driving thread itself: it is awake, and looks at its
                // queue before it sleeps. (For the paused clock, a task
                // woken is a wake all the same.)
                let stats = &self.resources.stats[0];
                stats.incr(&stats.local_schedules);
                self.resources.driver.note_wake();
            }
            Some(task) => {
                // Only the first task of a run is news to the driving
                // thread: it empties the inject queue before it sleeps, so
                // the tasks behind the first are taken with it. The others
                // skip the read-modify-write on `state`, which a spawning
                // thread would otherwise pay once per task.
                if self.inject.push_remote(task) {
                    self.notify();
                } else {
                    self.resources.driver.note_wake();
                }
            }
        }
    }
    // ANCHOR_END: schedule_current_thread

    fn release(&self, task: &Task<Self>) -> Option<Task<Self>> {
        self.owned.remove(task)
    }

    fn terminate_hook(&self) -> Option<&crate::runtime::task_hooks::TaskCallback> {
        self.resources.config.task_hooks.terminate.as_ref()
    }
}

/// Installs the driving state for one `block_on`, and on the way out (also
/// by panic) wakes what it deferred, puts the core back for the next
/// `block_on`, and restores whatever it shadowed.
struct DrivingGuard<'a> {
    scheduler: &'a CurrentThread,
    previous: Option<Driving>,
}

impl<'a> DrivingGuard<'a> {
    fn enter(scheduler: &'a CurrentThread, core: Box<CurrentThreadCore>) -> DrivingGuard<'a> {
        let driving = Driving {
            scheduler,
            core,
            defer: Vec::new(),
        };
        let previous = DRIVING.with(|current| current.borrow_mut().replace(driving));
        DrivingGuard {
            scheduler,
            previous,
        }
    }
}

impl Drop for DrivingGuard<'_> {
    fn drop(&mut self) {
        let previous = self.previous.take();
        let ours = DRIVING
            .try_with(|current| std::mem::replace(&mut *current.borrow_mut(), previous))
            .ok()
            .flatten()
            .expect("the driving state is installed while block_on drives");
        // Woken with the thread no longer driving: they go to the inject
        // queue, where the next `block_on` finds them.
        ours.defer.into_iter().for_each(Waker::wake);
        self.scheduler.put_back_core(ours.core);
    }
}

#[cfg(all(test, loom))]
mod loom_current_thread {
    use super::*;
    use crate::loom::thread;
    use crate::runtime::Builder;
    use crate::scheduler::Scheduler;
    use crate::scheduler::park::{Parker, Unparker};

    /// A current-thread runtime's shared state, for a model to drive by
    /// hand, and the runtime, which the model keeps to the end of the
    /// iteration: dropped then, it closes its descriptors (an iteration
    /// that forgot it leaked an epoll, a timerfd and an eventfd, and a
    /// model of thousands of iterations ran out of descriptors).
    fn current_thread() -> (crate::runtime::Runtime, Arc<CurrentThread>) {
        let runtime = Builder::new_current_thread().build().unwrap();
        let Scheduler::CurrentThread(scheduler) = runtime.handle().inner.clone() else {
            unreachable!("a current-thread builder builds a current-thread runtime");
        };
        (runtime, scheduler)
    }

    /// A thread that spawns `count` empty tasks onto `scheduler`, as
    /// `Handle::spawn` from outside the runtime does.
    fn spawn_remotely(scheduler: &Arc<CurrentThread>, count: u64) -> thread::JoinHandle<()> {
        let scheduler = scheduler.clone();
        thread::spawn(move || {
            let location = std::panic::Location::caller();
            for id in 0..count {
                drop(scheduler.owned.spawn(async {}, &scheduler, id, location));
            }
        })
    }

    /// The driving thread decides to sleep while another thread wakes the
    /// `block_on` future: either it sees the wake before it sleeps, or the
    /// waker sees it parked and wakes the driver. Never neither (loom
    /// reports a deadlock if the driving thread sleeps for ever).
    #[test]
    fn loom_a_remote_wake_reaches_the_parking_driver() {
        loom::model(|| {
            let (_runtime, scheduler) = current_thread();
            let waker = {
                let scheduler = scheduler.clone();
                thread::spawn(move || Wake::wake_by_ref(&scheduler))
            };
            while !scheduler.woken.swap(false, Ordering::AcqRel) {
                scheduler.park();
            }
            waker.join().unwrap();
        });
    }

    /// The same race with a task spawned from another thread (the
    /// `schedule` side of the protocol).
    #[test]
    fn loom_a_remote_spawn_reaches_the_parking_driver() {
        loom::model(|| {
            let (_runtime, scheduler) = current_thread();
            let spawner = spawn_remotely(&scheduler, 1);
            while scheduler.inject.is_empty() {
                scheduler.park();
            }
            spawner.join().unwrap();
            // Run it, so the model ends with no task alive.
            scheduler.inject.pop().unwrap().run();
        });
    }

    /// Two tasks spawned from another thread: only the first notifies
    /// (the second finds the inject queue non-empty and skips the
    /// read-modify-write). The driving thread runs what the queue holds
    /// and parks when it finds it empty, as `drive` does; it must run both
    /// (loom reports a deadlock if it sleeps with the second still queued).
    #[test]
    fn loom_a_spawn_that_skips_the_notify_is_still_run() {
        loom::model(|| {
            let (_runtime, scheduler) = current_thread();
            let spawner = spawn_remotely(&scheduler, 2);
            let mut ran = 0;
            loop {
                while let Some(task) = scheduler.inject.pop() {
                    task.run();
                    ran += 1;
                }
                if ran == 2 {
                    break;
                }
                scheduler.park();
            }
            spawner.join().unwrap();
        });
    }

    struct Unpark(Unparker);

    impl Wake for Unpark {
        fn wake(self: std::sync::Arc<Self>) {
            self.0.unpark();
        }
    }

    /// The core hand-off: one thread holds the core and puts it back while
    /// a second `block_on` looks for it and, finding it taken, registers to
    /// be woken and parks. Whatever the interleaving, the second gets the
    /// core (loom reports a deadlock if it parks for ever).
    // ANCHOR: loom_core_hand_off
    #[test]
    fn loom_a_waiting_block_on_gets_the_core_when_it_is_put_back() {
        loom::model(|| {
            let (_runtime, scheduler) = current_thread();
            let core = scheduler.take_core(None).expect("the core starts free");
            let holder = {
                let scheduler = scheduler.clone();
                thread::spawn(move || scheduler.put_back_core(core))
            };
            let parker = Parker::new();
            let waker = Waker::from(std::sync::Arc::new(Unpark(parker.unparker())));
            let core = loop {
                match scheduler.take_core(Some(&waker)) {
                    Some(core) => break core,
                    None => parker.park(),
                }
            };
            holder.join().unwrap();
            scheduler.put_back_core(core);
        });
    }
    // ANCHOR_END: loom_core_hand_off

    /// The paused clock's hold racing a park: a blocking job is in flight
    /// (it holds the clock) while the driving thread parks with a timer a
    /// second away. The clock must not jump before the job is done, and
    /// once the job releases the hold the driver must wake and jump (loom
    /// reports a deadlock if it sleeps for ever).
    // ANCHOR: loom_clock_hold
    #[test]
    fn loom_the_paused_clock_does_not_jump_while_held() {
        loom::model(|| {
            let runtime = Builder::new_current_thread()
                .start_paused(true)
                .build()
                .unwrap();
            let driver = runtime.handle().inner.driver().clone();
            std::mem::forget(runtime);
            let start = driver.time.now();
            let _timer = driver
                .time
                .register(start + std::time::Duration::from_secs(1), Waker::noop());
            let hold = driver.hold_auto_advance();
            let done = Arc::new(AtomicBool::new(false));
            let job = {
                let done = done.clone();
                thread::spawn(move || {
                    done.store(true, Ordering::SeqCst);
                    hold.release();
                })
            };
            while driver.time.now() == start {
                driver.park();
            }
            assert!(
                done.load(Ordering::SeqCst),
                "the clock jumped while a job held it"
            );
            job.join().unwrap();
        });
    }
    // ANCHOR_END: loom_clock_hold
}
