//! The series: the same server at 100, 1,000, 5,000 and 10,000 connections.
//!
//! One C10K run says how a server behaves at one size; what the chapter
//! asks is how it *degrades*. [`run`] puts a server through the harness at
//! each size in turn, and [`plot`] draws the three curves the book shows:
//! resident memory per connection, the server's context switches per
//! message, and p99 latency.

use std::error::Error;
use std::path::{Path, PathBuf};
use std::time::Duration;

use indicatif::ProgressBar;

use crate::harness::{self, C10kReport, ServerSpec};
use crate::load::LoadConfig;
use crate::plots::{self, Series, YScale};

/// The sizes of the full series.
pub const FULL_POINTS: [usize; 4] = [100, 1_000, 5_000, 10_000];

/// The total message rate of a series unless the reader picks one: below
/// what the threads server sustains at 10,000 connections on two CPUs, so
/// every size is measured at the same offered load.
pub const DEFAULT_RATE: f64 = 10_000.0;

/// The sizes of a quick series.
pub const QUICK_POINTS: [usize; 3] = [50, 200, 500];

/// Runs the harness at each size with every server in turn (servers
/// alternate at each size, so a change in the machine's load mid-series
/// touches them alike), with `base` as the load's settings.
pub fn run(
    specs: &[ServerSpec],
    points: &[usize],
    base: &LoadConfig,
    duration: Duration,
    progress: &ProgressBar,
    mut after_each: impl FnMut(&C10kReport),
) -> Result<Vec<C10kReport>, Box<dyn Error>> {
    let mut reports = Vec::with_capacity(points.len() * specs.len());
    for &connections in points {
        for spec in specs {
            let mut config = base.clone();
            config.connections = connections;
            config.duration = duration;
            let report = harness::run_c10k(spec, &config, progress)?;
            after_each(&report);
            reports.push(report);
        }
    }
    Ok(reports)
}

/// Writes the three plots into `dir` and returns their paths.
pub fn plot(dir: &Path, reports: &[C10kReport], machine: &str) -> std::io::Result<Vec<PathBuf>> {
    let by_server = |value: fn(&C10kReport) -> f64| -> Vec<Series> {
        let mut names: Vec<&str> = Vec::new();
        for report in reports {
            if !names.contains(&report.server.as_str()) {
                names.push(&report.server);
            }
        }
        names
            .into_iter()
            .map(|name| Series {
                name: name.to_string(),
                points: reports
                    .iter()
                    .filter(|r| r.server == name)
                    .map(|r| (r.load.connections_requested as f64, value(r)))
                    .collect(),
            })
            .collect()
    };
    struct Plot {
        file: &'static str,
        title: String,
        y_desc: &'static str,
        y_scale: YScale,
        value: fn(&C10kReport) -> f64,
    }
    let plots = [
        Plot {
            file: "c10k-memory.svg",
            title: format!("Server resident memory per connection ({machine})"),
            y_desc: "KiB per connection",
            y_scale: YScale::Linear,
            value: C10kReport::rss_per_connection_kib,
        },
        Plot {
            file: "c10k-switches.svg",
            title: format!("Server context switches per message ({machine})"),
            y_desc: "switches per message",
            y_scale: YScale::Linear,
            value: C10kReport::switches_per_message,
        },
        Plot {
            file: "c10k-latency.svg",
            title: format!("Round-trip latency, p50 and p99 ({machine})"),
            y_desc: "latency (ms, log scale)",
            y_scale: YScale::Log,
            value: |r| r.load.stats.latency_percentile_us(99.0) / 1e3,
        },
    ];
    let mut paths = Vec::new();
    for plot in plots {
        let path = dir.join(plot.file);
        let mut series = by_server(plot.value);
        if plot.file == "c10k-latency.svg" {
            // p50 beside p99, so the tail stands out against the typical case.
            for s in &mut series {
                s.name = format!("{} p99", s.name);
            }
            let p50 = by_server(|r| r.load.stats.latency_percentile_us(50.0) / 1e3);
            series.extend(p50.into_iter().map(|mut s| {
                s.name = format!("{} p50", s.name);
                s
            }));
        }
        plots::against_connections(&path, &plot.title, plot.y_desc, plot.y_scale, &series)?;
        paths.push(path);
    }
    Ok(paths)
}
