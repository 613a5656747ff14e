//! SVG plots of the chapter's measurements (the book embeds them).
//!
//! Drawn with `plotters`' SVG backend, which writes text as SVG `<text>`
//! elements: no font files are read, so the plots render the same on any
//! machine and in any browser.

use std::io;
use std::path::Path;

use plotters::prelude::*;

use crate::cache_pollution::SweepPoint;

fn to_io(err: impl std::fmt::Display) -> io::Error {
    io::Error::other(format!("cannot draw the plot: {err}"))
}

// ANCHOR: cache_plot
/// The cache sweep: ns per access against working set (log 2 axis), after a
/// switch and without one, with the cache sizes marked.
pub fn cache_sweep(
    path: &Path,
    points: &[SweepPoint],
    caches_kib: &[(u32, u64)],
    machine: &str,
) -> io::Result<()> {
    let root = SVGBackend::new(path, (800, 480)).into_drawing_area();
    root.fill(&WHITE).map_err(to_io)?;
    // The x axis is log2 of the working set in KiB, so every doubling is one
    // tick and the labels read 4 KiB, 8 KiB, ... 32 MiB.
    let log2 = |kib: f64| kib.max(1.0).log2();
    let x_max = log2(points.iter().map(|p| p.working_set_kib).max().unwrap_or(1) as f64);
    let y_max = points
        .iter()
        .map(|p| p.ns_per_access_after_switch.max(p.ns_per_access_no_switch))
        .fold(1.0, f64::max)
        * 1.5;
    let y_min = points
        .iter()
        .map(|p| p.ns_per_access_after_switch.min(p.ns_per_access_no_switch))
        .fold(f64::MAX, f64::min)
        .clamp(0.1, 1.0)
        / 1.5;
    let mut chart = ChartBuilder::on(&root)
        .caption(
            format!("Cost of a memory access after a context switch ({machine})"),
            ("sans-serif", 16),
        )
        .margin(16)
        .x_label_area_size(44)
        .y_label_area_size(60)
        .build_cartesian_2d(1.5f64..x_max + 0.5, (y_min..y_max).log_scale())
        .map_err(to_io)?;
    chart
        .configure_mesh()
        .x_desc("working set of each thread (log scale)")
        .y_desc("ns per access (pointer chase, log scale)")
        .x_labels((x_max as usize).max(2))
        .x_label_formatter(&|x| {
            chapter_01::console::human_kib(x.round().exp2())
                .replace(".00 ", " ")
                .replace(".0 ", " ")
        })
        .y_label_formatter(&|y| format!("{y}"))
        .draw()
        .map_err(to_io)?;
    for &(level, kib) in caches_kib {
        let x = log2(kib as f64);
        let color = RGBColor(0, 130, 60);
        chart
            .draw_series(LineSeries::new(
                [(x, y_min), (x, y_max)],
                color.stroke_width(2),
            ))
            .map_err(to_io)?
            .label(format!(
                "L{level} cache: {}",
                chapter_01::console::human_kib(kib as f64)
            ))
            .legend(move |(x, y)| PathElement::new([(x, y), (x + 16, y)], color.stroke_width(2)));
    }
    let series = [
        ("after a switch", RED, true),
        ("no switch (warm)", BLUE, false),
    ];
    for (name, color, after) in series {
        let data: Vec<(f64, f64)> = points
            .iter()
            .map(|p| {
                let y = if after {
                    p.ns_per_access_after_switch
                } else {
                    p.ns_per_access_no_switch
                };
                (log2(p.working_set_kib as f64), y)
            })
            .collect();
        chart
            .draw_series(LineSeries::new(data.clone(), color.stroke_width(2)))
            .map_err(to_io)?
            .label(name)
            .legend(move |(x, y)| PathElement::new([(x, y), (x + 16, y)], color.stroke_width(2)));
        chart
            .draw_series(
                data.iter()
                    .map(|&(x, y)| Circle::new((x, y), 3, color.filled())),
            )
            .map_err(to_io)?;
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .background_style(WHITE.mix(0.9))
        .border_style(BLACK.mix(0.4))
        .draw()
        .map_err(to_io)?;
    root.present().map_err(to_io)
}
// ANCHOR_END: cache_plot

/// The cost of each kind of switch, one bar per kind, on a log scale.
pub fn switch_costs(path: &Path, costs: &[(&str, f64)], machine: &str) -> io::Result<()> {
    let root = SVGBackend::new(path, (800, 60 + 44 * costs.len() as u32)).into_drawing_area();
    root.fill(&WHITE).map_err(to_io)?;
    let x_max = costs.iter().map(|c| c.1).fold(1.0, f64::max) * 4.0;
    let x_min = costs.iter().map(|c| c.1).fold(f64::MAX, f64::min).max(0.01) / 2.0;
    let n = costs.len();
    let mut chart = ChartBuilder::on(&root)
        .caption(
            format!("What a switch costs, ns, log scale ({machine})"),
            ("sans-serif", 16),
        )
        .margin(16)
        .x_label_area_size(36)
        .y_label_area_size(230)
        .build_cartesian_2d((x_min..x_max).log_scale(), 0.0..n as f64)
        .map_err(to_io)?;
    let labels: Vec<String> = costs.iter().map(|c| c.0.to_string()).collect();
    chart
        .configure_mesh()
        .disable_y_mesh()
        .y_labels(n * 2 + 1)
        .y_label_formatter(&|y| {
            let i = (y - 0.5).round();
            if (y - 0.5 - i).abs() < 1e-6 && i >= 0.0 && (i as usize) < labels.len() {
                labels[labels.len() - 1 - i as usize].clone()
            } else {
                String::new()
            }
        })
        .x_desc("time per switch (log scale)")
        .x_label_formatter(&|x| chapter_01::console::human_duration_ns(*x))
        .draw()
        .map_err(to_io)?;
    chart
        .draw_series(costs.iter().enumerate().map(|(i, &(_, ns))| {
            let row = (n - 1 - i) as f64;
            Rectangle::new(
                [(x_min, row + 0.2), (ns, row + 0.8)],
                BLUE.mix(0.7).filled(),
            )
        }))
        .map_err(to_io)?;
    chart
        .draw_series(costs.iter().enumerate().map(|(i, &(_, ns))| {
            let row = (n - 1 - i) as f64;
            Text::new(
                chapter_01::console::human_duration_ns(ns),
                (ns * 1.1, row + 0.35),
                ("sans-serif", 13),
            )
        }))
        .map_err(to_io)?;
    root.present().map_err(to_io)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plots_are_written_as_svg() {
        let dir = std::env::temp_dir().join(format!("ch02-plots-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let points = [
            SweepPoint {
                working_set_kib: 4,
                ns_per_access_after_switch: 2.0,
                ns_per_access_no_switch: 1.0,
            },
            SweepPoint {
                working_set_kib: 1024,
                ns_per_access_after_switch: 20.0,
                ns_per_access_no_switch: 5.0,
            },
        ];
        cache_sweep(
            &dir.join("cache.svg"),
            &points,
            &[(1, 32), (2, 512)],
            "test",
        )
        .unwrap();
        switch_costs(
            &dir.join("switch.svg"),
            &[("function call", 1.5), ("thread switch", 2000.0)],
            "test",
        )
        .unwrap();
        for name in ["cache.svg", "switch.svg"] {
            let svg = std::fs::read_to_string(dir.join(name)).unwrap();
            assert!(svg.starts_with("<svg"), "{name}");
            assert!(svg.contains("<text"), "{name} has labels");
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
