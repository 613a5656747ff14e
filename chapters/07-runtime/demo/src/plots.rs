//! SVG plots of the chapter's measurements (the book embeds them).
//!
//! The budget's effect on a ticker (`coop`), the timing wheel against
//! Chapter 5's heap as timers grow (`timers`), and, for the appendix and
//! the racing page, echo and scheduler results against Tokio. Each reads
//! the report its experiment returns, so a plot shows exactly the numbers
//! the table beside it prints. Drawn with Chapter 5's
//! [`chapter_05::plots`], so every chapter's plots look alike.
//!
//! Book: Chapter 7, "The budget" and "Time" pages, and the benchmark
//! appendix.

use std::io;
use std::path::Path;

use chapter_01::console::{Report, group_thousands, human_duration_ns};
use chapter_05::plots::{self, Bars, Group, Lines};
use serde_json::Value;

fn get(report: &Report, key: &str) -> f64 {
    report.get(key).and_then(Value::as_f64).unwrap_or(0.0)
}

/// `coop`: the ticker's lateness percentiles with the budget on and off.
pub fn coop(path: &Path, report: &Report, machine: &str) -> io::Result<()> {
    let groups = [
        ("budget_on", "budget on (128 ops per poll)"),
        ("budget_off", "budget off"),
    ]
    .iter()
    .map(|(key, name)| Group {
        name: (*name).to_string(),
        values: ["p50", "p99", "max"]
            .iter()
            .map(|p| get(report, &format!("ticker_lateness_{p}_ms_{key}")))
            .collect(),
    })
    .collect();
    plots::bars(
        path,
        &Bars {
            title: "A 1 ms ticker beside a reader that is always ready (rt::io::repeat), one worker",
            x_desc: "how late the ticker woke (ms, log scale)",
            series: vec!["p50".into(), "p99".into(), "max".into()],
            groups,
            log: true,
            format: plots::ms,
            reference: None,
        },
        machine,
    )
}

/// `timers`: ns per operation of the wheel and the heap against the number
/// of timers (insert+cancel, and insert+fire).
pub fn timers(path: &Path, report: &Report, machine: &str) -> io::Result<()> {
    let series = |prefix: &str| -> Vec<(f64, f64)> {
        let mut points: Vec<(f64, f64)> = report
            .fields()
            .filter_map(|(key, _, value)| {
                let n: f64 = key.strip_prefix(prefix)?.parse().ok()?;
                Some((n, value.as_f64()?))
            })
            .collect();
        points.sort_by(|a, b| a.0.total_cmp(&b.0));
        points
    };
    timer_lines(
        path,
        vec![
            ("wheel: insert + cancel".into(), series("wheel_ns_per_op_")),
            ("heap: insert + cancel".into(), series("heap_ns_per_op_")),
            ("wheel: insert + fire".into(), series("wheel_fire_ns_")),
            ("heap: insert + fire".into(), series("heap_fire_ns_")),
        ],
        machine,
    )
}

/// The timer lines, from (name, points) series.
pub fn timer_lines(
    path: &Path,
    series: Vec<(String, Vec<(f64, f64)>)>,
    machine: &str,
) -> io::Result<()> {
    plots::lines(
        path,
        &Lines {
            title: "Timing wheel against binary heap as timers grow",
            x_desc: "timers pending (log scale)",
            y_desc: "ns per operation (log scale)",
            series,
            log_y: true,
        },
        machine,
    )
}

/// Horizontal bars of one value per name (the appendix's echo throughput,
/// the scheduler ratios), with an optional reference line.
pub fn single_bars(
    path: &Path,
    title: &str,
    x_desc: &str,
    bars: &[(String, f64)],
    reference: Option<f64>,
    format: fn(f64) -> String,
    machine: &str,
) -> io::Result<()> {
    plots::bars(
        path,
        &Bars {
            title,
            x_desc,
            series: vec![x_desc.to_string()],
            groups: bars
                .iter()
                .map(|(name, value)| Group {
                    name: name.clone(),
                    values: vec![*value],
                })
                .collect(),
            log: false,
            format,
            reference,
        },
        machine,
    )
}

