//! The appendix's tables read back: one plot per table, and `figures.json`,
//! the one source of the figures the book's prose quotes.
//!
//! `tables.md` is what a run measured. This file parses it (the Markdown
//! tables this example wrote a moment before, or an earlier run's with
//! `--plots-only`), draws each table as an SVG plot, and records the
//! figures the chapters quote (the wake-up across CPUs, the switch costs,
//! each server's throughput, memory per connection and switches per
//! message, ...) in `figures.json` as name → value, unit and the command
//! that measured it. The file also keeps, by hand, each figure's band (the
//! range the prose states, `low` to `high`) and the quotes: which page
//! says what about which figure. `book/tests/figures.mjs` checks both ways:
//! every quote is on its page and inside its figure's band, and every
//! measured value lies inside its band, so a run that contradicts the prose,
//! or prose edited away from the measurement, fails the book's tests.
//!
//! The prose of Chapters 7 to 9 quotes the tables `chapters.rs` writes;
//! those quotes are not kept by hand: the run makes each one (the page's
//! words around the number it measured, see `measured.rs`) and records it
//! here with the band its shown number stands for, replacing the earlier
//! run's. So after a run, `figures.mjs` fails on every page whose prose
//! still says what the earlier run measured.
//!
//! If the folder also holds `tables-other-host.md`, an earlier run's
//! tables from another machine, its figures are recorded too (named
//! `other_host_...`: the chapters measured on that host quote them), and
//! `hosts.md` sets the two runs' switch costs and echo throughputs side by
//! side.
//!
//! Book: appendix, "Every benchmark side by side".

use std::collections::BTreeMap;
use std::error::Error;
use std::path::Path;

use chapter_01::console::Console;
use chapter_05::plots::Group;
use chapter_07::plots;

use super::measured::Quote;
use serde_json::{Map, Value, json};

/// One table of `tables.md`: its section heading and its rows' cells.
struct Table {
    heading: String,
    /// The header row's cells: columns are found by name, so that a table
    /// written before a column was added still reads right.
    header: Vec<String>,
    rows: Vec<Vec<String>>,
}

impl Table {
    /// The index of the column headed `name`.
    fn column(&self, name: &str) -> Option<usize> {
        self.header.iter().position(|h| h == name)
    }
}

/// The first line's machine ("AMD EPYC, 2 logical CPUs, ..., Linux 6.18.44")
/// and every table, in order.
fn parse(md: &str) -> (String, Vec<Table>) {
    let machine = md
        .lines()
        .next()
        .and_then(|line| line.split_once("Measured on "))
        .and_then(|(_, rest)| rest.split_once(", at commit"))
        .map(|(machine, _)| machine.to_string())
        .unwrap_or_else(|| "unknown machine".into());
    let mut tables: Vec<Table> = Vec::new();
    let mut heading = String::new();
    for line in md.lines() {
        if let Some(h) = line.strip_prefix("## ") {
            heading = h.to_string();
            continue;
        }
        let Some(inner) = line.strip_prefix('|') else {
            continue;
        };
        let cells: Vec<String> = inner
            .trim_end_matches('|')
            .split('|')
            .map(|c| c.trim().to_string())
            .collect();
        if cells.iter().all(|c| c.chars().all(|ch| ch == '-')) {
            continue;
        }
        match tables.last_mut() {
            Some(t) if t.heading == heading => t.rows.push(cells),
            // The first row of a new table is its header.
            _ => tables.push(Table {
                heading: heading.clone(),
                header: cells,
                rows: Vec::new(),
            }),
        }
    }
    (machine, tables)
}

/// "2.63 µs" → 2630.0 ns; `None` if the cell is not a duration.
fn duration_ns(cell: &str) -> Option<f64> {
    let (number, unit) = cell.split_once(' ')?;
    let x = number_of(number)?;
    let scale = match unit {
        "ns" => 1.0,
        "µs" => 1e3,
        "ms" => 1e6,
        "s" => 1e9,
        _ => return None,
    };
    Some(x * scale)
}

