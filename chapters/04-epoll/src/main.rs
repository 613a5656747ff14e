//! `chapter-04`: non-blocking I/O and a hand-written epoll loop.
//!
//! With no subcommand it runs the chapter's guided demo. `serve` runs the
//! epoll server (or, with `--server threads`, Chapter 3's) as the harness
//! expects: it prints `listening on ADDR` when ready.

#[cfg(target_os = "linux")]
fn main() -> std::process::ExitCode {
    linux::main()
}

#[cfg(not(target_os = "linux"))]
fn main() -> std::process::ExitCode {
    eprintln!(
        "error: chapter-04 programs epoll, which only Linux has (the book describes kqueue and IOCP)"
    );
    std::process::ExitCode::FAILURE
}

#[cfg(target_os = "linux")]
mod linux {
    use std::net::SocketAddr;
    use std::path::PathBuf;
    use std::process::ExitCode;

    use chapter_01::console::{self, Console};
    use chapter_03::experiments::{self as ch03, LoadArgs};
    use chapter_03::limits;
    use chapter_04::connection::Mode;
    use chapter_04::experiments;
    use clap::{Parser, Subcommand, ValueEnum};

    /// Chapter 4: one thread, ten thousand connections, the kernel telling it
    /// which are ready (epoll, by hand).
    ///
    /// With no command, runs the guided demo (the edge-triggered bug, poll
    /// against epoll, threads against epoll at 10,000 connections). Use
    /// --release: `cargo run --release -p chapter-04`.
    #[derive(Debug, Parser)]
    #[command(name = "chapter-04", version)]
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
    enum ModeArg {
        /// Level-triggered.
        Lt,
        /// Edge-triggered.
        Et,
    }

    impl From<ModeArg> for Mode {
        fn from(mode: ModeArg) -> Mode {
            match mode {
                ModeArg::Lt => Mode::Level,
                ModeArg::Et => Mode::Edge,
            }
        }
    }

    #[derive(Debug, Clone, Copy, ValueEnum)]
    enum ServerArg {
        /// This chapter's single-threaded epoll server.
        Epoll,
        /// Chapter 3's thread-per-connection server.
        Threads,
    }

    #[derive(Debug, Subcommand)]
    enum Command {
        /// Run an echo server; prints `listening on ADDR`.
        Serve {
            /// Address to listen on (port 0: any free port).
            #[arg(long, default_value = "127.0.0.1:7004")]
            addr: SocketAddr,
            /// Which server.
            #[arg(long, value_enum, default_value_t = ServerArg::Epoll)]
            server: ServerArg,
            /// Level- or edge-triggered (the epoll server).
            #[arg(long, value_enum, default_value_t = ModeArg::Et)]
            mode: ModeArg,
            /// Lower the open-file limit to this many descriptors (to watch EMFILE).
            #[arg(long, value_parser = clap::value_parser!(u64).range(16..))]
            fd_limit: Option<u64>,
        },
        /// Load the epoll server with Chapter 3's harness (same keys as Chapter 3).
        C10k {
            #[command(flatten)]
            load: LoadArgs,
            /// Level- or edge-triggered.
            #[arg(long, value_enum, default_value_t = ModeArg::Et)]
            mode: ModeArg,
        },
        /// The threads server and the epoll server through the same harness, in one run.
        Compare {
            #[command(flatten)]
            load: LoadArgs,
            /// Level- or edge-triggered (the epoll server).
            #[arg(long, value_enum, default_value_t = ModeArg::Et)]
            mode: ModeArg,
        },
        /// Both servers at 100 to 10,000 connections at a fixed rate; --plot writes SVG plots.
        Sweep {
            #[command(flatten)]
            load: LoadArgs,
            /// Write the plots into this directory.
            #[arg(long, value_name = "DIR", value_parser = chapter_01::console::output_dir)]
            plot: Option<PathBuf>,
        },
        /// What one wait costs with N idle descriptors, for poll(2) and epoll.
        PollVsEpoll {
            /// Write the plot into this directory.
            #[arg(long, value_name = "DIR", value_parser = chapter_01::console::output_dir)]
            plot: Option<PathBuf>,
        },
        /// The edge-triggered bug (one read per edge) measured against the fixes.
        EtBug {
            /// Bytes the client sends in one write.
            #[arg(long, default_value_t = 65536, value_parser = clap::value_parser!(u32).range(8193..=4_194_304))]
            message_bytes: u32,
        },
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
                server,
                mode,
                fd_limit,
            }) => {
                return match server {
                    ServerArg::Threads => Ok(chapter_03::server::serve_threads(
                        addr,
                        None,
                        chapter_03::server::default_max_connections(),
                    )?),
                    ServerArg::Epoll => {
                        if let Some(limit) = fd_limit {
                            // Raise first (to the hard limit), then lower.
                            let hard = limits::raise_fd_limit()?;
                            if limit > hard {
                                return Err(format!(
                                    "--fd-limit {limit} is above this process's open-file limit, {hard}: it can only lower it"
                                )
                                .into());
                            }
                            limits::set_fd_limit(limit)?;
                            let listener = chapter_03::server::listener(addr)
                                .map_err(|err| format!("cannot bind {addr}: {err}"))?;
                            let server =
                                chapter_04::server::EpollServer::new(listener, mode.into())?;
                            chapter_03::server::announce(server.local_addr()?)?;
                            Ok(server.run()?)
                        } else {
                            Ok(chapter_04::server::serve(addr, mode.into())?)
                        }
                    }
                };
            }
            Some(Command::C10k { load, mode }) => {
                let config =
                    load.config(if quick { 500 } else { 10_000 }, if quick { 1 } else { 5 });
                ch03::c10k(&console, &experiments::epoll_spec(mode.into())?, &config)?
            }
            Some(Command::Compare { load, mode }) => {
                let config =
                    load.config(if quick { 500 } else { 10_000 }, if quick { 1 } else { 5 });
                experiments::compare(&console, mode.into(), &config)?
            }
            Some(Command::Sweep { load, plot }) => {
                let mut config = load.config(0, if quick { 1 } else { 5 });
                config.rate = config.rate.or(Some(chapter_03::sweep::DEFAULT_RATE));
                let points: Vec<usize> = match load.connections {
                    Some(n) => vec![n as usize],
                    None if quick => chapter_03::sweep::QUICK_POINTS.to_vec(),
                    None => chapter_03::sweep::FULL_POINTS.to_vec(),
                };
                if let Some(dir) = &plot {
                    std::fs::create_dir_all(dir)
                        .map_err(|err| format!("cannot create {}: {err}", dir.display()))?;
                }
                let specs = [
                    experiments::threads_spec()?,
                    experiments::epoll_spec(Mode::Edge)?,
                ];
                ch03::sweep_servers(&console, &specs, &points, &config, plot.as_deref())?
            }
            Some(Command::PollVsEpoll { plot }) => {
                if let Some(dir) = &plot {
                    std::fs::create_dir_all(dir)
                        .map_err(|err| format!("cannot create {}: {err}", dir.display()))?;
                }
                let counts: &[usize] = if quick {
                    &experiments::QUICK_COUNTS
                } else {
                    &experiments::FULL_COUNTS
                };
                experiments::poll_vs_epoll(
                    &console,
                    counts,
                    if quick { 5 } else { 15 },
                    plot.as_deref(),
                )?
            }
            Some(Command::EtBug { message_bytes }) => {
                experiments::et_bug(&console, message_bytes as usize)?
            }
        };
        console.finish(&report)?;
        Ok(())
    }
}
