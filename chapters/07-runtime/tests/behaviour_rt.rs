//! The behaviour suite (tests/behaviour/) compiled against our runtime. The
//! same files are compiled against Tokio by `behaviour_tokio.rs`, where every
//! test passes: a failure here is a place where `rt` does not behave as
//! Tokio does.
#![cfg(not(loom))]
#![cfg(not(miri))]
#![allow(missing_docs)]

/// The runtime under test, under the name the suite uses (`crate::rt`).
mod rt {
    pub use ::rt::*;
}

/// What differs between the two runtimes' APIs, behind one set of names.
#[allow(dead_code)]
mod shim {
    use crate::rt;
    use futures::io::{AsyncReadExt, AsyncWriteExt};
    use std::io;

    pub const NAME: &str = "rt";

    pub use ::rt::sync::mpsc::{
        SendError as MpscSendError, TryRecvError as MpscTryRecvError,
        TrySendError as MpscTrySendError,
    };
    pub use ::rt::sync::oneshot::{
        RecvError as OneshotRecvError, TryRecvError as OneshotTryRecvError,
    };

    /// The runtime every test uses: multi-threaded, two workers.
    pub fn runtime() -> rt::runtime::Runtime {
        builder().build().expect("build a runtime")
    }

    /// The builder behind [`runtime`], for tests that change one knob.
    pub fn builder() -> rt::runtime::Builder {
        let mut builder = rt::runtime::Builder::new_multi_thread();
        builder.worker_threads(2).enable_all();
        builder
    }

    /// `max_blocking_threads(n)` on top of [`builder`].
    pub fn runtime_with_blocking_threads(n: usize) -> rt::runtime::Runtime {
        builder()
            .max_blocking_threads(n)
            .build()
            .expect("build a runtime")
    }

    /// `Handle::try_current()` succeeded.
    pub fn in_runtime_context() -> bool {
        rt::runtime::Handle::try_current().is_ok()
    }

    pub async fn read(stream: &mut rt::net::TcpStream, buf: &mut [u8]) -> io::Result<usize> {
        stream.read(buf).await
    }

    pub async fn write(stream: &mut rt::net::TcpStream, buf: &[u8]) -> io::Result<usize> {
        stream.write(buf).await
    }

    pub async fn write_all(stream: &mut rt::net::TcpStream, buf: &[u8]) -> io::Result<()> {
        stream.write_all(buf).await
    }

    pub async fn read_exact(stream: &mut rt::net::TcpStream, buf: &mut [u8]) -> io::Result<()> {
        stream.read_exact(buf).await
    }

    pub async fn read_to_end(stream: &mut rt::net::TcpStream) -> io::Result<Vec<u8>> {
        let mut out = Vec::new();
        stream.read_to_end(&mut out).await?;
        Ok(out)
    }

    /// Half-closes the stream: the peer reads end of file.
    pub async fn shutdown_write(stream: &mut rt::net::TcpStream) -> io::Result<()> {
        stream.shutdown_write()
    }

    pub fn num_workers(runtime: &rt::runtime::Runtime) -> usize {
        runtime.metrics().num_workers()
    }

    pub fn num_alive_tasks(runtime: &rt::runtime::Runtime) -> usize {
        runtime.metrics().num_alive_tasks()
    }
}

#[path = "behaviour/mod.rs"]
mod behaviour;

// Tests of Tokio APIs that rt does not have yet; uncomment each pair once
// rt has the API named at the top of its file.
#[path = "behaviour/pending_mpsc.rs"]
mod pending_mpsc;
#[path = "behaviour/pending_time.rs"]
mod pending_time;
#[path = "behaviour/pending_net.rs"]
mod pending_net;
