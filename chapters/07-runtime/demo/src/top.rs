//! `top`: a live view of the runtime's workers while a chosen workload runs.
//!
//! Every half second it takes a [`MetricsSnapshot`], subtracts the previous
//! one, and redraws a table: per worker, whether it is busy or parked, polls
//! and steals per second, the share of LIFO polls, its queue depth, parks
//! per second, busy time, and the task it is polling right now; then the
//! tasks polled most often since the last frame, and the long polls the
//! detector caught. It draws with a few ANSI escape sequences (alternate
//! screen, home, clear) rather than a TUI library: the point is the numbers.
//!
//! On a terminal, the keyboard is switched to raw mode (no echo, no line
//! buffering, Ctrl-C arrives as a byte) so that `q` or Ctrl-C quits at once;
//! the terminal's settings, cursor and screen are restored on the way out,
//! even if drawing fails. Off a terminal (a pipe, a test), frames are
//! printed one after another and a `q` line on stdin quits.
//!
//! Book: Chapter 7, "Seeing inside" (7.6).

use rt::runtime::{Builder, LongPoll, MetricsSnapshot, Runtime};
use rt::time;
use std::collections::HashMap;
use std::io::{self, IsTerminal, Read, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// What runs while `top` watches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Workload {
    /// Two CPU-bound tasks per worker that yield between slices: every
    /// worker equally busy.
    Balanced,
    /// One task spawns bursts of short tasks on its own worker: the others
    /// must steal them.
    Skewed,
    /// Ten thousand tasks sleeping 1 to 50 ms in a loop: timers, parks and
    /// wake-ups.
    Timers,
    /// Balanced, plus a task that calls `std::thread::sleep(50 ms)` in its
    /// poll every 200 ms: the long-poll detector catches it.
    Blocking,
}

impl Workload {
    /// Its name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Workload::Balanced => "balanced",
            Workload::Skewed => "skewed",
            Workload::Timers => "timers",
            Workload::Blocking => "blocking",
        }
    }
}

/// About `micros` of arithmetic.
fn spin(micros: u64) {
    let start = Instant::now();
    while start.elapsed() < Duration::from_micros(micros) {
        std::hint::spin_loop();
    }
}

/// Spawns `workload`'s tasks on `rt`; they run until `stop` is set (the
/// timeline of `chapter-07 trace` runs the same ones).
pub fn start_workload(rt: &Runtime, workload: Workload, stop: &Arc<AtomicBool>) {
    let workers = rt.metrics().num_workers();
    let running = |stop: &Arc<AtomicBool>| !stop.load(Ordering::Relaxed);
    match workload {
        Workload::Balanced | Workload::Blocking => {
            for _ in 0..2 * workers {
                let stop = stop.clone();
                rt.spawn(async move {
                    while running(&stop) {
                        spin(20);
                        rt::task::yield_now().await;
                    }
                });
            }
            if workload == Workload::Blocking {
                let stop = stop.clone();
                rt.spawn(async move {
                    while running(&stop) {
                        // The anti-pattern, on purpose: the worker sleeps.
                        std::thread::sleep(Duration::from_millis(50));
                        time::sleep(Duration::from_millis(150)).await;
                    }
                });
            }
        }
        Workload::Skewed => {
            let stop = stop.clone();
            rt.spawn(async move {
                while running(&stop) {
                    let burst: Vec<_> = (0..64).map(|_| rt::spawn(async { spin(50) })).collect();
                    for task in burst {
                        let _ = task.await;
                    }
                }
            });
        }
        Workload::Timers => {
            for i in 0..10_000u64 {
                let stop = stop.clone();
                rt.spawn(async move {
                    let mut ms = 1 + i % 50;
                    while running(&stop) {
                        time::sleep(Duration::from_millis(ms)).await;
                        ms = 1 + (ms * 7 + 3) % 50;
                    }
                });
            }
        }
    }
}

// ANCHOR: raw_mode
/// Puts a terminal in raw mode and restores it when dropped.
struct RawMode {
    original: libc::termios,
}