/// Grouped bars, several values per name (the scheduler workloads' times
/// on three runtimes, the switch costs), on a log scale if `log`.
#[allow(clippy::too_many_arguments)]
pub fn grouped_bars(
    path: &Path,
    title: &str,
    x_desc: &str,
    series: &[&str],
    groups: Vec<Group>,
    log: bool,
    format: fn(f64) -> String,
    machine: &str,
) -> io::Result<()> {
    plots::bars(
        path,
        &Bars {
            title,
            x_desc,
            series: series.iter().map(|s| s.to_string()).collect(),
            groups,
            log,
            format,
            reference: None,
        },
        machine,
    )
}

/// `cancel`: the bytes each reader lost, the naive `select!` loop against
/// the fixed one.
pub fn cancel(path: &Path, report: &Report, machine: &str) -> io::Result<()> {
    let title = format!(
        "Bytes lost of {} sent: select! over read_exact against a ticker, and fixed",
        group_thousands(get(report, "sent_bytes"))
    );
    single_bars(
        path,
        &title,
        "bytes lost (bytes)",
        &[
            (
                "naive (read_exact in select!)".to_string(),
                get(report, "naive_lost_bytes"),
            ),
            (
                "fixed (state outside, one read)".to_string(),
                get(report, "fixed_lost_bytes"),
            ),
        ],
        None,
        count,
        machine,
    )
}

/// `joinset`: the time of each step, median over rounds (ms).
pub fn joinset(path: &Path, report: &Report, machine: &str) -> io::Result<()> {
    let tasks = group_thousands(get(report, "tasks"));
    let half = group_thousands((get(report, "tasks") / 2.0).floor());
    let title = format!(
        "{tasks} tasks in a JoinSet: spawn, join, abort, drop (median of {} rounds)",
        get(report, "rounds")
    );
    single_bars(
        path,
        &title,
        "time (ms)",
        &[
            (
                format!("spawn {tasks} (all succeed)"),
                get(report, "all_succeed_spawn_ms"),
            ),
            (
                format!("join {tasks} (all succeed)"),
                get(report, "all_succeed_join_ms"),
            ),
            (
                format!("spawn {tasks} (half wait forever)"),
                get(report, "spawn_ms"),
            ),
            ("abort_all() call".to_string(), get(report, "abort_call_ms")),
            (
                "abort_all() to last joined".to_string(),
                get(report, "abort_to_all_joined_ms"),
            ),
            (
                format!("drop(set of {half}) to last future dropped"),
                get(report, "drop_to_all_dropped_ms"),
            ),
        ],
        None,
        chapter_05::plots::ms,
        machine,
    )
}

