//! `shutdown`: the graceful echo server of [`crate::graceful`] under a
//! scripted load, watched from outside and drawn as a timeline.
//!
//! The server runs as a child process (`chapter-07 echo --graceful`), as a
//! reader would run it. `clients` connections open over the first `ramp`;
//! each sends a short line every [`PING`] and checks the echo. At
//! `signal_at` the parent sends the child SIGINT, as Ctrl-C would, and from
//! then on a prober tries a new connection every [`PROBE`] until the child
//! has exited. Two thirds of the clients then close their connections one
//! after another, between a tenth and eight tenths of the deadline after the
//! signal; the other third never close, so the server must cut them when its
//! deadline passes.
//!
//! Everything is seen from outside, as a client or an operator would see
//! it: when each connection was established and when it ended (after the
//! client's own close, or cut by the server), whether every echo came back
//! intact, which new connections were refused, the line the server prints
//! when it stops accepting, its summary line, and when and how it exited.
//!
//! Book: Chapter 8, "Signals and a graceful shutdown".

use chapter_01::console::{Console, Report};
use chapter_01::experiments::add_machine;
use chapter_01::machine::Machine;
use chapter_01::measure::Samples;
use std::io::{self, BufRead, BufReader, ErrorKind, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::time::{Duration, Instant};

/// How often each client sends a line.
pub const PING: Duration = Duration::from_millis(10);

/// How often the prober tries a new connection after the signal.
pub const PROBE: Duration = Duration::from_millis(5);

/// How long any single step may take before it counts as a hang.
const PATIENCE: Duration = Duration::from_secs(10);

/// The script of one run.
#[derive(Debug, Clone, Copy)]
pub struct Config {
    /// Connections the clients open (at least 3: some finish, some are cut).
    pub clients: usize,
    /// The connections open evenly over this long from the start.
    pub ramp: Duration,
    /// When the parent sends SIGINT, from the start (or once every client
    /// has connected, if that is later).
    pub signal_at: Duration,
    /// The server's `--deadline-ms`.
    pub deadline: Duration,
    /// Runs of the whole script (the timeline drawn is the first run's).
    pub runs: usize,
}

impl Config {
    /// The book's run: 30 clients, SIGINT at 200 ms, a 500 ms deadline, 5 runs.
    pub fn full() -> Config {
        Config {
            clients: 30,
            ramp: Duration::from_millis(100),
            signal_at: Duration::from_millis(200),
            deadline: Duration::from_millis(500),
            runs: 5,
        }
    }

    /// A second or so: 6 clients, SIGINT at 100 ms, a 200 ms deadline, 1 run.
    pub fn quick() -> Config {
        Config {
            clients: 6,
            ramp: Duration::from_millis(50),
            signal_at: Duration::from_millis(100),
            deadline: Duration::from_millis(200),
            runs: 1,
        }
    }

    /// Clients that close their own connection before the deadline.
    pub fn finishers(&self) -> usize {
        (2 * self.clients).div_ceil(3)
    }

    /// When client `i` opens its connection.
    fn open_at(&self, i: usize) -> Duration {
        self.ramp.mul_f64(i as f64 / self.clients as f64)
    }

    /// When client `i` closes its connection: the finishers spread over a
    /// tenth to eight tenths of the deadline after the signal; the others
    /// at twice the deadline, which the server will not wait for.
    fn close_at(&self, i: usize) -> Duration {
        let finishers = self.finishers();
        if i < finishers {
            let share = if finishers > 1 {
                i as f64 / (finishers - 1) as f64
            } else {
                0.0
            };
            self.signal_at + self.deadline.mul_f64(0.1 + 0.7 * share)
        } else {
            self.signal_at + self.deadline * 2
        }
    }
}

/// One client's connection as the client saw it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Connection {
    /// When `connect` returned, ms from the start.
    pub opened_ms: f64,
    /// When the connection ended (end of stream or a reset), ms from the start.
    pub closed_ms: f64,
    /// The server closed it before the client meant to: cut.
    pub cut: bool,
    /// Lines echoed intact.
    pub echoes: u64,
    /// Lines that came back wrong, or bytes nobody asked for.
    pub wrong: u64,
}

