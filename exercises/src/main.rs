//! The exercise checker: `cargo run -p exercises`, modelled on rustlings.
//!
//! * With no arguments it shows the reader's progress: every exercise,
//!   solved or not, a progress bar, and the next unsolved exercise with its
//!   file and the commands for it.
//! * `list` shows every exercise and where it stands (solved, started, not
//!   started) from the checker's record (`src/state.rs`), without building
//!   anything; `list --start NAME` makes NAME the current exercise, the one
//!   `watch` starts at.
//! * `check NAME` (or `check chNN`, a chapter) builds and runs only those
//!   exercises' tests and prints a short verdict for each: pass, or the
//!   failing tests with the first lines of each failure (`--verbose`: all).
//! * `hint NAME` prints one exercise's hint; nothing else prints a hint
//!   unless asked (`h` in `watch`).
//! * `reset NAME` puts a stub back as shipped, from the copy embedded in this
//!   program (`src/shipped.rs`), after saving the reader's file.
//! * `solution NAME` prints the reference solution and why it is written so,
//!   once the exercise's tests have passed (or with `--anyway`).
//! * `watch` re-runs the current exercise's tests each time its file is
//!   saved, and moves on when they pass (`src/watch.rs`).
//! * `verify` is the maintainers' check: every test of every exercise must
//!   FAIL on the stub (a test that passes unsolved checks nothing) and PASS
//!   with the reference solutions (`--features solutions`). It prints
//!   `N exercises: N fail unsolved, N pass solved` and exits 0 only then.
//! * `near-misses [EXERCISE...]`, also part of `verify`: the tests must
//!   fail on every hand-written wrong solution in `near-misses/`
//!   (`src/near_misses.rs`).
//! * `mutants [EXERCISE...]` is the maintainers' harder check: the tests
//!   must also fail on slightly wrong solutions, which cargo-mutants makes
//!   from the reference ones (`src/mutants.rs`).
//!
//! How it checks: each exercise is its own test target (`tests/chNN_topic.rs`),
//! so one exercise that does not compile yet does not stop the others from
//! being checked. The checker asks cargo to build the test targets it needs
//! (`--test NAME` for each, `--keep-going`, JSON messages), then runs each
//! test executable with a time limit and reads libtest's `test NAME ...
//! ok|FAILED` lines. The few exercises whose tests are loom models build in
//! a second cargo run, with `--cfg loom`, in release, in a target directory
//! of their own (`src/runner.rs`).
//!
//! `--dir DIR` (or `$EXERCISES_DIR`) points every command but `mutants` at
//! another copy of the `exercises/` package; the checker's own tests use it
//! on scratch copies.

mod catalog;
mod mutants;
mod near_misses;
mod runner;
mod shipped;
mod state;
mod terminal;
mod watch;

