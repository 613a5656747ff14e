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
    // The root, its 70 children and their 70 children each.
    assert_eq!(json["tasks"], 1 + 70 + 70 * 70);
    let polls: u64 = (0..2)
        .map(|w| json[format!("worker{w}_polls")].as_u64().unwrap())
        .sum();
    // Every task at least once (the inner nodes again when children finish).
    assert!(polls > 1 + 70 + 70 * 70, "{json}");
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

/// `blocking` ends with the long-poll detector's reports on two polls it
/// makes: the one that sleeps is never called busy (a loaded machine may
/// stretch it into a preempted one), and the one whose worker shares its
/// CPU with a busier thread is called preempted, and not counted.
#[test]
fn blocking_shows_the_detector_telling_a_blocked_poll_from_a_preempted_one() {
    let json = json_of(&chapter_07(&["blocking", "--quick", "--json"]));
    assert_ne!(json["detector_blocked_poll_cause"], "busy", "{json}");
    assert_eq!(json["detector_preempted_poll_cause"], "preempted", "{json}");
    let counted = json["detector_long_polls_counted"].as_u64().unwrap();
    let blocked = u64::from(json["detector_blocked_poll_cause"] == "blocked");
    assert!(counted >= blocked, "{json}");
}

/// A fresh directory under the system's temp dir, removed when dropped.
struct TempDir(std::path::PathBuf);

impl TempDir {
    fn new(name: &str) -> TempDir {
        let dir = std::env::temp_dir().join(format!("ch07-cli-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// An SVG file that plotters finished: it opens and closes the root element.
fn assert_svg(path: &std::path::Path, contains: &[&str]) {
    let svg = std::fs::read_to_string(path).unwrap_or_else(|err| panic!("{path:?}: {err}"));
    assert!(svg.trim_start().starts_with("<svg"), "{path:?}");
    assert!(svg.trim_end().ends_with("</svg>"), "{path:?}");
    for text in contains {
        assert!(svg.contains(text), "{path:?} lacks {text:?}");
    }
}

#[test]
fn shutdown_runs_the_script_and_draws_its_timeline() {
    let dir = TempDir::new("shutdown");
    let plot = dir.0.to_str().unwrap();
    let json = json_of(&chapter_07(&[
        "shutdown", "--quick", "--plot", plot, "--json",
    ]));
    assert_eq!(json["experiment"], "shutdown");
    // Quick: 6 clients, one run; the server exits 0 and says what it did.
    assert_eq!(json["exit_zero"], 1, "{json}");
    assert_eq!(json["server_summaries"], 1, "{json}");
    assert_eq!(json["wrong"], 0, "{json}");
    let clients = json["clients"].as_u64().unwrap();
    let seen = json["clients_finished"].as_u64().unwrap() + json["clients_cut"].as_u64().unwrap();
    assert_eq!(seen, clients, "{json}");
    // The clients that never close are cut (no timing: only that some are).
    assert!(json["server_cut"].as_u64().unwrap() > 0, "{json}");
    assert_eq!(
        json["server_finished_in_time"].as_u64().unwrap() + json["server_cut"].as_u64().unwrap(),
        json["server_open_at_signal"].as_u64().unwrap(),
        "{json}"
    );
    assert_svg(
        &dir.0.join("shutdown-timeline.svg"),
        &["connections open", "SIGINT", "deadline"],
    );
}

#[test]
fn loom_space_draws_the_csv_and_refuses_a_bad_one_in_one_line() {
    let dir = TempDir::new("loom-space");
    let csv = dir.0.join("counts.csv");
    std::fs::write(
        &csv,
        "# machine: Test CPU, 2 CPUs, Linux 6.18\n\
         model,preemptions,iterations,seconds,status\n\
         loom_a,1,10,0.01,ok\nloom_a,2,120,0.02,ok\n\
         loom_b,1,4,0.01,ok\nloom_b,2,9,0.01,ok\n",
    )
    .unwrap();
    let (data, plot) = (csv.to_str().unwrap(), dir.0.to_str().unwrap());
    let json = json_of(&chapter_07(&[
        "loom-space",
        "--data",
        data,
        "--plot",
        plot,
        "--json",
    ]));
    assert_eq!(json["total_iterations_p2"], 129, "{json}");
    assert_eq!(json["loom_a_p2"], 120, "{json}");
    assert_svg(
        &dir.0.join("loom-iterations.svg"),
        &["loom_a", "Test CPU", "LOOM_MAX_PREEMPTIONS"],
    );

    std::fs::write(
        &csv,
        "model,preemptions,iterations,seconds,status\nloom_a,x,1,0,ok\n",
    )
    .unwrap();
    let output = chapter_07(&["loom-space", "--data", data]);
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
    assert!(stderr.contains("line 2: preemptions"), "{stderr}");
}
