//! The `chapter-04` binary as a reader runs it.

use chapter_01::cli_check::json_of;
use std::process::{Command, Output};

fn chapter_04(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_chapter-04"))
        .args(args)
        .output()
        .expect("the binary runs")
}

/// The keys every chapter's `c10k` prints (Chapter 3 defines them).
const C10K_KEYS: [&str; 15] = [
    "connections_requested",
    "connections_held",
    "messages",
    "bytes_verified",
    "mismatches",
    "errors",
    "throughput_msgs_per_sec",
    "latency_p50_us",
    "latency_p99_us",
    "latency_p999_us",
    "server_rss_kib",
    "server_rss_per_connection_kib",
    "server_threads",
    "server_voluntary_switches",
    "server_involuntary_switches",
];

#[test]
fn help_lists_every_experiment() {
    let output = chapter_04(&["--help"]);
    assert!(output.status.success());
    insta::assert_snapshot!(String::from_utf8_lossy(&output.stdout));
}

#[test]
fn compare_reports_both_servers_with_the_same_keys() {
    let json = json_of(&chapter_04(&[
        "compare",
        "--connections",
        "300",
        "--duration",
        "1",
        "--json",
    ]));
    assert_eq!(json["experiment"], "compare");
    let results = json["results"].as_array().unwrap();
    assert_eq!(results.len(), 2);
    assert_eq!(results[0]["server"], "threads");
    assert_eq!(results[1]["server"], "epoll");
    for result in results {
        for key in C10K_KEYS {
            assert!(result[key].is_number(), "{key} missing: {result}");
        }
        assert_eq!(result["connections_held"], 300);
        assert_eq!(result["mismatches"], 0);
        assert_eq!(result["errors"], 0);
    }
    // One thread serves everyone.
    assert_eq!(results[1]["server_threads"], 1);
}

#[test]
fn c10k_in_level_triggered_mode_verifies_every_byte() {
    let json = json_of(&chapter_04(&[
        "c10k",
        "--mode",
        "lt",
        "--connections",
        "200",
        "--duration",
        "1",
        "--message-bytes",
        "3000",
        "--json",
    ]));
    assert_eq!(json["mismatches"], 0);
    assert_eq!(json["errors"], 0);
    assert!(json["bytes_verified"].as_u64().unwrap() > 200 * 3000);
}

#[test]
fn the_edge_triggered_bug_is_measured() {
    let json = json_of(&chapter_04(&["et-bug", "--json"]));
    assert_eq!(json["et_read_once_stalled"], true);
    assert_eq!(json["et_drain_stalled"], false);
    assert_eq!(json["lt_read_once_stalled"], false);
    assert_eq!(json["et_drain_bytes_echoed"], json["bytes_sent"]);
    assert!(json["et_read_once_bytes_echoed"].as_u64() < json["bytes_sent"].as_u64());
}

#[test]
fn poll_and_epoll_are_timed_at_every_size() {
    let json = json_of(&chapter_04(&["poll-vs-epoll", "--quick", "--json"]));
    let series = json["series"].as_array().unwrap();
    assert_eq!(series.len(), 4);
    for row in series {
        assert!(row["poll_ns"].as_f64().unwrap() > 0.0);
        assert!(row["epoll_ns"].as_f64().unwrap() > 0.0);
    }
}

#[test]
fn bad_input_gets_one_clear_line() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let taken = taken.local_addr().unwrap().to_string();
    for (args, needle) in [
        (&["c10k", "--mode", "sideways"][..], "sideways"),
        (&["serve", "--addr", &taken][..], "cannot bind"),
        (&["serve", "--fd-limit", "3"][..], "3 is not in"),
        (&["et-bug", "--message-bytes", "10"][..], "10 is not in"),
        (&["compare", "--connections", "9000000"][..], "9000000"),
    ] {
        let output = chapter_04(args);
        assert!(!output.status.success(), "{args:?} succeeded");
        let err = String::from_utf8_lossy(&output.stderr);
        let lines: Vec<&str> = err.lines().filter(|l| l.starts_with("error")).collect();
        assert_eq!(lines.len(), 1, "{args:?}: {err}");
        assert!(err.contains(needle), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
}