/// One lane per worker of a [`Trace`](rt::runtime::Trace): polls, parks
/// and driver turns as bars along a time axis, steals as red ticks. Events
/// closer than a pixel apart are merged into one bar, so a run of a
/// hundred thousand polls stays a small file.
pub fn timeline(
    path: &Path,
    trace: &rt::runtime::Trace,
    title: &str,
    machine: &str,
) -> io::Result<()> {
    use plotters::prelude::*;
    use rt::runtime::TraceKind;
    let to_io =
        |err: &dyn std::fmt::Display| io::Error::other(format!("cannot draw the plot: {err}"));
    let end_ms = trace
        .workers
        .iter()
        .flatten()
        .map(|e| (e.start + e.duration).as_secs_f64() * 1e3)
        .fold(0.001, f64::max);
    let lanes = trace.workers.len();
    let root = SVGBackend::new(path, (900, 130 + 70 * lanes as u32)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| to_io(&e))?;
    let mut chart = ChartBuilder::on(&root)
        .caption(format!("{title} ({machine})"), ("sans-serif", 15))
        .margin(14)
        .x_label_area_size(40)
        .y_label_area_size(80)
        // Room at the right for the legend, past the last event.
        .build_cartesian_2d(0.0..end_ms * 1.22, 0.0..lanes as f64)
        .map_err(|e| to_io(&e))?;
    chart
        .configure_mesh()
        .disable_y_mesh()
        .y_labels(lanes * 2 + 1)
        .y_label_formatter(&|y| {
            let lane = (y - 0.5).round();
            if (y - 0.5 - lane).abs() < 1e-6 && lane >= 0.0 && (lane as usize) < lanes {
                format!("worker {}", lanes - 1 - lane as usize)
            } else {
                String::new()
            }
        })
        .x_desc("time since the runtime started (ms)")
        .draw()
        .map_err(|e| to_io(&e))?;
    let pixel = end_ms / 800.0;
    let kinds: [(&str, RGBColor, f64, f64); 3] = [
        ("polls", RGBColor(0, 114, 178), 0.15, 0.85),
        ("parked", RGBColor(190, 190, 190), 0.35, 0.65),
        ("driver turns", RGBColor(0, 158, 115), 0.05, 0.15),
    ];
    for (k, (name, color, lo, hi)) in kinds.iter().enumerate() {
        let mut bars = Vec::new();
        for (w, events) in trace.workers.iter().enumerate() {
            let row = (lanes - 1 - w) as f64;
            let mut open: Option<(f64, f64)> = None;
            for e in events {
                let which = match e.kind {
                    TraceKind::Poll { .. } => 0,
                    TraceKind::Park => 1,
                    TraceKind::Driver => 2,
                    TraceKind::Steal { .. } => continue,
                };
                if which != k {
                    continue;
                }
                let a = e.start.as_secs_f64() * 1e3;
                let b = a + (e.duration.as_secs_f64() * 1e3).max(pixel * 0.5);
                open = match open {
                    Some((s, t)) if a - t < pixel => Some((s, t.max(b))),
                    Some(bar) => {
                        bars.push((bar, row));
                        Some((a, b))
                    }
                    None => Some((a, b)),
                };
            }
            if let Some(bar) = open {
                bars.push((bar, row));
            }
        }
        // A kind this trace has none of gets no legend entry either.
        if bars.is_empty() {
            continue;
        }
        let color = *color;
        chart
            .draw_series(bars.into_iter().map(|((a, b), row)| {
                Rectangle::new([(a, row + lo), (b, row + hi)], color.filled())
            }))
            .map_err(|e| to_io(&e))?
            .label(*name)
            .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 14, y + 5)], color.filled()));
    }
    let steals: Vec<(f64, f64)> = trace
        .workers
        .iter()
        .enumerate()
        .flat_map(|(w, events)| {
            events
                .iter()
                .filter(|e| matches!(e.kind, TraceKind::Steal { .. }))
                .map(move |e| (e.start.as_secs_f64() * 1e3, (lanes - 1 - w) as f64))
        })
        .collect();
    if !steals.is_empty() {
        chart
            .draw_series(steals.into_iter().map(|(t, row)| {
                PathElement::new([(t, row + 0.88), (t, row + 0.98)], RED.stroke_width(2))
            }))
            .map_err(|e| to_io(&e))?
            .label("steals")
            .legend(|(x, y)| {
                PathElement::new([(x + 7, y - 6), (x + 7, y + 6)], RED.stroke_width(2))
            });
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperRight)
        .background_style(WHITE.mix(0.9))
        .border_style(BLACK.mix(0.4))
        .draw()
        .map_err(|e| to_io(&e))?;
    root.present().map_err(|e| to_io(&e))
}

