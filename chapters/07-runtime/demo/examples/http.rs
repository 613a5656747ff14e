//! The capstone's HTTP server, on our runtime or on Tokio:
//!
//! ```sh
//! cargo run --release -p chapter-07 --example http -- serve [--runtime rt|tokio] [--addr 127.0.0.1:3000] [--http2]
//! curl http://127.0.0.1:3000/json
//! ```
//!
//! The server is `chapter_07::http::serve`, written once and generic over an
//! `HttpRuntime`; this file adds Tokio's implementation of that trait (Tokio
//! and `hyper-util` are dev-dependencies, so it cannot live in the library)
//! and the command line. It prints `listening on http://ADDR` once bound, and
//! stops gracefully on Ctrl-C, or when its standard input closes if started
//! with `--exit-on-stdin-eof` (as `compare -- http` starts it).
//!
//! Book: "Serving HTTP on the runtime we built" (ch09-http.md).

#[cfg(not(loom))]
fn main() -> std::process::ExitCode {
    app::main()
}

// Under `--cfg loom` Tokio is not built.
#[cfg(loom)]
fn main() {}

#[cfg(not(loom))]
mod app {
    use chapter_07::http::{Config, HttpRuntime, OnRt, Protocol, serve};
    use clap::{Parser, Subcommand, ValueEnum};
    use futures::channel::oneshot;
    use futures::future::{self, Either};
    use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
    use std::future::Future;
    use std::io::{self, Read, Write};
    use std::net::SocketAddr;
    use std::pin::pin;
    use std::process::ExitCode;

    #[derive(Parser)]
    #[command(about = "An HTTP server (hyper) on this chapter's runtime or on Tokio")]
    struct Args {
        #[command(subcommand)]
        command: Command,
    }

    #[derive(Subcommand)]
    enum Command {
        /// Serve GET /, POST /echo, GET /sleep?ms=N and GET /json
        Serve {
            /// Which runtime runs the server
            #[arg(long, value_enum, default_value = "rt")]
            runtime: RuntimeArg,
            /// Where to listen (port 0: any free port, printed at start)
            #[arg(long, default_value = "127.0.0.1:3000")]
            addr: SocketAddr,
            /// Speak HTTP/2 over cleartext (prior knowledge) instead of HTTP/1.1
            #[arg(long)]
            http2: bool,
            /// Worker threads (default: logical CPUs)
            #[arg(long, value_parser = clap::value_parser!(u16).range(1..=256))]
            workers: Option<u16>,
            /// Also stop gracefully when standard input reaches its end
            #[arg(long)]
            exit_on_stdin_eof: bool,
        },
    }

    #[derive(Clone, Copy, ValueEnum)]
    enum RuntimeArg {
        Rt,
        Tokio,
    }

    // ANCHOR: on_tokio
    /// Tokio, through hyper-util's adapter.
    struct OnTokio;

    impl HttpRuntime for OnTokio {
        type Listener = tokio::net::TcpListener;
        type Io = TokioIo<tokio::net::TcpStream>;
        type Executor = TokioExecutor;
        type Timer = TokioTimer;

        async fn accept(listener: &Self::Listener) -> io::Result<Self::Io> {
            let (stream, _) = listener.accept().await?;
            stream.set_nodelay(true)?;
            Ok(TokioIo::new(stream))
        }

        fn spawn(future: impl Future<Output = ()> + Send + 'static) {
            drop(tokio::spawn(future));
        }

        fn executor() -> TokioExecutor {
            TokioExecutor::new()
        }

        fn timer() -> TokioTimer {
            TokioTimer::new()
        }
    }
    // ANCHOR_END: on_tokio

    pub fn main() -> ExitCode {
        let Command::Serve {
            runtime,
            addr,
            http2,
            workers,
            exit_on_stdin_eof,
        } = Args::parse().command;
        let config = Config {
            protocol: if http2 {
                Protocol::Http2
            } else {
                Protocol::Http1
            },
            ..Config::default()
        };
        let stdin_closed = stdin_closed(exit_on_stdin_eof);
        let result = match runtime {
            RuntimeArg::Rt => {
                let mut builder = rt::Builder::new_multi_thread();
                if let Some(n) = workers {
                    builder.worker_threads(n.into());
                }
                builder.build().and_then(|runtime| {
                    runtime.block_on(async {
                        let listener = rt::net::TcpListener::bind(addr).await;
                        let listener = announce(listener, "rt", http2)?;
                        let ctrl_c = async {
                            if rt::signal::ctrl_c().await.is_err() {
                                future::pending::<()>().await;
                            }
                        };
                        serve::<OnRt>(listener, config, either(ctrl_c, stdin_closed)).await;
                        Ok(())
                    })
                })
            }
            RuntimeArg::Tokio => {
                let mut builder = tokio::runtime::Builder::new_multi_thread();
                if let Some(n) = workers {
                    builder.worker_threads(n.into());
                }
                builder.enable_all().build().and_then(|runtime| {
                    runtime.block_on(async {
                        let listener = tokio::net::TcpListener::bind(addr).await;
                        let listener = announce(listener, "tokio", http2)?;
                        let ctrl_c = async {
                            if tokio::signal::ctrl_c().await.is_err() {
                                future::pending::<()>().await;
                            }
                        };
                        serve::<OnTokio>(listener, config, either(ctrl_c, stdin_closed)).await;
                        Ok(())
                    })
                })
            }
        };
        match result {
            Ok(()) => ExitCode::SUCCESS,
            Err(error) => {
                eprintln!("error: cannot serve on {addr}: {error}");
                ExitCode::FAILURE
            }
        }
    }

    /// Prints the bound address (a client started by a script waits for this
    /// line), or passes the bind error on.
    fn announce<L: LocalAddr>(
        listener: io::Result<L>,
        runtime: &str,
        http2: bool,
    ) -> io::Result<L> {
        let listener = listener?;
        let protocol = if http2 { "h2c" } else { "HTTP/1.1" };
        println!(
            "listening on http://{} ({runtime}, {protocol})",
            listener.local_addr()?
        );
        io::stdout().flush()?;
        Ok(listener)
    }

    trait LocalAddr {
        fn local_addr(&self) -> io::Result<SocketAddr>;
    }

    impl LocalAddr for rt::net::TcpListener {
        fn local_addr(&self) -> io::Result<SocketAddr> {
            rt::net::TcpListener::local_addr(self)
        }
    }

    impl LocalAddr for tokio::net::TcpListener {
        fn local_addr(&self) -> io::Result<SocketAddr> {
            tokio::net::TcpListener::local_addr(self)
        }
    }

    /// Completes when standard input reaches its end, if `enabled`; never
    /// otherwise. A plain thread reads it, so this works on either runtime.
    fn stdin_closed(enabled: bool) -> impl Future<Output = ()> + Send {
        let (closed, on_close) = oneshot::channel::<()>();
        if enabled {
            std::thread::spawn(move || {
                let mut sink = [0u8; 256];
                while !matches!(io::stdin().read(&mut sink), Ok(0) | Err(_)) {}
                let _ = closed.send(());
            });
        } else {
            std::mem::forget(closed);
        }
        async move {
            let _ = on_close.await;
        }
    }

    /// Completes when either completes.
    async fn either(a: impl Future<Output = ()>, b: impl Future<Output = ()>) {
        match future::select(pin!(a), pin!(b)).await {
            Either::Left(_) | Either::Right(_) => {}
        }
    }
}
