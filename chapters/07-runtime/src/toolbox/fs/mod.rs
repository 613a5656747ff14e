//! Files and directories, under Tokio's names (`tokio::fs::…` becomes
//! `rt::fs::…`), each operation a blocking call on the blocking pool.
//!
//! A socket can tell epoll when it is readable; a regular file cannot. The
//! kernel has no "not ready" state for a file on disk: a `read` either
//! finds the page in the page cache or waits for the disk, inside the
//! system call, and `epoll_ctl` refuses a regular file's descriptor with
//! `EPERM`. So there is nothing for the I/O driver to wait on, and rt does
//! what Tokio does: it runs the ordinary blocking call from `std::fs` on a
//! thread of the blocking pool ([`task::spawn_blocking`]) and lets the task
//! wait for that job's `JoinHandle` instead.
//!
//! * the one-shot functions ([`read`], [`write()`], [`metadata`],
//!   [`create_dir_all`], …) move their arguments to the pool, make the
//!   `std::fs` call there and hand back its result (`asyncify` below is the
//!   whole pattern: `whole_file.rs`, `tree.rs`, `info.rs`; those that take
//!   a path and nothing else are written by `path_functions!`);
//! * [`read_dir`] reads a directory 32 entries per pool call
//!   (`read_dir.rs`);
//! * [`OpenOptions`] and [`File`] (`open_options.rs`, `file.rs`): a `File`
//!   is a `std::fs::File` plus a buffer that travels to the pool and back,
//!   with at most one operation in flight (`buf.rs` is the buffer). A write
//!   is "done" once copied into that buffer; `flush` waits for the pool to
//!   write it, so `flush().await` (or `sync_all().await`) is where a write
//!   error shows. `file.rs`'s header tells the rest.
//!
//! Every operation needs a runtime: awaited outside one, it panics, as
//! `spawn_blocking` does (Tokio's panic there says "there is no reactor
//! running, must be called from the context of a Tokio 1.x runtime").
//!
//! Book: Chapter 7, "The budget and the blocking pool", section "Files:
//! why they go to the blocking pool".
//!
//! [`task::spawn_blocking`]: crate::task::spawn_blocking

/// The one-shot functions that take a path and nothing else: for each
/// `fn name -> T;` (with its docs), `async fn name(path) -> io::Result<T>`,
/// which runs `std::fs::name` on the path on the blocking pool.
macro_rules! path_functions {
    ($($(#[$doc:meta])* fn $name:ident -> $output:ty;)*) => {$(
        $(#[$doc])*
        ///
        /// # Panics
        ///
        /// When awaited outside a runtime.
        pub async fn $name(path: impl AsRef<std::path::Path>) -> std::io::Result<$output> {
            let path = path.as_ref().to_owned();
            $crate::fs::asyncify(move || std::fs::$name(path)).await
        }
    )*};
}

mod buf;
mod file;
mod info;
mod open_options;
mod read_dir;
mod tree;
mod whole_file;

pub use file::{File, FileTimes};
pub use info::{metadata, set_permissions, symlink_metadata, try_exists};
pub use open_options::OpenOptions;
pub use read_dir::{DirEntry, ReadDir, read_dir};
#[cfg(unix)]
pub use tree::symlink;
pub use tree::{
    DirBuilder, canonicalize, create_dir, create_dir_all, hard_link, read_link, remove_dir,
    remove_dir_all, remove_file, rename,
};
pub use whole_file::{copy, read, read_to_string, write};

use crate::task::JoinError;
use std::io;

/// Runs the blocking `f` on the pool and waits for its result: the shape
/// of every one-shot function in this module.
///
/// # Panics
///
/// When awaited outside a runtime (from `spawn_blocking`).
pub(crate) async fn asyncify<F, T>(f: F) -> io::Result<T>
where
    F: FnOnce() -> io::Result<T> + Send + 'static,
    T: Send + 'static,
{
    crate::task::spawn_blocking(f)
        .await
        .unwrap_or_else(|e| Err(job_lost(e)))
}

/// The error a file operation returns when its pool job did not run to
/// the end: cancelled because the runtime shut down, or panicked. Tokio's
/// message for it is the same.
pub(crate) fn job_lost(_: JoinError) -> io::Error {
    io::Error::other("background task failed")
}
