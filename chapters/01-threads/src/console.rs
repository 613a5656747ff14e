//! How every chapter binary talks to its reader.
//!
//! The book promises the same conventions in every chapter ("How to use this
//! book"), so they live in one place and later chapters reuse them:
//!
//! * `--json` prints exactly one JSON object on stdout, with flat snake_case
//!   keys that carry their unit (`_ns`, `_kib`, `_per_sec`) and an
//!   `"experiment"` key. Everything meant for a human goes to stderr then, so
//!   `cargo run -p chapter-01 -- --json | jq` always sees valid JSON.
//! * Without `--json`, the narrative and the final table go to stdout.
//! * Long runs show a progress bar on stderr, hidden when stderr is not a
//!   terminal (tests, CI, pipes).
//! * Bad input ends with one clear `error: ...` line and a non-zero exit; a
//!   panic backtrace is never the answer to a typo.

use std::fmt::Display;
use std::io::{self, IsTerminal, Write};
use std::process::ExitCode;
use std::time::Duration;

use clap::Parser;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use serde_json::{Map, Value};

/// Parses the command line, or ends the process with one line of explanation.
///
/// clap's own errors are several lines long (usage, a tip); we keep the first,
/// which names the problem, and add a pointer to `--help`. `--help` and
/// `--version` are printed in full and exit with status 0.
///
/// A negative number is read as a value, not as a flag, in every subcommand,
/// so `--connections -5` is refused by the option's own range check ("invalid
/// value '-5' for '--connections <N>'") rather than as an unknown `-5`.
pub fn parse_args<T: Parser>() -> T {
    let command = negative_numbers_are_values(T::command());
    match command
        .try_get_matches()
        .and_then(|matches| T::from_arg_matches(&matches))
    {
        Ok(args) => args,
        Err(err) if !err.use_stderr() => {
            // --help or --version: print as clap intends and succeed.
            let _ = err.print();
            std::process::exit(0);
        }
        Err(err) => {
            eprintln!("{} (see --help)", first_line(&err.render().to_string()));
            std::process::exit(2);
        }
    }
}

/// `command` and all its subcommands, reading `-5` as a value.
fn negative_numbers_are_values(command: clap::Command) -> clap::Command {
    command
        .allow_negative_numbers(true)
        .mut_subcommands(negative_numbers_are_values)
}

/// The line of a clap error that names the problem. When it ends with a
/// colon ("the following required arguments were not provided:"), the next
/// line, which names the argument, is joined to it.
fn first_line(rendered: &str) -> String {
    let mut lines = rendered.lines().map(str::trim).filter(|l| !l.is_empty());
    let first = lines.next().unwrap_or("error: invalid arguments");
    match (first.strip_suffix(':'), lines.next()) {
        (Some(head), Some(next)) if !next.starts_with("Usage:") => format!("{head}: {next}"),
        _ => first.to_string(),
    }
}

/// clap's value parser for a directory the binary writes into (`--plot DIR`).
///
/// It creates the directory and checks that a file can be written there
/// while the arguments are read, so a bad path is refused in one line before
/// an experiment runs for minutes and then fails to save its plot.
pub fn output_dir(text: &str) -> Result<std::path::PathBuf, String> {
    if text.is_empty() {
        return Err("an empty path names no directory".into());
    }
    let dir = std::path::PathBuf::from(text);
    std::fs::create_dir_all(&dir).map_err(|err| format!("cannot create {text}: {err}"))?;
    if !dir.is_dir() {
        return Err(format!("{text} is not a directory"));
    }
    writable(&dir).map_err(|err| format!("cannot write into {text}: {err}"))?;
    Ok(dir)
}

/// Creates and removes an empty file in `dir`: the only sure test that a
/// file can be written there (permissions, read-only mounts, /proc).
fn writable(dir: &std::path::Path) -> io::Result<()> {
    let probe = dir.join(format!(".write-test-{}", std::process::id()));
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&probe)?;
    std::fs::remove_file(&probe)
}

/// Turns the result of a binary's `run` into its exit code, printing the error
/// (and its causes) on one line.
pub fn exit_code(result: Result<(), Box<dyn std::error::Error>>) -> ExitCode {
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            let mut line = format!("error: {err}");
            let mut source = err.source();
            while let Some(cause) = source {
                line.push_str(&format!(": {cause}"));
                source = cause.source();
            }
            eprintln!("{line}");
            ExitCode::FAILURE
        }
    }
}

/// Where a binary writes: narrative, progress bars and the final report.
#[derive(Debug, Clone, Copy)]
pub struct Console {
    json: bool,
}

