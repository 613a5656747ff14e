//! The checker's commands as a learner types them: `list`, `reset`, `hint`,
//! `solution` and `check`, each on a scratch copy (`--dir`), so your
//! exercise files are never touched.
//!
//! Every test but the last works on a copy of `exercises/` alone: those
//! commands read and write files and build nothing. The last builds a copy
//! of the workspace, with one stub broken and another solved.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

mod common;
use common::{copy, target, workspace, workspace_copy};

/// A command that builds nothing ends well within this.
const QUICK: Duration = Duration::from_secs(60);
/// A build of the workspace copy can take minutes the first time.
const PATIENCE: Duration = Duration::from_secs(900);

/// A fresh copy of `exercises/` for the test `name`.
fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("commands")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    copy(&workspace().join("exercises"), &dir, false);
    dir
}

/// What one run of the checker did.
struct Run {
    success: bool,
    stdout: String,
    stderr: String,
}

impl Run {
    fn all(&self) -> String {
        format!("{}{}", self.stdout, self.stderr)
    }
}

/// Runs the checker on the package in `dir` with `args`, `input` on its
/// standard input, killing it if it outlives `limit`.
fn run(dir: &Path, args: &[&str], input: &str, limit: Duration) -> Run {
    let mut child = Command::new(env!("CARGO_BIN_EXE_exercises"))
        .arg("--dir")
        .arg(dir)
        .args(args)
        .env("CARGO_TARGET_DIR", target())
        // libtest's note on backtraces, not a backtrace: the same either way.
        .env("RUST_BACKTRACE", "0")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the checker runs");
    let mut stdin = child.stdin.take().unwrap();
    // The checker may not read its input: a closed pipe is no failure here.
    let _ = stdin.write_all(input.as_bytes());
    drop(stdin);
    let drain = |pipe: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut text = String::new();
            if let Some(mut pipe) = pipe {
                let _ = pipe.read_to_string(&mut text);
            }
            text
        })
    };
    let stdout = drain(child.stdout.take().map(|p| Box::new(p) as _));
    let stderr = drain(child.stderr.take().map(|p| Box::new(p) as _));
    let deadline = Instant::now() + limit;
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("`exercises {}` ran past {limit:?}", args.join(" "));
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    Run {
        success: status.success(),
        stdout: stdout.join().unwrap(),
        stderr: stderr.join().unwrap(),
    }
}

/// The line `list` prints for `name`.
fn line<'a>(list: &'a str, name: &str) -> &'a str {
    list.lines()
        .find(|line| line.split_whitespace().any(|word| word == name))
        .unwrap_or_else(|| panic!("no line for {name} in:\n{list}"))
}

/// The first line of `name`'s hint, as `hint NAME` prints it.
fn hint_line(dir: &Path, name: &str) -> String {
    let hint = run(dir, &["hint", name], "", QUICK);
    assert!(hint.success, "{}", hint.all());
    // Its title, a blank line, then the hint.
    let first = hint.stdout.lines().nth(2).unwrap_or_default().to_string();
    assert!(first.len() > 20, "{}", hint.stdout);
    first
}

