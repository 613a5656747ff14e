//! `compare -- echo`: Chapter 3's harness against this runtime's echo server
//! and a Tokio echo server of the same shape, one after the other in one
//! run, each in its own process (the harness runs servers as children of
//! this binary: `compare serve --runtime ours|tokio`).

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
}

impl Server {
    pub fn name(self) -> &'static str {
        match self {
            Server::Ours => "ours",
            Server::Tokio => "tokio",
        }
    }

    fn spec(self) -> io::Result<ServerSpec> {
        ServerSpec::this_binary(
            self.name(),
            &["serve", "--runtime", self.name(), "--addr", "127.0.0.1:0"],
        )
    }
}

/// Runs a server until killed, printing `listening on ADDR`.
pub fn serve(server: Server, addr: SocketAddr) -> io::Result<()> {
    match server {
        Server::Ours => chapter_07::echo::run(addr, None),
        Server::Tokio => tokio_echo::run(addr),
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

    pub fn run(addr: SocketAddr) -> io::Result<()> {
        chapter_03::limits::raise_fd_limit()?;
        let listener = chapter_03::server::listener(addr)
            .map_err(|err| io::Error::new(err.kind(), format!("cannot bind {addr}: {err}")))?;
        let rt = tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()?;
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

/// The comparison: each round runs ours then Tokio's under the same load;
/// the round with the median throughput of each is reported.
pub fn compare(
    console: &Console,
    config: &LoadConfig,
    rounds: usize,
) -> Result<Value, Box<dyn Error>> {
    let specs = [Server::Ours.spec()?, Server::Tokio.spec()?];
    let mut runs: [Vec<Value>; 2] = [Vec::new(), Vec::new()];
    for round in 0..rounds {
        if rounds > 1 {
            console.say(format!("round {} of {rounds}", round + 1));
        }
        let report = ch03::compare(console, &specs, config)?;
        let results = report
            .get("results")
            .and_then(Value::as_array)
            .ok_or("the harness returned no results")?;
        for (i, result) in results.iter().enumerate().take(2) {
            runs[i].push(result.clone());
        }
    }
    let throughput = |v: &Value| v["throughput_msgs_per_sec"].as_f64().unwrap_or(0.0);
    let median = |mut values: Vec<Value>| -> Value {
        values.sort_by(|a, b| throughput(a).total_cmp(&throughput(b)));
        values.swap_remove(values.len() / 2)
    };
    let [ours, tokio] = runs;
    let rounds_of = |runs: &[Value]| {
        runs.iter()
            .map(|r| throughput(r).round())
            .collect::<Vec<_>>()
    };
    let (ours_rounds, tokio_rounds) = (rounds_of(&ours), rounds_of(&tokio));
    let (ours, tokio) = (median(ours), median(tokio));
    let ratio = throughput(&ours) / throughput(&tokio).max(1e-9);
    console.say(format!(
        "\nThroughput, median round: ours {} msgs/s, tokio {} msgs/s; ours/tokio {ratio:.2} (goal: at least 0.8)",
        group_thousands(throughput(&ours)),
        group_thousands(throughput(&tokio)),
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
        "Server memory per connection, median round: ours {:.2} KiB, tokio {:.2} KiB",
        memory(&ours),
        memory(&tokio),
    ));
    Ok(json!({
        "experiment": "echo",
        "connections": config.connections,
        "duration_s": config.duration.as_secs(),
        "rounds": rounds,
        "machine": chapter_01::machine::Machine::current().describe(),
        "results": [ours, tokio],
        "throughput_rounds_ours": ours_rounds,
        "throughput_rounds_tokio": tokio_rounds,
        "throughput_ratio_vs_tokio": (ratio * 1000.0).round() / 1000.0,
        "memory_per_connection_kib_ours": memory(&ours),
        "memory_per_connection_kib_tokio": memory(&tokio),
    }))
}

/// The load for `compare -- echo`.
pub fn config(connections: usize, duration: Duration) -> LoadConfig {
    let mut config = LoadConfig::new(SocketAddr::from(([127, 0, 0, 1], 0)), connections);
    config.duration = duration;
    config
}
