//! The `chapter-03` binary as a reader runs it.

use chapter_01::cli_check::json_of;
use std::process::{Command, Output};

fn chapter_03(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_chapter-03"))
        .args(args)
        .output()
        .expect("the binary runs")
}

/// The keys every chapter's `c10k` prints.
pub const C10K_KEYS: [&str; 15] = [
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
    let output = chapter_03(&["--help"]);
    assert!(output.status.success());
    insta::assert_snapshot!(String::from_utf8_lossy(&output.stdout));
}

#[test]
fn c10k_prints_every_key_with_every_byte_verified() {
    let json = json_of(&chapter_03(&[
        "c10k",
        "--connections",
        "300",
        "--duration",
        "1",
        "--json",
    ]));
    assert_eq!(json["experiment"], "c10k");
    for key in C10K_KEYS {
        assert!(json[key].is_number(), "{key} missing: {json}");
    }
    assert_eq!(json["connections_held"], 300);
    assert_eq!(json["mismatches"], 0);
    assert_eq!(json["errors"], 0);
    // One thread per connection, plus the accept thread.
    assert!(json["server_threads"].as_u64().unwrap() > 300);
    assert!(json["server_rss_per_connection_kib"].as_f64().unwrap() > 0.0);
    assert!(json["bytes_verified"].as_u64().unwrap() > 0);
}

#[test]
fn the_quick_demo_runs_every_part() {
    let json = json_of(&chapter_03(&["--quick", "--json"]));
    assert_eq!(json["experiment"], "demo");
    assert!(json["thread_ceiling"].as_u64().unwrap() > 0);
    assert_eq!(json["mismatches"], 0);
    assert_eq!(json["errors"], 0);
    assert_eq!(json["default_stack_errors"], 0);
    assert_eq!(json["small_stack_errors"], 0);
    // Smaller stacks shrink the address space by about the difference in
    // stack size (2 MiB - 64 KiB per connection); malloc arenas add the same
    // to both, so compare the difference, not the ratio.
    let default_virtual = json["default_stack_virtual_per_connection_kib"]
        .as_f64()
        .unwrap();
    let small_virtual = json["small_stack_virtual_per_connection_kib"]
        .as_f64()
        .unwrap();
    assert!(
        default_virtual - small_virtual > 1024.0,
        "{default_virtual} vs {small_virtual}"
    );
}

#[test]
fn a_quick_sweep_writes_its_plots() {
    let dir = std::env::temp_dir().join(format!("ch03-cli-{}", std::process::id()));
    let json = json_of(&chapter_03(&[
        "sweep",
        "--quick",
        "--json",
        "--plot",
        dir.to_str().unwrap(),
    ]));
    let series = json["series"].as_array().unwrap();
    assert_eq!(series.len(), 3);
    for run in series {
        assert_eq!(run["mismatches"], 0);
        assert_eq!(run["errors"], 0);
    }
    for plot in ["c10k-memory.svg", "c10k-switches.svg", "c10k-latency.svg"] {
        assert!(
            std::fs::read_to_string(dir.join(plot))
                .unwrap()
                .contains("<svg")
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bad_input_gets_one_clear_line() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let taken = taken.local_addr().unwrap().to_string();
    for (args, needle) in [
        (&["c10k", "--connections", "0"][..], "0 is not in"),
        (&["c10k", "--rate", "-5"][..], "-5"),
        (
            &["c10k", "--connections", "900000", "--duration", "1"][..],
            "cannot open",
        ),
        (
            &["load", "--addr", &taken, "--connections", "900000"][..],
            "cannot open",
        ),
        (&["serve", "--addr", &taken][..], "cannot bind"),
        (&["load"][..], "--addr"),
    ] {
        let output = chapter_03(args);
        assert!(!output.status.success(), "{args:?} succeeded");
        let err = String::from_utf8_lossy(&output.stderr);
        let lines: Vec<&str> = err.lines().filter(|l| l.starts_with("error")).collect();
        assert_eq!(lines.len(), 1, "{args:?}: {err}");
        assert!(err.contains(needle), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
}