/// `shutdown`: one run of the graceful server's script as a timeline:
/// connections open and connections opened so far (as the clients saw
/// them), a mark at SIGINT, the server's "stopped accepting" line, its
/// deadline and its exit, and the probes for new connections after the
/// signal along the bottom (green: `connect` succeeded; red: refused).
pub fn shutdown(
    path: &Path,
    timeline: &crate::shutdown::Timeline,
    title: &str,
    machine: &str,
) -> io::Result<()> {
    use plotters::prelude::*;
    let to_io =
        |err: &dyn std::fmt::Display| io::Error::other(format!("cannot draw the plot: {err}"));
    let (open, opened) = timeline.steps();
    let clients = timeline.connections.len() as f64;
    let end_ms = timeline.exit_ms.max(timeline.deadline_ms) * 1.16;
    let root = SVGBackend::new(path, (900, 480)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| to_io(&e))?;
    let mut chart = ChartBuilder::on(&root)
        .caption(format!("{title} ({machine})"), ("sans-serif", 15))
        .margin(14)
        .x_label_area_size(40)
        .y_label_area_size(56)
        .build_cartesian_2d(0.0..end_ms, -2.5..clients * 1.3)
        .map_err(|e| to_io(&e))?;
    chart
        .configure_mesh()
        .x_desc("time since the server started listening (ms)")
        .y_desc("connections")
        .y_label_formatter(&|y| {
            if *y < 0.0 {
                String::new()
            } else {
                format!("{y:.0}")
            }
        })
        .draw()
        .map_err(|e| to_io(&e))?;
    let blue = RGBColor(0, 114, 178);
    let grey = RGBColor(120, 120, 120);
    chart
        .draw_series(LineSeries::new(opened, grey.stroke_width(2)))
        .map_err(|e| to_io(&e))?
        .label("connections opened so far")
        .legend(move |(x, y)| PathElement::new([(x, y), (x + 16, y)], grey.stroke_width(2)));
    chart
        .draw_series(LineSeries::new(open, blue.stroke_width(3)))
        .map_err(|e| to_io(&e))?
        .label("connections open")
        .legend(move |(x, y)| PathElement::new([(x, y), (x + 16, y)], blue.stroke_width(3)));
    let marks = [
        (Some(timeline.signal_ms), "SIGINT", RGBColor(213, 94, 0)),
        (
            timeline.stopped_line_ms,
            "'stopped accepting'",
            RGBColor(204, 121, 167),
        ),
        (
            Some(timeline.deadline_ms),
            "deadline",
            RGBColor(230, 159, 0),
        ),
        (Some(timeline.exit_ms), "server exited", BLACK),
    ];
    for (i, (at, name, color)) in marks.into_iter().enumerate() {
        let Some(at) = at else { continue };
        let top = clients * (1.27 - 0.07 * i as f64);
        chart
            .draw_series(std::iter::once(PathElement::new(
                [(at, -2.5), (at, top)],
                color.stroke_width(1),
            )))
            .map_err(|e| to_io(&e))?;
        chart
            .draw_series(std::iter::once(Text::new(
                format!("{name} {at:.0} ms"),
                (at, top),
                ("sans-serif", 12).into_font().color(&color),
            )))
            .map_err(|e| to_io(&e))?;
    }
    let green = RGBColor(0, 158, 115);
    let red = RGBColor(200, 30, 30);
    let refused: Vec<f64> = timeline
        .probes
        .iter()
        .filter(|p| !p.1)
        .map(|p| p.0)
        .collect();
    let accepted: Vec<f64> = timeline
        .probes
        .iter()
        .filter(|p| p.1)
        .map(|p| p.0)
        .collect();
    chart
        .draw_series(
            refused
                .into_iter()
                .map(|t| Cross::new((t, -1.3), 3, red.stroke_width(1))),
        )
        .map_err(|e| to_io(&e))?
        .label("a new connect after SIGINT: refused")
        .legend(move |(x, y)| Cross::new((x + 8, y), 3, red.stroke_width(1)));
    chart
        .draw_series(
            accepted
                .into_iter()
                .map(|t| Circle::new((t, -1.3), 3, green.filled())),
        )
        .map_err(|e| to_io(&e))?
        .label("a new connect after SIGINT: succeeded")
        .legend(move |(x, y)| Circle::new((x + 8, y), 3, green.filled()));
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::MiddleLeft)
        .background_style(WHITE.mix(0.9))
        .border_style(BLACK.mix(0.4))
        .draw()
        .map_err(|e| to_io(&e))?;
    root.present().map_err(|e| to_io(&e))
}

