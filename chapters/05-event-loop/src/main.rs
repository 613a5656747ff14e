//! `chapter-05`: the event loop: a reactor with callbacks and timers on mio.
//!
//! With no subcommand it runs the chapter's guided demo. `serve` and
//! `serve-relay` print `listening on ADDR` for Chapter 3's harness.

use std::net::SocketAddr;
use std::process::ExitCode;
use std::time::Duration;

use chapter_01::console::{self, Console};
use chapter_03::experiments::{self as ch03, LoadArgs};
use chapter_05::relay_client::RelayLoad;
use chapter_05::{experiments, plots};
use clap::{Parser, Subcommand};

/// Chapter 5: the event loop, the structure of nginx, Redis and Node.js,
/// built on mio, and what callbacks cost the programmer.
///
/// With no command, runs the guided demo. Use --release:
/// `cargo run --release -p chapter-05`.
#[derive(Debug, Parser)]
#[command(name = "chapter-05", version)]
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

#[derive(Debug, Subcommand)]
enum Command {
    /// Run the echo server on the event loop; prints `listening on ADDR`.
    Serve {
        /// Address to listen on (port 0: any free port).
        #[arg(long, default_value = "127.0.0.1:7005")]
        addr: SocketAddr,
        /// Close connections that send nothing for this many milliseconds.
        #[arg(long, value_parser = clap::value_parser!(u64).range(1..=86_400_000))]
        idle_timeout_ms: Option<u64>,
    },
    /// Run the lookup relay and its directory; prints `listening on ADDR`.
    ServeRelay {
        /// Address for the relay (port 0: any free port).
        #[arg(long, default_value = "127.0.0.1:7105")]
        addr: SocketAddr,
        /// The directory answers after this many milliseconds.
        #[arg(long, value_parser = clap::value_parser!(u64).range(1..=60_000))]
        delay_ms: Option<u64>,
    },
    /// Load the echo server with Chapter 3's harness (same keys as Chapter 3).
    C10k {
        #[command(flatten)]
        load: LoadArgs,
    },
    /// Load the callback relay with a verifying client.
    Relay {
        /// Client connections (a thread each).
        #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u32).range(1..=2_000))]
        connections: u32,
        /// Seconds of requests.
        #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..=3600))]
        duration: u32,
    },
    /// How late timers fire when one callback hogs the CPU.
    Starvation {
        /// Milliseconds the hog computes each time.
        #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u64).range(1..=10_000))]
        hog_ms: u64,
        /// Milliseconds between hogs.
        #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..=10_000))]
        every_ms: u64,
        /// Seconds to measure each way.
        #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u64).range(1..=600))]
        duration: u64,
        /// Also draw the lateness as an SVG plot into this directory.
        #[arg(long, value_name = "DIR", value_parser = chapter_01::console::output_dir)]
        plot: Option<std::path::PathBuf>,
    },
    /// The timer heap's cost per insert and cancel, from 1,000 to 1,000,000 timers.
    Timers,
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
        Some(Command::Serve {
            addr,
            idle_timeout_ms,
        }) => {
            return Ok(chapter_05::echo::run(
                addr,
                idle_timeout_ms.map(Duration::from_millis),
            )?);
        }
        Some(Command::ServeRelay { addr, delay_ms }) => {
            return Ok(chapter_05::relay::run(
                addr,
                delay_ms.map(Duration::from_millis),
            )?);
        }
        Some(Command::C10k { load }) => {
            let config = load.config(if quick { 500 } else { 10_000 }, if quick { 1 } else { 5 });
            ch03::c10k(&console, &experiments::echo_spec()?, &config)?
        }
        Some(Command::Relay {
            connections,
            duration,
        }) => experiments::relay(
            &console,
            RelayLoad {
                connections: connections as usize,
                duration: Duration::from_secs(if quick { 1 } else { u64::from(duration) }),
                timeout: Duration::from_secs(10),
            },
        )?,
        Some(Command::Starvation {
            hog_ms,
            every_ms,
            duration,
            plot,
        }) => {
            let report = experiments::starvation(
                &console,
                if quick {
                    Duration::from_millis(500)
                } else {
                    Duration::from_secs(duration)
                },
                Duration::from_millis(hog_ms),
                Duration::from_millis(every_ms),
            )?;
            if let Some(dir) = plot {
                let path = plots::write_into(&dir, "starvation-lateness.svg", |path| {
                    plots::starvation(path, &report, &plots::machine_label())
                })?;
                console.say(format!("Wrote {}", path.display()));
            }
            report
        }
        Some(Command::Timers) => {
            let counts: &[usize] = if quick {
                &experiments::QUICK_TIMER_COUNTS
            } else {
                &experiments::FULL_TIMER_COUNTS
            };
            experiments::timers(&console, counts, if quick { 3 } else { 9 })?
        }
    };
    console.finish(&report)?;
    Ok(())
}
