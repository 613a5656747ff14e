//! The chapter's experiments as the binary runs them: measure, narrate,
//! report.
//!
//! Each public function is one subcommand of `chapter-02`; [`demo`] runs
//! them all in the chapter's order, then weighs the classic claims
//! ([`crate::claims`]) against what it measured. Every figure is the median
//! of several runs.

use std::error::Error;
use std::io;
use std::path::{Path, PathBuf};

use chapter_01::console::{Console, Report, human_duration_ns};
use chapter_01::machine::Machine;
use chapter_01::measure::Samples;
use serde_json::{Value, json};

use crate::cache_info;
use crate::cache_pollution::{self, SweepPoint};
use crate::claims::{self, Figures};
use crate::cpu_features::CpuFeatures;
use crate::future_switch;
use crate::green_switch::{self, Routine};
use crate::ping_pong::{self, PingPong, Placement, Token};
use crate::plots;
use crate::syscall_cost::{self, SyscallConfig};

/// What an experiment returns.
pub type Outcome = Result<Report, Box<dyn Error>>;

/// Sizes of every experiment, full or quick.
#[derive(Debug, Clone, Copy)]
pub struct Sizes {
    /// Repeated runs per figure (the median is kept).
    pub runs: usize,
    /// Syscall timing batches.
    pub syscall: SyscallConfig,
    /// Round trips per run with both sides on one CPU.
    pub same_cpu_round_trips: u64,
    /// Round trips per run across CPUs (each hand-off is a slow wake-up).
    pub cross_cpu_round_trips: u64,
    /// Walks per working-set size in the cache sweep.
    pub cache_repetitions: usize,
    /// Round trips per run of the raw fiber switch.
    pub green_round_trips: u64,
    /// Yields per fiber per run through the scheduler.
    pub green_yields: u64,
    /// Yields per run of the future.
    pub future_yields: u64,
    /// Whether the cache sweep visits every power of two.
    pub full_sweep: bool,
}

impl Sizes {
    /// Stable figures; the whole demo takes well under a minute.
    pub fn full() -> Sizes {
        Sizes {
            runs: 5,
            syscall: SyscallConfig::full(),
            same_cpu_round_trips: 50_000,
            cross_cpu_round_trips: 10_000,
            cache_repetitions: 9,
            green_round_trips: 5_000_000,
            green_yields: 1_000_000,
            future_yields: 10_000_000,
            full_sweep: true,
        }
    }

    /// A few seconds in all, for tests and CI.
    pub fn quick() -> Sizes {
        Sizes {
            runs: 3,
            syscall: SyscallConfig::quick(),
            same_cpu_round_trips: 2_000,
            cross_cpu_round_trips: 500,
            cache_repetitions: 3,
            green_round_trips: 200_000,
            green_yields: 100_000,
            future_yields: 500_000,
            full_sweep: false,
        }
    }
}

/// Runs `f` `runs` times and keeps every figure it returns.
fn repeat(runs: usize, mut f: impl FnMut() -> io::Result<f64>) -> io::Result<Samples> {
    let figures = (0..runs.max(1))
        .map(|_| f())
        .collect::<io::Result<Vec<_>>>()?;
    Ok(Samples::from_ns(figures))
}

fn spread(samples: &Samples) -> String {
    format!(
        "{} (min {}, max {})",
        human_duration_ns(samples.median_ns()),
        human_duration_ns(samples.min_ns()),
        human_duration_ns(samples.max_ns())
    )
}

/// Adds the machine's description to a report.
pub fn add_machine(report: &mut Report) {
    chapter_01::experiments::add_machine(report, &Machine::current());
}

