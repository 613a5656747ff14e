//! Mutation testing of the reference solutions: `cargo run -p exercises --
//! mutants [EXERCISE...]`.
//!
//! `verify` shows that an exercise's tests fail on the stub and pass with the
//! reference solution. It does not show that they fail on a solution that is
//! *nearly* right: a bound off by one, `+` for `-`, `|` for `^`, a helper
//! that always answers `true`. [cargo-mutants] makes exactly such changes to
//! a program, one at a time (each is a *mutant*), and runs its tests against
//! each: a mutant is *caught* if a test fails (or hangs), *missed* if every
//! test still passes, and *unviable* if it does not compile. A missed mutant
//! is a wrong solution the tests would accept, unless it is *equivalent*: a
//! change that cannot alter behaviour (`>` for `>=` where the two can never
//! be equal). Those are listed, each with its reason, in
//! `exercises/mutants-allowed.md`.
//!
//! For each exercise this module:
//!
//! 1. mirrors the workspace's sources into a scratch tree,
//!    `<target>/mutants/tree`, because cargo-mutants is run there with
//!    `--in-place`: it may rewrite files, and they are never yours. The
//!    tree and its build directory, `<target>/mutants/build`, stay between
//!    runs, and only files whose contents changed are rewritten, so every
//!    build after the first is incremental;
//! 2. runs `cargo mutants` on that exercise's solution file only
//!    (`--file`), and builds and runs that exercise's own test target only
//!    (`--test chNN_topic`, `--features solutions`), so a mutant is blamed
//!    on the right tests and a run takes seconds per mutant, not minutes.
//!    cargo-mutants finds the solution files through the library
//!    `solutions/lib.rs`, which names each of them. A loom exercise's
//!    mutants are built as `check` builds its tests (`src/runner.rs`:
//!    `--cfg loom` in `RUSTFLAGS`, the release profile with debug
//!    assertions, `LOOM_MAX_PREEMPTIONS`), in a build directory of their own;
//! 3. reads the outcome lists cargo-mutants writes (`caught.txt`,
//!    `missed.txt`, ...) and checks every missed mutant against
//!    `mutants-allowed.md`.
//!
//! It prints each exercise's counts, the caught share among viable mutants,
//! and every missed mutant, and succeeds only if every missed mutant is
//! listed as equivalent.
//!
//! `--changed` picks the exercises whose files changed (see
//! [`change_base`] for "since when"); CI uses it with `--list` to decide
//! whether to install cargo-mutants at all.
//!
//! [cargo-mutants]: https://mutants.rs/

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::catalog::{EXERCISES, Exercise};
use crate::runner::Runner;

/// The cargo-mutants release this module was written against (its output
/// files are not a stable interface). CI installs exactly this one.
pub const CARGO_MUTANTS_VERSION: &str = "27.1.0";

/// A mutant's tests may run this long before they count as hung (and the
/// mutant as caught). Every exercise's tests pass in about a second, and
/// those that wait for something give up after at most ten; the margin keeps
/// a busy machine from turning a slow pass into a false catch.
const TEST_TIMEOUT: Duration = Duration::from_secs(30);

/// The file, beside this checker, that lists the equivalent mutants.
const ALLOWED_FILE: &str = "mutants-allowed.md";

/// What cargo-mutants made of one exercise's mutants, each list holding
/// mutant names as cargo-mutants prints them
/// (`exercises/solutions/ch03/histogram.rs:16:30: replace & with | in bucket_of`).
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Outcomes {
    /// A test failed.
    pub caught: Vec<String>,
    /// Every test passed.
    pub missed: Vec<String>,
    /// The tests ran past [`TEST_TIMEOUT`]: counted as caught, since a
    /// solution that hangs fails its exercise.
    pub timeouts: Vec<String>,
    /// The mutant did not compile.
    pub unviable: Vec<String>,
}

impl Outcomes {
    /// Mutants generated.
    pub fn total(&self) -> usize {
        self.caught.len() + self.missed.len() + self.timeouts.len() + self.unviable.len()
    }

