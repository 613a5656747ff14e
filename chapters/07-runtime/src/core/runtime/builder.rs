//! `Builder`: how many workers, and the scheduler's knobs.
//!
//! The names and shapes follow Tokio's builder, so that code written for one
//! runs on the other (the benchmarks run the same workloads on both).
//!
//! Book: Chapter 7, "The inject queue and its interval".

use super::Runtime;
use super::task_hooks::{TaskCallback, TaskHooks, TaskMeta};
use crate::scheduler::{self, RuntimeConfig, Scheduler};
use std::fmt;
use std::io;
use std::sync::{Arc, OnceLock, Weak};
use std::time::Duration;

// ANCHOR: interval
/// Every this many ticks a worker takes its next task from the inject
/// queue rather than its own queue.
///
/// The interval bounds how long a task from outside (a spawn from a plain
/// thread, an I/O or timer wake-up delivered to the inject queue) can wait
/// while a worker keeps itself busy with local work: at most this many
/// polls. Checking costs one atomic load when the inject queue is empty, so
/// the only price of a short interval is taking tasks slightly out of local
/// order. 31 polls of a few microseconds is about 100 µs, the same order as
/// the 200 µs Tokio's multi-threaded scheduler aims for when it tunes this
/// interval from the measured poll time (Tokio's current-thread scheduler
/// uses a fixed 31).
pub const DEFAULT_GLOBAL_QUEUE_INTERVAL: u32 = 31;

/// Every this many ticks a worker does its maintenance: it checks for
/// shutdown and (Chapter 7, part 2) polls the I/O driver and the timers
/// without blocking, so that a worker that always has tasks still sees new
/// I/O events. Tokio's default is 61.
pub const DEFAULT_EVENT_INTERVAL: u32 = 61;
// ANCHOR_END: interval

/// Builds a [`Runtime`].
#[derive(Clone)]
pub struct Builder {
    /// `new_current_thread`: no workers; `block_on` runs the tasks.
    current_thread: bool,
    start_paused: bool,
    worker_threads: Option<usize>,
    global_queue_interval: u32,
    event_interval: u32,
    disable_lifo_slot: bool,
    disable_coop_budget: bool,
    metrics: bool,
    poll_time_histogram: bool,
    long_poll_threshold: Option<Duration>,
    on_long_poll: Option<super::LongPollHook>,
    trace_capacity: usize,
    max_blocking_threads: usize,
    thread_keep_alive: Duration,
    thread_name: String,
    /// Names every thread when set, instead of `thread_name` and a number.
    thread_name_fn: Option<ThreadNameFn>,
    thread_hooks: ThreadHooks,
    /// [`Builder::on_task_spawn`] and the other task hooks, one slot each.
    task_spawn: Option<TaskCallback>,
    before_task_poll: Option<TaskCallback>,
    after_task_poll: Option<TaskCallback>,
    task_terminate: Option<TaskCallback>,
    thread_stack_size: Option<usize>,
    /// [`Builder::name`]: what [`Handle::name`](super::Handle::name) says.
    name: Option<String>,
}

/// What [`Builder::thread_name_fn`] takes.
pub(crate) type ThreadNameFn = Arc<dyn Fn() -> String + Send + Sync + 'static>;

/// A callback run on a runtime thread.
type Callback = Arc<dyn Fn() + Send + Sync + 'static>;