impl RawMode {
    fn enable() -> io::Result<RawMode> {
        // SAFETY: termios is plain data; tcgetattr fills it for fd 0.
        let mut original: libc::termios = unsafe { std::mem::zeroed() };
        // SAFETY: fd 0 is open; `original` is a valid termios to write.
        if unsafe { libc::tcgetattr(0, &mut original) } != 0 {
            return Err(io::Error::last_os_error());
        }
        let mut raw = original;
        raw.c_lflag &= !(libc::ICANON | libc::ECHO | libc::ISIG);
        raw.c_cc[libc::VMIN] = 1;
        raw.c_cc[libc::VTIME] = 0;
        // SAFETY: `raw` is a valid termios derived from the current one.
        if unsafe { libc::tcsetattr(0, libc::TCSANOW, &raw) } != 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(RawMode { original })
    }
}

impl Drop for RawMode {
    fn drop(&mut self) {
        // SAFETY: restores the settings read in `enable` on the same fd.
        unsafe {
            libc::tcsetattr(0, libc::TCSANOW, &self.original);
        }
    }
}
// ANCHOR_END: raw_mode

/// Leaves the alternate screen and shows the cursor when dropped.
struct Screen {
    on_terminal: bool,
}

impl Screen {
    fn enter(on_terminal: bool) -> io::Result<Screen> {
        if on_terminal {
            print!("\x1b[?1049h\x1b[?25l");
            io::stdout().flush()?;
        }
        Ok(Screen { on_terminal })
    }
}

impl Drop for Screen {
    fn drop(&mut self) {
        if self.on_terminal {
            print!("\x1b[?25h\x1b[?1049l");
            let _ = io::stdout().flush();
        }
    }
}

/// Watches for `q` (or Ctrl-C in raw mode) on stdin; sets `quit`.
fn watch_keys(quit: Arc<AtomicBool>) {
    std::thread::spawn(move || {
        let mut byte = [0u8; 1];
        let mut stdin = io::stdin();
        loop {
            match stdin.read(&mut byte) {
                Ok(0) | Err(_) => return, // end of input: only the duration ends it
                Ok(_) if matches!(byte[0], b'q' | b'Q' | 3) => {
                    quit.store(true, Ordering::SeqCst);
                    return;
                }
                Ok(_) => {}
            }
        }
    });
}

