//! How an exercise's tests are built and run: as plain tests, or as loom
//! models.
//!
//! Most exercises are plain tests: `cargo build --test NAME` in the
//! workspace's target directory, then the test executable. A few exercises
//! (listed in [`LOOM`]) hand the reader code with a lost wake-up or a race,
//! and their tests are [loom] models, which explore every interleaving of a
//! few threads and fail at the first that breaks the protocol. Those build
//! as the book's own loom checks do (`.ci/run`'s loom step):
//!
//! * `RUSTFLAGS="--cfg loom"`, so that the stub and its tests take their
//!   atomics, mutexes and threads from loom (which only sees what goes
//!   through its own types);
//! * in release, with debug assertions on: a model runs its body thousands
//!   of times, and a debug build would take minutes;
//! * `LOOM_MAX_PREEMPTIONS=2` when the tests run: loom explores every
//!   interleaving with at most two preemptions per run, which finds each
//!   exercise's lost wake-up in well under a second and bounds the search;
//! * in their own target directory, `loom` inside the workspace's (another
//!   `RUSTFLAGS` rebuilds every dependency: sharing the normal directory
//!   would throw the normal build away each time). It is the directory
//!   `.ci/run`'s loom step uses, with the same flags, so the dependencies
//!   built there serve both.
//!
//! `check`, `watch`, `verify` and `mutants` all ask [`Runner::of`] which kind
//! an exercise is, and take the environment and arguments from here.
//!
//! [loom]: https://docs.rs/loom

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::catalog::Exercise;

/// The exercises whose tests are loom models.
pub const LOOM: &[&str] = &["ch06_scheduled_flag", "ch07_join_waker", "ch07_park_token"];

/// The preemption bound the loom models run with (see the module's header).
pub const LOOM_MAX_PREEMPTIONS: &str = "2";

/// How one exercise's tests are built and run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Runner {
    /// `cargo build --test NAME`, then the test executable.
    Plain,
    /// The same with `--cfg loom`, in release, in its own target directory.
    Loom,
}

impl Runner {
    /// How `exercise` is built and run.
    pub fn of(exercise: &Exercise) -> Runner {
        if LOOM.contains(&exercise.name) {
            Runner::Loom
        } else {
            Runner::Plain
        }
    }

    /// The environment for cargo (and the tests it runs) beyond the
    /// caller's own; the target directory is [`Runner::target_dir`]'s.
    pub fn env(self) -> Vec<(&'static str, OsString)> {
        match self {
            Runner::Plain => Vec::new(),
            Runner::Loom => {
                let mut rustflags = std::env::var_os("RUSTFLAGS").unwrap_or_default();
                if !rustflags.is_empty() {
                    rustflags.push(" ");
                }
                rustflags.push("--cfg loom");
                vec![
                    ("RUSTFLAGS", rustflags),
                    ("CARGO_PROFILE_RELEASE_DEBUG_ASSERTIONS", "true".into()),
                    ("LOOM_MAX_PREEMPTIONS", LOOM_MAX_PREEMPTIONS.into()),
                ]
            }
        }
    }

    /// Cargo's arguments for this runner's builds (`--release`).
    pub fn cargo_args(self) -> &'static [&'static str] {
        match self {
            Runner::Plain => &[],
            Runner::Loom => &["--release"],
        }
    }

    /// Where this runner's builds go, given the workspace's target directory
    /// `target`: `target` itself, or a directory of its own inside it.
    pub fn target_dir(self, target: &Path) -> PathBuf {
        match self {
            Runner::Plain => target.to_path_buf(),
            Runner::Loom => target.join("loom"),
        }
    }

    /// Sets up a `cargo build` or `cargo test` of the package in `dir` to
    /// build as this runner says: its arguments, its environment, its
    /// target directory. (`CARGO_ENCODED_RUSTFLAGS`, which cargo would
    /// prefer to `RUSTFLAGS`, is removed.)
    pub fn configure(self, command: &mut Command, dir: &Path) {
        if self == Runner::Plain {
            return;
        }
        command
            .args(self.cargo_args())
            .envs(self.env())
            .env("CARGO_TARGET_DIR", self.target_dir(&workspace_target(dir)))
            .env_remove("CARGO_ENCODED_RUSTFLAGS");
    }
}

/// The target directory cargo uses for the package in `dir`:
/// `$CARGO_TARGET_DIR` if set, else `target/` in the workspace above `dir`.
pub fn workspace_target(dir: &Path) -> PathBuf {
    match std::env::var_os("CARGO_TARGET_DIR") {
        Some(target) if !target.is_empty() => PathBuf::from(target),
        _ => dir.parent().unwrap_or(dir).join("target"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::{EXERCISES, find};

    #[test]
    fn every_loom_exercise_is_in_the_catalog() {
        for name in LOOM {
            assert!(find(name).is_some(), "{name} is not in the catalog");
        }
        let loom = EXERCISES
            .iter()
            .filter(|e| Runner::of(e) == Runner::Loom)
            .count();
        assert_eq!(loom, LOOM.len());
    }

    #[test]
    fn a_loom_build_has_the_cfg_release_and_its_own_directory() {
        let env = Runner::Loom.env();
        let rustflags = &env.iter().find(|(k, _)| *k == "RUSTFLAGS").unwrap().1;
        assert!(rustflags.to_string_lossy().ends_with("--cfg loom"));
        assert!(
            env.iter()
                .any(|(k, v)| *k == "LOOM_MAX_PREEMPTIONS" && v == "2")
        );
        assert_eq!(Runner::Loom.cargo_args(), ["--release"]);
        let target = Path::new("/t");
        assert_eq!(Runner::Loom.target_dir(target), Path::new("/t/loom"));
        assert_eq!(Runner::Plain.target_dir(target), target);
        assert!(Runner::Plain.env().is_empty() && Runner::Plain.cargo_args().is_empty());
    }
}
