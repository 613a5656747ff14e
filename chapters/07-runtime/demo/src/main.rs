//! `chapter-07`: a work-stealing async runtime, measured.
//!
//! With no subcommand it runs the chapter's guided demo. The comparison with
//! Tokio and async-executor is an example (those crates are dev-dependencies):
//! `cargo run --release -p chapter-07 --example compare -- scheduler`.

use chapter_01::console::{self, Console};
use chapter_03::experiments::{self as ch03, LoadArgs};
use chapter_07::experiments;
use clap::{Parser, Subcommand};
use std::net::SocketAddr;
use std::process::ExitCode;
use std::time::Duration;

/// Chapter 7: a Tokio-class runtime on every core: work stealing, the LIFO
/// slot, the I/O driver, the timing wheel, the budget, spawn_blocking.
///
/// With no command, runs the guided demo. Use --release:
/// `cargo run --release -p chapter-07`.
#[derive(Debug, Parser)]
#[command(name = "chapter-07", version)]
struct Cli {
    /// Print exactly one JSON object on stdout (narrative goes to stderr).
    #[arg(long, global = true)]
    json: bool,

    /// Run at small sizes: a few seconds.
    #[arg(long, global = true)]
    quick: bool,

    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum TopWorkload {
    /// Every worker equally busy.
    Balanced,
    /// Bursts spawned on one worker; the others steal.
    Skewed,
    /// Ten thousand sleeping tasks.
    Timers,
    /// A task that blocks its worker: the long-poll detector fires.
    Blocking,
}

impl From<TopWorkload> for chapter_07::top::Workload {
    fn from(workload: TopWorkload) -> Self {
        match workload {
            TopWorkload::Balanced => chapter_07::top::Workload::Balanced,
            TopWorkload::Skewed => chapter_07::top::Workload::Skewed,
            TopWorkload::Timers => chapter_07::top::Workload::Timers,
            TopWorkload::Blocking => chapter_07::top::Workload::Blocking,
        }
    }
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Run the echo server on this runtime; prints `listening on ADDR`.
    Serve {
        /// Address to listen on (port 0: any free port).
        #[arg(long, default_value = "127.0.0.1:7007")]
        addr: SocketAddr,
        /// Worker threads (default: logical CPUs).
        #[arg(long, value_parser = clap::value_parser!(u16).range(1..=256))]
        workers: Option<u16>,
    },
    /// The echo server; with --graceful, Ctrl-C stops it gracefully (prints `listening on ADDR`).
    Echo {
        /// Address to listen on (port 0: any free port).
        #[arg(long, default_value = "127.0.0.1:7007")]
        addr: SocketAddr,
        /// Worker threads (default: logical CPUs).
        #[arg(long, value_parser = clap::value_parser!(u16).range(1..=256))]
        workers: Option<u16>,
        /// On Ctrl-C, stop accepting, let open connections finish, then exit 0.
        #[arg(long)]
        graceful: bool,
        /// With --graceful: milliseconds open connections get after Ctrl-C.
        #[arg(long, default_value_t = 5_000, value_parser = clap::value_parser!(u64).range(0..=3_600_000))]
        deadline_ms: u64,
    },
    /// The graceful echo server under a script: clients, SIGINT, a deadline; a timeline of its connections.
    Shutdown {
        /// Connections the clients open (two thirds close before the deadline, the rest never).
        #[arg(long, default_value_t = 30, value_parser = clap::value_parser!(u32).range(3..=1000))]
        clients: u32,
        /// The server's deadline after SIGINT, in milliseconds.
        #[arg(long, default_value_t = 500, value_parser = clap::value_parser!(u64).range(50..=60_000))]
        deadline_ms: u64,
        /// Runs of the whole script (medians and ranges are reported; the first is drawn).
        #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u32).range(1..=100))]
        runs: u32,
        /// Also draw the first run's timeline as an SVG plot into this directory.
        #[arg(long, value_name = "DIR", value_parser = chapter_01::console::output_dir)]
        plot: Option<std::path::PathBuf>,
    },
    /// Interleavings loom explores per model and preemption bound, from data/loom-iterations.sh's CSV.
    LoomSpace {
        /// The CSV the script wrote.
        #[arg(
            long,
            value_name = "FILE",
            default_value = "chapters/07-runtime/demo/data/loom-iterations.csv"
        )]
        data: std::path::PathBuf,
        /// Also draw the counts as an SVG plot into this directory.
        #[arg(long, value_name = "DIR", value_parser = chapter_01::console::output_dir)]
        plot: Option<std::path::PathBuf>,
    },
    /// Load the echo server with Chapter 3's harness (same keys as Chapter 3).
    C10k {
        #[command(flatten)]
        load: LoadArgs,
    },
    /// A reader that is always ready beside a ticking task: the budget on and off.
    Coop {
        /// Seconds each way.
        #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u32).range(1..=600))]
        duration: u32,
        /// Also draw the lateness as an SVG plot into this directory.
        #[arg(long, value_name = "DIR", value_parser = chapter_01::console::output_dir)]
        plot: Option<std::path::PathBuf>,
    },
    /// thread::sleep in a task against spawn_blocking; the long-poll detector on a blocked and a preempted poll
    Blocking {
        /// Seconds each way.
        #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u32).range(1..=600))]
        duration: u32,
    },
    /// Why files go to the blocking pool: epoll on a file, and the cost of a pool job per call.
    Files {
        /// Rounds of every variant (medians and ranges are reported).
        #[arg(long, default_value_t = 7, value_parser = clap::value_parser!(u32).range(1..=1000))]
        rounds: u32,
        /// Calls per variant per round.
        #[arg(long, default_value_t = 2_000, value_parser = clap::value_parser!(u32).range(1..=10_000_000))]
        calls: u32,
    },
    /// The timing wheel against Chapter 5's binary heap, insert and cancel.
    Timers {
        /// Also draw the costs as an SVG plot into this directory.
        #[arg(long, value_name = "DIR", value_parser = chapter_01::console::output_dir)]
        plot: Option<std::path::PathBuf>,
    },
    /// The echo server here, Chapter 3's load from a child process, and the metrics over it, explained.
    Metrics {
        /// Connections the child opens.
        #[arg(long, default_value_t = 10_000, value_parser = clap::value_parser!(u32).range(1..=18_000))]
        connections: u32,
        /// Seconds of load.
        #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u32).range(1..=3600))]
        duration: u32,
    },
    /// Chapter 3's load generator alone, against a server already running.
    #[command(hide = true)]
    Load {
        /// The server's address.
        #[arg(long)]
        addr: SocketAddr,
        #[command(flatten)]
        load: LoadArgs,
    },
    /// A live view of the workers while a workload runs (q or Ctrl-C quits).
    Top {
        /// What runs while you watch.
        #[arg(long, value_enum, default_value_t = TopWorkload::Skewed)]
        workload: TopWorkload,
        /// Worker threads (default: logical CPUs, at least 2).
        #[arg(long, value_parser = clap::value_parser!(u16).range(1..=256))]
        workers: Option<u16>,
        /// Quit by itself after this many seconds.
        #[arg(long, value_parser = clap::value_parser!(u32).range(1..=86_400))]
        duration: Option<u32>,
        /// Milliseconds between frames.
        #[arg(long, default_value_t = 500, value_parser = clap::value_parser!(u32).range(50..=60_000))]
        interval_ms: u32,
    },
    /// Record every poll and park of a run with the task hooks; write a Perfetto / chrome://tracing file.
    Trace {
        /// Where to write the trace (Chrome trace-event JSON).
        #[arg(long, value_name = "FILE")]
        out: std::path::PathBuf,
        /// What runs while it is recorded.
        #[arg(long, value_enum, default_value_t = TopWorkload::Skewed)]
        workload: TopWorkload,
        /// Worker threads.
        #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u16).range(1..=64))]
        workers: u16,
        /// Milliseconds the workload runs.
        #[arg(long, default_value_t = 300, value_parser = clap::value_parser!(u64).range(10..=10_000))]
        duration_ms: u64,
        /// Also draw the first 20 ms of the timeline as an SVG plot into this directory.
        #[arg(long, value_name = "DIR", value_parser = chapter_01::console::output_dir)]
        plot: Option<std::path::PathBuf>,
    },
    /// A tree of tasks spawning tasks; print what each worker did.
    Workers {
        /// Worker threads (default: logical CPUs, at least 2).
        #[arg(long, value_parser = clap::value_parser!(u16).range(1..=256))]
        workers: Option<u16>,
        /// Levels of the tree below the root.
        #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..=6))]
        depth: u32,
        /// Children per node.
        #[arg(long, default_value_t = 50, value_parser = clap::value_parser!(u32).range(1..=1000))]
        fanout: u32,
        /// Also run the tree once more with the trace on and draw each worker's timeline (SVG) into this directory.
        #[arg(long, value_name = "DIR", value_parser = chapter_01::console::output_dir)]
        plot: Option<std::path::PathBuf>,
    },
    /// Chained spawns and ping-pong with the LIFO slot on and off.
    Lifo {
        /// Worker threads (default: logical CPUs, at least 2).
        #[arg(long, value_parser = clap::value_parser!(u16).range(1..=256))]
        workers: Option<u16>,
        /// Rounds of each (medians are reported).
        #[arg(long, default_value_t = 15, value_parser = clap::value_parser!(u32).range(1..=1000))]
        rounds: u32,
    },
    /// How long a task from outside waits behind busy local work, per global-queue interval.
    Interval {
        /// Probe tasks per interval.
        #[arg(long, default_value_t = 250, value_parser = clap::value_parser!(u32).range(1..=100_000))]
        probes: u32,
        /// Intervals to try (comma-separated).
        #[arg(long, value_delimiter = ',', default_value = "1,7,31,61,127,255",
              value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
        intervals: Vec<u32>,
    },
    /// A JoinSet of 100,000 tasks: half return, half wait forever, one fails; abort_all, then drop.
    Joinset {
        /// Tasks in the set.
        #[arg(long, default_value_t = 100_000, value_parser = clap::value_parser!(u32).range(4..=10_000_000))]
        tasks: u32,
        /// Rounds (medians and ranges are reported).
        #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u32).range(1..=1000))]
        rounds: u32,
        /// Worker threads (default: logical CPUs, at least 2).
        #[arg(long, value_parser = clap::value_parser!(u16).range(1..=256))]
        workers: Option<u16>,
        /// Also draw the times as an SVG plot into this directory.
        #[arg(long, value_name = "DIR", value_parser = chapter_01::console::output_dir)]
        plot: Option<std::path::PathBuf>,
    },
    /// A select! loop that drops bytes (read_exact against a ticker), next to the loop fixed.
    Cancel {
        /// Records the peer sends to each reader.
        #[arg(long, default_value_t = 500, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
        records: u32,
        /// Also draw the bytes lost as an SVG plot into this directory.
        #[arg(long, value_name = "DIR", value_parser = chapter_01::console::output_dir)]
        plot: Option<std::path::PathBuf>,
    },
}