/// The server's last line: `shut down: A accepted, O open at Ctrl-C, F
/// finished in time, C cut at the deadline`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ServerSummary {
    /// Connections accepted.
    pub accepted: u64,
    /// Connections open when the signal came.
    pub open_at_signal: u64,
    /// Of those, the ones that finished before the deadline.
    pub finished_in_time: u64,
    /// The ones cut at the deadline.
    pub cut: u64,
}

impl ServerSummary {
    /// Parses the summary line, or `None` if it is not one.
    pub fn parse(line: &str) -> Option<ServerSummary> {
        let rest = line.strip_prefix("shut down: ")?;
        let numbers: Vec<u64> = rest
            .split(", ")
            .map(|part| part.split(' ').next()?.parse().ok())
            .collect::<Option<_>>()?;
        match numbers[..] {
            [accepted, open_at_signal, finished_in_time, cut] => Some(ServerSummary {
                accepted,
                open_at_signal,
                finished_in_time,
                cut,
            }),
            _ => None,
        }
    }
}

/// A step function: (ms, value) at every change, the old value then the new.
pub type Steps = Vec<(f64, f64)>;

/// One run, every time in ms from the start (when the server said where it
/// listens).
#[derive(Debug, Clone, PartialEq)]
pub struct Timeline {
    /// Every client's connection, in client order.
    pub connections: Vec<Connection>,
    /// When `kill(2)` sent SIGINT.
    pub signal_ms: f64,
    /// The signal plus the server's deadline.
    pub deadline_ms: f64,
    /// When the server's "Ctrl-C: stopped accepting" line arrived.
    pub stopped_line_ms: Option<f64>,
    /// Every probe after the signal: (when, `connect` succeeded).
    pub probes: Vec<(f64, bool)>,
    /// When the child had exited.
    pub exit_ms: f64,
    /// It exited with status 0.
    pub exit_ok: bool,
    /// Its summary line, parsed.
    pub summary: Option<ServerSummary>,
}

impl Timeline {
    /// The first probe that was refused, ms from the start.
    pub fn first_refused_ms(&self) -> Option<f64> {
        self.probes.iter().find(|(_, ok)| !ok).map(|(t, _)| *t)
    }

    /// Open connections and connections opened so far, at every change:
    /// two step functions, (ms, count).
    pub fn steps(&self) -> (Steps, Steps) {
        let mut events: Vec<(f64, i32, i32)> = Vec::new();
        for c in &self.connections {
            events.push((c.opened_ms, 1, 1));
            events.push((c.closed_ms, -1, 0));
        }
        events.sort_by(|a, b| a.0.total_cmp(&b.0));
        let (mut open, mut opened) = (vec![(0.0, 0.0)], vec![(0.0, 0.0)]);
        let (mut now_open, mut now_opened) = (0, 0);
        for (t, d_open, d_opened) in events {
            // Steps: hold the old value up to t, then jump.
            open.push((t, f64::from(now_open)));
            opened.push((t, f64::from(now_opened)));
            now_open += d_open;
            now_opened += d_opened;
            open.push((t, f64::from(now_open)));
            opened.push((t, f64::from(now_opened)));
        }
        open.push((self.exit_ms, f64::from(now_open)));
        opened.push((self.exit_ms, f64::from(now_opened)));
        (open, opened)
    }
}

