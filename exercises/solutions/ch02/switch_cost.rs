//! Reference solution for ch02_switch_cost.

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
    if runs.is_empty() {
        return Err(CostError::NoRuns);
    }
    if let Some(index) = runs.iter().position(|r| r.round_trips == 0) {
        return Err(CostError::EmptyRun { index });
    }
    let mut costs: Vec<f64> = runs
        .iter()
        .filter(|r| r.switches as f64 >= 1.5 * r.round_trips as f64)
        .map(|r| r.elapsed.as_nanos() as f64 / (2 * r.round_trips) as f64)
        .collect();
    if costs.is_empty() {
        return Err(CostError::NoRealSwitches);
    }
    costs.sort_by(f64::total_cmp);
    let n = costs.len();
    Ok(if n % 2 == 1 {
        costs[n / 2]
    } else {
        (costs[n / 2 - 1] + costs[n / 2]) / 2.0
    })
}
