//! SVG plots of the chapter's measurements (the book embeds them).
//!
//! Two shapes serve Chapters 5 to 7 and the benchmark appendix: grouped
//! horizontal bars (one group per case, one bar per measure, as the
//! lateness percentiles alone and beside a hog) and lines against a log x
//! axis (a cost as the number of timers grows). Like Chapters 2 and 3 they
//! are drawn with `plotters`' SVG backend, which writes text as SVG `<text>`
//! elements: no font files are read, so the plots look the same on any
//! machine. Every plot names its machine in the title, and the book's
//! caption repeats it with the command that drew it.
//!
//! Book: Chapter 5, "One slow callback stops the world" (the first user);
//! Chapters 6 and 7 and the appendix call the same two functions.

use std::io;
use std::path::Path;

use plotters::prelude::*;

use chapter_01::console::{Report, group_thousands};

fn to_io(err: impl std::fmt::Display) -> io::Error {
    io::Error::other(format!("cannot draw the plot: {err}"))
}

/// The colours of the series, in order (colour-blind safe: Okabe and Ito).
const PALETTE: [RGBColor; 6] = [
    RGBColor(0, 114, 178),
    RGBColor(213, 94, 0),
    RGBColor(0, 158, 115),
    RGBColor(204, 121, 167),
    RGBColor(230, 159, 0),
    RGBColor(86, 180, 233),
];

/// One group of bars: a case (e.g. "beside the hog") and its value for each
/// series (e.g. p50, p99, max), in the order of [`Bars::series`].
#[derive(Debug, Clone)]
pub struct Group {
    /// The case, shown at the left of its bars.
    pub name: String,
    /// One value per series.
    pub values: Vec<f64>,
}

/// A grouped horizontal bar chart.
#[derive(Debug, Clone)]
pub struct Bars<'a> {
    /// The title (the machine is appended).
    pub title: &'a str,
    /// What the x axis measures, with its unit.
    pub x_desc: &'a str,
    /// The series' names, for the legend.
    pub series: Vec<String>,
    /// The groups, top to bottom.
    pub groups: Vec<Group>,
    /// A log x axis (for values spanning decades).
    pub log: bool,
    /// How a value is written at the end of its bar.
    pub format: fn(f64) -> String,
    /// A vertical reference line (e.g. 1.0 for a ratio), if any.
    pub reference: Option<f64>,
}

