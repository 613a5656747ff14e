//! The chapter's experiments as the binary runs them.
//!
//! `probe` asks the kernel what it offers; `overflow` makes the completion
//! ring overflow and counts that nothing is lost; `steps` puts the io_uring
//! server's four steps (and Chapter 4's epoll server, for reference)
//! through Chapter 3's harness; the race is in [`crate::race`].

use std::io;
use std::net::{TcpListener, TcpStream};

use chapter_01::console::{Console, Report, group_thousands};
use chapter_01::machine::Machine;
use chapter_03::experiments::{self as ch03, Outcome};
use chapter_03::harness::ServerSpec;
use chapter_03::load::LoadConfig;
use io_uring::{opcode, types};
use serde_json::{Value, json};

use crate::server::Step;
use crate::uring::buf_ring::BufRing;
use crate::uring::{Op, Ring, Token, is_refused};

/// This binary's io_uring server at `step`, as the harness starts it.
pub fn uring_spec(step: Step) -> io::Result<ServerSpec> {
    ServerSpec::this_binary(
        &format!("io_uring {}", step.name()),
        &["serve", "--addr", "127.0.0.1:0", "--mode", step.name()],
    )
}

/// Chapter 4's epoll server, started from this binary.
pub fn epoll_spec() -> io::Result<ServerSpec> {
    ServerSpec::this_binary(
        "epoll",
        &["serve", "--server", "epoll", "--addr", "127.0.0.1:0"],
    )
}

/// Chapter 7's runtime's echo server, started from this binary.
pub fn rt_spec() -> io::Result<ServerSpec> {
    ServerSpec::this_binary("rt", &["serve", "--server", "rt", "--addr", "127.0.0.1:0"])
}

/// Whether a multishot accept really yields a completion per connection
/// here (the probe cannot tell: it is a flag of ACCEPT, not an operation).
pub fn multishot_accept_works(ring: &mut Ring) -> io::Result<bool> {
    let listener = TcpListener::bind("127.0.0.1:0")?;
    let entry = opcode::AcceptMulti::new(types::Fd(std::os::fd::AsRawFd::as_raw_fd(&listener)))
        .build()
        .user_data(Token::new(0, Op::Accept).to_user_data());
    // SAFETY: no buffer is involved, and the listener stays open until the
    // accept has ended: its first completion ends it if the kernel refuses
    // multishot, and otherwise the cancellation below ends it, and both
    // completions are waited for before the listener is dropped.
    unsafe { ring.push(&entry)? };
    let _client = TcpStream::connect(listener.local_addr()?)?;
    ring.submit_and_wait(1)?;
    let mut completions = Vec::new();
    ring.reap(&mut completions)?;
    let works = completions.iter().any(|c| c.result >= 0 && c.more());
    for c in &completions {
        if c.result >= 0 {
            // SAFETY: a descriptor the kernel just gave us.
            unsafe { libc::close(c.result) };
        }
    }
    // Cancel the accept that is still armed, and wait for its end.
    let cancel = opcode::AsyncCancel2::new(types::CancelBuilder::any())
        .build()
        .user_data(Token::new(0, Op::Cancel).to_user_data());
    // SAFETY: a cancellation points to nothing of ours.
    unsafe { ring.push(&cancel)? };
    if works {
        ring.submit_and_wait(2)?;
        completions.clear();
        ring.reap(&mut completions)?;
    }
    Ok(works)
}

