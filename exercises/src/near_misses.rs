//! Near misses: hand-written wrong solutions that an exercise's tests must
//! reject (`cargo run -p exercises -- near-misses [EXERCISE...]`, and a part
//! of `verify`).
//!
//! cargo-mutants (`src/mutants.rs`) makes small wrong versions of a
//! solution by itself, but of a short piece of async code it makes few, and
//! many of those do not compile: a `poll` that returns `Poll::Pending`
//! instead of `Default::default()` is not a mistake a learner makes. The
//! mistakes learners do make (a `select` that keeps the loser alive, a
//! timeout that polls its deadline first, a waker that counts its clones but
//! not its drops) are written by hand instead, one file each:
//! `exercises/near-misses/<exercise>/<mistake>.rs`, a complete solution with
//! one such mistake and a `//!` header that names the mistake and says why
//! the tests must catch it.
//!
//! For each near miss, this module puts the file where the exercise's stub
//! is, in a scratch copy of the workspace (`<target>/near-misses/tree`,
//! kept between runs so that builds are incremental; your stubs are never
//! touched), runs `check NAME` on that copy, and requires that the tests
//! FAIL: a test failing, or the tests hanging, rejects the near miss. A near miss that passes every test, or that does not
//! compile (then it tests nothing), is a defect naming its file.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use std::process::{Command, Stdio};

use crate::catalog::{EXERCISES, Exercise};

/// The directory, beside this checker, that holds the near misses.
pub const NEAR_MISSES_DIR: &str = "near-misses";

/// The near misses of `exercise` under `dir` (the `exercises/` package),
/// sorted by name; none if it has no directory.
pub fn files(dir: &Path, exercise: &Exercise) -> io::Result<Vec<PathBuf>> {
    let folder = dir.join(NEAR_MISSES_DIR).join(exercise.name);
    if !folder.is_dir() {
        return Ok(Vec::new());
    }
    let mut files: Vec<PathBuf> = fs::read_dir(&folder)?
        .map(|entry| entry.map(|e| e.path()))
        .collect::<io::Result<_>>()?;
    files.retain(|path| path.extension().is_some_and(|e| e == "rs"));
    files.sort();
    Ok(files)
}

/// What the tests made of one near miss.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// A test failed, or the tests hung: what a near miss must get.
    Rejected,
    /// Every test passed: the tests miss this mistake.
    Passed,
    /// It did not compile (the compiler's messages): it tests nothing.
    DoesNotCompile(String),
    /// It compiled but no test ran.
    NoTests,
}

impl Verdict {
    /// Reads the verdict from what `check NAME` did: its exit status and
    /// its verdict line, `✓ NAME: 5 of 5 tests pass`, `✗ NAME: does not
    /// compile`, `✗ NAME: 2 of 5 tests pass` or `✗ NAME: timed out ...`.
    fn of_check(name: &str, passed: bool, stdout: &str) -> Verdict {
        let line = stdout
            .lines()
            .find(|line| line.contains(&format!(" {name}: ")))
            .unwrap_or_default();
        if line.ends_with(": does not compile") {
            let errors = stdout.lines().skip_while(|l| *l != line).skip(1);
            Verdict::DoesNotCompile(errors.collect::<Vec<_>>().join("\n"))
        } else if passed {
            Verdict::Passed
        } else if line.contains(" of 0 tests pass") {
            Verdict::NoTests
        } else {
            Verdict::Rejected
        }
    }
}

/// The defects `verdicts` show for `exercise`: each near miss not
/// rejected, named by its file; and the line printed for the exercise,
/// `near misses: 3 of 3 rejected`.
pub fn judge(exercise: &Exercise, verdicts: &[(PathBuf, Verdict)]) -> (String, Vec<String>) {
    let mut defects = Vec::new();
    for (path, verdict) in verdicts {
        let file = format!(
            "exercises/{NEAR_MISSES_DIR}/{}/{}",
            exercise.name,
            path.file_name().unwrap_or_default().to_string_lossy()
        );
        let why = match verdict {
            Verdict::Rejected => continue,
            Verdict::Passed => format!(
                "the near miss {file} passes every test of {}: strengthen the tests until \
                 one fails on it",
                exercise.test_path()
            ),
            Verdict::DoesNotCompile(errors) => {
                format!("the near miss {file} does not compile, so it tests nothing:\n{errors}")
            }
            Verdict::NoTests => format!("the near miss {file}: no tests ran"),
        };
        defects.push(format!("{}: {why}", exercise.name));
    }
    let rejected = verdicts
        .iter()
        .filter(|(_, v)| *v == Verdict::Rejected)
        .count();
    let line = format!(
        "  {:<24} near misses: {rejected} of {} rejected",
        exercise.name,
        verdicts.len()
    );
    (line, defects)
}