/// Draws [`Bars`] into `path`, with `machine` in the title.
pub fn bars(path: &Path, chart: &Bars<'_>, machine: &str) -> io::Result<()> {
    let per_group = chart.series.len().max(1);
    let rows = chart.groups.len() * (per_group + 1);
    let height = 110 + 18 * rows as u32;
    let root = SVGBackend::new(path, (820, height)).into_drawing_area();
    root.fill(&WHITE).map_err(to_io)?;
    let values = chart.groups.iter().flat_map(|g| g.values.iter().copied());
    let max = values
        .clone()
        .chain(chart.reference)
        .fold(f64::MIN_POSITIVE, f64::max);
    let min_positive = values
        .filter(|v| *v > 0.0)
        .fold(f64::MAX, f64::min)
        .min(max);
    let title = format!("{} ({machine})", chart.title);
    let mut builder = ChartBuilder::on(&root);
    builder
        .caption(title, ("sans-serif", 15))
        .margin(14)
        .x_label_area_size(40)
        .y_label_area_size(200);
    let y_range = 0.0..rows as f64;
    // The y axis counts rows from the bottom; group g's bar s sits on row
    // `rows - 1 - (g * (per_group + 1) + s)`, with a blank row after each
    // group.
    let row_of = |g: usize, s: usize| (rows - 1 - (g * (per_group + 1) + s)) as f64;
    let group_names: Vec<String> = chart.groups.iter().map(|g| g.name.clone()).collect();
    let label = move |y: &f64| {
        // The group's name is written beside its middle bar.
        for (g, name) in group_names.iter().enumerate() {
            let middle = row_of(g, (per_group - 1) / 2) + 0.5;
            if (y - middle).abs() < 1e-6 {
                return name.clone();
            }
        }
        String::new()
    };
    let y_labels = rows * 2 + 1;
    let format = chart.format;
    if chart.log {
        let lo = min_positive / 2.0;
        let hi = max * 6.0;
        let mut c = builder
            .build_cartesian_2d((lo..hi).log_scale(), y_range)
            .map_err(to_io)?;
        c.configure_mesh()
            .disable_y_mesh()
            .y_labels(y_labels)
            .y_label_formatter(&label)
            .x_desc(chart.x_desc)
            .x_label_formatter(&|x| format(*x))
            .draw()
            .map_err(to_io)?;
        draw_bars(&mut c, chart, lo, row_of, |v| v * 1.08)?;
        if let Some(x) = chart.reference {
            c.draw_series(LineSeries::new(
                [(x, 0.0), (x, rows as f64)],
                BLACK.stroke_width(2),
            ))
            .map_err(to_io)?;
        }
        if per_group > 1 {
            legend(&mut c)?;
        }
    } else {
        let hi = max * 1.3;
        let mut c = builder
            .build_cartesian_2d(0.0..hi, y_range)
            .map_err(to_io)?;
        c.configure_mesh()
            .disable_y_mesh()
            .y_labels(y_labels)
            .y_label_formatter(&label)
            .x_desc(chart.x_desc)
            .x_label_formatter(&|x| format(*x))
            .draw()
            .map_err(to_io)?;
        draw_bars(&mut c, chart, 0.0, row_of, |v| v + hi * 0.01)?;
        if let Some(x) = chart.reference {
            c.draw_series(LineSeries::new(
                [(x, 0.0), (x, rows as f64)],
                BLACK.stroke_width(2),
            ))
            .map_err(to_io)?;
        }
        if per_group > 1 {
            legend(&mut c)?;
        }
    }
    root.present().map_err(to_io)
}

fn draw_bars<'a, X>(
    c: &mut ChartContext<
        'a,
        SVGBackend<'a>,
        Cartesian2d<X, plotters::coord::types::RangedCoordf64>,
    >,
    chart: &Bars<'_>,
    origin: f64,
    row_of: impl Fn(usize, usize) -> f64,
    text_at: impl Fn(f64) -> f64,
) -> io::Result<()>
where
    X: Ranged<ValueType = f64>,
{
    for (s, name) in chart.series.iter().enumerate() {
        let color = PALETTE[s % PALETTE.len()];
        let rects: Vec<_> = chart
            .groups
            .iter()
            .enumerate()
            .filter_map(|(g, group)| group.values.get(s).map(|v| (g, *v)))
            .map(|(g, v)| {
                let row = row_of(g, s);
                Rectangle::new(
                    [(origin, row + 0.1), (v.max(origin), row + 0.9)],
                    color.filled(),
                )
            })
            .collect();
        let single = chart.series.len() == 1;
        let series = c.draw_series(rects).map_err(to_io)?;
        if !single {
            series.label(name.clone()).legend(move |(x, y)| {
                Rectangle::new([(x, y - 5), (x + 14, y + 5)], color.filled())
            });
        }
        c.draw_series(
            chart
                .groups
                .iter()
                .enumerate()
                .filter_map(|(g, group)| group.values.get(s).map(|v| (g, *v)))
                .map(|(g, v)| {
                    Text::new(
                        (chart.format)(v),
                        (text_at(v.max(origin)), row_of(g, s) + 0.8),
                        ("sans-serif", 12),
                    )
                }),
        )
        .map_err(to_io)?;
    }
    Ok(())
}

