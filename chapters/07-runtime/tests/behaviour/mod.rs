//! The behaviour suite: what Tokio documents, checked against whichever
//! runtime the entry file names `crate::rt` (Tokio in behaviour_tokio.rs,
//! ours in behaviour_rt.rs). Every file starts with `use crate::rt;`, so a
//! bare `rt::` never reaches our crate in the Tokio build.
//!
//! Every test runs its body on a thread of its own under [`limit`], so that
//! a runtime that hangs fails the test instead of the whole run.

#![allow(clippy::undocumented_unsafe_blocks)]

pub mod api_audit;
pub mod api_diff;
pub mod api_gaps;
pub mod audit_current_thread;
pub mod audit_io_sync;
pub mod audit_io_utilities;
pub mod audit_net_fs;
pub mod audit_net_fs_process;
pub mod audit_panic_words;
pub mod audit_paused_time;
pub mod audit_runtime_macros;
pub mod audit_sync_channels;
pub mod audit_tasks_macros;
pub mod audit_time_task;
pub mod blocking;
pub mod blocking_threads;
pub mod channels;
pub mod channels_more;
pub mod current_thread;
pub mod documented;
pub mod documented_toolbox;
pub mod fs;
pub mod io;
pub mod io_toolbox;
pub mod macros_forms;
pub mod net;
pub mod net_edges;
pub mod paused_clock;
pub mod process;
pub mod regressions;
pub mod runtime;
pub mod shutdown;
pub mod task;
pub mod task_edges;
pub mod thread_locals;
pub mod time;

use std::any::Any;
use std::cell::RefCell;
use std::panic::Location;
use std::sync::Once;
use std::sync::mpsc;
use std::time::Duration;

/// How long any test may take before it counts as hung.
pub const LIMIT: Duration = Duration::from_secs(20);

/// Runs `body` on a new thread and waits at most [`LIMIT`] for it; a panic
/// in the body is re-raised here, a hang is a failure naming `what`.
pub fn limit<R: Send + 'static>(what: &str, body: impl FnOnce() -> R + Send + 'static) -> R {
    limit_for(what, LIMIT, body)
}

/// [`limit`] with a chosen limit.
pub fn limit_for<R: Send + 'static>(
    what: &str,
    limit: Duration,
    body: impl FnOnce() -> R + Send + 'static,
) -> R {
    let (tx, rx) = mpsc::channel();
    let thread = std::thread::Builder::new()
        .name(format!("behaviour: {what}"))
        .spawn(move || {
            let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(body));
            let _ = tx.send(result);
        })
        .expect("start the test thread");
    match rx.recv_timeout(limit) {
        Ok(Ok(value)) => {
            let _ = thread.join();
            value
        }
        Ok(Err(payload)) => std::panic::resume_unwind(payload),
        // The thread is left behind: it is stuck in the runtime under test.
        Err(_) => panic!("HANG: {what} did not finish within {limit:?}"),
    }
}

/// A panic payload's message, if it is a string.
pub fn panic_message(payload: &(dyn Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&'static str>() {
        s.to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "<non-string panic payload>".to_string()
    }
}

thread_local! {
    /// Where the last panic on this thread was raised, recorded by the hook.
    static LAST_PANIC: RefCell<Option<(String, u32, String)>> = const { RefCell::new(None) };
}

/// Installs (once per process) a panic hook that records each panic's
/// location and message in a thread-local, then prints as usual.
fn install_hook() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let location = info
                .location()
                .map(|l| (l.file().to_string(), l.line()))
                .unwrap_or_default();
            let message = panic_message(info.payload());
            LAST_PANIC.with(|last| *last.borrow_mut() = Some((location.0, location.1, message)));
            previous(info);
        }));
    });
}

/// A caught panic: its message and where it was raised.
#[derive(Debug)]
pub struct Caught {
    pub message: String,
    pub file: String,
    pub line: u32,
}

/// Asserts that a panic's `message` contains `words` (Tokio's, usually).
#[track_caller]
pub fn says(message: &str, words: &str) {
    assert!(
        message.contains(words),
        "the panic said {message:?}, without the words {words:?}"
    );
}

impl Caught {
    /// Asserts that the caught panic's message contains `words`.
    #[track_caller]
    pub fn assert_says(&self, words: &str) {
        says(&self.message, words);
    }
}

/// Runs `f`, which must panic on this thread; returns the panic's message
/// and location.
#[track_caller]
pub fn expect_panic<R>(what: &str, f: impl FnOnce() -> R) -> Caught {
    install_hook();
    LAST_PANIC.with(|last| *last.borrow_mut() = None);
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        Ok(_) => panic!("{what}: expected a panic, but it returned normally"),
        Err(payload) => {
            let (file, line, _) = LAST_PANIC
                .with(|last| last.borrow_mut().take())
                .unwrap_or_default();
            Caught {
                message: panic_message(&*payload),
                file,
                line,
            }
        }
    }
}

