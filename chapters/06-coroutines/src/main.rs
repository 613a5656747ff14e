//! `chapter-06`: coroutines: futures by hand, wakers, and a first executor.
//!
//! With no subcommand it runs the chapter's guided demo. `serve` and
//! `serve-relay` print `listening on ADDR` for the harnesses.

use std::net::SocketAddr;
use std::process::ExitCode;
use std::time::Duration;

use chapter_01::console::{self, Console};
use chapter_03::experiments::{self as ch03, LoadArgs};
use chapter_05::relay_client::RelayLoad;
use chapter_06::experiments::{self, Implementation};
use clap::{Parser, Subcommand, ValueEnum};

/// Chapter 6: code that reads top to bottom without a thread per
/// connection: futures, wakers, an executor, async/await.
///
/// With no command, runs the guided demo. Use --release:
/// `cargo run --release -p chapter-06`.
#[derive(Debug, Parser)]
#[command(name = "chapter-06", version)]
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

#[derive(Debug, Clone, Copy, ValueEnum)]
enum ImplArg {
    /// Chapter 5's callbacks.
    Callbacks,
    /// The hand-written Future.
    Future,
    /// async/await.
    Async,
}

impl From<ImplArg> for Implementation {
    fn from(arg: ImplArg) -> Implementation {
        match arg {
            ImplArg::Callbacks => Implementation::Callbacks,
            ImplArg::Future => Implementation::Future,
            ImplArg::Async => Implementation::Async,
        }
    }
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Run the async echo server on this chapter's executor; prints `listening on ADDR`.
    Serve {
        /// Address to listen on (port 0: any free port).
        #[arg(long, default_value = "127.0.0.1:7006")]
        addr: SocketAddr,
    },
    /// Run the lookup relay (and its directory), written one of three ways.
    ServeRelay {
        /// Address for the relay (port 0: any free port).
        #[arg(long, default_value = "127.0.0.1:7106")]
        addr: SocketAddr,
        /// Which implementation.
        #[arg(long = "impl", value_enum, default_value_t = ImplArg::Async)]
        implementation: ImplArg,
    },
    /// Load the async echo server with Chapter 3's harness (same keys as Chapter 3).
    C10k {
        #[command(flatten)]
        load: LoadArgs,
    },
    /// The relay as callbacks, as a hand-written future and as async/await, under one load.
    Compare {
        /// Client connections (a thread each).
        #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u32).range(1..=2_000))]
        connections: u32,
        /// Seconds per run.
        #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..=3600))]
        duration: u32,
        /// Rounds of the three (medians are reported).
        #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..=100))]
        rounds: u32,
        /// Also draw throughput and latency as SVG plots into this directory.
        #[arg(long, value_name = "DIR", value_parser = chapter_01::console::output_dir)]
        plot: Option<std::path::PathBuf>,
    },
    /// The byte size of every future in the chapter, against a fiber's stack.
    Sizes,
    /// A ticker task beside a CPU-bound task, greedy and then yielding.
    Starvation {
        /// Milliseconds the CPU-bound task computes at a stretch.
        #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u64).range(1..=10_000))]
        work_ms: u64,
    },
}

fn main() -> ExitCode {
    let cli: Cli = console::parse_args();
    console::exit_code(run(cli))
}

fn run(cli: Cli) -> Result<(), Box<dyn std::error::Error>> {
    let console = Console::new(cli.json);
    let quick = cli.quick;
    let report = match cli.command {
        None => experiments::demo(&console, quick)?,
        Some(Command::Serve { addr }) => return Ok(chapter_06::echo::run(addr)?),
        Some(Command::ServeRelay {
            addr,
            implementation,
        }) => return Ok(experiments::run_relay(addr, implementation.into())?),
        Some(Command::C10k { load }) => {
            let config = load.config(if quick { 500 } else { 10_000 }, if quick { 1 } else { 5 });
            ch03::c10k(&console, &experiments::echo_spec()?, &config)?
        }
        Some(Command::Compare {
            connections,
            duration,
            rounds,
            plot,
        }) => {
            let report = experiments::compare(
                &console,
                RelayLoad {
                    connections: if quick { 20 } else { connections as usize },
                    duration: Duration::from_secs(if quick { 1 } else { u64::from(duration) }),
                    timeout: Duration::from_secs(10),
                },
                if quick { 1 } else { rounds as usize },
            )?;
            if let Some(dir) = plot {
                let latency = dir.join("relay-latency.svg");
                let path = chapter_05::plots::write_into(&dir, "relay-throughput.svg", |path| {
                    chapter_06::plots::compare(
                        path,
                        &latency,
                        &report,
                        &chapter_05::plots::machine_label(),
                    )
                })?;
                console.say(format!(
                    "Wrote {} and {}",
                    path.display(),
                    latency.display()
                ));
            }
            report
        }
        Some(Command::Sizes) => experiments::sizes(&console)?,
        Some(Command::Starvation { work_ms }) => experiments::starvation(
            &console,
            Duration::from_millis(if quick { 300 } else { 1_500 }),
            Duration::from_millis(work_ms),
            Duration::from_millis(10),
        )?,
    };
    console.finish(&report)?;
    Ok(())
}