use std::collections::HashMap;
use std::io::{self, BufRead, IsTerminal, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitCode, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use clap::{Parser, Subcommand};
use indicatif::{ProgressBar, ProgressStyle};
use serde_json::Value;

use catalog::{EXERCISES, Exercise};
use runner::Runner;
use state::{State, Status};

/// A learner's exercise takes this long at most; a longer run is a hang
/// (a deadlock in a thread pool, say) and counts as a failure.
const TEST_TIME_LIMIT: Duration = Duration::from_secs(120);

/// The book's exercises: your progress, checks, hints, solutions, and the
/// maintainers' checks.
#[derive(Debug, Parser)]
#[command(name = "exercises")]
struct Cli {
    /// Work on the exercises package in this directory instead of this one
    /// (a copy, say). Also read from $EXERCISES_DIR.
    #[arg(long, global = true, value_name = "DIR")]
    dir: Option<PathBuf>,
    #[command(subcommand)]
    command: Option<Action>,
}

#[derive(Debug, Subcommand)]
enum Action {
    /// Build and run one exercise's tests (or one chapter's: ch03), each on
    /// its own, and print a short verdict.
    Check {
        /// The exercise (ch01_thread_pool) or the chapter (ch01).
        target: String,
        /// Print every line of every failure and compiler error.
        #[arg(long, short)]
        verbose: bool,
    },
    /// Print the hint for one exercise.
    Hint {
        /// The exercise, e.g. ch01_thread_pool.
        name: String,
    },
    /// List the exercises: solved, started or not started.
    List {
        /// Make this exercise the current one, where `watch` starts.
        #[arg(long, value_name = "NAME")]
        start: Option<String>,
    },
    /// Put an exercise's file back as shipped (yours is saved first).
    Reset {
        /// The exercise, e.g. ch01_thread_pool.
        name: String,
        /// Do not ask for confirmation.
        #[arg(long, short)]
        yes: bool,
    },
    /// Show the reference solution, and why it is written that way, once
    /// your exercise passes.
    Solution {
        /// The exercise, e.g. ch01_thread_pool.
        name: String,
        /// Show it even though your exercise does not pass yet.
        #[arg(long)]
        anyway: bool,
    },
    /// Maintainers: check that every test fails unsolved and passes solved.
    Verify,
    /// Re-run the current exercise's tests each time you save it; `h` shows
    /// the hint, `q` quits.
    Watch {
        /// Start at this exercise instead of the current or first unsolved one.
        exercise: Option<String>,
    },
    /// Maintainers: check that the tests reject every hand-written wrong
    /// solution in exercises/near-misses/ (verify does this too).
    NearMisses {
        /// Exercises (ch06_timeout) or chapters (ch06); all if none.
        exercises: Vec<String>,
    },
    /// Maintainers: check that the tests also reject slightly wrong
    /// solutions, made by cargo-mutants from the reference ones.
    Mutants {
        /// Exercises (ch03_histogram) or chapters (ch03); all if none.
        exercises: Vec<String>,
        /// Only the exercises whose files changed since the merge base with
        /// the upstream branch, or else since the commit before HEAD.
        #[arg(long, conflicts_with = "exercises")]
        changed: bool,
        /// Print the names of the exercises chosen, and test nothing.
        #[arg(long)]
        list: bool,
    },
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(err) if !err.use_stderr() => {
            let _ = err.print();
            return ExitCode::SUCCESS;
        }
        Err(err) => {
            let rendered = err.render().to_string();
            eprintln!(
                "{} (see --help)",
                rendered.lines().next().unwrap_or("error: bad arguments")
            );
            return ExitCode::from(2);
        }
    };
    let dir = cli
        .dir
        .or_else(|| std::env::var_os("EXERCISES_DIR").map(PathBuf::from))
        .unwrap_or_else(exercises_dir);
    let result = match cli.command {
        None => progress(&dir),
        Some(Action::Check { target, verbose }) => check(&dir, &target, verbose),
        Some(Action::Hint { name }) => hint(&name),
        Some(Action::List { start }) => list(&dir, start.as_deref()),
        Some(Action::Reset { name, yes }) => reset(&dir, &name, yes),
        Some(Action::Solution { name, anyway }) => solution(&dir, &name, anyway),
        Some(Action::Verify) => verify(&dir),
        Some(Action::Watch { exercise }) => watch::run(&dir, exercise.as_deref()),
        Some(Action::NearMisses { exercises }) => check_near_misses(&dir, &exercises),
        Some(Action::Mutants {
            exercises,
            changed,
            list,
        }) => mutants::run(&exercises, changed, list),
    };
    match result {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(err) => {
            eprintln!("error: {err}");
            ExitCode::FAILURE
        }
    }
}

/// The `exercises/` directory.
fn exercises_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The exercise called `name`, or an error that lists the names.
fn find(name: &str) -> io::Result<&'static Exercise> {
    catalog::find(name).ok_or_else(|| {
        let names: Vec<_> = EXERCISES.iter().map(|e| e.name).collect();
        io::Error::other(format!(
            "no exercise called {name:?}; there are: {}",
            names.join(", ")
        ))
    })
}

/// Prints the hint for `name`.
fn hint(name: &str) -> io::Result<bool> {
    let exercise = find(name)?;
    println!("{}: {}\n", exercise.name, exercise.title);
    println!("{}", wrap(exercise.hint, 78));
    Ok(true)
}

/// Shows every exercise and where it stands; with `start`, first makes
/// that exercise the current one.
fn list(dir: &Path, start: Option<&str>) -> io::Result<bool> {
    let mut state = State::load(dir);
    if let Some(name) = start {
        let exercise = find(name)?;
        state.current = Some(exercise.name.to_string());
        if state.status(dir, exercise) == Status::NotStarted {
            state.note(dir, exercise, "started");
        }
        state.save(dir)?;
    }
    let mut solved = 0;
    for exercise in EXERCISES {
        let status = state.status(dir, exercise);
        solved += usize::from(status == Status::Solved);
        let mark = match status {
            Status::Solved => "✓",
            Status::Started => "~",
            Status::NotStarted => " ",
        };
        let current = if state.current.as_deref() == Some(exercise.name) {
            ">"
        } else {
            " "
        };
        println!(
            "{current}{mark} {:<24} {:<12} {:<26} {}",
            exercise.name,
            status.label(),
            exercise.stub_path(),
            exercise.title
        );
    }
    println!(
        "\n{solved} of {} solved (as of each exercise's last check). \
         ✓ solved, ~ started, > current.",
        EXERCISES.len()
    );
    if let Some(name) = start {
        let exercise = find(name)?;
        println!("\nCurrent: {} ({})", exercise.name, exercise.title);
        println!("  edit   exercises/{}", exercise.stub_path());
        println!("  check  cargo run -p exercises -- check {}", exercise.name);
        println!("  watch  cargo run -p exercises -- watch   (starts here)");
    }
    Ok(true)
}

