//! Running one future to completion on the calling thread.
//!
//! `Runtime::block_on` polls the given future on the thread that called it
//! (not on a worker), and between polls parks that thread on a parker of
//! its own; the future's waker unparks it. Tasks the future spawns go to the
//! runtime's workers through the inject queue. This is how Tokio's
//! multi-threaded runtime does it too, and it is why `block_on`'s future
//! should do little work itself: it is not on a worker, so it is neither
//! stolen from nor helped.
//!
//! The current-thread runtime has no workers, so its `block_on` does their
//! work too: [`block_on_current_thread`] polls the future when it was woken,
//! runs the queued tasks in batches, turns the driver between batches, and
//! sleeps in the driver (`epoll_wait`, until the next timer) when nothing is
//! ready. A task woken or spawned on the driving thread itself (by another
//! task, by the future, or by an event the driver delivers there) goes to a
//! queue of that thread's own, with no lock and no atomic operation; only a
//! wake from another thread goes through the inject queue and its mutex.
//!
//! Book: Chapter 7, "Many workers, one runtime", and "Writing programs on
//! the runtime".

use crate::loom::{AtomicBool, Ordering};
use crate::scheduler::park::{Parker, Unparker};
use crate::scheduler::{self, CurrentThread, NOTIFIED, PARKED};
use crate::task::coop;
use std::cell::RefCell;
use std::collections::VecDeque;
use std::future::Future;
use std::pin::pin;
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};

struct ThreadWaker(Unparker);

impl Wake for ThreadWaker {
    fn wake(self: Arc<Self>) {
        self.0.unpark();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.0.unpark();
    }
}

thread_local! {
    /// One parker per thread, reused by every block_on on it.
    static PARKER: (Parker, Waker) = {
        let parker = Parker::new();
        let waker = Waker::from(Arc::new(ThreadWaker(parker.unparker())));
        (parker, waker)
    };
}

/// Polls `future` on this thread until it completes, parking in between.
// ANCHOR: block_on
pub(crate) fn block_on<F: Future>(future: F) -> F::Output {
    let mut future = pin!(future);
    PARKER.with(|(parker, waker)| {
        let mut cx = Context::from_waker(waker);
        loop {
            // The block_on future has a budget too; spent, its leaves wake
            // it at once (there is no worker defer list on this thread).
            let poll = crate::task::coop::with_budget(Some(crate::task::coop::BUDGET), || {
                future.as_mut().poll(&mut cx)
            });
            if let Poll::Ready(output) = poll {
                return output;
            }
            parker.park();
        }
    })
}
// ANCHOR_END: block_on

/// The waker of the future given to a current-thread `block_on`: it marks
/// the future woken and, if the driving thread sleeps in the driver, wakes
/// it.
struct MainWaker {
    woken: AtomicBool,
    handle: Arc<scheduler::Handle>,
}

impl MainWaker {
    fn current(&self) -> &CurrentThread {
        self.handle
            .current_thread
            .as_ref()
            .expect("a current-thread runtime")
    }
}

impl Wake for MainWaker {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        // As `schedule_task`: publish, then notify. (A swap rather than a
        // store: the driving thread consumes the flag with a swap, and the
        // loom model below holds only with read-modify-writes on both
        // sides.)
        self.woken.swap(true, Ordering::AcqRel);
        self.current().notify(&self.handle.driver);
    }
}

// ANCHOR: local_queue
/// The run queue of the thread driving a current-thread runtime: tasks
/// woken on that thread. Only that thread touches it, so it needs no lock.
struct LocalQueue {
    /// Which runtime's tasks it holds (the address of its shared state).
    runtime: *const scheduler::Handle,
    tasks: VecDeque<scheduler::Notified>,
}

thread_local! {
    /// The queue of the current-thread `block_on` running on this thread,
    /// if any (an inner one, for another runtime, shadows an outer one).
    static LOCAL: RefCell<Option<LocalQueue>> = const { RefCell::new(None) };
}