/// Checks the near misses of `exercises` (every exercise if empty) against
/// the package in `dir`; prints a line for each exercise that has any and
/// returns the defects (none if every near miss is rejected).
pub fn check(dir: &Path, exercises: &[&'static Exercise]) -> io::Result<Vec<String>> {
    let chosen: Vec<&'static Exercise> = if exercises.is_empty() {
        EXERCISES.iter().collect()
    } else {
        exercises.to_vec()
    };
    let mut defects = unknown_folders(dir)?;
    let mut work: Vec<(&'static Exercise, Vec<PathBuf>)> = Vec::new();
    for exercise in chosen {
        let files = files(dir, exercise)?;
        for file in &files {
            if !fs::read_to_string(file)?.starts_with("//!") {
                defects.push(format!(
                    "{}: the near miss {} does not open with a `//!` header naming its mistake",
                    exercise.name,
                    file.display()
                ));
            }
        }
        if !files.is_empty() {
            work.push((exercise, files));
        }
    }
    if work.is_empty() {
        return Ok(defects);
    }
    let (tree, build) = scratch_tree(dir)?;
    let package = tree.join("exercises");
    for (exercise, files) in &work {
        let mut verdicts = Vec::new();
        for file in files {
            fs::copy(file, package.join(exercise.stub_path()))?;
            verdicts.push((file.clone(), check_one(&package, &build, exercise)?));
        }
        let (line, found) = judge(exercise, &verdicts);
        println!("{line}");
        defects.extend(found);
    }
    Ok(defects)
}

/// Runs `check NAME` on the scratch package, as a learner would on theirs,
/// with its own build directory, and reads its verdict.
///
/// The build directory is not the workspace's: a build of the copy there
/// would put the copy's checker in place of yours at `target/debug/exercises`.
fn check_one(package: &Path, build: &Path, exercise: &Exercise) -> io::Result<Verdict> {
    // This very program: /proc/self/exe still runs it when a new build has
    // replaced the file it was started from.
    let output = Command::new("/proc/self/exe")
        .arg("--dir")
        .arg(package)
        .args(["check", exercise.name])
        .env("CARGO_TARGET_DIR", build)
        .stdin(Stdio::null())
        .stderr(Stdio::inherit())
        .output()
        .map_err(|e| io::Error::other(format!("cannot run the checker again: {e}")))?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    if !stdout.contains(&format!(" {}: ", exercise.name)) {
        return Err(io::Error::other(format!(
            "`check {}` on the copy in {} gave no verdict:\n{stdout}",
            exercise.name,
            package.display()
        )));
    }
    Ok(Verdict::of_check(
        exercise.name,
        output.status.success(),
        &stdout,
    ))
}

/// A folder in `near-misses/` that names no exercise (a typo would
/// otherwise leave its near misses unchecked).
fn unknown_folders(dir: &Path) -> io::Result<Vec<String>> {
    let Ok(entries) = fs::read_dir(dir.join(NEAR_MISSES_DIR)) else {
        return Ok(Vec::new());
    };
    let mut defects = Vec::new();
    for entry in entries {
        let entry = entry?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if entry.path().is_dir() && crate::catalog::find(&name).is_none() {
            defects.push(format!(
                "exercises/{NEAR_MISSES_DIR}/{name}/ names no exercise, so its near misses \
                 are never checked"
            ));
        }
    }
    Ok(defects)
}

/// The scratch copy of the workspace that holds `dir` (the `exercises/`
/// package), brought up to date, and the directory it builds in:
/// `<target>/near-misses/tree` and `<target>/near-misses/build`.
fn scratch_tree(dir: &Path) -> io::Result<(PathBuf, PathBuf)> {
    let workspace = dir
        .parent()
        .ok_or_else(|| io::Error::other("exercises/ is in a workspace"))?;
    let target = crate::mutants::target_dir(workspace).join(NEAR_MISSES_DIR);
    let tree = target.join("tree");
    crate::mutants::mirror(workspace, &tree).map_err(|e| {
        io::Error::other(format!("copying the workspace to {}: {e}", tree.display()))
    })?;
    Ok((tree, target.join("build")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn exercise() -> &'static Exercise {
        crate::catalog::find("ch06_timeout").unwrap()
    }

    #[test]
    fn every_near_miss_must_be_rejected() {
        let verdicts = [
            ("a.rs", Verdict::Rejected),
            ("b.rs", Verdict::Rejected),
            ("c.rs", Verdict::Rejected),
        ]
        .map(|(f, v)| (PathBuf::from(f), v));
        let (line, defects) = judge(exercise(), &verdicts);
        assert!(line.ends_with("near misses: 3 of 3 rejected"), "{line}");
        assert!(defects.is_empty(), "{defects:?}");
    }

    #[test]
    fn a_near_miss_that_passes_or_does_not_compile_is_a_defect_naming_its_file() {
        let verdicts = [
            ("polls_the_deadline_first.rs", Verdict::Rejected),
            ("keeps_the_loser.rs", Verdict::Passed),
            ("typo.rs", Verdict::DoesNotCompile("error[E0425]".into())),
        ]
        .map(|(f, v)| (PathBuf::from(f), v));
        let (line, defects) = judge(exercise(), &verdicts);
        assert!(line.ends_with("near misses: 1 of 3 rejected"), "{line}");
        assert_eq!(defects.len(), 2, "{defects:?}");
        assert!(
            defects[0].contains(
                "exercises/near-misses/ch06_timeout/keeps_the_loser.rs passes every test"
            ),
            "{defects:?}"
        );
        assert!(
            defects[1].contains("typo.rs does not compile"),
            "{defects:?}"
        );
    }

    #[test]
    fn the_verdict_is_read_from_check() {
        let name = "ch06_timeout";
        let of = |passed, out: &str| Verdict::of_check(name, passed, out);
        assert_eq!(
            of(true, "✓ ch06_timeout: 5 of 5 tests pass\n"),
            Verdict::Passed
        );
        assert_eq!(
            of(false, "✗ ch06_timeout: 2 of 5 tests pass\n    FAILED x\n"),
            Verdict::Rejected
        );
        assert_eq!(
            of(false, "✗ ch06_timeout: timed out after 120s\n"),
            Verdict::Rejected
        );
        assert_eq!(
            of(
                false,
                "✗ ch06_timeout: does not compile\n      error[E0425]\n"
            ),
            Verdict::DoesNotCompile("      error[E0425]".into())
        );
        assert_eq!(
            of(false, "✗ ch06_timeout: 0 of 0 tests pass\n"),
            Verdict::NoTests
        );
    }

    /// Exercises whose solutions give cargo-mutants fewer than five viable
    /// mutants (exercises/mutants-allowed.md has the counts): their tests
    /// are probed by near misses instead, at least three each.
    const FEW_MUTANTS: &[&str] = &[
        "ch01_fork_wait",
        "ch01_thread_pool",
        "ch06_counting_waker",
        "ch06_join",
        "ch06_scheduled_flag",
        "ch06_state_machine",
        "ch06_timeout",
        "ch07_long_poll",
        "ch07_park_token",
        "ch08_joinset_fail_fast",
        "ch08_paused_timeout",
        "ch08_rotating_join",
        "ch08_select_two",
        "ch09_rt_timer",
        "ch09_graceful",
    ];

    #[test]
    fn exercises_with_few_mutants_have_three_near_misses_each_with_a_header() {
        let dir = crate::exercises_dir();
        for name in FEW_MUTANTS {
            let exercise = crate::catalog::find(name).expect("an exercise");
            let files = files(&dir, exercise).unwrap();
            assert!(files.len() >= 3, "{name}: {} near misses", files.len());
            for file in files {
                let text = fs::read_to_string(&file).unwrap();
                assert!(text.starts_with("//! "), "{} has no header", file.display());
            }
        }
        assert!(unknown_folders(&dir).unwrap().is_empty());
    }
}