impl Console {
    /// A console for the given output mode.
    pub fn new(json: bool) -> Console {
        Console { json }
    }

    /// Whether `--json` was asked for.
    pub fn is_json(&self) -> bool {
        self.json
    }

    /// Prints one line of narrative: to stdout for humans, to stderr in JSON
    /// mode so stdout holds nothing but the JSON object.
    pub fn say(&self, line: impl Display) {
        if self.json {
            eprintln!("{line}");
        } else {
            println!("{line}");
        }
    }

    /// A progress bar of `len` steps on stderr, hidden when stderr is not a
    /// terminal.
    pub fn progress(&self, len: u64, what: &str) -> ProgressBar {
        if !io::stderr().is_terminal() {
            return ProgressBar::hidden();
        }
        let bar = ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::stderr());
        bar.set_style(
            ProgressStyle::with_template("{msg:>22} [{bar:32}] {pos}/{len} {elapsed}")
                .expect("the template is valid")
                .progress_chars("=> "),
        );
        bar.set_message(what.to_string());
        bar.enable_steady_tick(Duration::from_millis(200));
        bar
    }

    /// Prints the final report: the JSON object on stdout in JSON mode, a
    /// table on stdout otherwise.
    pub fn finish(&self, report: &Report) -> io::Result<()> {
        let mut out = io::stdout().lock();
        if self.json {
            serde_json::to_writer(&mut out, &report.to_json())?;
            writeln!(out)?;
        } else {
            write!(out, "{}", report.to_table())?;
        }
        out.flush()
    }
}

/// One measured figure: the JSON key, what a human calls it, and the value.
#[derive(Debug, Clone)]
struct Field {
    key: String,
    label: String,
    value: Value,
}

/// The figures an experiment measured, in the order it measured them.
///
/// A `Report` renders as a flat JSON object (`{"experiment": ..., key:
/// value, ...}`) or as a two-column table for humans. Keys must carry their
/// unit; the table derives the unit it shows from the key's suffix.
#[derive(Debug, Clone)]
pub struct Report {
    experiment: String,
    fields: Vec<Field>,
}

impl Report {
    /// An empty report for the named experiment (the subcommand's name, or
    /// `"demo"` for the guided tour).
    pub fn new(experiment: &str) -> Report {
        Report {
            experiment: experiment.to_string(),
            fields: Vec::new(),
        }
    }

    /// The experiment's name.
    pub fn experiment(&self) -> &str {
        &self.experiment
    }

    /// Adds a figure. `key` is the JSON key (snake_case, unit suffix);
    /// `label` is the table's wording for it.
    pub fn add(&mut self, key: &str, label: &str, value: impl Into<Value>) -> &mut Report {
        debug_assert!(
            key.bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_'),
            "report keys are snake_case: {key}"
        );
        self.fields.push(Field {
            key: key.to_string(),
            label: label.to_string(),
            value: value.into(),
        });
        self
    }

    /// Appends every figure of `other` (used by the guided demo, which runs
    /// several experiments and reports them as one object).
    pub fn extend(&mut self, other: Report) -> &mut Report {
        self.fields.extend(other.fields);
        self
    }

    /// Drops every figure whose key starts with `prefix` (the demos drop
    /// each part's `machine_` keys and add them once at the end).
    pub fn remove_prefixed(&mut self, prefix: &str) -> &mut Report {
        self.fields.retain(|f| !f.key.starts_with(prefix));
        self
    }

    /// The value recorded under `key`, if any.
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.fields.iter().find(|f| f.key == key).map(|f| &f.value)
    }

    /// The report as one flat JSON object, `"experiment"` first.
    pub fn to_json(&self) -> Value {
        let mut map = Map::new();
        map.insert("experiment".into(), Value::from(self.experiment.clone()));
        for field in &self.fields {
            map.insert(field.key.clone(), field.value.clone());
        }
        Value::Object(map)
    }

    /// Every figure as `(key, label, value)`, in the order measured (for
    /// other renderings, such as the book's benchmark appendix).
    pub fn fields(&self) -> impl Iterator<Item = (&str, &str, &Value)> {
        self.fields
            .iter()
            .map(|f| (f.key.as_str(), f.label.as_str(), &f.value))
    }

    /// The report as an aligned, human-readable table. A figure that was
    /// not measured (a JSON `null`) has no row, and a label's own unit in
    /// brackets ("elapsed (ms)") is dropped where the value shows its unit
    /// ("237 ms"), so no row says its unit twice, or two different units.
    pub fn to_table(&self) -> String {
        let rows: Vec<(&str, String)> = self
            .fields
            .iter()
            .filter(|f| !f.value.is_null())
            .map(|f| {
                let shown = human_value(&f.key, &f.value);
                let label = if shows_unit(&f.key, &f.value) {
                    without_unit(&f.label)
                } else {
                    f.label.as_str()
                };
                (label, shown)
            })
            .collect();
        let width = rows
            .iter()
            .map(|(label, _)| label.chars().count())
            .max()
            .unwrap_or(0);
        let mut out = String::new();
        for (label, shown) in rows {
            out.push_str(&format!("  {label:<width$}  {shown}\n"));
        }
        out
    }
}