    /// Mutants that compiled, so that the tests could judge them.
    pub fn viable(&self) -> usize {
        self.total() - self.unviable.len()
    }

    /// Viable mutants that the tests rejected (failed or hung).
    pub fn rejected(&self) -> usize {
        self.caught.len() + self.timeouts.len()
    }

    fn add(&mut self, other: &Outcomes) {
        self.caught.extend(other.caught.iter().cloned());
        self.missed.extend(other.missed.iter().cloned());
        self.timeouts.extend(other.timeouts.iter().cloned());
        self.unviable.extend(other.unviable.iter().cloned());
    }

    /// `41 mutants: 37 caught, 1 missed, 0 timed out, 3 unviable`
    fn counts(&self) -> String {
        format!(
            "{} mutants: {} caught, {} missed, {} timed out, {} unviable",
            self.total(),
            self.caught.len(),
            self.missed.len(),
            self.timeouts.len(),
            self.unviable.len()
        )
    }
}

/// The caught share of viable mutants, in percent (100 when none is viable).
pub fn caught_percent(outcomes: &Outcomes) -> f64 {
    match outcomes.viable() {
        0 => 100.0,
        viable => 100.0 * outcomes.rejected() as f64 / viable as f64,
    }
}

/// A mutant's name without its `:line:column`, e.g.
/// `exercises/solutions/ch03/histogram.rs: replace & with | in bucket_of`.
///
/// An entry of `mutants-allowed.md` written this way matches that mutant
/// wherever it is in the function, so that an edit elsewhere in the file,
/// which moves the line, does not unlist it; an entry with the position
/// matches only there.
pub fn without_position(mutant: &str) -> String {
    let mut parts = mutant.splitn(4, ':');
    match (parts.next(), parts.next(), parts.next(), parts.next()) {
        (Some(path), Some(line), Some(column), Some(rest))
            if line.parse::<u32>().is_ok() && column.parse::<u32>().is_ok() =>
        {
            format!("{path}:{rest}")
        }
        _ => mutant.to_string(),
    }
}

/// The entries of `mutants-allowed.md`: each line `- `MUTANT`: why`,
/// where MUTANT is cargo-mutants' name with or without `:line:column`.
/// Returns each entry as written and how many times it is listed, so that
/// two identical mutants in one function need two lines.
pub fn parse_allowed(text: &str) -> BTreeMap<String, usize> {
    let mut allowed = BTreeMap::new();
    for line in text.lines() {
        let Some(rest) = line.trim_start().strip_prefix("- `") else {
            continue;
        };
        let Some((mutant, reason)) = rest.split_once('`') else {
            continue;
        };
        // An entry must give its reason.
        if reason.trim_start_matches(':').trim().is_empty() {
            continue;
        }
        *allowed.entry(mutant.to_string()).or_insert(0) += 1;
    }
    allowed
}

/// The mutants of `missed` not listed in `allowed`, matching each first by
/// its whole name, then without its position, and using each entry at most
/// as often as it is listed.
pub fn unlisted(missed: &[String], allowed: &BTreeMap<String, usize>) -> Vec<String> {
    let mut left = allowed.clone();
    missed
        .iter()
        .filter(|mutant| {
            for key in [mutant.to_string(), without_position(mutant)] {
                if let Some(n) = left.get_mut(&key)
                    && *n > 0
                {
                    *n -= 1;
                    return false;
                }
            }
            true
        })
        .cloned()
        .collect()
}

