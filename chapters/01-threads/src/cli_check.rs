//! What the workspace's tests check of a chapter binary run the way a reader
//! runs it: with `--json`, it must succeed and print exactly one JSON object
//! on stdout (the narrative goes to stderr). Every chapter's `tests/cli.rs`
//! starts its binary with `Command` and hands the output here.

use std::process::Output;

/// The one JSON object `output` printed on stdout; panics, with the
/// binary's stderr, if it failed or printed anything else.
pub fn json_of(output: &Output) -> serde_json::Value {
    assert!(
        output.status.success(),
        "stderr: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).expect("stdout is exactly one JSON object")
}