/// This file's name as `Location` reports it, to compare with a panic's.
#[track_caller]
pub fn here() -> &'static Location<'static> {
    Location::caller()
}

/// The panic was raised in the caller's file, between lines `after` and
/// `before` (the lines of two `line!()` around the call: rustfmt may
/// spread a call over several lines).
#[track_caller]
pub fn assert_points_here(caught: &Caught, after: u32, before: u32) {
    let here = here();
    assert!(
        caught.file == here.file() && after < caught.line && caught.line < before,
        "the panic ({:?}) points at {}:{}, not at the caller ({}:{after}..{before})",
        caught.message,
        caught.file,
        caught.line,
        here.file(),
    );
}

/// A runtime of the entry file's flavour whose clock starts paused.
pub fn paused_runtime() -> crate::rt::runtime::Runtime {
    crate::shim::builder()
        .start_paused(true)
        .build()
        .expect("build a paused runtime")
}

/// A connected pair of TCP streams on the loopback: the client's end,
/// then the accepted one.
pub async fn tcp_pair() -> (crate::rt::net::TcpStream, crate::rt::net::TcpStream) {
    let listener = crate::rt::net::TcpListener::bind("127.0.0.1:0")
        .await
        .unwrap();
    let client = crate::rt::net::TcpStream::connect(listener.local_addr().unwrap())
        .await
        .unwrap();
    let (server, _) = listener.accept().await.unwrap();
    (client, server)
}

/// True if `message` says the runtime is shutting down (Tokio: "A Tokio 1.x
/// context was found, but it is being shutdown.").
pub fn mentions_shutdown(message: &str) -> bool {
    let m = message.to_lowercase();
    m.contains("shutdown") || m.contains("shut down") || m.contains("shutting down")
}

/// A waker that counts its live clones through an `Arc`'s strong count.
pub mod counting_waker {
    use std::sync::Arc;
    use std::task::{Wake, Waker};

    pub struct Counter;

    impl Wake for Counter {
        fn wake(self: Arc<Self>) {}
    }

    /// A waker and the `Arc` whose strong count is 1 + the live wakers.
    pub fn new() -> (Waker, Arc<Counter>) {
        let counter = Arc::new(Counter);
        (Waker::from(counter.clone()), counter)
    }
}

/// Sets SO_LINGER to 0 on a std socket, so that closing it sends a reset.
pub fn set_linger_zero(stream: &std::net::TcpStream) {
    use std::os::fd::AsRawFd;
    let linger = libc::linger {
        l_onoff: 1,
        l_linger: 0,
    };
    // SAFETY: the descriptor is an open socket owned by `stream`, and the
    // option value is a `linger` of the size passed.
    let r = unsafe {
        libc::setsockopt(
            stream.as_raw_fd(),
            libc::SOL_SOCKET,
            libc::SO_LINGER,
            (&raw const linger).cast(),
            std::mem::size_of::<libc::linger>() as libc::socklen_t,
        )
    };
    assert_eq!(r, 0, "setsockopt(SO_LINGER)");
}

/// A fresh, empty directory for socket files (one per test, runtime and
/// process), removed when dropped.
pub struct SocketDir(std::path::PathBuf);

impl SocketDir {
    pub fn new(test: &str) -> SocketDir {
        let path = std::env::temp_dir().join(format!(
            "rt-behaviour-{}-{}-{test}",
            crate::shim::NAME,
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir_all(&path).unwrap();
        SocketDir(path)
    }

    pub fn join(&self, name: &str) -> std::path::PathBuf {
        self.0.join(name)
    }
}

impl Drop for SocketDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A fresh, empty directory for one test's files under the system's
/// temporary directory, removed when dropped. Its name joins the calling
/// file's prefix, the runtime (`shim::NAME`), the flavour, the process id,
/// a counter private to the process and the test's name, so that no two
/// tests share one: not across files, not between the Tokio and rt builds
/// or their flavours, and not between test processes running at once.
pub(crate) struct Scratch(std::path::PathBuf);

impl Scratch {
    /// Makes the directory for test `test` of the file whose prefix is
    /// `file_prefix` (say `"fs"`).
    pub(crate) fn new(file_prefix: &str, test: &str) -> Scratch {
        use std::sync::atomic::{AtomicUsize, Ordering};
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let flavour = if crate::shim::MULTI_THREAD {
            "mt"
        } else {
            "ct"
        };
        let dir = std::env::temp_dir().join(format!(
            "rt-{file_prefix}-{}-{flavour}-{}-{}-{test}",
            crate::shim::NAME,
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed),
        ));
        // Left over by an earlier process that had the same id and crashed.
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("make the scratch directory");
        Scratch(dir)
    }

    /// The directory itself.
    pub(crate) fn path(&self) -> &std::path::Path {
        &self.0
    }

    /// `name` inside the directory.
    pub(crate) fn join(&self, name: &str) -> std::path::PathBuf {
        self.0.join(name)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
