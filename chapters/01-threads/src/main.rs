//! `chapter-01`: processes and threads, measured.
//!
//! With no subcommand it runs the chapter's guided demo. Every experiment is
//! a subcommand; `--json` and `--quick` work with all of them (see the book's
//! "How to use this book").

use std::net::SocketAddr;
use std::process::ExitCode;

use chapter_01::console::{self, Console};
use chapter_01::echo_client::{ClientConfig, MAX_MESSAGE_BYTES};
use chapter_01::echo_server::EchoServer;
use chapter_01::experiments::{self, MemoryConfig};
use chapter_01::machine::Machine;
use chapter_01::spawn_cost::SpawnConfig;
use clap::{Parser, Subcommand};

/// Chapter 1: processes and threads, and what each costs on this machine.
///
/// With no command, runs the guided demo: all three experiments, narrated.
#[derive(Debug, Parser)]
#[command(name = "chapter-01", version)]
struct Cli {
    /// Print exactly one JSON object on stdout (narrative goes to stderr).
    #[arg(long, global = true)]
    json: bool,

    /// Run at small sizes: a few seconds instead of a minute.
    #[arg(long, global = true)]
    quick: bool,

    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Time starting and joining a thread against fork+waitpid and spawning a process.
    SpawnCost {
        /// Timed runs of each mechanism [default: 2000, quick: 200].
        #[arg(long, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
        runs: Option<u32>,
    },
    /// Park idle threads and measure the virtual and resident memory each adds.
    Memory {
        /// Threads to park [default: 1000, quick: 200].
        #[arg(long, value_parser = clap::value_parser!(u32).range(1..=100_000))]
        threads: Option<u32>,
        /// Stack size of the second, small-stack run, in KiB.
        #[arg(long, default_value_t = 64, value_parser = clap::value_parser!(u32).range(16..=1_048_576))]
        small_stack_kib: u32,
    },
    /// Run a thread-per-connection echo server and verify every byte clients get back.
    Echo {
        /// Address for the server (port 0: any free port).
        #[arg(long, default_value = "127.0.0.1:0")]
        addr: SocketAddr,
        /// Client connections open at once [default: 200, quick: 32].
        #[arg(long, value_parser = clap::value_parser!(u32).range(1..=10_000))]
        connections: Option<u32>,
        /// Messages per connection [default: 200, quick: 50].
        #[arg(long, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
        messages: Option<u32>,
        /// Bytes per message, at most 65536 [default: 4096, quick: 1024].
        #[arg(long, value_parser = clap::value_parser!(u32).range(1..=MAX_MESSAGE_BYTES as i64))]
        message_bytes: Option<u32>,
    },
    /// Serve the thread-per-connection echo server until interrupted (try it with nc).
    Serve {
        /// Address to listen on.
        #[arg(long, default_value = "127.0.0.1:7001")]
        addr: SocketAddr,
    },
}

fn main() -> ExitCode {
    let cli: Cli = console::parse_args();
    console::exit_code(run(cli))
}

fn run(cli: Cli) -> Result<(), Box<dyn std::error::Error>> {
    let console = Console::new(cli.json);
    let quick = cli.quick;
    let mut report = match cli.command {
        None => experiments::demo(&console, quick)?,
        Some(Command::SpawnCost { runs }) => {
            let mut config = if quick {
                SpawnConfig::quick()
            } else {
                SpawnConfig::full()
            };
            if let Some(runs) = runs {
                config.runs = runs as usize;
            }
            experiments::spawn_cost(&console, config)?
        }
        Some(Command::Memory {
            threads,
            small_stack_kib,
        }) => {
            let mut config = if quick {
                MemoryConfig::quick()
            } else {
                MemoryConfig::full()
            };
            if let Some(threads) = threads {
                config.threads = threads as usize;
            }
            config.small_stack_kib = small_stack_kib as usize;
            experiments::memory(&console, config)?
        }
        Some(Command::Echo {
            addr,
            connections,
            messages,
            message_bytes,
        }) => {
            let defaults = if quick {
                experiments::echo_quick()
            } else {
                experiments::echo_full()
            };
            let client = ClientConfig {
                connections: connections.map_or(defaults.connections, |n| n as usize),
                messages: messages.map_or(defaults.messages, |n| n as usize),
                message_bytes: message_bytes.map_or(defaults.message_bytes, |n| n as usize),
                ..defaults
            };
            experiments::echo(&console, addr, client)?
        }
        Some(Command::Serve { addr }) => {
            let server =
                EchoServer::bind(addr).map_err(|err| format!("cannot bind {addr}: {err}"))?;
            eprintln!(
                "echo server on {}: one thread per connection; Ctrl-C to stop",
                server.local_addr()?
            );
            return Ok(server.run()?);
        }
    };
    if report.experiment() != "demo" {
        experiments::add_machine(&mut report, &Machine::current());
    }
    console.finish(&report)?;
    Ok(())
}
