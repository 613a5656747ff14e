//! `loom-space`: how many interleavings loom explores for each of `rt`'s
//! models as the preemption bound grows, read from the CSV that
//! `data/loom-iterations.sh` writes.
//!
//! Counting needs the runtime built with `--cfg loom`, a different build
//! from this binary's, so the counting is a script (it runs each model's
//! test alone with `LOOM_LOG=info` and reads loom's "Completed in N
//! iterations"), and this module reads its output: one row per model and
//! bound, `model,preemptions,iterations,seconds,status`, after comment lines
//! that name the machine and the date.
//!
//! Book: Chapter 7, "Checking it".

use crate::experiments::Outcome;
use chapter_01::console::{Console, Report, group_thousands};
use std::collections::BTreeMap;

/// One model at one preemption bound.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    /// The test's name, e.g. `loom_push_pop_steal`.
    pub model: String,
    /// `LOOM_MAX_PREEMPTIONS`.
    pub preemptions: u32,
    /// Interleavings explored; `None` if the run did not finish.
    pub iterations: Option<u64>,
    /// Wall time of the run.
    pub seconds: f64,
    /// `ok`, `failed` or `timeout`.
    pub status: String,
}

/// What the CSV holds.
#[derive(Debug, Clone, PartialEq)]
pub struct Data {
    /// The `# machine:` comment, if the file has one.
    pub machine: Option<String>,
    /// The `# measured:` comment, if the file has one.
    pub measured: Option<String>,
    /// One row per model and bound, in file order.
    pub rows: Vec<Row>,
}

impl Data {
    /// The preemption bounds in the file, ascending.
    pub fn bounds(&self) -> Vec<u32> {
        let mut bounds: Vec<u32> = self.rows.iter().map(|r| r.preemptions).collect();
        bounds.sort_unstable();
        bounds.dedup();
        bounds
    }

    /// Each model's iterations per bound (in [`Data::bounds`] order), the
    /// models sorted by their count at the highest bound, largest first.
    pub fn by_model(&self) -> Vec<(String, Vec<Option<u64>>)> {
        let bounds = self.bounds();
        let mut models: BTreeMap<&str, Vec<Option<u64>>> = BTreeMap::new();
        for row in &self.rows {
            let slot = bounds
                .iter()
                .position(|b| *b == row.preemptions)
                .expect("every row's bound is in bounds()");
            models
                .entry(&row.model)
                .or_insert_with(|| vec![None; bounds.len()])[slot] = row.iterations;
        }
        let mut models: Vec<(String, Vec<Option<u64>>)> = models
            .into_iter()
            .map(|(name, counts)| (name.to_string(), counts))
            .collect();
        // Unfinished runs sort as the largest.
        models.sort_by_key(|(name, counts)| {
            let last = counts.last().copied().flatten().unwrap_or(u64::MAX);
            (std::cmp::Reverse(last), name.clone())
        });
        models
    }
}

/// Parses the script's CSV; `Err` is one line saying what is wrong where.
pub fn parse(text: &str) -> Result<Data, String> {
    let mut data = Data {
        machine: None,
        measured: None,
        rows: Vec::new(),
    };
    let mut header = false;
    for (n, line) in text.lines().enumerate() {
        let line_no = n + 1;
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        if let Some(comment) = line.strip_prefix('#') {
            let comment = comment.trim();
            if let Some(machine) = comment.strip_prefix("machine:") {
                data.machine = Some(machine.trim().to_string());
            } else if let Some(measured) = comment.strip_prefix("measured:") {
                data.measured = Some(measured.trim().to_string());
            }
            continue;
        }
        if !header {
            if line != "model,preemptions,iterations,seconds,status" {
                return Err(format!(
                    "line {line_no}: expected the header model,preemptions,iterations,seconds,status"
                ));
            }
            header = true;
            continue;
        }
        let fields: Vec<&str> = line.split(',').collect();
        let [model, preemptions, iterations, seconds, status] = fields[..] else {
            return Err(format!(
                "line {line_no}: expected 5 comma-separated fields, found {}",
                fields.len()
            ));
        };
        if model.is_empty() {
            return Err(format!("line {line_no}: the model's name is empty"));
        }
        let preemptions = preemptions
            .parse()
            .map_err(|_| format!("line {line_no}: preemptions {preemptions:?} is not a count"))?;
        let iterations = match iterations {
            "" => None,
            n => Some(
                n.parse()
                    .map_err(|_| format!("line {line_no}: iterations {n:?} is not a count"))?,
            ),
        };
        let seconds: f64 = seconds
            .parse()
            .ok()
            .filter(|s: &f64| s.is_finite() && *s >= 0.0)
            .ok_or_else(|| format!("line {line_no}: seconds {seconds:?} is not a duration"))?;
        if !matches!(status, "ok" | "failed" | "timeout") {
            return Err(format!(
                "line {line_no}: status {status:?} is not ok, failed or timeout"
            ));
        }
        if status == "ok" && iterations.is_none() {
            return Err(format!(
                "line {line_no}: an ok run needs its count of iterations"
            ));
        }
        data.rows.push(Row {
            model: model.to_string(),
            preemptions,
            iterations,
            seconds,
            status: status.to_string(),
        });
    }
    if data.rows.is_empty() {
        return Err("no rows: expected model,preemptions,iterations,seconds,status".into());
    }
    Ok(data)
}

