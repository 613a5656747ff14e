//! Side-by-side benchmarks of this chapter's runtime against Tokio and
//! async-executor, in one process and one run:
//!
//! ```sh
//! cargo run --release -p chapter-07 --example compare -- scheduler [--quick] [--json] [--workers N]
//! cargo run --release -p chapter-07 --example compare -- scheduler --flavor current-thread [--quick] [--json]
//! cargo run --release -p chapter-07 --example compare -- echo --connections 1000 --duration 5 [--json]
//! cargo run --release -p chapter-07 --example compare -- timers [--quick] [--json]
//! cargo run --release -p chapter-07 --example compare -- sync [--quick] [--json] [--rounds N]
//! cargo run --release -p chapter-07 --example compare -- channels [--json] [--rounds N]
//! cargo run --release -p chapter-07 --example compare -- http [--duration 10] [--rounds 3] [--idle 10000] [--json]
//! ```
//!
//! Tokio and async-executor are dev-dependencies of the chapter, used only
//! here and in `benches/`.

#[cfg(not(loom))]
mod channels;
#[cfg(not(loom))]
mod echo;
#[cfg(not(loom))]
mod http;
#[cfg(not(loom))]
mod plot;
#[cfg(not(loom))]
mod runtimes;
#[cfg(not(loom))]
mod scheduler;
#[cfg(not(loom))]
mod sync;
#[cfg(not(loom))]
mod timers;
#[cfg(not(loom))]
mod workloads;

#[cfg(not(loom))]
fn main() -> std::process::ExitCode {
    app::main()
}

// Under `--cfg loom` the comparison runtimes are not built.
#[cfg(loom)]
fn main() {}

#[cfg(not(loom))]
mod app {
    use super::{channels, echo, http, plot, scheduler, sync, timers, workloads};
    use chapter_01::console::{Console, exit_code, parse_args};
    use clap::{Parser, Subcommand, ValueEnum};
    use std::net::SocketAddr;
    use std::process::ExitCode;
    use std::time::Duration;

    #[derive(Parser)]
    #[command(about = "This chapter's runtime against Tokio and async-executor, side by side")]
    struct Args {
        #[command(subcommand)]
        experiment: Experiment,
    }

