//! The `chapter-10` binary as a reader runs it.

#![cfg(target_os = "linux")]

use chapter_01::cli_check::json_of;
use std::process::{Command, Output};

fn chapter_10(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_chapter-10"))
        .args(args)
        .output()
        .expect("the binary runs")
}

#[test]
fn help_lists_every_experiment() {
    let output = chapter_10(&["--help"]);
    assert!(output.status.success());
    insta::assert_snapshot!(String::from_utf8_lossy(&output.stdout));
}

#[test]
fn the_probe_names_every_operation() {
    let json = json_of(&chapter_10(&["probe", "--json"]));
    assert_eq!(json["experiment"], "probe");
    if json["io_uring"] == true {
        for op in ["accept", "recv", "send", "read", "timeout", "async_cancel"] {
            assert!(json[format!("op_{op}")].is_boolean(), "{op}: {json}");
        }
    }
}

#[test]
fn the_overflow_loses_nothing() {
    if !chapter_10::uring::available() {
        eprintln!("skipped: io_uring is refused here (tests/fallback.rs covers this case)");
        return;
    }
    let json = json_of(&chapter_10(&["overflow", "--operations", "500", "--json"]));
    assert_eq!(json["reaped"], 500);
    assert_eq!(json["lost_or_doubled"], 0);
    assert_eq!(json["overflowed"], true);
}

#[test]
fn the_steps_verify_every_byte() {
    let json = json_of(&chapter_10(&[
        "steps",
        "--connections",
        "100",
        "--duration",
        "1",
        "--json",
    ]));
    let results = json["results"].as_array().unwrap();
    assert_eq!(results.len(), 5); // epoll, then the four steps
    for result in results {
        assert_eq!(result["connections_held"], 100, "{result}");
        assert_eq!(result["mismatches"], 0);
        assert_eq!(result["errors"], 0);
    }
    // One thread each: epoll and the ring.
    for result in results {
        assert_eq!(result["server_threads"], 1, "{result}");
    }
}

#[test]
fn bad_input_gets_one_clear_line() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let taken = taken.local_addr().unwrap().to_string();
    for (args, needle) in [
        (&["serve", "--mode", "sideways"][..], "sideways"),
        (&["serve", "--addr", &taken][..], "cannot bind"),
        (&["serve", "--fd-limit", "3"][..], "3 is not in"),
        (&["serve", "--port", "70000"][..], "70000"),
        (&["overflow", "--cq-entries", "1"][..], "1 is not in"),
        (&["race", "--connections", "9000000"][..], "9000000"),
        (&["race", "--rounds", "0"][..], "0 is not in"),
    ] {
        let output = chapter_10(args);
        assert!(!output.status.success(), "{args:?} succeeded");
        let err = String::from_utf8_lossy(&output.stderr);
        let lines: Vec<&str> = err.lines().filter(|l| l.starts_with("error")).collect();
        assert_eq!(lines.len(), 1, "{args:?}: {err}");
        assert!(err.contains(needle), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
}
