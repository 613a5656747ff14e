//! The appendix: measure, then write Markdown and SVG.

use super::{echo, scheduler, timers};
use chapter_01::console::{
    Console, Report, exit_code, group_thousands, human_duration_ns, parse_args,
};
use chapter_03::experiments as ch03;
use chapter_03::harness::ServerSpec;
use clap::{Parser, Subcommand, ValueEnum};
use serde_json::Value;
use std::error::Error;
use std::fmt::Write as _;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

#[derive(Parser)]
#[command(about = "Regenerates the book's benchmark appendix on this machine")]
struct Args {
    /// The folder to write tables.md and the plots into (created if missing)
    #[arg(long, value_name = "DIR", default_value = "book/src/appendix")]
    out: PathBuf,
    /// Small sizes: a minute or so in all (for checking, not for the book)
    #[arg(long)]
    quick: bool,
    /// Measure nothing: redraw the plots and figures.json from the
    /// tables.md already in --out
    #[arg(long)]
    plots_only: bool,
    /// Where the measured tables of Chapters 7 to 9 go (default: the
    /// folder `generated/measured` beside --out)
    #[arg(long, value_name = "DIR")]
    measured: Option<PathBuf>,
    /// Only the tables of the pages whose name starts with one of these
    /// (comma-separated, e.g. `ch08,ch09-http`); the appendix's own tables
    /// are then not measured
    #[arg(long, value_delimiter = ',', value_name = "PAGES")]
    only: Vec<String>,
    /// Runs of each repeated experiment of Chapters 7 to 9, instead of each
    /// page's own count (at least 3 for the book: medians and ranges)
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=100))]
    runs: Option<u32>,
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Run one echo server (the harness starts these as child processes)
    #[command(hide = true)]
    Serve {
        /// The server (Chapter 7's runtime unless given; --runtime wins)
        #[arg(long, value_enum, default_value = "rt")]
        server: ServerArg,
        /// Chapter 7.9's echo race: ours or Tokio's (as `compare -- serve`)
        #[arg(long, value_enum)]
        runtime: Option<RuntimeArg>,
        #[arg(long, default_value = "127.0.0.1:0")]
        addr: SocketAddr,
        #[arg(long, value_parser = clap::value_parser!(u16).range(1..=256))]
        workers: Option<u16>,
    },
    /// Chapter 7's echo server, stopped gracefully on Ctrl-C, as
    /// `chapter-07 echo --graceful` (Chapter 8.4's script starts it)
    #[command(hide = true)]
    Echo {
        #[arg(long, default_value = "127.0.0.1:0")]
        addr: SocketAddr,
        #[arg(long, value_parser = clap::value_parser!(u16).range(1..=256))]
        workers: Option<u16>,
        #[arg(long)]
        graceful: bool,
        #[arg(long, default_value_t = 5_000, value_parser = clap::value_parser!(u64).range(0..=3_600_000))]
        deadline_ms: u64,
    },
    /// Chapter 8.5's JoinSet experiment, as `chapter-07 joinset --json`,
    /// in a process of its own so that its resident-set growth starts from
    /// a fresh heap (the report starts it)
    #[command(hide = true)]
    Joinset {
        #[arg(long, value_parser = clap::value_parser!(u32).range(4..=10_000_000))]
        tasks: u32,
        #[arg(long, value_parser = clap::value_parser!(u16).range(1..=1_000))]
        rounds: u16,
    },
    /// Chapter 3's load generator, as `chapter-07 load` (Chapter 7.6's
    /// metrics run starts it)
    #[command(hide = true)]
    Load {
        #[arg(long)]
        addr: SocketAddr,
        #[command(flatten)]
        load: chapter_03::experiments::LoadArgs,
        /// Accepted as `chapter-07 load` does; the answer is always JSON
        #[arg(long)]
        json: bool,
    },
}

/// The servers of Chapter 7.9's echo race: the two runtimes, and the floor
/// (Chapter 4's epoll loop, no runtime).
#[derive(Clone, Copy, ValueEnum)]
enum RuntimeArg {
    Ours,
    Tokio,
    Epoll,
}

/// The echo servers of the book, in chapter order.
#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
enum ServerArg {
    Threads,
    Epoll,
    EventLoop,
    Executor,
    Rt,
    Tokio,
}

impl ServerArg {
    const ALL: [ServerArg; 6] = [
        ServerArg::Threads,
        ServerArg::Epoll,
        ServerArg::EventLoop,
        ServerArg::Executor,
        ServerArg::Rt,
        ServerArg::Tokio,
    ];

