//! The race's plots: throughput and system calls per message against the
//! connection count, one line per server (Chapter 3's plotting helpers).
//!
//! Book: Chapter 10, "The race".

use std::io;
use std::path::{Path, PathBuf};

use chapter_01::machine::Machine;
use chapter_03::plots::{self, Series, YScale};
use serde_json::Value;

/// One series per server of `rows` (the race's result rows), the median of `key`.
fn series(rows: &[Value], key: &str, scale: f64) -> Vec<Series> {
    let mut out: Vec<Series> = Vec::new();
    for row in rows {
        let (Some(name), Some(n), Some(y)) = (
            row["server"].as_str(),
            row["connections"].as_f64(),
            row[key]["median"].as_f64(),
        ) else {
            continue;
        };
        match out.iter_mut().find(|s| s.name == name) {
            Some(s) => s.points.push((n, y * scale)),
            None => out.push(Series {
                name: name.to_string(),
                points: vec![(n, y * scale)],
            }),
        }
    }
    out
}

/// Writes `race-throughput.svg` and `race-syscalls.svg` into `dir`.
pub fn race(dir: &Path, rows: &[Value]) -> io::Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir)?;
    let machine = Machine::current();
    let host = format!("{}, {} CPUs", machine.cpu, machine.logical_cpus);
    let throughput = dir.join("race-throughput.svg");
    plots::against_connections(
        &throughput,
        &format!("Echo throughput, median of the rounds ({host})"),
        "thousand messages per second",
        YScale::Linear,
        &series(rows, "throughput_msgs_per_sec", 1e-3),
    )?;
    let syscalls = dir.join("race-syscalls.svg");
    plots::against_connections(
        &syscalls,
        &format!("Server system calls per echoed message ({host})"),
        "system calls per message",
        YScale::Linear,
        &series(rows, "syscalls_per_message", 1.0),
    )?;
    Ok(vec![throughput, syscalls])
}