fn legend<'a, X>(
    c: &mut ChartContext<
        'a,
        SVGBackend<'a>,
        Cartesian2d<X, plotters::coord::types::RangedCoordf64>,
    >,
) -> io::Result<()>
where
    X: Ranged<ValueType = f64>,
{
    c.configure_series_labels()
        .position(SeriesLabelPosition::LowerRight)
        .background_style(WHITE.mix(0.9))
        .border_style(BLACK.mix(0.4))
        .draw()
        .map_err(to_io)
}

/// A line plot of several series against a log x axis.
#[derive(Debug, Clone)]
pub struct Lines<'a> {
    /// The title (the machine is appended).
    pub title: &'a str,
    /// What the x axis counts, with its unit.
    pub x_desc: &'a str,
    /// What the y axis measures, with its unit.
    pub y_desc: &'a str,
    /// (name, points) per series.
    pub series: Vec<(String, Vec<(f64, f64)>)>,
    /// A log y axis too.
    pub log_y: bool,
}

/// Draws [`Lines`] into `path`, with `machine` in the title.
pub fn lines(path: &Path, chart: &Lines<'_>, machine: &str) -> io::Result<()> {
    let root = SVGBackend::new(path, (820, 480)).into_drawing_area();
    root.fill(&WHITE).map_err(to_io)?;
    let points = || chart.series.iter().flat_map(|(_, p)| p.iter().copied());
    let x_min = points().map(|p| p.0).fold(f64::MAX, f64::min).max(1.0);
    let x_max = points().map(|p| p.0).fold(1.0, f64::max);
    let y_max = points().map(|p| p.1).fold(f64::MIN_POSITIVE, f64::max);
    let y_min = points()
        .map(|p| p.1)
        .filter(|y| *y > 0.0)
        .fold(f64::MAX, f64::min)
        .min(y_max);
    let title = format!("{} ({machine})", chart.title);
    let mut builder = ChartBuilder::on(&root);
    builder
        .caption(title, ("sans-serif", 15))
        .margin(16)
        .x_label_area_size(44)
        .y_label_area_size(70);
    let x_range = (x_min / 1.5..x_max * 1.5).log_scale();
    let group = |n: &f64| group_thousands(*n);
    if chart.log_y {
        let mut c = builder
            .build_cartesian_2d(x_range, (y_min / 1.5..y_max * 2.0).log_scale())
            .map_err(to_io)?;
        c.configure_mesh()
            .x_desc(chart.x_desc)
            .y_desc(chart.y_desc)
            .x_label_formatter(&group)
            .y_label_formatter(&|y| format!("{y}"))
            .draw()
            .map_err(to_io)?;
        draw_lines(&mut c, chart)?;
    } else {
        let mut c = builder
            .build_cartesian_2d(x_range, 0.0..y_max * 1.2)
            .map_err(to_io)?;
        c.configure_mesh()
            .x_desc(chart.x_desc)
            .y_desc(chart.y_desc)
            .x_label_formatter(&group)
            .draw()
            .map_err(to_io)?;
        draw_lines(&mut c, chart)?;
    }
    root.present().map_err(to_io)
}

fn draw_lines<'a, X, Y>(
    c: &mut ChartContext<'a, SVGBackend<'a>, Cartesian2d<X, Y>>,
    chart: &Lines<'_>,
) -> io::Result<()>
where
    X: Ranged<ValueType = f64>,
    Y: Ranged<ValueType = f64>,
{
    for (i, (name, points)) in chart.series.iter().enumerate() {
        let color = PALETTE[i % PALETTE.len()];
        c.draw_series(LineSeries::new(points.clone(), color.stroke_width(2)))
            .map_err(to_io)?
            .label(name.clone())
            .legend(move |(x, y)| PathElement::new([(x, y), (x + 16, y)], color.stroke_width(2)));
        c.draw_series(points.iter().map(|&p| Circle::new(p, 3, color.filled())))
            .map_err(to_io)?;
    }
    c.configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .background_style(WHITE.mix(0.9))
        .border_style(BLACK.mix(0.4))
        .draw()
        .map_err(to_io)
}