/// `loom-space`: the counts as a report, per model and in total per bound.
pub fn report(console: &Console, data: &Data) -> Outcome {
    let bounds = data.bounds();
    let models = data.by_model();
    console.say(format!(
        "{} loom models at preemption bounds {:?}, measured on {} ({})",
        models.len(),
        bounds,
        data.machine.as_deref().unwrap_or("an unrecorded machine"),
        data.measured.as_deref().unwrap_or("date not recorded")
    ));
    let mut report = Report::new("loom-space");
    report.add("models", "loom models", models.len());
    for (slot, bound) in bounds.iter().enumerate() {
        let rows = || data.rows.iter().filter(|r| r.preemptions == *bound);
        let total: u64 = rows().filter_map(|r| r.iterations).sum();
        let seconds: f64 = rows().map(|r| r.seconds).sum();
        let unfinished = rows().filter(|r| r.status == "timeout").count();
        let failed = rows().filter(|r| r.status == "failed").count();
        console.say(format!(
            "bound {bound}: {} interleavings in all, {seconds:.1} s, {unfinished} unfinished, {failed} failed",
            group_thousands(total as f64)
        ));
        report
            .add(
                &format!("total_iterations_p{bound}"),
                &format!("interleavings, all models, bound {bound}"),
                total,
            )
            .add(
                &format!("total_seconds_p{bound}"),
                &format!("seconds, all models, bound {bound}"),
                (seconds * 100.0).round() / 100.0,
            )
            .add(
                &format!("unfinished_p{bound}"),
                &format!("models unfinished, bound {bound}"),
                unfinished,
            )
            .add(
                &format!("failed_p{bound}"),
                &format!("models failed, bound {bound}"),
                failed,
            );
        for (model, counts) in &models {
            if let Some(n) = counts[slot] {
                report.add(
                    &format!("{model}_p{bound}"),
                    &format!("{model}, bound {bound}"),
                    n,
                );
            }
        }
    }
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;

    const CSV: &str = "# machine: Test CPU, 2 CPUs, Linux 6.18\n\
        model,preemptions,iterations,seconds,status\n\
        loom_a,1,10,0.01,ok\n\
        loom_b,1,3,0.01,ok\n\
        loom_a,2,100,0.05,ok\n\
        loom_b,2,,300.00,timeout\n";

    #[test]
    fn the_csv_parses_and_models_sort_by_their_largest_count() {
        let data = parse(CSV).unwrap();
        assert_eq!(
            data.machine.as_deref(),
            Some("Test CPU, 2 CPUs, Linux 6.18")
        );
        assert_eq!(data.bounds(), vec![1, 2]);
        let models = data.by_model();
        assert_eq!(models[0], ("loom_b".to_string(), vec![Some(3), None]));
        assert_eq!(models[1], ("loom_a".to_string(), vec![Some(10), Some(100)]));
    }

    #[test]
    fn bad_rows_are_one_line_that_names_the_line() {
        for (csv, says) in [
            ("", "no rows"),
            ("model,x\n", "line 1: expected the header"),
            (
                "model,preemptions,iterations,seconds,status\nloom_a,one,1,0,ok\n",
                "line 2: preemptions",
            ),
            (
                "model,preemptions,iterations,seconds,status\nloom_a,1,,0,ok\n",
                "line 2: an ok run",
            ),
            (
                "model,preemptions,iterations,seconds,status\nloom_a,1,1,0\n",
                "line 2: expected 5",
            ),
            (
                "model,preemptions,iterations,seconds,status\nloom_a,1,1,0,maybe\n",
                "line 2: status",
            ),
        ] {
            let err = parse(csv).unwrap_err();
            assert!(err.starts_with(says), "{csv:?}: {err}");
            assert_eq!(err.lines().count(), 1);
        }
    }
}
