//! The chapter's experiments as the binary runs them: measure, then tell the
//! reader what was measured.
//!
//! Each function runs one experiment (a subcommand of `chapter-01`), narrates
//! it through the [`Console`] and returns a [`Report`] of its figures. The
//! guided demo ([`demo`]) runs all three in the order the chapter tells them.
//! `main.rs` only parses arguments and calls these.

use std::error::Error;
use std::net::SocketAddr;

use crate::console::{Console, Report, human_duration_ns, human_kib};
use crate::echo_client::{self, ClientConfig};
use crate::echo_server::EchoServer;
use crate::machine::Machine;
use crate::memory;
use crate::spawn_cost::{self, SpawnConfig};

/// The result type of an experiment.
pub type Outcome = Result<Report, Box<dyn Error>>;

/// Sizes of the memory experiment.
#[derive(Debug, Clone, Copy)]
pub struct MemoryConfig {
    /// Threads to park.
    pub threads: usize,
    /// Stack size of the second, small-stack run, in KiB.
    pub small_stack_kib: usize,
}

impl MemoryConfig {
    /// The chapter's full run.
    pub fn full() -> MemoryConfig {
        MemoryConfig {
            threads: 1_000,
            small_stack_kib: 64,
        }
    }

    /// A quick look, for tests and CI.
    pub fn quick() -> MemoryConfig {
        MemoryConfig {
            threads: 200,
            small_stack_kib: 64,
        }
    }
}

/// The echo experiment's full-size client.
pub fn echo_full() -> ClientConfig {
    ClientConfig {
        connections: 200,
        messages: 200,
        message_bytes: 4096,
        ..ClientConfig::default()
    }
}

/// The echo experiment's quick client.
pub fn echo_quick() -> ClientConfig {
    ClientConfig {
        connections: 32,
        messages: 50,
        message_bytes: 1024,
        ..ClientConfig::default()
    }
}

/// Adds the machine's description to a report, so its figures carry it.
pub fn add_machine(report: &mut Report, machine: &Machine) {
    report
        .add("machine_cpu", "CPU", machine.cpu.clone())
        .add("machine_logical_cpus", "logical CPUs", machine.logical_cpus)
        .add("machine_kernel", "Linux kernel", machine.kernel.clone());
}

/// `spawn-cost`: thread vs fork vs fork+exec.
pub fn spawn_cost(console: &Console, config: SpawnConfig) -> Outcome {
    console.say(format!(
        "Starting a flow of control: {} runs of each kind, medians (p10-p90)",
        config.runs
    ));
    let bar = console.progress(4, "spawn-cost");
    let costs = spawn_cost::measure(config, || bar.inc(1))?;
    bar.finish_and_clear();

    let spread = |s: &crate::measure::Samples| {
        format!(
            "{} ({} - {})",
            human_duration_ns(s.median_ns()),
            human_duration_ns(s.percentile_ns(10.0)),
            human_duration_ns(s.percentile_ns(90.0))
        )
    };
    console.say(format!(
        "  thread::spawn + join           {}",
        spread(&costs.thread)
    ));
    console.say(format!(
        "  fork + waitpid                 {}",
        spread(&costs.fork)
    ));
    console.say(format!(
        "  fork from a {:>3} MiB process    {}",
        costs.large_parent_mib,
        spread(&costs.fork_large)
    ));
    console.say(format!(
        "  Command::new({}).status() {}",
        costs.program.display(),
        spread(&costs.process)
    ));
    let thread = costs.thread.median_ns();
    console.say(format!(
        "  A process costs {:.1}x a thread; fork alone {:.1}x. Touching {} MiB first made fork {:.1}x slower: it copies page tables.",
        costs.process.median_ns() / thread,
        costs.fork.median_ns() / thread,
        costs.large_parent_mib,
        costs.fork_large.median_ns() / costs.fork.median_ns()
    ));

    let mut report = Report::new("spawn-cost");
    report
        .add("spawn_runs", "timed runs of each", config.runs)
        .add("thread_spawn_ns", "thread spawn + join", thread)
        .add(
            "thread_spawn_p90_ns",
            "thread spawn + join, p90",
            costs.thread.percentile_ns(90.0),
        )
        .add("fork_spawn_ns", "fork + waitpid", costs.fork.median_ns())
        .add(
            "fork_spawn_p90_ns",
            "fork + waitpid, p90",
            costs.fork.percentile_ns(90.0),
        )
        .add(
            "fork_large_parent_spawn_ns",
            "fork + waitpid, large parent",
            costs.fork_large.median_ns(),
        )
        .add(
            "fork_large_parent_kib",
            "large parent's touched memory",
            (costs.large_parent_mib * 1024) as u64,
        )
        .add(
            "process_spawn_ns",
            "process spawn (fork+exec) + wait",
            costs.process.median_ns(),
        )
        .add(
            "process_spawn_p90_ns",
            "process spawn + wait, p90",
            costs.process.percentile_ns(90.0),
        )
        .add(
            "process_vs_thread_ratio",
            "process / thread",
            costs.process.median_ns() / thread,
        );
    Ok(report)
}

