//! `trace`: what each worker did, moment by moment, as a file that
//! Perfetto (ui.perfetto.dev) and `chrome://tracing` open.
//!
//! The idea: the runtime already calls us at the four moments a timeline
//! needs. [`Builder::on_before_task_poll`] and [`Builder::on_after_task_poll`]
//! bracket every poll, on the thread that polls; `on_thread_park` and
//! `on_thread_unpark` bracket every sleep. Each hook appends to a buffer in
//! a thread-local, so recording takes no lock and shares no cache line
//! with the other workers: a clock read and a `Vec::push`. `on_thread_start`
//! makes a thread's buffer, `on_thread_stop` hands it in (the one lock, once
//! per thread), and dropping the runtime joins the workers, so every
//! buffer is in when the run ends.
//!
//! The buffers are then written in the Chrome trace-event format: a
//! `thread_name` metadata event (`"ph":"M"`) per worker, and a complete
//! event (`"ph":"X"`, a start and a duration in microseconds since the run
//! began) per poll, named `poll` with the task's id in its arguments, and
//! per sleep, named `parked`. Unlike `Builder::enable_trace`, which the
//! runtime records itself, this needs nothing inside the runtime but the
//! hooks Tokio also has.
//!
//! Book: Chapter 7, "Seeing inside".
//!
//! [`Builder::on_before_task_poll`]: rt::runtime::Builder::on_before_task_poll
//! [`Builder::on_after_task_poll`]: rt::runtime::Builder::on_after_task_poll

use crate::top::{self, Workload};
use chapter_01::console::{Console, Report};
use rt::runtime::{Builder, Trace, TraceEvent, TraceKind};
use rt::task::Id;
use serde_json::{Value, json};
use std::cell::RefCell;
use std::error::Error;
use std::io::{BufWriter, Write};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

/// What `chapter-07 trace` runs.
#[derive(Debug, Clone)]
pub struct Config {
    /// The workload, one of `top`'s.
    pub workload: Workload,
    /// Worker threads.
    pub workers: usize,
    /// How long the workload runs before the runtime is shut down.
    pub duration: Duration,
}

/// One span of one thread, in time since the run began.
#[derive(Debug, Clone, Copy)]
pub struct Span {
    /// When it began.
    pub start: Duration,
    /// When it ended.
    pub end: Duration,
    /// The task polled, or `None` for a park.
    pub task: Option<Id>,
}

/// What one worker thread recorded.
#[derive(Debug, Clone)]
pub struct ThreadLog {
    /// The thread's name (`rt-worker-0`, ...).
    pub name: String,
    /// Its polls and parks, in order; they do not overlap.
    pub spans: Vec<Span>,
}

/// A run's recording.
#[derive(Debug, Clone)]
pub struct Recording {
    /// One log per worker, in worker order.
    pub threads: Vec<ThreadLog>,
    /// From the runtime's build to the end of its shutdown.
    pub elapsed: Duration,
}

// ANCHOR: recorder
/// The buffer of the thread it lives on: the hooks write here, with no
/// lock and nothing shared.
struct Recorder {
    epoch: Instant,
    log: ThreadLog,
    /// The poll or park under way: its task (None: a park) and start.
    open: Option<(Option<Id>, Duration)>,
}

thread_local! {
    static RECORDER: RefCell<Option<Recorder>> = const { RefCell::new(None) };
}

/// Opens a span on this thread (a hook on a thread without a buffer, or
/// re-entered, records nothing).
fn begin(task: Option<Id>) {
    let _ = RECORDER.try_with(|recorder| {
        if let Ok(mut recorder) = recorder.try_borrow_mut()
            && let Some(recorder) = recorder.as_mut()
        {
            recorder.open = Some((task, recorder.epoch.elapsed()));
        }
    });
}

/// Closes the span under way on this thread.
fn end() {
    let _ = RECORDER.try_with(|recorder| {
        if let Ok(mut recorder) = recorder.try_borrow_mut()
            && let Some(recorder) = recorder.as_mut()
            && let Some((task, start)) = recorder.open.take()
        {
            let end = recorder.epoch.elapsed();
            recorder.log.spans.push(Span { start, end, task });
        }
    });
}
// ANCHOR_END: recorder

/// Runs `config`'s workload on a runtime whose hooks record every poll and
/// park, and returns the recording.
pub fn record(config: &Config) -> Result<Recording, Box<dyn Error>> {
    let logs: Arc<Mutex<Vec<ThreadLog>>> = Arc::default();
    let handed_in = logs.clone();
    let epoch = Instant::now();
    // ANCHOR: hooks
    let runtime = Builder::new_multi_thread()
        .worker_threads(config.workers)
        .on_thread_start(move || {
            let name = std::thread::current().name().unwrap_or("?").to_string();
            let log = ThreadLog {
                name,
                spans: Vec::with_capacity(1 << 16),
            };
            RECORDER.with(|r| {
                *r.borrow_mut() = Some(Recorder {
                    epoch,
                    log,
                    open: None,
                })
            });
        })
        .on_before_task_poll(|meta| begin(Some(meta.id())))
        .on_after_task_poll(|_| end())
        .on_thread_park(|| begin(None))
        .on_thread_unpark(end)
        .on_thread_stop(move || {
            if let Some(recorder) = RECORDER.with(|r| r.borrow_mut().take()) {
                let mut logs = handed_in.lock().unwrap_or_else(PoisonError::into_inner);
                logs.push(recorder.log);
            }
        })
        .build()?;
    // ANCHOR_END: hooks
    let stop = Arc::new(AtomicBool::new(false));
    top::start_workload(&runtime, config.workload, &stop);
    std::thread::sleep(config.duration);
    stop.store(true, Ordering::Relaxed);
    // Shutdown joins the workers: each has run its stop hook.
    drop(runtime);
    let elapsed = epoch.elapsed();
    let mut threads = std::mem::take(&mut *logs.lock().unwrap_or_else(PoisonError::into_inner));
    // Workers only (a blocking thread, if any started, polled nothing).
    threads.retain(|t| !t.spans.is_empty());
    threads.sort_by(|a, b| (a.name.len(), &a.name).cmp(&(b.name.len(), &b.name)));
    Ok(Recording { threads, elapsed })
}

