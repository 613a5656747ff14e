//! `chapter-02`: the true price of a context switch, measured.
//!
//! With no subcommand it runs every experiment, then weighs the common
//! claims about switches against the figures. Each experiment is also a
//! subcommand; `--json`, `--quick` and `--plot DIR` work with all of them.

use std::path::PathBuf;
use std::process::ExitCode;

use chapter_01::console::{self, Console};
use chapter_02::experiments::{self, Sizes};
use clap::{Parser, Subcommand};

/// Chapter 2: what a context switch really costs on this machine, and where
/// the cost comes from.
///
/// With no command, runs every experiment and judges four classic claims.
/// Use --release: `cargo run --release -p chapter-02`.
#[derive(Debug, Parser)]
#[command(name = "chapter-02", version)]
struct Cli {
    /// Print exactly one JSON object on stdout (narrative goes to stderr).
    #[arg(long, global = true)]
    json: bool,

    /// Run at small sizes: a few seconds instead of most of a minute.
    #[arg(long, global = true)]
    quick: bool,

    /// Write SVG plots into this directory (the cache sweep; with no command,
    /// the switch costs too).
    #[arg(long, global = true, value_name = "DIR", value_parser = chapter_01::console::output_dir)]
    plot: Option<PathBuf>,

    /// Repeated runs behind each median [default: 5, quick: 3].
    #[arg(long, global = true, value_parser = clap::value_parser!(u32).range(1..=1000))]
    runs: Option<u32>,

    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Time a trivial system call against a plain function call.
    Syscall,
    /// Ping-pong between two threads, on one CPU and on two, over a futex and a pipe.
    ThreadSwitch {
        /// Round trips per run on one CPU [default: 50000, quick: 2000].
        #[arg(long, value_parser = clap::value_parser!(u64).range(1..=100_000_000))]
        round_trips: Option<u64>,
    },
    /// Ping-pong between two processes (fork) pinned to one CPU.
    ProcessSwitch {
        /// Round trips per run [default: 50000, quick: 2000].
        #[arg(long, value_parser = clap::value_parser!(u64).range(1..=100_000_000))]
        round_trips: Option<u64>,
    },
    /// Time per memory access right after a switch against no switch, 4 KiB to 32 MiB.
    CachePollution {
        /// Walks per working-set size [default: 9, quick: 3].
        #[arg(long, value_parser = clap::value_parser!(u32).range(1..=1000))]
        repetitions: Option<u32>,
    },
    /// A hand-written stackful fiber switch (assembly), raw and through a scheduler (against corosensei's: --example fiber_race).
    GreenSwitch,
    /// A stackless switch: resuming a future that yields.
    FutureSwitch,
}

fn main() -> ExitCode {
    let cli: Cli = console::parse_args();
    console::exit_code(run(cli))
}

fn run(cli: Cli) -> Result<(), Box<dyn std::error::Error>> {
    let console = Console::new(cli.json);
    let mut sizes = if cli.quick {
        Sizes::quick()
    } else {
        Sizes::full()
    };
    if let Some(runs) = cli.runs {
        sizes.runs = runs as usize;
    }
    let plot_dir = experiments::prepare_plot_dir(cli.plot)?;
    let plot_dir = plot_dir.as_deref();
    let mut report = match cli.command {
        None => experiments::demo(&console, sizes, plot_dir)?,
        Some(Command::Syscall) => experiments::syscall(&console, sizes.syscall)?,
        Some(Command::ThreadSwitch { round_trips }) => {
            if let Some(n) = round_trips {
                sizes.same_cpu_round_trips = n;
                sizes.cross_cpu_round_trips = n.div_ceil(5);
            }
            experiments::thread_switch(&console, sizes)?
        }
        Some(Command::ProcessSwitch { round_trips }) => {
            if let Some(n) = round_trips {
                sizes.same_cpu_round_trips = n;
            }
            experiments::process_switch(&console, sizes)?
        }
        Some(Command::CachePollution { repetitions }) => {
            if let Some(n) = repetitions {
                sizes.cache_repetitions = n as usize;
            }
            experiments::cache_pollution(&console, sizes, plot_dir)?
        }
        Some(Command::GreenSwitch) => experiments::green_switch(&console, sizes)?,
        Some(Command::FutureSwitch) => experiments::future_switch(&console, sizes)?,
    };
    if report.experiment() != "demo" {
        experiments::add_machine(&mut report);
    }
    console.finish(&report)?;
    Ok(())
}
