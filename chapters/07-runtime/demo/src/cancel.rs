//! `cancel`: a `select!` loop that loses data, next to the same loop fixed.
//!
//! `select!` drops the branches that lose the race. A future that has done
//! part of its work when it is dropped takes that work with it: that is
//! what *cancellation safety* is about. The classic victim is
//! `read_exact(&mut buf)` raced against a timer in a loop: `read_exact`
//! keeps how far it has filled `buf` inside the future, so when the timer
//! wins, the bytes already read are in a buffer nobody will look at, and
//! the stream goes on from the middle of a record.
//!
//! The experiment: a peer thread sends fixed-size records over loopback,
//! each in two parts a couple of milliseconds apart (a slow or bursty
//! sender); the reader loops on `select!` between reading one record and a
//! ticker firing every millisecond (a heartbeat, a progress report). Two
//! readers, each on a fresh connection:
//!
//! * **naive**: `stream.read_exact(&mut record)` with `record` a local of
//!   the loop body; progress lives in the future and dies with it;
//! * **fixed**: the record and how much of it is filled live *outside* the
//!   `select!`, and the branch is one `read` (cancel-safe: if it has not
//!   completed, it has not consumed anything).
//!
//! Each reports the bytes the application never saw (sent minus the bytes
//! of the records it completed) and how many records arrived intact (the
//! sequence number and fill pattern each record carries check out).
//!
//! Book: Chapter 8, "join!, select! and cancellation".

use crate::experiments::Outcome;
use chapter_01::console::{Console, Report};
use chapter_01::experiments::add_machine;
use chapter_01::machine::Machine;
use futures::io::AsyncReadExt;
use rt::net::TcpStream;
use std::io::{self, Write};
use std::time::Duration;

/// Bytes per record: a 4-byte sequence number, then the fill byte.
pub const RECORD: usize = 1024;

/// How long the sender waits between a record's two parts: longer than
/// the ticker's period, so the ticker nearly always fires while a record is
/// half read.
pub const HALF_GAP: Duration = Duration::from_millis(2);

/// The reader's ticker period.
pub const TICK: Duration = Duration::from_millis(1);

/// What one reader saw.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Tally {
    /// Bytes in the records the reader completed.
    pub delivered_bytes: u64,
    /// Records whose contents were whole and in order.
    pub intact_records: u64,
    /// Times the ticker's branch won.
    pub ticks: u64,
}

/// Record `sequence` as the sender writes it.
fn record(sequence: u32) -> Vec<u8> {
    let mut bytes = vec![fill(sequence); RECORD];
    bytes[..4].copy_from_slice(&sequence.to_be_bytes());
    bytes
}

fn fill(sequence: u32) -> u8 {
    (sequence % 251) as u8
}

/// True if `bytes` is record `expected`, whole.
fn is_intact(bytes: &[u8], expected: u32) -> bool {
    let sequence = u32::from_be_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
    sequence == expected && bytes[4..].iter().all(|&b| b == fill(sequence))
}

// ANCHOR: naive
/// The loop as it is often first written. Not cancel-safe: when the ticker
/// wins, `read_exact` is dropped with part of `record` filled, and those
/// bytes are gone.
async fn naive_reader(mut stream: TcpStream) -> io::Result<Tally> {
    let mut tally = Tally::default();
    let mut ticker = rt::time::interval(TICK);
    loop {
        let mut record = [0u8; RECORD];
        rt::select! {
            read = stream.read_exact(&mut record) => match read {
                Ok(()) => {
                    tally.delivered_bytes += RECORD as u64;
                    if is_intact(&record, tally.intact_records as u32) {
                        tally.intact_records += 1;
                    }
                }
                Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Ok(tally),
                Err(e) => return Err(e),
            },
            _ = ticker.tick() => tally.ticks += 1,
        }
    }
}
// ANCHOR_END: naive

