//! `compare -- echo`: Chapter 3's harness against this runtime's echo server
//! and a Tokio echo server of the same shape, one after the other in one
//! run, each in its own process (the harness runs servers as children of
//! this binary: `compare serve --runtime ours|tokio [--workers N]`).
//!
//! Rounds rotate which server goes first, so that none always meets the
//! machine warmer or busier. Each round gives three ratios, ours over
//! Tokio's: throughput, p99 latency and server context switches per
//! message; the report gives the median of each over the rounds and their
//! range (a noisy minute moves one round, not the median).
//!
//! Beside them, in every round, the floor: Chapter 4's edge-triggered epoll
//! loop (`compare serve --runtime epoll`), readiness I/O on one thread with
//! no runtime at all, no tasks, no wakers and no queues. It answers the same
//! load, so how close each runtime comes to it is what the runtime costs
//! (with the caveat that one thread never pays for a second CPU's cache
//! traffic, nor gets a second CPU's work).

use super::scheduler::{median, round3};
use chapter_01::console::{Console, group_thousands};
use chapter_03::experiments as ch03;
use chapter_03::harness::ServerSpec;
use chapter_03::load::LoadConfig;
use serde_json::{Value, json};
use std::error::Error;
use std::io;
use std::net::SocketAddr;
use std::time::Duration;

/// Which runtime a server runs on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Server {
    /// This chapter's runtime.
    Ours,
    /// Tokio's multi-threaded runtime.
    Tokio,
    /// The floor: Chapter 4's epoll loop, one thread, edge-triggered.
    Epoll,
}

impl Server {
    pub fn name(self) -> &'static str {
        match self {
            Server::Ours => "ours",
            Server::Tokio => "tokio",
            Server::Epoll => "epoll",
        }
    }

    fn spec(self, workers: Option<usize>) -> io::Result<ServerSpec> {
        let workers = workers.map(|n| n.to_string());
        let mut args = vec!["serve", "--runtime", self.name(), "--addr", "127.0.0.1:0"];
        if let Some(workers) = &workers {
            args.extend(["--workers", workers.as_str()]);
        }
        ServerSpec::this_binary(self.name(), &args)
    }
}

/// Runs a server until killed, printing `listening on ADDR`. `workers`:
/// worker threads (default: one per logical CPU, on both runtimes).
pub fn serve(server: Server, addr: SocketAddr, workers: Option<usize>) -> io::Result<()> {
    match server {
        Server::Ours => chapter_07::echo::run(addr, workers),
        Server::Tokio => tokio_echo::run(addr, workers),
        Server::Epoll => chapter_04::server::serve(addr, chapter_04::connection::Mode::Edge),
    }
}

/// The Tokio echo server, written like `rt::echo`: a task per connection,
/// a 4 KiB buffer in each, the same back-off when out of descriptors.
mod tokio_echo {
    use std::io;
    use std::net::SocketAddr;
    use std::time::Duration;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    use tokio::net::{TcpListener, TcpStream};

    async fn echo(mut stream: TcpStream) -> io::Result<u64> {
        let mut buf = [0u8; chapter_07::echo::BUFFER_BYTES];
        let mut total = 0;
        loop {
            let n = stream.read(&mut buf).await?;
            if n == 0 {
                stream.shutdown().await?;
                return Ok(total);
            }
            stream.write_all(&buf[..n]).await?;
            total += n as u64;
        }
    }