/// `probe`: what this kernel's io_uring offers the server.
pub fn probe(console: &Console) -> Outcome {
    let mut report = Report::new("probe");
    let mut ring = match Ring::new(8, 16) {
        Ok(ring) => ring,
        Err(err) if is_refused(&err) => {
            console.say(format!(
                "io_uring is refused here ({err}): the server falls back to Chapter 4's epoll loop"
            ));
            report.add("io_uring", "io_uring available", false);
            report.add("refused_because", "why", err.to_string());
            ch03::add_machine(&mut report);
            return Ok(report);
        }
        Err(err) => return Err(err.into()),
    };
    report.add("io_uring", "io_uring available", true);
    let opcodes = ring.probe()?;
    console.say("Operations the echo server uses, as the kernel's probe reports them:");
    for (name, present) in opcodes.list() {
        console.say(format!(
            "  IORING_OP_{name:<16} {}",
            if present { "yes" } else { "NO" }
        ));
        report.add(
            &format!("op_{}", name.to_lowercase()),
            &format!("IORING_OP_{name}"),
            present,
        );
    }
    let multishot = multishot_accept_works(&mut ring)?;
    let buffer_ring = BufRing::register(&ring, 1, 8, 64).and_then(|pool| pool.unregister(&ring));
    console.say(format!(
        "  multishot accept      {}",
        if multishot {
            "yes"
        } else {
            "no: one accept per connection"
        }
    ));
    console.say(format!(
        "  buffer ring           {}",
        match &buffer_ring {
            Ok(()) => "yes".to_string(),
            Err(err) => format!("no ({err}): a buffer per connection"),
        }
    ));
    console.say(format!(
        "  overflowing completions kept (IORING_FEAT_NODROP): {}",
        if ring.keeps_overflow() { "yes" } else { "no" }
    ));
    report
        .add("multishot_accept", "multishot accept", multishot)
        .add("buffer_ring", "buffer ring", buffer_ring.is_ok())
        .add("feat_nodrop", "IORING_FEAT_NODROP", ring.keeps_overflow())
        .add("can_echo", "the server can run", opcodes.can_echo());
    ch03::add_machine(&mut report);
    Ok(report)
}

/// What [`overflow_run`] saw.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OverflowOutcome {
    /// The completion ring's size, as the kernel set it.
    pub cq_entries: u32,
    /// Operations submitted (no-ops), all before the first reap.
    pub operations: usize,
    /// Completions reaped, each for a different operation.
    pub reaped: usize,
    /// Operations whose completion never came, or came twice.
    pub lost_or_doubled: usize,
    /// Whether the kernel said its overflow list was in use.
    pub overflowed: bool,
    /// Times the overflow list had to be flushed by an `io_uring_enter`.
    pub overflow_flushes: u64,
    /// Completions the kernel dropped (0 with `IORING_FEAT_NODROP`).
    pub dropped: u32,
}

// ANCHOR: overflow_run
/// Submits `operations` no-ops on a ring with `cq_entries` completion
/// slots, without reaping, then reaps everything and checks each came back
/// exactly once.
pub fn overflow_run(cq_entries: u32, operations: usize) -> io::Result<OverflowOutcome> {
    let mut ring = Ring::new(cq_entries, cq_entries)?;
    for i in 0..operations {
        let nop = opcode::Nop::new()
            .build()
            .user_data(Token::new(i as u32, Op::Nop).to_user_data());
        // SAFETY: a no-op points to nothing.
        unsafe { ring.push(&nop)? };
    }
    ring.submit_and_wait(0)?;
    let overflowed = ring.overflow_pending();
    let mut seen = vec![0u32; operations];
    let mut completions = Vec::new();
    while completions.len() < operations {
        if ring.reap(&mut completions)? == 0 {
            ring.submit_and_wait(1)?;
        }
    }
    for c in &completions {
        if let Some(token) = c.token() {
            seen[token.index as usize] += 1;
        }
    }
    Ok(OverflowOutcome {
        cq_entries: ring.sizes().1,
        operations,
        reaped: completions.len(),
        lost_or_doubled: seen.iter().filter(|&&n| n != 1).count(),
        overflowed,
        overflow_flushes: ring.overflow_flushes(),
        dropped: ring.dropped_completions(),
    })
}
// ANCHOR_END: overflow_run

