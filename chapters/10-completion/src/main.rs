//! `chapter-10`: completion-based I/O with io_uring, beside Chapter 4's epoll.
//!
//! With no subcommand it runs the chapter's guided demo. `serve` runs an
//! echo server as the harness expects (it prints `listening on ADDR`);
//! `race` puts four servers through the same load, side by side.

#[cfg(target_os = "linux")]
fn main() -> std::process::ExitCode {
    linux::main()
}

#[cfg(not(target_os = "linux"))]
fn main() -> std::process::ExitCode {
    eprintln!("error: chapter-10 programs io_uring, which only Linux has");
    std::process::ExitCode::FAILURE
}

#[cfg(target_os = "linux")]
mod linux {
    use std::net::SocketAddr;
    use std::path::PathBuf;
    use std::process::ExitCode;
    use std::time::Duration;

    use chapter_01::console::{self, Console};
    use chapter_03::experiments::LoadArgs;
    use chapter_03::limits;
    use chapter_10::experiments;
    use chapter_10::race::{self, RaceConfig};
    use chapter_10::server::{Options, Step};
    use clap::{Parser, Subcommand, ValueEnum};

    /// Chapter 10: completion, the other way to do I/O. The echo server on
    /// io_uring, by hand, beside Chapter 4's epoll loop.
    ///
    /// With no command, runs the guided demo (what the kernel offers, the
    /// completion queue overflowing without loss, the server's four steps,
    /// and a race of four servers). Use --release:
    /// `cargo run --release -p chapter-10`.
    #[derive(Debug, Parser)]
    #[command(name = "chapter-10", version)]
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
    enum ServerArg {
        /// This chapter's io_uring server.
        Uring,
        /// Chapter 4's epoll server (edge-triggered).
        Epoll,
        /// Chapter 7's runtime, a task per connection.
        Rt,
    }

    #[derive(Debug, Clone, Copy, ValueEnum)]
    enum StepArg {
        /// Single-shot accept, a buffer per connection.
        Basic,
        /// Multishot accept, a buffer per connection.
        Multishot,
        /// Multishot accept and provided buffers.
        Buffers,
        /// All that, and the kernel's deferred work only inside our io_uring_enter.
        Deferred,
    }

    impl From<StepArg> for Step {
        fn from(step: StepArg) -> Step {
            match step {
                StepArg::Basic => Step::Basic,
                StepArg::Multishot => Step::Multishot,
                StepArg::Buffers => Step::Buffers,
                StepArg::Deferred => Step::Deferred,
            }
        }
    }

    #[derive(Debug, Subcommand)]
    enum Command {
        /// Run an echo server; prints `listening on ADDR`.
        Serve {
            /// Address to listen on (port 0: any free port).
            #[arg(long, default_value = "127.0.0.1:7010")]
            addr: SocketAddr,
            /// Listen on 127.0.0.1 at this port instead (0: any free port).
            #[arg(long, conflicts_with = "addr")]
            port: Option<u16>,
            /// Which server.
            #[arg(long, value_enum, default_value_t = ServerArg::Uring)]
            server: ServerArg,
            /// Which step of the io_uring server.
            #[arg(long, value_enum, default_value_t = StepArg::Basic)]
            mode: StepArg,
            /// Serve on Chapter 4's epoll loop instead of io_uring (as if the
            /// kernel refused it; CHAPTER10_NO_URING=1 does the same).
            #[arg(long)]
            force_fallback: bool,
            /// Completion ring slots (small: watch it overflow without loss).
            #[arg(long, value_parser = clap::value_parser!(u32).range(2..=65_536))]
            cq_entries: Option<u32>,
            /// Lower the open-file limit to this many descriptors (to watch EMFILE).
            #[arg(long, value_parser = clap::value_parser!(u64).range(16..))]
            fd_limit: Option<u64>,
            /// Let the kernel finish operations only inside our io_uring_enter (DEFER_TASKRUN).
            #[arg(long)]
            defer_taskrun: bool,
        },
        /// Which io_uring operations this kernel has.
        Probe,
        /// A small completion ring, many completions: none is lost.
        Overflow {
            /// Completion ring slots.
            #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u32).range(2..=4096))]
            cq_entries: u32,
            /// Operations to complete before reaping any.
            #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
            operations: u32,
        },
        /// The io_uring server's four steps through Chapter 3's harness, in one run.
        Steps {
            #[command(flatten)]
            load: LoadArgs,
        },
        /// epoll, rt, our io_uring server and compio, side by side at 1,000 and 10,000 connections.
        Race {
            /// Connection counts to race at (repeat the flag) [default: 1000 and 10000].
            #[arg(long, value_parser = clap::value_parser!(u32).range(1..=100_000))]
            connections: Vec<u32>,
            /// Seconds of load per server per round.
            #[arg(long, value_parser = clap::value_parser!(u32).range(1..=600))]
            duration: Option<u32>,
            /// Rounds; each starts with a different server.
            #[arg(long, value_parser = clap::value_parser!(u32).range(1..=100))]
            rounds: Option<u32>,
            /// Which step of our server races.
            #[arg(long, value_enum, default_value_t = StepArg::Basic)]
            mode: StepArg,
            /// The compio echo server's binary [default: examples/compio-echo beside this one].
            #[arg(long, value_name = "FILE", value_parser = existing_file)]
            compio: Option<PathBuf>,
            /// Write the plots into this directory.
            #[arg(long, value_name = "DIR", value_parser = chapter_01::console::output_dir)]
            plot: Option<PathBuf>,
        },
    }

