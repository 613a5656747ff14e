//! Bad input to a chapter binary, every subcommand and every option.
//!
//! Each chapter's `tests/bad_input.rs` includes this file and hands it its
//! binary. The options are not listed by hand: they are read from the
//! binary's own `--help` and each subcommand's `--help`, so a new subcommand
//! or option is tested the day it lands. Each option gets values chosen by
//! its kind (a count, a rate, an address, a directory, ...) that must be
//! refused.
//!
//! The rule every case must meet:
//! * the process ends within [`LIMIT`] (a hang is a failure, not a stuck CI);
//! * its exit status is non-zero, and not 101 (a panic) nor a signal;
//! * stderr is exactly one line, it starts with `error: `, and it names the
//!   option (`--connections`) or the value given;
//! * nothing says "panicked" or offers a backtrace;
//! * stdout is empty: nothing that looks like a result.

use std::io::Read;
use std::net::TcpListener;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// How long one case may run before it is killed and counted as a hang.
pub const LIMIT: Duration = Duration::from_secs(20);

/// A binary under test.
pub struct Binary {
    /// `env!("CARGO_BIN_EXE_chapter-0N")`.
    pub exe: &'static str,
    /// Subcommands left out of `--help` (`#[command(hide = true)]`), which
    /// readers can still run.
    pub hidden: &'static [&'static str],
    /// `(subcommand, option)` pairs for which 0 is a meaningful value (a
    /// deadline of 0 ms: no grace at all), so 0 is not a bad value there.
    pub zero_ok: &'static [(&'static str, &'static str)],
    /// `(subcommand, option)` pairs for which a billion is a meaningful
    /// value (a cap on connections: a billion means no cap).
    pub billion_ok: &'static [(&'static str, &'static str)],
}

/// One option as `--help` shows it.
#[derive(Debug, Clone)]
struct Opt {
    name: String,
    value: Option<String>,
    text: String,
}

/// What an option takes, which decides the bad values it is given.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Kind {
    /// A whole number with a range.
    Integer,
    /// A positive rate (float).
    Rate,
    /// Comma-separated whole numbers.
    List,
    /// An address to listen on.
    Listen,
    /// The address of a server to load.
    Target,
    /// One of a fixed set of names.
    Choice,
    /// A directory to write into.
    Dir,
    /// A file to write.
    OutFile,
    /// A file to read.
    InFile,
}

fn kind(opt: &Opt) -> Kind {
    let value = opt.value.as_deref().unwrap_or_default();
    if opt.text.contains("Possible values") || opt.text.contains("[possible values") {
        return Kind::Choice;
    }
    match (value, opt.name.as_str()) {
        ("DIR", _) => Kind::Dir,
        ("FILE", "out") => Kind::OutFile,
        ("FILE", _) => Kind::InFile,
        ("ADDR", _) if opt.text.contains("server's address") => Kind::Target,
        ("ADDR", _) => Kind::Listen,
        (_, "rate") => Kind::Rate,
        (_, "intervals") => Kind::List,
        _ => Kind::Integer,
    }
}

/// The values every option of `kind` must refuse.
fn bad_values(kind: Kind, zero_ok: bool, billion_ok: bool) -> Vec<String> {
    let mut values: Vec<&str> = match kind {
        Kind::Integer => vec!["-5", "99999999999999999999", "abc", "", "1.5"],
        Kind::Rate => vec!["-5", "0", "1e99", "abc", "", "NaN", "inf"],
        Kind::List => vec!["-5", "0", "99999999999999999999", "abc", "", "7,abc"],
        Kind::Listen | Kind::Target => {
            vec!["nowhere", "abc", "", "-5", "127.0.0.1:99999", "127.0.0.1"]
        }
        Kind::Choice => vec!["abc", "", "-5"],
        Kind::Dir => vec!["/proc/forbidden/x", "/dev/null", "/dev/null/x", ""],
        Kind::OutFile => vec!["/proc/forbidden/x.json", "/", "/dev/null/x.json", ""],
        Kind::InFile => vec!["/nonexistent/x.csv", "/", ""],
    };
    if kind == Kind::Integer && !zero_ok {
        values.push("0");
    }
    // Fits every integer type we parse, and is absurd for a count of
    // connections, threads, rounds or seconds.
    if matches!(kind, Kind::Integer | Kind::List) && !billion_ok {
        values.push("1000000000");
    }
    values.into_iter().map(String::from).collect()
}

/// What one run printed and how it ended.
struct Run {
    code: Option<i32>,
    timed_out: bool,
    stdout: String,
    stderr: String,
}