/// Puts `name`'s stub back as shipped, after saving the reader's file.
fn reset(dir: &Path, name: &str, yes: bool) -> io::Result<bool> {
    let exercise = find(name)?;
    let shipped = shipped::find(exercise.name).expect("every exercise is shipped");
    let path = dir.join(exercise.stub_path());
    let current = std::fs::read(&path).ok();
    if current.as_deref() == Some(shipped.stub.as_bytes()) {
        println!("exercises/{} is already as shipped.", exercise.stub_path());
        return Ok(true);
    }
    if !yes {
        print!(
            "Reset exercises/{} to the stub as shipped? Your version is saved first. [y/N] ",
            exercise.stub_path()
        );
        io::stdout().flush()?;
        let mut answer = String::new();
        io::stdin().lock().read_line(&mut answer)?;
        if !matches!(answer.trim(), "y" | "Y" | "yes") {
            println!("Nothing changed.");
            return Ok(false);
        }
    }
    if let Some(current) = current {
        let backups = dir.join(state::STATE_DIR).join("backups");
        std::fs::create_dir_all(&backups)?;
        let backup = (1..)
            .map(|n| backups.join(format!("{}-{n}.rs", exercise.name)))
            .find(|path| !path.exists())
            .expect("a free name");
        std::fs::write(&backup, current)?;
        println!("Saved your version as {}", backup.display());
    }
    std::fs::write(&path, shipped.stub)?;
    let mut state = State::load(dir);
    state.forget(exercise);
    state.save(dir)?;
    println!("exercises/{} is back as shipped.", exercise.stub_path());
    Ok(true)
}

/// Prints `name`'s reference solution and why it is written so, if the
/// reader's exercise has passed (or `anyway`).
fn solution(dir: &Path, name: &str, anyway: bool) -> io::Result<bool> {
    let exercise = find(name)?;
    if !anyway && State::load(dir).status(dir, exercise) != Status::Solved {
        eprintln!(
            "{} does not pass yet (or has changed since it passed), so its solution stays \
             hidden.\nCheck it with `cargo run -p exercises -- check {}`; \
             `solution {} --anyway` shows it now.",
            exercise.name, exercise.name, exercise.name
        );
        return Ok(false);
    }
    let shipped = shipped::find(exercise.name).expect("every exercise is shipped");
    println!("{}: {}\n", exercise.name, exercise.title);
    if let Some(explanation) = shipped::explanation(exercise.name) {
        println!("Why it is written this way:\n");
        for paragraph in explanation.split("\n\n") {
            println!("{}\n", indent(&wrap(paragraph, 74), "  "));
        }
    }
    println!("exercises/{}:\n", exercise.solution_path());
    print!("{}", shipped.solution);
    Ok(true)
}

/// The exercises `target` names: one exercise, or a chapter (`ch03`).
fn select(target: &str) -> io::Result<Vec<&'static Exercise>> {
    if let Some(exercise) = catalog::find(target) {
        return Ok(vec![exercise]);
    }
    let chapter: Vec<_> = EXERCISES
        .iter()
        .filter(|e| target.len() == 4 && target.starts_with("ch") && e.chapter() == &target[2..])
        .collect();
    if chapter.is_empty() {
        return Err(find(target)
            .err()
            .unwrap_or_else(|| io::Error::other("no exercise")));
    }
    Ok(chapter)
}

/// How many lines of a failure or a compiler error `check` prints without
/// `--verbose`.
const SHORT: usize = 8;

