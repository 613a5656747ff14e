//! The `chapter-07` binary as a reader runs it.

// Real threads and processes: Miri runs the library's tests only.
#![cfg(not(miri))]
#![cfg(not(loom))]

use chapter_01::cli_check::json_of;
use std::process::{Command, Output};

fn chapter_07(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_chapter-07"))
        .args(args)
        .output()
        .expect("the binary runs")
}

#[test]
fn help_lists_every_experiment() {
    let output = chapter_07(&["--help"]);
    assert!(output.status.success());
    insta::assert_snapshot!(String::from_utf8_lossy(&output.stdout));
}

#[test]
fn bad_input_is_one_line_and_exit_status_2() {
    for args in [
        &["workers", "--workers", "0"][..],
        &["lifo", "--rounds", "x"],
        &["interval", "--intervals", "0"],
        &["no-such-experiment"],
    ] {
        let output = chapter_07(args);
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(stderr.trim().lines().count(), 1, "{args:?}: {stderr}");
        assert!(stderr.starts_with("error:"), "{stderr}");
        assert!(output.stdout.is_empty());
    }
}

#[test]
fn a_tree_too_large_is_refused_with_one_line() {
    let output = chapter_07(&["workers", "--depth", "6", "--fanout", "1000"]);
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
    assert!(stderr.contains("over 20 million tasks"), "{stderr}");
}

#[test]
fn workers_reports_every_worker_and_all_tasks_ran() {
    let json = json_of(&chapter_07(&[
        "workers",
        "--workers",
        "2",
        "--depth",
        "2",
        "--fanout",
        "70",
        "--json",
    ]));
    assert_eq!(json["experiment"], "workers");
    assert_eq!(json["tasks"], 70 + 70 * 70);
    let polls: u64 = (0..2)
        .map(|w| json[format!("worker{w}_polls")].as_u64().unwrap())
        .sum();
    // Every task at least once (the inner nodes again when children finish).
    assert!(polls > 70 + 70 * 70, "{json}");
    for key in ["overflows", "stolen", "inject_pulls", "lifo_polls", "parks"] {
        assert!(json[format!("worker0_{key}")].is_u64(), "{key}");
    }
}

#[test]
fn lifo_measures_both_workloads_both_ways() {
    let json = json_of(&chapter_07(&["lifo", "--quick", "--json"]));
    for workload in ["chained_spawn", "ping_pong"] {
        for key in ["lifo_on_ns", "lifo_off_ns", "off_over_on"] {
            assert!(
                json[format!("{workload}_{key}")].as_f64().unwrap() > 0.0,
                "{workload}_{key}"
            );
        }
    }
}

#[test]
fn interval_reports_each_interval() {
    let json = json_of(&chapter_07(&[
        "interval",
        "--quick",
        "--intervals",
        "1,31",
        "--json",
    ]));
    for interval in [1, 31] {
        assert!(
            json[format!("interval_{interval}_wait_p50_us")]
                .as_f64()
                .unwrap()
                >= 0.0
        );
        assert!(
            json[format!("interval_{interval}_busy_polls_per_s")]
                .as_f64()
                .unwrap()
                > 0.0
        );
    }
}