/// Queues `task` on this thread's local queue if this thread is driving
/// `handle`'s current-thread runtime; gives it back otherwise.
pub(crate) fn schedule_on_driving_thread(
    handle: &scheduler::Handle,
    task: scheduler::Notified,
) -> Result<(), scheduler::Notified> {
    LOCAL.with(|local| match local.try_borrow_mut() {
        Ok(mut local) => match local.as_mut() {
            Some(queue) if std::ptr::eq(queue.runtime, handle) => {
                queue.tasks.push_back(task);
                Ok(())
            }
            _ => Err(task),
        },
        Err(_) => Err(task),
    })
}
// ANCHOR_END: local_queue

fn pop_local() -> Option<scheduler::Notified> {
    LOCAL.with(|local| local.borrow_mut().as_mut()?.tasks.pop_front())
}

fn local_is_empty() -> bool {
    LOCAL.with(|local| {
        local
            .borrow()
            .as_ref()
            .is_none_or(|queue| queue.tasks.is_empty())
    })
}

/// Installs this thread's local queue for one `block_on`, and on the way
/// out (also by panic) puts back whatever it replaced and hands the tasks
/// still queued to the inject queue, where the next `block_on` or the
/// runtime's shutdown finds them.
struct LocalGuard<'a> {
    handle: &'a scheduler::Handle,
    previous: Option<LocalQueue>,
}

impl<'a> LocalGuard<'a> {
    fn install(handle: &'a scheduler::Handle) -> LocalGuard<'a> {
        let queue = LocalQueue {
            runtime: handle,
            tasks: VecDeque::new(),
        };
        let previous = LOCAL.with(|local| local.borrow_mut().replace(queue));
        LocalGuard { handle, previous }
    }
}

impl Drop for LocalGuard<'_> {
    fn drop(&mut self) {
        let ours =
            LOCAL.with(|local| std::mem::replace(&mut *local.borrow_mut(), self.previous.take()));
        if let Some(queue) = ours
            && !queue.tasks.is_empty()
        {
            self.handle.inject.push_batch(queue.tasks.into_iter());
        }
    }
}

/// `block_on` of the current-thread runtime: this thread is the runtime.
// ANCHOR: block_on_current_thread
pub(crate) fn block_on_current_thread<F: Future>(
    handle: &Arc<scheduler::Handle>,
    future: F,
) -> F::Output {
    let current = handle
        .current_thread
        .as_ref()
        .expect("a current-thread runtime");
    // Another thread is driving the tasks: just wait for our future (its
    // tasks run over there).
    let Some(_core) = current.core.try_lock() else {
        return block_on(future);
    };
    let mut future = pin!(future);
    let main = Arc::new(MainWaker {
        woken: AtomicBool::new(true),
        handle: handle.clone(),
    });
    let waker = Waker::from(main.clone());
    let mut cx = Context::from_waker(&waker);
    let budget = (!handle.config.disable_coop_budget).then_some(coop::BUDGET);
    let interval = handle.config.event_interval as usize;
    let global_interval = handle.config.global_queue_interval;
    let _local = LocalGuard::install(handle);
    let mut tick: u32 = 0;
    loop {
        if main.woken.swap(false, Ordering::AcqRel)
            && let Poll::Ready(output) = coop::with_budget(budget, || future.as_mut().poll(&mut cx))
        {
            return output;
        }
        // A batch of tasks, each with a fresh budget, before the future's
        // next turn (as Tokio's current-thread scheduler does): a future
        // that keeps waking itself cannot starve the tasks.
        // Local tasks first; every `global_queue_interval` tasks the inject
        // queue goes first, so wakes from other threads are not starved.
        let mut ran = 0;
        while ran < interval {
            tick = tick.wrapping_add(1);
            let task = if tick.is_multiple_of(global_interval) {
                handle.inject.pop().or_else(pop_local)
            } else {
                pop_local().or_else(|| handle.inject.pop())
            };
            let Some(task) = task else {
                break;
            };
            coop::with_budget(budget, || task.run());
            ran += 1;
        }
        if ran == interval {
            // Busy: let I/O and timers in without sleeping.
            handle.driver.poll_now();
            continue;
        }
        if main.woken.load(Ordering::Relaxed) || !handle.inject.is_empty() || !local_is_empty() {
            continue;
        }
        park(handle, current, &main);
    }
}
// ANCHOR_END: block_on_current_thread