    fn name(self) -> &'static str {
        match self {
            ServerArg::Threads => "threads",
            ServerArg::Epoll => "epoll",
            ServerArg::EventLoop => "event-loop",
            ServerArg::Executor => "executor",
            ServerArg::Rt => "rt",
            ServerArg::Tokio => "tokio",
        }
    }

    fn describe(self) -> &'static str {
        match self {
            ServerArg::Threads => "Ch. 3: a thread per connection",
            ServerArg::Epoll => "Ch. 4: epoll by hand (edge-triggered)",
            ServerArg::EventLoop => "Ch. 5: the event loop (callbacks)",
            ServerArg::Executor => "Ch. 6: the single-threaded executor",
            ServerArg::Rt => "Ch. 7: our runtime",
            ServerArg::Tokio => "Tokio (same code shape)",
        }
    }

    fn serve(self, addr: SocketAddr) -> std::io::Result<()> {
        match self {
            ServerArg::Threads => chapter_03::server::serve_threads(
                addr,
                None,
                chapter_03::server::default_max_connections(),
            ),
            ServerArg::Epoll => chapter_04::server::serve(addr, chapter_04::connection::Mode::Edge),
            ServerArg::EventLoop => chapter_05::echo::run(addr, None),
            ServerArg::Executor => chapter_06::echo::run(addr),
            ServerArg::Rt => echo::serve(echo::Server::Ours, addr, None),
            ServerArg::Tokio => echo::serve(echo::Server::Tokio, addr, None),
        }
    }
}

pub fn main() -> ExitCode {
    let args: Args = parse_args();
    exit_code(run(args))
}

