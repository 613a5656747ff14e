//! Criterion benches of Tokio's scheduler workloads on this runtime, Tokio and
//! async-executor, for finer study than `examples/compare` (confidence
//! intervals, regressions against a saved baseline):
//!
//! ```sh
//! cargo bench -p chapter-07 --bench scheduler
//! cargo bench -p chapter-07 --bench scheduler -- ping_pong
//! ```
//!
//! The workloads are the same code the comparison runs.

#[cfg(not(loom))]
#[path = "../examples/compare/runtimes.rs"]
#[allow(dead_code)]
mod runtimes;
#[cfg(not(loom))]
#[path = "../examples/compare/workloads.rs"]
#[allow(dead_code)]
mod workloads;

#[cfg(not(loom))]
mod bench {
    use super::runtimes::{Ours, Runtime, Smol, Tokio};
    use super::workloads::{self, ALL, Workload};
    use criterion::Criterion;
    use std::time::{Duration, Instant};

    fn measure<R: Runtime>(rt: &R, workload: Workload, iterations: u64) -> Duration {
        let background = workload.background(rt);
        let start = Instant::now();
        for _ in 0..iterations {
            workload.run(rt);
        }
        let elapsed = start.elapsed();
        drop(background);
        elapsed
    }

    pub fn scheduler(c: &mut Criterion) {
        let workers = std::thread::available_parallelism().map_or(2, usize::from);
        workloads::set_workers(workers);
        let ours = Ours::start(workers);
        let tokio = Tokio::start(workers);
        let smol = Smol::start(workers);
        for workload in ALL {
            let mut group = c.benchmark_group(workload.name());
            group.sample_size(20);
            group.bench_function(Ours::NAME, |b| {
                b.iter_custom(|n| measure(&ours, workload, n))
            });
            group.bench_function(Tokio::NAME, |b| {
                b.iter_custom(|n| measure(&tokio, workload, n))
            });
            group.bench_function(Smol::NAME, |b| {
                b.iter_custom(|n| measure(&smol, workload, n))
            });
            group.finish();
        }
    }
}

#[cfg(not(loom))]
criterion::criterion_group!(benches, bench::scheduler);
#[cfg(not(loom))]
criterion::criterion_main!(benches);

#[cfg(loom)]
fn main() {}
