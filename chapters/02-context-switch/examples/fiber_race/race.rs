//! The race itself, shared by the example's `main.rs` and by
//! `tests/fiber_race.rs`.
//!
//! Five contestants run the same loop: the main context switches to a fiber,
//! the fiber switches straight back, `round_trips` times. One is a
//! `corosensei` coroutine that suspends in a loop, resumed by the main
//! context. The others are the routines of `chapter_02::green_switch`: the
//! switch the scheduler uses; the one that saves every callee-saved register
//! by hand; the textbook naked function left by `ret`; and the second again
//! with the main context's MXCSR status flags set, as they are after any
//! arithmetic that rounded, and the fiber's clear. Every round times all five, in an order that rotates from round
//! to round, so that a noisy moment of the machine does not land on one
//! routine only.

use std::io;
use std::time::Instant;

use chapter_01::console::{Console, Report, human_duration_ns};
use chapter_01::machine::Machine;
use chapter_01::measure::Samples;
use chapter_02::green_switch::{self, Routine};
use corosensei::stack::DefaultStack;
use corosensei::{Coroutine, CoroutineResult, Yielder};

/// How long the race runs.
#[derive(Debug, Clone, Copy)]
pub struct Sizes {
    /// Rounds; each times every routine once.
    pub rounds: usize,
    /// Round trips (two switches each) per routine per round.
    pub round_trips: u64,
}

impl Sizes {
    /// Stable figures in a few seconds. Many short rounds rather than a few
    /// long ones: on a shared machine a long run is almost sure to be
    /// preempted at least once, a run of a millisecond or so mostly is not,
    /// and the median over rounds discards those that were.
    pub fn full() -> Sizes {
        Sizes {
            rounds: 101,
            round_trips: 200_000,
        }
    }

    /// Well under a second, for tests.
    pub fn quick() -> Sizes {
        Sizes {
            rounds: 5,
            round_trips: 50_000,
        }
    }
}

/// The contestants, in the order of the table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Contestant {
    Ours(Routine),
    Corosensei,
}

const CONTESTANTS: [Contestant; 5] = [
    Contestant::Ours(Routine::Inline),
    Contestant::Corosensei,
    Contestant::Ours(Routine::SavingAll),
    Contestant::Ours(Routine::ByCall),
    Contestant::Ours(Routine::SavingAllFlagsDiffer),
];

/// Where the two routines of the ratio are in [`CONTESTANTS`].
const OURS: usize = 0;
const COROSENSEI: usize = 1;

impl Contestant {
    fn label(self) -> &'static str {
        match self {
            Contestant::Ours(Routine::Inline) => {
                "ours: `switch` (compiler saves the live registers)"
            }
            Contestant::Ours(Routine::SavingAll) => "ours: `switch_saving_all` (saves all, jmp)",
            Contestant::Ours(Routine::SavingAllFlagsDiffer) => {
                "ours: `switch_saving_all`, MXCSR flags differing"
            }
            Contestant::Ours(Routine::ByCall) => "ours: `switch_by_call` (naked, saves all, ret)",
            Contestant::Corosensei => "corosensei 0.3: resume + suspend",
        }
    }

    fn key(self) -> &'static str {
        match self {
            Contestant::Ours(Routine::Inline) => "green_switch_ns",
            Contestant::Ours(Routine::SavingAll) => "green_switch_saving_all_ns",
            Contestant::Ours(Routine::SavingAllFlagsDiffer) => {
                "green_switch_saving_all_flags_differ_ns"
            }
            Contestant::Ours(Routine::ByCall) => "green_switch_by_call_ns",
            Contestant::Corosensei => "corosensei_switch_ns",
        }
    }

    fn time(self, round_trips: u64) -> io::Result<f64> {
        match self {
            Contestant::Ours(routine) => green_switch::raw_switch_ns(round_trips, routine),
            Contestant::Corosensei => corosensei_switch_ns(round_trips),
        }
    }
}

// ANCHOR: corosensei
/// Nanoseconds per one-way switch of a `corosensei` coroutine that suspends
/// in a loop, resumed `round_trips` times: the same loop as
/// `green_switch::raw_switch_ns`, on a stack of the same size.
fn corosensei_switch_ns(round_trips: u64) -> io::Result<f64> {
    let stack = DefaultStack::new(16 * 1024)?;
    let mut coroutine = Coroutine::with_stack(stack, |yielder: &Yielder<(), ()>, ()| {
        loop {
            yielder.suspend(());
        }
    });
    let start = Instant::now();
    for _ in 0..round_trips {
        if let CoroutineResult::Return(()) = coroutine.resume(()) {
            unreachable!("the coroutine never returns");
        }
    }
    let elapsed = start.elapsed();
    Ok(elapsed.as_nanos() as f64 / (2 * round_trips) as f64)
}
// ANCHOR_END: corosensei

