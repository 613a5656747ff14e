//! SVG line plots for the C10K series (the book embeds them).
//!
//! One small function draws any of them: x is the number of connections on
//! a log scale, y whatever the series measured. Like Chapter 2's plots they
//! use `plotters`' SVG backend, which needs no fonts installed.

use std::io;
use std::path::Path;

use plotters::prelude::*;

fn to_io(err: impl std::fmt::Display) -> io::Error {
    io::Error::other(format!("cannot draw the plot: {err}"))
}

/// One named line.
#[derive(Debug, Clone)]
pub struct Series {
    /// Legend text.
    pub name: String,
    /// (connections, value) points.
    pub points: Vec<(f64, f64)>,
}

/// How to scale the y axis.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum YScale {
    /// From zero, linear.
    Linear,
    /// Logarithmic: for latencies spanning orders of magnitude.
    Log,
}

/// Draws `series` against the number of connections (log scale).
pub fn against_connections(
    path: &Path,
    title: &str,
    y_desc: &str,
    y_scale: YScale,
    series: &[Series],
) -> io::Result<()> {
    against_count(
        path,
        title,
        "connections (log scale)",
        y_desc,
        y_scale,
        series,
    )
}

/// Draws `series` against a count named by `x_desc` (log scale).
pub fn against_count(
    path: &Path,
    title: &str,
    x_desc: &str,
    y_desc: &str,
    y_scale: YScale,
    series: &[Series],
) -> io::Result<()> {
    match y_scale {
        YScale::Linear => {
            let y_max = max_y(series) * 1.15;
            draw(path, title, x_desc, y_desc, series, 0.0..y_max)
        }
        YScale::Log => {
            let y_min = series
                .iter()
                .flat_map(|s| s.points.iter().map(|p| p.1))
                .filter(|&y| y > 0.0)
                .fold(f64::MAX, f64::min)
                .min(max_y(series))
                / 2.0;
            draw(
                path,
                title,
                x_desc,
                y_desc,
                series,
                (y_min..max_y(series) * 2.0).log_scale(),
            )
        }
    }
}

fn max_y(series: &[Series]) -> f64 {
    series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.1))
        .fold(0.0, f64::max)
        .max(1e-9)
}

fn draw<Y>(
    path: &Path,
    title: &str,
    x_desc: &str,
    y_desc: &str,
    series: &[Series],
    y_range: Y,
) -> io::Result<()>
where
    Y: plotters::coord::ranged1d::AsRangedCoord<Value = f64>,
    Y::CoordDescType: plotters::coord::ranged1d::ValueFormatter<f64>,
{
    let root = SVGBackend::new(path, (760, 440)).into_drawing_area();
    root.fill(&WHITE).map_err(to_io)?;
    let all = series.iter().flat_map(|s| s.points.iter());
    let x_max = all.clone().map(|p| p.0).fold(10.0, f64::max) * 1.5;
    let x_min = all.map(|p| p.0).fold(f64::MAX, f64::min).max(1.0) / 1.5;
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 16))
        .margin(16)
        .x_label_area_size(44)
        .y_label_area_size(64)
        .build_cartesian_2d((x_min..x_max).log_scale(), y_range)
        .map_err(to_io)?;
    chart
        .configure_mesh()
        .x_desc(x_desc)
        .y_desc(y_desc)
        .x_label_formatter(&|x| chapter_01::console::group_thousands(x.round()))
        .y_label_formatter(&|y| {
            let text = format!("{y:.3}");
            text.trim_end_matches('0').trim_end_matches('.').to_string()
        })
        .draw()
        .map_err(to_io)?;
    let colors = [RED, BLUE, GREEN, MAGENTA, CYAN, BLACK];
    for (i, s) in series.iter().enumerate() {
        let color = colors[i % colors.len()];
        chart
            .draw_series(LineSeries::new(s.points.clone(), color.stroke_width(2)))
            .map_err(to_io)?
            .label(s.name.clone())
            .legend(move |(x, y)| PathElement::new([(x, y), (x + 16, y)], color.stroke_width(2)));
        chart
            .draw_series(s.points.iter().map(|&p| Circle::new(p, 3, color.filled())))
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_plot_is_an_svg_with_labels() {
        let path = std::env::temp_dir().join(format!("ch03-plot-{}.svg", std::process::id()));
        let series = [Series {
            name: "threads".into(),
            points: vec![(100.0, 20.0), (1000.0, 18.0), (10_000.0, 17.0)],
        }];
        against_connections(
            &path,
            "memory",
            "KiB per connection",
            YScale::Linear,
            &series,
        )
        .unwrap();
        against_connections(&path, "latency", "ms", YScale::Log, &series).unwrap();
        let svg = std::fs::read_to_string(&path).unwrap();
        std::fs::remove_file(&path).unwrap();
        assert!(svg.contains("<svg") && svg.contains("threads"));
    }
}