/// Whether `human_value` writes a unit after this value.
fn shows_unit(key: &str, value: &Value) -> bool {
    value.is_number()
        && ["_ns", "_us", "_ms", "_kib", "_bytes", "_per_sec"]
            .iter()
            .any(|suffix| key.ends_with(suffix))
}

/// "elapsed (ms)" → "elapsed"; "wait p50 (µs), interval 1" is left alone:
/// only a bracketed unit at the very end goes.
fn without_unit(label: &str) -> &str {
    const UNITS: [&str; 12] = [
        "ns", "µs", "us", "ms", "s", "KiB", "MiB", "GiB", "bytes", "/s", "ns each", "µs each",
    ];
    label
        .strip_suffix(')')
        .and_then(|rest| rest.rsplit_once(" ("))
        .filter(|(_, unit)| UNITS.contains(unit))
        .map_or(label, |(head, _)| head)
}

/// Formats a value for the table, using the key's unit suffix.
fn human_value(key: &str, value: &Value) -> String {
    let Some(number) = value.as_f64() else {
        return match value {
            Value::String(s) => s.clone(),
            Value::Null => "n/a".into(),
            Value::Array(rows) => format!("{} rows (shown above)", rows.len()),
            other => other.to_string(),
        };
    };
    if key.ends_with("_ns") {
        human_duration_ns(number)
    } else if key.ends_with("_us") {
        human_duration_ns(number * 1e3)
    } else if key.ends_with("_ms") {
        human_duration_ns(number * 1e6)
    } else if key.ends_with("_kib") {
        human_kib(number)
    } else if key.ends_with("_bytes") && number >= 1024.0 {
        human_kib(number / 1024.0)
    } else if key.ends_with("_per_sec") {
        format!("{}/s", group_thousands(number))
    } else if key.ends_with("_ratio") || key.contains("_ratio_") {
        format!("{number:.2}x")
    } else {
        group_thousands(number)
    }
}

/// A count and its noun, in the singular for one: `1 task`, `2 tasks`,
/// `10,000 tasks`. (Every noun the binaries count takes a plain `s`.)
pub fn count(n: u64, noun: &str) -> String {
    let s = if n == 1 { "" } else { "s" };
    format!("{} {noun}{s}", group_thousands(n as f64))
}

/// `1234.5` ns as `1.23 µs`, and so on: three significant figures, unit chosen
/// so the number stays readable.
pub fn human_duration_ns(ns: f64) -> String {
    let (value, unit) = if ns >= 1e9 {
        (ns / 1e9, "s")
    } else if ns >= 1e6 {
        (ns / 1e6, "ms")
    } else if ns >= 1e3 {
        (ns / 1e3, "µs")
    } else {
        (ns, "ns")
    };
    format!("{} {unit}", three_significant(value))
}

/// Kibibytes as KiB, MiB or GiB.
pub fn human_kib(kib: f64) -> String {
    if kib >= 1024.0 * 1024.0 {
        format!("{} GiB", three_significant(kib / (1024.0 * 1024.0)))
    } else if kib >= 1024.0 {
        format!("{} MiB", three_significant(kib / 1024.0))
    } else {
        format!("{} KiB", three_significant(kib))
    }
}

fn three_significant(value: f64) -> String {
    if value >= 100.0 {
        format!("{value:.0}")
    } else if value >= 10.0 {
        format!("{value:.1}")
    } else {
        format!("{value:.2}")
    }
}