/// `overflow`: the completion ring overflows; nothing is lost.
pub fn overflow(console: &Console, cq_entries: u32, operations: usize) -> Outcome {
    console.say(format!(
        "{} no-ops submitted to a ring with {} completion slots before any is reaped",
        group_thousands(operations as f64),
        cq_entries
    ));
    let outcome = overflow_run(cq_entries, operations)?;
    console.say(format!(
        "  overflow list used: {}; flushed by {} io_uring_enter call{}; {} reaped, {} lost or doubled, {} dropped by the kernel",
        if outcome.overflowed { "yes" } else { "no" },
        outcome.overflow_flushes,
        if outcome.overflow_flushes == 1 { "" } else { "s" },
        group_thousands(outcome.reaped as f64),
        outcome.lost_or_doubled,
        outcome.dropped
    ));
    let mut report = Report::new("overflow");
    report
        .add("cq_entries", "completion ring slots", outcome.cq_entries)
        .add("operations", "operations", outcome.operations)
        .add("overflowed", "overflow list used", outcome.overflowed)
        .add(
            "overflow_flushes",
            "overflow flushes",
            outcome.overflow_flushes,
        )
        .add("reaped", "completions reaped", outcome.reaped)
        .add(
            "lost_or_doubled",
            "lost or doubled",
            outcome.lost_or_doubled,
        )
        .add("dropped", "dropped by the kernel", outcome.dropped);
    ch03::add_machine(&mut report);
    Ok(report)
}

/// `steps`: epoll, then the io_uring server's four steps, same load.
pub fn steps(console: &Console, config: &LoadConfig) -> Outcome {
    console.say(format!(
        "The same load on epoll and on each step of the io_uring server: {} connections, {}-byte messages, {} s each",
        group_thousands(config.connections as f64),
        config.message_bytes,
        config.duration.as_secs()
    ));
    let mut specs = vec![epoll_spec()?];
    for step in Step::ALL {
        specs.push(uring_spec(step)?);
    }
    let mut report = ch03::compare(console, &specs, config)?;
    report.remove_prefixed("machine_");
    let mut out = Report::new("steps");
    out.extend(report);
    ch03::add_machine(&mut out);
    Ok(out)
}

/// The guided demo.
pub fn demo(console: &Console, quick: bool) -> Outcome {
    let machine = Machine::current();
    console.say("Chapter 10: completion, the other way to do I/O");
    console.say(format!("Measured on: {}", machine.describe()));
    console.say("");
    console.say("1/4 What does this kernel offer?");
    let mut probed = probe(console)?;
    let available = probed.get("io_uring") == Some(&Value::Bool(true));
    console.say("");
    console.say("2/4 A completion ring too small for the completions");
    let mut overflowed = if available {
        overflow(console, 8, 1000)?
    } else {
        console.say("  skipped: no io_uring here");
        Report::new("overflow")
    };
    console.say("");
    console.say("3/4 The server's steps against epoll");
    let mut config = LoadConfig::new(std::net::SocketAddr::from(([127, 0, 0, 1], 0)), 1_000);
    config.connections = if quick { 200 } else { 1_000 };
    config.duration = std::time::Duration::from_secs(if quick { 1 } else { 3 });
    let mut stepped = steps(console, &config)?;
    console.say("");
    console.say("4/4 The race: epoll, rt, io_uring, compio");
    let race_config = crate::race::RaceConfig {
        connections: vec![if quick { 200 } else { 1_000 }],
        duration: config.duration,
        rounds: 1,
        step: Step::Basic,
        compio: crate::race::default_compio_path(),
        plot_dir: None,
    };
    let raced = crate::race::race(console, &race_config)?;
    console.say("");
    console.say("Summary");
    for part in [&mut probed, &mut overflowed, &mut stepped] {
        part.remove_prefixed("machine_");
    }
    let mut report = Report::new("demo");
    report.add("quick", "quick mode", quick);
    report.extend(probed).extend(overflowed).extend(stepped);
    report.add("race", "the race", raced.to_json());
    ch03::add_machine(&mut report);
    Ok(report)
}

/// A report's value as JSON (for tests and the race).
pub fn json_of(report: &Report) -> Value {
    let mut json = report.to_json();
    if let Some(map) = json.as_object_mut() {
        map.shift_remove("experiment");
    }
    json!(json)
}