/// Builds and runs the tests of the exercises `target` names, each on its
/// own, and prints a short verdict for each.
fn check(dir: &Path, target: &str, verbose: bool) -> io::Result<bool> {
    let exercises = select(target)?;
    let spinner = spinner(
        if exercises
            .iter()
            .any(|exercise| Runner::of(exercise) == Runner::Loom)
        {
            "building (loom models build in release with --cfg loom: minutes the first time)"
        } else {
            "building"
        },
    );
    let names: Vec<_> = exercises.iter().map(|e| e.name).collect();
    let build = build_tests(dir, false, Some(&names))?;
    let mut all_passed = true;
    let mut results = Vec::new();
    for exercise in &exercises {
        spinner.set_message(format!("checking {}", exercise.name));
        let (outcome, output) = match build.executables.get(exercise.name) {
            Some(executable) => run_tests_with_output(dir, executable)?,
            None => (
                Outcome::DoesNotCompile(build.errors_of(exercise.name)),
                String::new(),
            ),
        };
        spinner.suspend(|| print_verdict(exercise, &outcome, &output, verbose));
        all_passed &= outcome.solved();
        results.push((*exercise, outcome.solved()));
    }
    spinner.finish_and_clear();
    state::note_results(dir, results.iter().copied(), false)?;
    if let [(exercise, true)] = results[..] {
        println!(
            "`cargo run -p exercises -- solution {}` shows the reference solution.",
            exercise.name
        );
    }
    Ok(all_passed)
}

/// One exercise's verdict, as `check` prints it.
fn print_verdict(exercise: &Exercise, outcome: &Outcome, output: &str, verbose: bool) {
    let mark = if outcome.solved() { "✓" } else { "✗" };
    println!("{mark} {}: {}", exercise.name, outcome.summary());
    match outcome {
        Outcome::DoesNotCompile(errors) => println!("{}", excerpt(errors, verbose)),
        Outcome::Ran(tests) => {
            for (test, _) in tests.iter().filter(|t| !t.1) {
                println!("    FAILED {test}");
                let failure = failure_output(output, test);
                if !failure.is_empty() {
                    println!("{}", excerpt(&failure, verbose));
                }
            }
        }
        Outcome::TimedOut => {}
    }
}

/// `text` indented, cut to [`SHORT`] lines unless `verbose`.
fn excerpt(text: &str, verbose: bool) -> String {
    // The tests include the stub as `tests/../chNN/topic.rs`: name it as
    // the learner knows it.
    let text = text.replace("exercises/tests/../", "exercises/");
    let mut lines: Vec<&str> = text.trim_end().lines().collect();
    if !verbose {
        // A backtrace (under RUST_BACKTRACE) is for --verbose.
        if let Some(at) = lines.iter().position(|l| *l == "stack backtrace:") {
            lines.truncate(at);
        }
        lines.retain(|line| !line.starts_with("note: run with `RUST_BACKTRACE"));
    }
    let shown = if verbose {
        lines.len()
    } else {
        lines.len().min(SHORT)
    };
    let mut out = indent(&lines[..shown].join("\n"), "      ");
    if shown < lines.len() {
        out.push_str(&format!(
            "\n      ... {} more lines (--verbose shows them)",
            lines.len() - shown
        ));
    }
    out
}

/// What libtest printed for the failing `test`: the lines between its
/// `---- TEST stdout ----` header and the next header or the summary.
fn failure_output(output: &str, test: &str) -> String {
    let header = format!("---- {test} stdout ----");
    let Some(start) = output.find(&header) else {
        return String::new();
    };
    output[start + header.len()..]
        .lines()
        .skip(1)
        .take_while(|line| !line.starts_with("---- ") && *line != "failures:")
        .collect::<Vec<_>>()
        .join("\n")
        .trim()
        .to_string()
}

/// What happened to one exercise.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Outcome {
    /// The test target did not compile; the compiler's messages.
    DoesNotCompile(String),
    /// It ran: every test's name and whether it passed.
    Ran(Vec<(String, bool)>),
    /// It ran past [`TEST_TIME_LIMIT`].
    TimedOut,
}

impl Outcome {
    fn solved(&self) -> bool {
        matches!(self, Outcome::Ran(tests) if !tests.is_empty() && tests.iter().all(|t| t.1))
    }

    fn summary(&self) -> String {
        match self {
            Outcome::DoesNotCompile(_) => "does not compile".into(),
            Outcome::TimedOut => format!("timed out after {}s", TEST_TIME_LIMIT.as_secs()),
            Outcome::Ran(tests) => {
                let passed = tests.iter().filter(|t| t.1).count();
                format!("{passed} of {} tests pass", tests.len())
            }
        }
    }
}