/// A time as the trace-event format wants it: microseconds, to the
/// nanosecond.
fn micros(at: Duration) -> f64 {
    at.as_nanos() as f64 / 1e3
}

// ANCHOR: chrome_events
/// The recording as Chrome trace events: per worker a `thread_name`
/// metadata event, then one complete (`X`) event per poll and per park.
pub fn chrome_json(recording: &Recording) -> Value {
    let mut events = vec![json!({
        "name": "process_name", "ph": "M", "pid": 1,
        "args": { "name": "chapter-07 trace (rt)" },
    })];
    for (tid, thread) in recording.threads.iter().enumerate() {
        events.push(json!({
            "name": "thread_name", "ph": "M", "pid": 1, "tid": tid,
            "args": { "name": thread.name },
        }));
        for span in &thread.spans {
            let (name, args) = match span.task {
                Some(task) => ("poll", json!({ "task": task.as_u64() })),
                None => ("parked", json!({})),
            };
            events.push(json!({
                "name": name, "ph": "X", "pid": 1, "tid": tid,
                "ts": micros(span.start),
                "dur": micros(span.end - span.start),
                "args": args,
            }));
        }
    }
    json!({ "traceEvents": events, "displayTimeUnit": "ms" })
}
// ANCHOR_END: chrome_events

/// The first `window` of the recording as the runtime's own [`Trace`], so
/// that [`plots::timeline`](crate::plots::timeline) draws it like the
/// `workers` timeline (spans cut at the window's end).
pub fn window(recording: &Recording, window: Duration) -> Trace {
    let workers = recording
        .threads
        .iter()
        .map(|thread| {
            thread
                .spans
                .iter()
                .filter(|span| span.start < window)
                .map(|span| TraceEvent {
                    start: span.start,
                    duration: span.end.min(window) - span.start,
                    kind: match span.task {
                        Some(task) => TraceKind::Poll { task },
                        None => TraceKind::Park,
                    },
                })
                .collect()
        })
        .collect();
    Trace {
        workers,
        dropped: 0,
    }
}

/// `chapter-07 trace`: records `config`'s run, writes the trace to `out`
/// (created before the run, so a path that cannot be written fails at
/// once), and reports polls and parks per worker.
pub fn trace(
    console: &Console,
    config: &Config,
    out: &Path,
) -> Result<(Report, Recording), Box<dyn Error>> {
    let file = std::fs::File::create(out)
        .map_err(|err| format!("cannot create {}: {err}", out.display()))?;
    console.say(format!(
        "Recording every poll and park: workload {}, {} workers, {} ms",
        config.workload.name(),
        config.workers,
        config.duration.as_millis()
    ));
    let recording = record(config)?;
    let json = chrome_json(&recording);
    let mut writer = BufWriter::new(file);
    serde_json::to_writer(&mut writer, &json)
        .map_err(|err| format!("cannot write {}: {err}", out.display()))?;
    writer
        .flush()
        .map_err(|err| format!("cannot write {}: {err}", out.display()))?;

    let mut report = Report::new("trace");
    report
        .add("workload", "workload", config.workload.name())
        .add("workers", "worker threads", config.workers as u64)
        .add(
            "duration_ms",
            "workload ran for",
            config.duration.as_millis() as u64,
        )
        .add(
            "elapsed_ms",
            "run, build to shutdown",
            recording.elapsed.as_secs_f64() * 1e3,
        );
    let mut events = 0;
    for (w, thread) in recording.threads.iter().enumerate() {
        let polls = thread.spans.iter().filter(|s| s.task.is_some()).count();
        let parks = thread.spans.len() - polls;
        let busy: Duration = thread
            .spans
            .iter()
            .filter(|s| s.task.is_some())
            .map(|s| s.end - s.start)
            .sum();
        let parked: Duration = thread
            .spans
            .iter()
            .filter(|s| s.task.is_none())
            .map(|s| s.end - s.start)
            .sum();
        events += thread.spans.len();
        report
            .add(
                &format!("worker{w}_polls"),
                &format!("{}: polls", thread.name),
                polls as u64,
            )
            .add(
                &format!("worker{w}_parks"),
                &format!("{}: parks", thread.name),
                parks as u64,
            )
            .add(
                &format!("worker{w}_polling_ms"),
                &format!("{}: time in polls", thread.name),
                busy.as_secs_f64() * 1e3,
            )
            .add(
                &format!("worker{w}_parked_ms"),
                &format!("{}: time parked", thread.name),
                parked.as_secs_f64() * 1e3,
            );
    }
    report
        .add("trace_events", "events written", events as u64)
        .add("file", "trace file", out.display().to_string());
    console.say(format!(
        "Wrote {} ({events} events): open it at https://ui.perfetto.dev (\"Open trace file\") or in chrome://tracing",
        out.display()
    ));
    Ok((report, recording))
}