/// Runs cargo-mutants for `names` (every exercise if empty, or those changed
/// if `changed`); with `list_only`, prints the names chosen and stops.
pub fn run(names: &[String], changed: bool, list_only: bool) -> io::Result<bool> {
    let dir = crate::exercises_dir();
    let workspace = dir
        .parent()
        .expect("exercises/ is in the workspace")
        .to_path_buf();
    let chosen: Vec<&'static Exercise> = if changed {
        match changed_exercises(&dir)? {
            Some((base, exercises)) => {
                if !list_only {
                    println!("{} exercise(s) changed since {base}", exercises.len());
                }
                exercises
            }
            None => {
                eprintln!(
                    "note: cannot tell what changed (no upstream, no parent commit, no \
                     EXERCISES_MUTANTS_BASE); run `cargo run -p exercises -- mutants` for all"
                );
                Vec::new()
            }
        }
    } else if names.is_empty() {
        EXERCISES.iter().collect()
    } else {
        let mut chosen = Vec::new();
        for name in names {
            let matching: Vec<_> = EXERCISES
                .iter()
                .filter(|e| e.name == name.as_str() || e.name.starts_with(&format!("{name}_")))
                .collect();
            if matching.is_empty() {
                return Err(io::Error::other(format!(
                    "no exercise or chapter called {name:?} (see `cargo run -p exercises -- list`)"
                )));
            }
            chosen.extend(matching);
        }
        chosen
    };
    if list_only {
        for exercise in &chosen {
            println!("{}", exercise.name);
        }
        return Ok(true);
    }
    if chosen.is_empty() {
        println!("no exercise to test");
        return Ok(true);
    }
    check_cargo_mutants()?;

    let target = target_dir(&workspace);
    let tree = target.join("mutants/tree");
    let build = target.join("mutants/build");
    let outputs = target.join("mutants/out");
    mirror(&workspace, &tree)?;
    let allowed_text = fs::read_to_string(dir.join(ALLOWED_FILE)).unwrap_or_default();
    let allowed = parse_allowed(&allowed_text);

    let started = Instant::now();
    let mut all = Outcomes::default();
    let mut failures = Vec::new();
    for exercise in &chosen {
        let began = Instant::now();
        let output = outputs.join(exercise.name);
        let outcomes = mutate(exercise, &tree, &build, &output)?;
        println!(
            "  {:<24} {:<62} {:>5.1}% caught  ({}s)",
            exercise.name,
            outcomes.counts(),
            caught_percent(&outcomes),
            began.elapsed().as_secs()
        );
        for mutant in unlisted(&outcomes.missed, &allowed) {
            println!("      missed: {mutant}");
            failures.push(mutant);
        }
        all.add(&outcomes);
    }
    println!(
        "{} exercise(s), {}: {} of {} viable mutants caught ({:.1}%) in {}s",
        chosen.len(),
        all.counts(),
        all.rejected(),
        all.viable(),
        caught_percent(&all),
        started.elapsed().as_secs()
    );
    let listed = all.missed.len() - failures.len();
    if listed > 0 {
        println!("{listed} missed mutant(s) listed as equivalent in exercises/{ALLOWED_FILE}");
    }
    if !failures.is_empty() {
        eprintln!(
            "error: {} missed mutant(s) above are not listed in exercises/{ALLOWED_FILE}: \
             strengthen the tests, or list a mutant there with why it cannot change behaviour \
             (logs in {})",
            failures.len(),
            outputs.display()
        );
    }
    Ok(failures.is_empty())
}

/// Fails with one line saying how to install cargo-mutants if it is absent;
/// warns if its version is not the one this module expects.
fn check_cargo_mutants() -> io::Result<()> {
    let output = Command::new(cargo())
        .args(["mutants", "--version"])
        .stdin(Stdio::null())
        .output();
    let install = format!("cargo install --locked cargo-mutants@{CARGO_MUTANTS_VERSION}");
    let version = match output {
        Ok(output) if output.status.success() => {
            String::from_utf8_lossy(&output.stdout).trim().to_string()
        }
        _ => {
            return Err(io::Error::other(format!(
                "cargo-mutants is not installed; install it with `{install}`"
            )));
        }
    };
    if !version.contains(CARGO_MUTANTS_VERSION) {
        eprintln!(
            "warning: found {version}, tested with cargo-mutants {CARGO_MUTANTS_VERSION} \
             (`{install}`)"
        );
    }
    Ok(())
}