    #[derive(Subcommand)]
    enum Experiment {
        /// Tokio's scheduler workloads (spawn, yield, ping-pong, chains)
        Scheduler {
            /// Fewer, shorter rounds (about 15 s in all)
            #[arg(long)]
            quick: bool,
            /// Print one JSON object instead of a table
            #[arg(long)]
            json: bool,
            /// Worker threads per runtime (default: logical CPUs)
            #[arg(long, value_parser = clap::value_parser!(u16).range(1..=256))]
            workers: Option<u16>,
            /// Rounds per workload (default: 31, or 5 with --quick)
            #[arg(long, value_parser = clap::value_parser!(u16).range(1..=1000))]
            rounds: Option<u16>,
            /// Only this workload (repeat for several)
            #[arg(long, value_enum)]
            only: Vec<WorkloadArg>,
            /// Which runtimes: multi-thread, or current-thread (ours and Tokio's, with ours on 1 worker for reference; --workers is not used)
            #[arg(long, value_enum, default_value_t = FlavorArg::MultiThread)]
            flavor: FlavorArg,
            /// Also draw the times as an SVG plot into this directory (multi-thread flavor)
            #[arg(long, value_name = "DIR", value_parser = chapter_01::console::output_dir)]
            plot: Option<std::path::PathBuf>,
        },
        /// The scheduler workloads on our runtime with metrics on and off
        Metrics {
            /// Fewer, shorter rounds
            #[arg(long)]
            quick: bool,
            /// Print one JSON object instead of a table
            #[arg(long)]
            json: bool,
            /// Worker threads (default: logical CPUs)
            #[arg(long, value_parser = clap::value_parser!(u16).range(1..=256))]
            workers: Option<u16>,
            /// Rounds per workload (default: 61, or 11 with --quick)
            #[arg(long, value_parser = clap::value_parser!(u16).range(1..=1000))]
            rounds: Option<u16>,
        },
        /// Chapter 3's echo load against this runtime's echo server and Tokio's
        Echo {
            /// Connections held open during the load
            #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u32).range(1..=20_000))]
            connections: u32,
            /// Seconds of load per server
            #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u32).range(1..=3600))]
            duration: u32,
            /// Rounds (each runs both servers, alternating which goes first; ratios are medians over rounds)
            #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u32).range(1..=100))]
            rounds: u32,
            /// Worker threads per server (default: logical CPUs, on both runtimes)
            #[arg(long, value_parser = clap::value_parser!(u16).range(1..=256))]
            workers: Option<u16>,
            /// Print one JSON object instead of a table
            #[arg(long)]
            json: bool,
        },
        /// The timing wheel against a binary heap, and a million sleeps on both runtimes
        Timers {
            /// Smaller sizes (a few seconds)
            #[arg(long)]
            quick: bool,
            /// Print one JSON object instead of a table
            #[arg(long)]
            json: bool,
        },
        /// mpsc throughput (bounded and unbounded, 1 and 8 senders) on ours and Tokio
        Channels {
            /// Print one JSON object instead of a table
            #[arg(long)]
            json: bool,
            /// Rounds per case (default: 21)
            #[arg(long, default_value_t = 21, value_parser = clap::value_parser!(u16).range(1..=1000))]
            rounds: u16,
            /// Values sent per sample
            #[arg(long, default_value_t = 100_000, value_parser = clap::value_parser!(u32).range(8..=100_000_000))]
            messages: u32,
            /// Worker threads per runtime (default: logical CPUs)
            #[arg(long, value_parser = clap::value_parser!(u16).range(1..=256))]
            workers: Option<u16>,
            /// Also draw the results as an SVG plot into this directory
            #[arg(long, value_name = "DIR", value_parser = chapter_01::console::output_dir)]
            plot: Option<std::path::PathBuf>,
        },
        /// Mutex, semaphore, std::sync::Mutex, JoinSet and mpsc on both runtimes
        Sync {
            /// Print one JSON object instead of a table
            #[arg(long)]
            json: bool,
            /// Fewer rounds, shorter samples, 10,000 tasks per JoinSet sample
            #[arg(long)]
            quick: bool,
            /// Rounds per primitive (default: 21, or 5 with --quick)
            #[arg(long, value_parser = clap::value_parser!(u16).range(1..=1000))]
            rounds: Option<u16>,
            /// Worker threads per runtime (default: logical CPUs)
            #[arg(long, value_parser = clap::value_parser!(u16).range(1..=256))]
            workers: Option<u16>,
            /// Also draw the results as an SVG plot into this directory
            #[arg(long, value_name = "DIR", value_parser = chapter_01::console::output_dir)]
            plot: Option<std::path::PathBuf>,
        },
        /// The HTTP server (hyper) on ours and Tokio, each in its own process, under wrk
        Http {
            /// Print one JSON object instead of a table
            #[arg(long)]
            json: bool,
            /// Seconds per wrk run
            #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..=3600))]
            duration: u64,
            /// Rounds, alternating which runtime goes first
            #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u16).range(1..=100))]
            rounds: u16,
            /// wrk's connection counts
            #[arg(long, value_delimiter = ',', default_value = "50,1000",
                  value_parser = clap::value_parser!(u32).range(1..=100_000))]
            connections: Vec<u32>,
            /// Idle keep-alive connections for the memory measurement (0: skip)
            #[arg(long, default_value_t = 10_000, value_parser = clap::value_parser!(u64).range(0..=15_000))]
            idle: u64,
            /// Also draw requests/s and p99 as SVG plots into this directory
            #[arg(long, value_name = "DIR", value_parser = chapter_01::console::output_dir)]
            plot: Option<std::path::PathBuf>,
        },
        /// Run one echo server (the harness starts these as child processes)
        #[command(hide = true)]
        Serve {
            #[arg(long, value_enum)]
            runtime: RuntimeArg,
            #[arg(long, default_value = "127.0.0.1:0")]
            addr: SocketAddr,
            /// Worker threads (default: logical CPUs)
            #[arg(long, value_parser = clap::value_parser!(u16).range(1..=256))]
            workers: Option<u16>,
        },
    }

    #[derive(Clone, Copy, ValueEnum)]
    enum RuntimeArg {
        Ours,
        Tokio,
        /// The floor: Chapter 4's epoll loop (one thread, no runtime).
        Epoll,
    }

    #[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
    enum FlavorArg {
        MultiThread,
        CurrentThread,
    }

    #[derive(Clone, Copy, ValueEnum)]
    enum WorkloadArg {
        SpawnManyLocal,
        SpawnManyRemoteIdle,
        SpawnManyRemoteBusy1,
        YieldMany,
        PingPong,
        ChainedSpawn,
    }

    impl From<WorkloadArg> for workloads::Workload {
        fn from(arg: WorkloadArg) -> workloads::Workload {
            use workloads::Workload as W;
            match arg {
                WorkloadArg::SpawnManyLocal => W::SpawnManyLocal,
                WorkloadArg::SpawnManyRemoteIdle => W::SpawnManyRemoteIdle,
                WorkloadArg::SpawnManyRemoteBusy1 => W::SpawnManyRemoteBusy1,
                WorkloadArg::YieldMany => W::YieldMany,
                WorkloadArg::PingPong => W::PingPong,
                WorkloadArg::ChainedSpawn => W::ChainedSpawn,
            }
        }
    }

    pub fn main() -> ExitCode {
        let args: Args = parse_args();
        exit_code(run(args))
    }

    fn run(args: Args) -> Result<(), Box<dyn std::error::Error>> {
        match args.experiment {
            Experiment::Scheduler {
                quick,
                json,
                workers,
                rounds,
                only,
                flavor,
                plot,
            } => {
                let console = Console::new(json);
                let workers = workers
                    .map(usize::from)
                    .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, usize::from));
                let config = scheduler::Config {
                    workers,
                    rounds: rounds
                        .map(usize::from)
                        .unwrap_or(if quick { 5 } else { 31 }),
                    sample: Duration::from_millis(if quick { 20 } else { 50 }),
                    only: only.into_iter().map(Into::into).collect(),
                };
                let report = match flavor {
                    FlavorArg::MultiThread => scheduler::run(&console, &config),
                    FlavorArg::CurrentThread => scheduler::run_current_thread(&console, &config),
                };
                if let Some(dir) = plot {
                    if flavor != FlavorArg::MultiThread {
                        return Err("--plot draws the multi-thread comparison only".into());
                    }
                    let path = plot::scheduler(&dir, &report)?;
                    console.say(format!("Wrote {}", path.display()));
                }
                if json {
                    println!("{}", serde_json::to_string_pretty(&report)?);
                }
                Ok(())
            }
            Experiment::Metrics {
                quick,
                json,
                workers,
                rounds,
            } => {
                let console = Console::new(json);
                let workers = workers
                    .map(usize::from)
                    .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, usize::from));
                let config = scheduler::Config {
                    workers,
                    rounds: rounds
                        .map(usize::from)
                        .unwrap_or(if quick { 11 } else { 61 }),
                    sample: Duration::from_millis(if quick { 20 } else { 30 }),
                    only: Vec::new(),
                };
                let report = scheduler::metrics(&console, &config);
                if json {
                    println!("{}", serde_json::to_string_pretty(&report)?);
                }
                Ok(())
            }
            Experiment::Echo {
                connections,
                duration,
                rounds,
                workers,
                json,
            } => {
                let console = Console::new(json);
                let config = echo::config(
                    connections as usize,
                    Duration::from_secs(u64::from(duration)),
                );
                let report =
                    echo::compare(&console, &config, rounds as usize, workers.map(usize::from))?;
                if json {
                    println!("{}", serde_json::to_string_pretty(&report)?);
                }
                Ok(())
            }
            Experiment::Timers { quick, json } => {
                let console = Console::new(json);
                let report = timers::compare(&console, quick);
                if json {
                    println!("{}", serde_json::to_string_pretty(&report)?);
                }
                Ok(())
            }
            Experiment::Channels {
                json,
                rounds,
                messages,
                workers,
                plot,
            } => {
                let console = Console::new(json);
                let config = channels::Config {
                    workers: workers.map(usize::from).unwrap_or_else(|| {
                        std::thread::available_parallelism().map_or(1, usize::from)
                    }),
                    rounds: usize::from(rounds),
                    messages: messages as usize,
                };
                let report = channels::compare(&console, &config);
                if let Some(dir) = plot {
                    let path = plot::channels(&dir, &report)?;
                    console.say(format!("Wrote {}", path.display()));
                }
                if json {
                    println!("{}", serde_json::to_string_pretty(&report)?);
                }
                Ok(())
            }
            Experiment::Sync {
                json,
                quick,
                rounds,
                workers,
                plot,
            } => {
                let console = Console::new(json);
                let config = sync::Config {
                    workers: workers.map(usize::from).unwrap_or_else(|| {
                        std::thread::available_parallelism().map_or(1, usize::from)
                    }),
                    rounds: usize::from(rounds.unwrap_or(if quick { 5 } else { 21 })),
                    sample: Duration::from_millis(if quick { 10 } else { 30 }),
                    joinset_tasks: if quick { 10_000 } else { 100_000 },
                };
                let report = sync::run(&console, &config);
                if let Some(dir) = plot {
                    let path = plot::sync(&dir, &report)?;
                    console.say(format!("Wrote {}", path.display()));
                }
                if json {
                    println!("{}", serde_json::to_string_pretty(&report)?);
                }
                Ok(())
            }
            Experiment::Http {
                json,
                duration,
                rounds,
                connections,
                idle,
                plot,
            } => {
                let console = Console::new(json);
                let config = http::Config {
                    connections,
                    duration: Duration::from_secs(duration),
                    rounds: usize::from(rounds),
                    idle: idle as usize,
                };
                let report = http::compare(&console, &config)?;
                if let Some(dir) = plot {
                    for path in plot::http(&dir, &report)? {
                        console.say(format!("Wrote {}", path.display()));
                    }
                }
                if json {
                    println!("{}", serde_json::to_string_pretty(&report)?);
                }
                Ok(())
            }
            Experiment::Serve {
                runtime,
                addr,
                workers,
            } => {
                let server = match runtime {
                    RuntimeArg::Ours => echo::Server::Ours,
                    RuntimeArg::Tokio => echo::Server::Tokio,
                    RuntimeArg::Epoll => echo::Server::Epoll,
                };
                Ok(echo::serve(server, addr, workers.map(usize::from))?)
            }
        }
    }
}
