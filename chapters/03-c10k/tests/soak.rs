//! The soak, short: Chapter 3's server through every case for a few
//! seconds, and the soak's own errors on bad input.
//!
//! The other chapters' servers are soaked by `.ci/run` (their binaries are
//! not built for this package's tests) and for minutes in the appendix.

use std::process::Command;

const BINARY: &str = env!("CARGO_BIN_EXE_chapter-03");

#[test]
fn the_threads_server_survives_a_short_soak_with_every_byte() {
    let output = Command::new(BINARY)
        .args(["--quick", "--json", "soak", "--server", "ch03"])
        .args(["--duration", "4s", "--round", "2"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let json: serde_json::Value = serde_json::from_str(stdout.trim()).unwrap();
    let server = &json["servers"][0];
    assert_eq!(server["server"], "ch03");
    assert_eq!(server["bytes_lost"], 0);
    assert_eq!(server["bytes_wrong"], 0);
    assert_eq!(server["errors"], 0);
    assert!(server["bytes_verified"].as_u64().unwrap() > 0);
    assert_eq!(server["bytes_verified"], server["bytes_sent"]);
    assert!(server["resets"].as_u64().unwrap() > 0);
    assert!(server["half_closes"].as_u64().unwrap() > 0);
    assert!(server["slow"].as_u64().unwrap() > 0);
    assert!(server["idle"].as_u64().unwrap() > 0);
    assert_eq!(server["exhaustion_answered"], server["exhaustion_opened"]);
    assert_eq!(server["verdict"], "pass");
}

#[test]
fn an_unknown_preset_is_one_clear_error() {
    let output = Command::new(BINARY)
        .args(["soak", "--server", "ch99"])
        .output()
        .unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("--server \"ch99\": no such preset"),
        "{stderr}"
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn a_server_that_cannot_start_is_reported_not_hung() {
    let output = Command::new(BINARY)
        .args(["--quick", "soak", "--server-cmd", "/bin/false {port}"])
        .args(["--duration", "1s"])
        .output()
        .unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("exited before it listened"), "{stderr}");
}