fn cargo() -> std::ffi::OsString {
    std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into())
}

/// The workspace's target directory: `$CARGO_TARGET_DIR` if set, else
/// `target/` in the workspace.
pub(crate) fn target_dir(workspace: &Path) -> PathBuf {
    match std::env::var_os("CARGO_TARGET_DIR") {
        Some(dir) if !dir.is_empty() => workspace.join(dir),
        _ => workspace.join("target"),
    }
}

/// Runs cargo-mutants on one exercise's solution in the scratch `tree` and
/// reads what it found.
fn mutate(exercise: &Exercise, tree: &Path, build: &Path, output: &Path) -> io::Result<Outcomes> {
    fs::create_dir_all(output)?;
    let log_path = output.join("cargo-mutants.log");
    let log = fs::File::create(&log_path)?;
    // A loom model's mutants build as `check` builds it: --cfg loom, the
    // release profile with debug assertions, a build directory of its own.
    let runner = Runner::of(exercise);
    let mut command = Command::new(cargo());
    command
        .arg("mutants")
        .arg("--in-place")
        .arg("--dir")
        .arg(tree)
        .arg("--output")
        .arg(output)
        .args(["--package", "exercises", "--features", "solutions"])
        .arg("--file")
        .arg(format!("exercises/{}", exercise.solution_path()))
        .arg(format!("--cargo-arg=--test={}", exercise.name))
        .arg(format!("--timeout={}", TEST_TIMEOUT.as_secs()))
        .args(["--no-shuffle", "--colors=never"])
        .env("CARGO_TARGET_DIR", runner.target_dir(build))
        .env_remove("CARGO_MUTANTS_OUTPUT")
        .stdin(Stdio::null())
        .stdout(log.try_clone()?)
        .stderr(log);
    if runner == Runner::Loom {
        command
            .args(["--profile", "release"])
            .envs(runner.env())
            .env_remove("CARGO_ENCODED_RUSTFLAGS");
    }
    let status = command.status()?;
    // 0: all caught; 2: some missed; 3: some timed out. Anything else (a
    // usage error, tests failing on the unmutated solution) is a failure to
    // test, not a result.
    if !matches!(status.code(), Some(0 | 2 | 3)) {
        let log = fs::read_to_string(&log_path).unwrap_or_default();
        let tail: Vec<&str> = log.lines().rev().take(15).collect();
        let tail: Vec<&str> = tail.into_iter().rev().collect();
        return Err(io::Error::other(format!(
            "cargo mutants failed on {} ({status}); the end of {}:\n{}",
            exercise.name,
            log_path.display(),
            tail.join("\n")
        )));
    }
    let read = |name: &str| -> Vec<String> {
        fs::read_to_string(output.join("mutants.out").join(name))
            .unwrap_or_default()
            .lines()
            .filter(|line| !line.trim().is_empty())
            .map(str::to_string)
            .collect()
    };
    Ok(Outcomes {
        caught: read("caught.txt"),
        missed: read("missed.txt"),
        timeouts: read("timeout.txt"),
        unviable: read("unviable.txt"),
    })
}

/// Makes `tree` hold the same workspace sources as `workspace`: the root
/// manifest and lock file, cargo's configuration, the chapters and the
/// exercises, without build output or version control. A file is rewritten
/// only if its contents differ (so cargo's fingerprints stay fresh), and
/// files gone from the workspace are removed.
pub(crate) fn mirror(workspace: &Path, tree: &Path) -> io::Result<()> {
    let mut wanted = BTreeSet::new();
    for top in [
        "Cargo.toml",
        "Cargo.lock",
        ".cargo",
        "rust-toolchain",
        "rust-toolchain.toml",
        "chapters",
        "exercises",
    ] {
        collect_files(workspace, Path::new(top), &mut wanted)?;
    }
    for relative in &wanted {
        let from = workspace.join(relative);
        let to = tree.join(relative);
        let contents = fs::read(&from)?;
        if fs::read(&to).ok().as_deref() != Some(&contents[..]) {
            fs::create_dir_all(to.parent().expect("a file has a parent"))?;
            fs::write(&to, contents)?;
        }
    }
    let mut present = BTreeSet::new();
    collect_files(tree, Path::new(""), &mut present)?;
    for stale in present.difference(&wanted) {
        fs::remove_file(tree.join(stale))?;
    }
    Ok(())
}

