//! `chapter-03`: C10K with one thread per connection, and the load
//! generator every later chapter uses.
//!
//! With no subcommand it runs the chapter's guided demo. `serve` is the
//! server the harness starts as a child process.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;

use chapter_01::console::{self, Console};
use chapter_03::experiments::{self, LoadArgs};
use chapter_03::harness::ServerSpec;
use chapter_03::{server, sweep};
use clap::{Parser, Subcommand};

/// Chapter 3: what breaks when one thread per connection meets ten thousand
/// connections, measured with a load generator that can hold twenty
/// thousand.
///
/// With no command, runs the guided demo (limits, C10K on threads, stack
/// sizes). Use --release: `cargo run --release -p chapter-03`.
#[derive(Debug, Parser)]
#[command(name = "chapter-03", version)]
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
    /// Run the thread-per-connection echo server; prints `listening on ADDR`.
    Serve {
        /// Address to listen on (port 0: any free port).
        #[arg(long, default_value = "127.0.0.1:7003")]
        addr: SocketAddr,
        /// Stack size of each connection thread, in KiB [default: Rust's 2 MiB].
        #[arg(long, value_parser = clap::value_parser!(u32).range(16..=1_048_576))]
        stack_kib: Option<u32>,
        /// Connections served at once; more are closed at once [default: the
        /// thread ceiling of `limits`, minus 64].
        #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
        max_connections: Option<u64>,
        /// No cap: start threads until thread creation fails (which aborts the process).
        #[arg(long, conflicts_with = "max_connections")]
        no_cap: bool,
    },
    /// Load a running echo server: hold N connections, echo, verify, time.
    Load {
        /// The server's address.
        #[arg(long)]
        addr: SocketAddr,
        #[command(flatten)]
        load: LoadArgs,
    },
    /// Start the threads server as a child, load it, and sample its memory, threads and switches.
    C10k {
        #[command(flatten)]
        load: LoadArgs,
        /// Stack size of each server connection thread, in KiB.
        #[arg(long, value_parser = clap::value_parser!(u32).range(16..=1_048_576))]
        stack_kib: Option<u32>,
        /// Start the server without its connection cap (see `serve --help`).
        #[arg(long)]
        no_cap: bool,
    },
    /// Run c10k at 100, 1,000, 5,000 and 10,000 connections at a fixed rate; --plot writes SVG plots.
    ///
    /// The rate defaults to 10,000 messages per second in all (open loop), so
    /// that latency compares across sizes: in a closed loop, latency grows
    /// with the number of connections by construction.
    Sweep {
        #[command(flatten)]
        load: LoadArgs,
        /// Write the plots into this directory.
        #[arg(long, value_name = "DIR", value_parser = chapter_01::console::output_dir)]
        plot: Option<PathBuf>,
    },
    /// Virtual against resident memory with default and with small thread stacks.
    Stacks {
        #[command(flatten)]
        load: LoadArgs,
        /// The small stack size, in KiB.
        #[arg(long, default_value_t = 64, value_parser = clap::value_parser!(u32).range(16..=1_048_576))]
        small_stack_kib: u32,
    },
    /// Print the limits that bound a thread-per-connection server on this machine.
    Limits,
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
            stack_kib,
            max_connections,
            no_cap,
        }) => {
            let cap = if no_cap {
                None
            } else {
                max_connections.or_else(server::default_max_connections)
            };
            return Ok(server::serve_threads(
                addr,
                stack_kib.map(|kib| kib as usize * 1024),
                cap,
            )?);
        }
        Some(Command::Load { addr, load }) => {
            let mut config =
                load.config(if quick { 200 } else { 1_000 }, if quick { 1 } else { 5 });
            config.target = addr;
            // No server there is bad input, not a run of failed connections.
            std::net::TcpStream::connect_timeout(&addr, std::time::Duration::from_secs(5))
                .map_err(|err| format!("cannot connect to {addr}: {err}"))?;
            experiments::load(&console, &config)?
        }
        Some(Command::C10k {
            load,
            stack_kib,
            no_cap,
        }) => {
            let config = load.config(if quick { 500 } else { 10_000 }, if quick { 1 } else { 5 });
            let stack = stack_kib.map(|kib| kib.to_string());
            let mut args = vec!["serve", "--addr", "127.0.0.1:0"];
            if let Some(stack) = &stack {
                args.extend(["--stack-kib", stack]);
            }
            if no_cap {
                args.push("--no-cap");
            }
            let spec = ServerSpec::this_binary("threads", &args)?;
            experiments::c10k(&console, &spec, &config)?
        }
        Some(Command::Sweep { load, plot }) => {
            let mut config = load.config(0, if quick { 1 } else { 5 });
            config.rate = config.rate.or(Some(sweep::DEFAULT_RATE));
            let points: Vec<usize> = match load.connections {
                Some(n) => vec![n as usize],
                None if quick => sweep::QUICK_POINTS.to_vec(),
                None => sweep::FULL_POINTS.to_vec(),
            };
            if let Some(dir) = &plot {
                std::fs::create_dir_all(dir)
                    .map_err(|err| format!("cannot create {}: {err}", dir.display()))?;
            }
            let spec = ServerSpec::this_binary("threads", &["serve", "--addr", "127.0.0.1:0"])?;
            experiments::sweep(&console, &spec, &points, &config, plot.as_deref())?
        }
        Some(Command::Stacks {
            load,
            small_stack_kib,
        }) => {
            let config = load.config(if quick { 500 } else { 10_000 }, if quick { 1 } else { 3 });
            experiments::stacks(&console, &config, small_stack_kib)?
        }
        Some(Command::Limits) => {
            let mut report = experiments::limits(&console)?;
            experiments::add_machine(&mut report);
            report
        }
    };
    console.finish(&report)?;
    Ok(())
}