#[test]
fn list_shows_each_state_and_starts_one() {
    let dir = scratch("list");
    let list = run(&dir, &["list"], "", QUICK);
    assert!(list.success, "{}", list.all());
    let exercises = list.stdout.lines().filter(|l| l.contains(".rs ")).count();
    assert!(exercises > 30, "{}", list.stdout);
    assert_eq!(
        list.stdout.matches("not started").count(),
        exercises,
        "fresh stubs are not started:\n{}",
        list.stdout
    );

    // An edited stub is started.
    let stub = dir.join("ch01/echo_loop.rs");
    let mut text = std::fs::read_to_string(&stub).unwrap();
    text.push_str("// my first try\n");
    std::fs::write(&stub, text).unwrap();
    // So is one chosen with --start, which becomes the current one.
    let started = run(&dir, &["list", "--start", "ch03_histogram"], "", QUICK);
    assert!(started.success, "{}", started.all());
    for name in ["ch01_echo_loop", "ch03_histogram"] {
        let line = line(&started.stdout, name);
        assert!(
            line.contains("started") && !line.contains("not started"),
            "{line}"
        );
    }
    assert!(line(&started.stdout, "ch03_histogram").starts_with('>'));
    assert!(line(&started.stdout, "ch01_proc_status").contains("not started"));
    assert!(started.stdout.contains("check ch03_histogram"));

    // The choice is kept for the next run, and for watch.
    let again = run(&dir, &["list"], "", QUICK);
    assert!(line(&again.stdout, "ch03_histogram").starts_with('>'));
    let state = std::fs::read_to_string(dir.join(".checker/state.txt")).unwrap();
    assert!(state.contains("current ch03_histogram"), "{state}");

    let unknown = run(&dir, &["list", "--start", "ch03_nothing"], "", QUICK);
    assert!(!unknown.success);
    assert!(
        unknown.stderr.contains("no exercise called"),
        "{}",
        unknown.all()
    );
}

#[test]
fn reset_puts_the_shipped_stub_back_and_keeps_yours() {
    let dir = scratch("reset");
    let shipped = std::fs::read(workspace().join("exercises/ch02/pin.rs")).unwrap();
    let stub = dir.join("ch02/pin.rs");
    std::fs::write(&stub, "// my attempt, which does not compile\nfn pin(\n").unwrap();
    let backup = dir.join(".checker/backups/ch02_pin-1.rs");

    // It asks first; anything but yes changes nothing.
    let refused = run(&dir, &["reset", "ch02_pin"], "n\n", QUICK);
    assert!(!refused.success, "{}", refused.all());
    assert!(refused.stdout.contains("[y/N]"), "{}", refused.stdout);
    assert!(
        refused.stdout.contains("Nothing changed"),
        "{}",
        refused.stdout
    );
    assert!(
        std::fs::read_to_string(&stub)
            .unwrap()
            .contains("my attempt")
    );
    assert!(!backup.exists());

    // With --yes it does not ask: the stub is back byte for byte, and the
    // learner's file is saved.
    let reset = run(&dir, &["reset", "ch02_pin", "--yes"], "", QUICK);
    assert!(reset.success, "{}", reset.all());
    assert_eq!(std::fs::read(&stub).unwrap(), shipped);
    assert!(
        std::fs::read_to_string(&backup)
            .unwrap()
            .contains("my attempt")
    );
    let list = run(&dir, &["list"], "", QUICK);
    assert!(line(&list.stdout, "ch02_pin").contains("not started"));

    // A second reset of another attempt keeps both backups; "y" confirms.
    std::fs::write(&stub, "// attempt two\n").unwrap();
    let again = run(&dir, &["reset", "ch02_pin"], "y\n", QUICK);
    assert!(again.success, "{}", again.all());
    assert_eq!(std::fs::read(&stub).unwrap(), shipped);
    assert!(backup.exists());
    let second = dir.join(".checker/backups/ch02_pin-2.rs");
    assert_eq!(std::fs::read_to_string(second).unwrap(), "// attempt two\n");
}

#[test]
fn the_hint_is_printed_only_when_asked_for() {
    let dir = scratch("hint");
    let hint = hint_line(&dir, "ch04_drain");
    for args in [
        &["list"][..],
        &["list", "--start", "ch04_drain"],
        &["solution", "ch04_drain"],
        &["solution", "ch04_drain", "--anyway"],
        &["reset", "ch04_drain", "--yes"],
    ] {
        let run = run(&dir, args, "", QUICK);
        assert!(
            !run.all().contains(&hint),
            "`{}` printed the hint:\n{}",
            args.join(" "),
            run.all()
        );
    }
}