/// The server as a child process, its stdout lines arriving, timestamped,
/// on a channel; killed when dropped if it is still running.
struct Server {
    child: Child,
    lines: Receiver<(Instant, String)>,
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

impl Server {
    fn start(exe: &Path, deadline: Duration) -> io::Result<(Server, SocketAddr)> {
        let mut child = Command::new(exe)
            .args(["echo", "--graceful", "--addr", "127.0.0.1:0", "--workers"])
            .arg("2")
            .arg("--deadline-ms")
            .arg(deadline.as_millis().to_string())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .map_err(|err| {
                io::Error::new(err.kind(), format!("cannot start {}: {err}", exe.display()))
            })?;
        let stdout = child.stdout.take().expect("stdout is piped");
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send((Instant::now(), line)).is_err() {
                    break;
                }
            }
        });
        let server = Server { child, lines };
        let (_, first) = server
            .lines
            .recv_timeout(PATIENCE)
            .map_err(|_| io::Error::other("the server did not say where it listens"))?;
        let addr = first
            .strip_prefix("listening on ")
            .and_then(|a| a.trim().parse().ok())
            .ok_or_else(|| io::Error::other(format!("unexpected first line: {first:?}")))?;
        Ok((server, addr))
    }

    fn interrupt(&self) -> io::Result<()> {
        let pid = libc::pid_t::try_from(self.child.id())
            .map_err(|_| io::Error::other("the child's pid does not fit a pid_t"))?;
        // SAFETY: kill(2) on our own child's pid, which we have not waited
        // for, so it still names that process; the call has no memory effects.
        if unsafe { libc::kill(pid, libc::SIGINT) } != 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }
}

fn ms_since(start: Instant) -> f64 {
    start.elapsed().as_secs_f64() * 1e3
}

fn sleep_until(when: Instant) {
    let now = Instant::now();
    if when > now {
        std::thread::sleep(when - now);
    }
}

/// The errors that mean "the server closed this connection".
fn closed_by_peer(err: &io::Error) -> bool {
    matches!(
        err.kind(),
        ErrorKind::UnexpectedEof
            | ErrorKind::ConnectionReset
            | ErrorKind::ConnectionAborted
            | ErrorKind::BrokenPipe
    )
}