/// `syscall`: entering the kernel against calling a function.
pub fn syscall(console: &Console, config: SyscallConfig) -> Outcome {
    console.say(format!(
        "A trivial system call against a function call ({} batches of {} calls)",
        config.batches, config.calls_per_batch
    ));
    let cost = syscall_cost::measure(config);
    let (sys, call) = (cost.syscall.median_ns(), cost.function_call.median_ns());
    console.say(format!(
        "  getppid via syscall(2): {}   function call: {}   ratio {:.0}x",
        human_duration_ns(sys),
        human_duration_ns(call),
        sys / call
    ));
    let mut report = Report::new("syscall");
    report
        .add("syscall_ns", "trivial system call (getppid)", sys)
        .add("function_call_ns", "function call", call)
        .add(
            "syscall_vs_function_call_ratio",
            "system call / function call",
            sys / call,
        );
    Ok(report)
}

/// One ping-pong configuration, `runs` times; returns the per-hand-off
/// samples and the median switches per round trip.
fn ping_pong_runs(
    runs: usize,
    mut one: impl FnMut() -> io::Result<Option<PingPong>>,
    mut step: impl FnMut(),
) -> io::Result<Option<(Samples, f64)>> {
    let mut ns = Vec::new();
    let mut switches = Vec::new();
    for _ in 0..runs.max(1) {
        let Some(run) = one()? else {
            return Ok(None);
        };
        ns.push(run.ns_per_handoff());
        switches.push(run.switches_per_round_trip());
        step();
    }
    Ok(Some((
        Samples::from_ns(ns),
        Samples::from_ns(switches).median_ns(),
    )))
}

/// `thread-switch`: two threads hand a token back and forth.
pub fn thread_switch(console: &Console, sizes: Sizes) -> Outcome {
    console.say(format!(
        "Two threads ping-pong a token: pinned to one CPU ({} round trips), then to two ({}); {} runs each",
        sizes.same_cpu_round_trips, sizes.cross_cpu_round_trips, sizes.runs
    ));
    let bar = console.progress(4 * sizes.runs as u64, "thread-switch");
    let mut report = Report::new("thread-switch");
    let configs = [
        (
            Token::Futex,
            Placement::SameCpu,
            "thread_switch_same_cpu_ns",
        ),
        (
            Token::Pipe,
            Placement::SameCpu,
            "thread_switch_same_cpu_pipe_ns",
        ),
        (
            Token::Futex,
            Placement::CrossCpu,
            "thread_switch_cross_cpu_ns",
        ),
        (
            Token::Pipe,
            Placement::CrossCpu,
            "thread_switch_cross_cpu_pipe_ns",
        ),
    ];
    let mut lines = Vec::new();
    for (token, placement, key) in configs {
        let round_trips = match placement {
            Placement::SameCpu => sizes.same_cpu_round_trips,
            Placement::CrossCpu => sizes.cross_cpu_round_trips,
        };
        let result = ping_pong_runs(
            sizes.runs,
            || ping_pong::threads(token, placement, round_trips),
            || bar.inc(1),
        )?;
        let label = format!(
            "thread hand-off, {}, {}",
            match placement {
                Placement::SameCpu => "one CPU",
                Placement::CrossCpu => "two CPUs",
            },
            match token {
                Token::Futex => "futex",
                Token::Pipe => "pipe",
            }
        );
        match result {
            Some((samples, switches)) => {
                lines.push(format!(
                    "  {label:<34} {}   {switches:.2} switches per round trip",
                    spread(&samples)
                ));
                report.add(key, &label, samples.median_ns());
                if key == "thread_switch_same_cpu_ns" {
                    report.add(
                        "thread_switches_per_round_trip",
                        "switches per round trip (futex, one CPU)",
                        switches,
                    );
                }
            }
            None => {
                lines.push(format!(
                    "  {label:<34} (needs two CPUs; this process may use one)"
                ));
                report.add(key, &label, Value::Null);
            }
        }
    }
    bar.finish_and_clear();
    for line in lines {
        console.say(line);
    }
    Ok(report)
}