/// Adds every file under `root/relative` to `files` (as paths relative to
/// `root`), skipping build output, version control and installed packages.
fn collect_files(root: &Path, relative: &Path, files: &mut BTreeSet<PathBuf>) -> io::Result<()> {
    let path = root.join(relative);
    let Ok(metadata) = fs::symlink_metadata(&path) else {
        return Ok(());
    };
    if metadata.is_file() {
        files.insert(relative.to_path_buf());
    } else if metadata.is_dir() {
        for entry in fs::read_dir(&path)? {
            let name = entry?.file_name();
            let skip = name == "target"
                || name == ".git"
                || name == "node_modules"
                || name.to_string_lossy().starts_with("mutants.out");
            if !skip {
                collect_files(root, &relative.join(name), files)?;
            }
        }
    }
    Ok(())
}

/// The revision to compare with for `--changed`, and how it was chosen.
///
/// CI runs on a fresh clone of main, often with no remote branch to compare
/// with, so the rules are, in order:
///
/// 1. `$EXERCISES_MUTANTS_BASE`, if set: any revision git understands (a
///    CI system that knows a pull request's base can say so);
/// 2. the merge base of HEAD with its upstream branch, if there is one and
///    HEAD has commits of its own: a branch under review is compared with
///    where it left main;
/// 3. the commit before HEAD (its first parent): on main, or on a branch
///    with no upstream, that is what the last commit (a merge commit
///    included, whose first parent is the previous main) changed;
/// 4. none, on a clone with a single commit: nothing is chosen and a note
///    says how to run everything.
///
/// Uncommitted and untracked files count as changed too, so a maintainer
/// can check work in progress.
fn change_base(dir: &Path) -> Option<String> {
    if let Some(base) = std::env::var_os("EXERCISES_MUTANTS_BASE") {
        return Some(base.to_string_lossy().into_owned());
    }
    let head = git(dir, &["rev-parse", "--verify", "-q", "HEAD"])?;
    if let Some(base) = git(dir, &["merge-base", "HEAD", "@{upstream}"])
        && base != head
    {
        return Some(base);
    }
    git(dir, &["rev-parse", "--verify", "-q", "HEAD~1"])
}

/// The exercises with a file (stub, solution or tests) that differs from
/// [`change_base`], with the base; `None` if there is no base.
fn changed_exercises(dir: &Path) -> io::Result<Option<(String, Vec<&'static Exercise>)>> {
    let Some(base) = change_base(dir) else {
        return Ok(None);
    };
    let Some(diff) = git(dir, &["diff", "--name-only", "--relative", &base, "--"]) else {
        return Err(io::Error::other(format!(
            "git diff against {base} failed (is it a revision of this repository?)"
        )));
    };
    let untracked = git(dir, &["ls-files", "--others", "--exclude-standard"]).unwrap_or_default();
    let files: BTreeSet<&str> = diff.lines().chain(untracked.lines()).collect();
    let exercises = EXERCISES
        .iter()
        .filter(|e| {
            [e.stub_path(), e.solution_path(), e.test_path()]
                .iter()
                .any(|path| files.contains(path.as_str()))
        })
        .collect();
    let short = git(dir, &["rev-parse", "--short", &base]).unwrap_or(base);
    Ok(Some((short, exercises)))
}

