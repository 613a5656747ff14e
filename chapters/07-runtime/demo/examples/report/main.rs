//! Regenerates the book's benchmark appendix: every side-by-side result of
//! the book, measured now, on this machine.
//!
//! ```sh
//! cargo run --release -p chapter-07 --example report -- --out book/src/appendix [--quick]
//! cargo run --release -p chapter-07 --example report -- --out book/src/appendix --plots-only
//! ```
//!
//! It writes `tables.md` (Markdown tables, with the machine, the commit and
//! the date), then reads those tables back to draw one SVG plot per table and
//! to record the figures the prose quotes in `figures.json` (see
//! `figures.rs`), so a plot or a figure can only show what a table says:
//!
//! * Chapter 2: what a switch costs (system call, threads, processes, a
//!   fiber, a future);
//! * the same echo load (Chapter 3's harness) through Chapter 3's threads,
//!   Chapter 4's epoll loop, Chapter 5's event loop, Chapter 6's executor,
//!   Chapter 7's runtime and Tokio;
//! * Tokio's scheduler workloads on our runtime, Tokio and async-executor;
//! * the timing wheel against the heap, and a million sleeps on both
//!   runtimes.
//!
//! Then every measured table of Chapters 7 to 9 (`chapters.rs`), each
//! written to `book/src/generated/measured/` where its page includes it,
//! with the host in its caption, and the figures their prose quotes (see
//! `measured.rs`). `--only ch08` runs the tables of the pages whose name
//! starts so (the appendix's tables are then left alone); `--runs N` runs
//! each repeated experiment N times instead of the pages' counts.
//!
//! The servers run as child processes of this example (`report serve
//! --server NAME`), one at a time, like every harness run of the book.

#[cfg(not(loom))]
#[path = "../compare/channels.rs"]
#[allow(dead_code)]
mod channels;
#[cfg(not(loom))]
#[path = "../compare/echo.rs"]
#[allow(dead_code)]
mod echo;
#[cfg(not(loom))]
#[path = "../compare/http.rs"]
#[allow(dead_code)]
mod http;
#[cfg(not(loom))]
#[path = "../compare/runtimes.rs"]
#[allow(dead_code)]
mod runtimes;
#[cfg(not(loom))]
#[path = "../compare/scheduler.rs"]
#[allow(dead_code)]
mod scheduler;
#[cfg(not(loom))]
#[path = "../compare/sync.rs"]
#[allow(dead_code)]
mod sync;
#[cfg(not(loom))]
#[path = "../compare/timers.rs"]
#[allow(dead_code)]
mod timers;
#[cfg(not(loom))]
#[path = "../compare/workloads.rs"]
#[allow(dead_code)]
mod workloads;

#[cfg(not(loom))]
mod appendix;
#[cfg(not(loom))]
mod chapters;
#[cfg(not(loom))]
mod figures;
#[cfg(not(loom))]
mod measured;

#[cfg(not(loom))]
fn main() -> std::process::ExitCode {
    appendix::main()
}

#[cfg(loom)]
fn main() {}