/// "1,000" → 1000.0, "17.66 KiB" → 17.66.
fn number_of(cell: &str) -> Option<f64> {
    cell.split_whitespace()
        .next()?
        .replace(',', "")
        .parse()
        .ok()
}

fn table<'a>(tables: &'a [Table], starts: &str) -> Option<&'a Table> {
    tables.iter().find(|t| t.heading.starts_with(starts))
}

/// The short name of an echo server, from the table's description.
fn server_key(describe: &str) -> &'static str {
    match describe.split(':').next().unwrap_or("") {
        "Ch. 3" => "threads",
        "Ch. 4" => "epoll",
        "Ch. 5" => "event_loop",
        "Ch. 6" => "executor",
        "Ch. 7" => "rt",
        _ => "tokio",
    }
}

/// Draws the plots from `out/tables.md` and updates `out/figures.json`,
/// with the quotes of Chapters 7 to 9 that this run measured (`quotes`; see
/// `measured.rs`). With no `tables.md` in `out` and `need_tables` false (a
/// `--only` run into a new folder), only the quotes are recorded.
pub fn draw_and_record(
    out: &Path,
    console: &Console,
    quotes: Vec<Quote>,
    need_tables: bool,
) -> Result<(), Box<dyn Error>> {
    let tables_path = out.join("tables.md");
    let md = match std::fs::read_to_string(&tables_path) {
        Ok(md) => md,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound && !need_tables => {
            console.say(format!(
                "no {} (the appendix's tables were not measured): figures.json gets this run's quotes only",
                tables_path.display()
            ));
            return record(
                &out.join("figures.json"),
                None,
                "",
                BTreeMap::new(),
                quotes,
                console,
            );
        }
        Err(err) => return Err(format!("cannot read {}: {err}", tables_path.display()).into()),
    };
    let (machine, tables) = parse(&md);
    let command = "cargo run --release -p chapter-07 --example report";
    let mut figures = extract(&tables, &format!("{command}: "));

    // Chapter 2: one bar per duration row.
    if let Some(t) = table(&tables, "What a switch costs") {
        let bars: Vec<(String, f64)> = t
            .rows
            .iter()
            .filter_map(|r| Some((r.first()?.clone(), duration_ns(r.get(1)?)?)))
            .collect();
        plots::grouped_bars(
            &out.join("switch-costs.svg"),
            "What a switch costs (median; Chapter 2)",
            "time per operation (log scale)",
            &["median"],
            bars.iter()
                .map(|(name, ns)| Group {
                    name: name.clone(),
                    values: vec![*ns],
                })
                .collect(),
            true,
            plots::ns,
            &machine,
        )?;
    }

    // The echo table: throughput, latency, memory and switches.
    if let Some(t) = table(&tables, "One echo load") {
        let name = |r: &Vec<String>| server_key(&r[0]).replace('_', "-");
        let col = |r: &Vec<String>, i: usize| r.get(i).and_then(|c| number_of(c)).unwrap_or(0.0);
        plots::single_bars(
            &out.join("echo-throughput.svg"),
            "Echo throughput, the same load through every server",
            "messages per second (higher is better)",
            &t.rows
                .iter()
                .map(|r| (name(r), col(r, 2)))
                .collect::<Vec<_>>(),
            None,
            plots::count,
            &machine,
        )?;
        plots::grouped_bars(
            &out.join("echo-latency.svg"),
            "Echo latency, the same load through every server",
            "round-trip latency (lower is better)",
            &["p50", "p99"],
            t.rows
                .iter()
                .map(|r| Group {
                    name: name(r),
                    values: vec![
                        r.get(3).and_then(|c| duration_ns(c)).unwrap_or(0.0),
                        r.get(4).and_then(|c| duration_ns(c)).unwrap_or(0.0),
                    ],
                })
                .collect(),
            false,
            plots::ns,
            &machine,
        )?;
        plots::single_bars(
            &out.join("echo-memory.svg"),
            "Server memory per connection under the same echo load",
            "resident memory per connection (KiB)",
            &t.rows
                .iter()
                .map(|r| (name(r), col(r, 6)))
                .collect::<Vec<_>>(),
            None,
            |x| format!("{x:.2} KiB"),
            &machine,
        )?;
    }

    // The scheduler: times on three runtimes, and our ratio to Tokio's.
    if let Some(t) = table(&tables, "Scheduler workloads") {
        plots::grouped_bars(
            &out.join("scheduler-times.svg"),
            "Tokio's scheduler workloads on three runtimes (median time)",
            "time per run of the workload (log scale; lower is better)",
            &["ours", "Tokio", "async-executor"],
            t.rows
                .iter()
                .map(|r| Group {
                    name: r[0].clone(),
                    values: (1..=3)
                        .map(|i| r.get(i).and_then(|c| duration_ns(c)).unwrap_or(0.0))
                        .collect(),
                })
                .collect(),
            true,
            plots::ns,
            &machine,
        )?;
        let ratio = t.column("ours / Tokio");
        let ratios: Vec<(String, f64)> = t
            .rows
            .iter()
            .map(|r| {
                (
                    r[0].clone(),
                    ratio
                        .and_then(|i| r.get(i))
                        .and_then(|c| number_of(c))
                        .unwrap_or(0.0),
                )
            })
            .collect();
        plots::single_bars(
            &out.join("scheduler-vs-tokio.svg"),
            "Our time over Tokio's per workload (median of per-round ratios)",
            "ours / Tokio (lower is better; the line at 1 is parity)",
            &ratios,
            Some(1.0),
            plots::ratio,
            &machine,
        )?;
    }

    // Timers: four lines against the number pending.
    if let Some(t) = table(&tables, "Timers") {
        let series = |name: &str| -> Vec<(f64, f64)> {
            let Some(i) = t.column(name) else {
                return Vec::new();
            };
            t.rows
                .iter()
                .filter_map(|r| Some((number_of(&r[0])?, number_of(r.get(i)?)?)))
                .collect()
        };
        let mut lines = vec![
            (
                "wheel: insert + cancel".into(),
                series("wheel: insert+cancel"),
            ),
            (
                "heap: insert + cancel".into(),
                series("heap: insert+cancel"),
            ),
            ("wheel: insert + fire".into(), series("wheel: insert+fire")),
            ("heap: insert + fire".into(), series("heap: insert+fire")),
        ];
        let floor = series("floor: two array writes");
        if !floor.is_empty() {
            lines.push(("floor: two array writes".into(), floor));
        }
        plots::timer_lines(&out.join("timers.svg"), lines, &machine)?;
    }

    // An earlier run on another host, kept beside this one: its figures
    // under `other_host_` names, and the two runs side by side.
    let other_path = out.join(OTHER_HOST);
    if let Ok(other_md) = std::fs::read_to_string(&other_path) {
        let (other_machine, other_tables) = parse(&other_md);
        let source = format!("book/src/appendix/{OTHER_HOST} ({other_machine}): ");
        for (name, figure) in extract(&other_tables, &source) {
            figures.insert(format!("other_host_{name}"), figure);
        }
        let hosts = side_by_side(&tables, &machine, &other_tables, &other_machine);
        std::fs::write(out.join("hosts.md"), hosts)
            .map_err(|err| format!("cannot write {}: {err}", out.join("hosts.md").display()))?;
    }

    record(
        &out.join("figures.json"),
        Some(&machine),
        &md,
        figures,
        quotes,
        console,
    )
}