fn main() -> ExitCode {
    let cli: Cli = console::parse_args();
    console::exit_code(run(cli))
}

fn default_workers() -> usize {
    std::thread::available_parallelism()
        .map_or(2, usize::from)
        .max(2)
}

fn run(cli: Cli) -> Result<(), Box<dyn std::error::Error>> {
    let console = Console::new(cli.json);
    let quick = cli.quick;
    let seconds = |duration: u32| {
        if quick {
            Duration::from_millis(500)
        } else {
            Duration::from_secs(u64::from(duration))
        }
    };
    let report = match cli.command {
        None => experiments::demo(&console, quick)?,
        Some(Command::Serve { addr, workers }) => {
            return Ok(chapter_07::echo::run(addr, workers.map(usize::from))?);
        }
        Some(Command::Echo {
            addr,
            workers,
            graceful,
            deadline_ms,
        }) => {
            let workers = workers.map(usize::from);
            if graceful {
                chapter_07::graceful::run(addr, workers, Duration::from_millis(deadline_ms))?;
                return Ok(());
            }
            return Ok(chapter_07::echo::run(addr, workers)?);
        }
        Some(Command::Shutdown {
            clients,
            deadline_ms,
            runs,
            plot,
        }) => {
            use chapter_07::shutdown::{self, Config};
            let config = if quick {
                Config::quick()
            } else {
                Config {
                    clients: clients as usize,
                    deadline: Duration::from_millis(deadline_ms),
                    runs: runs as usize,
                    ..Config::full()
                }
            };
            let exe = std::env::current_exe()
                .map_err(|err| format!("cannot find this program's own path: {err}"))?;
            let (report, first) = shutdown::shutdown(&console, &exe, &config)?;
            if let Some(dir) = plot {
                let title = format!(
                    "Graceful shutdown: {} clients, SIGINT, a {} ms deadline (first of {} runs)",
                    config.clients,
                    config.deadline.as_millis(),
                    config.runs
                );
                let path = chapter_05::plots::write_into(&dir, "shutdown-timeline.svg", |path| {
                    chapter_07::plots::shutdown(
                        path,
                        &first,
                        &title,
                        &chapter_05::plots::machine_label(),
                    )
                })?;
                console.say(format!("Wrote {}", path.display()));
            }
            report
        }
        Some(Command::LoomSpace { data, plot }) => {
            let text = std::fs::read_to_string(&data)
                .map_err(|err| format!("cannot read {}: {err}", data.display()))?;
            let parsed = chapter_07::loom_space::parse(&text)
                .map_err(|err| format!("{}: {err}", data.display()))?;
            let report = chapter_07::loom_space::report(&console, &parsed)?;
            if let Some(dir) = plot {
                let machine = parsed
                    .machine
                    .clone()
                    .unwrap_or_else(|| "machine not recorded".into());
                let path = chapter_05::plots::write_into(&dir, "loom-iterations.svg", |path| {
                    chapter_07::plots::loom_space(path, &parsed, 4, &machine)
                })?;
                console.say(format!("Wrote {}", path.display()));
            }
            report
        }
        Some(Command::C10k { load }) => {
            let config = load.config(if quick { 500 } else { 10_000 }, if quick { 1 } else { 5 });
            ch03::c10k(&console, &experiments::echo_spec()?, &config)?
        }
        Some(Command::Coop { duration, plot }) => {
            let report = chapter_07::coop::coop(&console, seconds(duration))?;
            plot_into(
                &console,
                plot,
                "coop-lateness.svg",
                &report,
                chapter_07::plots::coop,
            )?;
            report
        }
        Some(Command::Blocking { duration }) => experiments::blocking(&console, seconds(duration))?,
        Some(Command::Files { rounds, calls }) => {
            let (rounds, calls) = if quick { (1, 100) } else { (rounds, calls) };
            chapter_07::files::files(&console, rounds, calls)?
        }
        Some(Command::Timers { plot }) => {
            let report = experiments::timers(&console, quick)?;
            plot_into(
                &console,
                plot,
                "timers-wheel-heap.svg",
                &report,
                chapter_07::plots::timers,
            )?;
            report
        }
        Some(Command::Metrics {
            connections,
            duration,
        }) => experiments::echo_under_load(
            &console,
            if quick { 500 } else { connections as usize },
            Duration::from_secs(if quick { 1 } else { u64::from(duration) }),
        )?,
        Some(Command::Load { addr, load }) => {
            let mut config =
                load.config(if quick { 200 } else { 1_000 }, if quick { 1 } else { 5 });
            config.target = addr;
            // No server there is bad input, not a run of failed connections.
            std::net::TcpStream::connect_timeout(&addr, std::time::Duration::from_secs(5))
                .map_err(|err| format!("cannot connect to {addr}: {err}"))?;
            ch03::load(&console, &config)?
        }
        Some(Command::Top {
            workload,
            workers,
            duration,
            interval_ms,
        }) => {
            chapter_07::top::run(
                workload.into(),
                workers.map_or_else(default_workers, usize::from),
                duration.map(|s| Duration::from_secs(u64::from(s))),
                Duration::from_millis(u64::from(interval_ms)),
            )?;
            return Ok(());
        }
        Some(Command::Trace {
            out,
            workload,
            workers,
            duration_ms,
            plot,
        }) => {
            let config = chapter_07::trace::Config {
                workload: workload.into(),
                workers: usize::from(workers),
                duration: Duration::from_millis(duration_ms),
            };
            let (report, recording) = chapter_07::trace::trace(&console, &config, &out)?;
            if let Some(dir) = plot {
                let window = Duration::from_millis(20);
                let title = format!(
                    "The first {} ms of a {} ms run ({} workload, {} workers), from the poll and park hooks",
                    window.as_millis(),
                    duration_ms,
                    config.workload.name(),
                    config.workers
                );
                let trace = chapter_07::trace::window(&recording, window);
                let path = chapter_05::plots::write_into(&dir, "trace-timeline.svg", |path| {
                    chapter_07::plots::timeline(
                        path,
                        &trace,
                        &title,
                        &chapter_05::plots::machine_label(),
                    )
                })?;
                console.say(format!("Wrote {}", path.display()));
            }
            report
        }
        Some(Command::Workers {
            workers,
            depth,
            fanout,
            plot,
        }) => {
            if experiments::tree_size(depth, fanout) > 20_000_000 {
                return Err(format!(
                    "a tree of {depth} levels with {fanout} children is over 20 million tasks"
                )
                .into());
            }
            let workers = workers.map_or_else(default_workers, usize::from);
            let fanout = if quick { fanout.min(20) } else { fanout };
            let report = experiments::workers(&console, workers, depth, fanout)?;
            if let Some(dir) = plot {
                let (trace, elapsed) = experiments::workers_trace(workers, depth, fanout)?;
                let title = format!(
                    "What each worker did: a tree of {} tasks ({depth} levels x {fanout}), traced run {:.1} ms",
                    chapter_01::console::group_thousands(
                        experiments::tree_size(depth, fanout) as f64
                    ),
                    elapsed.as_secs_f64() * 1e3
                );
                let path = chapter_05::plots::write_into(&dir, "workers-timeline.svg", |path| {
                    chapter_07::plots::timeline(
                        path,
                        &trace,
                        &title,
                        &chapter_05::plots::machine_label(),
                    )
                })?;
                console.say(format!(
                    "Wrote {} ({} events dropped)",
                    path.display(),
                    trace.dropped
                ));
            }
            report
        }
        Some(Command::Lifo { workers, rounds }) => experiments::lifo(
            &console,
            workers.map_or_else(default_workers, usize::from),
            if quick { 5 } else { rounds as usize },
        )?,
        Some(Command::Interval { probes, intervals }) => experiments::interval(
            &console,
            if quick { 50 } else { probes as usize },
            &intervals,
        )?,
        Some(Command::Joinset {
            tasks,
            rounds,
            workers,
            plot,
        }) => {
            let report = chapter_07::joinset::joinset(
                &console,
                if quick { 10_000 } else { tasks as usize },
                if quick { 2 } else { rounds as usize },
                workers.map_or_else(default_workers, usize::from),
            )?;
            plot_into(
                &console,
                plot,
                "joinset-abort.svg",
                &report,
                chapter_07::plots::joinset,
            )?;
            report
        }
        Some(Command::Cancel { records, plot }) => {
            let report = chapter_07::cancel::cancel(
                &console,
                if quick { records.min(100) } else { records },
            )?;
            plot_into(
                &console,
                plot,
                "cancel-lost-bytes.svg",
                &report,
                chapter_07::plots::cancel,
            )?;
            report
        }
    };
    console.finish(&report)?;
    Ok(())
}

/// Draws `report` into `dir/file` with `draw` when `--plot DIR` was given.
fn plot_into(
    console: &Console,
    dir: Option<std::path::PathBuf>,
    file: &str,
    report: &console::Report,
    draw: fn(&std::path::Path, &console::Report, &str) -> std::io::Result<()>,
) -> std::io::Result<()> {
    if let Some(dir) = dir {
        let path = chapter_05::plots::write_into(&dir, file, |path| {
            draw(path, report, &chapter_05::plots::machine_label())
        })?;
        console.say(format!("Wrote {}", path.display()));
    }
    Ok(())
}
