//! Side-by-side benchmarks of this chapter's runtime against Tokio and
//! async-executor, in one process and one run:
//!
//! ```sh
//! cargo run --release -p chapter-07 --example compare -- scheduler [--quick] [--json] [--workers N]
//! ```
//!
//! Tokio and async-executor are dev-dependencies of the chapter, used only
//! here and in `benches/`.

#[cfg(not(loom))]
mod runtimes;
#[cfg(not(loom))]
mod scheduler;
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
    use super::{scheduler, workloads};
    use chapter_01::console::{Console, exit_code, parse_args};
    use clap::{Parser, Subcommand, ValueEnum};
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
            /// Rounds per workload (default: 15, or 5 with --quick)
            #[arg(long, value_parser = clap::value_parser!(u16).range(1..=1000))]
            rounds: Option<u16>,
            /// Only this workload (repeat for several)
            #[arg(long, value_enum)]
            only: Vec<WorkloadArg>,
        },
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
            } => {
                let console = Console::new(json);
                let workers = workers
                    .map(usize::from)
                    .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, usize::from));
                let config = scheduler::Config {
                    workers,
                    rounds: rounds
                        .map(usize::from)
                        .unwrap_or(if quick { 5 } else { 15 }),
                    sample: Duration::from_millis(if quick { 20 } else { 50 }),
                    only: only.into_iter().map(Into::into).collect(),
                };
                let report = scheduler::run(&console, &config);
                if json {
                    println!("{}", serde_json::to_string_pretty(&report)?);
                }
                Ok(())
            }
        }
    }
}
