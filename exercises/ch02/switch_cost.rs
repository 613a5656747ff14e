//! Exercise ch02_switch_cost: from ping-pong runs to the price of a switch.
//!
//! Chapter 2 measures a context switch with a ping-pong: two threads pinned
//! to one CPU pass a token back and forth `round_trips` times. Each round
//! trip is two hand-offs, and each hand-off should be one context switch.
//! Turn a set of such runs into one honest figure. Write [`switch_cost_ns`]:
//!
//! * the cost of one run is `elapsed / (2 x round_trips)`, in nanoseconds;
//! * a run proves that it switched only if it recorded at least 1.5
//!   switches (voluntary plus involuntary) per round trip; a run that did
//!   not (the threads were not on one CPU, say) measured something else and
//!   is left out;
//! * the answer is the **median** cost of the runs that count (the mean of
//!   the two middle ones for an even count), because a few runs slowed down
//!   by a noisy neighbour must not move it;
//! * no runs, or no run that counts, is an error, as is a run with zero
//!   round trips.
//!
//! Check: `cargo run -p exercises -- check ch02_switch_cost`. Hint:
//! `cargo run -p exercises -- hint ch02_switch_cost`.

use std::time::Duration;

/// One ping-pong run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Run {
    /// Round trips timed.
    pub round_trips: u64,
    /// Time they took.
    pub elapsed: Duration,
    /// Context switches (voluntary + involuntary) of both threads meanwhile.
    pub switches: u64,
}

/// Why no figure could be given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CostError {
    /// There were no runs at all.
    NoRuns,
    /// Run number `index` has zero round trips.
    EmptyRun {
        /// Its position in the input.
        index: usize,
    },
    /// No run switched often enough to count.
    NoRealSwitches,
}

/// The median nanoseconds per hand-off over the runs that really switched.
pub fn switch_cost_ns(runs: &[Run]) -> Result<f64, CostError> {
    todo!("{} runs to weigh", runs.len())
}
