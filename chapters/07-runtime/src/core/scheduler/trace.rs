//! A trace of what each worker did, and when: the runtime's flight
//! recorder, for drawing a timeline with one lane per worker.
//!
//! With `Builder::enable_trace(n)`, each worker records up to `n` events:
//! every poll (which task, from when, for how long), every steal (how many
//! tasks), every park (how long it slept) and every zero-timeout turn of the
//! driver. A worker appends to its own buffer, under a mutex that nobody
//! else takes until [`Runtime::trace`](crate::Runtime::trace) reads the
//! buffers, so recording costs two clock reads and an uncontended lock per
//! event: cheap enough to leave on for a demo, not for a benchmark. When a
//! buffer is full, later events of that worker are dropped (and counted),
//! so a long run keeps its beginning.
//!
//! [`Trace::to_chrome_json`] writes the Chrome trace-event format, which
//! Perfetto (ui.perfetto.dev) and `chrome://tracing` open: one thread per
//! worker, polls, parks and driver turns as spans, steals as instants.
//!
//! Book: Chapter 7, "The scheduler".

use crate::loom::Mutex;
use crate::task::Id;
use std::fmt::Write as _;
use std::time::{Duration, Instant};

/// What one event was.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TraceKind {
    /// A poll of a task.
    Poll {
        /// The task polled.
        task: Id,
    },
    /// The worker stole tasks from another worker's queue.
    Steal {
        /// How many.
        tasks: u64,
    },
    /// The worker slept, in the driver or on its condition variable.
    Park,
    /// A zero-timeout turn of the I/O driver and the timers between tasks.
    Driver,
}

/// One event of one worker.
#[derive(Debug, Clone, Copy)]
pub struct TraceEvent {
    /// When it began, since the runtime started.
    pub start: Duration,
    /// How long it lasted (zero for a steal).
    pub duration: Duration,
    /// What it was.
    pub kind: TraceKind,
}

/// The events of every worker, read by [`Runtime::trace`](crate::Runtime::trace).
#[derive(Debug, Clone, Default)]
pub struct Trace {
    /// One list per worker, in the order the events began.
    pub workers: Vec<Vec<TraceEvent>>,
    /// Events dropped because a worker's buffer was full.
    pub dropped: u64,
}

/// The recording side, shared by the workers.
pub(crate) struct Tracer {
    start: Instant,
    capacity: usize,
    buffers: Box<[Mutex<Buffer>]>,
}

#[derive(Default)]
struct Buffer {
    events: Vec<TraceEvent>,
    dropped: u64,
}

impl Tracer {
    pub(crate) fn new(workers: usize, capacity: usize) -> Tracer {
        Tracer {
            start: Instant::now(),
            capacity,
            buffers: (0..workers)
                .map(|_| Mutex::new(Buffer::default()))
                .collect(),
        }
    }

    /// Now, for the start of a span.
    pub(crate) fn now(&self) -> Instant {
        Instant::now()
    }

    /// Records a span that began at `began` and ends now.
    pub(crate) fn span(&self, worker: usize, began: Instant, kind: TraceKind) {
        let end = Instant::now();
        self.push(
            worker,
            TraceEvent {
                start: began.saturating_duration_since(self.start),
                duration: end.saturating_duration_since(began),
                kind,
            },
        );
    }

    /// Records an instant event.
    pub(crate) fn instant(&self, worker: usize, kind: TraceKind) {
        self.push(
            worker,
            TraceEvent {
                start: self.start.elapsed(),
                duration: Duration::ZERO,
                kind,
            },
        );
    }

    fn push(&self, worker: usize, event: TraceEvent) {
        let Some(buffer) = self.buffers.get(worker) else {
            return;
        };
        let mut buffer = buffer.lock();
        if buffer.events.len() < self.capacity {
            buffer.events.push(event);
        } else {
            buffer.dropped += 1;
        }
    }

    /// A copy of everything recorded so far.
    pub(crate) fn snapshot(&self) -> Trace {
        let mut trace = Trace::default();
        for buffer in self.buffers.iter() {
            let buffer = buffer.lock();
            trace.workers.push(buffer.events.clone());
            trace.dropped += buffer.dropped;
        }
        trace
    }
}

impl Trace {
    /// The trace in the Chrome trace-event JSON format (microseconds), for
    /// Perfetto or `chrome://tracing`.
    pub fn to_chrome_json(&self) -> String {
        let mut out = String::from("{\"traceEvents\":[\n");
        let mut first = true;
        for (worker, events) in self.workers.iter().enumerate() {
            let mut line = |text: String| {
                if !first {
                    out.push_str(",\n");
                }
                first = false;
                out.push_str(&text);
            };
            line(format!(
                "{{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,\"tid\":{worker},\"args\":{{\"name\":\"worker {worker}\"}}}}"
            ));
            for event in events {
                let ts = event.start.as_secs_f64() * 1e6;
                let dur = event.duration.as_secs_f64() * 1e6;
                let text = match event.kind {
                    TraceKind::Poll { task } => format!(
                        "{{\"name\":\"poll\",\"cat\":\"task\",\"ph\":\"X\",\"pid\":1,\"tid\":{worker},\"ts\":{ts:.3},\"dur\":{dur:.3},\"args\":{{\"task\":{task}}}}}"
                    ),
                    TraceKind::Park => format!(
                        "{{\"name\":\"park\",\"cat\":\"idle\",\"ph\":\"X\",\"pid\":1,\"tid\":{worker},\"ts\":{ts:.3},\"dur\":{dur:.3}}}"
                    ),
                    TraceKind::Driver => format!(
                        "{{\"name\":\"driver\",\"cat\":\"driver\",\"ph\":\"X\",\"pid\":1,\"tid\":{worker},\"ts\":{ts:.3},\"dur\":{dur:.3}}}"
                    ),
                    TraceKind::Steal { tasks } => format!(
                        "{{\"name\":\"steal\",\"cat\":\"steal\",\"ph\":\"i\",\"s\":\"t\",\"pid\":1,\"tid\":{worker},\"ts\":{ts:.3},\"args\":{{\"tasks\":{tasks}}}}}"
                    ),
                };
                line(text);
            }
        }
        let _ = write!(out, "\n]}}\n");
        out
    }
}