    /// A file that exists, checked before anything is measured.
    fn existing_file(text: &str) -> Result<PathBuf, String> {
        let path = PathBuf::from(text);
        match std::fs::metadata(&path) {
            Ok(meta) if meta.is_file() => Ok(path),
            Ok(_) => Err(format!("{text} is not a file")),
            Err(err) => Err(format!("cannot read {text}: {err}")),
        }
    }

    pub fn main() -> ExitCode {
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
                port,
                server,
                mode,
                force_fallback,
                cq_entries,
                fd_limit,
                defer_taskrun,
            }) => {
                let addr = port.map_or(addr, |port| SocketAddr::from(([127, 0, 0, 1], port)));
                let hard = limits::raise_fd_limit()?;
                if let Some(limit) = fd_limit {
                    if limit > hard {
                        return Err(format!(
                            "--fd-limit {limit} is above this process's open-file limit, {hard}: it can only lower it"
                        )
                        .into());
                    }
                    limits::set_fd_limit(limit)?;
                }
                if let ServerArg::Rt = server {
                    // Chapter 7's server binds, announces and serves by itself.
                    return Ok(chapter_07::echo::run(addr, None)?);
                }
                let listener = chapter_03::server::listener(addr)
                    .map_err(|err| format!("cannot bind {addr}: {err}"))?;
                let mut options: Options = Step::from(mode).options();
                options.defer_taskrun |= defer_taskrun;
                if let Some(cq) = cq_entries {
                    options.cq_entries = cq;
                    options.sq_entries = options.sq_entries.min(cq);
                }
                match server {
                    ServerArg::Epoll => {
                        let server = chapter_04::server::EpollServer::new(
                            listener,
                            chapter_04::connection::Mode::Edge,
                        )?;
                        chapter_03::server::announce(server.local_addr()?)?;
                        server.run()?;
                    }
                    _ => chapter_10::fallback::serve(listener, options, force_fallback)?,
                }
                return Ok(());
            }
            Some(Command::Probe) => experiments::probe(&console)?,
            Some(Command::Overflow {
                cq_entries,
                operations,
            }) => experiments::overflow(&console, cq_entries, operations as usize)?,
            Some(Command::Steps { load }) => {
                let config =
                    load.config(if quick { 300 } else { 1_000 }, if quick { 1 } else { 5 });
                experiments::steps(&console, &config)?
            }
            Some(Command::Race {
                connections,
                duration,
                rounds,
                mode,
                compio,
                plot,
            }) => {
                let counts: Vec<usize> = if connections.is_empty() {
                    if quick {
                        vec![300]
                    } else {
                        vec![1_000, 10_000]
                    }
                } else {
                    connections.iter().map(|&n| n as usize).collect()
                };
                let config = RaceConfig {
                    connections: counts,
                    duration: Duration::from_secs(u64::from(duration.unwrap_or(if quick {
                        1
                    } else {
                        5
                    }))),
                    rounds: rounds.unwrap_or(if quick { 1 } else { 3 }) as usize,
                    step: mode.into(),
                    compio: compio.or_else(race::default_compio_path),
                    plot_dir: plot,
                };
                race::race(&console, &config)?
            }
        };
        console.finish(&report)?;
        Ok(())
    }
}
