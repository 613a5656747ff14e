//! compio's echo server, for the race: a production completion runtime
//! (io_uring underneath, one thread) running the same echo as every other
//! server of the book: a task per connection, a 4 KiB buffer in each, read,
//! write it all back, shut down the write side when the client does, and
//! back off 100 ms when out of descriptors.
//!
//! compio's I/O takes the buffer by value and gives it back with the result
//! (`BufResult`): the buffer belongs to the runtime, and through it to the
//! kernel, while the operation is in flight. That is the ownership rule this
//! chapter's server keeps by hand.
//!
//! ```sh
//! cargo build --release -p chapter-10 --example compio-echo
//! target/release/examples/compio-echo --addr 127.0.0.1:0   # prints `listening on ADDR`
//! ```
//!
//! Book: Chapter 10, "The race".

#[cfg(target_os = "linux")]
fn main() -> std::process::ExitCode {
    match server::main() {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("error: {err}");
            std::process::ExitCode::FAILURE
        }
    }
}

#[cfg(not(target_os = "linux"))]
fn main() {}

#[cfg(target_os = "linux")]
mod server {
    use std::io;
    use std::net::SocketAddr;
    use std::time::Duration;

    use compio::BufResult;
    use compio::io::{AsyncRead, AsyncWrite, AsyncWriteExt};
    use compio::net::{TcpListener, TcpStream};

    /// Bytes read at a time, as Chapter 7's echo server.
    const BUFFER_BYTES: usize = 4096;

    /// How long the accept loop waits when out of descriptors.
    const EMFILE_BACKOFF: Duration = Duration::from_millis(100);

    async fn echo(mut stream: TcpStream) -> io::Result<()> {
        let mut buf = Vec::with_capacity(BUFFER_BYTES);
        loop {
            buf.clear();
            let BufResult(read, back) = stream.read(buf).await;
            buf = back;
            if read? == 0 {
                return stream.shutdown().await;
            }
            let BufResult(written, back) = stream.write_all(buf).await;
            buf = back;
            written?;
        }
    }

    async fn serve(listener: TcpListener) -> io::Result<()> {
        loop {
            match listener.accept().await {
                Ok((stream, _)) => {
                    let _ = stream.set_nodelay(true);
                    compio::runtime::spawn(async move {
                        let _ = echo(stream).await;
                    })
                    .detach();
                }
                Err(err) if chapter_01::echo_server::is_out_of_resources(&err) => {
                    compio::runtime::time::sleep(EMFILE_BACKOFF).await;
                }
                Err(err) if chapter_01::echo_server::is_transient(&err) => {}
                Err(err) => return Err(err),
            }
        }
    }

    fn parse_addr() -> Result<SocketAddr, String> {
        let mut args = std::env::args().skip(1);
        let mut addr: SocketAddr = "127.0.0.1:7011".parse().expect("a valid address");
        while let Some(arg) = args.next() {
            match (arg.as_str(), args.next()) {
                ("--addr", Some(value)) => {
                    addr = value
                        .parse()
                        .map_err(|_| format!("{value} is not an address like 127.0.0.1:7011"))?;
                }
                _ => {
                    return Err(format!(
                        "unexpected argument {arg}; usage: compio-echo [--addr ADDR]"
                    ));
                }
            }
        }
        Ok(addr)
    }

    pub fn main() -> Result<(), Box<dyn std::error::Error>> {
        let addr = parse_addr()?;
        chapter_03::limits::raise_fd_limit()?;
        let listener = chapter_03::server::listener(addr)
            .map_err(|err| format!("cannot bind {addr}: {err}"))?;
        let runtime = compio::runtime::Runtime::new()?;
        runtime.block_on(async {
            let listener = TcpListener::from_std(listener)?;
            chapter_03::server::announce(listener.local_addr()?)?;
            serve(listener).await
        })?;
        Ok(())
    }
}
