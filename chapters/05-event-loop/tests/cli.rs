//! The `chapter-05` binary as a reader runs it.

use chapter_01::cli_check::json_of;
use std::process::{Command, Output};

fn chapter_05(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_chapter-05"))
        .args(args)
        .output()
        .expect("the binary runs")
}

#[test]
fn help_lists_every_experiment() {
    let output = chapter_05(&["--help"]);
    assert!(output.status.success());
    insta::assert_snapshot!(String::from_utf8_lossy(&output.stdout));
}

#[test]
fn c10k_on_the_event_loop_verifies_every_byte() {
    let json = json_of(&chapter_05(&[
        "c10k",
        "--connections",
        "500",
        "--duration",
        "1",
        "--json",
    ]));
    for key in [
        "connections_held",
        "mismatches",
        "errors",
        "server_rss_per_connection_kib",
        "latency_p99_us",
    ] {
        assert!(json[key].is_number(), "{key}: {json}");
    }
    assert_eq!(json["connections_held"], 500);
    assert_eq!(json["mismatches"], 0);
    assert_eq!(json["errors"], 0);
    assert_eq!(json["server_threads"], 1);
}

#[test]
fn starvation_reports_both_ways() {
    let json = json_of(&chapter_05(&["starvation", "--quick", "--json"]));
    for key in [
        "hog_ms",
        "timer_lateness_p50_ms_idle",
        "timer_lateness_p99_ms_idle",
        "timer_lateness_p99_ms_hog",
        "timer_lateness_max_ms_hog",
    ] {
        assert!(json[key].as_f64().is_some(), "{key}: {json}");
    }
    assert!(json["ticks_idle"].as_u64().unwrap() > 10);
}

#[test]
fn the_relay_answers_every_request_correctly() {
    let json = json_of(&chapter_05(&[
        "relay",
        "--quick",
        "--connections",
        "10",
        "--json",
    ]));
    assert!(json["requests"].as_u64().unwrap() > 0);
    assert_eq!(json["wrong"], 0);
    assert_eq!(json["errors"], 0);
    assert_eq!(json["requests"], json["correct"]);
}

#[test]
fn timers_are_measured_at_every_size() {
    let json = json_of(&chapter_05(&["timers", "--quick", "--json"]));
    let series = json["series"].as_array().unwrap();
    assert_eq!(series.len(), 3);
    for row in series {
        assert!(row["heap_ns_per_op"].as_f64().unwrap() > 0.0);
    }
}

#[test]
fn bad_input_gets_one_clear_line() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let taken = taken.local_addr().unwrap().to_string();
    for (args, needle) in [
        (&["serve", "--addr", &taken][..], "cannot bind"),
        (&["serve-relay", "--addr", &taken][..], "cannot bind"),
        (&["starvation", "--hog-ms", "0"][..], "0 is not in"),
        (&["relay", "--connections", "5000"][..], "5000"),
    ] {
        let output = chapter_05(args);
        assert!(!output.status.success(), "{args:?} succeeded");
        let err = String::from_utf8_lossy(&output.stderr);
        let lines: Vec<&str> = err.lines().filter(|l| l.starts_with("error")).collect();
        assert_eq!(lines.len(), 1, "{args:?}: {err}");
        assert!(err.contains(needle), "{args:?}: {err}");
    }
}