/// Runs the view until `q`, Ctrl-C, or `duration`.
pub fn run(
    workload: Workload,
    workers: usize,
    duration: Option<Duration>,
    interval: Duration,
) -> io::Result<()> {
    let long_polls: Arc<Mutex<Vec<LongPoll>>> = Arc::default();
    let sink = long_polls.clone();
    let rt = Builder::new_multi_thread()
        .worker_threads(workers)
        .on_long_poll(move |report| {
            let mut reports = sink
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            reports.push(*report);
            let excess = reports.len().saturating_sub(3);
            reports.drain(..excess);
        })
        .build()?;
    let stop = Arc::new(AtomicBool::new(false));
    start_workload(&rt, workload, &stop);

    let on_terminal = io::stdin().is_terminal() && io::stdout().is_terminal();
    let _raw = if on_terminal {
        Some(RawMode::enable()?)
    } else {
        None
    };
    let _screen = Screen::enter(on_terminal)?;
    let quit = Arc::new(AtomicBool::new(false));
    watch_keys(quit.clone());

    let started = Instant::now();
    let metrics = rt.metrics();
    let mut previous = metrics.snapshot();
    let mut previous_tasks: HashMap<u64, u64> = HashMap::new();
    let mut frame = 0u64;
    'frames: loop {
        // Sleep in small steps so a key press quits at once.
        let wake = Instant::now() + interval;
        while Instant::now() < wake {
            if quit.load(Ordering::SeqCst) || duration.is_some_and(|d| started.elapsed() >= d) {
                break 'frames;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let now = metrics.snapshot();
        let tasks = metrics.busiest_tasks(200);
        let reports = long_polls
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone();
        frame += 1;
        let text = render(
            workload,
            frame,
            &previous,
            &now,
            &tasks,
            &previous_tasks,
            &reports,
            on_terminal,
        );
        let mut out = io::stdout().lock();
        if on_terminal {
            write!(out, "\x1b[H\x1b[2J")?;
        }
        out.write_all(text.as_bytes())?;
        out.flush()?;
        previous_tasks = tasks.iter().map(|t| (t.id, t.polls)).collect();
        previous = now;
    }
    stop.store(true, Ordering::Relaxed);
    Ok(())
}

#[allow(clippy::too_many_arguments)]
fn render(
    workload: Workload,
    frame: u64,
    before: &MetricsSnapshot,
    now: &MetricsSnapshot,
    tasks: &[rt::runtime::TaskPolls],
    previous_tasks: &HashMap<u64, u64>,
    reports: &[LongPoll],
    on_terminal: bool,
) -> String {
    use std::fmt::Write as _;
    let seconds = now
        .taken
        .duration_since(before.taken)
        .as_secs_f64()
        .max(1e-3);
    let rate = |a: u64, b: u64| (a.saturating_sub(b)) as f64 / seconds;
    let newline = if on_terminal { "\r\n" } else { "\n" };
    let mut s = String::new();
    let _ = write!(
        s,
        "rt top: workload {} (frame {frame}; q or Ctrl-C quits){newline}\
         tasks alive {}  spawned/s {:.0}  global queue {}  timers {}  sockets {}  blocking threads {}  long polls {}{newline}{newline}",
        workload.name(),
        now.alive_tasks,
        rate(now.spawned_tasks, before.spawned_tasks),
        now.global_queue_depth,
        now.pending_timers,
        now.registered_sockets,
        now.blocking_threads,
        now.long_polls,
    );
    let _ = write!(
        s,
        "{:<7}{:<8}{:>10}{:>9}{:>7}{:>7}{:>9}{:>7}  polling now{newline}",
        "worker", "state", "polls/s", "steals/s", "LIFO%", "queue", "parks/s", "busy%"
    );
    for (i, (w, b)) in now.workers.iter().zip(&before.workers).enumerate() {
        let polls = w.polls.saturating_sub(b.polls);
        let lifo = if polls == 0 {
            0.0
        } else {
            100.0 * w.lifo_polls.saturating_sub(b.lifo_polls) as f64 / polls as f64
        };
        let busy = 100.0 * w.busy.saturating_sub(b.busy).as_secs_f64() / seconds;
        let current = w.current_task.map_or_else(
            || "-".to_string(),
            |l| format!("{}:{}", short(l.file()), l.line()),
        );
        let _ = write!(
            s,
            "{:<7}{:<8}{:>10.0}{:>9.0}{:>7.1}{:>7}{:>9.1}{:>7.0}  {}{newline}",
            i,
            if w.parked { "parked" } else { "busy" },
            rate(w.polls, b.polls),
            rate(w.steals, b.steals),
            lifo,
            w.local_queue_depth,
            rate(w.parks, b.parks),
            busy.min(100.0),
            current
        );
    }
    let mut busiest: Vec<(u64, u64, &rt::runtime::TaskPolls)> = tasks
        .iter()
        .map(|t| {
            (
                t.polls
                    .saturating_sub(*previous_tasks.get(&t.id).unwrap_or(&0)),
                t.id,
                t,
            )
        })
        .collect();
    busiest.sort_by_key(|entry| std::cmp::Reverse(entry.0));
    let _ = write!(s, "{newline}busiest tasks since the last frame{newline}");
    for (delta, id, task) in busiest.iter().take(5) {
        let _ = write!(
            s,
            "  task {:<8} {:>9.0} polls/s  spawned at {}:{}{newline}",
            id,
            *delta as f64 / seconds,
            short(task.location.file()),
            task.location.line()
        );
    }
    if !reports.is_empty() {
        let _ = write!(s, "{newline}long polls (the detector){newline}");
        for report in reports {
            let _ = write!(
                s,
                "  worker {}: {}, {:.1} ms of its own and {:.1} ms waiting for a CPU, in one poll of the task spawned at {}:{}{newline}",
                report.worker,
                report.cause,
                report.duration.as_secs_f64() * 1e3,
                report.cpu_wait.as_secs_f64() * 1e3,
                short(report.location.file()),
                report.location.line()
            );
        }
    }
    if !on_terminal {
        s.push('\n');
    }
    s
}

/// The last two components of a path.
fn short(path: &str) -> &str {
    let mut cut = path.len();
    for _ in 0..2 {
        match path[..cut].rfind('/') {
            Some(i) => cut = i,
            None => return path,
        }
    }
    &path[cut + 1..]
}