/// Runs `exe args`, killing it after [`LIMIT`].
fn run(exe: &str, args: &[String]) -> Run {
    let mut child = Command::new(exe)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary starts");
    let mut out = child.stdout.take().unwrap();
    let mut err = child.stderr.take().unwrap();
    let out = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = out.read_to_string(&mut text);
        text
    });
    let err = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = err.read_to_string(&mut text);
        text
    });
    let start = Instant::now();
    let mut timed_out = false;
    let status = loop {
        if let Some(status) = child.try_wait().expect("waiting for the binary") {
            break status;
        }
        if start.elapsed() > LIMIT {
            timed_out = true;
            let _ = child.kill();
            break child.wait().expect("waiting for the killed binary");
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    Run {
        code: status.code(),
        timed_out,
        stdout: out.join().unwrap(),
        stderr: err.join().unwrap(),
    }
}

/// The options the usage line of `help` requires, with their value names
/// (`Usage: chapter-07 trace [OPTIONS] --out <FILE>`).
fn required(help: &str) -> Vec<String> {
    let usage = help
        .lines()
        .find(|line| line.starts_with("Usage:"))
        .unwrap_or_default();
    usage
        .split_whitespace()
        .filter(|word| word.starts_with("--"))
        .map(|word| word.trim_start_matches("--").to_string())
        .collect()
}

/// A good value for a required option, so that a bad value of another
/// option is what the binary refuses; `None` if the test has none to give.
fn good_value(opt: &Opt) -> Option<String> {
    match kind(opt) {
        Kind::Choice => {
            // "- name: what it is" lines of long help, or "[possible values: a, b]".
            let listed = opt.text.lines().find_map(|line| {
                line.trim()
                    .strip_prefix("- ")
                    .and_then(|rest| rest.split(':').next())
            });
            let inline = opt
                .text
                .split_once("[possible values: ")
                .and_then(|(_, rest)| rest.split([',', ']']).next());
            listed.or(inline).map(|name| name.trim().to_string())
        }
        Kind::OutFile => Some(
            std::env::temp_dir()
                .join(format!("bad-input-{}.out", std::process::id()))
                .display()
                .to_string(),
        ),
        _ => None,
    }
}

/// Checks one case against the rule; `Err` says how it broke it.
fn check(run: &Run, option: &str, value: &str) -> Result<(), String> {
    if run.timed_out {
        return Err(format!("still running after {LIMIT:?}: killed"));
    }
    match run.code {
        None => return Err("killed by a signal".into()),
        Some(0) => return Err("exit status 0".into()),
        Some(101) => return Err("exit status 101: a panic".into()),
        Some(_) => {}
    }
    if run.stderr.contains("panicked") || run.stderr.contains("RUST_BACKTRACE") {
        return Err(format!("panicked: {}", run.stderr));
    }
    let lines: Vec<&str> = run.stderr.lines().collect();
    if lines.len() != 1 {
        return Err(format!("{} lines on stderr: {}", lines.len(), run.stderr));
    }
    let line = lines[0];
    if !line.starts_with("error: ") {
        return Err(format!("stderr does not start with 'error: ': {line}"));
    }
    let names_it = line.contains(option) || (!value.is_empty() && line.contains(value));
    if !names_it {
        return Err(format!("names neither {option} nor '{value}': {line}"));
    }
    if !run.stdout.is_empty() {
        return Err(format!("printed on stdout: {}", run.stdout));
    }
    Ok(())
}

/// The subcommands `--help` lists under "Commands:", without `help`.
fn subcommands(help: &str) -> Vec<String> {
    help.lines()
        .skip_while(|line| line.trim() != "Commands:")
        .skip(1)
        .take_while(|line| !line.trim().is_empty())
        .filter_map(|line| line.split_whitespace().next())
        .filter(|name| *name != "help")
        .map(String::from)
        .collect()
}

/// The options `--help` lists under "Options:", each with its help text.
fn options(help: &str) -> Vec<Opt> {
    let mut found: Vec<Opt> = Vec::new();
    for line in help
        .lines()
        .skip_while(|line| line.trim() != "Options:")
        .skip(1)
    {
        let indent = line.len() - line.trim_start().len();
        let trimmed = line.trim();
        if indent <= 6 && trimmed.starts_with('-') {
            let long = trimmed
                .split([' ', ','])
                .find(|word| word.starts_with("--"))
                .expect("every option has a long name");
            let value = trimmed
                .split_once('<')
                .and_then(|(_, rest)| rest.split_once('>'))
                .map(|(value, _)| value.to_string());
            // Short help puts the text on the same line as the name.
            let text = match trimmed.split_once('>') {
                Some((_, rest)) => rest.trim().to_string(),
                None => String::new(),
            };
            found.push(Opt {
                name: long.trim_start_matches("--").to_string(),
                value,
                text: text + "\n",
            });
        } else if let Some(last) = found.last_mut() {
            last.text.push_str(trimmed);
            last.text.push('\n');
        }
    }
    found
}

fn help_of(exe: &str, subcommand: Option<&str>) -> String {
    let mut args: Vec<String> = subcommand.into_iter().map(String::from).collect();
    args.push("--help".into());
    let run = run(exe, &args);
    assert_eq!(run.code, Some(0), "{args:?}: {}", run.stderr);
    run.stdout
}

/// A port nothing listens on: 1 (tcpmux) is below the range any test or
/// server of ours binds, and, unlike a port bound and let go, no other test
/// can be handed it in the meantime.
fn closed_port() -> String {
    "127.0.0.1:1".into()
}

/// Runs every bad value through every option of every subcommand of
/// `binary`; panics with every broken case at once. Returns how many cases
/// ran.
pub fn check_every_option(binary: &Binary) -> usize {
    let top = help_of(binary.exe, None);
    let top_options = options(&top);
    let mut commands: Vec<Option<String>> = vec![None];
    let listed = subcommands(&top);
    assert!(
        !listed.is_empty() || !binary.hidden.is_empty(),
        "no subcommands found in --help:\n{top}"
    );
    for hidden in binary.hidden {
        assert!(
            !listed.iter().any(|name| name == hidden),
            "{hidden} is listed in --help now: take it out of `hidden`"
        );
    }
    commands.extend(listed.into_iter().map(Some));
    commands.extend(binary.hidden.iter().map(|name| Some(name.to_string())));

    let mut cases = 0;
    let mut options_seen = 0;
    let mut failures = Vec::new();
    for command in &commands {
        let help = help_of(binary.exe, command.as_deref());
        let all = options(&help);
        // Global or per-subcommand: `--quick` keeps a run that should have
        // been refused short.
        let quick = all.iter().any(|opt| opt.name == "quick");
        let json = all.iter().any(|opt| opt.name == "json");
        let required = required(&help);
        // Every subcommand, options or not: an unknown option, a stray word.
        for stray in ["--no-such-option", "no-such-word"] {
            let mut args: Vec<String> = command.iter().cloned().collect();
            args.push(stray.into());
            let result = run(binary.exe, &args);
            cases += 1;
            if let Err(why) = check(&result, stray, stray) {
                failures.push(format!("{args:?}: {why}"));
            }
        }
        let opts = match command {
            None => top_options.clone(),
            Some(name) => {
                let opts = all.clone();
                assert!(
                    opts.iter().any(|opt| opt.name == "help"),
                    "{name} --help lists no options"
                );
                // Global options are tested once, without a subcommand.
                opts.into_iter()
                    .filter(|opt| !top_options.iter().any(|top| top.name == opt.name))
                    .collect()
            }
        };
        let sub = command.as_deref().unwrap_or("");
        for opt in opts.iter().filter(|opt| opt.value.is_some()) {
            let kind = kind(opt);
            options_seen += 1;
            let listed =
                |pairs: &[(&str, &str)]| pairs.iter().any(|(s, o)| *s == sub && *o == opt.name);
            let mut values = bad_values(kind, listed(binary.zero_ok), listed(binary.billion_ok));
            // An address that parses but cannot be used (in use, or with
            // nothing listening) is refused after parsing, where `--json`
            // changes where the narrative goes: it runs with and without.
            let parsed = values.len();
            let _taken = match kind {
                Kind::Listen => {
                    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
                    values.push(listener.local_addr().unwrap().to_string());
                    Some(listener)
                }
                Kind::Target => {
                    values.push(closed_port());
                    None
                }
                _ => None,
            };
            let runs = values
                .iter()
                .enumerate()
                .flat_map(|(i, value)| {
                    let twice = i >= parsed && json;
                    [(value, false), (value, true)]
                        .into_iter()
                        .take(1 + usize::from(twice))
                })
                .collect::<Vec<_>>();
            for (value, with_json) in runs {
                let mut args: Vec<String> = command.iter().cloned().collect();
                if quick {
                    args.push("--quick".into());
                }
                if with_json {
                    args.push("--json".into());
                }
                for other in all.iter().filter(|o| o.name != opt.name) {
                    if let (true, Some(good)) = (required.contains(&other.name), good_value(other))
                    {
                        args.extend([format!("--{}", other.name), good]);
                    }
                }
                args.push(format!("--{}", opt.name));
                args.push(value.clone());
                let result = run(binary.exe, &args);
                cases += 1;
                if let Err(why) = check(&result, &format!("--{}", opt.name), value) {
                    failures.push(format!("{args:?} ({kind:?}): {why}"));
                }
            }
        }
    }
    eprintln!(
        "{}: no subcommand and {} subcommands, {options_seen} options with values, {cases} cases",
        binary.exe,
        commands.len() - 1
    );
    assert!(
        failures.is_empty(),
        "{} of {cases} bad-input cases broke the rule:\n{}",
        failures.len(),
        failures.join("\n")
    );
    cases
}