/// Runs git in `dir`; its trimmed output if it succeeded.
fn git(dir: &Path, args: &[&str]) -> Option<String> {
    let output = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .ok()?;
    output
        .status
        .success()
        .then(|| String::from_utf8_lossy(&output.stdout).trim().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_are_dropped_from_names() {
        assert_eq!(
            without_position("exercises/solutions/ch03/histogram.rs:16:30: replace & with | in f"),
            "exercises/solutions/ch03/histogram.rs: replace & with | in f"
        );
        assert_eq!(without_position("a.rs: replace x"), "a.rs: replace x");
    }

    #[test]
    fn allowed_entries_need_a_reason_and_count_each_listing() {
        let text = "# Title\n\n- `a.rs: replace > with >= in f`: never equal\n\
                    - `a.rs: replace > with >= in f`: the other one\n\
                    - `a.rs:9:9: replace + with - in f`: here only\n\
                    - `b.rs:1:1: replace g -> bool with true`\n\
                    text `c.rs:1:1: x`: not an entry\n";
        let allowed = parse_allowed(text);
        assert_eq!(allowed.len(), 2, "{allowed:?}");
        assert_eq!(allowed["a.rs: replace > with >= in f"], 2);
        let missed: Vec<String> = [
            "a.rs:3:4: replace > with >= in f",
            "a.rs:5:6: replace > with >= in f",
            "a.rs:7:8: replace > with >= in f",
            "a.rs:9:9: replace + with - in f",
            "a.rs:10:9: replace + with - in f",
            "b.rs:1:1: replace g -> bool with true",
        ]
        .map(String::from)
        .into();
        assert_eq!(
            unlisted(&missed, &allowed),
            [
                "a.rs:7:8: replace > with >= in f",
                "a.rs:10:9: replace + with - in f",
                "b.rs:1:1: replace g -> bool with true"
            ]
        );
    }

    #[test]
    fn the_caught_share_counts_timeouts_and_ignores_unviable_mutants() {
        let outcomes = Outcomes {
            caught: vec!["a".into(); 6],
            missed: vec!["b".into()],
            timeouts: vec!["c".into()],
            unviable: vec!["d".into(); 2],
        };
        assert_eq!(outcomes.total(), 10);
        assert_eq!(outcomes.viable(), 8);
        assert_eq!(caught_percent(&outcomes), 87.5);
        assert_eq!(caught_percent(&Outcomes::default()), 100.0);
    }

    #[test]
    fn the_mirror_copies_sources_and_drops_what_is_gone() {
        let root = std::env::temp_dir().join(format!("exercises-mirror-{}", std::process::id()));
        let (workspace, tree) = (root.join("ws"), root.join("tree"));
        fs::create_dir_all(workspace.join("exercises/target")).unwrap();
        fs::create_dir_all(tree.join("exercises")).unwrap();
        fs::write(workspace.join("Cargo.toml"), "[workspace]").unwrap();
        fs::write(workspace.join("exercises/a.rs"), "a").unwrap();
        fs::write(workspace.join("exercises/target/big"), "x").unwrap();
        fs::write(workspace.join("README.md"), "not needed").unwrap();
        fs::write(tree.join("exercises/old.rs"), "gone").unwrap();
        mirror(&workspace, &tree).unwrap();
        let mut files = BTreeSet::new();
        collect_files(&tree, Path::new(""), &mut files).unwrap();
        let files: Vec<_> = files
            .iter()
            .map(|p| p.to_string_lossy().into_owned())
            .collect();
        assert_eq!(files, ["Cargo.toml", "exercises/a.rs"]);
        fs::remove_dir_all(root).unwrap();
    }

    #[test]
    fn every_solution_is_named_for_cargo_mutants() {
        let index = fs::read_to_string(crate::exercises_dir().join("solutions/lib.rs")).unwrap();
        for exercise in EXERCISES {
            let path = exercise.solution_path();
            let line = format!("#[path = \"{}\"]", path.trim_start_matches("solutions/"));
            assert!(index.contains(&line), "solutions/lib.rs lacks {line}");
        }
    }
}