/// `memory`: resident and virtual memory per idle thread.
pub fn memory(console: &Console, config: MemoryConfig) -> Outcome {
    let default_stack = memory::default_spawn_stack_bytes();
    let main_stack = memory::main_stack_limit_kib()?;
    console.say(format!(
        "Parking {} idle threads, with Rust's default {} stacks, then with {} stacks",
        config.threads,
        human_kib((default_stack / 1024) as f64),
        human_kib(config.small_stack_kib as f64)
    ));
    let bar = console.progress(3, "memory");
    let arenas = memory::warm_up_allocator()?;
    bar.inc(1);
    let default = memory::measure_idle_threads(config.threads, default_stack)?;
    bar.inc(1);
    let small = memory::measure_idle_threads(config.threads, config.small_stack_kib * 1024)?;
    bar.finish_and_clear();

    console.say(format!(
        "  (first, the malloc arenas glibc creates for new threads took {} of address space; not counted below)",
        human_kib(arenas as f64)
    ));
    console.say(format!(
        "  per thread: {} virtual, {} resident, {} of kernel stack (machine-wide)",
        human_kib(default.virtual_per_thread_kib),
        human_kib(default.rss_per_thread_kib),
        human_kib(default.kernel_stack_per_thread_kib)
    ));
    console.say(format!(
        "  with {} stacks: {} virtual, {} resident",
        human_kib(small.stack_kib as f64),
        human_kib(small.virtual_per_thread_kib),
        human_kib(small.rss_per_thread_kib)
    ));
    console.say(format!(
        "  At 10,000 threads that would be {} of address space but only {} of RAM.",
        human_kib(default.virtual_per_thread_kib * 10_000.0),
        human_kib(default.rss_per_thread_kib * 10_000.0)
    ));

    let mut report = Report::new("memory");
    report
        .add("memory_threads", "idle threads parked", config.threads)
        .add(
            "thread_stack_kib",
            "stack per spawned thread",
            default.stack_kib,
        )
        .add(
            "main_stack_limit_kib",
            "main thread stack limit (ulimit -s)",
            main_stack.map_or(serde_json::Value::Null, serde_json::Value::from),
        )
        .add(
            "allocator_warmup_virtual_kib",
            "malloc arenas reserved first",
            arenas,
        )
        .add(
            "rss_per_idle_thread_kib",
            "resident memory per idle thread",
            default.rss_per_thread_kib,
        )
        .add(
            "virtual_per_idle_thread_kib",
            "virtual memory per idle thread",
            default.virtual_per_thread_kib,
        )
        .add(
            "kernel_stack_per_thread_kib",
            "kernel stack per thread",
            default.kernel_stack_per_thread_kib,
        )
        .add("small_stack_kib", "small stack size", small.stack_kib)
        .add(
            "rss_per_idle_thread_small_stack_kib",
            "resident per thread, small stack",
            small.rss_per_thread_kib,
        )
        .add(
            "virtual_per_idle_thread_small_stack_kib",
            "virtual per thread, small stack",
            small.virtual_per_thread_kib,
        );
    Ok(report)
}

/// `echo`: a thread-per-connection server, a verifying client, one process.
pub fn echo(console: &Console, bind: SocketAddr, client: ClientConfig) -> Outcome {
    let server = EchoServer::bind(bind).map_err(|err| format!("cannot bind {bind}: {err}"))?;
    let server = server.spawn()?;
    console.say(format!(
        "Echo on {}: {} connections, {} messages of {} bytes each, every byte checked",
        server.addr(),
        client.connections,
        client.messages,
        client.message_bytes
    ));
    let bar = console.progress(1, "echo");
    let result = echo_client::run(server.addr(), client);
    bar.finish_and_clear();
    let stats = server.stats();
    let peak_threads = stats.peak_active();
    let refused = stats.refused();
    server.stop()?;

    let msgs_per_sec = result.timed_messages as f64 / result.elapsed.as_secs_f64().max(1e-9);
    console.say(format!(
        "  {} bytes verified, {} mismatched, {} connection errors; the server ran {} connection threads at once; {:.0} messages/s",
        result.bytes_verified, result.mismatches, result.errors, peak_threads, msgs_per_sec
    ));
    if let Some(err) = &result.first_error {
        console.say(format!("  first error: {err}"));
    }

    let mut report = Report::new("echo");
    report
        .add("echo_connections", "connections", result.connections)
        .add("echo_messages", "messages echoed", result.messages)
        .add(
            "echo_message_bytes",
            "bytes per message",
            client.message_bytes,
        )
        .add(
            "echo_bytes_verified",
            "echoed bytes verified",
            result.bytes_verified,
        )
        .add("echo_mismatches", "echoed bytes wrong", result.mismatches)
        .add("echo_errors", "connections with errors", result.errors)
        .add("echo_refused", "connections the server refused", refused)
        .add(
            "echo_server_peak_threads",
            "server connection threads at once",
            peak_threads,
        )
        .add("echo_msgs_per_sec", "messages per second", msgs_per_sec);
    Ok(report)
}

/// The guided demo: all three experiments, narrated, as one report.
pub fn demo(console: &Console, quick: bool) -> Outcome {
    let machine = Machine::current();
    console.say("Chapter 1: processes and threads");
    console.say(format!("Measured on: {}", machine.describe()));
    console.say("");
    console.say("1/3 What does it cost to start a thread, or a process?");
    let spawn = spawn_cost(
        console,
        if quick {
            SpawnConfig::quick()
        } else {
            SpawnConfig::full()
        },
    )?;
    console.say("");
    console.say("2/3 What does an idle thread cost in memory?");
    let memory = memory(
        console,
        if quick {
            MemoryConfig::quick()
        } else {
            MemoryConfig::full()
        },
    )?;
    console.say("");
    console.say("3/3 Does one thread per connection work?");
    let echo = echo(
        console,
        SocketAddr::from(([127, 0, 0, 1], 0)),
        if quick { echo_quick() } else { echo_full() },
    )?;
    console.say("");
    console.say("Summary");

    let mut report = Report::new("demo");
    report.add("quick", "quick mode", quick);
    report.extend(spawn).extend(memory).extend(echo);
    add_machine(&mut report, &machine);
    Ok(report)
}