// ANCHOR: fixed
/// The same loop, fixed: the record and how much of it is filled live
/// outside `select!`, and the branch is a single `read`, which either
/// completes (and its bytes are kept) or has consumed nothing.
async fn fixed_reader(mut stream: TcpStream) -> io::Result<Tally> {
    let mut tally = Tally::default();
    let mut ticker = rt::time::interval(TICK);
    let mut record = [0u8; RECORD];
    let mut filled = 0;
    loop {
        rt::select! {
            read = stream.read(&mut record[filled..]) => match read? {
                0 => return Ok(tally),
                n => {
                    filled += n;
                    if filled == RECORD {
                        filled = 0;
                        tally.delivered_bytes += RECORD as u64;
                        if is_intact(&record, tally.intact_records as u32) {
                            tally.intact_records += 1;
                        }
                    }
                }
            },
            _ = ticker.tick() => tally.ticks += 1,
        }
    }
}
// ANCHOR_END: fixed

/// Where record `sequence` is cut in two: anywhere but its ends, varying
/// from record to record as a real sender's writes would (a reader that has
/// lost its place would otherwise fall in step with the gaps).
fn cut(sequence: u32) -> usize {
    1 + (sequence as usize * 389) % (RECORD - 1)
}

/// Sends `records` records on `peer`, each in two parts [`HALF_GAP`]
/// apart, then closes it.
fn send(mut peer: std::net::TcpStream, records: u32) -> io::Result<()> {
    // Each half goes out as its own segment.
    peer.set_nodelay(true)?;
    for sequence in 0..records {
        let bytes = record(sequence);
        let (first, second) = bytes.split_at(cut(sequence));
        peer.write_all(first)?;
        std::thread::sleep(HALF_GAP);
        peer.write_all(second)?;
    }
    Ok(())
}

/// One reader against a fresh connection: the tally, and the bytes sent.
fn run_one<F, Fut>(runtime: &rt::Runtime, records: u32, reader: F) -> Result<Tally, io::Error>
where
    F: FnOnce(TcpStream) -> Fut,
    Fut: std::future::Future<Output = io::Result<Tally>>,
{
    let listener = std::net::TcpListener::bind("127.0.0.1:0")?;
    let peer = std::net::TcpStream::connect(listener.local_addr()?)?;
    let (ours, _) = listener.accept()?;
    let sender = std::thread::spawn(move || send(peer, records));
    let tally = runtime.block_on(async move { reader(TcpStream::from_std(ours)?).await });
    sender
        .join()
        .map_err(|_| io::Error::other("the sender thread panicked"))??;
    tally
}

/// `cancel`: both readers, `records` records each; the bytes each lost.
pub fn cancel(console: &Console, records: u32) -> Outcome {
    console.say(format!(
        "A peer sends {records} records of {RECORD} bytes, each in two parts {} ms apart; \
         the reader's select! races one record's read against a {} ms ticker",
        HALF_GAP.as_millis(),
        TICK.as_millis()
    ));
    let runtime = rt::Builder::new_multi_thread().worker_threads(1).build()?;
    let sent = u64::from(records) * RECORD as u64;
    let naive = run_one(&runtime, records, naive_reader)?;
    let fixed = run_one(&runtime, records, fixed_reader)?;
    let mut report = Report::new("cancel");
    report
        .add("records", "records sent (each reader)", records)
        .add("sent_bytes", "bytes sent (each reader)", sent);
    for (key, label, tally) in [
        ("naive", "naive (read_exact in select!)", naive),
        ("fixed", "fixed (state outside, one read)", fixed),
    ] {
        let lost = sent - tally.delivered_bytes;
        console.say(format!(
            "{label}: {lost} bytes lost, {} of {records} records intact, {} ticks",
            tally.intact_records, tally.ticks
        ));
        report
            .add(
                &format!("{key}_lost_bytes"),
                &format!("bytes lost, {label}"),
                lost,
            )
            .add(
                &format!("{key}_intact_records"),
                &format!("records intact, {label}"),
                tally.intact_records,
            )
            .add(
                &format!("{key}_ticks"),
                &format!("ticks, {label}"),
                tally.ticks,
            );
    }
    add_machine(&mut report, &Machine::current());
    Ok(report)
}
