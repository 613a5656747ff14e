//! Every measured table of Chapters 7 to 9, from one run.
//!
//! Each function here runs what a page's own command runs (the demo's
//! library functions in `chapters/07-runtime/demo/src`, or the compare
//! example's modules), as many times as the page's caption says, and writes
//! the page's table into `book/src/generated/measured/` (see `measured.rs`).
//! The pages `{{#include}}` those files, so one `report` run on one host
//! regenerates all of them, each naming that host.
//!
//! Two runs serve several tables: the scheduler workloads of the appendix
//! (the `ch07-racing-tokio` table and the two-worker column of the workers
//! table) and the echo race against Tokio (`ch07-racing-tokio` and
//! `ch07-io`). The HTTP table needs `wrk`; without it, the old file stays
//! and the run says so.
//!
//! Book: Chapters 7 to 9.

use super::measured::{
    COMMAND, Quote, Spread, Table, count, d1, d2, d3, duration, quote, quotes, sig3, spread,
};
use super::{channels, echo, http, scheduler, sync};
use chapter_01::console::Console;
use serde_json::Value;
use std::error::Error;
use std::path::PathBuf;
use std::time::{Duration, Instant};

type R<T = ()> = Result<T, Box<dyn Error>>;

/// The run's settings, and what it has produced so far.
pub struct Chapters<'a> {
    pub console: &'a Console,
    /// Small sizes and two runs of everything: to check the machinery.
    pub quick: bool,
    /// Runs of each repeated experiment, instead of each page's own count.
    pub runs: Option<usize>,
    /// Where the tables go (`book/src/generated/measured`).
    pub dir: PathBuf,
    pub machine: String,
    pub date: String,
    /// Only the pages whose name starts with one of these (all if empty).
    pub only: Vec<String>,
    /// The figures the prose quotes, for `figures.json`.
    pub quotes: Vec<Quote>,
    /// Seconds each part took.
    pub timings: Vec<(String, f64)>,
    /// Files written, and tables left as they were (with why).
    pub written: Vec<PathBuf>,
    pub kept: Vec<String>,
}

/// The parts of a run, in order: each names the pages whose tables it
/// writes (`--only ch08-s`, say, runs every part naming a page that starts
/// so).
pub const PARTS: [&str; 13] = [
    "ch07-budget-blocking (coop, blocking, files) and ch07-time (ticker)",
    "ch07-checking (loom interleavings, from the CSV)",
    "ch07-racing-tokio and ch07-io (echo, scheduler)",
    "ch07-racing-tokio (one worker against two)",
    "ch07-observability (echo under load, metrics)",
    "ch07-scheduler (workers, lifo, interval)",
    "ch07-time (timers)",
    "ch08-channels (mpsc)",
    "ch08-select (cancel)",
    "ch08-signals (graceful shutdown)",
    "ch08-sync (locks)",
    "ch08-task-handles (JoinSet)",
    "ch09-http (wrk)",
];

/// The pages with measured tables, for `--only`'s error message.
pub const PAGES: [&str; 13] = [
    "ch07-budget-blocking",
    "ch07-checking",
    "ch07-io",
    "ch07-observability",
    "ch07-racing-tokio",
    "ch07-scheduler",
    "ch07-time",
    "ch08-channels",
    "ch08-select",
    "ch08-signals",
    "ch08-sync",
    "ch08-task-handles",
    "ch09-http",
];

/// The value at `key` of each run (a JSON pointer if it starts with `/`).
fn col(runs: &[Value], key: &str) -> Spread {
    let values: Vec<f64> = runs
        .iter()
        .filter_map(|v| {
            if key.starts_with('/') {
                v.pointer(key)
            } else {
                v.get(key)
            }
            .and_then(Value::as_f64)
        })
        .collect();
    spread(&values)
}

fn num(v: &Value, key: &str) -> f64 {
    if key.starts_with('/') {
        v.pointer(key)
    } else {
        v.get(key)
    }
    .and_then(Value::as_f64)
    .unwrap_or(f64::NAN)
}

/// Milliseconds, four significant figures: 1.007, 20.21, 1,999.1.
fn ms(x: f64) -> String {
    if x >= 1000.0 {
        format!("{},{:05.1}", (x / 1000.0).floor(), x % 1000.0)
    } else if x >= 100.0 {
        d1(x)
    } else if x >= 10.0 {
        d2(x)
    } else {
        d3(x)
    }
}

/// A percentage from a share: 0.056 -> "5.6".
fn pct(share: f64) -> String {
    d1(share * 100.0)
}

/// "5 to 8" for a low and a high percentage, "5" when they are equal.
fn percent_range(n: &[String]) -> String {
    if n[0] == n[1] {
        n[0].clone()
    } else {
        format!("{} to {}", n[0], n[1])
    }
}