/// One client: connect at `open_at`, echo a line every [`PING`] until
/// `close_at` or until the server closes the connection.
fn client(
    addr: SocketAddr,
    start: Instant,
    id: usize,
    open_at: Duration,
    close_at: Duration,
    connected: Sender<bool>,
) -> io::Result<Connection> {
    sleep_until(start + open_at);
    let stream = TcpStream::connect_timeout(&addr, PATIENCE);
    // The signal waits for every client's connect (a thread started late
    // on a busy machine must not meet a server that stopped accepting).
    let _ = connected.send(stream.is_ok());
    let mut stream =
        stream.map_err(|err| io::Error::new(err.kind(), format!("client {id}: connect: {err}")))?;
    stream.set_nodelay(true)?;
    let mut conn = Connection {
        opened_ms: ms_since(start),
        closed_ms: 0.0,
        cut: false,
        echoes: 0,
        wrong: 0,
    };
    let line = format!("client {id:04}\n");
    let mut echo = vec![0u8; line.len()];
    let mut spare = [0u8; 64];
    let close_at = start + close_at;
    loop {
        if Instant::now() >= close_at {
            // Our close: the server's echo task reads end of stream, ends,
            // and its side closes; the connection ends when we read that.
            if stream.shutdown(Shutdown::Write).is_ok() {
                stream.set_read_timeout(Some(PATIENCE))?;
                loop {
                    match stream.read(&mut spare) {
                        Ok(0) => break,
                        Ok(_) => conn.wrong += 1,
                        Err(err) if closed_by_peer(&err) => break,
                        Err(err) => return Err(err),
                    }
                }
            }
            conn.closed_ms = ms_since(start);
            return Ok(conn);
        }
        let ping = Instant::now();
        stream.set_read_timeout(Some(PATIENCE))?;
        let round_trip = stream
            .write_all(line.as_bytes())
            .and_then(|()| stream.read_exact(&mut echo));
        match round_trip {
            Ok(()) if echo == line.as_bytes() => conn.echoes += 1,
            Ok(()) => conn.wrong += 1,
            Err(err) if closed_by_peer(&err) => break,
            Err(err) => return Err(err),
        }
        // Until the next ping, wait on the socket, so a close by the server
        // is seen the moment it happens.
        let until = (ping + PING).min(close_at);
        let wait = until.saturating_duration_since(Instant::now());
        stream.set_read_timeout(Some(wait.max(Duration::from_millis(1))))?;
        match stream.read(&mut spare) {
            Ok(0) => break,
            Ok(_) => conn.wrong += 1,
            Err(err) if matches!(err.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {}
            Err(err) if closed_by_peer(&err) => break,
            Err(err) => return Err(err),
        }
    }
    conn.closed_ms = ms_since(start);
    conn.cut = true;
    Ok(conn)
}

/// One run of the script against a fresh server started from `exe`.
pub fn run_once(exe: &Path, config: &Config) -> io::Result<Timeline> {
    if config.clients < 3 {
        return Err(io::Error::other("the script needs at least 3 clients"));
    }
    let (mut server, addr) = Server::start(exe, config.deadline)?;
    let start = Instant::now();
    let (connected, connects) = channel();
    let clients: Vec<_> = (0..config.clients)
        .map(|i| {
            let (open_at, close_at) = (config.open_at(i), config.close_at(i));
            let connected = connected.clone();
            std::thread::spawn(move || client(addr, start, i, open_at, close_at, connected))
        })
        .collect();
    for _ in 0..config.clients {
        if connects.recv_timeout(PATIENCE) != Ok(true) {
            // The failing client's thread has the reason.
            drop(server);
            for client in clients {
                client
                    .join()
                    .map_err(|_| io::Error::other("a client thread panicked"))??;
            }
            return Err(io::Error::other("a client could not connect"));
        }
    }
    sleep_until(start + config.signal_at);
    server.interrupt()?;
    let signal_ms = ms_since(start);
    let exited = Arc::new(AtomicBool::new(false));
    let prober = {
        let exited = Arc::clone(&exited);
        std::thread::spawn(move || {
            let mut probes = Vec::new();
            let mut next = Instant::now();
            while !exited.load(Ordering::Acquire) {
                let at = ms_since(start);
                let ok = TcpStream::connect_timeout(&addr, Duration::from_secs(1)).is_ok();
                probes.push((at, ok));
                next += PROBE;
                sleep_until(next);
            }
            probes
        })
    };
    let give_up = Instant::now() + config.deadline + PATIENCE;
    let status = loop {
        if let Some(status) = server.child.try_wait()? {
            break status;
        }
        if Instant::now() > give_up {
            exited.store(true, Ordering::Release);
            return Err(io::Error::other(format!(
                "the server did not exit within {:?} of SIGINT",
                config.deadline + PATIENCE
            )));
        }
        std::thread::sleep(Duration::from_micros(200));
    };
    let exit_ms = ms_since(start);
    exited.store(true, Ordering::Release);
    let probes = prober
        .join()
        .map_err(|_| io::Error::other("the prober panicked"))?;
    let mut connections = Vec::with_capacity(config.clients);
    for client in clients {
        connections.push(
            client
                .join()
                .map_err(|_| io::Error::other("a client thread panicked"))??,
        );
    }
    let (mut stopped_line_ms, mut summary) = (None, None);
    while let Ok((at, line)) = server.lines.recv_timeout(Duration::from_millis(500)) {
        let at_ms = at.saturating_duration_since(start).as_secs_f64() * 1e3;
        if line.starts_with("Ctrl-C: stopped accepting") {
            stopped_line_ms = Some(at_ms);
        } else if let Some(parsed) = ServerSummary::parse(&line) {
            summary = Some(parsed);
        }
    }
    Ok(Timeline {
        connections,
        signal_ms,
        deadline_ms: signal_ms + config.deadline.as_secs_f64() * 1e3,
        stopped_line_ms,
        probes,
        exit_ms,
        exit_ok: status.success(),
        summary,
    })
}

/// `shutdown`: `config.runs` runs of the script; the report (medians and
/// ranges over the runs) and the first run's timeline, for the plot.
pub fn shutdown(
    console: &Console,
    exe: &Path,
    config: &Config,
) -> Result<(Report, Timeline), Box<dyn std::error::Error>> {
    console.say(format!(
        "{} clients echo a line every {} ms; SIGINT at {} ms; {} of them close within the {} ms deadline, \
         the rest never do; {} run(s)",
        config.clients,
        PING.as_millis(),
        config.signal_at.as_millis(),
        config.finishers(),
        config.deadline.as_millis(),
        config.runs
    ));
    let mut runs = Vec::with_capacity(config.runs);
    for run in 0..config.runs.max(1) {
        let t = run_once(exe, config)?;
        let finished = t.connections.iter().filter(|c| !c.cut).count();
        let cut = t.connections.len() - finished;
        console.say(format!(
            "run {}: first refusal {} ms after SIGINT; {finished} finished, {cut} cut; exit {:.1} ms after SIGINT, status {}",
            run + 1,
            t.first_refused_ms()
                .map_or("never".to_string(), |r| format!("{:.1}", r - t.signal_ms)),
            t.exit_ms - t.signal_ms,
            if t.exit_ok { "0" } else { "non-zero" },
        ));
        runs.push(t);
    }
    let mut report = Report::new("shutdown");
    report
        .add("clients", "clients", config.clients)
        .add(
            "deadline_ms",
            "deadline (ms)",
            config.deadline.as_millis() as u64,
        )
        .add("runs", "runs", runs.len());
    // Medians and ranges over runs, in ms.
    // A measure no run produced (no refusal seen, say) is left out.
    let mut spread = |key: &str, label: &str, values: Vec<f64>| {
        if values.is_empty() {
            return;
        }
        let s = Samples::from_ns(values);
        report
            .add(
                &format!("{key}_median_ms"),
                &format!("{label}, median (ms)"),
                s.median_ns(),
            )
            .add(
                &format!("{key}_min_ms"),
                &format!("{label}, least (ms)"),
                s.min_ns(),
            )
            .add(
                &format!("{key}_max_ms"),
                &format!("{label}, most (ms)"),
                s.max_ns(),
            );
    };
    let per_run =
        |f: &dyn Fn(&Timeline) -> Option<f64>| -> Vec<f64> { runs.iter().filter_map(f).collect() };
    spread(
        "stopped_line_after_signal",
        "SIGINT to the server's 'stopped accepting' line",
        per_run(&|t| Some(t.stopped_line_ms? - t.signal_ms)),
    );
    spread(
        "first_refusal_after_signal",
        "SIGINT to the first refused connect",
        per_run(&|t| Some(t.first_refused_ms()? - t.signal_ms)),
    );
    spread(
        "cut_after_deadline",
        "deadline to the last cut connection's end",
        per_run(&|t| {
            t.connections
                .iter()
                .filter(|c| c.cut)
                .map(|c| c.closed_ms - t.deadline_ms)
                .reduce(f64::max)
        }),
    );
    spread(
        "exit_after_deadline",
        "deadline to the server's exit",
        per_run(&|t| Some(t.exit_ms - t.deadline_ms)),
    );
    let total = |f: &dyn Fn(&Timeline) -> u64| -> u64 { runs.iter().map(f).sum() };
    report
        .add(
            "clients_finished",
            "connections the clients closed, all runs",
            total(&|t| t.connections.iter().filter(|c| !c.cut).count() as u64),
        )
        .add(
            "clients_cut",
            "connections the server cut, all runs",
            total(&|t| t.connections.iter().filter(|c| c.cut).count() as u64),
        )
        .add(
            "echoes",
            "lines echoed intact, all runs",
            total(&|t| t.connections.iter().map(|c| c.echoes).sum()),
        )
        .add(
            "wrong",
            "lines echoed wrong, all runs",
            total(&|t| t.connections.iter().map(|c| c.wrong).sum()),
        )
        .add(
            "probes_connected",
            "probes after SIGINT whose connect succeeded, all runs",
            total(&|t| t.probes.iter().filter(|p| p.1).count() as u64),
        )
        .add(
            "probes_refused",
            "probes after SIGINT refused, all runs",
            total(&|t| t.probes.iter().filter(|p| !p.1).count() as u64),
        )
        .add(
            "exit_zero",
            "runs where the server exited with status 0",
            runs.iter().filter(|t| t.exit_ok).count(),
        );
    let summaries: Vec<ServerSummary> = runs.iter().filter_map(|t| t.summary).collect();
    report
        .add(
            "server_summaries",
            "runs with the server's summary line",
            summaries.len(),
        )
        .add(
            "server_accepted",
            "server: accepted, all runs",
            summaries.iter().map(|s| s.accepted).sum::<u64>(),
        )
        .add(
            "server_open_at_signal",
            "server: open at Ctrl-C, all runs",
            summaries.iter().map(|s| s.open_at_signal).sum::<u64>(),
        )
        .add(
            "server_finished_in_time",
            "server: finished in time, all runs",
            summaries.iter().map(|s| s.finished_in_time).sum::<u64>(),
        )
        .add(
            "server_cut",
            "server: cut at the deadline, all runs",
            summaries.iter().map(|s| s.cut).sum::<u64>(),
        );
    add_machine(&mut report, &Machine::current());
    let first = runs.swap_remove(0);
    Ok((report, first))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_summary_line_parses_and_nothing_else_does() {
        assert_eq!(
            ServerSummary::parse(
                "shut down: 30 accepted, 30 open at Ctrl-C, 20 finished in time, 10 cut at the deadline"
            ),
            Some(ServerSummary {
                accepted: 30,
                open_at_signal: 30,
                finished_in_time: 20,
                cut: 10
            })
        );
        assert_eq!(ServerSummary::parse("listening on 127.0.0.1:1"), None);
        assert_eq!(ServerSummary::parse("shut down: 1 accepted"), None);
    }

    #[test]
    fn two_thirds_finish_before_the_deadline_and_the_rest_after() {
        let config = Config::full();
        let deadline = config.signal_at + config.deadline;
        let before = (0..config.clients)
            .filter(|&i| config.close_at(i) < deadline)
            .count();
        assert_eq!(before, 20);
        assert!((0..config.clients).all(|i| config.close_at(i) > config.signal_at));
        assert!((0..config.clients).all(|i| config.open_at(i) < config.signal_at));
    }

    #[test]
    fn the_steps_count_open_connections() {
        let conn = |opened_ms, closed_ms| Connection {
            opened_ms,
            closed_ms,
            cut: false,
            echoes: 0,
            wrong: 0,
        };
        let t = Timeline {
            connections: vec![conn(1.0, 5.0), conn(2.0, 9.0)],
            signal_ms: 3.0,
            deadline_ms: 8.0,
            stopped_line_ms: None,
            probes: vec![],
            exit_ms: 10.0,
            exit_ok: true,
            summary: None,
        };
        let (open, opened) = t.steps();
        let at = |steps: &[(f64, f64)], x: f64| {
            steps.iter().rev().find(|p| p.0 <= x).map_or(0.0, |p| p.1)
        };
        assert_eq!(at(&open, 3.0), 2.0);
        assert_eq!(at(&open, 6.0), 1.0);
        assert_eq!(at(&open, 9.5), 0.0);
        assert_eq!(at(&opened, 9.5), 2.0);
    }
}