    async fn serve(listener: TcpListener) -> io::Result<()> {
        loop {
            match listener.accept().await {
                Ok((stream, _)) => {
                    tokio::spawn(async move {
                        let _ = echo(stream).await;
                    });
                }
                Err(err) if chapter_01::echo_server::is_out_of_resources(&err) => {
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
                Err(err) if chapter_01::echo_server::is_transient(&err) => {}
                Err(err) => return Err(err),
            }
        }
    }

    pub fn run(addr: SocketAddr, workers: Option<usize>) -> io::Result<()> {
        chapter_03::limits::raise_fd_limit()?;
        let listener = chapter_03::server::listener(addr)
            .map_err(|err| io::Error::new(err.kind(), format!("cannot bind {addr}: {err}")))?;
        let mut builder = tokio::runtime::Builder::new_multi_thread();
        if let Some(workers) = workers {
            builder.worker_threads(workers);
        }
        let rt = builder.enable_all().build()?;
        rt.block_on(async {
            listener.set_nonblocking(true)?;
            let listener = TcpListener::from_std(listener)?;
            chapter_03::server::announce(listener.local_addr()?)?;
            tokio::spawn(serve(listener))
                .await
                .map_err(io::Error::other)?
        })
    }
}

/// One round's figures for one server.
fn figures(result: &Value) -> [f64; 3] {
    let get = |key: &str| result[key].as_f64().unwrap_or(f64::NAN);
    [
        get("throughput_msgs_per_sec"),
        get("latency_p99_us"),
        get("server_switches_per_message"),
    ]
}

/// Median and range of `values`, rounded to three decimals.
fn summary(values: &[f64]) -> Value {
    let min = values.iter().copied().fold(f64::INFINITY, f64::min);
    let max = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    json!({
        "median": round3(median(values.to_vec())),
        "min": round3(min),
        "max": round3(max),
    })
}

/// The comparison: each round runs both servers under the same load, the
/// order alternating from round to round; ratios are taken within a round
/// and summarised over the rounds by their median and range.
pub fn compare(
    console: &Console,
    config: &LoadConfig,
    rounds: usize,
    workers: Option<usize>,
) -> Result<Value, Box<dyn Error>> {
    let servers = [Server::Ours, Server::Tokio, Server::Epoll];
    // runs[0]: ours, runs[1]: Tokio's, runs[2]: the floor's, one result per round.
    let mut runs: [Vec<Value>; 3] = [Vec::new(), Vec::new(), Vec::new()];
    for round in 0..rounds {
        // The order rotates: ours, Tokio, floor; Tokio, floor, ours; ...
        let order: [usize; 3] = [round % 3, (round + 1) % 3, (round + 2) % 3];
        if rounds > 1 {
            console.say(format!(
                "round {} of {rounds}: {} first",
                round + 1,
                servers[order[0]].name()
            ));
        }
        let specs = order
            .iter()
            .map(|&i| servers[i].spec(workers))
            .collect::<io::Result<Vec<_>>>()?;
        let report = ch03::compare(console, &specs, config)?;
        let results = report
            .get("results")
            .and_then(Value::as_array)
            .filter(|results| results.len() == 3)
            .ok_or("the harness returned no results")?;
        for (slot, result) in order.iter().zip(results) {
            runs[*slot].push(result.clone());
        }
    }
    let [ours, tokio, floor] = runs;
    let ours_figures: Vec<[f64; 3]> = ours.iter().map(figures).collect();
    let tokio_figures: Vec<[f64; 3]> = tokio.iter().map(figures).collect();
    let floor_figures: Vec<[f64; 3]> = floor.iter().map(figures).collect();
    // Per-round ratios, ours over Tokio's: throughput, p99, switches.
    let ratios: Vec<[f64; 3]> = ours_figures
        .iter()
        .zip(&tokio_figures)
        .map(|(o, t)| [0, 1, 2].map(|i| o[i] / t[i].max(1e-9)))
        .collect();
    let column = |rows: &[[f64; 3]], i: usize| rows.iter().map(|row| row[i]).collect::<Vec<_>>();
    let throughput_ratio = summary(&column(&ratios, 0));
    let p99_ratio = summary(&column(&ratios, 1));
    let switches_ratio = summary(&column(&ratios, 2));
    let rounds_of =
        |rows: &[[f64; 3]], i: usize| column(rows, i).into_iter().map(round3).collect::<Vec<_>>();
    // The round whose throughput is the median, for the full results.
    let median_round = |results: &[Value], rows: &[[f64; 3]]| -> Value {
        let mut order: Vec<usize> = (0..rows.len()).collect();
        order.sort_by(|a, b| rows[*a][0].total_cmp(&rows[*b][0]));
        results[order[order.len() / 2]].clone()
    };
    let (ours_median, tokio_median) = (
        median_round(&ours, &ours_figures),
        median_round(&tokio, &tokio_figures),
    );
    let med = |rows: &[[f64; 3]], i: usize| median(column(rows, i));
    let ratio_text = |v: &Value| {
        format!(
            "{:.2} (range {:.2} to {:.2})",
            v["median"].as_f64().unwrap_or(f64::NAN),
            v["min"].as_f64().unwrap_or(f64::NAN),
            v["max"].as_f64().unwrap_or(f64::NAN)
        )
    };
    console.say(format!(
        "\nMedians over {rounds} round(s), ours against Tokio's, with the per-round ratio's median and range:"
    ));
    console.say(format!(
        "  throughput    ours {} msgs/s, tokio {} msgs/s; ratio {}",
        group_thousands(med(&ours_figures, 0).round()),
        group_thousands(med(&tokio_figures, 0).round()),
        ratio_text(&throughput_ratio),
    ));
    console.say(format!(
        "  p99 latency   ours {:.1} ms, tokio {:.1} ms; ratio {}",
        med(&ours_figures, 1) / 1e3,
        med(&tokio_figures, 1) / 1e3,
        ratio_text(&p99_ratio),
    ));
    console.say(format!(
        "  switches/msg  ours {:.4}, tokio {:.4}; ratio {}",
        med(&ours_figures, 2),
        med(&tokio_figures, 2),
        ratio_text(&switches_ratio),
    ));
    // Each runtime's throughput over the floor's, round by round.
    let of_floor = |rows: &[[f64; 3]]| {
        let ratios: Vec<f64> = rows
            .iter()
            .zip(&floor_figures)
            .map(|(r, f)| r[0] / f[0].max(1e-9))
            .collect();
        summary(&ratios)
    };
    let (ours_of_floor, tokio_of_floor) = (of_floor(&ours_figures), of_floor(&tokio_figures));
    console.say(format!(
        "  the floor     Chapter 4's epoll loop, one thread: {} msgs/s, p99 {:.1} ms, {:.4} switches/msg;\n                ours {} of its throughput, tokio {}",
        group_thousands(med(&floor_figures, 0).round()),
        med(&floor_figures, 1) / 1e3,
        med(&floor_figures, 2),
        ratio_text(&ours_of_floor),
        ratio_text(&tokio_of_floor),
    ));
    // The server's resident memory per connection (the harness reads the
    // server's RSS before connecting and while every connection is open),
    // in the median round. Ours includes each socket's waiter list.
    let memory = |v: &Value| {
        v["server_rss_per_connection_kib"]
            .as_f64()
            .unwrap_or(f64::NAN)
    };
    console.say(format!(
        "  memory/conn   ours {:.2} KiB, tokio {:.2} KiB (median-throughput round)",
        memory(&ours_median),
        memory(&tokio_median),
    ));
    let workers = workers
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, std::num::NonZero::get));
    Ok(json!({
        "experiment": "echo",
        "connections": config.connections,
        "duration_s": config.duration.as_secs(),
        "rounds": rounds,
        "workers": workers,
        "machine": chapter_01::machine::Machine::current().describe(),
        "results": [ours_median, tokio_median],
        "throughput_rounds_ours": rounds_of(&ours_figures, 0).into_iter().map(f64::round).collect::<Vec<_>>(),
        "throughput_rounds_tokio": rounds_of(&tokio_figures, 0).into_iter().map(f64::round).collect::<Vec<_>>(),
        "p99_us_rounds_ours": rounds_of(&ours_figures, 1),
        "p99_us_rounds_tokio": rounds_of(&tokio_figures, 1),
        "switches_per_message_rounds_ours": column(&ours_figures, 2),
        "switches_per_message_rounds_tokio": column(&tokio_figures, 2),
        "throughput_ratio_vs_tokio": throughput_ratio["median"],
        "throughput_ratio_vs_tokio_range": [throughput_ratio["min"], throughput_ratio["max"]],
        "p99_ratio_vs_tokio": p99_ratio["median"],
        "p99_ratio_vs_tokio_range": [p99_ratio["min"], p99_ratio["max"]],
        "switches_per_message_ratio_vs_tokio": switches_ratio["median"],
        "switches_per_message_ratio_vs_tokio_range": [switches_ratio["min"], switches_ratio["max"]],
        "memory_per_connection_kib_ours": memory(&ours_median),
        "memory_per_connection_kib_tokio": memory(&tokio_median),
        "floor": {
            "server": "Chapter 4's epoll loop: one thread, edge-triggered, no runtime",
            "throughput_msgs_per_sec": med(&floor_figures, 0).round(),
            "latency_p99_us": med(&floor_figures, 1),
            "server_switches_per_message": med(&floor_figures, 2),
            "throughput_rounds": rounds_of(&floor_figures, 0).into_iter().map(f64::round).collect::<Vec<_>>(),
            "p99_us_rounds": rounds_of(&floor_figures, 1),
            "switches_per_message_rounds": column(&floor_figures, 2),
            "result": median_round(&floor, &floor_figures),
            "throughput_ratio_ours_vs_floor": ours_of_floor["median"],
            "throughput_ratio_ours_vs_floor_range": [ours_of_floor["min"], ours_of_floor["max"]],
            "throughput_ratio_tokio_vs_floor": tokio_of_floor["median"],
            "throughput_ratio_tokio_vs_floor_range": [tokio_of_floor["min"], tokio_of_floor["max"]],
        },
    }))
}

/// The load for `compare -- echo`.
pub fn config(connections: usize, duration: Duration) -> LoadConfig {
    let mut config = LoadConfig::new(SocketAddr::from(([127, 0, 0, 1], 0)), connections);
    config.duration = duration;
    config
}