/// The machine as the plots' titles name it: "AMD EPYC 7B13, 2 CPUs, Linux 6.18".
pub fn machine_label() -> String {
    let m = chapter_01::machine::Machine::current();
    let kernel: Vec<&str> = m.kernel.split('.').take(2).collect();
    format!(
        "{}, {} CPUs, Linux {}",
        m.cpu,
        m.logical_cpus,
        kernel.join(".")
    )
}

/// Writes a plot into `dir/file` (creating `dir`), and says where.
pub fn write_into(
    dir: &Path,
    file: &str,
    draw: impl FnOnce(&Path) -> io::Result<()>,
) -> io::Result<std::path::PathBuf> {
    std::fs::create_dir_all(dir)
        .map_err(|err| io::Error::other(format!("cannot create {}: {err}", dir.display())))?;
    let path = dir.join(file);
    draw(&path)?;
    Ok(path)
}

/// A number of ms as the plots write it: "0.05 ms", "12 ms".
pub fn ms(x: f64) -> String {
    if x >= 10.0 {
        format!("{x:.0} ms")
    } else if x >= 0.1 {
        format!("{x:.1} ms")
    } else {
        format!("{x:.3} ms")
    }
}

// ANCHOR: starvation_plot
/// The `starvation` experiment's lateness percentiles, alone and beside
/// the hog, from its report.
pub fn starvation(path: &Path, report: &Report, machine: &str) -> io::Result<()> {
    let get = |key: &str| report.get(key).and_then(|v| v.as_f64()).unwrap_or(0.0);
    let hog = get("hog_ms");
    let every = get("hog_every_ms");
    let groups = [("idle", "alone"), ("hog", "beside the hog")]
        .iter()
        .map(|(key, name)| Group {
            name: (*name).to_string(),
            values: ["p50", "p99", "max"]
                .iter()
                .map(|p| get(&format!("timer_lateness_{p}_ms_{key}")))
                .collect(),
        })
        .collect();
    let title =
        format!("A 1 ms ticker's lateness, alone and beside a {hog:.0} ms hog every {every:.0} ms");
    bars(
        path,
        &Bars {
            title: &title,
            x_desc: "how late the timer fired (ms, log scale)",
            series: vec!["p50".into(), "p99".into(), "max".into()],
            groups,
            log: true,
            format: ms,
            reference: None,
        },
        machine,
    )
}
// ANCHOR_END: starvation_plot

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plots_are_written_as_svg() {
        let dir = std::env::temp_dir().join(format!("ch05-plots-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let mut report = Report::new("starvation");
        for (key, value) in [
            ("hog_ms", 20.0),
            ("hog_every_ms", 10.0),
            ("timer_lateness_p50_ms_idle", 0.06),
            ("timer_lateness_p99_ms_idle", 0.2),
            ("timer_lateness_max_ms_idle", 1.0),
            ("timer_lateness_p50_ms_hog", 9.0),
            ("timer_lateness_p99_ms_hog", 20.0),
            ("timer_lateness_max_ms_hog", 21.0),
        ] {
            report.add(key, key, value);
        }
        starvation(&dir.join("s.svg"), &report, "test").unwrap();
        lines(
            &dir.join("l.svg"),
            &Lines {
                title: "t",
                x_desc: "timers",
                y_desc: "ns",
                series: vec![("heap".into(), vec![(1e3, 50.0), (1e6, 200.0)])],
                log_y: true,
            },
            "test",
        )
        .unwrap();
        for name in ["s.svg", "l.svg"] {
            let svg = std::fs::read_to_string(dir.join(name)).unwrap();
            assert!(svg.starts_with("<svg"), "{name}");
            assert!(svg.contains("<text"), "{name} has labels");
        }
        let svg = std::fs::read_to_string(dir.join("s.svg")).unwrap();
        assert!(svg.contains("beside the hog") && svg.contains("p99"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