impl Chapters<'_> {
    /// Runs for an experiment whose page reports `full` runs.
    fn n(&self, full: usize) -> usize {
        self.runs
            .unwrap_or(if self.quick { 2 } else { full })
            .max(1)
    }

    /// Whether `--only` asks for this part: it names a page that starts
    /// with one of the given prefixes.
    fn wants(&self, part: &str) -> bool {
        self.only.is_empty()
            || self.only.iter().any(|o| {
                PAGES
                    .iter()
                    .any(|page| page.starts_with(o.as_str()) && part.contains(page))
            })
    }

    fn repeat(&self, n: usize, mut once: impl FnMut() -> R<Value>) -> R<Vec<Value>> {
        (0..n).map(|_| once()).collect()
    }

    fn emit(&mut self, table: Table) -> R {
        let path = table.write(&self.dir, &self.machine, &self.date)?;
        self.console.say(format!("  wrote {}", path.display()));
        self.written.push(path);
        Ok(())
    }

    fn timed(&mut self, name: &str, part: impl FnOnce(&mut Self) -> R) -> R {
        if !self.wants(name) {
            return Ok(());
        }
        self.console.say(format!("\n{name}"));
        let start = Instant::now();
        part(self)?;
        let seconds = start.elapsed().as_secs_f64();
        self.console.say(format!("  ({name}: {seconds:.1} s)"));
        self.timings.push((name.to_string(), seconds));
        Ok(())
    }

    /// Every table, in page order. `sched` is the appendix's scheduler run
    /// (2 workers), reused for Chapter 7.9.
    pub fn run(&mut self, sched: &Value) -> R {
        std::fs::create_dir_all(&self.dir)
            .map_err(|err| format!("cannot create {}: {err}", self.dir.display()))?;
        self.timed(PARTS[0], |c| {
            c.budget()?;
            c.blocking()?;
            c.files()
        })?;
        self.timed(PARTS[1], |c| c.loom())?;
        let mut echo2 = Value::Null;
        self.timed(PARTS[2], |c| {
            echo2 = c.echo(None, if c.quick { 2 } else { 5 })?;
            c.echo_tables(&echo2)?;
            // `--only ch07-io` makes no scheduler run: that table stays.
            if sched.is_null() {
                return Ok(());
            }
            c.scheduler(sched)
        })?;
        self.timed(PARTS[3], |c| c.workers_curve(sched, &echo2))?;
        self.timed(PARTS[4], |c| c.metrics())?;
        self.timed(PARTS[5], |c| {
            c.workers()?;
            c.lifo()?;
            c.interval()
        })?;
        self.timed(PARTS[6], |c| c.timers())?;
        self.timed(PARTS[7], |c| c.channels())?;
        self.timed(PARTS[8], |c| c.cancel())?;
        self.timed(PARTS[9], |c| c.shutdown())?;
        self.timed(PARTS[10], |c| c.sync())?;
        self.timed(PARTS[11], |c| c.joinset())?;
        self.timed(PARTS[12], |c| c.http())?;
        for kept in &self.kept {
            self.console.say(format!("kept as it was: {kept}"));
        }
        Ok(())
    }

    // ---- Chapter 7.5: the budget and the blocking pool -------------------

    fn budget(&mut self) -> R {
        let n = self.n(5);
        let d = if self.quick {
            Duration::from_millis(500)
        } else {
            Duration::from_secs(2)
        };
        let console = self.console;
        let runs = self.repeat(n, || Ok(chapter_07::coop::coop(console, d)?.to_json()))?;
        let mut t = Table::new(
            "ch07-budget-blocking.md",
            "budget",
            format!(
                "{n} runs of `cargo run --release -p chapter-07 -- coop`; one worker, {} s each way; the median and, in brackets, the range",
                d.as_secs_f64()
            ),
            "| one worker: reader and ticker | ticks while the reader read | ticker p99 | ticker max | forced yields | reader |\n|---|---|---|---|---|---|",
        );
        for (k, label) in [
            ("budget_on", "with the budget (128 reads per poll)"),
            ("budget_off", "budget switched off"),
        ] {
            t.row(vec![
                label.into(),
                col(&runs, &format!("ticks_while_reading_{k}")).show(count, ""),
                col(&runs, &format!("ticker_lateness_p99_ms_{k}")).show(ms, " ms"),
                col(&runs, &format!("ticker_lateness_max_ms_{k}")).show(ms, " ms"),
                col(&runs, &format!("forced_yields_{k}")).show(count, ""),
                col(&runs, &format!("reader_mib_per_s_{k}")).show(count, " MiB/s"),
            ]);
        }
        let page = "ch07-budget-blocking.md";
        let off = col(&runs, "ticker_lateness_p99_ms_budget_off").median;
        self.quotes.push(quote(
            page,
            "coop_budget_off_p99_ms",
            off,
            "ms",
            0,
            |x| format!("{x} ms late"),
            "coop, ticker p99 with the budget switched off",
        ));
        let cost = 100.0
            * (1.0
                - col(&runs, "reader_mib_per_s_budget_on").median
                    / col(&runs, "reader_mib_per_s_budget_off").median);
        self.quotes.push(quote(
            page,
            "coop_reader_cost_pct",
            cost,
            "%",
            0,
            |x| format!("The reader pays {x}% of its throughput"),
            "coop, the reader's throughput with the budget against without",
        ));
        self.quotes.push(quote(
            page,
            "coop_forced_yields_per_s",
            col(&runs, "forced_yields_budget_on").median / d.as_secs_f64(),
            "yields/s",
            -3,
            |x| format!("about {x} forced yields a second"),
            "coop, polls ended by the budget per second of reading",
        ));
        let on = col(&runs, "ticker_lateness_p99_ms_budget_on");
        self.quotes.extend(quotes(
            "ch07-racing-tokio.md",
            &[
                ("coop_budget_on_p99_low_ms", on.low, 3),
                ("coop_budget_on_p99_high_ms", on.high, 3),
            ],
            "ms",
            |n| {
                format!(
                    "{} to {} ms for a ticker beside an always-ready reader",
                    n[0], n[1]
                )
            },
            "coop, ticker p99 with the budget, lowest and highest run",
        ));
        self.emit(t)
    }

    fn blocking(&mut self) -> R {
        let n = self.n(5);
        let d = if self.quick {
            Duration::from_millis(500)
        } else {
            Duration::from_secs(2)
        };
        let console = self.console;
        let runs = self.repeat(n, || {
            Ok(chapter_07::experiments::blocking(console, d)?.to_json())
        })?;
        let mut t = Table::new(
            "ch07-budget-blocking.md",
            "blocking",
            format!(
                "{n} runs of `cargo run --release -p chapter-07 -- blocking`; one worker, {} s each way; the median and, in brackets, the range",
                d.as_secs_f64()
            ),
            "| the ticker (1 ms sleeps) | ticks | ticker p99 | ticker max | long polls counted |\n|---|---|---|---|---|",
        );
        for (k, label) in [
            ("alone", "alone"),
            (
                "blocking_in_task",
                "beside `thread::sleep(20 ms)` in a task",
            ),
            (
                "spawn_blocking",
                "beside the same sleep in `spawn_blocking`",
            ),
        ] {
            t.row(vec![
                label.into(),
                col(&runs, &format!("ticker_ticks_{k}")).show(count, ""),
                col(&runs, &format!("ticker_lateness_p99_ms_{k}")).show(d2, " ms"),
                col(&runs, &format!("ticker_lateness_max_ms_{k}")).show(d1, " ms"),
                col(&runs, &format!("long_polls_{k}")).show(count, ""),
            ]);
        }
        let page = "ch07-budget-blocking.md";
        let alone = col(&runs, "ticker_ticks_alone").median;
        let blocked = col(&runs, "ticker_ticks_blocking_in_task").median;
        let p99 = col(&runs, "ticker_lateness_p99_ms_blocking_in_task").median;
        let pool = col(&runs, "ticker_lateness_p99_ms_spawn_blocking");
        let source = "blocking, the ticker beside thread::sleep in a task";
        self.quotes.extend(quotes(
            page,
            &[
                ("blocking_ticks_blocked", blocked, 0),
                ("blocking_ticks_alone", alone, 0),
            ],
            "ticks",
            |n| format!("the ticker gets {} ticks instead of {}", n[0], n[1]),
            source,
        ));
        for page in ["ch07-budget-blocking.md", "ch07-racing-tokio.md"] {
            self.quotes.push(quote(
                page,
                "blocking_in_task_p99_ms",
                p99,
                "ms",
                1,
                |x| format!("p99 {x} ms"),
                source,
            ));
        }
        self.quotes.push(quote(
            "ch07-observability.md",
            "blocking_in_task_p99_whole_ms",
            p99,
            "ms",
            0,
            |x| format!("a 1 ms ticker late by {x} ms"),
            source,
        ));
        self.quotes.extend(quotes(
            "ch07-racing-tokio.md",
            &[
                ("blocking_pool_p99_low_ms", pool.low, 2),
                ("blocking_pool_p99_high_ms", pool.high, 2),
            ],
            "ms",
            |n| {
                format!(
                    "{} to {} ms with the same sleep in `spawn_blocking`",
                    n[0], n[1]
                )
            },
            "blocking, ticker p99 beside the same sleep in spawn_blocking, lowest and highest run",
        ));
        self.emit(t)?;

        // Chapter 7.4 reads the same runs' first row: the ticker alone.
        let mut t = Table::new(
            "ch07-time.md",
            "ticker",
            format!(
                "{n} runs of `cargo run --release -p chapter-07 -- blocking`, its first row; one worker, {} s; the range over the runs",
                d.as_secs_f64()
            ),
            "| the ticker alone | ticks | p50 | p99 | max |\n|---|---|---|---|---|",
        );
        t.row(vec![
            format!("{n} runs"),
            col(&runs, "ticker_ticks_alone").range(count, ""),
            col(&runs, "ticker_lateness_p50_ms_alone").range(d3, " ms"),
            col(&runs, "ticker_lateness_p99_ms_alone").range(d2, " ms"),
            col(&runs, "ticker_lateness_max_ms_alone").range(d1, " ms"),
        ]);
        self.quotes.push(quote(
            "ch07-time.md",
            "ticker_alone_max_high_ms",
            col(&runs, "ticker_lateness_max_ms_alone").high,
            "ms",
            1,
            |x| format!("The {x} ms maximum"),
            "blocking, the ticker alone, the highest maximum of the runs",
        ));
        self.emit(t)
    }

    fn files(&mut self) -> R {
        let n = self.n(5);
        let (rounds, calls) = if self.quick { (1, 100) } else { (7, 1_000) };
        let console = self.console;
        let runs = self.repeat(n, || {
            Ok(chapter_07::files::files(console, rounds, calls)?.to_json())
        })?;
        let mut t = Table::new(
            "ch07-budget-blocking.md",
            "files",
            format!(
                "{n} runs of `cargo run --release -p chapter-07 -- files` ({rounds} rounds of {calls} calls each); one worker"
            ),
            "| per call, from one task | median of the runs | range over the runs |\n|---|---|---|",
        );
        for (k, label) in [
            ("std_metadata", "`std::fs::metadata`, in the task"),
            ("rt_metadata", "`rt::fs::metadata`, a pool job"),
            ("std_read", "`std::fs::read` of 4 KiB, in the task"),
            ("rt_read", "`rt::fs::read` of 4 KiB, a pool job"),
        ] {
            let s = col(&runs, &format!("{k}_us_median"));
            t.row(vec![
                label.into(),
                format!("{} µs", sig3(s.median)),
                s.range(sig3, " µs"),
            ]);
        }
        let (meta, read) = (
            col(&runs, "rt_metadata_us_median"),
            col(&runs, "rt_read_us_median"),
        );
        self.quotes.extend(quotes(
            "ch07-budget-blocking.md",
            &[
                ("files_pool_low_us", meta.low.min(read.low), 0),
                ("files_pool_high_us", meta.high.max(read.high), 0),
            ],
            "µs",
            |n| format!("The hand-off costs {} to {} µs a call", n[0], n[1]),
            "files, a pool job per call, the runs' lowest and highest",
        ));
        self.emit(t)
    }

    // ---- Chapter 7.8: loom's interleavings, from the script's CSV --------

    fn loom(&mut self) -> R {
        // The CSV beside this package's sources, wherever the run starts.
        let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("data/loom-iterations.csv");
        let shown = "chapters/07-runtime/demo/data/loom-iterations.csv";
        let Ok(text) = std::fs::read_to_string(&path) else {
            self.kept.push(format!(
                "ch07-checking-loom.md: cannot read {}",
                path.display()
            ));
            return Ok(());
        };
        let data = chapter_07::loom_space::parse(&text).map_err(|err| format!("{shown}: {err}"))?;
        let mut t = Table::new(
            "ch07-checking.md",
            "loom",
            format!(
                "the counts read from `{}`, which `data/loom-iterations.sh` wrote (CI's `--cfg loom` release build; the host and date are that run's); the counts are exact, the seconds are wall time summed over the models",
                shown
            ),
            "| `LOOM_MAX_PREEMPTIONS` | interleavings, all models | of which `loom_two_thieves_and_a_pushing_owner` | seconds, all models |\n|---|---|---|---|",
        );
        // The host and date are the script's run's, from the CSV's comments.
        t.measured_elsewhere = Some((
            data.machine
                .clone()
                .unwrap_or_else(|| "a machine not recorded".into()),
            data.measured
                .as_deref()
                .and_then(|m| m.split(',').next())
                .map_or_else(
                    || "a date not recorded".into(),
                    |d| d.trim_end_matches(" UTC").to_string(),
                ),
        ));
        for bound in data.bounds() {
            let rows: Vec<_> = data
                .rows
                .iter()
                .filter(|r| r.preemptions == bound)
                .collect();
            let total: u64 = rows.iter().filter_map(|r| r.iterations).sum();
            let thieves = rows
                .iter()
                .find(|r| r.model == "loom_two_thieves_and_a_pushing_owner")
                .and_then(|r| r.iterations)
                .map_or("-".to_string(), |i| count(i as f64));
            let seconds: f64 = rows.iter().map(|r| r.seconds).sum();
            t.row(vec![
                bound.to_string(),
                count(total as f64),
                thieves,
                d2(seconds),
            ]);
        }
        let mut shares = Vec::new();
        for bound in data.bounds() {
            let rows: Vec<_> = data
                .rows
                .iter()
                .filter(|r| r.preemptions == bound)
                .collect();
            let total: u64 = rows.iter().filter_map(|r| r.iterations).sum();
            let thieves: u64 = rows
                .iter()
                .filter(|r| r.model.starts_with("loom_two_thieves"))
                .filter_map(|r| r.iterations)
                .sum();
            shares.push(100.0 * thieves as f64 / total.max(1) as f64);
        }
        let shares = spread(&shares);
        self.quotes.extend(quotes(
            "ch07-checking.md",
            &[
                ("loom_thieves_share_low_pct", shares.low, 0),
                ("loom_thieves_share_high_pct", shares.high, 0),
            ],
            "%",
            |n| {
                format!(
                    "the two thief models are {} to {}% of every row",
                    n[0], n[1]
                )
            },
            "loom-iterations.csv, the two thief models' share of each bound's interleavings",
        ));
        let at_top = |model: &str| {
            data.rows
                .iter()
                .filter(|r| r.model == model)
                .max_by_key(|r| r.preemptions)
                .and_then(|r| r.iterations)
                .map_or(f64::NAN, |i| i as f64)
        };
        self.quotes.extend(quotes(
            "ch07-checking.md",
            &[
                (
                    "loom_clear_readiness_iterations",
                    at_top("loom_clear_readiness_never_erases_a_newer_edge"),
                    0,
                ),
                (
                    "loom_cancel_while_firing_iterations",
                    at_top("loom_cancel_while_firing"),
                    0,
                ),
            ],
            "interleavings",
            |n| {
                format!(
                    "runs {} interleavings at bounds 2, 3 and 4, and `loom_cancel_while_firing` {}",
                    n[0], n[1]
                )
            },
            "loom-iterations.csv, the two smallest models at the highest bound",
        ));
        self.emit(t)
    }

    // ---- Chapter 7.9 and 7.3: the echo race ------------------------------

    fn echo(&mut self, workers: Option<usize>, rounds: usize) -> R<Value> {
        let rounds = self.runs.unwrap_or(rounds).max(1);
        let config = echo::config(
            if self.quick { 200 } else { 1_000 },
            Duration::from_secs(if self.quick { 1 } else { 5 }),
        );
        echo::compare(self.console, &config, rounds, workers)
    }

    fn echo_tables(&mut self, e: &Value) -> R {
        let rounds = num(e, "rounds");
        let connections = num(e, "connections");
        let secs = num(e, "duration_s");
        // The spread of the per-round values at `key` of `v` (the race, or
        // its floor).
        let rounds_in = |v: &Value, key: &str| {
            spread(
                &v[key]
                    .as_array()
                    .map(|a| a.iter().filter_map(Value::as_f64).collect::<Vec<_>>())
                    .unwrap_or_default(),
            )
        };
        let rounds_of = |key: &str| rounds_in(e, key);
        // Microseconds to milliseconds.
        let ms = |us: Spread| Spread {
            median: us.median / 1e3,
            low: us.low / 1e3,
            high: us.high / 1e3,
        };
        let ratio = |key: &str| Spread {
            median: num(e, key),
            low: num(e, &format!("/{key}_range/0")),
            high: num(e, &format!("/{key}_range/1")),
        };
        let mut t = Table::new(
            "ch07-racing-tokio.md",
            "echo",
            format!(
                "`cargo run --release -p chapter-07 --example compare -- echo --connections {} --rounds {}`; {} connections, 64-byte messages, {} s of closed-loop echo per server per round, {} rounds; generator and server share the machine; the range over the rounds",
                connections,
                rounds,
                count(connections),
                secs,
                rounds
            ),
            "| server | msgs/s | p99 | switches per message | memory per connection |\n|---|---|---|---|---|",
        );
        for (who, label, idx) in [("ours", "ours", 0), ("tokio", "Tokio", 1)] {
            let p99_ms = ms(rounds_of(&format!("p99_us_rounds_{who}")));
            t.row(vec![
                label.into(),
                rounds_of(&format!("throughput_rounds_{who}")).range(count, ""),
                p99_ms.range(d1, " ms"),
                rounds_of(&format!("switches_per_message_rounds_{who}")).range(fn4, ""),
                format!(
                    "{} KiB",
                    d2(num(&e["results"][idx], "server_rss_per_connection_kib"))
                ),
            ]);
        }
        // The floor: Chapter 4's epoll loop, one thread, no runtime, in the
        // same rounds.
        let floor = &e["floor"];
        let floor_rounds = |key: &str| rounds_in(floor, key);
        t.row(vec![
            "the floor: Chapter 4's epoll loop, one thread".into(),
            floor_rounds("throughput_rounds").range(count, ""),
            ms(floor_rounds("p99_us_rounds")).range(d1, " ms"),
            floor_rounds("switches_per_message_rounds").range(fn4, ""),
            format!(
                "{} KiB",
                d2(num(&floor["result"], "server_rss_per_connection_kib"))
            ),
        ]);
        let show = |s: Spread| s.show(d2, "");
        let of_floor = |key: &str| Spread {
            median: num(floor, key),
            low: num(floor, &format!("/{key}_range/0")),
            high: num(floor, &format!("/{key}_range/1")),
        };
        t.row(vec![
            "ours / the floor, median of the rounds' ratios".into(),
            show(of_floor("throughput_ratio_ours_vs_floor")),
            String::new(),
            String::new(),
            String::new(),
        ]);
        t.row(vec![
            "Tokio / the floor, median of the rounds' ratios".into(),
            show(of_floor("throughput_ratio_tokio_vs_floor")),
            String::new(),
            String::new(),
            String::new(),
        ]);
        self.quotes.extend(quotes(
            "ch07-racing-tokio.md",
            &[
                (
                    "echo_ours_of_floor",
                    num(floor, "throughput_ratio_ours_vs_floor"),
                    2,
                ),
                (
                    "echo_tokio_of_floor",
                    num(floor, "throughput_ratio_tokio_vs_floor"),
                    2,
                ),
            ],
            "ratio",
            |n| format!("ours {} of its throughput and Tokio {}", n[0], n[1]),
            "compare echo, each runtime's throughput over the floor's (Chapter 4's epoll loop), median of the rounds' ratios",
        ));
        t.row(vec![
            "ours / Tokio, median of the rounds' ratios".into(),
            show(ratio("throughput_ratio_vs_tokio")),
            show(ratio("p99_ratio_vs_tokio")),
            show(ratio("switches_per_message_ratio_vs_tokio")),
            String::new(),
        ]);
        let p99 = rounds_of("p99_us_rounds_ours");
        self.quotes.extend(quotes(
            "ch07-racing-tokio.md",
            &[
                ("echo_ours_p99_low_ms", p99.low / 1e3, 1),
                ("echo_ours_p99_high_ms", p99.high / 1e3, 1),
            ],
            "ms",
            |n| format!("{} to {} ms for a saturated echo", n[0], n[1]),
            "compare echo, our p99 per round, lowest and highest",
        ));
        self.emit(t)?;

        let mut t = Table::new(
            "ch07-io.md",
            "memory",
            format!(
                "the echo race of Chapter 7.9 (`compare -- echo`), {} connections, 64-byte messages, {} rounds of {} s per server, the servers taking turns to go first; the growth of the server's resident memory divided by the connections, in the round of median throughput",
                count(connections),
                rounds,
                secs
            ),
            "| server | memory per connection | wrong replies |\n|---|---|---|",
        );
        for (label, idx) in [("ours, with a waiter list per socket", 0), ("Tokio", 1)] {
            let r = &e["results"][idx];
            t.row(vec![
                label.into(),
                format!("{} KiB", d2(num(r, "server_rss_per_connection_kib"))),
                count(num(r, "mismatches")),
            ]);
        }
        self.emit(t)
    }

    /// A scheduler run on one worker (or the current-thread flavour, which
    /// ignores the count), every workload, `rounds` rounds.
    fn one_worker(&self, rounds: usize) -> scheduler::Config {
        scheduler::Config {
            workers: 1,
            rounds,
            sample: Duration::from_millis(if self.quick { 20 } else { 50 }),
            only: Vec::new(),
        }
    }

    fn scheduler(&mut self, sched: &Value) -> R {
        let rounds = num(sched, "rounds");
        let workers = num(sched, "workers");
        let mut t = Table::new(
            "ch07-racing-tokio.md",
            "scheduler",
            format!(
                "the appendix's scheduler run (`cargo run --release -p chapter-07 --example compare -- scheduler`), {workers} worker threads each, and the floor (one thread, an allocation and a queue push per spawn); times are medians of {rounds} rounds, ratios medians of the per-round ratios (in brackets their 25th to 75th percentile); lower is faster for us"
            ),
            SCHEDULER_HEADER,
        );
        for row in sched["results"].as_array().into_iter().flatten() {
            let iqr = |key: &str| {
                format!(
                    "{} ({} to {})",
                    d2(num(row, key)),
                    d2(num(row, &format!("/{key}_iqr/0"))),
                    d2(num(row, &format!("/{key}_iqr/1")))
                )
            };
            t.row(scheduler_row(row, iqr));
        }
        self.emit(t)?;
        self.scheduler_current_thread()
    }

    /// The same workloads on the current-thread runtimes, with the floor.
    fn scheduler_current_thread(&mut self) -> R {
        let rounds = self.runs.unwrap_or(if self.quick { 5 } else { 31 });
        let ct = scheduler::run_current_thread(self.console, &self.one_worker(rounds));
        let mut t = Table::new(
            "ch07-racing-tokio.md",
            "current-thread",
            format!(
                "`cargo run --release -p chapter-07 --example compare -- scheduler --flavor current-thread`: ours and Tokio's current-thread runtimes, async-executor run by the thread in `block_on`, and the floor; times are medians of {rounds} rounds, ratios medians of the per-round ratios; lower is faster for us"
            ),
            SCHEDULER_HEADER,
        );
        for row in ct["results"].as_array().into_iter().flatten() {
            t.row(scheduler_row(row, |key| d2(num(row, key))));
        }
        self.emit(t)
    }

    fn workers_curve(&mut self, sched2: &Value, echo2: &Value) -> R {
        let rounds = self.runs.unwrap_or(if self.quick { 3 } else { 15 });
        let sched1 = scheduler::run(self.console, &self.one_worker(rounds));
        let echo1 = self.echo(Some(1), if self.quick { 2 } else { 3 })?;
        let mut t = Table::new(
            "ch07-racing-tokio.md",
            "workers",
            format!(
                "median per-round ratio ours / Tokio at each worker count (scheduler: {} and {} rounds; echo: {} and {} rounds, {} connections; in brackets the echo's range over the rounds)",
                rounds,
                num(sched2, "rounds"),
                num(&echo1, "rounds"),
                num(echo2, "rounds"),
                count(num(echo2, "connections"))
            ),
            "| workers | `spawn_many_local` | `yield_many` | `ping_pong` | `chained_spawn` | echo throughput | echo p99 |\n|---|---|---|---|---|---|---|",
        );
        for (workers, sched, e) in [("1", &sched1, &echo1), ("2", sched2, echo2)] {
            let ratio = |name: &str| {
                sched["results"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .find(|r| r["workload"] == name)
                    .map_or("-".to_string(), |r| d2(num(r, "ratio_vs_tokio")))
            };
            let echo_ratio = |key: &str| {
                Spread {
                    median: num(e, key),
                    low: num(e, &format!("/{key}_range/0")),
                    high: num(e, &format!("/{key}_range/1")),
                }
                .show(d2, "")
            };
            t.row(vec![
                workers.into(),
                ratio("spawn_many_local"),
                ratio("yield_many"),
                ratio("ping_pong"),
                ratio("chained_spawn"),
                echo_ratio("throughput_ratio_vs_tokio"),
                echo_ratio("p99_ratio_vs_tokio"),
            ]);
        }
        self.emit(t)
    }

    // ---- Chapter 7.6: the metrics under the echo load ---------------------

    fn metrics(&mut self) -> R {
        let n = self.n(3);
        let (connections, secs) = if self.quick { (500, 1) } else { (10_000, 5) };
        let console = self.console;
        let runs = self.repeat(n, || {
            let (report, busy_us_per_poll) = chapter_07::experiments::echo_under_load_with_busy(
                console,
                connections,
                Duration::from_secs(secs),
            )?;
            let mut v = report.to_json();
            v["busy_us_per_poll"] = busy_us_per_poll.into();
            Ok(v)
        })?;
        let per = |key: &str| -> Vec<f64> {
            runs.iter()
                .map(|v| num(v, key) / num(v, "messages").max(1.0))
                .collect()
        };
        let messages = col(&runs, "messages");
        let rate = col(&runs, "throughput_msgs_per_sec");
        let mut t = Table::new(
            "ch07-observability.md",
            "metrics",
            format!(
                "{n} runs of `cargo run --release -p chapter-07 -- metrics` ({} connections from a child process, 64-byte messages, {secs} s of load); 2 workers; generator and server share the CPUs; the range over the runs",
                count(connections as f64)
            ),
            "| over the window | range over the runs |\n|---|---|",
        );
        t.row(vec![
            "messages echoed (per second of load)".into(),
            format!("{} ({})", messages.range(count, ""), rate.range(count, "")),
        ]);
        t.row(vec![
            "readiness events per message".into(),
            spread(&per("io_ready_events")).range(d2, ""),
        ]);
        t.row(vec![
            "task polls per message".into(),
            spread(&per("task_polls")).range(d2, ""),
        ]);
        t.row(vec![
            "of which from the LIFO slot".into(),
            col(&runs, "lifo_poll_share").range(pct, "%"),
        ]);
        t.row(vec![
            "busy time per poll".into(),
            col(&runs, "busy_us_per_poll").range(d1, " µs"),
        ]);
        t.row(vec![
            "long polls counted".into(),
            col(&runs, "long_polls").range(count, ""),
        ]);
        self.emit(t)
    }

    // ---- Chapter 7.2: the scheduler --------------------------------------

    fn workers(&mut self) -> R {
        let n = self.n(5);
        let fanout = if self.quick { 20 } else { 50 };
        let console = self.console;
        let mut runs = self.repeat(n, || {
            Ok(chapter_07::experiments::workers(console, 2, 3, fanout)?.to_json())
        })?;
        runs.sort_by(|a, b| num(a, "elapsed_ms").total_cmp(&num(b, "elapsed_ms")));
        let times = col(&runs, "elapsed_ms");
        let median = &runs[(runs.len() - 1) / 2];
        let mut t = Table::new(
            "ch07-scheduler.md",
            "workers",
            format!(
                "`cargo run --release -p chapter-07 -- workers`, a tree of {} tasks on 2 workers; of {n} runs ({}), the one of median time, {}",
                count(num(median, "tasks")),
                times.range(count, " ms"),
                format_args!("{} ms", count(num(median, "elapsed_ms")))
            ),
            "| worker | polls | of them from the LIFO slot | scheduled onto itself | stolen | steals | overflows | taken from inject | parks |\n|---|---|---|---|---|---|---|---|---|",
        );
        for w in 0..2 {
            let mut row = vec![w.to_string()];
            for key in [
                "polls",
                "lifo_polls",
                "local_schedules",
                "stolen",
                "steal_operations",
                "overflows",
                "inject_pulls",
                "parks",
            ] {
                row.push(count(num(median, &format!("worker{w}_{key}"))));
            }
            t.row(row);
        }
        let stolen: f64 = (0..2)
            .map(|w| num(median, &format!("worker{w}_stolen")))
            .sum();
        self.quotes.push(quote(
            "ch07-scheduler.md",
            "workers_stolen",
            stolen,
            "tasks",
            0,
            |x| match x {
                "1" => "1 was stolen".to_string(),
                _ => format!("{x} were stolen"),
            },
            "workers, tasks stolen in the run of median time",
        ));
        self.emit(t)
    }

    fn lifo(&mut self) -> R {
        let n = self.n(5);
        let rounds = if self.quick { 5 } else { 15 };
        let console = self.console;
        let runs = self.repeat(n, || {
            Ok(chapter_07::experiments::lifo(console, 2, rounds)?.to_json())
        })?;
        let mut t = Table::new(
            "ch07-scheduler.md",
            "lifo",
            format!(
                "{n} runs of `cargo run --release -p chapter-07 -- lifo` ({rounds} alternating rounds each); 2 workers; above 1, the slot helps"
            ),
            "| workload | time without / with the slot, the runs (median) | the median run: with / without |\n|---|---|---|",
        );
        let mut low_high = Vec::new();
        for (k, label) in [
            ("chained_spawn", "a chain of 1,000 spawns"),
            ("ping_pong", "1,000 ping-pongs"),
        ] {
            let key = format!("{k}_off_over_on");
            let s = col(&runs, &key);
            // The run whose ratio is the median.
            let mut sorted: Vec<&Value> = runs.iter().collect();
            sorted.sort_by(|a, b| num(a, &key).total_cmp(&num(b, &key)));
            let mid = sorted[(sorted.len() - 1) / 2];
            t.row(vec![
                label.into(),
                format!("{} ({})", s.range(d2, ""), d2(s.median)),
                format!(
                    "{} / {}",
                    duration(num(mid, &format!("{k}_lifo_on_ns"))),
                    duration(num(mid, &format!("{k}_lifo_off_ns")))
                ),
            ]);
            low_high.push((s.median - 1.0) * 100.0);
        }
        low_high.sort_by(f64::total_cmp);
        let texts: [fn(&[String]) -> String; 2] = [
            |n| format!("by {}% in the median", percent_range(n)),
            |n| format!("{}% faster here", percent_range(n)),
        ];
        for text in texts {
            self.quotes.extend(quotes(
                "ch07-scheduler.md",
                &[
                    ("lifo_gain_low_pct", low_high[0], 0),
                    ("lifo_gain_high_pct", low_high[1], 0),
                ],
                "%",
                text,
                "lifo, time without the slot over time with it, median of the runs, the two workloads",
            ));
        }
        self.emit(t)
    }

    fn interval(&mut self) -> R {
        let n = self.n(7);
        let probes = if self.quick { 50 } else { 250 };
        let intervals = [1u32, 7, 31, 61, 127, 255];
        let console = self.console;
        let runs = self.repeat(n, || {
            Ok(chapter_07::experiments::interval(console, probes, &intervals)?.to_json())
        })?;
        let poll_us = col(&runs, "busy_poll_us").median;
        let mut t = Table::new(
            "ch07-scheduler.md",
            "interval",
            format!(
                "{n} runs of `cargo run --release -p chapter-07 -- interval`, {probes} probes per interval; the median of the runs' median waits, and their range; the model is interval / 2 × {} µs, the time each busy task spins in a poll (set in the code)",
                d2(poll_us)
            ),
            "| interval | model | probe wait p50 (range) | over the model |\n|---|---|---|---|",
        );
        let mut over = Vec::new();
        for i in intervals {
            let model_us = f64::from(i) / 2.0 * poll_us;
            let wait = col(&runs, &format!("interval_{i}_wait_p50_us"));
            let us = |x: f64| duration(x * 1e3);
            t.row(vec![
                i.to_string(),
                us(model_us),
                format!(
                    "{} ({} to {})",
                    us(wait.median),
                    us(wait.low),
                    us(wait.high)
                ),
                format!("{:+.0}%", (wait.median / model_us - 1.0) * 100.0),
            ]);
            over.push((wait.median / model_us - 1.0) * 100.0);
        }
        let over = spread(&over);
        self.quotes.push(quote(
            "ch07-scheduler.md",
            "interval_polls_per_s",
            1e6 / poll_us,
            "polls/s",
            -3,
            |x| format!("makes {x} polls a second"),
            "interval, the time each busy task spins in a poll (set in the code)",
        ));
        self.quotes.push(quote(
            "ch07-scheduler.md",
            "interval_busy_poll_us",
            poll_us,
            "µs",
            2,
            |x| format!("2 × {x} µs"),
            "interval, the time each busy task spins in a poll (set in the code)",
        ));
        self.quotes.extend(quotes(
            "ch07-scheduler.md",
            &[
                ("interval_over_model_low_pct", over.low, 0),
                ("interval_over_model_high_pct", over.high, 0),
            ],
            "%",
            |n| match n[0].strip_prefix('-') {
                Some(below) => format!("from {below}% below to {}% above the model", n[1]),
                None => format!("{} to {}% above the model", n[0], n[1]),
            },
            "interval, the median wait over the model, lowest and highest interval",
        ));
        self.emit(t)
    }

    // ---- Chapter 7.4: the timing wheel against the heap ------------------

    fn timers(&mut self) -> R {
        let n = self.n(8);
        let (sizes, ops, rounds): (&[usize], usize, usize) = if self.quick {
            (&[1_000, 10_000, 100_000], 50_000, 3)
        } else {
            (&[1_000, 10_000, 100_000, 1_000_000], 200_000, 5)
        };
        let mut runs = Vec::new();
        for run in 0..n {
            self.console
                .say(format!("  timers, run {} of {n}", run + 1));
            runs.push(chapter_07::experiments::timer_ops(sizes, ops, rounds));
        }
        let mut t = Table::new(
            "ch07-time.md",
            "timers",
            format!(
                "{n} runs of {rounds} rounds of what `cargo run --release -p chapter-07 --example compare -- timers` runs; each cell is the median of the runs' medians, with their range, in nanoseconds of the thread's CPU time per pair, or per timer fired"
            ),
            "| pending timers | wheel: insert + cancel | heap: insert + cancel | floor: two array writes | wheel: insert and fire, per timer | heap: insert and fire, per timer |\n|---|---|---|---|---|---|",
        );
        for (i, size) in sizes.iter().enumerate() {
            let s = |f: fn(&chapter_07::experiments::TimerOps) -> f64| {
                spread(&runs.iter().map(|r| f(&r[i])).collect::<Vec<_>>())
            };
            t.row(vec![
                count(*size as f64),
                s(|r| r.wheel_ns).show(sig3, ""),
                s(|r| r.heap_ns).show(sig3, ""),
                s(|r| r.floor_ns).show(sig3, ""),
                s(|r| r.wheel_fire_ns).show(count, ""),
                s(|r| r.heap_fire_ns).show(count, ""),
            ]);
            let source = format!("timers, {} pending", count(*size as f64));
            if *size == 1_000 {
                self.quotes.push(quote(
                    "ch07-time.md",
                    "timers_wheel_pair_ns_1000",
                    s(|r| r.wheel_ns).median,
                    "ns",
                    1,
                    |x| format!("{x} ns per pair at 1,000 pending"),
                    &source,
                ));
            }
            if *size == 1_000_000 {
                self.quotes.push(quote(
                    "ch07-time.md",
                    "timers_wheel_pair_ns_1m",
                    s(|r| r.wheel_ns).median,
                    "ns",
                    1,
                    |x| format!("{x} at a million"),
                    &source,
                ));
                self.quotes.push(quote(
                    "ch07-time.md",
                    "timers_heap_fire_us_1m",
                    s(|r| r.heap_fire_ns).median / 1e3,
                    "µs",
                    1,
                    |x| format!("{x} µs per timer at a million"),
                    &source,
                ));
            }
        }
        // Heap over wheel, insert + cancel, in every run at every size.
        let ratios: Vec<f64> = runs
            .iter()
            .flat_map(|run| run.iter().map(|r| r.heap_ns / r.wheel_ns))
            .collect();
        let ratios = spread(&ratios);
        self.quotes.extend(quotes(
            "ch07-time.md",
            &[
                ("timers_heap_over_wheel_low", ratios.low, 1),
                ("timers_heap_over_wheel_high", ratios.high, 1),
            ],
            "ratio",
            |n| format!("the wheel is {} to {} times faster", n[0], n[1]),
            "timers, heap over wheel time per insert + cancel, every run and size",
        ));
        let wheel =
            |i: usize| spread(&runs.iter().map(|r| r[i].wheel_ns).collect::<Vec<_>>()).median;
        if sizes.len() == 4 {
            self.quotes.push(quote(
                "ch07-time.md",
                "timers_wheel_million_over_thousand",
                wheel(3) / wheel(0),
                "ratio",
                2,
                |x| format!("the {x} of the table above"),
                "timers, the wheel's insert + cancel at 1,000,000 pending over 1,000",
            ));
        }
        self.emit(t)
    }

    // ---- Chapter 8 --------------------------------------------------------

    fn channels(&mut self) -> R {
        let n = self.n(3);
        let rounds = if self.quick { 5 } else { 21 };
        let console = self.console;
        let runs = self.repeat(n, || {
            Ok(channels::compare(
                console,
                &channels::Config {
                    workers: 2,
                    rounds,
                    messages: if self.quick { 10_000 } else { 100_000 },
                },
            ))
        })?;
        let mut t = Table::new(
            "ch08-channels.md",
            "mpsc",
            format!(
                "{n} runs of `cargo run --release -p chapter-07 --example compare -- channels` ({rounds} rounds each, two workers per runtime); the ranges are over the runs"
            ),
            "| case (100,000 values) | ours | Tokio | ours / Tokio (time) |\n|---|---|---|---|",
        );
        for (i, label) in [
            "bounded (256), 1 sender",
            "bounded (256), 8 senders",
            "unbounded, 1 sender",
            "unbounded, 8 senders",
        ]
        .iter()
        .enumerate()
        {
            let ms1 = |key: &str| {
                let s = col(&runs, &format!("/results/{i}/{key}"));
                Spread {
                    median: s.median / 1e6,
                    low: s.low / 1e6,
                    high: s.high / 1e6,
                }
            };
            t.row(vec![
                (*label).into(),
                ms1("ours_ns").range(d1, " ms"),
                ms1("tokio_ns").range(d1, " ms"),
                col(&runs, &format!("/results/{i}/ratio_vs_tokio")).range(d2, ""),
            ]);
        }
        self.emit(t)
    }

    fn cancel(&mut self) -> R {
        let n = self.n(5);
        let records = if self.quick { 100 } else { 500 };
        let console = self.console;
        let runs = self.repeat(n, || {
            Ok(chapter_07::cancel::cancel(console, records)?.to_json())
        })?;
        let sent = col(&runs, "sent_bytes").median;
        let mut t = Table::new(
            "ch08-select.md",
            "cancel",
            format!(
                "{n} runs of `cargo run --release -p chapter-07 -- cancel --json`; the range over the runs"
            ),
            "| reader | bytes lost | records intact | ticks |\n| --- | --- | --- | --- |",
        );
        for (k, label) in [
            ("naive", "naive: `read_exact` in `select!`"),
            ("fixed", "fixed: state outside, one `read`"),
        ] {
            let lost = col(&runs, &format!("{k}_lost_bytes"));
            let lost_text = if lost.high == 0.0 {
                "0".to_string()
            } else {
                format!(
                    "{} – {} ({:.0} %)",
                    count(lost.low),
                    count(lost.high),
                    100.0 * lost.median / sent.max(1.0)
                )
            };
            t.row(vec![
                label.into(),
                lost_text,
                col(&runs, &format!("{k}_intact_records")).range(count, ""),
                col(&runs, &format!("{k}_ticks"))
                    .range(count, "")
                    .replace(" to ", " – "),
            ]);
        }
        let read = (sent - col(&runs, "naive_lost_bytes").median) / 1024.0;
        self.quotes.push(quote(
            "ch08-select.md",
            "cancel_naive_records_read",
            read,
            "records",
            -1,
            |x| format!("about {x} records' worth of bytes"),
            "cancel, the naive loop's bytes read (sent less lost, median) in 1,024-byte records",
        ));
        self.emit(t)
    }

    fn shutdown(&mut self) -> R {
        use chapter_07::shutdown::{self, Config};
        let mut config = if self.quick {
            Config::quick()
        } else {
            Config::full()
        };
        if let Some(runs) = self.runs {
            config.runs = runs.max(1);
        }
        // The script starts this very program as the server (`report echo
        // --graceful`, the same code as `chapter-07 echo --graceful`).
        let exe = std::env::current_exe()
            .map_err(|err| format!("cannot find this program's own path: {err}"))?;
        let (report, _) = shutdown::shutdown(self.console, &exe, &config)?;
        let r = report.to_json();
        let mut t = Table::new(
            "ch08-signals.md",
            "shutdown",
            format!(
                "{} runs of `cargo run --release -p chapter-07 -- shutdown`; times are from the `kill(2)` that sent SIGINT, or from the deadline; the range is over the runs",
                config.runs
            ),
            "| measure | median | range over runs |\n|---|---|---|",
        );
        for (key, label) in [
            (
                "first_refusal_after_signal",
                "SIGINT to the first new connection refused",
            ),
            (
                "stopped_line_after_signal",
                "SIGINT to the server's \"stopped accepting\" line, read through its pipe",
            ),
            (
                "cut_after_deadline",
                "deadline to the last cut connection's end of stream",
            ),
            ("exit_after_deadline", "deadline to the server's exit"),
        ] {
            let s = Spread {
                median: num(&r, &format!("{key}_median_ms")),
                low: num(&r, &format!("{key}_min_ms")),
                high: num(&r, &format!("{key}_max_ms")),
            };
            t.row(vec![
                label.into(),
                format!("{} ms", sig3(s.median)),
                s.range(sig3, " ms"),
            ]);
        }
        self.quotes.push(quote(
            "ch08-signals.md",
            "shutdown_first_refusal_ms",
            num(&r, "first_refusal_after_signal_median_ms"),
            "ms",
            1,
            |x| format!("The first probe, about {x} ms after"),
            "shutdown, SIGINT to the first refused connect, median of the runs",
        ));
        let source = "shutdown, all runs";
        self.quotes.push(quote(
            "ch08-signals.md",
            "shutdown_echoes",
            num(&r, "echoes"),
            "lines",
            0,
            |x| format!("({x} lines in all, none wrong)"),
            source,
        ));
        self.quotes.push(quote(
            "ch08-signals.md",
            "shutdown_probes_refused",
            num(&r, "probes_refused"),
            "probes",
            0,
            |x| format!("refused ({x} in all)"),
            source,
        ));
        self.quotes.extend(quotes(
            "ch08-signals.md",
            &[
                ("shutdown_server_accepted", num(&r, "server_accepted"), 0),
                (
                    "shutdown_server_open_at_signal",
                    num(&r, "server_open_at_signal"),
                    0,
                ),
                (
                    "shutdown_server_finished_in_time",
                    num(&r, "server_finished_in_time"),
                    0,
                ),
                ("shutdown_server_cut", num(&r, "server_cut"), 0),
            ],
            "connections",
            |n| {
                format!(
                    "added up to {} accepted, {} open at Ctrl-C, {} finished in time and {} cut",
                    n[0], n[1], n[2], n[3]
                )
            },
            "shutdown, the server's own summaries, all runs",
        ));
        self.emit(t)
    }

    fn sync(&mut self) -> R {
        let n = self.n(3);
        let rounds = if self.quick { 5 } else { 21 };
        let console = self.console;
        let runs = self.repeat(n, || {
            Ok(sync::run(
                console,
                &sync::Config {
                    workers: 2,
                    rounds,
                    sample: Duration::from_millis(if self.quick { 10 } else { 30 }),
                    joinset_tasks: if self.quick { 10_000 } else { 100_000 },
                },
            ))
        })?;
        let mut t = Table::new(
            "ch08-sync.md",
            "locks",
            format!(
                "{n} runs of `cargo run --release -p chapter-07 --example compare -- sync` ({rounds} rounds each); the time per operation is from the first run, the ratios are the runs' medians, lowest to highest"
            ),
            "| workload | ours, per op | Tokio, per op | ours / Tokio, the runs |\n|---|---:|---:|---:|",
        );
        for (name, label) in [
            ("mutex_uncontended", "`Mutex`, one task, lock and unlock"),
            ("mutex_contended", "`Mutex`, 16 tasks"),
            (
                "mutex_await_held",
                "`Mutex`, 16 tasks, a `yield_now().await` inside the section",
            ),
            (
                "semaphore_uncontended",
                "`Semaphore`, one task, acquire and drop",
            ),
            ("semaphore_contended", "`Semaphore` of 4, 16 tasks"),
            ("std_mutex_uncontended", "`std::sync::Mutex`, one task"),
            ("std_mutex_contended", "`std::sync::Mutex`, 16 tasks"),
        ] {
            let row_of = |v: &Value| -> Option<Value> {
                v["results"]
                    .as_array()?
                    .iter()
                    .find(|r| r["primitive"] == name)
                    .cloned()
            };
            let Some(first) = row_of(&runs[0]) else {
                continue;
            };
            let ratios: Vec<f64> = runs
                .iter()
                .filter_map(row_of)
                .map(|r| {
                    // The std rows, a reference, name their ratio so.
                    if r.get("ratio_vs_tokio").is_some() {
                        num(&r, "ratio_vs_tokio")
                    } else {
                        num(&r, "reference_ratio_vs_tokio")
                    }
                })
                .collect();
            t.row(vec![
                label.into(),
                duration(num(&first, "ours_ns_per_op")),
                duration(num(&first, "tokio_ns_per_op")),
                if name.starts_with("std_") {
                    "(same lock)".into()
                } else {
                    spread(&ratios).range(d2, "")
                },
            ]);
        }
        // The prose quotes the first run's times per operation.
        let first = |name: &str, key: &str| -> f64 {
            runs[0]["results"]
                .as_array()
                .into_iter()
                .flatten()
                .find(|r| r["primitive"] == name)
                .map_or(f64::NAN, |r| num(r, key))
        };
        let page = "ch08-sync.md";
        let source = "sync, the first run, ns per operation";
        let (ours, tokio) = ("ours_ns_per_op", "tokio_ns_per_op");
        self.quotes.extend(quotes(
            page,
            &[
                (
                    "sync_await_held_ours_ns",
                    first("mutex_await_held", ours),
                    0,
                ),
                ("sync_contended_ours_ns", first("mutex_contended", ours), 0),
            ],
            "ns",
            |n| format!("{} against {} ns for ours", n[0], n[1]),
            source,
        ));
        self.quotes.extend(quotes(
            page,
            &[
                (
                    "sync_await_held_tokio_ns",
                    first("mutex_await_held", tokio),
                    0,
                ),
                (
                    "sync_contended_tokio_ns",
                    first("mutex_contended", tokio),
                    0,
                ),
            ],
            "ns",
            |n| format!("{} against {} ns for Tokio", n[0], n[1]),
            source,
        ));
        self.quotes.extend(quotes(
            page,
            &[
                ("sync_std_uncontended_ns", first("std_mutex_uncontended", ours), 0),
                ("sync_uncontended_ours_ns", first("mutex_uncontended", ours), 0),
                ("sync_uncontended_tokio_ns", first("mutex_uncontended", tokio), 0),
            ],
            "ns",
            |n| {
                format!(
                    "a loop turn took {} ns with the std mutex against {} ns with ours and {} ns with Tokio's",
                    n[0], n[1], n[2]
                )
            },
            source,
        ));
        self.quotes.extend(quotes(
            page,
            &[
                (
                    "sync_std_contended_ns",
                    first("std_mutex_contended", ours),
                    0,
                ),
                (
                    "sync_contended_ours_ns_again",
                    first("mutex_contended", ours),
                    0,
                ),
                (
                    "sync_contended_tokio_ns_again",
                    first("mutex_contended", tokio),
                    0,
                ),
            ],
            "ns",
            |n| format!("among 16 tasks {} ns against {} and {}", n[0], n[1], n[2]),
            source,
        ));
        self.quotes.extend(quotes(
            page,
            &[
                (
                    "sync_uncontended_round_low",
                    first("mutex_uncontended", "/ratio_range/0"),
                    2,
                ),
                (
                    "sync_uncontended_round_high",
                    first("mutex_uncontended", "/ratio_range/1"),
                    2,
                ),
            ],
            "ratio",
            |n| format!("ranged from {} to {} times Tokio's time", n[0], n[1]),
            "sync, the first run, the uncontended mutex's per-round ratios, lowest and highest",
        ));
        self.emit(t)
    }

    fn joinset(&mut self) -> R {
        let rounds = self.runs.unwrap_or(if self.quick { 2 } else { 5 });
        let tasks = if self.quick { 10_000 } else { 100_000 };
        // In a child process (`report joinset`): run in this one, after the
        // other tables, the resident-set growth would start from a heap that
        // earlier experiments grew and the allocator kept, and say too little.
        let exe = std::env::current_exe()
            .map_err(|err| format!("cannot find this program's own path: {err}"))?;
        let child = std::process::Command::new(exe)
            .args([
                "joinset",
                "--tasks",
                &tasks.to_string(),
                "--rounds",
                &rounds.to_string(),
            ])
            .stderr(std::process::Stdio::inherit())
            .output()
            .map_err(|err| format!("cannot start the joinset run: {err}"))?;
        if !child.status.success() {
            return Err(format!("the joinset run failed ({})", child.status).into());
        }
        let r: serde_json::Value = serde_json::from_slice(&child.stdout)
            .map_err(|err| format!("the joinset run printed no JSON: {err}"))?;
        let mut t = Table::new(
            "ch08-task-handles.md",
            "joinset",
            format!(
                "`cargo run --release -p chapter-07 -- joinset`, {rounds} rounds; the times are medians, with the fastest and slowest round"
            ),
            "| 100,000 tasks in one `JoinSet`, 2 workers | median | rounds, fastest to slowest |\n|---|---:|---:|",
        );
        for (key, label) in [
            (
                "completed",
                "outputs returned (the tasks that return at once)",
            ),
            ("failed", "failures returned"),
            ("cancelled", "cancelled (`JoinError::is_cancelled`)"),
            (
                "dropped_on_workers",
                "waiting futures dropped on a worker thread",
            ),
            (
                "dropped_with_own_id",
                "dropped with `task::try_id()` naming the task",
            ),
        ] {
            let (lo, hi) = (
                num(&r, &format!("{key}_min")),
                num(&r, &format!("{key}_max")),
            );
            t.row(vec![
                label.into(),
                count(if lo == hi { lo } else { f64::NAN }),
                format!("{} to {}", count(lo), count(hi)),
            ]);
        }
        for (key, label) in [
            ("spawn", "spawn 100,000 (half of them wait forever)"),
            ("abort_call", "the `abort_all()` call itself"),
            (
                "abort_to_all_joined",
                "from `abort_all()` to the last task joined",
            ),
            (
                "drop_to_all_dropped",
                "`drop(set)` of 50,000 waiting tasks, to the last future dropped",
            ),
            (
                "all_succeed_spawn",
                "spawn 100,000 tasks that return their index",
            ),
            ("all_succeed_join", "join those 100,000"),
        ] {
            t.row(vec![
                label.into(),
                format!("{} ms", sig3(num(&r, &format!("{key}_ms")))),
                format!(
                    "{} to {} ms",
                    sig3(num(&r, &format!("{key}_ms_min"))),
                    sig3(num(&r, &format!("{key}_ms_max")))
                ),
            ]);
        }
        t.row(vec![
            "resident memory per task in the set (first round)".into(),
            format!("{} bytes", count(num(&r, "bytes_per_task"))),
            "(one figure)".into(),
        ]);
        let page = "ch08-task-handles.md";
        let source = "joinset, medians of the rounds";
        let join = num(&r, "all_succeed_join_ms");
        let mut join_quotes = quotes(
            page,
            &[
                ("joinset_join_ms", join, 0),
                ("joinset_join_us_per_task", join * 1e3 / tasks as f64, 2),
            ],
            "ms",
            |n| format!("finished tasks took {} ms, about {} µs each", n[0], n[1]),
            source,
        );
        join_quotes[1].unit = "µs";
        self.quotes.extend(join_quotes);
        let (abort, joined) = (num(&r, "abort_call_ms"), num(&r, "abort_to_all_joined_ms"));
        self.quotes.extend(quotes(
            page,
            &[
                ("joinset_abort_call_whole_ms", abort, 0),
                ("joinset_abort_to_joined_ms", joined, 0),
            ],
            "ms",
            |n| {
                format!(
                    "returned after {} ms, but the tasks were only all joined {} ms after it",
                    n[0], n[1]
                )
            },
            source,
        ));
        self.quotes.push(quote(
            page,
            "joinset_bytes_per_task",
            num(&r, "bytes_per_task"),
            "bytes",
            0,
            |x| format!("The {x} bytes per task"),
            source,
        ));
        self.quotes.push(quote(
            page,
            "joinset_drop_ms",
            num(&r, "drop_to_all_dropped_ms"),
            "ms",
            1,
            |x| format!("The drop took {x} ms"),
            source,
        ));
        self.quotes.push(quote(
            page,
            "joinset_abort_call_ms",
            abort,
            "ms",
            1,
            |x| format!("call ({x} ms for"),
            source,
        ));
        self.quotes.push(quote(
            page,
            "joinset_cancelled",
            num(&r, "cancelled_min"),
            "tasks",
            0,
            |x| format!("Every one of the {x} cancelled futures"),
            "joinset, tasks cancelled (the fewest of the rounds)",
        ));
        self.emit(t)
    }

    // ---- Chapter 9: HTTP under wrk ----------------------------------------

    fn http(&mut self) -> R {
        let file = "ch09-http-wrk.md";
        if std::process::Command::new("wrk")
            .arg("--version")
            .output()
            .is_err()
        {
            let line = format!(
                "{file}: wrk is not installed (on Debian or Ubuntu: apt-get install -y wrk); the file keeps its earlier run"
            );
            self.console.say(format!("  {line}"));
            self.kept.push(line);
            return Ok(());
        }
        let config = http::Config {
            connections: vec![50, 1000],
            duration: Duration::from_secs(if self.quick { 1 } else { 10 }),
            rounds: self.runs.unwrap_or(if self.quick { 1 } else { 3 }),
            idle: if self.quick { 1_000 } else { 10_000 },
        };
        let r = http::compare(self.console, &config)?;
        let mut t = Table::new(
            "ch09-http.md",
            "wrk",
            format!(
                "`cargo run --release -p chapter-07 --example compare -- http --duration {} --rounds {} --idle {}`; wrk (`wrk -t2 -cN --latency`) on the same machine; both servers with two workers, run back to back in each round, which goes first alternating; the median of the rounds, and the range over the rounds; the last column is ours over Tokio's within each round, its median and range",
                config.duration.as_secs(),
                config.rounds,
                config.idle
            ),
            "| Runtime | Connections | Requests/s | Range over rounds | p50 latency | p99 latency | Errors | rt / Tokio per round: requests/s, p99 |\n| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
        );
        let ratios_at = |connections: f64| {
            r["ratios"]
                .as_array()
                .into_iter()
                .flatten()
                .find(|x| num(x, "connections") == connections)
                .cloned()
                .unwrap_or(Value::Null)
        };
        for row in r["results"].as_array().into_iter().flatten() {
            let runtime = match row["runtime"].as_str() {
                Some("tokio") => "Tokio",
                Some(other) => other,
                None => "?",
            };
            // The ratios of each round's pair, on our rows: median (range).
            let ratios = if runtime == "rt" {
                let x = ratios_at(num(row, "connections"));
                let one = |key: &str| {
                    format!(
                        "{:.2} ({:.2} to {:.2})",
                        num(&x, key),
                        num(&x, &format!("/{key}_range/0")),
                        num(&x, &format!("/{key}_range/1"))
                    )
                };
                format!(
                    "{}, {}",
                    one("requests_ratio_vs_tokio"),
                    one("p99_ratio_vs_tokio")
                )
            } else {
                String::new()
            };
            t.row(vec![
                runtime.into(),
                count(num(row, "connections")),
                count(num(row, "requests_per_sec")),
                format!(
                    "{} to {}",
                    count(num(row, "/requests_per_sec_range/0")),
                    count(num(row, "/requests_per_sec_range/1"))
                ),
                duration(num(row, "latency_p50_us") * 1e3),
                duration(num(row, "latency_p99_us") * 1e3),
                count(num(row, "errors")),
                ratios,
            ]);
        }
        let page = "ch09-http.md";
        let idle = |who: &str| num(&r, &format!("/rss_per_idle_connection_kib/{who}"));
        self.quotes.extend(quotes(
            page,
            &[
                ("http_idle_kib_ours", idle("rt"), 1),
                ("http_idle_kib_tokio", idle("tokio"), 1),
            ],
            "KiB",
            |n| format!("ours {} KiB, Tokio's {}", n[0], n[1]),
            "http, resident memory per idle keep-alive connection",
        ));
        let at = |runtime: &str, connections: f64| {
            r["results"]
                .as_array()
                .into_iter()
                .flatten()
                .find(|x| x["runtime"] == runtime && num(x, "connections") == connections)
                .cloned()
                .unwrap_or(Value::Null)
        };
        let (ours50, tokio50) = (at("rt", 50.0), at("tokio", 50.0));
        let (ours1000, tokio1000) = (at("rt", 1000.0), at("tokio", 1000.0));
        let p99 = |row: &Value| num(row, "latency_p99_us") / 1e3;
        let places = |ms: f64| {
            if ms >= 100.0 {
                0
            } else if ms >= 10.0 {
                1
            } else {
                2
            }
        };
        let p99s = [p99(&ours50), p99(&tokio50), p99(&ours1000), p99(&tokio1000)];
        self.quotes.extend(quotes(
            page,
            &[
                ("http_p99_ours_50_ms", p99s[0], places(p99s[0])),
                ("http_p99_tokio_50_ms", p99s[1], places(p99s[1])),
                ("http_p99_ours_1000_ms", p99s[2], places(p99s[2])),
                ("http_p99_tokio_1000_ms", p99s[3], places(p99s[3])),
            ],
            "ms",
            |n| {
                format!(
                    "at 50 connections rt {} ms and Tokio {} ms, at 1,000 connections rt {} ms and Tokio {} ms",
                    n[0], n[1], n[2], n[3]
                )
            },
            "http, p99 latency, medians of the rounds",
        ));
        self.quotes.extend(quotes(
            page,
            &[
                (
                    "http_ours_50_low",
                    num(&ours50, "/requests_per_sec_range/0"),
                    0,
                ),
                (
                    "http_ours_50_high",
                    num(&ours50, "/requests_per_sec_range/1"),
                    0,
                ),
            ],
            "requests/s",
            |n| format!("ours ranged from {} to {} requests a second", n[0], n[1]),
            "http, rt at 50 connections, the rounds' lowest and highest",
        ));
        self.quotes.push(quote(
            page,
            "http_ratio_1000",
            num(&r, "ratio_vs_tokio_1000"),
            "ratio",
            2,
            |x| format!("{} ({x} of Tokio's requests a second", verdict(x)),
            "http, rt over Tokio at 1,000 connections, the median of the rounds' ratios",
        ));
        self.quotes.push(quote(
            page,
            "http_ratio_50",
            num(&r, "ratio_vs_tokio_50"),
            "ratio",
            2,
            |x| format!("{} ({x})", verdict(x)),
            "http, rt over Tokio at 50 connections, the median of the rounds' ratios",
        ));
        for (connections, label) in [(1000.0, "1000"), (50.0, "50")] {
            let x = ratios_at(connections);
            let (low, high) = (
                format!("http_ratio_{label}_low"),
                format!("http_ratio_{label}_high"),
            );
            self.quotes.extend(quotes(
                page,
                &[
                    (&low, num(&x, "/requests_ratio_vs_tokio_range/0"), 2),
                    (&high, num(&x, "/requests_ratio_vs_tokio_range/1"), 2),
                ],
                "ratio",
                |n| format!("from {} to {} over the rounds", n[0], n[1]),
                "http, rt over Tokio, the rounds' lowest and highest ratio",
            ));
        }
        self.emit(t)
    }
}

