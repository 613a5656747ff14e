//! The measured tables of Chapters 7 to 9, written where the pages include
//! them.
//!
//! A page of Chapters 7 to 9 that shows a measurement does not hold the
//! table: it includes `book/src/generated/measured/<page>-<table>.md`, a
//! file this example writes (see `chapters.rs` for what each one runs). Each
//! file opens with a caption line the generator writes: the machine, the
//! date, the command and how the figures were taken. Then the Markdown table,
//! each cell a median and, in brackets, the range over the runs.
//!
//! The figures the pages' prose quotes come out of the same runs as
//! [`Quote`]s: the text the page must contain, made from the measured value,
//! so that `book/tests/figures.mjs` fails when a page quotes a number the
//! run did not produce (see `figures.rs`, which writes them into
//! `figures.json`).
//!
//! Book: appendix, "Every benchmark side by side"; Chapters 7 to 9.

use std::error::Error;
use std::path::{Path, PathBuf};

/// The command that regenerates every measured table of the book.
pub const COMMAND: &str = "cargo run --release -p chapter-07 --example report";

/// One table: the page it belongs to, its name on that page, what was run
/// and how (the caption), the header, the rows.
pub struct Table {
    pub page: &'static str,
    pub name: &'static str,
    pub about: String,
    pub header: &'static str,
    pub rows: Vec<Vec<String>>,
    /// The host and date, when the figures were not measured by this run
    /// (the loom counts, read from a file another run wrote).
    pub measured_elsewhere: Option<(String, String)>,
}

impl Table {
    pub fn new(
        page: &'static str,
        name: &'static str,
        about: String,
        header: &'static str,
    ) -> Table {
        Table {
            page,
            name,
            about,
            header,
            rows: Vec::new(),
            measured_elsewhere: None,
        }
    }

    pub fn row(&mut self, cells: Vec<String>) {
        self.rows.push(cells);
    }

    /// `ch07-time-timers.md`: the page's name without `.md`, then the table's.
    pub fn file_name(&self) -> String {
        format!("{}-{}.md", self.page.trim_end_matches(".md"), self.name)
    }

    /// The file's text: a comment, the caption line, the table.
    pub fn render(&self, machine: &str, date: &str) -> String {
        let (machine, date) = match &self.measured_elsewhere {
            Some((machine, date)) => (machine.as_str(), date.as_str()),
            None => (machine, date),
        };
        let mut md = format!(
            "<!-- Written by `{COMMAND}` (chapters/07-runtime/demo/examples/report/chapters.rs): do not edit by hand. -->\n\
             *Measured on {machine}, on {date} UTC, by `{COMMAND}`: {}.*\n\n{}\n",
            self.about,
            self.header.trim_end()
        );
        for row in &self.rows {
            md.push_str(&format!("| {} |\n", row.join(" | ")));
        }
        md
    }

    /// Writes the table into `dir`; returns the path written.
    pub fn write(&self, dir: &Path, machine: &str, date: &str) -> Result<PathBuf, Box<dyn Error>> {
        let path = dir.join(self.file_name());
        std::fs::write(&path, self.render(machine, date))
            .map_err(|err| format!("cannot write {}: {err}", path.display()))?;
        Ok(path)
    }
}

/// A figure over several runs: its median, lowest and highest.
#[derive(Clone, Copy, Debug)]
pub struct Spread {
    pub median: f64,
    pub low: f64,
    pub high: f64,
}

/// The median (the mean of the middle two for an even count) and range.
pub fn spread(values: &[f64]) -> Spread {
    let mut v: Vec<f64> = values.iter().copied().filter(|x| x.is_finite()).collect();
    if v.is_empty() {
        return Spread {
            median: f64::NAN,
            low: f64::NAN,
            high: f64::NAN,
        };
    }
    v.sort_by(f64::total_cmp);
    let n = v.len();
    let median = if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    };
    Spread {
        median,
        low: v[0],
        high: v[n - 1],
    }
}

impl Spread {
    /// "1.007 ms (1.006 to 1.021)": the median with its unit, the range in
    /// brackets; just the median when every run gave the same.
    pub fn show(&self, number: fn(f64) -> String, unit: &str) -> String {
        let (m, lo, hi) = (number(self.median), number(self.low), number(self.high));
        if lo == hi {
            format!("{m}{unit}")
        } else {
            format!("{m}{unit} ({lo} to {hi})")
        }
    }

