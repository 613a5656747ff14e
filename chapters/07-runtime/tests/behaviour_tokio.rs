//! The behaviour suite (tests/behaviour/) compiled against Tokio, to prove
//! that every test encodes what Tokio really does. The same files are
//! compiled against our runtime by `behaviour_rt.rs`; a test that fails here
//! is a wrong test, not a runtime bug.
#![cfg(not(loom))]
#![cfg(not(miri))]
#![allow(missing_docs)]

use tokio as rt;

/// What differs between the two runtimes' APIs, behind one set of names.
#[allow(dead_code)]
mod shim {
    use crate::rt;
    use std::io;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    pub const NAME: &str = "tokio";

    pub use tokio::sync::mpsc::error::{
        SendError as MpscSendError, TryRecvError as MpscTryRecvError,
        TrySendError as MpscTrySendError,
    };
    pub use tokio::sync::oneshot::error::{
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
        stream.read_exact(buf).await.map(|_| ())
    }

    pub async fn read_to_end(stream: &mut rt::net::TcpStream) -> io::Result<Vec<u8>> {
        let mut out = Vec::new();
        stream.read_to_end(&mut out).await?;
        Ok(out)
    }

    /// Half-closes the stream: the peer reads end of file.
    pub async fn shutdown_write(stream: &mut rt::net::TcpStream) -> io::Result<()> {
        stream.shutdown().await
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

// Tests of Tokio APIs that rt does not have yet: compiled here to prove
// them right; behaviour_rt.rs has the same lines commented out.
#[path = "behaviour/pending_mpsc.rs"]
mod pending_mpsc;
#[path = "behaviour/pending_net.rs"]
mod pending_net;
#[path = "behaviour/pending_time.rs"]
mod pending_time;