/// [`Builder::on_thread_start`] and [`Builder::on_thread_stop`], run by
/// every thread the runtime starts: the workers (including one started to
/// take over from a `block_in_place`) and the blocking pool's threads.
///
/// As in Tokio, both run with the runtime entered: `Handle::current()`
/// inside a hook is the runtime whose thread it is. The hooks only know
/// the runtime weakly (a runtime's config holds its hooks, so a strong
/// reference would be a cycle), through a slot shared by the copies one
/// [`Builder::build`] makes and filled once the runtime exists.
#[derive(Clone, Default)]
pub(crate) struct ThreadHooks {
    start: Option<Callback>,
    stop: Option<Callback>,
    /// The runtime the hooks belong to, set by `build` before it starts
    /// any thread.
    runtime: Arc<OnceLock<WeakScheduler>>,
    /// [`Builder::on_thread_park`] / [`Builder::on_thread_unpark`]: run by
    /// the workers (and the current-thread runtime's `block_on`) around
    /// each idle period; not by blocking threads.
    park: Option<Callback>,
    unpark: Option<Callback>,
}

/// A runtime's handle, held weakly: see [`ThreadHooks`].
enum WeakScheduler {
    CurrentThread(Weak<scheduler::CurrentThread>),
    MultiThread(Weak<scheduler::MultiThread>),
}

impl WeakScheduler {
    /// The runtime, if it is still there.
    fn upgrade(&self) -> Option<Scheduler> {
        match self {
            WeakScheduler::CurrentThread(weak) => weak.upgrade().map(Scheduler::CurrentThread),
            WeakScheduler::MultiThread(weak) => weak.upgrade().map(Scheduler::MultiThread),
        }
    }
}

/// Runs the unpark hook when dropped; see [`ThreadHooks::parking`].
pub(crate) struct Unparked<'a>(Option<&'a Callback>);

impl Drop for Unparked<'_> {
    fn drop(&mut self) {
        if let Some(unpark) = self.0 {
            unpark();
        }
    }
}

impl ThreadHooks {
    /// Runs `body` between the start hook and the stop hook; the stop hook
    /// runs even if `body` panics.
    pub(crate) fn run<R>(&self, body: impl FnOnce() -> R) -> R {
        /// Runs the stop hook when dropped.
        struct Stop<'a>(Option<(&'a ThreadHooks, &'a Callback)>);
        impl Drop for Stop<'_> {
            fn drop(&mut self) {
                if let Some((hooks, stop)) = self.0 {
                    hooks.in_runtime(stop);
                }
            }
        }
        if let Some(start) = &self.start {
            self.in_runtime(start);
        }
        let _stop = Stop(self.stop.as_ref().map(|stop| (self, stop)));
        body()
    }

    /// Copies of the callbacks, for one new runtime: a slot of its own,
    /// so that two runtimes built by one builder each find themselves.
    fn for_new_runtime(&self) -> ThreadHooks {
        ThreadHooks {
            runtime: Arc::default(),
            ..self.clone()
        }
    }

    /// Names the runtime the hooks run in; see [`ThreadHooks::run`].
    fn belong_to(&self, scheduler: &Scheduler) {
        let weak = match scheduler {
            Scheduler::CurrentThread(handle) => {
                WeakScheduler::CurrentThread(Arc::downgrade(handle))
            }
            Scheduler::MultiThread(handle) => WeakScheduler::MultiThread(Arc::downgrade(handle)),
        };
        // Set once, by the build that made this copy.
        let _ = self.runtime.set(weak);
    }

    /// Runs a start or stop hook with its runtime entered (if it is still
    /// there: a thread may outlive a runtime shut down in the background).
    fn in_runtime(&self, hook: &Callback) {
        let scheduler = self.runtime.get().and_then(WeakScheduler::upgrade);
        let _enter = scheduler.map(super::context::set_current);
        hook();
    }

    /// The thread is about to go idle: runs the park hook now and returns
    /// a guard that runs the unpark hook when the thread wakes with work
    /// (when the guard is dropped).
    pub(crate) fn parking(&self) -> Unparked<'_> {
        if let Some(park) = &self.park {
            park();
        }
        Unparked(self.unpark.as_ref())
    }
}

impl fmt::Debug for ThreadHooks {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ThreadHooks")
            .field("start", &self.start.is_some())
            .field("stop", &self.stop.is_some())
            .field("park", &self.park.is_some())
            .field("unpark", &self.unpark.is_some())
            .finish()
    }
}