    /// "7.22 to 7.46 ms": the range alone.
    pub fn range(&self, number: fn(f64) -> String, unit: &str) -> String {
        let (lo, hi) = (number(self.low), number(self.high));
        if lo == hi {
            format!("{lo}{unit}")
        } else {
            format!("{lo} to {hi}{unit}")
        }
    }
}

/// Whole numbers with thousands separators: 268,779.
pub fn count(x: f64) -> String {
    if !x.is_finite() {
        return "n/a".into();
    }
    chapter_01::console::group_thousands(x.round())
}

/// One decimal.
pub fn d1(x: f64) -> String {
    format!("{x:.1}")
}

/// Two decimals.
pub fn d2(x: f64) -> String {
    format!("{x:.2}")
}

/// Three decimals.
pub fn d3(x: f64) -> String {
    format!("{x:.3}")
}

/// Three significant figures, unit-less: 17.7, 351, 1.02.
pub fn sig3(x: f64) -> String {
    if x.abs() >= 100.0 {
        count(x)
    } else if x.abs() >= 10.0 {
        d1(x)
    } else {
        d2(x)
    }
}

/// A duration in nanoseconds, its unit chosen: "7.22 ms", "348 µs".
pub fn duration(ns: f64) -> String {
    chapter_01::console::human_duration_ns(ns)
}

/// A figure the prose quotes: the page, the text it must contain (made from
/// the shown number), and the band the shown number stands for.
pub struct Quote {
    pub page: &'static str,
    pub figure: String,
    pub value: f64,
    pub unit: &'static str,
    pub source: String,
    pub text: String,
    pub number: String,
    pub low: f64,
    pub high: f64,
}

/// A quote whose number is `value` shown with `decimals` decimals (and
/// thousands separators; a negative count rounds to tens, hundreds, ...:
/// -3 shows 134,390 as 134,000); `text` builds the page's words around it.
/// The band is what that number stands for: the value so rounded.
pub fn quote(
    page: &'static str,
    figure: &str,
    value: f64,
    unit: &'static str,
    decimals: i32,
    text: impl Fn(&str) -> String,
    source: &str,
) -> Quote {
    quotes(
        page,
        &[(figure, value, decimals)],
        unit,
        |n| text(&n[0]),
        source,
    )
    .pop()
    .expect("one figure, one quote")
}

/// One sentence quoting several figures ("457 against 35 ns"): a quote per
/// figure, each with the same text and its own number.
pub fn quotes(
    page: &'static str,
    figures: &[(&str, f64, i32)],
    unit: &'static str,
    text: impl Fn(&[String]) -> String,
    source: &str,
) -> Vec<Quote> {
    let shown: Vec<String> = figures
        .iter()
        .map(|(_, value, decimals)| {
            if *decimals <= 0 {
                let step = 10f64.powi(-*decimals);
                count((value / step).round() * step)
            } else {
                format!("{value:.prec$}", prec = *decimals as usize)
            }
        })
        .collect();
    let sentence = text(&shown);
    figures
        .iter()
        .zip(&shown)
        .map(|((figure, value, decimals), shown)| {
            let x: f64 = shown.replace(',', "").parse().unwrap_or(*value);
            let half = 0.5 * 10f64.powi(-*decimals);
            Quote {
                page,
                figure: (*figure).to_string(),
                value: *value,
                unit,
                source: format!("{COMMAND}: {source}"),
                text: sentence.clone(),
                number: shown.clone(),
                low: x - half,
                high: x + half,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spreads_and_shows() {
        let s = spread(&[3.0, 1.0, 2.0]);
        assert_eq!((s.median, s.low, s.high), (2.0, 1.0, 3.0));
        assert_eq!(s.show(d1, " ms"), "2.0 ms (1.0 to 3.0)");
        assert_eq!(spread(&[1.0, 4.0]).median, 2.5);
        assert_eq!(spread(&[5.0, 5.0]).show(count, ""), "5");
    }

    #[test]
    fn a_negative_precision_rounds_to_thousands() {
        let q = quote(
            "p.md",
            "f",
            134_390.0,
            "",
            -3,
            |n| format!("about {n}"),
            "x",
        );
        assert_eq!(q.text, "about 134,000");
        assert_eq!((q.low, q.high), (133_500.0, 134_500.0));
    }

    #[test]
    fn a_quote_bands_its_rounding() {
        let q = quote("p.md", "f", 20.213, "ms", 1, |n| format!("p99 {n} ms"), "x");
        assert_eq!(q.text, "p99 20.2 ms");
        assert!(q.low < 20.213 && 20.213 < q.high && q.high - q.low < 0.11);
    }
}
