//! The `chapter-06` binary as a reader runs it.

// Real sockets and processes: Miri runs the library's tests only.
#![cfg(not(miri))]

use chapter_01::cli_check::json_of;
use std::process::{Command, Output};

fn chapter_06(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_chapter-06"))
        .args(args)
        .output()
        .expect("the binary runs")
}

#[test]
fn help_lists_every_experiment() {
    let output = chapter_06(&["--help"]);
    assert!(output.status.success());
    insta::assert_snapshot!(String::from_utf8_lossy(&output.stdout));
}

#[test]
fn sizes_are_reported() {
    let json = json_of(&chapter_06(&["sizes", "--json"]));
    for key in [
        "future_relay_bytes",
        "async_relay_bytes",
        "green_thread_stack_bytes",
        "async_echo_bytes",
    ] {
        assert!(json[key].as_u64().unwrap() > 0, "{key}");
    }
    assert!(json["async_relay_bytes"].as_u64() < json["green_thread_stack_bytes"].as_u64());
}

#[test]
fn compare_reports_all_three_relays_every_reply_correct() {
    let json = json_of(&chapter_06(&["compare", "--quick", "--json"]));
    let results = json["results"].as_array().unwrap();
    let names: Vec<_> = results
        .iter()
        .map(|r| r["implementation"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["callbacks", "future", "async"]);
    for r in results {
        assert!(r["requests"].as_u64().unwrap() > 0, "{r}");
        assert_eq!(r["requests"], r["correct"], "{r}");
        assert_eq!(r["wrong"], 0);
        assert_eq!(r["errors"], 0);
        assert!(r["throughput_per_sec"].as_f64().unwrap() > 0.0);
    }
}

#[test]
fn c10k_on_the_executor_verifies_every_byte() {
    let json = json_of(&chapter_06(&[
        "c10k",
        "--connections",
        "500",
        "--duration",
        "1",
        "--json",
    ]));
    assert_eq!(json["connections_held"], 500);
    assert_eq!(json["mismatches"], 0);
    assert_eq!(json["errors"], 0);
    assert_eq!(json["server_threads"], 1);
}

#[test]
fn starvation_is_measured_three_ways() {
    let json = json_of(&chapter_06(&["starvation", "--quick", "--json"]));
    for key in [
        "ticker_lateness_p99_ms_alone",
        "ticker_lateness_p99_ms_greedy",
        "ticker_lateness_p99_ms_yielding",
    ] {
        assert!(json[key].as_f64().is_some(), "{key}");
    }
}

#[test]
fn bad_input_gets_one_clear_line() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let taken = taken.local_addr().unwrap().to_string();
    for (args, needle) in [
        (&["serve", "--addr", &taken][..], "cannot bind"),
        (
            &["serve-relay", "--impl", "async", "--addr", &taken][..],
            "cannot bind",
        ),
        (&["serve-relay", "--impl", "telepathy"][..], "telepathy"),
        (&["compare", "--rounds", "0"][..], "0 is not in"),
    ] {
        let output = chapter_06(args);
        assert!(!output.status.success(), "{args:?} succeeded");
        let err = String::from_utf8_lossy(&output.stderr);
        let lines: Vec<&str> = err.lines().filter(|l| l.starts_with("error")).collect();
        assert_eq!(lines.len(), 1, "{args:?}: {err}");
        assert!(err.contains(needle), "{args:?}: {err}");
    }
}