/// `1234567` as `1,234,567`; non-integers keep two decimals.
pub fn group_thousands(number: f64) -> String {
    if number.fract() != 0.0 && number.abs() < 1000.0 {
        return format!("{number:.2}");
    }
    let negative = number < 0.0;
    let digits = format!("{:.0}", number.abs());
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    if negative { format!("-{out}") } else { out }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_output_dir_is_created_or_refused_in_one_line() {
        let dir = std::env::temp_dir().join(format!("output-dir-{}/a/b", std::process::id()));
        assert_eq!(output_dir(dir.to_str().unwrap()).unwrap(), dir);
        assert!(dir.is_dir());
        // The write probe leaves nothing behind.
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
        std::fs::remove_dir_all(dir.parent().unwrap().parent().unwrap()).unwrap();
        for (bad, says) in [
            ("", "empty path"),
            ("/proc/forbidden/x", "cannot create /proc/forbidden/x"),
            ("/dev/null", "cannot create /dev/null"),
        ] {
            let err = output_dir(bad).unwrap_err();
            assert!(err.contains(says), "{bad}: {err}");
            assert_eq!(err.lines().count(), 1, "{bad}: {err}");
        }
    }

    #[test]
    fn json_is_flat_and_starts_with_the_experiment() {
        let mut report = Report::new("spawn-cost");
        report.add("thread_spawn_ns", "thread", 12345.0);
        report.add("runs", "runs", 10);
        let json = report.to_json();
        let keys: Vec<_> = json.as_object().unwrap().keys().cloned().collect();
        assert_eq!(keys, ["experiment", "thread_spawn_ns", "runs"]);
        assert_eq!(json["experiment"], "spawn-cost");
    }

    #[test]
    fn table_uses_the_unit_in_the_key() {
        let mut report = Report::new("x");
        report.add("a_ns", "a", 1500.0);
        report.add("b_kib", "b", 2048.0);
        report.add("c", "c", 1234567);
        let table = report.to_table();
        assert!(table.contains("1.50 µs"), "{table}");
        assert!(table.contains("2.00 MiB"), "{table}");
        assert!(table.contains("1,234,567"), "{table}");
    }

    #[test]
    fn a_row_says_its_unit_once_and_unmeasured_figures_have_no_row() {
        let mut report = Report::new("x");
        report.add("elapsed_ms", "elapsed (ms)", 237.0);
        report.add("wait_p50_us", "interval 1: wait p50 (µs)", 2170.0);
        report.add("tasks", "tasks (count)", 3);
        report.add("steals", "steals", Value::Null);
        let table = report.to_table();
        let row = |label: &str| {
            table
                .lines()
                .find_map(|line| line.trim().strip_prefix(label).map(str::trim))
                .map(str::to_string)
        };
        assert_eq!(row("elapsed").as_deref(), Some("237 ms"), "{table}");
        assert_eq!(
            row("interval 1: wait p50").as_deref(),
            Some("2.17 ms"),
            "{table}"
        );
        assert!(
            !table.contains("(ms)") && !table.contains("(µs)"),
            "{table}"
        );
        assert!(table.contains("tasks (count)"), "{table}");
        assert!(
            !table.contains("steals") && !table.contains("n/a"),
            "{table}"
        );
    }

    #[test]
    fn a_negative_number_reaches_the_range_check() {
        #[derive(Debug, Parser)]
        struct Cli {
            #[command(subcommand)]
            command: Sub,
        }
        #[derive(Debug, clap::Subcommand)]
        enum Sub {
            Load {
                #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
                connections: u32,
            },
        }
        let command = negative_numbers_are_values(<Cli as clap::CommandFactory>::command());
        let err = command
            .try_get_matches_from(["x", "load", "--connections", "-5"])
            .unwrap_err()
            .render()
            .to_string();
        assert!(
            first_line(&err)
                .starts_with("error: invalid value '-5' for '--connections <CONNECTIONS>'"),
            "{err}"
        );
    }

    #[test]
    fn a_count_of_one_is_singular() {
        assert_eq!(count(1, "task"), "1 task");
        assert_eq!(count(0, "thread"), "0 threads");
        assert_eq!(count(10_000, "connection"), "10,000 connections");
    }

    #[test]
    fn a_clap_error_becomes_one_line() {
        let missing = "error: the following required arguments were not provided:\n  \
                       --addr <ADDR>\n\nUsage: chapter-03 load --addr <ADDR>\n";
        assert_eq!(
            first_line(missing),
            "error: the following required arguments were not provided: --addr <ADDR>"
        );
        let unknown = "error: unexpected argument '--x' found\n\nUsage: chapter-01\n";
        assert_eq!(
            first_line(unknown),
            "error: unexpected argument '--x' found"
        );
    }

    #[test]
    fn numbers_are_grouped() {
        assert_eq!(group_thousands(0.0), "0");
        assert_eq!(group_thousands(999.0), "999");
        assert_eq!(group_thousands(1000.0), "1,000");
        assert_eq!(group_thousands(-1234567.0), "-1,234,567");
        assert_eq!(group_thousands(1.5), "1.50");
    }
}
