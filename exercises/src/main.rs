//! The exercise checker: `cargo run -p exercises`.
//!
//! * With no arguments it shows the reader's progress, like rustlings: every
//!   exercise, solved or not, a progress bar, and the next unsolved exercise
//!   with its file, the command that checks it, and its hint.
//! * `hint NAME` prints one exercise's hint.
//! * `watch` re-runs the current exercise's tests each time its file is
//!   saved, and moves on when they pass (`src/watch.rs`).
//! * `verify` is the maintainers' check: every test of every exercise must
//!   FAIL on the stub (a test that passes unsolved checks nothing) and PASS
//!   with the reference solutions (`--features solutions`). It prints
//!   `N exercises: N fail unsolved, N pass solved` and exits 0 only then.
//! * `mutants [EXERCISE...]` is the maintainers' harder check: the tests
//!   must also fail on slightly wrong solutions, which cargo-mutants makes
//!   from the reference ones (`src/mutants.rs`).
//!
//! How it works: each exercise is its own test target (`tests/chNN_topic.rs`),
//! so one exercise that does not compile yet does not stop the others from
//! being checked. The checker asks cargo to build every test target
//! (`--keep-going`, JSON messages), then runs each test executable with a
//! time limit and reads libtest's `test NAME ... ok|FAILED` lines.

mod catalog;
mod mutants;
mod terminal;
mod watch;

use std::collections::HashMap;
use std::io::{self, IsTerminal, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitCode, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use clap::{Parser, Subcommand};
use indicatif::{ProgressBar, ProgressStyle};
use serde_json::Value;

use catalog::{EXERCISES, Exercise};

/// A learner's exercise takes this long at most; a longer run is a hang
/// (a deadlock in a thread pool, say) and counts as a failure.
const TEST_TIME_LIMIT: Duration = Duration::from_secs(120);

/// The book's exercises: your progress, hints, and the maintainers' check.
#[derive(Debug, Parser)]
#[command(name = "exercises")]
struct Cli {
    #[command(subcommand)]
    command: Option<Action>,
}

#[derive(Debug, Subcommand)]
enum Action {
    /// Print the hint for one exercise.
    Hint {
        /// The exercise, e.g. ch01_thread_pool.
        name: String,
    },
    /// List the exercises with their files.
    List,
    /// Maintainers: check that every test fails unsolved and passes solved.
    Verify,
    /// Re-run the current exercise's tests each time you save it; `h` shows
    /// the hint, `q` quits.
    Watch {
        /// Start at this exercise instead of the first unsolved one.
        exercise: Option<String>,
        /// Work on the exercises package in this directory instead of this
        /// one (a copy, say).
        #[arg(long, value_name = "DIR")]
        dir: Option<PathBuf>,
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
    let result = match cli.command {
        None => progress(),
        Some(Action::Hint { name }) => hint(&name),
        Some(Action::List) => {
            list();
            Ok(true)
        }
        Some(Action::Verify) => verify(),
        Some(Action::Watch { exercise, dir }) => {
            let dir = dir.unwrap_or_else(exercises_dir);
            watch::run(&dir, exercise.as_deref())
        }
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

/// Prints the hint for `name`.
fn hint(name: &str) -> io::Result<bool> {
    match catalog::find(name) {
        Some(exercise) => {
            println!("{}: {}\n", exercise.name, exercise.title);
            println!("{}", wrap(exercise.hint, 78));
            Ok(true)
        }
        None => {
            let names: Vec<_> = EXERCISES.iter().map(|e| e.name).collect();
            eprintln!(
                "error: no exercise called {name:?}; there are: {}",
                names.join(", ")
            );
            Ok(false)
        }
    }
}

fn list() {
    for exercise in EXERCISES {
        println!(
            "{:<22} exercises/{:<28} {}",
            exercise.name,
            exercise.stub_path(),
            exercise.title
        );
    }
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
    let build = build_tests(dir, solutions)?;
    let mut results = Vec::new();
    for exercise in EXERCISES {
        spinner.set_message(format!("checking {}", exercise.name));
        let outcome = match build.executables.get(exercise.name) {
            Some(executable) => run_tests(dir, executable)?,
            None => Outcome::DoesNotCompile(
                build
                    .errors
                    .get(exercise.name)
                    .cloned()
                    .unwrap_or_else(|| build.cargo_stderr.clone()),
            ),
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
struct Build {
    /// Test target name to its executable.
    executables: HashMap<String, PathBuf>,
    /// Test target name to the compiler's rendered errors.
    errors: HashMap<String, String>,
    /// Cargo's own complaints (a broken manifest, say).
    cargo_stderr: String,
}

fn build_tests(dir: &Path, solutions: bool) -> io::Result<Build> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut command = Command::new(cargo);
    command
        .arg("build")
        .arg("--manifest-path")
        .arg(dir.join("Cargo.toml"))
        .args(["--tests", "--keep-going", "--message-format=json"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
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
    let mut child = Command::new(executable)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()?;
    let stdout = drain(child.stdout.take());
    let stderr = drain(child.stderr.take());
    if !wait_with_limit(&mut child, TEST_TIME_LIMIT)? {
        return Ok(Outcome::TimedOut);
    }
    let stdout = stdout.join().unwrap_or_default();
    drop(stderr.join());
    Ok(Outcome::Ran(parse_libtest(&stdout)))
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
fn progress() -> io::Result<bool> {
    let results = check_all(&exercises_dir(), false)?;
    let solved = results.iter().filter(|(_, o)| o.solved()).count();
    let total = results.len();
    println!("Exercises: {solved} of {total} solved");
    println!("{}", bar(solved, total, 40));
    println!();
    for (exercise, outcome) in &results {
        let mark = if outcome.solved() { "✓" } else { "✗" };
        println!(
            "  {mark} {:<20} {:<20} {}",
            exercise.name,
            outcome.summary(),
            exercise.title
        );
    }
    println!();
    match results.iter().find(|(_, o)| !o.solved()) {
        None => println!("Every exercise is solved. Well done."),
        Some((exercise, outcome)) => {
            println!("Next: {} ({})", exercise.name, exercise.title);
            println!("  edit   exercises/{}", exercise.stub_path());
            println!("  tests  exercises/{}", exercise.test_path());
            println!("  check  cargo test -p exercises {}", exercise.name);
            println!("  watch  cargo run -p exercises -- watch   (re-runs the tests on save)");
            if let Outcome::DoesNotCompile(errors) = outcome {
                println!("\nThe compiler says:\n{}", errors.trim_end());
            }
            println!("\nHint:\n{}", indent(&wrap(exercise.hint, 74), "  "));
        }
    }
    Ok(true)
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
fn verify() -> io::Result<bool> {
    let unsolved = check_all(&exercises_dir(), false)?;
    let solved = check_all(&exercises_dir(), true)?;
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
    let n = EXERCISES.len();
    println!("{n} exercises: {fail_unsolved} fail unsolved, {pass_solved} pass solved");
    for defect in &defects {
        eprintln!("defect: {defect}");
    }
    Ok(defects.is_empty() && fail_unsolved == n && pass_solved == n)
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

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
            // tests/watch.rs tests the checker's watch mode, not an exercise.
            .filter(|path| path.file_stem().is_some_and(|stem| stem != "watch"))
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
