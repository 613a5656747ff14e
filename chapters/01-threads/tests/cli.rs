//! The `chapter-01` binary as a reader runs it: its help, its JSON, and its
//! answers to bad input.

use std::process::{Command, Output};

fn chapter_01(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_chapter-01"))
        .args(args)
        .output()
        .expect("the binary runs")
}

fn stdout(output: &Output) -> String {
    String::from_utf8(output.stdout.clone()).unwrap()
}

fn stderr(output: &Output) -> String {
    String::from_utf8(output.stderr.clone()).unwrap()
}

#[test]
fn help_lists_every_experiment() {
    let output = chapter_01(&["--help"]);
    assert!(output.status.success());
    insta::assert_snapshot!(stdout(&output));
}

#[test]
fn each_subcommand_has_help() {
    for command in ["spawn-cost", "memory", "echo", "serve"] {
        let output = chapter_01(&[command, "--help"]);
        assert!(output.status.success(), "{command}");
        insta::assert_snapshot!(format!("help_{command}"), stdout(&output));
    }
}

#[test]
fn quick_json_demo_prints_one_object_with_every_key() {
    let output = chapter_01(&["--quick", "--json"]);
    assert!(output.status.success(), "stderr: {}", stderr(&output));
    let json: serde_json::Value =
        serde_json::from_str(&stdout(&output)).expect("stdout is exactly one JSON object");
    assert_eq!(json["experiment"], "demo");
    for key in [
        "thread_spawn_ns",
        "process_spawn_ns",
        "fork_spawn_ns",
        "rss_per_idle_thread_kib",
        "virtual_per_idle_thread_kib",
    ] {
        let value = json[key]
            .as_f64()
            .unwrap_or_else(|| panic!("{key} missing"));
        assert!(value.is_finite() && value > 0.0, "{key} = {value}");
    }
    assert!(json["echo_connections"].as_u64().unwrap() > 0);
    assert!(json["echo_bytes_verified"].as_u64().unwrap() > 0);
    assert_eq!(json["echo_mismatches"], 0);
    assert_eq!(json["echo_errors"], 0);
    // The narrative went to stderr, so humans still see it.
    assert!(stderr(&output).contains("Chapter 1"));
}

#[test]
fn each_experiment_has_its_own_json() {
    for (command, key) in [
        ("spawn-cost", "thread_spawn_ns"),
        ("memory", "rss_per_idle_thread_kib"),
        ("echo", "echo_bytes_verified"),
    ] {
        let output = chapter_01(&[command, "--quick", "--json"]);
        assert!(output.status.success(), "{command}: {}", stderr(&output));
        let json: serde_json::Value = serde_json::from_str(&stdout(&output)).unwrap();
        assert_eq!(json["experiment"], command);
        assert!(json[key].as_f64().unwrap() > 0.0, "{command}: {key}");
        assert!(json["machine_logical_cpus"].as_u64().unwrap() >= 1);
    }
}

/// Bad input: exit status non-zero, exactly one line on stderr, no panic.
fn assert_one_line_error(args: &[&str], needle: &str) {
    let output = chapter_01(args);
    assert!(!output.status.success(), "{args:?} succeeded");
    let err = stderr(&output);
    assert_eq!(err.lines().count(), 1, "{args:?} printed: {err}");
    assert!(err.starts_with("error: "), "{args:?} printed: {err}");
    assert!(err.contains(needle), "{args:?} printed: {err}");
    assert!(!err.contains("panicked"), "{args:?} panicked: {err}");
    assert!(stdout(&output).is_empty());
}

#[test]
fn bad_input_gets_one_clear_line() {
    assert_one_line_error(&["--bogus"], "--bogus");
    assert_one_line_error(&["fly"], "fly");
    assert_one_line_error(&["memory", "--threads", "0"], "0 is not in 1..=100000");
    assert_one_line_error(&["spawn-cost", "--runs", "-3"], "-3");
    assert_one_line_error(&["echo", "--message-bytes", "100000"], "100000");
    assert_one_line_error(&["echo", "--addr", "nowhere"], "nowhere");
}

#[test]
fn an_address_in_use_is_one_clear_line() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = taken.local_addr().unwrap().to_string();
    assert_one_line_error(&["echo", "--quick", "--addr", &addr], "cannot bind");
    assert_one_line_error(&["serve", "--addr", &addr], "in use");
}