/// `process-switch`: the same ping-pong between two processes on one CPU.
pub fn process_switch(console: &Console, sizes: Sizes) -> Outcome {
    console.say(format!(
        "A parent and a forked child ping-pong on one CPU ({} round trips, {} runs each)",
        sizes.same_cpu_round_trips, sizes.runs
    ));
    let bar = console.progress(2 * sizes.runs as u64, "process-switch");
    let mut report = Report::new("process-switch");
    let mut lines = Vec::new();
    for (token, key, label) in [
        (
            Token::Futex,
            "process_switch_same_cpu_ns",
            "process hand-off, one CPU, futex",
        ),
        (
            Token::Pipe,
            "process_switch_same_cpu_pipe_ns",
            "process hand-off, one CPU, pipe",
        ),
    ] {
        let (samples, switches) = ping_pong_runs(
            sizes.runs,
            || ping_pong::processes(token, sizes.same_cpu_round_trips).map(Some),
            || bar.inc(1),
        )?
        .expect("one CPU is always available");
        lines.push(format!(
            "  {label:<34} {}   {switches:.2} switches per round trip",
            spread(&samples)
        ));
        report.add(key, label, samples.median_ns());
        if token == Token::Futex {
            report.add(
                "process_switches_per_round_trip",
                "switches per round trip (futex, processes)",
                switches,
            );
        }
    }
    bar.finish_and_clear();
    for line in lines {
        console.say(line);
    }
    let cpu = CpuFeatures::current();
    console.say(format!(
        "  TLB tagged by address space (PCID/ASID): {}; Meltdown: {}",
        if cpu.tagged_tlb { "yes" } else { "no" },
        cpu.meltdown
    ));
    report
        .add(
            "cpu_tagged_tlb",
            "TLB tagged by address space (PCID)",
            cpu.tagged_tlb,
        )
        .add("meltdown_status", "Meltdown status", cpu.meltdown);
    Ok(report)
}

/// `cache-pollution`: the sweep, with its plot when `plot_dir` is given.
pub fn cache_pollution(console: &Console, sizes: Sizes, plot_dir: Option<&Path>) -> Outcome {
    let sizes_kib = if sizes.full_sweep {
        cache_pollution::full_sizes_kib()
    } else {
        cache_pollution::quick_sizes_kib()
    };
    let caches = cache_info::data_caches();
    console.say(format!(
        "Two threads on one CPU, each walking its own working set; {} walks per size",
        sizes.cache_repetitions
    ));
    if !caches.is_empty() {
        let list: Vec<String> = caches
            .iter()
            .map(|c| format!("L{} {} KiB", c.level, c.size_kib))
            .collect();
        console.say(format!("  data caches of CPU 0: {}", list.join(", ")));
    }
    let bar = console.progress(sizes_kib.len() as u64, "cache-pollution");
    let points = cache_pollution::sweep(&sizes_kib, sizes.cache_repetitions, || bar.inc(1))?;
    bar.finish_and_clear();
    console.say("  working set   ns/access after switch   no switch   extra per switch");
    for p in &points {
        console.say(format!(
            "  {:>8} KiB   {:>22.2}   {:>9.2}   {:>16}",
            p.working_set_kib,
            p.ns_per_access_after_switch,
            p.ns_per_access_no_switch,
            human_duration_ns(p.extra_ns_per_switch())
        ));
    }
    let mut report = Report::new("cache-pollution");
    for cache in &caches {
        report.add(
            &format!("cache_l{}_kib", cache.level),
            &format!("L{} cache", cache.level),
            cache.size_kib,
        );
    }
    report.add("cache_sweep", "cache sweep", sweep_json(&points));
    if let Some(dir) = plot_dir {
        let path = dir.join("cache-sweep.svg");
        let marks: Vec<(u32, u64)> = caches.iter().map(|c| (c.level, c.size_kib)).collect();
        plots::cache_sweep(&path, &points, &marks, &machine_label())?;
        console.say(format!("  plot written to {}", path.display()));
    }
    Ok(report)
}

fn sweep_json(points: &[SweepPoint]) -> Value {
    Value::Array(
        points
            .iter()
            .map(|p| {
                json!({
                    "working_set_kib": p.working_set_kib,
                    "ns_per_access_after_switch": p.ns_per_access_after_switch,
                    "ns_per_access_no_switch": p.ns_per_access_no_switch,
                })
            })
            .collect(),
    )
}

