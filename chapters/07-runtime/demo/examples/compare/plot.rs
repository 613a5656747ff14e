//! `--plot DIR`: the comparisons' results as SVG plots, drawn from the JSON
//! each comparison returns (so a plot shows exactly the numbers its table
//! prints), with Chapter 5's drawing code through `chapter_07::plots`.
//!
//! Book: Chapter 8, "Locks and notification" and "Channels", and Chapter 9.

use chapter_05::plots::{Group, machine_label, write_into};
use chapter_07::plots;
use serde_json::Value;
use std::io;
use std::path::Path;

fn num(row: &Value, key: &str) -> f64 {
    row.get(key).and_then(Value::as_f64).unwrap_or(0.0)
}

fn rows(report: &Value) -> &[Value] {
    report
        .get("results")
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

fn name(row: &Value, key: &str) -> String {
    row.get(key)
        .and_then(Value::as_str)
        .unwrap_or("?")
        .replace('_', " ")
}

/// `sync`: ns per operation, ours against Tokio, per primitive (the
/// std::sync::Mutex rows on both runtimes).
pub fn sync(dir: &Path, report: &Value) -> io::Result<std::path::PathBuf> {
    let groups = rows(report)
        .iter()
        .map(|row| Group {
            name: name(row, "primitive"),
            values: vec![num(row, "ours_ns_per_op"), num(row, "tokio_ns_per_op")],
        })
        .collect();
    let title = format!(
        "Locks: time per operation, median of {} rounds",
        num(report, "rounds")
    );
    write_into(dir, "sync-ns-per-op.svg", |path| {
        plots::grouped_bars(
            path,
            &title,
            "time per operation (ns, log scale; lower is better)",
            &["rt", "Tokio"],
            groups,
            true,
            plots::ns,
            &machine_label(),
        )
    })
}

/// `scheduler`: median time per workload on the three runtimes (log
/// scale, since the workloads span three orders of magnitude).
pub fn scheduler(dir: &Path, report: &Value) -> io::Result<std::path::PathBuf> {
    let groups = rows(report)
        .iter()
        .map(|row| Group {
            name: name(row, "workload"),
            values: vec![
                num(row, "ours_ns"),
                num(row, "tokio_ns"),
                num(row, "async_executor_ns"),
            ],
        })
        .collect();
    let title = format!(
        "Tokio's scheduler workloads, {} workers: median of {} rounds",
        num(report, "workers"),
        num(report, "rounds")
    );
    write_into(dir, "scheduler-times.svg", |path| {
        plots::grouped_bars(
            path,
            &title,
            "time per run of the workload (log scale; lower is better)",
            &["rt", "Tokio", "async-executor"],
            groups,
            true,
            plots::ns,
            &machine_label(),
        )
    })
}

/// `channels`: messages per second, ours against Tokio, per case.
pub fn channels(dir: &Path, report: &Value) -> io::Result<std::path::PathBuf> {
    let groups = rows(report)
        .iter()
        .map(|row| Group {
            name: name(row, "case"),
            values: vec![
                num(row, "ours_messages_per_sec") / 1e6,
                num(row, "tokio_messages_per_sec") / 1e6,
            ],
        })
        .collect();
    let title = format!(
        "mpsc throughput, median of {} rounds",
        num(report, "rounds")
    );
    write_into(dir, "channels-throughput.svg", |path| {
        plots::grouped_bars(
            path,
            &title,
            "messages per second (millions; higher is better)",
            &["rt", "Tokio"],
            groups,
            false,
            |x| format!("{x:.1} M/s"),
            &machine_label(),
        )
    })
}

/// `http`: requests per second and p99 latency per runtime and connection
/// count (two plots).
pub fn http(dir: &Path, report: &Value) -> io::Result<Vec<std::path::PathBuf>> {
    let mut connections: Vec<u64> = rows(report)
        .iter()
        .filter_map(|row| row.get("connections").and_then(Value::as_u64))
        .collect();
    connections.sort_unstable();
    connections.dedup();
    let value = |runtime: &str, c: u64, key: &str| {
        rows(report)
            .iter()
            .find(|row| {
                row.get("runtime").and_then(Value::as_str) == Some(runtime)
                    && row.get("connections").and_then(Value::as_u64) == Some(c)
            })
            .map_or(0.0, |row| num(row, key))
    };
    let groups = |key: &str, scale: f64| -> Vec<Group> {
        connections
            .iter()
            .map(|&c| Group {
                name: format!("{c} connections"),
                values: vec![value("rt", c, key) / scale, value("tokio", c, key) / scale],
            })
            .collect()
    };
    let rounds = num(report, "rounds");
    let runs = if rounds == 1.0 {
        format!("one {} s wrk run each", num(report, "duration_s"))
    } else {
        format!(
            "{} s wrk runs, median of {rounds} rounds",
            num(report, "duration_s")
        )
    };
    let machine = machine_label();
    let rps = write_into(dir, "http-requests-per-sec.svg", |path| {
        plots::grouped_bars(
            path,
            &format!("hyper under wrk: requests per second, {runs}"),
            "requests per second (thousands; higher is better)",
            &["rt", "Tokio"],
            groups("requests_per_sec", 1e3),
            false,
            |x| format!("{x:.1} k/s"),
            &machine,
        )
    })?;
    let p99 = write_into(dir, "http-p99.svg", |path| {
        plots::grouped_bars(
            path,
            &format!("hyper under wrk: p99 latency, {runs}"),
            "p99 latency (ms; lower is better)",
            &["rt", "Tokio"],
            groups("latency_p99_us", 1e3),
            false,
            |x| format!("{x:.2} ms"),
            &machine,
        )
    })?;
    Ok(vec![rps, p99])
}