/// Nothing to run: sleep in the driver until an event, a timer, or a wake.
/// With time paused, jump to the next timer instead of sleeping for it.
// ANCHOR: park_current_thread
fn park(handle: &scheduler::Handle, current: &CurrentThread, main: &MainWaker) {
    // Announce the sleep and learn, in the same atomic step, whether work
    // was published since we last looked; if so, go and look instead.
    if current.state.swap(PARKED, Ordering::AcqRel) & NOTIFIED == 0 {
        // `Builder::on_thread_park` now, `on_thread_unpark` once awake.
        let _unparked = handle.config.thread_hooks.parking();
        let mut driver = handle.driver.driver.lock();
        if handle.driver.time.clock().is_paused() {
            // First collect what I/O is ready; if that readied nothing,
            // the next timer is the next thing that can happen: advance
            // to it. (No timer at all: wait for I/O or a wake.)
            driver.park(&handle.driver, Some(std::time::Duration::ZERO));
            let idle =
                !main.woken.load(Ordering::Acquire) && handle.inject.is_empty() && local_is_empty();
            if idle && !handle.driver.time.auto_advance() {
                driver.park(&handle.driver, None);
            }
        } else {
            driver.park(&handle.driver, None);
        }
    }
    // Awake: clear both bits. Reading a NOTIFIED here synchronizes with its
    // publisher, so the loop that follows sees what was published; a later
    // notification finds the word clear and stays for the next park.
    current.state.swap(0, Ordering::AcqRel);
}
// ANCHOR_END: park_current_thread

#[cfg(all(test, loom))]
mod loom_current_thread {
    use super::*;
    use crate::loom::thread;
    use crate::runtime::Builder;

    fn current_thread() -> Arc<scheduler::Handle> {
        let runtime = Builder::new_current_thread().build().unwrap();
        let handle = runtime.handle().inner.clone();
        // Keep the runtime's state; the model ends before anything needs it.
        std::mem::forget(runtime);
        handle
    }

    /// The driving thread decides to sleep while another thread wakes the
    /// `block_on` future: either it sees the wake before it sleeps, or the
    /// waker sees it parked and wakes the driver. Never neither (loom
    /// reports a deadlock if the driving thread sleeps for ever).
    #[test]
    fn loom_a_remote_wake_reaches_the_parking_driver() {
        loom::model(|| {
            let handle = current_thread();
            let main = Arc::new(MainWaker {
                woken: AtomicBool::new(false),
                handle: handle.clone(),
            });
            let waker = {
                let main = main.clone();
                thread::spawn(move || main.wake_by_ref())
            };
            let current = handle.current_thread.as_ref().unwrap();
            while !main.woken.swap(false, Ordering::AcqRel) {
                park(&handle, current, &main);
            }
            waker.join().unwrap();
        });
    }

    /// The same race with a task scheduled from another thread (the
    /// `schedule_task` side of the protocol).
    #[test]
    fn loom_a_remote_spawn_reaches_the_parking_driver() {
        loom::model(|| {
            let handle = current_thread();
            let main = Arc::new(MainWaker {
                woken: AtomicBool::new(false),
                handle: handle.clone(),
            });
            let spawner = {
                let handle = handle.clone();
                thread::spawn(move || {
                    drop(handle.spawn(async {}, std::panic::Location::caller()));
                })
            };
            let current = handle.current_thread.as_ref().unwrap();
            while handle.inject.is_empty() {
                park(&handle, current, &main);
            }
            spawner.join().unwrap();
            // Run it, so the model ends with no task alive.
            handle.inject.pop().unwrap().run();
        });
    }
}
