//! `chapter-03`: C10K with one thread per connection, and the load
//! generator every later chapter uses.
//!
//! With no subcommand it runs the chapter's guided demo. `serve` is the
//! server the harness starts as a child process.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use chapter_01::console::{self, Console};
use chapter_03::experiments::{self, LoadArgs};
use chapter_03::harness::ServerSpec;
use chapter_03::soak::SoakConfig;
use chapter_03::{server, soak, sweep};
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
    /// Soak servers for minutes against misbehaving clients; every byte checked, memory watched.
    ///
    /// Each round: a clean load, resets mid-request, half-closes, idle and
    /// slow clients, then more connections than the server's open-file limit.
    ///
    /// The presets are this book's servers, found next to this binary; build
    /// them first: `cargo build --release -p chapter-01 -p chapter-03
    /// -p chapter-04 -p chapter-05 -p chapter-06 -p chapter-07 --bins
    /// --example http`. Exits non-zero when a byte is lost or wrong, a server
    /// dies, or its memory does not return to idle.
    Soak {
        /// How long to soak each server: 90, 90s, 10m or 500ms [default: 60s; --quick: 6s].
        #[arg(long, value_parser = parse_duration)]
        duration: Option<Duration>,
        /// A preset to soak (repeat for several): ch01, ch03, ch04-et, ch04-lt,
        /// ch05, ch06, ch07, http, or all [default: all].
        #[arg(long = "server", value_name = "NAME")]
        servers: Vec<String>,
        /// A server's command line instead of a preset (it must print
        /// `listening on ADDR`, or take `{port}` in its arguments); repeatable.
        #[arg(long = "server-cmd", value_name = "COMMAND", value_parser = server_command)]
        server_cmds: Vec<String>,
        /// The --server-cmd servers speak HTTP/1.1 (POST /echo) instead of echo.
        #[arg(long)]
        http: bool,
        /// Where the preset binaries are [default: this binary's directory].
        #[arg(long, value_name = "DIR", value_parser = existing_dir)]
        bin_dir: Option<PathBuf>,
        /// Connections of the clean load [default: 50; --quick: 10].
        #[arg(long, value_parser = clap::value_parser!(u32).range(1..=10_000))]
        connections: Option<u32>,
        /// Messages (or HTTP requests) per second of the clean load, in all [default: 1000; --quick: 300].
        #[arg(long, value_parser = soak_rate)]
        rate: Option<f64>,
        /// The server's open-file limit; the exhaustion case opens 64 more connections [default: 256; --quick: 96].
        #[arg(long, value_parser = clap::value_parser!(u64).range(32..=65_536))]
        fd_limit: Option<u64>,
        /// Seconds of clean load per round [default: 20; --quick: 3].
        #[arg(long, value_parser = clap::value_parser!(u32).range(1..=3600))]
        round: Option<u32>,
        /// Soak every server at the same time instead of one after another.
        #[arg(long)]
        parallel: bool,
    },
}

/// The full or the --quick value.
fn pick<T>(quick: bool, full: T, short: T) -> T {
    if quick { short } else { full }
}

/// A soak's rate: positive, finite, and at most a million a second.
fn soak_rate(text: &str) -> Result<f64, String> {
    let rate: f64 = text
        .parse()
        .map_err(|_| format!("{text:?} is not a number of messages a second"))?;
    if !(rate > 0.0 && rate <= 1_000_000.0) {
        return Err(format!(
            "{text} is not a rate from above 0 to 1,000,000 a second"
        ));
    }
    Ok(rate)
}

/// A server command whose program exists (a path, or a name on `PATH`),
/// checked before anything is started or printed.
fn server_command(text: &str) -> Result<String, String> {
    let program = text
        .split_whitespace()
        .next()
        .ok_or_else(|| "an empty command runs nothing".to_string())?;
    let found = if program.contains('/') {
        std::path::Path::new(program).is_file()
    } else {
        std::env::var_os("PATH").is_some_and(|paths| {
            std::env::split_paths(&paths).any(|dir| dir.join(program).is_file())
        })
    };
    if found {
        Ok(text.to_string())
    } else {
        Err(format!("no program {program:?} to run"))
    }
}

/// A folder that exists.
fn existing_dir(text: &str) -> Result<PathBuf, String> {
    let dir = PathBuf::from(text);
    if dir.is_dir() {
        Ok(dir)
    } else {
        Err(format!("{text:?} is not a folder"))
    }
}

/// `90`, `90s`, `10m`, `500ms`.
fn parse_duration(text: &str) -> Result<Duration, String> {
    let text = text.trim();
    let (number, unit) = match text.find(|c: char| !c.is_ascii_digit()) {
        Some(at) => text.split_at(at),
        None => (text, "s"),
    };
    let n: u64 = number
        .parse()
        .map_err(|_| format!("{text:?} is not a duration like 90s, 10m or 500ms"))?;
    let duration = match unit {
        "ms" => Duration::from_millis(n),
        "s" => Duration::from_secs(n),
        "m" => Duration::from_secs(n.saturating_mul(60)),
        "h" => Duration::from_secs(n * 3600),
        _ => return Err(format!("{text:?} is not a duration like 90s, 10m or 500ms")),
    };
    if duration.is_zero() {
        return Err("the duration must be positive".into());
    }
    if duration > Duration::from_secs(7 * 24 * 3600) {
        return Err(format!("{text:?} is longer than a week"));
    }
    Ok(duration)
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
        Some(Command::Soak {
            duration,
            servers,
            server_cmds,
            http,
            bin_dir,
            connections,
            rate,
            fd_limit,
            round,
            parallel,
        }) => {
            let mut config = SoakConfig::new(duration.unwrap_or(pick(
                quick,
                Duration::from_secs(60),
                Duration::from_secs(6),
            )));
            config.connections = connections.map_or(pick(quick, 50, 10), |n| n as usize);
            config.rate = rate.unwrap_or(pick(quick, 1_000.0, 300.0));
            config.fd_limit = fd_limit.unwrap_or(pick(quick, 256, 96));
            config.idle = pick(quick, 20, 8);
            config.round = Duration::from_secs(round.map_or(pick(quick, 20, 3), u64::from));
            config.validate()?;
            let commands = soak::commands(&servers, &server_cmds, http, bin_dir)?;
            let say = |line: String| console.say(line);
            return soak::run(&console, &commands, &config, parallel, &say);
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
