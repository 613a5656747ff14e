//! The near-miss check (`src/near_misses.rs`), which `verify` runs: a
//! hand-written wrong solution that the tests let through is a failure that
//! names its file, and one they reject is counted as rejected.
//!
//! It works on a scratch copy of the workspace (`--dir`), with one near
//! miss of ch06_timeout that is really the reference solution, so the tests
//! pass on it.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

mod common;
use common::{target, workspace, workspace_copy};

/// The first build of the near misses' scratch tree can take minutes.
const PATIENCE: Duration = Duration::from_secs(1500);

#[test]
fn a_near_miss_the_tests_let_through_fails_the_check_and_is_named() {
    let copy = workspace_copy();
    let dir = copy.join("exercises");
    let near_misses = dir.join("near-misses");
    // Only ch06_timeout's near misses, so that the check builds one test
    // target; and one more of them, which is no miss at all.
    for entry in std::fs::read_dir(&near_misses).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() && !path.ends_with("ch06_timeout") {
            std::fs::remove_dir_all(path).unwrap();
        }
    }
    let real = std::fs::read_dir(near_misses.join("ch06_timeout"))
        .unwrap()
        .count();
    assert!(real >= 3, "ch06_timeout has {real} near misses");
    let solution = std::fs::read_to_string(workspace().join("exercises/solutions/ch06/timeout.rs"))
        .unwrap()
        .replace(
            "//! Reference solution for ch06_timeout.",
            "//! Not a near miss: the reference solution, which the tests pass.",
        );
    std::fs::write(
        near_misses.join("ch06_timeout/right_after_all.rs"),
        solution,
    )
    .unwrap();

    let (success, stdout, stderr) = run(&dir, &["near-misses", "ch06_timeout"]);
    assert!(
        !success,
        "a near miss passed, yet the check passed:\n{stdout}{stderr}"
    );
    let total = real + 1;
    assert!(
        stdout.contains(&format!("near misses: {real} of {total} rejected")),
        "{stdout}{stderr}"
    );
    assert!(
        stderr.contains(
            "the near miss exercises/near-misses/ch06_timeout/right_after_all.rs passes every test"
        ),
        "the defect names the file:\n{stderr}"
    );
    // The learner's copy of the stub is as it was: the near misses were
    // tried on a scratch tree.
    let stub = std::fs::read_to_string(dir.join("ch06/timeout.rs")).unwrap();
    let shipped = std::fs::read_to_string(workspace().join("exercises/ch06/timeout.rs")).unwrap();
    assert_eq!(stub, shipped);

    // Without it, every near miss is rejected and the check passes.
    std::fs::remove_file(near_misses.join("ch06_timeout/right_after_all.rs")).unwrap();
    let (success, stdout, stderr) = run(&dir, &["near-misses", "ch06_timeout"]);
    assert!(success, "{stdout}{stderr}");
    assert!(
        stdout.contains(&format!("near misses: {real} of {real} rejected")),
        "{stdout}{stderr}"
    );
}

/// Runs the checker on the package in `dir`: success, stdout, stderr.
fn run(dir: &Path, args: &[&str]) -> (bool, String, String) {
    let child = Command::new(env!("CARGO_BIN_EXE_exercises"))
        .arg("--dir")
        .arg(dir)
        .args(args)
        .env("CARGO_TARGET_DIR", target())
        .env("RUST_BACKTRACE", "0")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the checker runs");
    let pid = child.id();
    let (done, finished) = std::sync::mpsc::channel();
    // Reads both pipes to their end while the checker runs.
    std::thread::spawn(move || {
        let _ = done.send(child.wait_with_output());
    });
    let Ok(output) = finished.recv_timeout(PATIENCE) else {
        let _ = Command::new("kill").arg(pid.to_string()).status();
        panic!("`exercises {}` ran past {PATIENCE:?}", args.join(" "));
    };
    let output = output.unwrap();
    (
        output.status.success(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}