/// Median, the 10th to 90th percentile, and the whole range.
fn spread(samples: &Samples, show: impl Fn(f64) -> String) -> String {
    format!(
        "{:>9}   {:>9} - {:<9}   {:>9} - {:<9}",
        show(samples.median_ns()),
        show(samples.percentile_ns(10.0)),
        show(samples.percentile_ns(90.0)),
        show(samples.min_ns()),
        show(samples.max_ns())
    )
}

/// Runs the race and reports every routine's median (`*_ns`), its spread
/// over the rounds (`*_p10_ns`, `*_p90_ns`, `*_min_ns`, `*_max_ns`), and
/// the same for the per-round ratio of our switch to corosensei's.
pub fn race(console: &Console, sizes: Sizes) -> io::Result<Report> {
    let machine = Machine::current();
    console.say(format!(
        "Fiber switch, ours against corosensei: {} rounds of {} round trips per routine, order rotating",
        sizes.rounds, sizes.round_trips
    ));
    console.say(format!("Measured on: {}", machine.describe()));
    // One untimed pass: page in the stacks and the code.
    for contestant in CONTESTANTS {
        contestant.time(sizes.round_trips / 10 + 1)?;
    }
    let mut times: Vec<Vec<f64>> = vec![Vec::new(); CONTESTANTS.len()];
    let mut ratios = Vec::new();
    for round in 0..sizes.rounds {
        let mut this_round = [0.0; CONTESTANTS.len()];
        for offset in 0..CONTESTANTS.len() {
            let which = (round + offset) % CONTESTANTS.len();
            this_round[which] = CONTESTANTS[which].time(sizes.round_trips)?;
        }
        for (which, ns) in this_round.iter().enumerate() {
            times[which].push(*ns);
        }
        ratios.push(this_round[OURS] / this_round[COROSENSEI]);
    }
    let times: Vec<Samples> = times.into_iter().map(Samples::from_ns).collect();
    let ratios = Samples::from_ns(ratios);

    console.say("");
    console.say(format!(
        "  {:<52} {:>9}   {:^21}   {:^21}",
        "one-way switch", "median", "p10 - p90", "min - max"
    ));
    for (contestant, samples) in CONTESTANTS.iter().zip(&times) {
        console.say(format!(
            "  {:<52} {}",
            contestant.label(),
            spread(samples, human_duration_ns)
        ));
    }
    console.say(format!(
        "  {:<52} {}",
        "ours / corosensei, per round",
        spread(&ratios, |r| format!("{r:.2}x"))
    ));
    console.say("");

    let mut report = Report::new("fiber-race");
    report.add("rounds", "rounds", sizes.rounds).add(
        "round_trips",
        "round trips per routine per round",
        sizes.round_trips,
    );
    for (contestant, samples) in CONTESTANTS.iter().zip(&times) {
        let key = contestant.key().trim_end_matches("_ns");
        report
            .add(contestant.key(), contestant.label(), samples.median_ns())
            .add(
                &format!("{key}_p10_ns"),
                "  10th percentile",
                samples.percentile_ns(10.0),
            )
            .add(
                &format!("{key}_p90_ns"),
                "  90th percentile",
                samples.percentile_ns(90.0),
            )
            .add(
                &format!("{key}_min_ns"),
                "  fastest round",
                samples.min_ns(),
            )
            .add(
                &format!("{key}_max_ns"),
                "  slowest round",
                samples.max_ns(),
            );
    }
    report
        .add(
            "ratio_vs_corosensei",
            "ours / corosensei (median of per-round ratios)",
            ratios.median_ns(),
        )
        .add(
            "ratio_vs_corosensei_p10",
            "  10th percentile",
            ratios.percentile_ns(10.0),
        )
        .add(
            "ratio_vs_corosensei_p90",
            "  90th percentile",
            ratios.percentile_ns(90.0),
        )
        .add("ratio_vs_corosensei_min", "  lowest round", ratios.min_ns())
        .add(
            "ratio_vs_corosensei_max",
            "  highest round",
            ratios.max_ns(),
        );
    chapter_01::experiments::add_machine(&mut report, &machine);
    Ok(report)
}
