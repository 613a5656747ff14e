//! `chapter-07 trace`: the file it writes is a Chrome trace a viewer can
//! open, and it says so in one line when it cannot write it.

// Real threads and processes: Miri runs the library's tests only.
#![cfg(not(miri))]
#![cfg(not(loom))]

use serde_json::Value;
use std::collections::HashMap;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// Runs the binary, killing it if it has not finished in a minute (a
/// 100 ms run takes well under a second).
fn chapter_07(args: &[&str]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_chapter-07"))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    let deadline = Instant::now() + Duration::from_secs(60);
    while child.try_wait().expect("waiting for the binary").is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("chapter-07 {args:?} did not finish in a minute");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().expect("the binary's output")
}

/// A path in the system's temporary directory, unique to this test run.
fn temporary(name: &str) -> std::path::PathBuf {
    std::env::temp_dir().join(format!("chapter-07-trace-{}-{name}", std::process::id()))
}

#[test]
fn the_trace_is_chrome_json_with_a_lane_per_worker_and_no_overlap() {
    let path = temporary("run.json");
    let output = chapter_07(&[
        "trace",
        "--out",
        path.to_str().unwrap(),
        "--duration-ms",
        "100",
        "--json",
    ]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let report: Value = serde_json::from_slice(&output.stdout).expect("one JSON object");
    assert_eq!(report["experiment"], "trace");
    let text = std::fs::read_to_string(&path).expect("the trace was written");
    let _ = std::fs::remove_file(&path);
    let trace: Value = serde_json::from_str(&text).expect("the trace is JSON");
    assert_eq!(trace["displayTimeUnit"], "ms");
    let events = trace["traceEvents"].as_array().expect("traceEvents");

    // One thread_name per worker, each a worker's name.
    let names: HashMap<u64, &str> = events
        .iter()
        .filter(|e| e["ph"] == "M" && e["name"] == "thread_name")
        .map(|e| {
            (
                e["tid"].as_u64().unwrap(),
                e["args"]["name"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(names.len(), 2, "{names:?}");
    for name in names.values() {
        assert!(name.starts_with("rt-worker-"), "{name}");
    }

    // Complete events only besides the metadata, on a named thread.
    let mut lanes: HashMap<u64, Vec<(f64, f64, &str)>> = HashMap::new();
    let mut polls = 0;
    for event in events.iter().filter(|e| e["ph"] != "M") {
        assert_eq!(event["ph"], "X", "{event}");
        let tid = event["tid"].as_u64().unwrap();
        assert!(names.contains_key(&tid), "{event}");
        let (ts, dur) = (
            event["ts"].as_f64().unwrap(),
            event["dur"].as_f64().unwrap(),
        );
        assert!(ts >= 0.0 && dur >= 0.0, "{event}");
        let name = event["name"].as_str().unwrap();
        match name {
            "poll" => {
                polls += 1;
                assert!(event["args"]["task"].as_u64().is_some(), "{event}");
            }
            "parked" => {}
            other => panic!("an event named {other}"),
        }
        lanes.entry(tid).or_default().push((ts, dur, name));
    }
    // Not every worker need poll (stealing is not guaranteed), but the run
    // did.
    assert!(polls > 0);
    // The report counts what was written: all but the metadata.
    let metadata = 1 + names.len();
    assert_eq!(report["trace_events"], (events.len() - metadata) as u64);

    // On each thread, no two spans overlap: polls do not nest, and a
    // worker never polls while parked. (The times are whole nanoseconds
    // written in microseconds; allow for the decimal rounding.)
    for spans in lanes.values_mut() {
        spans.sort_by(|a, b| a.0.total_cmp(&b.0));
        for pair in spans.windows(2) {
            let ((ts, dur, first), (next, _, second)) = (pair[0], pair[1]);
            assert!(
                ts + dur <= next + 0.001,
                "a {first} at {ts} µs for {dur} µs overlaps a {second} at {next} µs"
            );
        }
    }
}

#[test]
fn a_path_that_cannot_be_written_is_one_line_and_a_failure() {
    let dir = temporary("no-such-directory");
    let path = dir.join("trace.json");
    let output = chapter_07(&["trace", "--out", path.to_str().unwrap()]);
    assert!(!output.status.success());
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
    assert!(stderr.starts_with("error: cannot create"), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(!dir.exists());
}

#[test]
fn durations_out_of_range_are_refused_by_the_parser() {
    for duration in ["5", "10001", "x"] {
        let output = chapter_07(&["trace", "--out", "unused.json", "--duration-ms", duration]);
        assert_eq!(output.status.code(), Some(2), "{duration}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
        assert!(!std::path::Path::new("unused.json").exists());
    }
}