/// `green-switch`: the hand-written fiber switch, raw and scheduled.
///
/// The comparison with a production switch, `corosensei`'s, is an example of
/// its own (`cargo run --release -p chapter-02 --example fiber_race`):
/// `corosensei` is only a dev-dependency of this chapter, which this binary
/// cannot use.
pub fn green_switch(console: &Console, sizes: Sizes) -> Outcome {
    console.say(format!(
        "Hand-written fibers: {} raw round trips and {} scheduled yields per fiber, {} runs each",
        sizes.green_round_trips, sizes.green_yields, sizes.runs
    ));
    let raw = repeat(sizes.runs, || {
        green_switch::raw_switch_ns(sizes.green_round_trips, Routine::Inline)
    })?;
    let saving_all = repeat(sizes.runs, || {
        green_switch::raw_switch_ns(sizes.green_round_trips, Routine::SavingAll)
    })?;
    let by_call = repeat(sizes.runs, || {
        green_switch::raw_switch_ns(sizes.green_round_trips, Routine::ByCall)
    })?;
    let scheduled = repeat(sizes.runs, || {
        green_switch::scheduler_yield_ns(sizes.green_yields)
    })?;
    console.say(format!("  raw switch, live registers     {}", spread(&raw)));
    console.say(format!(
        "  raw switch, saving all, jmp    {}",
        spread(&saving_all)
    ));
    console.say(format!(
        "  raw switch, naked call, ret    {}",
        spread(&by_call)
    ));
    console.say(format!(
        "  yield through the scheduler    {}",
        spread(&scheduled)
    ));
    console.say(
        "  against corosensei's switch: cargo run --release -p chapter-02 --example fiber_race",
    );
    let mut report = Report::new("green-switch");
    report
        .add(
            "green_switch_ns",
            "fiber switch (raw, inline)",
            raw.median_ns(),
        )
        .add(
            "green_switch_saving_all_ns",
            "fiber switch (raw, saving all registers)",
            saving_all.median_ns(),
        )
        .add(
            "green_switch_by_call_ns",
            "fiber switch (raw, call + ret)",
            by_call.median_ns(),
        )
        .add(
            "green_yield_ns",
            "fiber yield (round-robin scheduler)",
            scheduled.median_ns(),
        )
        .add(
            "green_thread_stack_bytes",
            "stack per fiber",
            crate::green::scheduler::DEFAULT_STACK_BYTES,
        );
    Ok(report)
}

/// `future-switch`: resuming a future.
pub fn future_switch(console: &Console, sizes: Sizes) -> Outcome {
    console.say(format!(
        "A future that yields {} times, polled in a loop, {} runs",
        sizes.future_yields, sizes.runs
    ));
    let resume = repeat(sizes.runs, || {
        Ok(future_switch::resume_ns(sizes.future_yields))
    })?;
    console.say(format!("  resume (one poll)           {}", spread(&resume)));
    let mut report = Report::new("future-switch");
    report.add(
        "future_resume_ns",
        "future resume (one poll)",
        resume.median_ns(),
    );
    report.add(
        "future_bytes",
        "size of the yielding future",
        std::mem::size_of_val(&future_switch::yield_many(1)),
    );
    Ok(report)
}

fn machine_label() -> String {
    let m = Machine::current();
    format!("{}, {} CPUs", m.cpu, m.logical_cpus)
}

fn number(report: &Report, key: &str) -> f64 {
    report.get(key).and_then(Value::as_f64).unwrap_or(f64::NAN)
}