/// The word for a shown ratio of ours over Tokio's: "ahead" above 1,
/// "behind" below, "level" when the shown digits are exactly 1.
/// The header of the racing page's two scheduler tables.
const SCHEDULER_HEADER: &str = "| workload | ours | Tokio | async-executor | floor | ours / Tokio | ours / async-executor | ours / floor | Tokio / floor |\n|---|---|---|---|---|---|---|---|---|";

/// One row of a scheduler table: the times, the two ratios against the
/// other runtimes as `ratio` shows them, and both runtimes over the floor.
fn scheduler_row(row: &Value, ratio: impl Fn(&str) -> String) -> Vec<String> {
    vec![
        format!("`{}`", row["workload"].as_str().unwrap_or("?")),
        duration(num(row, "ours_ns")),
        duration(num(row, "tokio_ns")),
        duration(num(row, "async_executor_ns")),
        duration(num(row, "floor_ns")),
        ratio("ratio_vs_tokio"),
        ratio("ratio_vs_async_executor"),
        d1(num(row, "ours_over_floor")),
        d1(num(row, "tokio_over_floor")),
    ]
}

fn verdict(shown: &str) -> &'static str {
    match shown.parse::<f64>() {
        Ok(x) if x > 1.0 => "ahead",
        Ok(x) if x < 1.0 => "behind",
        _ => "level",
    }
}

/// Four decimals, for switches per message: 0.0147.
fn fn4(x: f64) -> String {
    format!("{x:.4}")
}

/// What `report` prints at the end: each part's time, and the total.
pub fn timings(console: &Console, timings: &[(String, f64)]) {
    let total: f64 = timings.iter().map(|(_, s)| s).sum();
    console.say("\nTime per part:");
    for (name, s) in timings {
        console.say(format!("  {s:>7.1} s  {name}"));
    }
    console.say(format!("  {total:>7.1} s  in all ({COMMAND})"));
}