#[test]
fn the_solution_is_refused_until_the_exercise_passes() {
    let dir = scratch("solution");
    let solution = std::fs::read_to_string(dir.join("solutions/ch05/slab.rs")).unwrap();

    let refused = run(&dir, &["solution", "ch05_slab"], "", QUICK);
    assert!(!refused.success);
    assert!(refused.stdout.is_empty(), "{}", refused.stdout);
    assert!(
        refused.stderr.contains("does not pass yet") && refused.stderr.contains("--anyway"),
        "{}",
        refused.stderr
    );

    let anyway = run(&dir, &["solution", "ch05_slab", "--anyway"], "", QUICK);
    assert!(anyway.success, "{}", anyway.all());
    assert!(anyway.stdout.contains(&solution), "{}", anyway.stdout);
    assert!(anyway.stdout.contains("Why it is written this way"));
}

#[test]
fn check_checks_each_exercise_on_its_own() {
    let copy = workspace_copy();
    let dir = copy.join("exercises");
    // ch05_slab's stub does not compile; ch05_poll_timeout's is solved;
    // ch05_timer_heap's is as shipped.
    let slab = dir.join("ch05/slab.rs");
    let mut broken = std::fs::read_to_string(&slab).unwrap();
    broken.push_str("\nfn broken( {\n");
    std::fs::write(&slab, broken).unwrap();
    std::fs::copy(
        dir.join("solutions/ch05/poll_timeout.rs"),
        dir.join("ch05/poll_timeout.rs"),
    )
    .unwrap();

    // One exercise: only its own test target is built, so the broken one
    // beside it does not matter.
    let one = run(&dir, &["check", "ch05_poll_timeout"], "", PATIENCE);
    assert!(one.success, "{}", one.all());
    assert!(
        one.stdout
            .starts_with("✓ ch05_poll_timeout: 4 of 4 tests pass"),
        "{}",
        one.stdout
    );
    assert!(one.stdout.contains("solution ch05_poll_timeout"));

    // The whole chapter: each exercise gets its own verdict.
    let chapter = run(&dir, &["check", "ch05"], "", PATIENCE);
    let out = chapter.stdout.clone();
    assert!(!chapter.success, "{}", chapter.all());
    assert!(out.contains("✗ ch05_slab: does not compile"), "{out}");
    assert!(out.contains("error"), "the compiler's message:\n{out}");
    assert!(
        out.contains("✓ ch05_poll_timeout: 4 of 4 tests pass"),
        "{out}"
    );
    assert!(out.contains("✗ ch05_timer_heap: 0 of"), "{out}");
    assert!(out.contains("    FAILED ch05_timer_heap::"), "{out}");
    assert!(
        out.contains("not yet implemented"),
        "the failure's first lines:\n{out}"
    );
    assert!(!out.contains("running 0 tests"), "{out}");
    assert!(!out.contains(&hint_line(&dir, "ch05_timer_heap")), "{out}");

    // --verbose shows every line of each failure; the short form leaves out
    // libtest's note on backtraces.
    let short = run(&dir, &["check", "ch05_timer_heap"], "", PATIENCE);
    let verbose = run(
        &dir,
        &["check", "ch05_timer_heap", "--verbose"],
        "",
        PATIENCE,
    );
    assert!(!short.stdout.contains("RUST_BACKTRACE"), "{}", short.stdout);
    assert!(
        verbose.stdout.contains("RUST_BACKTRACE"),
        "{}",
        verbose.stdout
    );
    assert!(verbose.stdout.lines().count() > short.stdout.lines().count());

    // The record: the solved one is solved, and its solution is shown now;
    // the broken one is started, and its solution stays hidden.
    let list = run(&dir, &["list"], "", QUICK);
    assert!(line(&list.stdout, "ch05_poll_timeout").contains("solved"));
    assert!(line(&list.stdout, "ch05_slab").contains("started"));
    let shown = run(&dir, &["solution", "ch05_poll_timeout"], "", QUICK);
    assert!(shown.success, "{}", shown.all());
    assert!(!run(&dir, &["solution", "ch05_slab"], "", QUICK).success);

    let _ = std::fs::remove_dir_all(&copy);
}