/// Builds every exercise's tests, with the stubs or with the solutions, and
/// runs them.
fn check_all(dir: &Path, solutions: bool) -> io::Result<Vec<(&'static Exercise, Outcome)>> {
    let spinner = spinner(if solutions {
        "building with the solutions"
    } else {
        "building your exercises"
    });
    let build = build_tests(dir, solutions, None)?;
    let mut results = Vec::new();
    for exercise in EXERCISES {
        spinner.set_message(format!("checking {}", exercise.name));
        let outcome = match build.executables.get(exercise.name) {
            Some(executable) => run_tests(dir, executable)?,
            None => Outcome::DoesNotCompile(build.errors_of(exercise.name)),
        };
        results.push((exercise, outcome));
    }
    spinner.finish_and_clear();
    Ok(results)
}

fn spinner(message: &str) -> ProgressBar {
    if !io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let spinner = ProgressBar::new_spinner();
    spinner.set_style(ProgressStyle::with_template("{spinner} {msg}").expect("valid template"));
    spinner.set_message(message.to_string());
    spinner.enable_steady_tick(Duration::from_millis(100));
    spinner
}

/// What `cargo build --tests` produced.
#[derive(Default)]
struct Build {
    /// Test target name to its executable.
    executables: HashMap<String, PathBuf>,
    /// Test target name to the compiler's rendered errors.
    errors: HashMap<String, String>,
    /// Cargo's own complaints (a broken manifest, say).
    cargo_stderr: String,
}

impl Build {
    /// Why the test target `name` has no executable: the compiler's errors
    /// for it, or else cargo's own.
    fn errors_of(&self, name: &str) -> String {
        self.errors
            .get(name)
            .cloned()
            .unwrap_or_else(|| self.cargo_stderr.clone())
    }

    /// Adds what another cargo run built.
    fn merge(&mut self, other: Build) {
        self.executables.extend(other.executables);
        self.errors.extend(other.errors);
        self.cargo_stderr.push_str(&other.cargo_stderr);
    }
}

/// Builds the test targets `only` names, or every one: the plain ones in one
/// cargo run, the loom models in another, with their flags
/// ([`runner::Runner`]).
fn build_tests(dir: &Path, solutions: bool, only: Option<&[&str]>) -> io::Result<Build> {
    let is_loom = |name: &str| runner::LOOM.contains(&name);
    let plain: Option<Vec<&str>> = only.map(|names| {
        names
            .iter()
            .copied()
            .filter(|name| !is_loom(name))
            .collect()
    });
    let loom: Vec<&str> = match only {
        Some(names) => names.iter().copied().filter(|name| is_loom(name)).collect(),
        None => runner::LOOM.to_vec(),
    };
    let mut build = match &plain {
        Some(names) if names.is_empty() => Build::default(),
        _ => build_group(dir, solutions, plain.as_deref(), Runner::Plain, None)?,
    };
    if !loom.is_empty() {
        // `--tests` built the loom test files without the cfg: drop those.
        for name in &loom {
            build.executables.remove(*name);
            build.errors.remove(*name);
        }
        build.merge(build_group(
            dir,
            solutions,
            Some(&loom),
            Runner::Loom,
            None,
        )?);
    }
    Ok(build)
}