/// `loom-space`: interleavings explored per model against the preemption
/// bound, log scale; the `highlight` largest models in colour and named,
/// the others in grey. A run that did not finish ends its line.
pub fn loom_space(
    path: &Path,
    data: &crate::loom_space::Data,
    highlight: usize,
    machine: &str,
) -> io::Result<()> {
    use plotters::prelude::*;
    let to_io =
        |err: &dyn std::fmt::Display| io::Error::other(format!("cannot draw the plot: {err}"));
    let bounds = data.bounds();
    let models = data.by_model();
    let max = models
        .iter()
        .flat_map(|(_, c)| c.iter().flatten())
        .fold(1, |a, b| a.max(*b)) as f64;
    let (lo, hi) = (
        f64::from(*bounds.first().unwrap_or(&1)),
        f64::from(*bounds.last().unwrap_or(&1)),
    );
    let root = SVGBackend::new(path, (820, 500)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| to_io(&e))?;
    let mut chart = ChartBuilder::on(&root)
        .caption(
            format!("Interleavings loom explores per model, by preemption bound ({machine})"),
            ("sans-serif", 15),
        )
        .margin(16)
        .x_label_area_size(44)
        .y_label_area_size(70)
        .build_cartesian_2d(lo - 0.2..hi + 0.2, (0.7..max * 8.0).log_scale())
        .map_err(|e| to_io(&e))?;
    chart
        .configure_mesh()
        .x_labels(bounds.len())
        .x_label_formatter(&|x| {
            if (x - x.round()).abs() < 1e-6 {
                format!("{x:.0}")
            } else {
                String::new()
            }
        })
        .x_desc("LOOM_MAX_PREEMPTIONS")
        .y_desc("interleavings explored (log scale)")
        .y_label_formatter(&|y| group_thousands(*y))
        .draw()
        .map_err(|e| to_io(&e))?;
    let palette = [
        RGBColor(0, 114, 178),
        RGBColor(213, 94, 0),
        RGBColor(0, 158, 115),
        RGBColor(204, 121, 167),
        RGBColor(230, 159, 0),
        RGBColor(86, 180, 233),
    ];
    let points = |counts: &[Option<u64>]| -> Vec<(f64, f64)> {
        bounds
            .iter()
            .zip(counts)
            .map_while(|(b, c)| Some((f64::from(*b), c.map(|n| n as f64)?)))
            .collect()
    };
    let grey = RGBColor(170, 170, 170);
    let others = models.len().saturating_sub(highlight);
    for (i, (_, counts)) in models.iter().enumerate().skip(highlight) {
        let series = chart
            .draw_series(LineSeries::new(points(counts), grey.stroke_width(1)))
            .map_err(|e| to_io(&e))?;
        if i == highlight {
            series
                .label(format!("the other {others} models"))
                .legend(move |(x, y)| {
                    PathElement::new([(x, y), (x + 16, y)], grey.stroke_width(1))
                });
        }
    }
    for (i, (name, counts)) in models.iter().enumerate().take(highlight) {
        let color = palette[i % palette.len()];
        let line = points(counts);
        chart
            .draw_series(LineSeries::new(line.clone(), color.stroke_width(2)))
            .map_err(|e| to_io(&e))?
            .label(name.clone())
            .legend(move |(x, y)| PathElement::new([(x, y), (x + 16, y)], color.stroke_width(2)));
        chart
            .draw_series(line.iter().map(|&p| Circle::new(p, 3, color.filled())))
            .map_err(|e| to_io(&e))?;
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .background_style(WHITE.mix(0.9))
        .border_style(BLACK.mix(0.4))
        .draw()
        .map_err(|e| to_io(&e))?;
    root.present().map_err(|e| to_io(&e))
}

/// Writes a duration given in ns.
pub fn ns(x: f64) -> String {
    human_duration_ns(x)
}

/// Writes a count with thousands separators.
pub fn count(x: f64) -> String {
    group_thousands(x.round())
}

/// Writes a ratio.
pub fn ratio(x: f64) -> String {
    format!("{x:.2}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coop_and_timer_plots_are_svg() {
        let dir = std::env::temp_dir().join(format!("ch07-plots-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let mut report = Report::new("coop");
        for key in ["budget_on", "budget_off"] {
            for p in ["p50", "p99", "max"] {
                report.add(&format!("ticker_lateness_{p}_ms_{key}"), p, 1.5);
            }
        }
        coop(&dir.join("c.svg"), &report, "test").unwrap();
        let mut report = Report::new("timers");
        for n in [1_000, 10_000] {
            report.add(&format!("wheel_ns_per_op_{n}"), "w", 40.0);
            report.add(&format!("heap_ns_per_op_{n}"), "h", 90.0);
        }
        timers(&dir.join("t.svg"), &report, "test").unwrap();
        let svg = std::fs::read_to_string(dir.join("t.svg")).unwrap();
        assert!(svg.contains("wheel: insert + cancel") && svg.contains("<svg"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