/// The guided demo: every experiment, the summary, and the claims.
pub fn demo(console: &Console, sizes: Sizes, plot_dir: Option<&Path>) -> Outcome {
    let machine = Machine::current();
    console.say("Chapter 2: the true price of a context switch");
    console.say(format!("Measured on: {}", machine.describe()));
    let steps: [(&str, &dyn Fn() -> Outcome); 6] = [
        ("1/6 Entering the kernel", &|| {
            syscall(console, sizes.syscall)
        }),
        ("2/6 Switching between threads", &|| {
            thread_switch(console, sizes)
        }),
        ("3/6 Switching between processes", &|| {
            process_switch(console, sizes)
        }),
        ("4/6 The indirect cost: caches", &|| {
            cache_pollution(console, sizes, plot_dir)
        }),
        ("5/6 A stackful switch in user space", &|| {
            green_switch(console, sizes)
        }),
        ("6/6 A stackless switch: a future", &|| {
            future_switch(console, sizes)
        }),
    ];
    let mut report = Report::new("demo");
    report.add("quick", "quick mode", !sizes.full_sweep);
    for (title, step) in steps {
        console.say("");
        console.say(title);
        report.extend(step()?);
    }

    let thread = number(&report, "thread_switch_same_cpu_ns");
    let green = number(&report, "green_switch_ns");
    report.add(
        "thread_vs_green_switch_ratio",
        "thread switch / fiber switch",
        thread / green,
    );
    let sweep = report
        .get("cache_sweep")
        .and_then(Value::as_array)
        .map(|rows| {
            rows.iter()
                .map(|r| SweepPoint {
                    working_set_kib: r["working_set_kib"].as_u64().unwrap_or(0),
                    ns_per_access_after_switch: r["ns_per_access_after_switch"]
                        .as_f64()
                        .unwrap_or(0.0),
                    ns_per_access_no_switch: r["ns_per_access_no_switch"].as_f64().unwrap_or(0.0),
                })
                .collect()
        })
        .unwrap_or_default();
    let figures = Figures {
        syscall_ns: number(&report, "syscall_ns"),
        thread_switch_ns: thread,
        process_switch_ns: number(&report, "process_switch_same_cpu_ns"),
        green_switch_ns: green,
        future_resume_ns: number(&report, "future_resume_ns"),
        sweep,
        llc_kib: cache_info::data_caches().last().map(|c| c.size_kib),
        cpu: CpuFeatures::current(),
    };
    if let Some(dir) = plot_dir {
        let mut bars = vec![
            ("function call", number(&report, "function_call_ns")),
            ("future resume", figures.future_resume_ns),
            ("fiber switch (asm)", green),
            ("fiber yield (scheduler)", number(&report, "green_yield_ns")),
            ("system call (getppid)", figures.syscall_ns),
            ("thread switch, one CPU", thread),
            ("process switch, one CPU", figures.process_switch_ns),
        ];
        let cross = number(&report, "thread_switch_cross_cpu_ns");
        if cross.is_finite() {
            bars.push(("thread wake-up, two CPUs", cross));
        }
        let path = dir.join("switch-costs.svg");
        plots::switch_costs(&path, &bars, &machine_label())?;
        console.say(format!("Plot written to {}", path.display()));
    }

    let verdicts = claims::judge(&figures);
    console.say("");
    console.say("The claims, against this run:");
    for v in &verdicts {
        console.say(format!(
            "- \"{}\": {}. {}.",
            v.claim,
            v.outcome.as_str(),
            v.evidence
        ));
    }
    console.say("");
    console.say("Summary");
    report.add(
        "claims",
        "claims weighed",
        Value::Array(
            verdicts
                .iter()
                .map(|v| json!({"claim": v.claim, "verdict": v.outcome.as_str(), "evidence": v.evidence}))
                .collect(),
        ),
    );
    chapter_01::experiments::add_machine(&mut report, &machine);
    Ok(report)
}

/// Creates the plot directory if asked for one.
pub fn prepare_plot_dir(dir: Option<PathBuf>) -> io::Result<Option<PathBuf>> {
    if let Some(dir) = &dir {
        std::fs::create_dir_all(dir).map_err(|err| {
            io::Error::new(
                err.kind(),
                format!("cannot create {}: {err}", dir.display()),
            )
        })?;
    }
    Ok(dir)
}