/// The tables of an earlier run on another host, if the folder holds one.
pub const OTHER_HOST: &str = "tables-other-host.md";

/// A figure: value, unit, and where it came from.
type Figure = (f64, &'static str, String);

/// The figures the prose may quote, from one run's tables: the switch
/// costs, each echo server's throughput, memory and switches per message,
/// and our scheduler's ratio to Tokio's. `source` prefixes each one's origin.
fn extract(tables: &[Table], source: &str) -> BTreeMap<String, Figure> {
    let mut figures: BTreeMap<String, Figure> = BTreeMap::new();
    if let Some(t) = table(tables, "What a switch costs") {
        let cell = |label: &str| t.rows.iter().find(|r| r[0] == label).and_then(|r| r.get(1));
        for (label, name, unit, scale) in SWITCH_FIGURES {
            if let Some(ns) = cell(label).and_then(|c| duration_ns(c)) {
                figures.insert(name.into(), (ns * scale, unit, format!("{source}{label}")));
            }
        }
        let label = "size of the yielding future";
        if let Some(bytes) = cell(label).and_then(|c| number_of(c)) {
            figures.insert(
                "yield_future_bytes".into(),
                (bytes, "bytes", format!("{source}{label}")),
            );
        }
    }
    if let Some(t) = table(tables, "One echo load") {
        let col = |r: &Vec<String>, i: usize| r.get(i).and_then(|c| number_of(c)).unwrap_or(0.0);
        for r in &t.rows {
            let key = server_key(&r[0]);
            let from = |what: &str| format!("{source}echo table, {}, {what}", r[0]);
            figures.insert(
                format!("echo_{key}_msgs_per_sec"),
                (col(r, 2), "msgs/s", from("msgs/s")),
            );
            figures.insert(
                format!("echo_{key}_kib_per_connection"),
                (col(r, 6), "KiB", from("memory per connection")),
            );
            figures.insert(
                format!("echo_{key}_switches_per_message"),
                (col(r, 7), "switches", from("switches per message")),
            );
        }
    }
    if let Some(t) = table(tables, "Scheduler workloads")
        && let Some(column) = t.column("ours / Tokio")
    {
        for r in &t.rows {
            if let Some(ratio) = r.get(column).and_then(|c| number_of(c)) {
                figures.insert(
                    format!("sched_{}_ours_over_tokio", r[0]),
                    (ratio, "ratio", format!("{source}scheduler table, {}", r[0])),
                );
            }
        }
    }
    figures
}

/// The switch-table rows recorded as figures: row label, figure name, unit,
/// and the factor from nanoseconds to that unit.
const SWITCH_FIGURES: [(&str, &str, &str, f64); 7] = [
    ("trivial system call (getppid)", "syscall_ns", "ns", 1.0),
    ("function call", "function_call_ns", "ns", 1.0),
    (
        "thread hand-off, one CPU, futex",
        "thread_switch_one_cpu_us",
        "µs",
        1e-3,
    ),
    (
        "thread hand-off, two CPUs, futex",
        "wake_cross_cpu_us",
        "µs",
        1e-3,
    ),
    (
        "process hand-off, one CPU, futex",
        "process_switch_one_cpu_us",
        "µs",
        1e-3,
    ),
    ("fiber switch (raw, inline)", "fiber_switch_ns", "ns", 1.0),
    ("future resume (one poll)", "future_resume_ns", "ns", 1.0),
];

/// Markdown: the switch costs and the echo throughputs of two runs on two
/// hosts, row by row, with this run's figure over the other's.
fn side_by_side(this: &[Table], machine: &str, other: &[Table], other_machine: &str) -> String {
    // "Intel(R) Xeon(R) Processor, 2 logical CPUs, ..." -> "Intel Xeon".
    let short = |m: &str| {
        let first = m.split(',').next().unwrap_or(m);
        let name = first.replace("(R)", "").replace("(TM)", "");
        let name = name.trim();
        name.strip_suffix(" Processor")
            .unwrap_or(name)
            .trim()
            .to_string()
    };
    let mut md = format!(
        "| measure | {} | {} | {} / {} |\n|---|---|---|---|\n",
        short(other_machine),
        short(machine),
        short(machine),
        short(other_machine)
    );
    let mut row = |label: &str, a: &str, b: &str, ratio: Option<f64>| {
        let ratio = ratio.map_or_else(|| "".into(), |r| format!("{r:.2}"));
        md.push_str(&format!("| {label} | {a} | {b} | {ratio} |\n"));
    };
    if let (Some(t), Some(o)) = (
        table(this, "What a switch costs"),
        table(other, "What a switch costs"),
    ) {
        for r in &t.rows {
            let Some(theirs) = o.rows.iter().find(|x| x[0] == r[0]) else {
                continue;
            };
            let (Some(a), Some(b)) = (duration_ns(&theirs[1]), duration_ns(&r[1])) else {
                continue;
            };
            row(&r[0], &theirs[1], &r[1], Some(b / a));
        }
    }
    if let (Some(t), Some(o)) = (table(this, "One echo load"), table(other, "One echo load")) {
        for r in &t.rows {
            let Some(theirs) = o.rows.iter().find(|x| x[0] == r[0]) else {
                continue;
            };
            let (Some(a), Some(b)) = (number_of(&theirs[2]), number_of(&r[2])) else {
                continue;
            };
            row(
                &format!("echo, msgs/s: {}", r[0]),
                &theirs[2],
                &r[2],
                Some(b / a),
            );
        }
    }
    md
}

/// A band's end, rounded to nine decimals (1.915, not 1.9149999999999998).
fn band(x: f64) -> f64 {
    (x * 1e9).round() / 1e9
}

/// Updates `figures.json`: each measured figure's value, unit and source
/// are replaced; its band and the quotes are kept (they are the prose's).
/// A quote this run made (Chapters 7 to 9) replaces its figure entirely:
/// value, and the band its shown number stands for, and its quote, so the
/// page must say what the run measured.
fn record(
    path: &Path,
    machine: Option<&str>,
    md: &str,
    figures: BTreeMap<String, (f64, &str, String)>,
    made: Vec<Quote>,
    console: &Console,
) -> Result<(), Box<dyn Error>> {
    let old: Value = std::fs::read_to_string(path)
        .ok()
        .and_then(|text| serde_json::from_str(&text).ok())
        .unwrap_or_else(|| json!({}));
    let mut all: Map<String, Value> = old["figures"].as_object().cloned().unwrap_or_default();
    for (name, (value, unit, source)) in figures {
        let value = (value * 1000.0).round() / 1000.0;
        let entry = all.entry(name.clone()).or_insert_with(|| json!({}));
        let mut fresh = json!({ "value": value, "unit": unit, "source": source });
        // A band exists only for a figure the prose quotes (set by hand).
        if let (Some(low), Some(high)) = (entry["low"].as_f64(), entry["high"].as_f64()) {
            if value < low || value > high {
                console.say(format!(
                    "warning: {name} measured {value} {unit}, outside the {low} to {high} the book quotes: \
                     update the prose and the band, or rerun"
                ));
            }
            fresh["low"] = json!(low);
            fresh["high"] = json!(high);
            if let Some(note) = entry.get("note") {
                fresh["note"] = note.clone();
            }
        }
        *entry = fresh;
    }
    let mut quotes: Vec<Value> = old["quotes"].as_array().cloned().unwrap_or_default();
    // This run's quotes replace every earlier quote of the same figures.
    quotes.retain(|old| !made.iter().any(|q| old["figure"] == q.figure.as_str()));
    for q in made {
        let value = (q.value * 1000.0).round() / 1000.0;
        all.insert(
            q.figure.clone(),
            json!({ "value": value, "unit": q.unit, "source": q.source, "low": band(q.low), "high": band(q.high) }),
        );
        quotes.push(
            json!({ "page": q.page, "text": q.text, "number": q.number, "figure": q.figure }),
        );
    }
    let measured = md.lines().next().map(|l| l.trim_matches('*').to_string());
    let file = json!({
        "about": "The figures the book's prose quotes: value (this run), low to high (the band the prose states), \
                  and where each is quoted. Written by the report example: the appendix's figures from tables.md, \
                  their bands and quotes kept by hand; the quotes of Chapters 7 to 9 made by the run from what it \
                  measured, each band the rounding of the number the page shows. book/tests/figures.mjs checks them.",
        "measured": measured.map_or_else(|| old["measured"].clone(), Value::from),
        "machine": machine.map_or_else(|| old["machine"].clone(), Value::from),
        "figures": all,
        "quotes": quotes,
    });
    std::fs::write(path, serde_json::to_string_pretty(&file)? + "\n")
        .map_err(|err| format!("cannot write {}: {err}", path.display()))?;
    Ok(())
}
