//! SVG plots of the chapter's measurements (the book embeds them).
//!
//! The relay three ways (Chapter 5's callbacks, the hand-written future,
//! `async fn`) under the same load: requests per second, and latency. Drawn
//! with Chapter 5's [`chapter_05::plots`], so every chapter's plots look
//! alike.
//!
//! Book: Chapter 6, "The same protocol, three ways".

use std::io;
use std::path::Path;

use chapter_01::console::{Report, group_thousands, human_duration_ns};
use chapter_05::plots::{self, Bars, Group};
use serde_json::Value;

/// What each implementation is called in the plots.
fn describe(implementation: &str) -> String {
    match implementation {
        "callbacks" => "Ch. 5 callbacks".into(),
        "future" => "hand-written Future".into(),
        "async" => "async/await".into(),
        other => other.into(),
    }
}

fn results(report: &Report) -> Vec<Value> {
    report
        .get("results")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default()
}

// ANCHOR: compare_plots
/// The `compare` experiment as two plots: throughput, and latency p50/p99.
pub fn compare(
    throughput_path: &Path,
    latency_path: &Path,
    report: &Report,
    machine: &str,
) -> io::Result<()> {
    let rows = results(report);
    let num = |row: &Value, key: &str| row[key].as_f64().unwrap_or(0.0);
    let name = |row: &Value| describe(row["implementation"].as_str().unwrap_or("?"));
    let rounds = rows.first().map_or(0.0, |row| num(row, "rounds"));
    let throughput_title =
        format!("The relay three ways: requests per second (median of {rounds:.0} rounds)");
    plots::bars(
        throughput_path,
        &Bars {
            title: &throughput_title,
            x_desc: "requests per second (higher is better)",
            series: vec!["requests/s".into()],
            groups: rows
                .iter()
                .map(|row| Group {
                    name: name(row),
                    values: vec![num(row, "throughput_per_sec")],
                })
                .collect(),
            log: false,
            format: |x| group_thousands(x.round()),
            reference: None,
        },
        machine,
    )?;
    let latency_title = format!("The relay three ways: latency (median of {rounds:.0} rounds)");
    plots::bars(
        latency_path,
        &Bars {
            title: &latency_title,
            x_desc: "request latency (lower is better)",
            series: vec!["p50".into(), "p99".into()],
            groups: rows
                .iter()
                .map(|row| Group {
                    name: name(row),
                    values: vec![
                        num(row, "latency_p50_us") * 1e3,
                        num(row, "latency_p99_us") * 1e3,
                    ],
                })
                .collect(),
            log: false,
            format: human_duration_ns,
            reference: None,
        },
        machine,
    )
}
// ANCHOR_END: compare_plots

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[cfg_attr(miri, ignore = "writes files, which Miri's isolation refuses")]
    fn compare_plots_are_svg() {
        let dir = std::env::temp_dir().join(format!("ch06-plots-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let mut report = Report::new("compare");
        report.add(
            "results",
            "implementations",
            serde_json::json!([
                {"implementation": "callbacks", "throughput_per_sec": 9000.0, "latency_p50_us": 900.0, "latency_p99_us": 2000.0, "rounds": 3},
                {"implementation": "async", "throughput_per_sec": 8800.0, "latency_p50_us": 950.0, "latency_p99_us": 2100.0, "rounds": 3},
            ]),
        );
        compare(&dir.join("t.svg"), &dir.join("l.svg"), &report, "test").unwrap();
        let svg = std::fs::read_to_string(dir.join("t.svg")).unwrap();
        assert!(svg.contains("async/await") && svg.contains("requests per second"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