fn run(args: Args) -> Result<(), Box<dyn Error>> {
    match args.command {
        Some(Command::Serve {
            server,
            runtime,
            addr,
            workers,
        }) => {
            let workers = workers.map(usize::from);
            match (runtime, server) {
                (Some(RuntimeArg::Ours), _) => echo::serve(echo::Server::Ours, addr, workers)?,
                (Some(RuntimeArg::Tokio), _) => echo::serve(echo::Server::Tokio, addr, workers)?,
                (Some(RuntimeArg::Epoll), _) => echo::serve(echo::Server::Epoll, addr, workers)?,
                (None, server) => server.serve(addr)?,
            }
            return Ok(());
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
        Some(Command::Joinset { tasks, rounds }) => {
            let console = Console::new(true);
            let report = chapter_07::joinset::joinset(&console, tasks as usize, rounds.into(), 2)?;
            console.finish(&report)?;
            return Ok(());
        }
        Some(Command::Load { addr, load, .. }) => {
            let console = Console::new(true);
            let mut config = load.config(1_000, 5);
            config.target = addr;
            let report = ch03::load(&console, &config)?;
            console.finish(&report)?;
            return Ok(());
        }
        None => {}
    }
    std::fs::create_dir_all(&args.out)
        .map_err(|err| format!("cannot create {}: {err}", args.out.display()))?;
    let console = Console::new(false);
    if args.plots_only {
        super::figures::draw_and_record(&args.out, &console, Vec::new(), true)?;
        console.say(format!(
            "Redrew the plots and figures.json in {}",
            args.out.display()
        ));
        return Ok(());
    }
    let machine = chapter_01::machine::Machine::current();
    let measured_dir = args.measured.clone().unwrap_or_else(|| {
        args.out
            .parent()
            .unwrap_or(std::path::Path::new("."))
            .join("generated")
            .join("measured")
    });
    // Bad arguments fail here, before anything is measured.
    if measured_dir.as_os_str().is_empty() {
        return Err("--measured needs a folder, not an empty path".into());
    }
    std::fs::create_dir_all(&measured_dir)
        .map_err(|err| format!("cannot create {}: {err}", measured_dir.display()))?;
    for only in &args.only {
        if only.is_empty()
            || !super::chapters::PAGES
                .iter()
                .any(|page| page.starts_with(only.as_str()))
        {
            return Err(format!(
                "--only {only:?}: no page with measured tables starts so; they are {}",
                super::chapters::PAGES.join(", ")
            )
            .into());
        }
    }
    let mut chapters = super::chapters::Chapters {
        console: &console,
        quick: args.quick,
        runs: args.runs.map(|r| r as usize),
        dir: measured_dir,
        machine: machine.describe(),
        date: today(),
        only: args.only.clone(),
        quotes: Vec::new(),
        timings: Vec::new(),
        written: Vec::new(),
        kept: Vec::new(),
    };
    if !args.only.is_empty() {
        // Only some pages: the appendix's tables stay as they are; the
        // scheduler run is made only if Chapter 7.9 is among them.
        let sched = if args
            .only
            .iter()
            .any(|o| "ch07-racing-tokio".starts_with(o.as_str()))
        {
            scheduler_run(&console, args.quick)
        } else {
            Value::Null
        };
        chapters.run(&sched)?;
        let quotes = std::mem::take(&mut chapters.quotes);
        super::chapters::timings(&console, &chapters.timings);
        super::figures::draw_and_record(&args.out, &console, quotes, false)?;
        return Ok(());
    }
    let started = std::time::Instant::now();
    let mut md = String::new();
    let _ = writeln!(
        md,
        "*Measured on {}, at commit `{}`, on {} UTC, by `cargo run --release -p chapter-07 --example report{}`.*\n",
        machine.describe(),
        commit(),
        today(),
        if args.quick { " -- --quick" } else { "" }
    );

    console.say("1/4 Chapter 2: what a switch costs");
    let sizes = if args.quick {
        chapter_02::experiments::Sizes::quick()
    } else {
        chapter_02::experiments::Sizes::full()
    };
    let _ = writeln!(md, "## What a switch costs (Chapter 2)\n");
    let _ = writeln!(md, "| measure | median |\n|---|---|");
    for report in [
        chapter_02::experiments::syscall(&console, sizes.syscall)?,
        chapter_02::experiments::thread_switch(&console, sizes)?,
        chapter_02::experiments::process_switch(&console, sizes)?,
        chapter_02::experiments::green_switch(&console, sizes)?,
        chapter_02::experiments::future_switch(&console, sizes)?,
    ] {
        rows(&mut md, &report);
    }

    console.say("\n2/4 One echo load through every chapter's server");
    let connections = if args.quick { 200 } else { 1_000 };
    let mut config = echo::config(
        connections,
        Duration::from_secs(if args.quick { 1 } else { 5 }),
    );
    config.message_bytes = 64;
    let specs: Vec<ServerSpec> = ServerArg::ALL
        .iter()
        .map(|s| {
            ServerSpec::this_binary(
                s.name(),
                &["serve", "--server", s.name(), "--addr", "127.0.0.1:0"],
            )
        })
        .collect::<Result<_, _>>()?;
    let compared = ch03::compare(&console, &specs, &config)?;
    let results = compared
        .get("results")
        .and_then(Value::as_array)
        .cloned()
        .ok_or("the harness returned no results")?;
    let _ = writeln!(
        md,
        "\n## One echo load, every server (Chapters 3 to 7)\n\n{} connections, 64-byte messages, {} s of closed-loop echo, \
         Chapter 3's harness; the load generator and the server share the machine.\n",
        group_thousands(connections as f64),
        config.duration.as_secs()
    );
    let _ = writeln!(
        md,
        "| server | held | msgs/s | p50 | p99 | threads | memory per connection | switches per message | wrong bytes | errors |\n\
         |---|---|---|---|---|---|---|---|---|---|"
    );
    for (server, result) in ServerArg::ALL.iter().zip(&results) {
        let num = |key: &str| result[key].as_f64().unwrap_or(0.0);
        let _ = writeln!(
            md,
            "| {} | {} | {} | {} | {} | {} | {:.2} KiB | {:.2} | {} | {} |",
            server.describe(),
            group_thousands(num("connections_held")),
            group_thousands(num("throughput_msgs_per_sec").round()),
            human_duration_ns(num("latency_p50_us") * 1e3),
            human_duration_ns(num("latency_p99_us") * 1e3),
            result["server_threads"],
            num("server_rss_per_connection_kib"),
            num("server_switches_per_message"),
            result["mismatches"],
            result["errors"]
        );
    }

    console.say("\n3/4 Tokio's scheduler workloads on three runtimes");
    let sched = scheduler_run(&console, args.quick);
    let workers = sched["workers"].as_u64().unwrap_or(2);
    let rounds = sched["rounds"].as_u64().unwrap_or(0);
    let _ = writeln!(
        md,
        "\n## Scheduler workloads (Chapter 7)\n\nTokio's own benchmark workloads, the same code on each runtime, {workers} worker threads each, \
         runtimes interleaved in turn, {rounds} rounds; times are medians, and a ratio (our time over theirs: below 1 we are \
         faster) is the median of the per-round ratios.\n"
    );
    let _ = writeln!(
        md,
        "| workload | ours | Tokio | async-executor | floor | ours / Tokio | ours / async-executor | ours / floor |\n|---|---|---|---|---|---|---|---|"
    );
    for row in sched["results"].as_array().into_iter().flatten() {
        let num = |key: &str| row[key].as_f64().unwrap_or(0.0);
        let name = row["workload"].as_str().unwrap_or("?");
        let _ = writeln!(
            md,
            "| {name} | {} | {} | {} | {} | {:.2} | {:.2} | {:.1} |",
            human_duration_ns(num("ours_ns")),
            human_duration_ns(num("tokio_ns")),
            human_duration_ns(num("async_executor_ns")),
            human_duration_ns(num("floor_ns")),
            num("ratio_vs_tokio"),
            num("ratio_vs_async_executor"),
            num("ours_over_floor")
        );
    }

    console.say("\n4/4 Timers");
    let t = timers::compare(&console, args.quick);
    let _ = writeln!(
        md,
        "\n## Timers (Chapters 5 and 7)\n\nInsert one timer and cancel the oldest, with N pending (ns per pair); then N timers inserted and \
         fired by advancing the clock a millisecond at a time (ns per timer).\n"
    );
    let _ = writeln!(
        md,
        "| pending timers | wheel: insert+cancel | heap: insert+cancel | floor: two array writes | wheel: insert+fire | heap: insert+fire |\n|---|---|---|---|---|---|"
    );
    for row in t["series"].as_array().into_iter().flatten() {
        let num = |key: &str| row[key].as_f64().unwrap_or(0.0);
        let _ = writeln!(
            md,
            "| {} | {:.1} | {:.1} | {:.1} | {:.1} | {:.1} |",
            group_thousands(num("timers")),
            num("wheel_ns_per_op"),
            num("heap_ns_per_op"),
            num("floor_ns_per_op"),
            num("wheel_fire_ns_per_timer"),
            num("heap_fire_ns_per_timer")
        );
    }
    let _ = writeln!(
        md,
        "\n{} sleeps created, each polled once, then dropped (2 workers): ours {}, Tokio {}, ratio {:.2}.",
        group_thousands(t["sleeps"].as_f64().unwrap_or(0.0)),
        human_duration_ns(t["sleeps_1m_ours_ns"].as_f64().unwrap_or(0.0)),
        human_duration_ns(t["sleeps_1m_tokio_ns"].as_f64().unwrap_or(0.0)),
        t["sleeps_1m_ratio_vs_tokio"].as_f64().unwrap_or(0.0)
    );

    let tables = args.out.join("tables.md");
    std::fs::write(&tables, md)
        .map_err(|err| format!("cannot write {}: {err}", tables.display()))?;
    let appendix_seconds = started.elapsed().as_secs_f64();

    console.say("\nThe measured tables of Chapters 7 to 9");
    chapters.timings.push((
        "the appendix's tables (switches, echo, scheduler, timers)".into(),
        appendix_seconds,
    ));
    chapters.run(&sched)?;
    let quotes = std::mem::take(&mut chapters.quotes);
    super::chapters::timings(&console, &chapters.timings);
    super::figures::draw_and_record(&args.out, &console, quotes, true)?;
    console.say(format!(
        "\nWrote {}, figures.json and the plots in {}",
        tables.display(),
        args.out.display()
    ));
    Ok(())
}

/// Tokio's scheduler workloads on the three runtimes, one worker per CPU:
/// the appendix's table, and Chapter 7.9's.
fn scheduler_run(console: &Console, quick: bool) -> Value {
    let workers = std::thread::available_parallelism().map_or(2, usize::from);
    scheduler::run(
        console,
        &scheduler::Config {
            workers,
            rounds: if quick { 3 } else { 31 },
            sample: Duration::from_millis(if quick { 20 } else { 50 }),
            only: Vec::new(),
        },
    )
}

/// Table rows for a report's figures (machine keys left out: they are in
/// the page's first line).
fn rows(md: &mut String, report: &Report) {
    for (key, label, value) in report.fields() {
        if key.starts_with("machine_") {
            continue;
        }
        let shown = match value.as_f64() {
            Some(ns) if key.ends_with("_ns") => human_duration_ns(ns),
            Some(bytes) if key.ends_with("_bytes") => format!("{} bytes", group_thousands(bytes)),
            Some(x) if x.fract() != 0.0 => format!("{x:.2}"),
            _ => value.to_string().trim_matches('"').to_string(),
        };
        let _ = writeln!(md, "| {label} | {shown} |");
    }
}

fn commit() -> String {
    std::process::Command::new("git")
        .args(["rev-parse", "--short", "HEAD"])
        .output()
        .ok()
        .filter(|out| out.status.success())
        .map(|out| String::from_utf8_lossy(&out.stdout).trim().to_string())
        .unwrap_or_else(|| "unknown".into())
}

fn today() -> String {
    std::process::Command::new("date")
        .args(["-u", "+%Y-%m-%d %H:%M"])
        .output()
        .ok()
        .filter(|out| out.status.success())
        .map(|out| String::from_utf8_lossy(&out.stdout).trim().to_string())
        .unwrap_or_else(|| "unknown date".into())
}