/// Polls longer than this are long to the long-poll detector: ten
/// milliseconds is long enough that no healthy poll takes it (a poll should
/// take microseconds), short enough to catch a blocking call.
pub const DEFAULT_LONG_POLL_THRESHOLD: Duration = Duration::from_millis(10);

/// The most threads the blocking pool starts (Tokio's default too).
pub const DEFAULT_MAX_BLOCKING_THREADS: usize = 512;

/// How long an idle blocking thread waits for work before it exits.
pub const DEFAULT_THREAD_KEEP_ALIVE: Duration = Duration::from_secs(10);

/// The thread hooks' setters, each storing its closure in one slot of
/// `thread_hooks`: one line per hook, with its doc.
macro_rules! thread_hooks {
    ($($(#[$doc:meta])* $name:ident => $slot:ident;)*) => {
        $(
            $(#[$doc])*
            pub fn $name<F>(&mut self, f: F) -> &mut Builder
            where
                F: Fn() + Send + Sync + 'static,
            {
                self.thread_hooks.$slot = Some(Arc::new(f));
                self
            }
        )*
    };
}

/// The task hooks' setters, each storing its closure in one slot of the
/// builder: one line per hook, with its doc, as for the thread hooks.
macro_rules! task_hooks {
    ($($(#[$doc:meta])* $name:ident => $slot:ident;)*) => {
        $(
            $(#[$doc])*
            pub fn $name<F>(&mut self, f: F) -> &mut Builder
            where
                F: Fn(&TaskMeta<'_>) + Send + Sync + 'static,
            {
                self.$slot = Some(Arc::new(f));
                self
            }
        )*
    };
}

impl Builder {
    /// A builder for the multi-threaded, work-stealing runtime.
    pub fn new_multi_thread() -> Builder {
        Builder {
            current_thread: false,
            start_paused: false,
            worker_threads: None,
            global_queue_interval: DEFAULT_GLOBAL_QUEUE_INTERVAL,
            event_interval: DEFAULT_EVENT_INTERVAL,
            disable_lifo_slot: false,
            disable_coop_budget: false,
            metrics: true,
            poll_time_histogram: false,
            long_poll_threshold: Some(DEFAULT_LONG_POLL_THRESHOLD),
            on_long_poll: None,
            trace_capacity: 0,
            max_blocking_threads: DEFAULT_MAX_BLOCKING_THREADS,
            thread_keep_alive: DEFAULT_THREAD_KEEP_ALIVE,
            thread_name: "rt-worker".to_string(),
            thread_name_fn: None,
            thread_hooks: ThreadHooks::default(),
            task_spawn: None,
            before_task_poll: None,
            after_task_poll: None,
            task_terminate: None,
            thread_stack_size: None,
            name: None,
        }
    }

    /// A builder for the current-thread runtime: no worker threads; the
    /// thread in [`Runtime::block_on`] runs the spawned tasks, turns the I/O
    /// driver and fires the timers, all on itself. Tasks spawned while no
    /// thread is in `block_on` wait for the next one. The blocking pool is
    /// the same as the multi-thread runtime's.
    pub fn new_current_thread() -> Builder {
        Builder {
            current_thread: true,
            global_queue_interval: 31,
            ..Builder::new_multi_thread()
        }
    }

    /// Starts the runtime's clock paused: see
    /// [`time::pause`](crate::time::pause). Only the current-thread runtime
    /// can pause; as in Tokio, [`build`](Self::build) panics if this is set
    /// on a multi-thread builder.
    pub fn start_paused(&mut self, start_paused: bool) -> &mut Builder {
        self.start_paused = start_paused;
        self
    }

    /// The number of worker threads; by default one per logical CPU this
    /// process may use (`std::thread::available_parallelism`).
    ///
    /// # Panics
    ///
    /// If `n` is zero.
    #[track_caller]
    pub fn worker_threads(&mut self, n: usize) -> &mut Builder {
        // Tokio's words, which users' tests match.
        assert!(n > 0, "Worker threads cannot be set to 0");
        self.worker_threads = Some(n);
        self
    }

    /// How often (in ticks) a worker checks the inject queue first; see
    /// [`DEFAULT_GLOBAL_QUEUE_INTERVAL`].
    ///
    /// # Panics
    ///
    /// If `n` is zero.
    #[track_caller]
    pub fn global_queue_interval(&mut self, n: u32) -> &mut Builder {
        assert!(n > 0, "global_queue_interval must be greater than 0");
        self.global_queue_interval = n;
        self
    }

    /// How often (in ticks) a worker does maintenance; see
    /// [`DEFAULT_EVENT_INTERVAL`].
    ///
    /// # Panics
    ///
    /// If `n` is zero.
    #[track_caller]
    pub fn event_interval(&mut self, n: u32) -> &mut Builder {
        assert!(n > 0, "event_interval must be greater than 0");
        self.event_interval = n;
        self
    }

    /// Turns the LIFO slot off, to measure what it is worth.
    pub fn disable_lifo_slot(&mut self) -> &mut Builder {
        self.disable_lifo_slot = true;
        self
    }

    /// Turns the cooperative budget off: a task then runs until it returns
    /// `Pending` by itself. Only for demonstrating what the budget does.
    pub fn disable_coop_budget(&mut self) -> &mut Builder {
        self.disable_coop_budget = true;
        self
    }

    /// Stops keeping the per-worker counters (and the long-poll detector,
    /// which reads them): for measuring what metrics cost.
    pub fn disable_metrics(&mut self) -> &mut Builder {
        self.metrics = false;
        self
    }

    /// Times every poll into a per-worker histogram with log-scale buckets
    /// (`RuntimeMetrics::worker_poll_time_histogram`). Off by default: it
    /// reads the clock twice per poll.
    pub fn enable_poll_time_histogram(&mut self) -> &mut Builder {
        self.poll_time_histogram = true;
        self
    }

    /// The long-poll detector's threshold: a poll that keeps its worker
    /// longer is long ([`DEFAULT_LONG_POLL_THRESHOLD`], 10 ms, unless set).
    /// `None` switches the detector off.
    ///
    /// The detector runs by default and reports nothing: it counts the long
    /// polls that were the task's doing in
    /// [`RuntimeMetrics::long_poll_count`](super::RuntimeMetrics::long_poll_count),
    /// and writes nowhere. Ask for reports with [`on_long_poll`](Self::on_long_poll)
    /// or [`print_long_polls`](Self::print_long_polls). The workers look at
    /// each other in their maintenance turns (a clock read every 61 polls,
    /// and a look every third of the threshold); a watchdog thread looks
    /// only when nobody has for half the threshold (every worker stuck),
    /// sleeps while every worker is parked, and calls the hook. Off with
    /// [`disable_metrics`](Self::disable_metrics), and on the current-thread
    /// runtime, which has no worker threads to watch.
    pub fn long_poll_threshold(&mut self, threshold: Option<Duration>) -> &mut Builder {
        self.long_poll_threshold = threshold;
        self
    }

    /// Calls `hook` with each long poll the detector finds (on the
    /// detector's thread, so it should be quick): where the task was
    /// spawned, how long the poll ran, and its [`cause`](super::LongPoll::cause),
    /// which the detector reads from the worker thread's counters in
    /// `/proc`:
    ///
    /// - [`Blocked`](super::LongPollCause::Blocked): the thread gave up its
    ///   CPU in a system call during the poll (seen asleep, or a voluntary
    ///   context switch);
    /// - [`Busy`](super::LongPollCause::Busy): it never did, and computed;
    /// - [`Preempted`](super::LongPollCause::Preempted): the poll was long
    ///   only because the thread waited for a CPU. Such polls reach the
    ///   hook, so a program can see its machine is overloaded, but they are
    ///   not counted in `long_poll_count`: the task is not at fault. Filter
    ///   on `cause` to log only what asks for a change in the code.
    ///
    /// Replaces any hook set before, including
    /// [`print_long_polls`](Self::print_long_polls)'s.
    pub fn on_long_poll(
        &mut self,
        hook: impl Fn(&super::LongPoll) + Send + Sync + 'static,
    ) -> &mut Builder {
        self.on_long_poll = Some(std::sync::Arc::new(hook));
        self
    }

    /// Prints long polls on stderr, one line each, for the first long poll
    /// of tasks spawned at each source location; later ones from the same
    /// place are only counted (`RuntimeMetrics::long_poll_count`), so a
    /// task that blocks in a loop does not flood the terminal. Preempted
    /// polls are not printed. The same as an [`on_long_poll`](Self::on_long_poll)
    /// hook that does this, and replaced by a later one.
    pub fn print_long_polls(&mut self) -> &mut Builder {
        let printed = std::sync::Mutex::new(Vec::new());
        self.on_long_poll(move |poll| {
            if poll.cause == super::LongPollCause::Preempted {
                return;
            }
            let mut printed = printed
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            if !printed.contains(&poll.location) {
                printed.push(poll.location);
                eprintln!("{poll}");
            }
        })
    }

    /// The most threads the blocking pool may start; see
    /// [`DEFAULT_MAX_BLOCKING_THREADS`].
    ///
    /// # Panics
    ///
    /// If `n` is zero.
    #[track_caller]
    pub fn max_blocking_threads(&mut self, n: usize) -> &mut Builder {
        assert!(n > 0, "Max blocking threads cannot be set to 0");
        self.max_blocking_threads = n;
        self
    }

    /// How long an idle blocking thread lives; see
    /// [`DEFAULT_THREAD_KEEP_ALIVE`].
    pub fn thread_keep_alive(&mut self, duration: Duration) -> &mut Builder {
        self.thread_keep_alive = duration;
        self
    }

    /// Names every thread the runtime starts (workers, blocking threads,
    /// the thread that takes a worker's place in `block_in_place`) `name`,
    /// as Tokio's builder does. Without it, the threads are numbered
    /// instead: workers `rt-worker-0`, `rt-worker-1`, ..., blocking threads
    /// `rt-worker-blocking-0`, ..., so that `top -H` or a debugger shows
    /// which worker a thread is, as the metrics and the trace do (Tokio
    /// names them all `tokio-runtime-worker`).
    pub fn thread_name(&mut self, name: impl Into<String>) -> &mut Builder {
        let name = name.into();
        self.thread_name = name.clone();
        self.thread_name_fn = Some(Arc::new(move || name.clone()));
        self
    }

    /// Names each thread the runtime starts (workers and blocking threads)
    /// by calling `f`, as Tokio's builder does; replaces
    /// [`thread_name`](Builder::thread_name).
    pub fn thread_name_fn<F>(&mut self, f: F) -> &mut Builder
    where
        F: Fn() -> String + Send + Sync + 'static,
    {
        self.thread_name_fn = Some(Arc::new(f));
        self
    }

    thread_hooks! {
        /// Runs `f` on each thread the runtime starts (workers and blocking
        /// threads) before it does anything else.
        on_thread_start => start;
        /// Runs `f` on each thread the runtime starts, as it ends (a worker at
        /// shutdown, a blocking thread when it has been idle too long).
        on_thread_stop => stop;
        /// Runs `f` on a worker thread each time it runs out of work and is
        /// about to sleep (and on the thread in a current-thread runtime's
        /// `block_on`), as Tokio's hook of this name does. Not run by blocking
        /// threads.
        on_thread_park => park;
        /// Runs `f` on a worker thread each time it wakes from sleep with work
        /// to do: the counterpart of [`on_thread_park`](Builder::on_thread_park).
        on_thread_unpark => unpark;
    }

    task_hooks! {
        /// Runs `f` each time a task is spawned onto this runtime (by
        /// `spawn`, `Handle::spawn` or a `JoinSet`), on the spawning thread,
        /// after the task is made and before it is queued: so before any
        /// poll of it. Not run for `spawn_blocking` jobs, for the future
        /// given to `block_on`, or for the tasks of a
        /// [`LocalSet`](crate::task::LocalSet). As Tokio's hook of this
        /// name (unstable there); a second call replaces the first hook.
        on_task_spawn => task_spawn;
        /// Runs `f` on the thread about to poll a task, just before each
        /// poll, with the runtime's context entered (so `f` may spawn). The
        /// same tasks as [`on_task_spawn`](Builder::on_task_spawn), on both
        /// flavours; never for `block_on`'s future or a blocking job.
        on_before_task_poll => before_task_poll;
        /// Runs `f` just after each poll of a task, on the thread that ran
        /// [`on_before_task_poll`](Builder::on_before_task_poll) for that
        /// poll, even if the poll panicked (the panic is the task's
        /// output) or moved the worker's queue elsewhere (`block_in_place`).
        on_after_task_poll => after_task_poll;
        /// Runs `f` once per task when it terminates: it returned, panicked,
        /// or was cancelled (aborted, or dropped at shutdown). It runs on the
        /// thread that completed the task, after the output is stored and
        /// the `JoinHandle` woken; a panic in `f` is caught and ignored. As
        /// in Tokio it also runs for `spawn_blocking` jobs (which have no
        /// spawn hook), and not for `block_on`'s future or `LocalSet` tasks.
        on_task_terminate => task_terminate;
    }

    /// Names the runtime: [`Handle::name`](super::Handle::name) returns
    /// it. (The threads' names are set by
    /// [`thread_name`](Builder::thread_name).)
    ///
    /// # Panics
    ///
    /// If `name` is empty or only whitespace, as in Tokio.
    #[track_caller]
    pub fn name(&mut self, name: impl Into<String>) -> &mut Builder {
        let name = name.into();
        assert!(!name.trim().is_empty(), "runtime name shouldn't be empty");
        self.name = Some(name);
        self
    }

    /// The most I/O events a worker takes from the driver per turn (Tokio's
    /// default is 1024). Accepted for Tokio compatibility; ours always takes
    /// at most half a worker's ring (128), and a busy worker only when its
    /// ring has that much room, so that a turn's tasks never overflow it
    /// (`io_driver::EVENTS_PER_TURN`).
    ///
    /// # Panics
    ///
    /// If `capacity` is 0.
    #[track_caller]
    pub fn max_io_events_per_tick(&mut self, capacity: usize) -> &mut Builder {
        assert!(capacity > 0, "max_io_events_per_tick must be non-zero");
        self
    }

    /// The most I/O events a worker takes from the driver when it turns it
    /// between tasks, still having tasks to run (Tokio 1.54's default: as
    /// many as [`max_io_events_per_tick`](Self::max_io_events_per_tick)).
    /// Accepted for Tokio compatibility; ours already takes a small busy
    /// batch, at most 128 events and only when they fit in the worker's
    /// ring, leaving the rest in the kernel (`io_driver::EVENTS_PER_TURN`).
    ///
    /// # Panics
    ///
    /// If `capacity` is 0.
    #[track_caller]
    pub fn max_io_events_per_busy_tick(&mut self, capacity: usize) -> &mut Builder {
        assert!(capacity > 0, "max_io_events_per_busy_tick must be non-zero");
        self
    }

    /// The stack size of worker threads, in bytes (the default is Rust's, 2 MiB).
    pub fn thread_stack_size(&mut self, bytes: usize) -> &mut Builder {
        self.thread_stack_size = Some(bytes);
        self
    }

    /// Records what each worker does (polls, steals, parks, driver turns),
    /// up to `events_per_worker` events each, for
    /// [`Runtime::trace`](super::Runtime::trace): a timeline of a real run.
    /// Costs two clock reads and an uncontended lock per event: for demos,
    /// not benchmarks.
    pub fn enable_trace(&mut self, events_per_worker: usize) -> &mut Builder {
        self.trace_capacity = events_per_worker;
        self
    }

    /// Accepted for Tokio compatibility: I/O and time are always enabled.
    pub fn enable_all(&mut self) -> &mut Builder {
        self
    }

    /// Accepted for Tokio compatibility: the I/O driver is always enabled
    /// (in Tokio, without it a socket operation panics).
    pub fn enable_io(&mut self) -> &mut Builder {
        self
    }

    /// Accepted for Tokio compatibility: the timers are always enabled (in
    /// Tokio, without it `sleep` panics).
    pub fn enable_time(&mut self) -> &mut Builder {
        self
    }

    /// `new_current_thread` made this builder.
    pub(crate) fn is_current_thread(&self) -> bool {
        self.current_thread
    }

    /// Starts the worker threads.
    ///
    /// # Panics
    ///
    /// If [`start_paused`](Self::start_paused) was set on a multi-thread
    /// builder: a misuse of the API, which Tokio also reports with a panic
    /// here rather than an error.
    #[track_caller]
    pub fn build(&mut self) -> io::Result<Runtime> {
        assert!(
            !self.start_paused || self.current_thread,
            "`time::pause()` requires the `current_thread` Tokio runtime. This is the default \
             Runtime used by `#[tokio::test]` (here: start_paused(true) needs \
             Builder::new_current_thread, as only one thread can tell that the runtime is idle)"
        );
        let n_workers = match self.worker_threads {
            _ if self.current_thread => 1,
            Some(n) => n,
            None => std::thread::available_parallelism().map_or(1, usize::from),
        };
        let thread_hooks = self.thread_hooks.for_new_runtime();
        let config = RuntimeConfig {
            global_queue_interval: self.global_queue_interval,
            event_interval: self.event_interval,
            disable_lifo_slot: self.disable_lifo_slot,
            disable_coop_budget: self.disable_coop_budget,
            metrics: self.metrics,
            poll_time_histogram: self.poll_time_histogram,
            // The detector watches worker threads; the current-thread
            // flavour has none.
            long_poll_threshold: self
                .long_poll_threshold
                .filter(|_| self.metrics && !self.current_thread),
            on_long_poll: self.on_long_poll.clone(),
            current_thread: self.current_thread,
            start_paused: self.start_paused,
            trace_capacity: self.trace_capacity,
            thread_hooks: thread_hooks.clone(),
            task_hooks: TaskHooks::new(
                self.task_spawn.clone(),
                self.before_task_poll.clone(),
                self.after_task_poll.clone(),
                self.task_terminate.clone(),
            ),
            thread_name_fn: self.thread_name_fn.clone(),
            runtime_id: super::Id::next(),
            name: self.name.clone(),
        };
        let blocking = crate::blocking::Spawner::new(crate::blocking::PoolConfig {
            max_threads: self.max_blocking_threads,
            keep_alive: self.thread_keep_alive,
            thread_name: format!("{}-blocking", self.thread_name),
            thread_name_fn: self.thread_name_fn.clone(),
            thread_hooks: thread_hooks.clone(),
            task_terminate: self.task_terminate.clone(),
            stack_size: self.thread_stack_size,
        });
        let driver = Arc::new(crate::driver::create(
            config.current_thread,
            config.start_paused,
        )?);
        if self.current_thread {
            let scheduler =
                Scheduler::CurrentThread(scheduler::CurrentThread::new(config, driver, blocking));
            thread_hooks.belong_to(&scheduler);
            return Ok(Runtime::new_unstarted(scheduler));
        }
        let (workers, cores) = scheduler::multi_thread::create(n_workers, config, driver, blocking);
        let scheduler = Scheduler::MultiThread(workers.clone());
        thread_hooks.belong_to(&scheduler);
        let mut runtime = Runtime::new_unstarted(scheduler);
        for (index, (core, parker)) in cores.into_iter().enumerate() {
            let name = match &self.thread_name_fn {
                Some(name) => name(),
                None => format!("{}-{index}", self.thread_name),
            };
            let mut thread = std::thread::Builder::new().name(name);
            if let Some(bytes) = self.thread_stack_size {
                thread = thread.stack_size(bytes);
            }
            // On failure `runtime` is dropped, which shuts down and joins the
            // workers already started. The cores not started never ran
            // anything, so shutdown does not wait for them.
            match scheduler::multi_thread::worker::spawn_thread(
                workers.clone(),
                core,
                parker,
                thread,
            ) {
                Ok(join) => runtime.threads.push(join),
                Err((_, _, error)) => {
                    runtime.unstarted_workers = n_workers - index;
                    return Err(error);
                }
            }
        }
        if workers.detector.is_some() {
            let workers = workers.clone();
            runtime.watchdog = Some(
                std::thread::Builder::new()
                    .name(format!("{}-watchdog", self.thread_name))
                    .spawn(move || scheduler::watchdog::run(workers))?,
            );
        }
        Ok(runtime)
    }
}

/// Which scheduler a runtime runs: [`Handle::runtime_flavor`](super::Handle::runtime_flavor).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum RuntimeFlavor {
    /// [`Builder::new_current_thread`]: tasks run in `block_on`.
    CurrentThread,
    /// [`Builder::new_multi_thread`]: worker threads, work stealing.
    MultiThread,
}

impl super::Handle {
    /// Which scheduler this runtime runs.
    pub fn runtime_flavor(&self) -> RuntimeFlavor {
        match self.inner {
            Scheduler::CurrentThread(_) => RuntimeFlavor::CurrentThread,
            Scheduler::MultiThread(_) => RuntimeFlavor::MultiThread,
        }
    }

    /// This runtime's [`Id`]: unique among the runtimes this
    /// process has built.
    pub fn id(&self) -> super::Id {
        self.inner.resources().config.runtime_id
    }

    /// The name given by [`Builder::name`], if any.
    pub fn name(&self) -> Option<&str> {
        self.inner.resources().config.name.as_deref()
    }
}

/// A runtime's identity ([`Handle::id`](super::Handle::id)): unique among
/// the runtimes of this process, never reused. Opaque, as in Tokio: it can
/// be compared, hashed and printed, not made.
#[derive(Clone, Copy, Debug, Hash, Eq, PartialEq)]
pub struct Id(std::num::NonZeroU64);

impl Id {
    /// The next unused id (runtimes and [`LocalSet`](crate::task::LocalSet)s
    /// draw from the same count).
    pub(crate) fn next() -> Id {
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        Id(std::num::NonZeroU64::new(n).expect("2^64 runtimes: the counter wrapped"))
    }
}

impl fmt::Display for Id {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl fmt::Debug for Builder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Builder")
            .field("current_thread", &self.current_thread)
            .field("worker_threads", &self.worker_threads)
            .field("thread_name", &self.thread_name)
            .field("max_blocking_threads", &self.max_blocking_threads)
            .field("thread_keep_alive", &self.thread_keep_alive)
            .field("global_queue_interval", &self.global_queue_interval)
            .field("event_interval", &self.event_interval)
            .field("start_paused", &self.start_paused)
            .field("long_poll_threshold", &self.long_poll_threshold)
            .finish_non_exhaustive()
    }
}

impl Default for Builder {
    fn default() -> Builder {
        Builder::new_multi_thread()
    }
}
