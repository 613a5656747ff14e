//! The `chapter-02` binary as a reader runs it: help, JSON, every experiment
//! in quick mode, and bad input. Timings are never asserted (the machine is
//! shared and noisy), only that each figure is there, positive and finite.

use chapter_01::cli_check::json_of;
use std::process::{Command, Output};

fn chapter_02(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_chapter-02"))
        .args(args)
        .output()
        .expect("the binary runs")
}

fn positive(json: &serde_json::Value, key: &str) -> f64 {
    let value = json[key]
        .as_f64()
        .unwrap_or_else(|| panic!("{key} missing in {json}"));
    assert!(value.is_finite() && value > 0.0, "{key} = {value}");
    value
}

#[test]
fn help_lists_every_experiment() {
    let output = chapter_02(&["--help"]);
    assert!(output.status.success());
    insta::assert_snapshot!(String::from_utf8_lossy(&output.stdout));
}

#[test]
fn the_quick_demo_prints_every_key_and_judges_four_claims() {
    let dir = std::env::temp_dir().join(format!("ch02-cli-plots-{}", std::process::id()));
    let json = json_of(&chapter_02(&[
        "--quick",
        "--json",
        "--plot",
        dir.to_str().unwrap(),
    ]));
    assert_eq!(json["experiment"], "demo");
    for key in [
        "syscall_ns",
        "function_call_ns",
        "thread_switch_same_cpu_ns",
        "process_switch_same_cpu_ns",
        "green_switch_ns",
        "green_switch_saving_all_ns",
        "green_switch_by_call_ns",
        "green_yield_ns",
        "future_resume_ns",
        "thread_vs_green_switch_ratio",
    ] {
        positive(&json, key);
    }
    // Cross-CPU needs two CPUs; with one it is reported as null, not made up.
    let cpus = std::thread::available_parallelism().unwrap().get();
    if cpus >= 2 {
        positive(&json, "thread_switch_cross_cpu_ns");
    }
    let sweep = json["cache_sweep"]
        .as_array()
        .expect("cache_sweep is an array");
    assert!(sweep.len() >= 5);
    assert_eq!(sweep.first().unwrap()["working_set_kib"], 4);
    assert_eq!(sweep.last().unwrap()["working_set_kib"], 32768);
    for row in sweep {
        positive(row, "ns_per_access_after_switch");
        positive(row, "ns_per_access_no_switch");
    }
    let claims = json["claims"].as_array().unwrap();
    assert_eq!(claims.len(), 4);
    for claim in claims {
        assert!(
            ["holds", "partly holds", "does not hold"]
                .contains(&claim["verdict"].as_str().unwrap())
        );
    }
    for plot in ["cache-sweep.svg", "switch-costs.svg"] {
        let svg = std::fs::read_to_string(dir.join(plot)).unwrap();
        assert!(svg.contains("<svg"), "{plot}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn every_subcommand_runs_quick_with_its_own_json() {
    for (command, key) in [
        ("syscall", "syscall_ns"),
        ("thread-switch", "thread_switch_same_cpu_ns"),
        ("process-switch", "process_switch_same_cpu_ns"),
        ("green-switch", "green_switch_ns"),
        ("future-switch", "future_resume_ns"),
    ] {
        let json = json_of(&chapter_02(&[command, "--quick", "--json"]));
        assert_eq!(json["experiment"], command);
        positive(&json, key);
    }
    let json = json_of(&chapter_02(&[
        "cache-pollution",
        "--quick",
        "--json",
        "--repetitions",
        "1",
    ]));
    assert!(json["cache_sweep"].as_array().unwrap().len() >= 5);
}

#[test]
fn bad_input_gets_one_clear_line() {
    for args in [
        &["--runs", "0"][..],
        &["thread-switch", "--round-trips", "0"],
        &["cache-pollution", "--repetitions", "lots"],
        &["--plot", "/proc/no-such-dir/plots", "syscall", "--quick"],
        &["warp"],
    ] {
        let output = chapter_02(args);
        assert!(!output.status.success(), "{args:?} succeeded");
        let err = String::from_utf8_lossy(&output.stderr);
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(err.starts_with("error: "), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
}
