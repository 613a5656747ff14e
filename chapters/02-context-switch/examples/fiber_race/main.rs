//! Our fiber switch against `corosensei`'s, side by side in one process:
//!
//! ```sh
//! cargo run --release -p chapter-02 --example fiber_race -- [--quick] [--rounds N] [--json]
//! ```
//!
//! Each round times every routine once, the same loop for all (the main
//! context resumes a fiber that switches straight back, a few million
//! times), in an order that alternates from round to round; the table gives
//! each routine's median over the rounds and its range, and the median of
//! the per-round ratios of our switch to `corosensei`'s.
//!
//! `corosensei` is a dev-dependency of this chapter, used only here and in
//! `tests/fiber_race.rs`; that is why this comparison is an example and not
//! a subcommand of the `chapter-02` binary, which cannot use it.
//!
//! Book: Chapter 2, "A switch in user space".

mod race;

use std::process::ExitCode;

use chapter_01::console::{self, Console};
use clap::Parser;

/// Chapter 2's fiber switch against corosensei's, alternating rounds in one
/// process.
#[derive(Debug, Parser)]
#[command(name = "fiber_race")]
struct Args {
    /// Fewer, shorter rounds (well under a second).
    #[arg(long)]
    quick: bool,
    /// Print one JSON object on stdout instead of a table.
    #[arg(long)]
    json: bool,
    /// Rounds, each timing every routine once [default: 101, quick: 5].
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=1000))]
    rounds: Option<u32>,
}

fn main() -> ExitCode {
    let args: Args = console::parse_args();
    console::exit_code(run(args))
}

fn run(args: Args) -> Result<(), Box<dyn std::error::Error>> {
    let console = Console::new(args.json);
    let mut sizes = if args.quick {
        race::Sizes::quick()
    } else {
        race::Sizes::full()
    };
    if let Some(rounds) = args.rounds {
        sizes.rounds = rounds as usize;
    }
    let report = race::race(&console, sizes)?;
    console.finish(&report)?;
    Ok(())
}