/// Builds the test targets `only` names, or every one, as `runner` says;
/// in the workspace's target directory, or in `target` if given (the near
/// misses' scratch copy builds in its own).
fn build_group(
    dir: &Path,
    solutions: bool,
    only: Option<&[&str]>,
    runner: Runner,
    target: Option<&Path>,
) -> io::Result<Build> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut command = Command::new(cargo);
    command
        .arg("build")
        .arg("--manifest-path")
        .arg(dir.join("Cargo.toml"))
        .args(["--keep-going", "--message-format=json"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    runner.configure(&mut command, dir);
    if let Some(target) = target {
        command.env("CARGO_TARGET_DIR", runner.target_dir(target));
    }
    match only {
        Some(names) => {
            for name in names {
                command.args(["--test", name]);
            }
        }
        None => {
            command.arg("--tests");
        }
    }
    if solutions {
        command.args(["--features", "solutions"]);
    }
    let output = command.output()?;
    let mut build = Build {
        executables: HashMap::new(),
        errors: HashMap::new(),
        cargo_stderr: String::from_utf8_lossy(&output.stderr)
            .lines()
            .filter(|line| line.contains("error"))
            .collect::<Vec<_>>()
            .join("\n"),
    };
    for line in String::from_utf8_lossy(&output.stdout).lines() {
        let Ok(message) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        let target = message["target"]["name"].as_str().unwrap_or_default();
        let is_test = message["target"]["kind"]
            .as_array()
            .is_some_and(|kinds| kinds.iter().any(|k| k == "test"));
        if !is_test {
            // The checker itself or the library failing stops every test
            // target: say why, for each.
            if message["reason"] == "compiler-message" && message["message"]["level"] == "error" {
                let rendered = message["message"]["rendered"].as_str().unwrap_or_default();
                build.cargo_stderr.push_str(rendered);
            }
            continue;
        }
        match message["reason"].as_str() {
            Some("compiler-artifact") => {
                if let Some(executable) = message["executable"].as_str() {
                    build
                        .executables
                        .insert(target.to_string(), PathBuf::from(executable));
                }
            }
            Some("compiler-message") if message["message"]["level"] == "error" => {
                let rendered = message["message"]["rendered"].as_str().unwrap_or_default();
                let errors = build.errors.entry(target.to_string()).or_default();
                errors.push_str(rendered);
            }
            _ => {}
        }
    }
    Ok(build)
}

/// Runs one test executable and reads libtest's verdict on each test.
fn run_tests(dir: &Path, executable: &Path) -> io::Result<Outcome> {
    Ok(run_tests_with_output(dir, executable)?.0)
}

/// [`run_tests`], and what the tests printed on standard output.
fn run_tests_with_output(dir: &Path, executable: &Path) -> io::Result<(Outcome, String)> {
    let mut child = Command::new(executable)
        .current_dir(dir)
        // Read by the loom models only.
        .env("LOOM_MAX_PREEMPTIONS", runner::LOOM_MAX_PREEMPTIONS)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()?;
    let stdout = drain(child.stdout.take());
    let stderr = drain(child.stderr.take());
    if !wait_with_limit(&mut child, TEST_TIME_LIMIT)? {
        return Ok((Outcome::TimedOut, String::new()));
    }
    let stdout = stdout.join().unwrap_or_default();
    drop(stderr.join());
    Ok((Outcome::Ran(parse_libtest(&stdout)), stdout))
}

/// Reads a pipe to its end on a thread, so neither pipe can fill and block
/// the child.
fn drain(pipe: Option<impl Read + Send + 'static>) -> thread::JoinHandle<String> {
    thread::spawn(move || {
        let mut text = String::new();
        if let Some(mut pipe) = pipe {
            let mut bytes = Vec::new();
            let _ = pipe.read_to_end(&mut bytes);
            text = String::from_utf8_lossy(&bytes).into_owned();
        }
        text
    })
}

/// Waits for `child`; kills it and returns false if it outlives `limit`.
fn wait_with_limit(child: &mut Child, limit: Duration) -> io::Result<bool> {
    let deadline = Instant::now() + limit;
    loop {
        if child.try_wait()?.is_some() {
            return Ok(true);
        }
        if Instant::now() >= deadline {
            child.kill()?;
            child.wait()?;
            return Ok(false);
        }
        thread::sleep(Duration::from_millis(20));
    }
}

/// Every `test NAME ... ok` / `... FAILED` line of libtest's output.
fn parse_libtest(stdout: &str) -> Vec<(String, bool)> {
    stdout
        .lines()
        .filter_map(|line| {
            let rest = line.strip_prefix("test ")?;
            let (name, verdict) = rest.rsplit_once(" ... ")?;
            match verdict.trim() {
                "ok" => Some((name.to_string(), true)),
                "FAILED" => Some((name.to_string(), false)),
                _ => None,
            }
        })
        .collect()
}

/// The reader's view: what is solved, and what to do next.
fn progress(dir: &Path) -> io::Result<bool> {
    let results = check_all(dir, false)?;
    state::note_results(dir, results.iter().map(|(e, o)| (*e, o.solved())), true)?;
    print!("{}", render_progress(&results));
    Ok(true)
}

/// The progress view's text. It names the hint command but never prints a
/// hint: hints are shown only when asked for.
fn render_progress(results: &[(&Exercise, Outcome)]) -> String {
    let mut out = String::new();
    let solved = results.iter().filter(|(_, o)| o.solved()).count();
    let total = results.len();
    out.push_str(&format!("Exercises: {solved} of {total} solved\n"));
    out.push_str(&format!("{}\n\n", bar(solved, total, 40)));
    for (exercise, outcome) in results {
        let mark = if outcome.solved() { "✓" } else { "✗" };
        out.push_str(&format!(
            "  {mark} {:<24} {:<20} {}\n",
            exercise.name,
            outcome.summary(),
            exercise.title
        ));
    }
    out.push('\n');
    match results.iter().find(|(_, o)| !o.solved()) {
        None => out.push_str("Every exercise is solved. Well done.\n"),
        Some((exercise, outcome)) => {
            let name = exercise.name;
            out.push_str(&format!("Next: {name} ({})\n", exercise.title));
            out.push_str(&format!("  edit   exercises/{}\n", exercise.stub_path()));
            out.push_str(&format!("  tests  exercises/{}\n", exercise.test_path()));
            out.push_str(&format!(
                "  check  cargo run -p exercises -- check {name}\n"
            ));
            out.push_str(
                "  watch  cargo run -p exercises -- watch   (re-runs the tests on save)\n",
            );
            out.push_str(&format!("  hint   cargo run -p exercises -- hint {name}\n"));
            if let Outcome::DoesNotCompile(errors) = outcome {
                out.push_str(&format!("\nThe compiler says:\n{}\n", errors.trim_end()));
            }
        }
    }
    out
}

/// `[#########.........] 45%`
fn bar(done: usize, total: usize, width: usize) -> String {
    let filled = (done * width).checked_div(total).unwrap_or(width);
    let percent = (done * 100).checked_div(total).unwrap_or(100);
    format!(
        "[{}{}] {percent}%",
        "#".repeat(filled),
        ".".repeat(width - filled)
    )
}

/// The maintainers' check.
fn verify(dir: &Path) -> io::Result<bool> {
    let unsolved = check_all(dir, false)?;
    let solved = check_all(dir, true)?;
    let mut defects = Vec::new();
    let mut fail_unsolved = 0;
    let mut pass_solved = 0;
    for ((exercise, stub), (_, solution)) in unsolved.iter().zip(&solved) {
        match stub {
            Outcome::Ran(tests) if tests.is_empty() => {
                defects.push(format!("{}: no tests ran", exercise.name));
            }
            Outcome::Ran(tests) => {
                let passing: Vec<_> = tests.iter().filter(|t| t.1).map(|t| &t.0).collect();
                if passing.is_empty() {
                    fail_unsolved += 1;
                } else {
                    for test in passing {
                        defects.push(format!(
                            "{}: test {test} passes on the stub, so it checks nothing",
                            exercise.name
                        ));
                    }
                }
            }
            Outcome::DoesNotCompile(errors) => defects.push(format!(
                "{}: the stub does not compile:\n{errors}",
                exercise.name
            )),
            Outcome::TimedOut => defects.push(format!("{}: the stub hangs", exercise.name)),
        }
        if solution.solved() {
            pass_solved += 1;
        } else {
            let detail = match solution {
                Outcome::Ran(tests) => tests
                    .iter()
                    .filter(|t| !t.1)
                    .map(|t| format!("\n    {} fails", t.0))
                    .collect(),
                Outcome::DoesNotCompile(errors) => format!("\n{errors}"),
                Outcome::TimedOut => String::new(),
            };
            defects.push(format!(
                "{}: the reference solution exercises/{} does not pass ({}){detail}",
                exercise.name,
                exercise.solution_path(),
                solution.summary()
            ));
        }
        println!(
            "  {:<24} unsolved: {:<22} solved: {}",
            exercise.name,
            stub.summary(),
            solution.summary()
        );
    }
    defects.extend(near_misses::check(dir, &[])?);
    let n = EXERCISES.len();
    println!("{n} exercises: {fail_unsolved} fail unsolved, {pass_solved} pass solved");
    for defect in &defects {
        eprintln!("defect: {defect}");
    }
    Ok(defects.is_empty() && fail_unsolved == n && pass_solved == n)
}

/// `near-misses [EXERCISE...]`: the near-miss part of `verify` alone.
fn check_near_misses(dir: &Path, names: &[String]) -> io::Result<bool> {
    let mut chosen = Vec::new();
    for name in names {
        chosen.extend(select(name)?);
    }
    let defects = near_misses::check(dir, &chosen)?;
    for defect in &defects {
        eprintln!("defect: {defect}");
    }
    Ok(defects.is_empty())
}

fn wrap(text: &str, width: usize) -> String {
    let mut lines = Vec::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        if !line.is_empty() && line.len() + 1 + word.len() > width {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines.join("\n")
}

fn indent(text: &str, prefix: &str) -> String {
    text.lines()
        .map(|line| format!("{prefix}{line}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The test targets in `tests/` that test the checker, not an exercise.
#[cfg(test)]
const CHECKER_TESTS: &[&str] = &["watch", "commands", "near_misses"];

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    #[test]
    fn the_progress_view_never_prints_a_hint() {
        let results: Vec<_> = EXERCISES
            .iter()
            .map(|e| (e, Outcome::Ran(vec![("t".into(), false)])))
            .collect();
        let text = render_progress(&results);
        assert!(text.contains("hint ch01_proc_status"), "{text}");
        for exercise in EXERCISES {
            let start: String = exercise
                .hint
                .split_whitespace()
                .take(6)
                .collect::<Vec<_>>()
                .join(" ");
            assert!(
                !text.contains(&start),
                "{}'s hint is printed:\n{text}",
                exercise.name
            );
        }
    }

    #[test]
    fn a_failure_is_cut_from_libtest_output() {
        let out = "running 2 tests\ntest a ... FAILED\ntest b ... FAILED\n\nfailures:\n\n\
                   ---- a stdout ----\n\nthread 'a' panicked at x.rs:1:1:\nboom\n\n\
                   ---- b stdout ----\nthread 'b' panicked\n\nfailures:\n    a\n    b\n";
        assert_eq!(
            failure_output(out, "a"),
            "thread 'a' panicked at x.rs:1:1:\nboom"
        );
        assert_eq!(failure_output(out, "b"), "thread 'b' panicked");
        assert_eq!(failure_output(out, "c"), "");
    }

    #[test]
    fn a_chapter_selects_its_exercises() {
        let names: Vec<_> = select("ch05").unwrap().iter().map(|e| e.name).collect();
        assert_eq!(
            names,
            [
                "ch05_timer_heap",
                "ch05_slab",
                "ch05_poll_timeout",
                "ch05_next_tick"
            ]
        );
        assert_eq!(select("ch05_slab").unwrap().len(), 1);
        assert!(select("ch5").is_err());
        assert!(select("ch99").is_err());
    }

    #[test]
    fn the_catalog_and_the_files_agree() {
        let dir = exercises_dir();
        for exercise in EXERCISES {
            for path in [
                exercise.stub_path(),
                exercise.solution_path(),
                exercise.test_path(),
            ] {
                assert!(
                    dir.join(&path).is_file(),
                    "{}: missing {path}",
                    exercise.name
                );
            }
        }
        let on_disk: BTreeSet<String> = std::fs::read_dir(dir.join("tests"))
            .unwrap()
            .map(|entry| entry.unwrap().path())
            .filter(|path| path.extension().is_some_and(|e| e == "rs"))
            // The checker's own tests, not exercises.
            .filter(|path| {
                path.file_stem()
                    .is_some_and(|stem| !CHECKER_TESTS.iter().any(|t| stem == *t))
            })
            .map(|path| path.file_stem().unwrap().to_string_lossy().into_owned())
            .collect();
        let listed: BTreeSet<String> = EXERCISES.iter().map(|e| e.name.to_string()).collect();
        assert_eq!(on_disk, listed, "tests/*.rs and the catalog differ");
    }

    #[test]
    fn names_are_unique_and_well_formed() {
        let mut seen = BTreeSet::new();
        for exercise in EXERCISES {
            assert!(seen.insert(exercise.name), "{} twice", exercise.name);
            assert!(exercise.name.starts_with("ch"));
            assert!(exercise.chapter().parse::<u8>().is_ok());
            assert_eq!(&exercise.name[4..5], "_");
        }
    }

    #[test]
    fn libtest_lines_are_read() {
        let out = "running 3 tests\ntest ch01_x::a ... ok\ntest ch01_x::b ... FAILED\n\
                   test ch01_x::c ... ignored\n\ntest result: FAILED. 1 passed; 1 failed";
        assert_eq!(
            parse_libtest(out),
            vec![
                ("ch01_x::a".to_string(), true),
                ("ch01_x::b".to_string(), false)
            ]
        );
    }

    #[test]
    fn outcomes_count_as_solved_only_when_every_test_passes() {
        assert!(Outcome::Ran(vec![("a".into(), true)]).solved());
        assert!(!Outcome::Ran(vec![("a".into(), true), ("b".into(), false)]).solved());
        assert!(!Outcome::Ran(vec![]).solved());
        assert!(!Outcome::TimedOut.solved());
    }

    #[test]
    fn the_bar_fills_in_proportion() {
        assert_eq!(bar(0, 4, 8), "[........] 0%");
        assert_eq!(bar(1, 4, 8), "[##......] 25%");
        assert_eq!(bar(4, 4, 8), "[########] 100%");
    }
}
