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
//! In a scratch copy of the workspace (`<target>/near-misses/tree`, kept
//! between runs so that builds are incremental; your stubs are never
//! touched), this module gives each near miss a test target of its own: a
//! copy of the exercise's test file whose module is the near miss instead of
//! the stub (`tests/nm__<exercise>__<mistake>.rs`). One cargo run builds them
//! all, the loom models in a second, as `check` builds an exercise's tests;
//! then each runs, and its tests must FAIL: a test failing, or the tests
//! hanging, rejects the near miss. A near miss that passes every test, or
//! that does not compile (then it tests nothing), is a defect naming its
//! file. (One build for all, rather than a build per near miss, is what
//! keeps this part of `verify` to a few minutes.)

use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::thread;

use crate::catalog::{EXERCISES, Exercise};
use crate::runner::Runner;

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
    /// Reads the verdict from what the near miss's test target did.
    fn of_outcome(outcome: &crate::Outcome) -> Verdict {
        match outcome {
            crate::Outcome::DoesNotCompile(errors) => Verdict::DoesNotCompile(errors.clone()),
            crate::Outcome::TimedOut => Verdict::Rejected,
            crate::Outcome::Ran(tests) if tests.is_empty() => Verdict::NoTests,
            crate::Outcome::Ran(tests) if tests.iter().all(|t| t.1) => Verdict::Passed,
            crate::Outcome::Ran(_) => Verdict::Rejected,
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
    // A test target per near miss, named for it.
    let mut targets: Vec<(&'static Exercise, PathBuf, String)> = Vec::new();
    for (exercise, files) in &work {
        let tests = fs::read_to_string(package.join(exercise.test_path()))?;
        for file in files {
            let mistake = file.file_name().unwrap_or_default().to_string_lossy();
            let near_miss = format!("{NEAR_MISSES_DIR}/{}/{mistake}", exercise.name);
            let Some(rewritten) = with_module_from(&tests, exercise, &near_miss) else {
                defects.push(format!(
                    "{}: {} does not name its stub as `#[cfg_attr(not(feature = \"solutions\"), \
                     path = \"../{}\")]`, so its near misses cannot be put in its place",
                    exercise.name,
                    exercise.test_path(),
                    exercise.stub_path()
                ));
                break;
            };
            let target = format!("nm__{}__{}", exercise.name, mistake.trim_end_matches(".rs"));
            fs::write(
                package.join("tests").join(format!("{target}.rs")),
                rewritten,
            )?;
            targets.push((exercise, file.clone(), target));
        }
    }
    let mut built = crate::Build::default();
    for runner in [Runner::Plain, Runner::Loom] {
        let names: Vec<&str> = targets
            .iter()
            .filter(|(exercise, _, _)| Runner::of(exercise) == runner)
            .map(|(_, _, target)| target.as_str())
            .collect();
        if names.is_empty() {
            continue;
        }
        built.merge(crate::build_group(
            &package,
            false,
            Some(&names),
            runner,
            Some(&build),
        )?);
    }
    // Several at once: a near miss is often rejected by a test that waits
    // for its own time limit (a wake-up that never comes), idle meanwhile.
    let outcomes = run_all(&package, &built, &targets)?;
    for (exercise, _) in &work {
        let verdicts: Vec<(PathBuf, Verdict)> = targets
            .iter()
            .zip(&outcomes)
            .filter(|((e, _, _), _)| e.name == exercise.name)
            .map(|((_, file, _), outcome)| (file.clone(), Verdict::of_outcome(outcome)))
            .collect();
        let (line, found) = judge(exercise, &verdicts);
        println!("{line}");
        defects.extend(found);
    }
    Ok(defects)
}

/// How many near misses' tests run at once.
const AT_ONCE: usize = 4;

/// Runs the test target of each near miss in `targets` (or reports that it
/// did not compile), [`AT_ONCE`] at a time; the outcomes in `targets`' order.
fn run_all(
    package: &Path,
    built: &crate::Build,
    targets: &[(&'static Exercise, PathBuf, String)],
) -> io::Result<Vec<crate::Outcome>> {
    let next = AtomicUsize::new(0);
    // Each worker takes the next target until none is left, and returns
    // what it ran, by index.
    let work = || -> io::Result<Vec<(usize, crate::Outcome)>> {
        let mut ran = Vec::new();
        loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            let Some((_, _, target)) = targets.get(i) else {
                return Ok(ran);
            };
            let outcome = match built.executables.get(target) {
                Some(executable) => crate::run_tests(package, executable)?,
                None => crate::Outcome::DoesNotCompile(built.errors_of(target)),
            };
            ran.push((i, outcome));
        }
    };
    let mut ran: Vec<(usize, crate::Outcome)> = thread::scope(|scope| {
        let workers: Vec<_> = (0..AT_ONCE).map(|_| scope.spawn(work)).collect();
        workers
            .into_iter()
            .map(|worker| worker.join().expect("a worker does not panic"))
            .collect::<io::Result<Vec<_>>>()
    })?
    .into_iter()
    .flatten()
    .collect();
    ran.sort_by_key(|(i, _)| *i);
    Ok(ran.into_iter().map(|(_, outcome)| outcome).collect())
}

/// The exercise's test file `tests` with its module taken from `near_miss`
/// (a path relative to `exercises/`) instead of the stub or the solution;
/// `None` if the file does not name its stub the usual way.
fn with_module_from(tests: &str, exercise: &Exercise, near_miss: &str) -> Option<String> {
    let stub = format!(
        "#[cfg_attr(not(feature = \"solutions\"), path = \"../{}\")]",
        exercise.stub_path()
    );
    let at = tests.find(&stub)?;
    let mut text = format!(
        "{}#[path = \"../{near_miss}\"]{}",
        &tests[..at],
        &tests[at + stub.len()..]
    );
    // The solutions' attribute, on one line or over several.
    let start = text
        .find("#[cfg_attr(\n    feature = \"solutions\"")
        .or_else(|| text.find("#[cfg_attr(feature = \"solutions\""))?;
    let end = start + text[start..].find(")]")? + 2;
    text.replace_range(start..end + usize::from(text[end..].starts_with('\n')), "");
    Some(text)
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
    let workspace_target = crate::mutants::target_dir(workspace);
    let target = workspace_target.join(NEAR_MISSES_DIR);
    let tree = target.join("tree");
    crate::mutants::mirror(workspace, &tree).map_err(|e| {
        io::Error::other(format!("copying the workspace to {}: {e}", tree.display()))
    })?;
    let build = target.join("build");
    for profile in [Path::new("debug"), &Path::new("loom").join("release")] {
        seed(&workspace_target.join(profile), &build.join(profile))?;
    }
    Ok((tree, build))
}

/// Before the scratch tree's first build in `to`, hard-links into it what
/// the workspace's own build left in `from` (`deps`, `build` and
/// `.fingerprint`). The registry's crates are the same units in both, so
/// cargo finds them fresh and builds only the copy's own packages, whose
/// paths differ: a first check in minutes less. Nothing happens if `to`
/// exists already, if there is nothing to seed from, or if the two are on
/// different file systems (then the first build is a cold one).
fn seed(from: &Path, to: &Path) -> io::Result<()> {
    if to.exists() || !from.join("deps").is_dir() {
        return Ok(());
    }
    let partial = to.with_extension("seeding");
    if partial.exists() {
        fs::remove_dir_all(&partial)?;
    }
    for part in ["deps", "build", ".fingerprint"] {
        if from.join(part).is_dir() && !link_tree(&from.join(part), &partial.join(part))? {
            fs::remove_dir_all(&partial)?;
            return Ok(());
        }
    }
    fs::rename(&partial, to)
}

/// Recreates the directories under `from` at `to`, each file a hard link;
/// false if a link cannot be made.
fn link_tree(from: &Path, to: &Path) -> io::Result<bool> {
    fs::create_dir_all(to)?;
    for entry in fs::read_dir(from)? {
        let entry = entry?;
        let kind = entry.file_type()?;
        let target = to.join(entry.file_name());
        if kind.is_dir() {
            if !link_tree(&entry.path(), &target)? {
                return Ok(false);
            }
        } else if kind.is_file() && fs::hard_link(entry.path(), &target).is_err() {
            return Ok(false);
        }
    }
    Ok(true)
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
    fn the_verdict_is_read_from_the_outcome() {
        use crate::Outcome;
        let ran = |results: &[bool]| {
            Outcome::Ran(results.iter().map(|&ok| ("t".to_string(), ok)).collect())
        };
        assert_eq!(Verdict::of_outcome(&ran(&[true, true])), Verdict::Passed);
        assert_eq!(Verdict::of_outcome(&ran(&[true, false])), Verdict::Rejected);
        assert_eq!(Verdict::of_outcome(&Outcome::TimedOut), Verdict::Rejected);
        assert_eq!(Verdict::of_outcome(&ran(&[])), Verdict::NoTests);
        assert_eq!(
            Verdict::of_outcome(&Outcome::DoesNotCompile("error[E0425]".into())),
            Verdict::DoesNotCompile("error[E0425]".into())
        );
    }

    #[test]
    fn every_test_file_can_take_a_near_miss_in_place_of_its_stub() {
        let dir = crate::exercises_dir();
        for exercise in EXERCISES {
            let tests = fs::read_to_string(dir.join(exercise.test_path())).unwrap();
            let rewritten = with_module_from(&tests, exercise, "near-misses/x/y.rs")
                .unwrap_or_else(|| panic!("{}: the stub's attribute is not found", exercise.name));
            assert!(
                rewritten.contains("#[path = \"../near-misses/x/y.rs\"]"),
                "{}",
                exercise.name
            );
            assert!(
                !rewritten.contains("solutions"),
                "{}: {rewritten}",
                exercise.name
            );
        }
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
